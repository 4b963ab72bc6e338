import { z } from 'zod';
import { fingerprintSchema } from '../fingerprint.js';
import { boundedNumber, LIMITS, regionSchema, safeString } from '../safe.js';
import { vantageSchema } from '../vantage.js';
import { continuitySchema } from './audio.js';
import {
  concurrency,
  instances,
  ms,
  provenanceSchema,
  recordedAt,
  rps,
  runId,
  SCHEMA_VERSION,
  seconds,
} from './common.js';
import { planCostSchema } from './cost.js';
import { inferenceComponentPlanSchema } from './inference-component.js';
import { scheduledActionSchema, stepScaleOutSchema } from './scaling-actions.js';

/**
 * The largest level a tracked metric can show: concurrency (requests in flight times a ratio) or
 * invocations per minute per instance (60 x the largest plausible rate).
 */
const METRIC_LEVEL_MAX = Math.max(LIMITS.concurrency * LIMITS.ratio, 60 * LIMITS.rps);

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
  scaling_target_value: boundedNumber(0, METRIC_LEVEL_MAX, 'scaling_target_value').positive().nullable(),
  scale_in_threshold: boundedNumber(0, METRIC_LEVEL_MAX, 'scale_in_threshold').positive().nullable(),
  queue_max_depth: boundedNumber(1, LIMITS.queue, 'queue_max_depth').int(),
  scale_out_cooldown_s: seconds('scale_out_cooldown_s').int(),
  scale_in_cooldown_s: boundedNumber(0, 3 * LIMITS.seconds * 2, 'scale_in_cooldown_s').int(),
  slo_ms: ms('slo_ms').positive(),
  /** Service-time alarm: measured TTFAB p95 at concurrency 1 (not the SLO). */
  service_time_alarm_ms: ms('service_time_alarm_ms').positive().nullable(),
  /**
   * Scheduled actions (`plan --tune`): minimum and maximum capacity by time of day. Absent in
   * plans without any (older plans, every plan made without a tune): read with `scheduledActionsOf`.
   */
  scheduled_actions: z.array(scheduledActionSchema).max(200).optional(),
  /** A step scale-out for large surges (`plan --tune`); absent: none (read with `stepScaleOutOf`). */
  step_scale_out: stepScaleOutSchema.nullable().optional(),
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
  p10: boundedNumber(0, METRIC_LEVEL_MAX, 'metric level p10'),
  p50: boundedNumber(0, METRIC_LEVEL_MAX, 'metric level p50'),
  p90: boundedNumber(0, METRIC_LEVEL_MAX, 'metric level p90'),
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
  scale_in_threshold: boundedNumber(0, METRIC_LEVEL_MAX, 'candidate scale_in_threshold'),
  target_value: boundedNumber(0, METRIC_LEVEL_MAX, 'candidate target_value'),
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

/** The label a tuned plan carries beside its policy: `chosen by simulation on trace <first 12 hex of the digest>`. */
export const tunedPolicyLabel = (traceSha256: string): string =>
  `chosen by simulation on trace ${traceSha256.slice(0, 12)}`;

/** `plan --tune`: the deployed values are a `scalegate tune` candidate's, chosen by simulation on a trace. */
export const policyChosenBySchema = z.object({
  method: z.literal('simulation'),
  tune_file: safeString,
  tune_run_id: safeString,
  trace_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  trace_source: safeString.max(1000),
  /** Exactly `tunedPolicyLabel(trace_sha256)`. */
  label: safeString.max(200),
});
export type PolicyChosenBy = z.infer<typeof policyChosenBySchema>;

/** How the deployed policy was chosen: the candidates side by side, the chosen one, the seed's rule. */
export const policyChoiceSchema = z.object({
  chosen_metric: scalingMetricSchema,
  /** One sentence: why this metric and target. */
  reason: safeString,
  max_overflow_probability: probability,
  candidates: z.array(policyCandidateSchema).min(1).max(4),
  seed_rule: seedRuleSchema,
  /** `plan --tune`: the deployed values are the tune's chosen candidate's; absent otherwise. */
  chosen_by: policyChosenBySchema.nullable().optional(),
});
export type PolicyChoice = z.infer<typeof policyChoiceSchema>;

