/**
 * The pure half of ttotal: the container's stage markers, the timeline of
 * one scale-out with its durations and shares of T_total, the probe's recovery windows, the
 * policy's detection lag, whether a T_total is only a lower bound, and the artifact. No I/O:
 * src/commands/ttotal.ts observes, this judges.
 */
import type { QmaxArtifact, TtotalArtifact } from '../model/artifacts.js';
import { ttotalStageNames } from '../model/artifacts.js';
import { quantileWithMisses } from '../stats/ladder-stats.js';
import { sortedAscending } from '../stats/quantiles.js';

/** Without a deployed scale-out policy the detection lag is bounded, not measured (seconds). */
export const POLICY_LAG_BOUND_S = 60;

export const MARKER_STAGES = [
  'container_start',
  'framework_init',
  'weights_ready',
  'warmup_done',
  'ready',
] as const;
export type MarkerStage = (typeof MARKER_STAGES)[number];

export interface StageMarker {
  stage: MarkerStage;
  atMs: number;
  elapsedS: number;
}

const MARKER = /=== STAGE ([a-z_]+) t=(\S+) elapsed_s=(-?[0-9]+(?:\.[0-9]+)?) ===/;

/** `=== STAGE <name> t=<ISO>Z elapsed_s=<s> ===` -> the marker; null for any other line. */
export function parseStageMarker(message: string): StageMarker | null {
  const m = MARKER.exec(message);
  if (!m) return null;
  const stage = m[1] as string;
  if (!(MARKER_STAGES as readonly string[]).includes(stage)) return null;
  const atMs = Date.parse(m[2] as string);
  if (!Number.isFinite(atMs)) return null;
  return { stage: stage as MarkerStage, atMs, elapsedS: Number(m[3]) };
}

/** The first marker of each stage, in the order they appear. */
export function stageMarkers(messages: readonly string[]): StageMarker[] {
  const seen = new Map<MarkerStage, StageMarker>();
  for (const message of messages) {
    const marker = parseStageMarker(message);
    if (marker && !seen.has(marker.stage)) seen.set(marker.stage, marker);
  }
  return [...seen.values()];
}

/** Timeline stage of each marker: the contract's `container_start` is the timeline's `container_started`. */
const TIMELINE_STAGE_OF: Record<MarkerStage, string> = {
  container_start: 'container_started',
  framework_init: 'framework_init',
  weights_ready: 'weights_ready',
  warmup_done: 'warmup_done',
  ready: 'ready',
};

/** The stages in the order they happen (the artifact schema's list). */
export const TIMELINE_ORDER = ttotalStageNames;

export interface RecoveryWindow {
  startMs: number;
  windowS: number;
  samples: number;
  p95Ms: number;
  targetMs: number;
}

export interface StageObservations {
  loadAppliedMs: number;
  desiredSetMs: number;
  /** The new instance's log stream (first event), null when none appeared. */
  instanceLogging: { stream: string; firstEventMs: number } | null;
  markers: readonly StageMarker[];
  inService: { atMs: number; previousPollMs: number; pollS: number } | null;
  recovered: RecoveryWindow | null;
}

type TimelineEntry = TtotalArtifact['timeline'][number];
type DurationEntry = TtotalArtifact['durations'][number];

export interface TimelineAnalysis {
  timeline: TimelineEntry[];
  durations: DurationEntry[];
  dominant: TtotalArtifact['dominant_stage'];
  missing: string[];
  /** null when there is no end stage (the instance never served). */
  tTotalS: number | null;
  endStage: 'traffic_recovered' | 'in_service' | null;
  notes: string[];
}

const iso = (ms: number): string => new Date(ms).toISOString();
const round3 = (s: number): number => Math.round(s * 1000) / 1000;

/**
 * Timeline, durations (consecutive observed stages in contract order), shares of T_total (only
 * for durations inside [desired_set, end]), the dominant stage, missing stages and notes. Pure.
 */
