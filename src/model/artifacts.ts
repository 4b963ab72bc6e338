import { z } from 'zod';
import { fingerprintSchema } from './fingerprint.js';
import { openLoopHistogramsSchema, openLoopOutcomeSchema } from './histograms.js';
import { outcomeSchema } from './outcomes.js';
import { boundedNumber, endpointNameSchema, LIMITS, pastTime, regionSchema, safeString } from './safe.js';

/**
 * Every artifact scalegate writes. Artifact JSON is snake_case and continues the names of the
 * legacy format (../anchor-artifacts) where it had one. Bump SCHEMA_VERSION on any incompatible
 * change and teach `legacy.ts`/`io.ts` to read the old one.
 */
export const SCHEMA_VERSION = 1;

const isoTime = z.string().datetime({ offset: true });
/** Times an artifact is ordered by (discovery, comment ordering): never in the future. */
const recordedAt = pastTime;
const runId = safeString.min(1).max(200);

// Bounded numbers (see LIMITS): a hand-edited artifact cannot overflow the arithmetic.
const ms = (what: string) => boundedNumber(0, LIMITS.ms, what);
const seconds = (what: string) => boundedNumber(0, LIMITS.seconds, what);
const signedSeconds = (what: string) => boundedNumber(-LIMITS.seconds, LIMITS.seconds, what);
const rps = (what: string) => boundedNumber(0, LIMITS.rps, what);
const concurrency = (what: string) => boundedNumber(0, LIMITS.concurrency, what);
const count = (what: string) => boundedNumber(0, LIMITS.count, what).int();
const instances = (what: string) => boundedNumber(0, LIMITS.instances, what).int();

export const provenanceSchema = z.object({
  /** `measured` by scalegate, `legacy` read from the pre-schema format, `stated` by an operator. */
  origin: z.enum(['measured', 'legacy', 'stated']),
  tool: safeString,
  note: safeString.nullable(),
});

/** What a freeze put back after a run (qmax, goodput, ttotal): the restore's actions and errors. */
export const restoreRecordSchema = z.object({ actions: z.array(safeString), errors: z.array(safeString) });
export type RestoreRecord = z.infer<typeof restoreRecordSchema>;

/** The restore record with what the thaw journal held: desired count and suspension flags (ttotal). */
export const journalRestoreRecordSchema = z.object({
  desired_instance_count: z.number().int().nonnegative(),
  suspension_restored: z.boolean(),
  ...restoreRecordSchema.shape,
});
export type JournalRestoreRecord = z.infer<typeof journalRestoreRecordSchema>;

export const transportSchema = z.enum(['response-stream', 'http', 'sdk']);
export type Transport = z.infer<typeof transportSchema>;

/** Transports that go through a SageMaker endpoint (as opposed to a container's own http). */
export const isSageMakerTransport = (kind: Transport): kind is 'response-stream' | 'sdk' =>
  kind === 'response-stream' || kind === 'sdk';

export const intervalSchema = z.object({
  low: boundedNumber(-LIMITS.ms, LIMITS.ms, 'interval low'),
  high: boundedNumber(-LIMITS.ms, LIMITS.ms, 'interval high'),
});

/**
 * `undecided`: no decision at the stated level (too few batches or samples, or the interval
 * straddles the SLO). `uncertain` is its name in artifacts written before the batch decision.
 */
export const rungVerdictSchema = z.enum(['pass', 'fail', 'undecided', 'uncertain']);

export { type Outcome, outcomeSchema } from './outcomes.js';

