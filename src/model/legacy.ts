import { z } from 'zod';
import { type QmaxArtifact, type QmaxStep, SCHEMA_VERSION, type TtotalArtifact } from './artifacts.js';

/**
 * The pre-schema format (files without `schema_version`), as published with the first real AWS
 * measurements. Only the fields scalegate uses are required; the rest are carried over where
 * the current format has a place for them.
 */
const legacyDeployedConfig = z.object({
  instance_type: z.string(),
  image_digest: z.string(),
  container_env: z.record(z.string(), z.string()).default({}),
});

const nullableNumber = z.number().nullable().optional();

const legacyStep = z.object({
  run_index: z.number().int().default(0),
  step_index: z.number().int(),
  concurrency: z.number().int().positive(),
  achieved_rps: z.number(),
  completed: z.number().int(),
  ok: z.number().int(),
  rejected: z.number().int().default(0),
  outcome_counts: z.record(z.string(), z.number()).default({}),
  ttfab_p50_ms: nullableNumber,
  ttfab_p95_ms: nullableNumber,
  ttfab_p99_ms: nullableNumber,
  latency_p95_ms: nullableNumber,
  s_mean_s: nullableNumber,
  s_p95_s: nullableNumber,
  concurrency_mean: z.number(),
  concurrency_peak: z.number(),
  ttfab_drift_ms: nullableNumber,
  meets_slo: z.boolean(),
  saturated: z.boolean().default(false),
  settled: z.boolean().default(true),
  client_bound: z.boolean().default(false),
  usable: z.boolean(),
  unusable_reason: z.string().nullable().default(null),
  capacity_changed: z.boolean().default(false),
  instance_counts: z.array(z.number().int()).default([]),
  server_concurrency_mean: nullableNumber,
  server_concurrency_peak: nullableNumber,
  server_model_latency_p95_ms: nullableNumber,
  server_5xx_total: nullableNumber,
});

export const legacyQmaxSchema = z.object({
  model_name: z.string(),
  endpoint: z.string().nullable().default(null),
  run_id: z.string(),
  slo_ms: z.number().positive(),
  q_max: z.number().int().nonnegative(),
  q_max_per_run: z.array(z.number().int()).optional(),
  q_max_bracketed: z.boolean(),
  ttfab_p95_at_q_max_ms: nullableNumber,
  ttfab_p95_at_c1_ms: nullableNumber,
  s_mean_s: z.number(),
  s_p95_s: z.number(),
  frozen: z.boolean(),
  unbounded_queue: z.boolean(),
  instance_counts_observed: z.array(z.number().int()),
  transport: z.string(),
  deployed_config: legacyDeployedConfig,
  runs: z.number().int().positive().default(1),
  hold_s: z.number(),
  measure_window_s: z.number(),
  steps: z.array(legacyStep).min(1),
  provenance: z
    .object({ measured_at: z.string().optional(), note: z.string().nullable().optional() })
    .optional(),
});

export const legacyTtotalSchema = z.object({
  model_name: z.string(),
  endpoint: z.string().nullable().default(null),
  run_id: z.string(),
  trigger: z.enum(['force-desired', 'policy']),
  deployed_config: legacyDeployedConfig,
  t_total_s: z.number().positive(),
  policy_lag_bound_s: z.number().nonnegative().default(60),
  instance_id: z.string().nullable().default(null),
  from_instances: z.number().int(),
  to_instances: z.number().int(),
  probe_concurrency: z.number().int().nullable().default(null),
  p95_before_ms: nullableNumber,
  p95_recovered_target_ms: nullableNumber,
  p95_after_ms: nullableNumber,
  timeline: z.array(
    z.object({
      stage: z.string(),
      at: z.string(),
      bounded: z.boolean(),
      source: z.string(),
      note: z.string().nullable().default(null),
    }),
  ),
  durations: z.array(
    z.object({
      from: z.string(),
      to: z.string(),
      seconds: z.number(),
      bounded: z.boolean(),
      share: z.number().nullable().default(null),
    }),
  ),
  dominant_stage: z
    .object({ from: z.string(), to: z.string(), seconds: z.number() })
    .nullable()
    .default(null),
  missing_stages: z.array(z.string()).default([]),
  notes: z.array(z.string()).default([]),
});

