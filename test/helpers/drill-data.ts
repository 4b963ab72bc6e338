/**
 * Drills built from stated per-window outcomes and a stated control-plane history (no endpoint,
 * no clock): what the pure analysis and `plan --drill` tests judge. Windows are real HDR
 * histograms (src/load/histograms.ts), so `completeDrill` decodes them as it does a measured one.
 */
import { completeDrill } from '../../src/analysis/drill-merge.js';
import type {
  DrillArtifact,
  DrillData,
  DrillLoadSecond,
  DrillObserver,
  DrillPhase,
  DrillPrediction,
  Fingerprint,
} from '../../src/model/index.js';
import { encodeWindow, newWindow, recordMs, recordStreamAudio } from '../../src/stats/histograms.js';

export const WINDOW_S = 10;

export const PHASES: DrillPhase[] = [
  { name: 'steady', start_s: 0, end_s: 60, rate_rps: 10, rate_source: 'computed: test' },
  { name: 'surge', start_s: 60, end_s: 160, rate_rps: 12.5, rate_source: 'computed: test' },
  { name: 'trough', start_s: 160, end_s: 180, rate_rps: 2, rate_source: 'chosen: test' },
];

export const PREDICTION: DrillPrediction = {
  scaling_target_value: 37.5,
  scale_in_threshold: 25,
  x_target_rps: 10,
  t_total_s: 4,
  t_total_origin: 'assumed',
  policy_lag_s: 60,
  policy_lag_origin: 'bound',
  t_plan_s: 64,
  surge_overflow_probability: 1,
  baseline_overflow_probability: 0.99,
  planned_surge_ratio: 1.25,
  scale_in_cooldown_s: 300,
  queue_max_depth: 50,
};

/** What one window held: every arrival ok at `ttfabMs` unless overflowed or failed. */
export interface WindowSpec {
  offered: number;
  overflow?: number;
  errors?: number;
  ttfabMs: number;
  /** Every ok response a multi-chunk WAV stream that stalled this long (absent: no audio accounted). */
  stallMs?: number;
}

export const okWindow = (offered = 100, ttfabMs = 100): WindowSpec => ({ offered, ttfabMs });

/** Windows (one per WINDOW_S) and seconds consistent with them, for an SLO of `sloMs`. */
export function loadOf(specs: readonly WindowSpec[], sloMs: number) {
  const windows = specs.map((spec, index) => {
    const w = newWindow(index);
    const overflow = spec.overflow ?? 0;
    const errors = spec.errors ?? 0;
    const ok = spec.offered - overflow - errors;
    w.offered = spec.offered;
    w.sent = spec.offered;
    w.outcomes = {
      ok,
      ...(overflow ? { saturated_503: overflow } : {}),
      ...(errors ? { server_5xx: errors } : {}),
    };
    for (let i = 0; i < ok; i++) recordMs(w.series.ttfab_intended, spec.ttfabMs);
    if (spec.stallMs !== undefined) {
      for (let i = 0; i < ok; i++) {
        recordStreamAudio(w.audio, {
          format: {
            container: 'wav',
            sample_rate_hz: 24_000,
            channels: 1,
            bits_per_sample: 16,
            origin: 'header',
          },
          audioS: 2,
          stallMs: spec.stallMs,
          maxGapMs: 100 + spec.stallMs,
          characters: 40,
          responseMs: 1000 + spec.stallMs,
        });
      }
    }
    return encodeWindow(w);
  });
  const seconds: DrillLoadSecond[] = [];
  specs.forEach((spec, index) => {
    const overflow = spec.overflow ?? 0;
    const errors = spec.errors ?? 0;
    const ok = spec.offered - overflow - errors;
    for (let k = 0; k < WINDOW_S; k++) {
      const share = (n: number) => Math.floor(n / WINDOW_S) + (k < n % WINDOW_S ? 1 : 0);
      seconds.push({
        t: index * WINDOW_S + k,
        offered: share(spec.offered),
        sent: share(spec.offered),
        ok: share(ok),
        within_slo: spec.ttfabMs <= sloMs ? share(ok) : 0,
        overflow: share(overflow),
        errors: share(errors),
        completed_ok: share(ok),
        in_flight: 1,
      });
    }
  });
  return { windows, seconds };
}

export const FINGERPRINT: Fingerprint = {
  instance_type: 'ml.g5.xlarge',
  image_digest: 'a'.repeat(64),
  container_env: {},
  region: 'local',
};

export const SCALE_OUT_ALARM = 'TargetTracking-endpoint/ep/variant/AllTraffic-AlarmHigh-x';