export const qmaxStepSchema = z.object({
  run_index: z.number().int().nonnegative(),
  step_index: z.number().int().nonnegative(),
  concurrency: concurrency('concurrency').int().positive(),
  started_at: isoTime.nullable(),
  hold_s: seconds('hold_s').nullable(),
  measure_s: seconds('measure_s').nullable(),
  achieved_rps: rps('achieved_rps'),
  completed: count('completed'),
  ok: count('ok'),
  rejected: count('rejected'),
  outcome_counts: z.partialRecord(outcomeSchema, count('outcome count')),
  ttfab_p50_ms: ms('ttfab_p50_ms').nullable(),
  ttfab_p95_ms: ms('ttfab_p95_ms').nullable(),
  /**
   * Confidence interval of the p95 of successful requests at `ci_level` (batch sectioning, valid for
   * closed-loop data; before `decision_method` was recorded: order statistics assuming independent
   * samples); null when too few batches.
   */
  ttfab_p95_ci_ms: intervalSchema.nullable(),
  ttfab_p99_ms: ms('ttfab_p99_ms').nullable(),
  latency_p95_ms: ms('latency_p95_ms').nullable(),
  s_mean_s: seconds('s_mean_s').nullable(),
  s_p95_s: seconds('s_p95_s').nullable(),
  concurrency_mean: concurrency('concurrency_mean'),
  concurrency_peak: concurrency('concurrency_peak'),
  ttfab_drift_ms: boundedNumber(-LIMITS.ms, LIMITS.ms, 'ttfab_drift_ms').nullable(),
  verdict: rungVerdictSchema,
  meets_slo: z.boolean(),
  saturated: z.boolean(),
  settled: z.boolean(),
  client_bound: z.boolean(),
  capacity_changed: z.boolean(),
  usable: z.boolean(),
  unusable_reason: safeString.nullable(),
  instance_counts: z.array(instances('instance count')),
  server_concurrency_mean: concurrency('server_concurrency_mean').nullable(),
  server_concurrency_peak: concurrency('server_concurrency_peak').nullable(),
  server_model_latency_p95_ms: ms('server_model_latency_p95_ms').nullable(),
  server_5xx_total: boundedNumber(0, LIMITS.count, 'server_5xx_total').nullable(),
  /** R(N): CloudWatch ConcurrentRequestsPerModel Maximum / client mean in-flight. */
  cw_ratio: boundedNumber(0, LIMITS.ratio, 'cw_ratio').positive().nullable(),
  // Additive (qmax engine): why the verdict, how the rung ended, and how trustworthy the client was.
  verdict_reason: safeString.nullable().optional(),
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
  decision_method: safeString.nullable().optional(),
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
  rungs: z.array(concurrency('rung').int().positive()).nullable(),
  max_concurrency: concurrency('max_concurrency').int().positive().nullable(),
  resolution: concurrency('resolution').int().positive().nullable(),
  hold_s: seconds('hold_s'),
  measure_s: seconds('measure_s'),
  /** null when the source did not record it (legacy). */
  settle_s: seconds('settle_s').nullable(),
  runs: boundedNumber(1, 1000, 'runs').int(),
});

export const qmaxArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('qmax'),
  model_name: safeString,
  endpoint: endpointNameSchema.nullable(),
  run_id: runId,
  measured_at: recordedAt,
  fingerprint: fingerprintSchema,
  transport: transportSchema,
  slo_ms: ms('slo_ms').positive(),
  /** Highest passing concurrency; 0 when even concurrency 1 misses the SLO. */
  q_max: concurrency('q_max').int(),
  q_max_per_run: z.array(concurrency('q_max_per_run').int()),
  q_max_bracketed: z.boolean(),
  /** Lowest concurrency measured above the SLO (the bracket), null when none was. */
  q_max_upper_bound: concurrency('q_max_upper_bound').int().positive().nullable(),
  ttfab_p95_at_q_max_ms: ms('ttfab_p95_at_q_max_ms').nullable(),
  ttfab_p95_at_c1_ms: ms('ttfab_p95_at_c1_ms').nullable(),
  s_mean_s: seconds('s_mean_s'),
  s_p95_s: seconds('s_p95_s'),
  frozen: z.boolean(),
  unbounded_queue: z.boolean(),
  instance_counts_observed: z.array(instances('instance count')),
  non_monotone: z.array(safeString),
  ladder: ladderSchema,
  total_rung_seconds: boundedNumber(0, LIMITS.seconds * 1000, 'total_rung_seconds').nullable(),
  cloudwatch: z.object({ joined: z.boolean(), error: safeString.nullable() }),
  steps: z.array(qmaxStepSchema).min(1),
  provenance: provenanceSchema,
  // Additive (qmax engine): what was driven, with what, and what the freeze restored.
  target: safeString.nullable().optional(),
  prompts: z.object({ source: safeString, count: z.number().int().positive() }).nullable().optional(),
  request_timeout_s: seconds('request_timeout_s').positive().nullable().optional(),
  restore: restoreRecordSchema.nullable().optional(),
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
  /** The rung S_mean/S_p95 come from; absent in older artifacts. */
  service_time_basis: z
    .object({
      concurrency: z.number().int().positive(),
      /** false: no usable rung had latencies, so an unusable one was taken. */
      usable: z.boolean(),
      /** true: not a usable rung at concurrency 1 (not the uncontended service time). */
      fallback: z.boolean(),
      /** Why concurrency 1 was not used; null when it was. */
      reason: safeString.nullable(),
    })
    .nullable()
    .optional(),
});
export type QmaxArtifact = z.infer<typeof qmaxArtifactSchema>;