const LEGACY_TOOL = 'legacy format (no schema_version)';
const orNull = (v: number | null | undefined): number | null => (v === undefined ? null : v);

/** Legacy `response-stream` is InvokeEndpointWithResponseStream, which the current format keeps. */
function legacyTransport(name: string): 'response-stream' | 'http' {
  return name === 'http' ? 'http' : 'response-stream';
}

/** Normalises `+00:00` offsets and microseconds so timestamps compare as strings. */
function isoOf(text: string): string {
  return new Date(text).toISOString();
}

export function qmaxFromLegacy(legacy: z.infer<typeof legacyQmaxSchema>): QmaxArtifact {
  const steps: QmaxStep[] = legacy.steps.map((step) => {
    const serverPeak = orNull(step.server_concurrency_peak);
    return {
      run_index: step.run_index,
      step_index: step.step_index,
      concurrency: step.concurrency,
      started_at: null,
      hold_s: legacy.hold_s,
      measure_s: legacy.measure_window_s,
      achieved_rps: step.achieved_rps,
      completed: step.completed,
      ok: step.ok,
      rejected: step.rejected,
      outcome_counts: step.outcome_counts,
      ttfab_p50_ms: orNull(step.ttfab_p50_ms),
      ttfab_p95_ms: orNull(step.ttfab_p95_ms),
      ttfab_p95_ci_ms: null,
      ttfab_p99_ms: orNull(step.ttfab_p99_ms),
      latency_p95_ms: orNull(step.latency_p95_ms),
      s_mean_s: orNull(step.s_mean_s),
      s_p95_s: orNull(step.s_p95_s),
      concurrency_mean: step.concurrency_mean,
      concurrency_peak: step.concurrency_peak,
      ttfab_drift_ms: orNull(step.ttfab_drift_ms),
      verdict: step.meets_slo ? 'pass' : 'fail',
      meets_slo: step.meets_slo,
      saturated: step.saturated,
      settled: step.settled,
      client_bound: step.client_bound,
      capacity_changed: step.capacity_changed,
      usable: step.usable,
      unusable_reason: step.unusable_reason,
      instance_counts: step.instance_counts,
      server_concurrency_mean: orNull(step.server_concurrency_mean),
      server_concurrency_peak: serverPeak,
      server_model_latency_p95_ms: orNull(step.server_model_latency_p95_ms),
      server_5xx_total: orNull(step.server_5xx_total),
      // The legacy format recorded both sides of R but not R itself.
      cw_ratio:
        serverPeak !== null && serverPeak > 0 && step.concurrency_mean > 0
          ? serverPeak / step.concurrency_mean
          : null,
    };
  });
  const failsAbove = steps
    .filter((s) => s.verdict === 'fail' && s.concurrency > legacy.q_max)
    .map((s) => s.concurrency);
  return {
    schema_version: SCHEMA_VERSION,
    kind: 'qmax',
    model_name: legacy.model_name,
    endpoint: legacy.endpoint,
    run_id: legacy.run_id,
    measured_at: isoOf(legacy.provenance?.measured_at ?? '1970-01-01T00:00:00Z'),
    fingerprint: {
      instance_type: legacy.deployed_config.instance_type,
      image_digest: legacy.deployed_config.image_digest,
      container_env: legacy.deployed_config.container_env,
      region: null,
    },
    transport: legacyTransport(legacy.transport),
    slo_ms: legacy.slo_ms,
    q_max: legacy.q_max,
    q_max_per_run: legacy.q_max_per_run ?? [legacy.q_max],
    q_max_bracketed: legacy.q_max_bracketed,
    q_max_upper_bound: failsAbove.length > 0 ? Math.min(...failsAbove) : null,
    ttfab_p95_at_q_max_ms: orNull(legacy.ttfab_p95_at_q_max_ms),
    ttfab_p95_at_c1_ms: orNull(legacy.ttfab_p95_at_c1_ms),
    s_mean_s: legacy.s_mean_s,
    s_p95_s: legacy.s_p95_s,
    frozen: legacy.frozen,
    unbounded_queue: legacy.unbounded_queue,
    instance_counts_observed: legacy.instance_counts_observed,
    non_monotone: [],
    ladder: {
      mode: 'fixed',
      rungs: [...new Set(steps.map((s) => s.concurrency))],
      max_concurrency: null,
      resolution: null,
      hold_s: legacy.hold_s,
      measure_s: legacy.measure_window_s,
      settle_s: null,
      runs: legacy.runs,
    },
    total_rung_seconds: legacy.hold_s * steps.length,
    cloudwatch: { joined: steps.some((s) => s.server_concurrency_peak !== null), error: null },
    steps,
    provenance: { origin: 'legacy', tool: LEGACY_TOOL, note: legacy.provenance?.note ?? null },
  };
}