/** An observer: a busy endpoint whose metric breaches from `breachS`, alarm and scale-out 30 s later. */
export function observerWith(opts: {
  breachS: number | null;
  /** Metric periods (10 s) from -30 s to the end: the value in each. */
  metric?: (tS: number) => number;
  scaleOuts?: Array<{ atS: number; to: number }>;
  scaleIns?: Array<{ atS: number; to: number }>;
  endS?: number;
}): DrillObserver {
  const endS = opts.endS ?? 180;
  const breach = opts.breachS;
  const metric = opts.metric ?? ((t: number) => (breach !== null && t >= breach ? 45 : 20));
  const points = [];
  for (let t = -30; t < endS; t += 10) points.push({ t_s: t, value: metric(t) });
  const activities = [
    ...(opts.scaleOuts ?? []).map((s, i) => ({
      id: `out-${i}`,
      start_s: s.atS,
      end_s: s.atS + 5,
      status: 'Successful',
      description: `Setting desired instance count to ${s.to}.`,
      cause: `monitor alarm ${SCALE_OUT_ALARM} in state ALARM triggered policy p`,
      to_desired: s.to,
    })),
    ...(opts.scaleIns ?? []).map((s, i) => ({
      id: `in-${i}`,
      start_s: s.atS,
      end_s: s.atS + 5,
      status: 'Successful',
      description: `Setting desired instance count to ${s.to}.`,
      cause: 'monitor alarm scale-in in state ALARM triggered policy q',
      to_desired: s.to,
    })),
  ].sort((a, b) => a.start_s - b.start_s);
  const transitions = (opts.scaleOuts ?? []).map((s) => ({
    alarm: SCALE_OUT_ALARM,
    t_s: s.atS,
    from: 'OK' as const,
    to: 'ALARM' as const,
  }));
  const observations = [];
  for (let t = -10; t <= endS; t += 1) {
    let desired = 1;
    for (const a of activities) if (a.start_s <= t) desired = a.to_desired;
    let current = desired;
    for (const a of activities)
      if (a.start_s <= t && t < a.start_s + 4) current = desired - (a.to_desired > 0 ? 1 : 0);
    const alarm = transitions.some((x) => x.t_s <= t && t < x.t_s + 10) ? 'ALARM' : 'OK';
    observations.push({
      t_s: t + 0.2,
      status: 'InService',
      desired,
      current: Math.max(1, current),
      alarms: { [SCALE_OUT_ALARM]: alarm as 'OK' | 'ALARM' },
    });
  }
  return {
    alarms: [
      {
        name: SCALE_OUT_ALARM,
        role: 'scale-out',
        metric: 'AWS/SageMaker ConcurrentRequestsPerModel',
        statistic: 'Maximum',
        period_s: 10,
        evaluation_periods: 3,
        datapoints_to_alarm: 3,
        threshold: 37.5,
        comparison: 'GreaterThanThreshold',
      },
    ],
    metric: {
      namespace: 'AWS/SageMaker',
      name: 'ConcurrentRequestsPerModel',
      statistic: 'Maximum',
      period_s: 10,
      points,
    },
    observations,
    transitions,
    activities,
    errors: [],
  };
}

export interface DrillSpec {
  windows: readonly WindowSpec[];
  observer: DrillObserver | null;
  prediction?: Partial<DrillPrediction>;
  sloMs?: number;
  /** The continuity SLO the drill ran with (absent: first audio only). */
  underrunSloMs?: number;
  fingerprint?: Fingerprint;
  planRunId?: string;
  modelName?: string;
}

export function drillData(spec: DrillSpec): DrillData {
  const sloMs = spec.sloMs ?? 750;
  const { windows, seconds } = loadOf(spec.windows, sloMs);
  return {
    schema_version: 1,
    model_name: spec.modelName ?? 'kokoro-82m',
    endpoint: 'ep',
    variant: 'AllTraffic',
    region: 'local',
    run_id: 'drill-run-1',
    measured_at: '2026-01-01T00:03:00.000Z',
    plan_run_id: spec.planRunId ?? 'plan-run-1',
    plan_file: 'artifacts/plan-kokoro-82m.json',
    fingerprint: spec.fingerprint ?? FINGERPRINT,
    policy: { verdict: 'clean', mismatch_allowed: false, differences: [], compared: 80 },
    prediction: { ...PREDICTION, ...spec.prediction },
    settings: {
      surge_ratio: 1.25,
      start_instances: 1,
      slo_ms: sloMs,
      window_s: WINDOW_S,
      seed: 1,
      poll_s: 1,
      request_timeout_s: 7.5,
      max_outstanding: 200,
      transport: 'response-stream',
      prompts: { source: 'built-in', count: 24 },
      ...(spec.underrunSloMs !== undefined
        ? { underrun_slo_ms: spec.underrunSloMs, client_buffer_ms: 0 }
        : {}),
    },
    phases: PHASES,
    histograms: {
      schedule: {
        process: 'poisson',
        seed: 1,
        description: 'test',
        schedule_hash: 'b'.repeat(64),
        arrivals: spec.windows.reduce((s, w) => s + w.offered, 0),
        duration_s: 180,
      },
      start_at: '2026-01-01T00:00:00.000Z',
      window_ms: WINDOW_S * 1000,
      shards: [{ index: 0, count: 1 }],
      windows,
    },
    load_seconds: seconds,
    failures: [],
    observer: spec.observer,
    notes: [],
    provenance: { origin: 'measured', tool: 'scalegate test', note: null },
  };
}

export const buildDrill = (spec: DrillSpec): DrillArtifact =>
  completeDrill(drillData(spec), [{ index: 0, count: 1 }], 'test drill');

/** 18 windows of 10 s: steady 0-60, surge 60-160, trough 160-180, all ok unless replaced. */
export function windowsWith(replace: Record<number, WindowSpec> = {}): WindowSpec[] {
  return Array.from({ length: 18 }, (_, i) => replace[i] ?? okWindow());
}