/** How a goodput rung was judged: pass/fail/undecided by the decision; `pending` in a shard file. */
export const rateVerdictSchema = z.enum(['pass', 'fail', 'undecided', 'pending']);

/**
 * What ConcurrentRequestsPerModel showed at one Poisson rate (goodput's CloudWatch join): the
 * per-period Maximum over the whole 10 s periods of the measure window, its median and spread, the
 * mean in flight (Little: the rate x the measured mean time in system) and the open-loop R (p50 /
 * mean in flight; 1.0 under a closed loop, far above it under random arrivals).
 */
export const goodputMetricLevelSchema = z.object({
  metric: z.literal('ConcurrentRequestsPerModel'),
  statistic: z.literal('Maximum'),
  period_s: seconds('metric_level period_s').int().positive(),
  /** Whole periods inside the measure window that had a datapoint. */
  periods: count('metric_level periods').positive(),
  p10: concurrency('metric_level p10'),
  p50: concurrency('metric_level p50'),
  p90: concurrency('metric_level p90'),
  mean_in_flight: concurrency('metric_level mean_in_flight'),
  /** p50 / mean_in_flight; null when nothing was in flight on average. */
  open_loop_r: z.number().nonnegative().nullable(),
  origin: z.literal('measured'),
});
export type GoodputMetricLevel = z.infer<typeof goodputMetricLevelSchema>;

/** One arrival rate of the lambda_max ladder: what was offered, what came back, the verdict. */
export const goodputRungSchema = z.object({
  /** Poisson arrival rate offered to the instance (all shards together), requests/s. */
  rate_rps: rps('rate_rps').positive(),
  /** Schedule start of this rung (wall time of offset 0). */
  started_at: isoTime,
  hold_s: seconds('hold_s').positive(),
  settle_s: seconds('settle_s'),
  verdict: rateVerdictSchema,
  reason: safeString,
  /** Arrivals of the measure window (client_dropped included), and how they ended. */
  offered: count('offered'),
  sent: count('sent'),
  ok: count('ok'),
  outcome_counts: z.partialRecord(openLoopOutcomeSchema, count('outcome count')),
  /** 503 queue_saturated and 429 over the arrivals of the measure window. */
  overflow_fraction: boundedNumber(0, 1, 'overflow_fraction'),
  /** Every other failure (5xx, model errors, timeouts, client_dropped) over the arrivals. */
  error_fraction: boundedNumber(0, 1, 'error_fraction'),
  /** Sent and ok requests per second of the measure window. */
  sent_rps: rps('sent_rps'),
  goodput_rps: rps('goodput_rps'),
  /** TTFAB of ok requests from the intended send time (coordinated-omission correct). */
  ttfab_p50_ms: ms('ttfab_p50_ms').nullable(),
  ttfab_p95_ms: ms('ttfab_p95_ms').nullable(),
  ttfab_p99_ms: ms('ttfab_p99_ms').nullable(),
  /** Interval of ttfab_p95_ms at ci_level (null: too few batches). */
  ttfab_p95_ci_ms: intervalSchema.nullable(),
  /** The naive figure from the actual send, for comparison only (it hides client stalls). */
  ttfab_sent_p95_ms: ms('ttfab_sent_p95_ms').nullable(),
  latency_p95_ms: ms('latency_p95_ms').nullable(),
  /** Actual minus intended send time, p99: how well the client kept the schedule. */
  send_lag_p99_ms: ms('send_lag_p99_ms').nullable(),
  /** Mean requests in the system over the measure window (Little), which sets the batch length. */
  mean_in_system: concurrency('mean_in_system'),
  decision_method: safeString,
  ci_level: z.number().min(0).max(1),
  /** Effective sample size: batches (0 without an interval). */
  effective_sample_size: z.number().int().nonnegative(),
  batch_size: z.number().nonnegative(),
  min_batch_size: z.number().nonnegative(),
  peak_outstanding: count('peak_outstanding').nullable(),
  client_event_loop_utilization: z.number().min(0).max(1).nullable(),
  instance_counts: z.array(instances('instance count')),
  /** The serialised HDR windows of the whole rung (settle included), mergeable across shards. */
  histograms: openLoopHistogramsSchema,
  /**
   * Additive: the tracked metric's level at this rate, from goodput's CloudWatch join over the
   * whole periods of the measure window; null when not joined (the artifact's `cloudwatch.error`
   * says why), absent in older files.
   */
  metric_level: goodputMetricLevelSchema.nullable().optional(),
});
export type GoodputRung = z.infer<typeof goodputRungSchema>;