export function analyseTimeline(obs: StageObservations): TimelineAnalysis {
  const notes: string[] = [];
  const entries = new Map<string, TimelineEntry>();
  entries.set('load_applied', {
    stage: 'load_applied',
    at: iso(obs.loadAppliedMs),
    source: 'probe start',
    bounded: false,
    note: 'probe established before the trigger; not the start of the clock',
  });
  entries.set('desired_set', {
    stage: 'desired_set',
    at: iso(obs.desiredSetMs),
    source: 'UpdateEndpointWeightsAndCapacities call',
    bounded: false,
    note: 'the clock starts here',
  });
  if (obs.instanceLogging) {
    entries.set('instance_logging', {
      stage: 'instance_logging',
      at: iso(obs.instanceLogging.firstEventMs),
      source: `log stream ${obs.instanceLogging.stream} firstEventTimestamp`,
      bounded: true,
      note: 'upper bound on provisioning plus image pull, which a container cannot time itself',
    });
  }
  const missing: string[] = [];
  const byStage = new Map(obs.markers.map((m) => [m.stage, m]));
  for (const stage of MARKER_STAGES) {
    const marker = byStage.get(stage);
    const name = TIMELINE_STAGE_OF[stage];
    if (marker) {
      entries.set(name, {
        stage: name,
        at: iso(marker.atMs),
        source: `container log marker (elapsed_s=${marker.elapsedS.toFixed(3)})`,
        bounded: false,
        note: null,
      });
    } else {
      missing.push(name);
    }
  }
  if (!byStage.has('container_start')) {
    const first = MARKER_STAGES.map((s) => byStage.get(s)).find((m): m is StageMarker => m !== undefined);
    if (first) {
      entries.set('container_started', {
        stage: 'container_started',
        at: iso(first.atMs - first.elapsedS * 1000),
        source: 'derived from elapsed_s',
        bounded: true,
        note: `reconstructed as ${first.stage} minus its elapsed_s=${first.elapsedS.toFixed(3)}s; no container_start line was in the stream`,
      });
      notes.push(
        `the container_start marker is missing; container_started is reconstructed from ${first.stage} (labelled bounded)`,
      );
    }
  }
  if (obs.inService) {
    entries.set('in_service', {
      stage: 'in_service',
      at: iso(obs.inService.atMs),
      source: 'DescribeEndpoint CurrentInstanceCount',
      bounded: true,
      note: `first poll that reported the extra instance; it arrived after the previous poll at ${iso(obs.inService.previousPollMs)} (poll interval ${obs.inService.pollS} s is the bound)`,
    });
  } else {
    missing.push('in_service');
  }
  if (obs.recovered) {
    const r = obs.recovered;
    entries.set('traffic_recovered', {
      stage: 'traffic_recovered',
      at: iso(r.startMs),
      source: 'client-side p95 recovery',
      bounded: true,
      note: `probe p95 TTFAB ${Math.round(r.p95Ms)} ms held at or under ${Math.round(r.targetMs)} ms across ${r.samples} completions in the following ${r.windowS} s window`,
    });
  } else {
    missing.push('traffic_recovered');
  }
  if (!obs.instanceLogging) missing.splice(0, 0, 'instance_logging');

  const timeline = TIMELINE_ORDER.map((s) => entries.get(s)).filter(
    (e): e is TimelineEntry => e !== undefined,
  );
  const endStage = entries.has('traffic_recovered')
    ? 'traffic_recovered'
    : entries.has('in_service')
      ? 'in_service'
      : null;
  const endIndex = endStage ? TIMELINE_ORDER.indexOf(endStage) : -1;
  const startIndex = TIMELINE_ORDER.indexOf('desired_set');
  const ms = (e: TimelineEntry): number => Date.parse(e.at);
  const tTotalS = endStage
    ? round3((ms(entries.get(endStage) as TimelineEntry) - obs.desiredSetMs) / 1000)
    : null;

  const durations: DurationEntry[] = [];
  for (let i = 1; i < timeline.length; i++) {
    const from = timeline[i - 1] as TimelineEntry;
    const to = timeline[i] as TimelineEntry;
    let seconds = round3((ms(to) - ms(from)) / 1000);
    if (seconds < 0) {
      notes.push(
        from.stage === 'instance_logging'
          ? `${to.stage} (the container's own clock) is ${Math.abs(seconds)} s before instance_logging (when CloudWatch Logs received the stream's first line, an upper bound); counted as 0`
          : `${to.stage} is stamped ${Math.abs(seconds)} s before ${from.stage} (different clocks); counted as 0`,
      );
      seconds = 0;
    }
    const fromIndex = TIMELINE_ORDER.indexOf(from.stage as (typeof TIMELINE_ORDER)[number]);
    const toIndex = TIMELINE_ORDER.indexOf(to.stage as (typeof TIMELINE_ORDER)[number]);
    const inside = tTotalS !== null && tTotalS > 0 && fromIndex >= startIndex && toIndex <= endIndex;
    durations.push({
      from: from.stage,
      to: to.stage,
      seconds,
      bounded: from.bounded || to.bounded,
      share: inside ? Math.round((seconds / (tTotalS as number)) * 10_000) / 10_000 : null,
    });
  }
  const insideDurations = durations.filter((d) => d.share !== null);
  const top = insideDurations.reduce<DurationEntry | null>(
    (best, d) => (best === null || d.seconds > best.seconds ? d : best),
    null,
  );
  if (endStage === 'in_service') {
    notes.push(
      'traffic did not recover within the wait: T_total ends at in_service and is a lower bound (the instance was reported in service, but the probe p95 never fell to the target)',
    );
  }
  return {
    timeline,
    durations,
    dominant: top ? { from: top.from, to: top.to, seconds: top.seconds } : null,
    missing,
    tTotalS,
    endStage,
    notes,
  };
}