export function ttotalFromLegacy(legacy: z.infer<typeof legacyTtotalSchema>): TtotalArtifact {
  const clockStart = legacy.timeline.find((t) => t.stage === 'desired_set') ?? legacy.timeline[0];
  return {
    schema_version: SCHEMA_VERSION,
    kind: 'ttotal',
    model_name: legacy.model_name,
    endpoint: legacy.endpoint,
    run_id: legacy.run_id,
    measured_at: isoOf(clockStart?.at ?? '1970-01-01T00:00:00Z'),
    fingerprint: {
      instance_type: legacy.deployed_config.instance_type,
      image_digest: legacy.deployed_config.image_digest,
      container_env: legacy.deployed_config.container_env,
      region: null,
    },
    transport: null,
    trigger: legacy.trigger,
    qmax_run_id: null,
    t_total_s: legacy.t_total_s,
    policy_lag_s: legacy.policy_lag_bound_s,
    // The legacy trigger forced the desired count under a freeze, so no policy lag was measured.
    policy_lag_bounded: true,
    policy_lag_source: `bound of ${legacy.policy_lag_bound_s} s: the legacy run forced desired capacity, so no policy lag was measured`,
    instance_id: legacy.instance_id,
    from_instances: legacy.from_instances,
    to_instances: legacy.to_instances,
    probe_concurrency: legacy.probe_concurrency,
    p95_before_ms: orNull(legacy.p95_before_ms),
    p95_recovered_target_ms: orNull(legacy.p95_recovered_target_ms),
    p95_after_ms: orNull(legacy.p95_after_ms),
    timeline: legacy.timeline.map((t) => ({ ...t, at: isoOf(t.at) })),
    durations: legacy.durations,
    dominant_stage: legacy.dominant_stage,
    missing_stages: legacy.missing_stages,
    notes: legacy.notes,
    provenance: { origin: 'legacy', tool: LEGACY_TOOL, note: null },
  };
}

/**
 * The measurements published in the legacy format that the release gate accepts, by file name and
 * SHA-256 of the committed bytes. A legacy qmax records no decision per rung (each rung's p95 was
 * compared with the SLO, no interval), so its rungs cannot be judged again: the gate takes one only
 * when it is byte for byte one of these (src/plan/gate-measurements.ts). Any other file without
 * per-rung decisions, or claiming the legacy origin, is refused.
 */
export const COMMITTED_LEGACY_MEASUREMENTS: Readonly<Record<string, string>> = {
  'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json':
    '8730d05c598c0ba4a5a05c73e66c71e2171f8278764626ede370cb57543270cf',
  'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json':
    '926eda591c801a41868c3ecec180dddb62ba04b1d3fe071bd1bd2519c20b194c',
};