export const goodputArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('goodput'),
  model_name: safeString,
  endpoint: endpointNameSchema.nullable(),
  run_id: runId,
  measured_at: recordedAt,
  fingerprint: fingerprintSchema,
  transport: transportSchema,
  slo_ms: ms('slo_ms').positive(),
  /**
   * Highest Poisson arrival rate per instance whose p95 TTFAB from the intended send time was
   * decided within the SLO with overflows and errors within their limits; 0 when none was. null in
   * a shard file (decided after `scalegate merge`).
   */
  lambda_max_rps: rps('lambda_max_rps').nullable(),
  /** A measured breach (fail) lies above lambda_max. */
  lambda_max_bracketed: z.boolean(),
  /** The lowest measured breach above lambda_max. */
  breach_rate_rps: rps('breach_rate_rps').nullable(),
  limits: z.object({
    max_overflow_fraction: boundedNumber(0, 1, 'max_overflow_fraction'),
    max_error_fraction: boundedNumber(0, 1, 'max_error_fraction'),
  }),
  ladder: z.object({
    mode: z.enum(['adaptive', 'fixed']),
    /** The rates of a fixed ladder (shards run one). */
    rates: z.array(rps('rate').positive()).nullable(),
    start_rps: rps('start_rps').positive().nullable(),
    max_rps: rps('max_rps').positive().nullable(),
    min_rps: rps('min_rps').positive().nullable(),
    /** Bisect until (breach - lambda_max) <= resolution x breach. */
    resolution: boundedNumber(0, 1, 'resolution').nullable(),
    hold_s: seconds('hold_s').positive(),
    settle_s: seconds('settle_s'),
    /** Seed of rung 0's Poisson schedule; rung i uses seed + i. */
    seed: z.number().int().nonnegative(),
    window_ms: z.number().int().positive(),
    max_outstanding: z.number().int().positive(),
  }),
  search: z.object({
    /** breach - lambda_max <= resolution x breach; null for a fixed ladder. */
    resolution_met: z.boolean().nullable(),
    /** Rates that stayed undecided. */
    undecided_rates: z.array(rps('rate')),
  }),
  non_monotone: z.array(safeString),
  /** The shards of the schedule this file holds: [i/n] for one shard, all of 0..n-1 once merged. */
  shards: z.array(z.object({ index: z.number().int().nonnegative(), count: z.number().int().positive() })),
  /** Decided (single process or merged); false for a shard file, whose verdicts are `pending`. */
  decided: z.boolean(),
  /** Wall time every shard's first rung started at (--start-at), or null. */
  start_at: isoTime.nullable(),
  frozen: z.boolean(),
  instance_counts_observed: z.array(instances('instance count')),
  rungs: z.array(goodputRungSchema),
  provenance: provenanceSchema,
  target: safeString.nullable(),
  prompts: z.object({ source: safeString, count: z.number().int().positive() }),
  request_timeout_s: seconds('request_timeout_s').positive(),
  restore: restoreRecordSchema.nullable(),
  /**
   * Additive: the per-rate CloudWatch join (each rung's metric_level): joined when at least one
   * rate has a level; error says what is missing (the http transport has no CloudWatch, disabled
   * with --no-cloudwatch, not published...). Absent in older files.
   */
  cloudwatch: z.object({ joined: z.boolean(), error: safeString.nullable() }).optional(),
});
export type GoodputArtifact = z.infer<typeof goodputArtifactSchema>;

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
  stage: safeString,
  at: isoTime,
  source: safeString,
  /** true when `at` is an upper bound or a reconstruction, not an exact observation. */
  bounded: z.boolean(),
  note: safeString.nullable(),
});

export const durationSchema = z.object({
  from: safeString,
  to: safeString,
  seconds: signedSeconds('seconds'),
  bounded: z.boolean(),
  /** Share of T_total; null for stages outside it. */
  share: boundedNumber(-1000, 1000, 'share').nullable(),
});

