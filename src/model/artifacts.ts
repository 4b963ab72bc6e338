import { z } from 'zod';
import { fingerprintSchema } from './fingerprint.js';

/**
 * Every artifact scalegate writes. Artifact JSON is snake_case and continues the names of the
 * legacy format (../anchor-artifacts) where it had one. Bump SCHEMA_VERSION on any incompatible
 * change and teach `legacy.ts`/`io.ts` to read the old one.
 */
export const SCHEMA_VERSION = 1;

const isoTime = z.string().datetime({ offset: true });
const runId = z.string().min(1);

export const provenanceSchema = z.object({
  /** `measured` by scalegate, `legacy` read from the pre-schema format, `stated` by an operator. */
  origin: z.enum(['measured', 'legacy', 'stated']),
  tool: z.string(),
  note: z.string().nullable(),
});

export const transportSchema = z.enum(['response-stream', 'http']);
export type Transport = z.infer<typeof transportSchema>;

export const intervalSchema = z.object({ low: z.number(), high: z.number() });

/**
 * `undecided`: no decision at the stated level (too few batches or samples, or the interval
 * straddles the SLO). `uncertain` is its name in artifacts written before the batch decision.
 */
export const rungVerdictSchema = z.enum(['pass', 'fail', 'undecided', 'uncertain']);

export const outcomeSchema = z.enum([
  'ok',
  'saturated_503',
  'throttled_429',
  'server_5xx',
  'model_error',
  'client_timeout',
  'error',
]);
export type Outcome = z.infer<typeof outcomeSchema>;

export const qmaxStepSchema = z.object({
  run_index: z.number().int().nonnegative(),
  step_index: z.number().int().nonnegative(),
  concurrency: z.number().int().positive(),
  started_at: isoTime.nullable(),
  hold_s: z.number().nonnegative().nullable(),
  measure_s: z.number().nonnegative().nullable(),
  achieved_rps: z.number().nonnegative(),
  completed: z.number().int().nonnegative(),
  ok: z.number().int().nonnegative(),
  rejected: z.number().int().nonnegative(),
  outcome_counts: z.partialRecord(outcomeSchema, z.number().int().nonnegative()),
  ttfab_p50_ms: z.number().nonnegative().nullable(),
  ttfab_p95_ms: z.number().nonnegative().nullable(),
  /**
   * Confidence interval of the p95 of successful requests at `ci_level` (batch sectioning, valid for
   * closed-loop data; before `decision_method` was recorded: order statistics assuming independent
   * samples); null when too few batches.
   */
  ttfab_p95_ci_ms: intervalSchema.nullable(),
  ttfab_p99_ms: z.number().nonnegative().nullable(),
  latency_p95_ms: z.number().nonnegative().nullable(),
  s_mean_s: z.number().nonnegative().nullable(),
  s_p95_s: z.number().nonnegative().nullable(),
  concurrency_mean: z.number().nonnegative(),
  concurrency_peak: z.number().nonnegative(),
  ttfab_drift_ms: z.number().nullable(),
  verdict: rungVerdictSchema,
  meets_slo: z.boolean(),
  saturated: z.boolean(),
  settled: z.boolean(),
  client_bound: z.boolean(),
  capacity_changed: z.boolean(),
  usable: z.boolean(),
  unusable_reason: z.string().nullable(),
  instance_counts: z.array(z.number().int().nonnegative()),
  server_concurrency_mean: z.number().nonnegative().nullable(),
  server_concurrency_peak: z.number().nonnegative().nullable(),
  server_model_latency_p95_ms: z.number().nonnegative().nullable(),
  server_5xx_total: z.number().nonnegative().nullable(),
  /** R(N): CloudWatch ConcurrentRequestsPerModel Maximum / client mean in-flight. */
  cw_ratio: z.number().positive().nullable(),
  // Additive (qmax engine): why the verdict, how the rung ended, and how trustworthy the client was.
  verdict_reason: z.string().nullable().optional(),
  /** `decisive`: ended early on a settled, decisive window; `hold`: ran to its hold limit. */
  end_reason: z.enum(['decisive', 'hold']).nullable().optional(),
  /** 1 - client mean in-flight / concurrency over the window (0 = exactly N outstanding throughout). */
  in_flight_shortfall: z.number().nonnegative().nullable().optional(),
  client_loop_delay_p99_ms: z.number().nonnegative().nullable().optional(),
  /** Share of the rung the client's event loop was busy (near 1: the client limits the load). */
  client_event_loop_utilization: z.number().min(0).max(1).nullable().optional(),
  /** Whole 10 s CloudWatch periods inside the measure window that the join used. */
  cw_periods: z.number().int().nonnegative().nullable().optional(),
  // Additive (rung decision valid for closed-loop data); absent in older artifacts.
  /** How the verdict was reached: `batch-sectioning` (src/stats/rung-decision.ts). */
  decision_method: z.string().nullable().optional(),
  /** Two-sided confidence of the reported interval at the look the rung ended on. */
  ci_level: z.number().min(0).max(1).nullable().optional(),
  /** Confidence that the intervals of every look of the rung hold together (Bonferroni). */
  ci_family_level: z.number().min(0).max(1).nullable().optional(),
  /** Effective sample size: the number of batches (0 when too few for an interval). */
  effective_sample_size: z.number().int().nonnegative().nullable().optional(),
  /** Mean batch length, samples. */
  batch_size: z.number().nonnegative().nullable().optional(),
  /** Looks the rung took (the verdict is the last one's). */
  looks: z.number().int().nonnegative().nullable().optional(),
  /** Samples the verdict judged, misses included. */
  verdict_samples: z.number().int().nonnegative().nullable().optional(),
});
export type QmaxStep = z.infer<typeof qmaxStepSchema>;