export interface ProbeSample {
  dispatchMs: number;
  endMs: number;
  /** TTFAB, or +Infinity for a request that got no audio (it certainly missed any target). */
  ttfabMs: number;
}

/** p95 of the TTFABs of requests dispatched in [fromMs, toMs), with misses as +Infinity. */
export function windowP95(
  samples: readonly ProbeSample[],
  fromMs: number,
  toMs: number,
): { p95: number | null; n: number } {
  const values = samples.filter((s) => s.dispatchMs >= fromMs && s.dispatchMs < toMs).map((s) => s.ttfabMs);
  return { p95: quantileWithMisses(sortedAscending(values), 0.95), n: values.length };
}

/**
 * The first window [s, s + windowS) with s >= fromMs (stepping by stepMs, window end <= horizon)
 * holding at least minSamples requests whose p95 TTFAB is at or under targetMs. Pure.
 */
export function findRecoveryWindow(
  samples: readonly ProbeSample[],
  options: {
    fromMs: number;
    horizonMs: number;
    windowS: number;
    stepMs: number;
    minSamples: number;
    targetMs: number;
  },
): RecoveryWindow | null {
  const windowMs = options.windowS * 1000;
  for (let s = options.fromMs; s + windowMs <= options.horizonMs; s += options.stepMs) {
    const { p95, n } = windowP95(samples, s, s + windowMs);
    if (p95 !== null && n >= options.minSamples && p95 <= options.targetMs) {
      return { startMs: s, windowS: options.windowS, samples: n, p95Ms: p95, targetMs: options.targetMs };
    }
  }
  return null;
}

/** The ladder's p95 TTFAB at `concurrency` (usable steps only; median across runs), null if none. */
export function ladderP95(qmax: QmaxArtifact, concurrency: number): number | null {
  const values = qmax.steps
    .filter((s) => s.concurrency === concurrency && s.usable && s.ttfab_p95_ms !== null)
    .map((s) => s.ttfab_p95_ms as number)
    .sort((a, b) => a - b);
  if (values.length === 0) return null;
  return values[Math.floor((values.length - 1) / 2)] as number;
}

/** The concurrencies the ladder measured usably, ascending. */
export const usableRungs = (qmax: QmaxArtifact): number[] =>
  [...new Set(qmax.steps.filter((s) => s.usable && s.ttfab_p95_ms !== null).map((s) => s.concurrency))].sort(
    (a, b) => a - b,
  );

/** Probe concurrencies N the ladder supports: usable at N and N/2, N <= Q_max. */
export function probeCandidates(qmax: QmaxArtifact): number[] {
  const rungs = new Set(usableRungs(qmax));
  return [...rungs].filter((n) => n % 2 === 0 && rungs.has(n / 2) && n <= Math.max(qmax.q_max, 1));
}

/** The ladder's p95 at N/2: measured, or interpolated linearly between the usable rungs around it. */
export interface HalfRungP95 {
  p95Ms: number;
  /** The rungs it was interpolated between; null when N/2 itself was measured. */
  between: [number, number] | null;
}