export const ttotalArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('ttotal'),
  model_name: safeString,
  endpoint: endpointNameSchema.nullable(),
  run_id: runId,
  measured_at: recordedAt,
  fingerprint: fingerprintSchema,
  transport: transportSchema.nullable(),
  trigger: z.enum(['force-desired', 'policy']),
  qmax_run_id: safeString.nullable(),
  t_total_s: seconds('t_total_s').positive(),
  policy_lag_s: seconds('policy_lag_s'),
  /** true: policy_lag_s is a bound (no deployed policy to read), never a measurement. */
  policy_lag_bounded: z.boolean(),
  policy_lag_source: safeString,
  instance_id: safeString.nullable(),
  from_instances: instances('from_instances'),
  to_instances: instances('to_instances').positive(),
  probe_concurrency: concurrency('probe_concurrency').int().positive().nullable(),
  p95_before_ms: ms('p95_before_ms').nullable(),
  p95_recovered_target_ms: ms('p95_recovered_target_ms').nullable(),
  p95_after_ms: ms('p95_after_ms').nullable(),
  timeline: z.array(timelineEntrySchema),
  durations: z.array(durationSchema),
  dominant_stage: z
    .object({ from: safeString, to: safeString, seconds: signedSeconds('seconds') })
    .nullable(),
  missing_stages: z.array(safeString),
  notes: z.array(safeString),
  provenance: provenanceSchema,
  // Optional (absent in legacy artifacts and in those written before they existed):
  /** The stage T_total ends at: traffic_recovered, or in_service when traffic never recovered (a lower bound). */
  t_total_end_stage: safeString.optional(),
  /** The measured qmax's fingerprint differed from the live one and --allow-config-mismatch was given. */
  config_mismatch_allowed: z.boolean().optional(),
  mismatch_warnings: z.array(safeString).optional(),
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
      quota_name: safeString.nullable(),
      quota_value: z.number().nullable(),
      instances_in_use: z.number().int().nonnegative().nullable(),
      source: safeString,
    })
    .optional(),
  /** What was put back after the run: desired count and suspension flags (from the thaw journal). */
  restore: journalRestoreRecordSchema.optional(),
});
export type TtotalArtifact = z.infer<typeof ttotalArtifactSchema>;

export const findingVerdictSchema = z.enum(['ok', 'warn', 'stop', 'suppressed']);
export type FindingVerdict = z.infer<typeof findingVerdictSchema>;

export const findingSchema = z.object({
  name: safeString,
  verdict: findingVerdictSchema,
  detail: safeString,
  fix: safeString.nullable(),
});
export type Finding = z.infer<typeof findingSchema>;

const loadSchema = z.object({ unit: z.enum(['rps', 'streams']), value: rps('load') });

const planInputSchema = z.object({
  file: safeString,
  run_id: safeString,
  slug: safeString,
  fingerprint: fingerprintSchema,
});

/**
 * The CloudWatch metric the scale-out target tracks (AWS/SageMaker, per endpoint variant):
 * `ConcurrentRequestsPerModel` (Maximum per 10 s period, the high-resolution predefined metric
 * SageMakerVariantConcurrentRequestsPerModelHighResolution) or `InvocationsPerInstance` (Sum per
 * 60 s period, the classic predefined metric SageMakerVariantInvocationsPerInstance).
 */
export const SCALING_METRICS = ['ConcurrentRequestsPerModel', 'InvocationsPerInstance'] as const;
export const scalingMetricSchema = z.enum(SCALING_METRICS);
export type ScalingMetric = z.infer<typeof scalingMetricSchema>;

/** The values `cdk deploy` ships and `validate` compares, under their config names. */
export const deployableSchema = z.object({
  /** The tracked metric; older plans tracked ConcurrentRequestsPerModel. */
  scaling_metric: scalingMetricSchema.default('ConcurrentRequestsPerModel'),
  min_instances: instances('min_instances').positive(),
  max_instances: instances('max_instances').positive(),
  /** In the tracked metric's own units (scaling_metric); null when nothing measured can express it. */
  scaling_target_value: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'scaling_target_value')
    .positive()
    .nullable(),
  scale_in_threshold: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'scale_in_threshold')
    .positive()
    .nullable(),
  queue_max_depth: boundedNumber(1, LIMITS.queue, 'queue_max_depth').int(),
  scale_out_cooldown_s: seconds('scale_out_cooldown_s').int(),
  scale_in_cooldown_s: boundedNumber(0, 3 * LIMITS.seconds * 2, 'scale_in_cooldown_s').int(),
  slo_ms: ms('slo_ms').positive(),
  /** Service-time alarm: measured TTFAB p95 at concurrency 1 (not the SLO). */
  service_time_alarm_ms: ms('service_time_alarm_ms').positive().nullable(),
});
export type Deployable = z.infer<typeof deployableSchema>;