export const ladderSchema = z.object({
  mode: z.enum(['adaptive', 'fixed']),
  rungs: z.array(z.number().int().positive()).nullable(),
  max_concurrency: z.number().int().positive().nullable(),
  resolution: z.number().int().positive().nullable(),
  hold_s: z.number().nonnegative(),
  measure_s: z.number().nonnegative(),
  /** null when the source did not record it (legacy). */
  settle_s: z.number().nonnegative().nullable(),
  runs: z.number().int().positive(),
});

export const qmaxArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('qmax'),
  model_name: z.string(),
  endpoint: z.string().nullable(),
  run_id: runId,
  measured_at: isoTime,
  fingerprint: fingerprintSchema,
  transport: transportSchema,
  slo_ms: z.number().positive(),
  /** Highest passing concurrency; 0 when even concurrency 1 misses the SLO. */
  q_max: z.number().int().nonnegative(),
  q_max_per_run: z.array(z.number().int().nonnegative()),
  q_max_bracketed: z.boolean(),
  /** Lowest concurrency measured above the SLO (the bracket), null when none was. */
  q_max_upper_bound: z.number().int().positive().nullable(),
  ttfab_p95_at_q_max_ms: z.number().nonnegative().nullable(),
  ttfab_p95_at_c1_ms: z.number().nonnegative().nullable(),
  s_mean_s: z.number().nonnegative(),
  s_p95_s: z.number().nonnegative(),
  frozen: z.boolean(),
  unbounded_queue: z.boolean(),
  instance_counts_observed: z.array(z.number().int().nonnegative()),
  non_monotone: z.array(z.string()),
  ladder: ladderSchema,
  total_rung_seconds: z.number().nonnegative().nullable(),
  cloudwatch: z.object({ joined: z.boolean(), error: z.string().nullable() }),
  steps: z.array(qmaxStepSchema).min(1),
  provenance: provenanceSchema,
  // Additive (qmax engine): what was driven, with what, and what the freeze restored.
  target: z.string().nullable().optional(),
  prompts: z.object({ source: z.string(), count: z.number().int().positive() }).nullable().optional(),
  request_timeout_s: z.number().positive().nullable().optional(),
  restore: z
    .object({ actions: z.array(z.string()), errors: z.array(z.string()) })
    .nullable()
    .optional(),
  /** Where the search ended against what it promised; absent in older artifacts. */
  search: z
    .object({
      /** Lowest measured breach above Q_max (a fail, never an undecided rung); null: none. */
      upper_bound: z.number().int().positive().nullable(),
      /** The requested --resolution (adaptive); null for a fixed ladder. */
      resolution: z.number().int().positive().nullable(),
      /** upper_bound - Q_max <= resolution; false when not bracketed or stopped short; null: fixed. */
      resolution_met: z.boolean().nullable(),
      /** Concurrencies that stayed undecided (after their one re-measurement). */
      undecided_rungs: z.array(z.number().int().positive()),
    })
    .nullable()
    .optional(),
});
export type QmaxArtifact = z.infer<typeof qmaxArtifactSchema>;

export const ttotalStageNames = [
  'load_applied',
  'desired_set',
  'instance_logging',
  'container_started',
  'framework_init',
  'weights_ready',
  'warmup_done',
  'ready',
  'in_service',
  'traffic_recovered',
] as const;

export const timelineEntrySchema = z.object({
  stage: z.string(),
  at: isoTime,
  source: z.string(),
  /** true when `at` is an upper bound or a reconstruction, not an exact observation. */
  bounded: z.boolean(),
  note: z.string().nullable(),
});

export const durationSchema = z.object({
  from: z.string(),
  to: z.string(),
  seconds: z.number(),
  bounded: z.boolean(),
  /** Share of T_total; null for stages outside it. */
  share: z.number().nullable(),
});