/**
 * The surge overflow probability at the deployed rate, recomputed with each uncertain input at its
 * unfavourable bound and with all of them together: `low` is the plan's own figure, `high` the
 * worst of them.
 */
export const surgeSensitivitySchema = z.object({
  rate_rps: rps('surge_sensitivity rate_rps'),
  nominal: probability,
  low: probability,
  high: probability,
  method: safeString,
  items: z.array(
    z.object({
      vary: z.enum(['throughput_low', 'q_max_low', 't_plan_high', 'all']),
      /** null: not available (T_plan has no upper bound from a single observation). */
      probability: probability.nullable(),
      exact: z.boolean(),
      used: safeString,
    }),
  ),
});
export type SurgeSensitivityRecord = z.infer<typeof surgeSensitivitySchema>;

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
    /** `plan --tune`: the tune artifact whose chosen candidate the plan deploys; absent otherwise. */
    tune: planInputSchema.nullable().optional(),
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
    /** `bound`: the upper prediction bound of a repeated ttotal (see t_total_provenance). */
    t_total_origin: z.enum(['measured', 'stated', 'lower-bound', 'bound']),
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
    // Additive (uncertainty carried into the plan); absent in older plans.
    /** How T_total is labelled: `bound (upper 90 % prediction, n=3)`, `measured, single observation`, ... */
    t_total_provenance: safeString.optional(),
    /** Every T_total the ttotal artifact observed (one per scale-out). */
    t_total_observations_s: z.array(z.number().positive()).optional(),
    /** How the policy lag is labelled (a drill's bound over several scale-outs, or its single one). */
    policy_lag_provenance: safeString.optional(),
    /** How Q_max is labelled: `measured, bracketed`, or a POINT ESTIMATE for a legacy rung. */
    q_max_provenance: safeString.optional(),
    /** The rung at Q_max passed on a valid interval (false: a legacy point estimate). */
    q_max_interval_decided: z.boolean().optional(),
    /** The ladders' holds are at least what the coverage simulations validated (false: shorter). */
    validated_hold: z.boolean().optional(),
    /** Which hold was short, or that they were not. */
    validated_hold_detail: safeString.optional(),
    /** Where the ladder's load came from, with its RTT floor (the qmax's); absent when not recorded. */
    vantage: vantageSchema.optional(),
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
    surge_method: safeString.nullable().optional(),
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
    /** X_target is read on the throughput curve between measured rungs (`interpolated`) or at one. */
    x_target_origin: z.enum(['measured', 'interpolated']).optional(),
    /** The surge overflow probability's sensitivity band (deployed surge-safe policy); absent in older plans. */
    surge_sensitivity: surgeSensitivitySchema.nullable().optional(),
  }),
  deployable: deployableSchema,
  /** How the deployed policy was chosen; absent in older plans (the closed-loop rule). */
  policy: policyChoiceSchema.nullable().optional(),
  findings: z.array(findingSchema),
  provenance: provenanceSchema,
  /** Cost per million characters and per audio-hour at the target and the surge-safe load; absent in older plans. */
  cost: planCostSchema.nullable().optional(),
  /** The continuity SLO the plan's measurements were decided on (null: first audio only); absent in older plans. */
  continuity: continuitySchema.nullable().optional(),
  /** An inference-component model's deployable block (copies, packing, paths); absent for variants and older plans. */
  inference_component: inferenceComponentPlanSchema.nullable().optional(),
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

/** The plan's scheduled actions (none in plans made without a tune). */
export const scheduledActionsOf = (deployable: Deployable) => deployable.scheduled_actions ?? [];
/** The plan's step scale-out (none in plans made without a tune). */
export const stepScaleOutOf = (deployable: Deployable) => deployable.step_scale_out ?? null;