/**
 * Where a plan's region comes from: the measurement (which records it), or, for a legacy
 * measurement that records none, the model config when the plan was made (labelled as such
 * everywhere it is shown); `not recorded` when neither (the gate refuses it).
 */
export const REGION_FROM_CONFIG = 'config (the legacy artifact records none)';
export const regionSourceSchema = z.enum(['measured', REGION_FROM_CONFIG, 'not recorded']);
export type RegionSource = z.infer<typeof regionSourceSchema>;

const probability = z.number().min(0).max(1);

/** Where a figure comes from, as every output labels it. */
const figureOriginSchema = z.enum(['measured', 'computed', 'bound', 'stated', 'interpolated']);

/**
 * The tracked metric's level at one per-instance Poisson arrival rate: the per-period statistic's
 * median and spread (p10, p90) over periods. `measured` from goodput's CloudWatch join,
 * `interpolated` between measured rates, `computed` by a seeded queueing simulation of one
 * instance (never measured), or `computed` exactly (InvocationsPerInstance: 60 s x the rate).
 */
export const metricLevelSchema = z.object({
  rate_rps: rps('metric level rate_rps'),
  p10: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'metric level p10'),
  p50: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'metric level p50'),
  p90: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'metric level p90'),
  origin: figureOriginSchema,
  /** How: `goodput CloudWatch join`, `queueing simulation (seed 1, 2000 periods)`, `60 s x rate`. */
  method: safeString,
});
export type MetricLevel = z.infer<typeof metricLevelSchema>;

/**
 * One candidate policy: a tracked metric, the surge-safe per-instance rate its detection speed
 * allows, and the deployable values that hold each instance there.
 */
export const policyCandidateSchema = z.object({
  metric: scalingMetricSchema,
  statistic: z.enum(['Maximum', 'Sum']),
  period_s: seconds('candidate period_s').int().positive(),
  policy_lag_s: seconds('candidate policy_lag_s'),
  policy_lag_origin: z.enum(['measured', 'computed', 'bound']),
  t_plan_s: seconds('candidate t_plan_s'),
  /** Highest per-instance Poisson rate from which a k surge overflows within T_plan with probability <= max_overflow_probability. */
  lambda_safe_rps: rps('lambda_safe_rps'),
  /** What bounds lambda_safe: the surge, goodput's lambda_max, or the SLO after the surge's queue built. */
  lambda_safe_bound: z.enum(['surge', 'lambda_max', 'slo']),
  /** lambda_safe / the instance's capacity (its highest measured throughput). */
  throughput_share: z.number().min(0).max(1),
  surge_overflow_probability: probability,
  baseline_overflow_probability: probability,
  /** p95 TTFAB an arrival sees at the end of T_plan under the surge (computed from the ladder). */
  surge_p95_ttfab_ms: ms('surge_p95_ttfab_ms').nullable(),
  target: metricLevelSchema,
  scale_in_rate_rps: rps('scale_in_rate_rps'),
  scale_in: metricLevelSchema,
  /** The scale-in alarm's threshold (its period's level at scale_in_rate_rps, see docs). */
  scale_in_threshold: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'candidate scale_in_threshold'),
  target_value: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'candidate target_value'),
  peak_instances: instances('candidate peak_instances'),
  trough_instances: instances('candidate trough_instances'),
  cost_per_hour_usd: boundedNumber(0, LIMITS.usd * LIMITS.instances, 'cost_per_hour_usd').nullable(),
  /** Overflow within tolerance with and without the surge. */
  holds: z.boolean(),
});
export type PolicyCandidate = z.infer<typeof policyCandidateSchema>;

/** The closed-loop rule the first version deployed, kept as a labelled comparison. */
export const seedRuleSchema = z.object({
  target_value: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'seed target_value').nullable(),
  scale_in_threshold: boundedNumber(
    0,
    LIMITS.concurrency * LIMITS.ratio,
    'seed scale_in_threshold',
  ).nullable(),
  c_scale_max: z.number(),
  rate_rps: rps('seed rate_rps'),
  throughput_share: z.number().min(0).max(1),
  surge_overflow_probability: probability,
  baseline_overflow_probability: probability,
  peak_instances: instances('seed peak_instances'),
  cost_per_hour_usd: boundedNumber(0, LIMITS.usd * LIMITS.instances, 'seed cost_per_hour_usd').nullable(),
  holds: z.boolean(),
});
export type SeedRule = z.infer<typeof seedRuleSchema>;