export const ttotalArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('ttotal'),
  model_name: z.string(),
  endpoint: z.string().nullable(),
  run_id: runId,
  measured_at: isoTime,
  fingerprint: fingerprintSchema,
  transport: transportSchema.nullable(),
  trigger: z.enum(['force-desired', 'policy']),
  qmax_run_id: z.string().nullable(),
  t_total_s: z.number().positive(),
  policy_lag_s: z.number().nonnegative(),
  /** true: policy_lag_s is a bound (no deployed policy to read), never a measurement. */
  policy_lag_bounded: z.boolean(),
  policy_lag_source: z.string(),
  instance_id: z.string().nullable(),
  from_instances: z.number().int().nonnegative(),
  to_instances: z.number().int().positive(),
  probe_concurrency: z.number().int().positive().nullable(),
  p95_before_ms: z.number().nullable(),
  p95_recovered_target_ms: z.number().nullable(),
  p95_after_ms: z.number().nullable(),
  timeline: z.array(timelineEntrySchema),
  durations: z.array(durationSchema),
  dominant_stage: z.object({ from: z.string(), to: z.string(), seconds: z.number() }).nullable(),
  missing_stages: z.array(z.string()),
  notes: z.array(z.string()),
  provenance: provenanceSchema,
  // Optional (absent in legacy artifacts and in those written before they existed):
  /** The stage T_total ends at: traffic_recovered, or in_service when traffic never recovered (a lower bound). */
  t_total_end_stage: z.string().optional(),
  /** The measured qmax's fingerprint differed from the live one and --allow-config-mismatch was given. */
  config_mismatch_allowed: z.boolean().optional(),
  mismatch_warnings: z.array(z.string()).optional(),
  /** Completed probe requests before the trigger and in the recovery window. */
  requests_before: z.number().int().nonnegative().nullable().optional(),
  requests_after: z.number().int().nonnegative().nullable().optional(),
  /** What the run used, so a reader can judge the bounds (window, poll interval, ...). */
  settings: z
    .object({
      probe_concurrency: z.number().int().positive(),
      recovery_window_s: z.number().positive(),
      recovery_min_samples: z.number().int().positive(),
      recovery_target_factor: z.number().positive(),
      poll_s: z.number().positive(),
      max_wait_s: z.number().positive(),
      pre_trigger_s: z.number().nonnegative(),
      publication_delay_s: z.number().nonnegative().nullable(),
    })
    .optional(),
  /** Quota headroom seen in the preflight (null fields when unknown). */
  quota: z
    .object({
      quota_name: z.string().nullable(),
      quota_value: z.number().nullable(),
      instances_in_use: z.number().int().nonnegative().nullable(),
      source: z.string(),
    })
    .optional(),
  /** What was put back after the run: desired count and suspension flags (from the thaw journal). */
  restore: z
    .object({
      desired_instance_count: z.number().int().nonnegative(),
      suspension_restored: z.boolean(),
      actions: z.array(z.string()),
      errors: z.array(z.string()),
    })
    .optional(),
});
export type TtotalArtifact = z.infer<typeof ttotalArtifactSchema>;

export const findingVerdictSchema = z.enum(['ok', 'warn', 'stop', 'suppressed']);
export type FindingVerdict = z.infer<typeof findingVerdictSchema>;

export const findingSchema = z.object({
  name: z.string(),
  verdict: findingVerdictSchema,
  detail: z.string(),
  fix: z.string().nullable(),
});
export type Finding = z.infer<typeof findingSchema>;

const loadSchema = z.object({ unit: z.enum(['rps', 'streams']), value: z.number().nonnegative() });

const planInputSchema = z.object({
  file: z.string(),
  run_id: z.string(),
  slug: z.string(),
  fingerprint: fingerprintSchema,
});

/** The values `cdk deploy` ships and `validate` compares, under their config names. */
export const deployableSchema = z.object({
  min_instances: z.number().int().positive(),
  max_instances: z.number().int().positive(),
  /** CloudWatch units (ConcurrentRequestsPerModel Maximum); null when no R was measured. */
  scaling_target_value: z.number().positive().nullable(),
  scale_in_threshold: z.number().positive().nullable(),
  queue_max_depth: z.number().int().positive(),
  scale_out_cooldown_s: z.number().int().nonnegative(),
  scale_in_cooldown_s: z.number().int().nonnegative(),
  slo_ms: z.number().positive(),
  /** Service-time alarm: measured TTFAB p95 at concurrency 1 (not the SLO). */
  service_time_alarm_ms: z.number().positive().nullable(),
});
export type Deployable = z.infer<typeof deployableSchema>;