export function halfRungP95(qmax: QmaxArtifact, n: number): HalfRungP95 | null {
  const half = n / 2;
  const measured = Number.isInteger(half) ? ladderP95(qmax, half) : null;
  if (measured !== null) return { p95Ms: measured, between: null };
  const rungs = usableRungs(qmax);
  const below = rungs.filter((r) => r < half).at(-1);
  const above = rungs.find((r) => r > half);
  if (below === undefined || above === undefined) return null;
  const lo = ladderP95(qmax, below) as number;
  const hi = ladderP95(qmax, above) as number;
  return { p95Ms: lo + ((half - below) / (above - below)) * (hi - lo), between: [below, above] };
}

/**
 * Probe concurrencies whose N/2 the ladder brackets without measuring it (an adaptive ladder jumps
 * 2 -> 16 and pairs only 2 and 1, a probe so small that the host's own overhead hides recovery):
 * the recovery target is then read off the line between the rungs around N/2 (p95 grows with N).
 */
export function interpolatedProbeCandidates(qmax: QmaxArtifact): number[] {
  const measured = new Set(probeCandidates(qmax));
  return usableRungs(qmax).filter(
    (n) =>
      n % 2 === 0 &&
      n >= 4 &&
      n <= Math.max(qmax.q_max, 1) &&
      !measured.has(n) &&
      halfRungP95(qmax, n) !== null,
  );
}

/** One alarm that starts a scale-out: how long it needs to fire (read by src/aws/policy.ts). */
export interface ScaleOutAlarmTiming {
  policyName: string;
  alarmName: string;
  periodS: number;
  datapointsToAlarm: number;
}

/** Policy detection lag from the deployed scale-out alarms (fastest alarm), else the bound. */
export function policyLag(
  timings: readonly ScaleOutAlarmTiming[],
  publicationDelayS: number | null,
): { lagS: number; bounded: boolean; source: string } {
  if (timings.length === 0) {
    return {
      lagS: POLICY_LAG_BOUND_S,
      bounded: true,
      source: `bound of ${POLICY_LAG_BOUND_S} s: no scale-out policy is deployed on the variant, so there is no alarm to read the detection lag from`,
    };
  }
  const scored = timings.map((t) => {
    const delay = publicationDelayS ?? t.periodS;
    return { t, delay, lag: t.periodS * t.datapointsToAlarm + delay };
  });
  const best = scored.reduce((a, b) => (b.lag < a.lag ? b : a));
  const delayText =
    publicationDelayS === null
      ? `${best.delay} s CloudWatch publication delay (assumed: one period, the datapoint exists once its period closes)`
      : `${best.delay} s CloudWatch publication delay (given)`;
  return {
    lagS: best.lag,
    bounded: false,
    source: `alarm ${best.t.alarmName} of policy ${best.t.policyName}: ${best.t.datapointsToAlarm} datapoints x ${best.t.periodS} s + ${delayText}`,
  };
}

/**
 * A T_total that ends at in_service (the instance came into service but the probe never
 * recovered) is a lower bound: planning on it would under-size headroom. Artifacts from before
 * `t_total_end_stage` was recorded are judged by their missing stages.
 */
export function isLowerBound(
  ttotal: Pick<TtotalArtifact, 't_total_end_stage' | 'missing_stages'> | null | undefined,
): boolean {
  if (!ttotal) return false;
  if (ttotal.t_total_end_stage !== undefined) return ttotal.t_total_end_stage === 'in_service';
  return ttotal.missing_stages.includes('traffic_recovered');
}

const DIFFERENCE_LABEL: Record<string, string> = {
  instance_type: 'instance type',
  image_digest: 'image digest',
  container_env: 'container environment',
  region: 'region',
  request: 'request shape',
};

/** One line per fingerprint field on which the qmax artifact and the live endpoint disagree. */
export function mismatchWarnings(
  differences: readonly { field: string; left: string; right: string }[],
  endpoint: string,
): string[] {
  return differences.map(
    (d) =>
      `${DIFFERENCE_LABEL[d.field] ?? d.field}: qmax measured ${d.left}, endpoint ${endpoint} runs ${d.right}`,
  );
}

/** What the scale-out looked like when it did not complete: the endpoint's own account of it. */
export interface ScaleOutFailure {
  reason: string;
  capacity: {
    endpointStatus: string;
    desired: number | null;
    current: number | null;
    failureReason: string | null;
  } | null;
  stream: string | null;
  logTail: string[];
}