/** How the deployed policy was chosen: the candidates side by side, the chosen one, the seed's rule. */
export const policyChoiceSchema = z.object({
  chosen_metric: scalingMetricSchema,
  /** One sentence: why this metric and target. */
  reason: safeString,
  max_overflow_probability: probability,
  candidates: z.array(policyCandidateSchema).min(1).max(4),
  seed_rule: seedRuleSchema,
});
export type PolicyChoice = z.infer<typeof policyChoiceSchema>;

export const planArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('plan'),
  model_name: safeString,
  run_id: runId,
  created_at: recordedAt,
  verdict: z.enum(['ok', 'warn', 'stop']),
  warn_count: z.number().int().nonnegative().max(1000),
  /** The measurement's fingerprint: what this plan may be deployed onto (its region: see region_source). */
  fingerprint: fingerprintSchema,
  region_source: regionSourceSchema.default('measured'),
  inputs: z.object({
    qmax: planInputSchema,
    ttotal: planInputSchema.nullable(),
    t_total_stated_s: seconds('t_total_stated_s').positive().nullable(),
    config_mismatch_allowed: z.boolean(),
    mismatch_warnings: z.array(safeString),
    /** `plan --drill`: the drill whose measured policy lag replaced the computed or bounded one. */
    drill: planInputSchema.nullable().optional(),
    /** The goodput measurement (lambda_max), when the plan was given one; absent in older plans. */
    goodput: planInputSchema.nullable().optional(),
  }),
  chosen: z.object({
    slo_ms: ms('slo_ms').positive(),
    surge_ratio: boundedNumber(1, 1.5, 'surge_ratio'),
    peak: loadSchema,
    trough: loadSchema,
    min_instances_floor: instances('min_instances_floor').positive(),
    invocation_ceiling_s: seconds('invocation_ceiling_s').positive(),
    instance_hourly_usd: boundedNumber(0, LIMITS.usd, 'instance_hourly_usd').positive().nullable(),
    instance_quota: instances('instance_quota').positive().nullable(),
    /** The model config's region, taken for a legacy measurement that records none; null otherwise. */
    legacy_region: regionSchema.nullable().default(null),
    /**
     * Which rule the deployable values follow: `surge-safe` (the operating point: lambda_safe in
     * the tracked metric's own units) or `seed` (the closed-loop rule (1 - h) Q_max, kept for
     * comparison drills). Absent in older plans, which followed the seed's rule.
     */
    policy_rule: z.enum(['surge-safe', 'seed']).default('seed'),
    /** Overflow probability within T_plan the policy may carry (config max_overflow_probability). */
    max_overflow_probability: z.number().gt(0).lt(0.5).default(0.05),
  }),
  measured: z.object({
    q_max: concurrency('q_max').int(),
    q_max_bracketed: z.boolean(),
    s_mean_s: seconds('s_mean_s'),
    s_p95_s: seconds('s_p95_s'),
    ttfab_p95_at_c1_ms: ms('ttfab_p95_at_c1_ms').nullable(),
    t_total_s: seconds('t_total_s').positive(),
    /** `lower-bound`: the ttotal ended at in_service (traffic never recovered); older plans said `measured`. */
    t_total_origin: z.enum(['measured', 'stated', 'lower-bound']),
    policy_lag_s: seconds('policy_lag_s'),
    policy_lag_bounded: z.boolean(),
    /**
     * `computed` from the deployed alarms (publication delay assumed), the 60 s `bound`, or
     * `measured` by a surge drill. Absent in older plans (then: bound when policy_lag_bounded, else computed).
     */
    policy_lag_origin: z.enum(['measured', 'computed', 'bound']).optional(),
    cw_ratio: boundedNumber(0, LIMITS.ratio, 'cw_ratio').positive().nullable(),
    cw_ratio_rung: concurrency('cw_ratio_rung').int().positive().nullable(),
    // Additive (goodput): absent in older plans, null without a goodput artifact.
    /** Highest Poisson arrival rate per instance inside the SLO (open loop). */
    lambda_max_rps: rps('lambda_max_rps').nullable().optional(),
    /** lambda_max is bracketed by a measured breach (else a lower bound). */
    lambda_max_bracketed: z.boolean().nullable().optional(),
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
    peak_instances: instances('peak_instances'),
    trough_instances: instances('trough_instances'),
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
    /** lambda_max / X_target - 1: negative when random arrivals at the target break the SLO. */
    open_loop_headroom: z.number().nullable().optional(),
    /** The concurrency whose measured throughput is lambda_max (the target that leaves that headroom). */
    open_loop_concurrency_target: z.number().nonnegative().nullable().optional(),
    /**
     * The chosen policy's surge-safe per-instance rate (what the fleet is sized for and a drill's
     * steady phase offers per instance); absent in older plans (they sized at x_target_rps).
     */
    lambda_safe_rps: rps('lambda_safe_rps').nullable().optional(),
  }),
  deployable: deployableSchema,
  /** How the deployed policy was chosen; absent in older plans (the closed-loop rule). */
  policy: policyChoiceSchema.nullable().optional(),
  findings: z.array(findingSchema),
  provenance: provenanceSchema,
  /** `plan --drill`: what the plan predicted for a surge against what the drill observed. */
  drill_comparison: z
    .object({
      drill_run_id: safeString,
      drilled_plan_run_id: safeString,
      verdict: z.enum(['pass', 'fail']),
      surge_ratio: boundedNumber(1, 2, 'drill surge_ratio'),
      policy_lag_predicted_s: seconds('policy_lag_predicted_s'),
      policy_lag_predicted_origin: z.enum(['measured', 'computed', 'bound']),
      policy_lag_observed_s: seconds('policy_lag_observed_s'),
      t_plan_predicted_s: seconds('t_plan_predicted_s'),
      surge_overflow_predicted: z.number().min(0).max(1).nullable(),
      surge_overflow_observed: z.boolean(),
      overflows_observed: z.number().int().nonnegative(),
      broken_windows: z.number().int().nonnegative(),
      slo_recovered_s: seconds('slo_recovered_s').nullable(),
      // Additive: absent in older plans; null for a drill that predates the SLO verdict.
      /** Every full steady and surge window of the drill held the SLO (the drill's verdict). */
      slo_held: z.boolean().nullable().optional(),
      /** No window of the drill beyond what the plan predicted. */
      as_predicted: z.boolean().nullable().optional(),
    })
    .nullable()
    .optional(),
});
export type PlanArtifact = z.infer<typeof planArtifactSchema>;