export const planArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('plan'),
  model_name: z.string(),
  run_id: runId,
  created_at: isoTime,
  verdict: z.enum(['ok', 'warn', 'stop']),
  warn_count: z.number().int().nonnegative(),
  /** The measurement's fingerprint: what this plan may be deployed onto. */
  fingerprint: fingerprintSchema,
  inputs: z.object({
    qmax: planInputSchema,
    ttotal: planInputSchema.nullable(),
    t_total_stated_s: z.number().positive().nullable(),
    config_mismatch_allowed: z.boolean(),
    mismatch_warnings: z.array(z.string()),
  }),
  chosen: z.object({
    slo_ms: z.number().positive(),
    surge_ratio: z.number(),
    peak: loadSchema,
    trough: loadSchema,
    min_instances_floor: z.number().int().positive(),
    invocation_ceiling_s: z.number().positive(),
    instance_hourly_usd: z.number().positive().nullable(),
    instance_quota: z.number().int().positive().nullable(),
  }),
  measured: z.object({
    q_max: z.number().int().nonnegative(),
    q_max_bracketed: z.boolean(),
    s_mean_s: z.number().nonnegative(),
    s_p95_s: z.number().nonnegative(),
    ttfab_p95_at_c1_ms: z.number().nonnegative().nullable(),
    t_total_s: z.number().positive(),
    t_total_origin: z.enum(['measured', 'stated']),
    policy_lag_s: z.number().nonnegative(),
    policy_lag_bounded: z.boolean(),
    cw_ratio: z.number().positive().nullable(),
    cw_ratio_rung: z.number().int().positive().nullable(),
  }),
  derived: z.object({
    t_plan_s: z.number(),
    h: z.number(),
    c_scale_max: z.number(),
    c_scale_min: z.number(),
    r: z.number().nullable(),
    min_safe_instances: z.number().int().nullable(),
    w_max_s: z.number(),
    x_target_rps: z.number().nullable(),
    peak_instances: z.number().int().nonnegative(),
    trough_instances: z.number().int().nonnegative(),
    naive_peak_instances: z.number().int().nonnegative().nullable(),
    surge_overflow_probability: z.number().min(0).max(1).nullable(),
    surge_fluid_overflow_s: z.number().nullable(),
    // Additive (exact surge computation); absent in older plans.
    /** The same overflow probability with no surge (k = 1): what the target alone does. */
    surge_baseline_overflow_probability: z.number().min(0).max(1).nullable().optional(),
    /** `uniformization` (exact to 1e-9), or `uniformization-lower-bound` when the work budget ran out. */
    surge_method: z.string().nullable().optional(),
    /** In-flight requests the surge and fluid runs start from: round(C_scale_max). */
    surge_start_in_flight: z.number().int().nonnegative().nullable().optional(),
  }),
  deployable: deployableSchema,
  findings: z.array(findingSchema),
  provenance: provenanceSchema,
});
export type PlanArtifact = z.infer<typeof planArtifactSchema>;

export const comparisonRowSchema = z.object({
  parameter: z.string(),
  expected: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  deployed: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  verdict: z.enum(['match', 'mismatch', 'missing', 'extra', 'warn']),
});
export type ComparisonRow = z.infer<typeof comparisonRowSchema>;

export const driftArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('drift'),
  model_name: z.string(),
  endpoint: z.string(),
  region: z.string(),
  run_id: runId,
  checked_at: isoTime,
  verdict: z.enum(['preflight-ok', 'drift']),
  plan: z.object({ file: z.string(), run_id: z.string() }).nullable(),
  findings: z.array(
    z.object({
      check: z.string(),
      verdict: z.enum(['ok', 'warn', 'drift']),
      detail: z.string(),
      remediation: z.string().nullable(),
    }),
  ),
  rows: z.array(comparisonRowSchema),
});
export type DriftArtifact = z.infer<typeof driftArtifactSchema>;

export const validateArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('validate'),
  model_name: z.string(),
  endpoint: z.string(),
  region: z.string(),
  run_id: runId,
  checked_at: isoTime,
  verdict: z.enum(['clean', 'mismatch']),
  plan: z.object({ file: z.string(), run_id: z.string() }),
  rows: z.array(comparisonRowSchema),
});
export type ValidateArtifact = z.infer<typeof validateArtifactSchema>;

export const artifactSchemas = {
  qmax: qmaxArtifactSchema,
  ttotal: ttotalArtifactSchema,
  plan: planArtifactSchema,
  drift: driftArtifactSchema,
  validate: validateArtifactSchema,
} as const;

export type ArtifactKind = keyof typeof artifactSchemas;
export type ArtifactOf<K extends ArtifactKind> = z.infer<(typeof artifactSchemas)[K]>;

/** The command that writes each kind, for error messages that say how to get a valid file. */
export const producerOf: Record<ArtifactKind, string> = {
  qmax: 'scalegate qmax',
  ttotal: 'scalegate ttotal',
  plan: 'scalegate plan',
  drift: 'scalegate drift',
  validate: 'scalegate validate',
};