/** Everything a completed scale-out leaves behind that the artifact records. */
export interface TtotalRecord {
  modelName: string;
  endpoint: string;
  runId: string;
  fingerprint: TtotalArtifact['fingerprint'];
  transport: TtotalArtifact['transport'];
  trigger: TtotalArtifact['trigger'];
  qmax: Pick<QmaxArtifact, 'run_id' | 'q_max'>;
  lag: { lagS: number; bounded: boolean; source: string };
  instanceId: string | null;
  fromInstances: number;
  toInstances: number;
  probeConcurrency: number;
  obs: StageObservations;
  /** The probe before the trigger and in the recovery window. */
  before: { p95: number | null; n: number };
  after: { p95: number | null; n: number };
  targetMs: number;
  /** The rungs the ladder p95 at N/2 was interpolated between (null: measured at N/2). */
  halfBetween?: [number, number] | null;
  mismatchWarnings: string[];
  settings: NonNullable<TtotalArtifact['settings']>;
  quota: TtotalArtifact['quota'];
  restore: NonNullable<TtotalArtifact['restore']>;
  /** The journal kept when the restore failed (null: restored). */
  keptJournal: string | null;
  tool: string;
}

const finiteOrNull = (v: number | null): number | null => (v !== null && Number.isFinite(v) ? v : null);

/** The ttotal artifact of one completed scale-out: timeline, durations, notes and provenance. */
export function assembleTtotalArtifact(r: TtotalRecord): TtotalArtifact {
  const analysis = analyseTimeline(r.obs);
  const notes = [
    "trigger was --force-desired under a scaling freeze, so the policy's own detection lag is not in this number; it is reported separately as policy_lag_s, and the planner adds it (T_plan = t_total_s + policy_lag_s).",
    ...analysis.notes,
    ...r.mismatchWarnings.map(
      (w) => `WARNING: configuration mismatch allowed (--allow-config-mismatch): ${w}`,
    ),
  ];
  if (r.halfBetween)
    notes.push(
      `the recovery target's ladder p95 at ${r.probeConcurrency / 2} in flight was not measured: it is interpolated (computed) between the measured rungs ${r.halfBetween[0]} and ${r.halfBetween[1]}.`,
    );
  if (r.probeConcurrency > r.qmax.q_max)
    notes.push(
      `the probe concurrency ${r.probeConcurrency} is above Q_max ${r.qmax.q_max}: the single instance was over its SLO before the trigger`,
    );
  if (r.keptJournal !== null) {
    notes.push(
      `restoring the endpoint failed (${r.restore.errors.join('; ')}); the journal ${r.keptJournal} is kept: run \`scalegate thaw --model ${r.modelName}\``,
    );
  }
  return {
    schema_version: 1,
    kind: 'ttotal',
    model_name: r.modelName,
    endpoint: r.endpoint,
    run_id: r.runId,
    measured_at: iso(r.obs.desiredSetMs),
    fingerprint: r.fingerprint,
    transport: r.transport,
    trigger: r.trigger,
    qmax_run_id: r.qmax.run_id,
    t_total_s: Math.max(analysis.tTotalS ?? 0, 0.001),
    policy_lag_s: r.lag.lagS,
    policy_lag_bounded: r.lag.bounded,
    policy_lag_source: r.lag.source,
    instance_id: r.instanceId,
    from_instances: r.fromInstances,
    to_instances: r.toInstances,
    probe_concurrency: r.probeConcurrency,
    p95_before_ms: finiteOrNull(r.before.p95),
    p95_recovered_target_ms: r.targetMs,
    p95_after_ms: finiteOrNull(r.after.p95),
    timeline: analysis.timeline,
    durations: analysis.durations,
    dominant_stage: analysis.dominant,
    missing_stages: analysis.missing,
    notes,
    provenance: { origin: 'measured', tool: r.tool, note: null },
    t_total_end_stage: analysis.endStage ?? undefined,
    config_mismatch_allowed: r.mismatchWarnings.length > 0,
    mismatch_warnings: r.mismatchWarnings,
    requests_before: r.before.n,
    requests_after: r.obs.recovered ? r.after.n : null,
    settings: r.settings,
    quota: r.quota,
    restore: r.restore,
  };
}