export const comparisonRowSchema = z.object({
  parameter: safeString,
  expected: z.union([safeString, z.number(), z.boolean(), z.null()]),
  deployed: z.union([safeString, z.number(), z.boolean(), z.null()]),
  verdict: z.enum(['match', 'mismatch', 'missing', 'extra', 'warn']),
});
export type ComparisonRow = z.infer<typeof comparisonRowSchema>;

export const driftArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('drift'),
  model_name: safeString,
  endpoint: endpointNameSchema,
  region: regionSchema,
  run_id: runId,
  checked_at: recordedAt,
  verdict: z.enum(['preflight-ok', 'drift']),
  plan: z.object({ file: safeString, run_id: safeString }).nullable(),
  findings: z.array(
    z.object({
      check: safeString,
      verdict: z.enum(['ok', 'warn', 'drift']),
      detail: safeString,
      remediation: safeString.nullable(),
    }),
  ),
  rows: z.array(comparisonRowSchema),
});
export type DriftArtifact = z.infer<typeof driftArtifactSchema>;

export const validateArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('validate'),
  model_name: safeString,
  endpoint: endpointNameSchema,
  region: regionSchema,
  run_id: runId,
  checked_at: recordedAt,
  verdict: z.enum(['clean', 'mismatch']),
  plan: z.object({
    file: safeString,
    run_id: safeString,
    /** The plan's fingerprint (what it may be deployed onto); absent in validates written before it was recorded. */
    fingerprint: fingerprintSchema.optional(),
  }),
  rows: z.array(comparisonRowSchema),
});
export type ValidateArtifact = z.infer<typeof validateArtifactSchema>;

export const artifactSchemas = {
  qmax: qmaxArtifactSchema,
  ttotal: ttotalArtifactSchema,
  goodput: goodputArtifactSchema,
  plan: planArtifactSchema,
  drift: driftArtifactSchema,
  validate: validateArtifactSchema,
} as const;

/** The command that writes each kind, for error messages that say how to get a valid file. */
export const producerOf: Record<keyof typeof artifactSchemas, string> = {
  qmax: 'scalegate qmax',
  ttotal: 'scalegate ttotal',
  goodput: 'scalegate goodput',
  plan: 'scalegate plan',
  drift: 'scalegate drift',
  validate: 'scalegate validate',
};
