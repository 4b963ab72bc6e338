/**
 * The surge drill's artifacts: what one drill (or the merge of its shards) measured of the
 * deployed policy under open-loop load, and the judgement of it.
 *
 * - `drill-shard`: what one shard of `scalegate drill --shard i/n` recorded: its share of the
 *   load (HDR windows by intended send time, per-second counters) and, on shard 0 only, the
 *   observer's view of the endpoint (instance counts, alarm states and transitions, the tracked
 *   metric, scaling activities). Shards are raw data; nothing in them is judged.
 * - `drill`: a whole drill (one process, or the shards merged): the same data plus the analysis
 *   (per-window verdicts, the measured policy lag with every step of it, predicted against
 *   observed) and the verdict.
 *
 * Times are seconds from the schedule's offset 0 (`histograms.start_at`), negative before it.
 */
import { z } from 'zod';
import { icPathMeasurementSchema, timelineEntrySchema } from './artifacts/ttotal.js';
import { comparisonRowSchema, provenanceSchema } from './artifacts.js';
import { fingerprintSchema } from './fingerprint.js';
import { openLoopHistogramsSchema, shardSchema } from './histograms.js';
import { boundedNumber, endpointNameSchema, LIMITS, pastTime, regionSchema, safeString } from './safe.js';
import { vantageSchema } from './vantage.js';

export const DRILL_PHASES = ['steady', 'surge', 'trough'] as const;
export const drillPhaseNameSchema = z.enum(DRILL_PHASES);
export type DrillPhaseName = z.infer<typeof drillPhaseNameSchema>;

const seconds = (what: string) => boundedNumber(0, LIMITS.seconds, what);
const offset = (what: string) => boundedNumber(-LIMITS.seconds, LIMITS.seconds, what);
const rps = (what: string) => boundedNumber(0, LIMITS.rps, what);
const count = (what: string) => boundedNumber(0, LIMITS.count, what).int();
const instances = (what: string) => boundedNumber(0, LIMITS.instances, what).int();
const ms = (what: string) => boundedNumber(0, LIMITS.ms, what);
const probability = z.number().min(0).max(1);

/** Where a figure comes from (src/report/labels.ts words it). */
export const figureOriginSchema = z.enum(['measured', 'computed', 'assumed', 'bound', 'lower-bound']);

export const drillPhaseSchema = z.object({
  name: drillPhaseNameSchema,
  start_s: seconds('phase start_s'),
  end_s: seconds('phase end_s'),
  /** Poisson arrival rate of the whole drill (all shards), requests/s. */
  rate_rps: rps('phase rate_rps'),
  /** How the rate was chosen, e.g. `computed: X_target 17.89 x 2 instances`. */
  rate_source: safeString,
});
export type DrillPhase = z.infer<typeof drillPhaseSchema>;

export const drillSettingsSchema = z.object({
  surge_ratio: boundedNumber(1, 2, 'surge_ratio'),
  /** Instances asked for before the drill (null: the fleet as found). */
  start_instances: instances('start_instances').positive().nullable(),
  slo_ms: ms('slo_ms').positive(),
  window_s: seconds('window_s').positive(),
  seed: z.number().int().nonnegative(),
  poll_s: seconds('poll_s').positive(),
  request_timeout_s: seconds('request_timeout_s').positive(),
  max_outstanding: count('max_outstanding').positive(),
  transport: safeString,
  prompts: z.object({ source: safeString, count: z.number().int().positive() }),
  /** Additive: the continuity SLO (p95 of per-stream stall time, ms); null or absent: first audio only. */
  underrun_slo_ms: ms('underrun_slo_ms').positive().nullable().optional(),
  /** Additive: the client buffer the stall was computed with, ms. */
  client_buffer_ms: ms('client_buffer_ms').optional(),
});
export type DrillSettings = z.infer<typeof drillSettingsSchema>;

/** What the plan promised, copied from it when the drill ran (the merge needs no plan file). */
export const drillPredictionSchema = z.object({
  /** The plan's scale-out target (CloudWatch units) and scale-in threshold. */
  scaling_target_value: boundedNumber(
    0,
    LIMITS.concurrency * LIMITS.ratio,
    'scaling_target_value',
  ).positive(),
  scale_in_threshold: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'scale_in_threshold')
    .positive()
    .nullable(),
  x_target_rps: rps('x_target_rps').positive(),
  t_total_s: seconds('t_total_s'),
  t_total_origin: figureOriginSchema,
  policy_lag_s: seconds('policy_lag_s'),
  policy_lag_origin: figureOriginSchema,
  t_plan_s: seconds('t_plan_s'),
  /** P(overflow within T_plan) of a k surge from the target (exact, from the plan's queue model). */
  surge_overflow_probability: probability.nullable(),
  /** The same with no surge: what the target alone does. */
  baseline_overflow_probability: probability.nullable(),
  /** The surge ratio the plan was derived for (the drill may use another). */
  planned_surge_ratio: boundedNumber(1, 2, 'planned_surge_ratio'),
  scale_in_cooldown_s: seconds('scale_in_cooldown_s'),
  queue_max_depth: count('queue_max_depth').positive(),
  // Additive (the SLO verdict); absent in older drills.
  /**
   * The share of a window's arrivals that may overflow (503) while the SLO still holds: the plan's
   * `policy.max_overflow_probability`, or the default for a plan that predates it.
   */
  max_overflow_probability: probability.optional(),
  /** `plan`: from the plan's policy choice; `default`: the plan predates it (0.05). */
  max_overflow_origin: z.enum(['plan', 'default']).optional(),
  /**
   * The chosen policy's surge-safe per-instance rate (the plan's derived.lambda_safe_rps): what the
   * steady phase offers per instance. null: the plan predates it (the steady phase offers X_target).
   */
  lambda_safe_rps: rps('lambda_safe_rps').positive().nullable().optional(),
});
export type DrillPrediction = z.infer<typeof drillPredictionSchema>;

/** One second of the schedule as this shard (or the merge) saw the load. Counters add on merge. */
export const drillLoadSecondSchema = z.object({
  t: z.number().int().nonnegative(),
  /** Arrivals the schedule put in this second (intended send time). */
  offered: count('offered'),
  sent: count('sent'),
  /** Of the arrivals of this second: ok, ok within the SLO, overflows (503/429), other failures. */
  ok: count('ok'),
  within_slo: count('within_slo'),
  overflow: count('overflow'),
  errors: count('errors'),
  /** ok responses that ended in this second (the achieved rate). */
  completed_ok: count('completed_ok'),
  /** Requests in flight at the client at the end of this second. */
  in_flight: count('in_flight'),
});
export type DrillLoadSecond = z.infer<typeof drillLoadSecondSchema>;

export const alarmStateSchema = z.enum(['OK', 'ALARM', 'INSUFFICIENT_DATA']);

/** The endpoint as the observer saw it, polled every `poll_s`. */
export const drillObservationSchema = z.object({
  t_s: offset('t_s'),
  status: safeString,
  desired: instances('desired').nullable(),
  current: instances('current').nullable(),
  /**
   * Additive: an inference-component drill counts copies in desired/current; this is the
   * endpoint's current instance count (managed instance scaling) at the same poll. Absent: a
   * variant drill, whose desired/current are instances.
   */
  instances: instances('instances').nullable().optional(),
  /** State of every watched alarm at this poll. */
  alarms: z.record(safeString, alarmStateSchema),
});
export type DrillObservation = z.infer<typeof drillObservationSchema>;

export const watchedAlarmSchema = z.object({
  name: safeString,
  role: z.enum(['scale-out', 'scale-in']),
  metric: safeString,
  statistic: safeString,
  period_s: seconds('period_s').positive(),
  evaluation_periods: z.number().int().positive(),
  datapoints_to_alarm: z.number().int().positive(),
  threshold: z.number(),
  comparison: safeString,
});
export type WatchedAlarm = z.infer<typeof watchedAlarmSchema>;

export const drillObserverSchema = z.object({
  alarms: z.array(watchedAlarmSchema),
  /** The metric the scale-out policy tracks: one datapoint per period, at the period's start. */
  metric: z.object({
    namespace: safeString,
    name: safeString,
    statistic: safeString,
    period_s: seconds('period_s').positive(),
    points: z.array(z.object({ t_s: offset('t_s'), value: z.number() })),
  }),
  observations: z.array(drillObservationSchema),
  /** State transitions from DescribeAlarmHistory (exact times). */
  transitions: z.array(
    z.object({ alarm: safeString, t_s: offset('t_s'), from: alarmStateSchema, to: alarmStateSchema }),
  ),
  activities: z.array(
    z.object({
      id: safeString,
      start_s: offset('start_s'),
      end_s: offset('end_s').nullable(),
      status: safeString,
      description: safeString,
      cause: safeString,
      /** Desired count the activity set (parsed from its description), null when it says none. */
      to_desired: instances('to_desired').nullable(),
    }),
  ),
  /** Calls that failed while observing (the drill goes on; what they would have shown is missing). */
  errors: z.array(safeString),
});
export type DrillObserver = z.infer<typeof drillObserverSchema>;

/** The deployed policy against the plan (the validate comparison), when the drill started. */
export const drillPolicySchema = z.object({
  verdict: z.enum(['clean', 'mismatch']),
  /** --allow-policy-mismatch: drilled what is deployed, recorded here. */
  mismatch_allowed: z.boolean(),
  /** The rows that differ (empty when clean). */
  differences: z.array(comparisonRowSchema),
  compared: z.number().int().nonnegative(),
});

/**
 * The from-zero phase of an inference-component drill (`--from-zero`): the component idle at zero
 * copies, one client at a time applying the plan's retry budget until the first success (the
 * measurement `ttotal --path zero` makes), judged against the plan's wake tolerance and budget.
 */
export const drillFromZeroSchema = z.object({
  /** What the wake measured (null: no request succeeded within max_wait_s). */
  wake: icPathMeasurementSchema.nullable(),
  /** The wake's stages (first request, first no-capacity failure, copy desired, in service, first success). */
  timeline: z.array(timelineEntrySchema),
  /** The longest the drill waited for a first success, seconds. */
  max_wait_s: seconds('max_wait_s').positive(),
  /** The plan's stated tolerance of the callers for a wake, seconds (the model's wake_tolerance_s). */
  wake_tolerance_s: seconds('wake_tolerance_s'),
  /** The plan's client retry budget: attempts x backoff covers this many seconds. */
  retry_budget: z.object({
    attempts: z.number().int().nonnegative(),
    backoff_s: z.number().nonnegative(),
    covers_s: z.number().nonnegative(),
  }),
  /** The plan's T_plan of the zero path, seconds, and where it came from. */
  planned_wake_s: seconds('planned_wake_s'),
  planned_wake_origin: safeString,
  within_tolerance: z.boolean(),
  /** No client request failed once every retry of the budget had: the budget covered the wake. */
  within_retry_budget: z.boolean(),
  /** within_tolerance and within_retry_budget: the phase held. */
  held: z.boolean(),
  reasons: z.array(safeString),
});
export type DrillFromZero = z.infer<typeof drillFromZeroSchema>;

/** An inference-component drill: what desired/current count, the component and its from-zero phase. */
export const drillInferenceComponentSchema = z.object({
  component: safeString,
  /** Copies the steady load is sized for, set before the load (settings.start_instances holds the same count). */
  start_copies: z.number().int().positive(),
  copies_per_instance: z.number().int().positive(),
  /** The plan's copy target, ConcurrentRequestsPerCopy (prediction.scaling_target_value holds it too). */
  copy_target: z.number().positive(),
  /** The scale-out path whose T_plan the drill is judged on (cold: a copy that needs a new instance). */
  t_plan_path: z.enum(['warm', 'cold']),
  from_zero: drillFromZeroSchema.nullable(),
});
export type DrillInferenceComponent = z.infer<typeof drillInferenceComponentSchema>;

const drillCommon = {
  schema_version: z.literal(1),
  model_name: safeString,
  endpoint: endpointNameSchema,
  variant: endpointNameSchema,
  region: regionSchema,
  /** Shared by the shards of one drill: derived from the plan run, the schedule and its start. */
  run_id: safeString.min(1).max(200),
  measured_at: pastTime,
  /** The plan whose policy was drilled. */
  plan_run_id: safeString.min(1).max(200),
  plan_file: safeString,
  /** The live endpoint's fingerprint (equal to the plan's: the drill refuses another). */
  fingerprint: fingerprintSchema,
  /** Where the load came from (runner, region, host, RTT floor; a merge: shard 0's); absent in drills written before it was recorded. */
  vantage: vantageSchema.optional(),
  policy: drillPolicySchema,
  prediction: drillPredictionSchema,
  settings: drillSettingsSchema,
  phases: z.array(drillPhaseSchema).min(1),
  histograms: openLoopHistogramsSchema,
  load_seconds: z.array(drillLoadSecondSchema),
  /** Requests that failed other than by overflow, by outcome and message (the 20 commonest). */
  failures: z.array(
    z.object({
      outcome: safeString,
      error: safeString,
      count: count('failure count'),
      /** First second of the schedule it happened in. */
      first_t: z.number().int().nonnegative(),
    }),
  ),
  /** null on shards other than 0 (one observer per drill). */
  observer: drillObserverSchema.nullable(),
  /**
   * Additive: a drill of an inference-component endpoint. Its observations, activities and
   * scale-out chains count copies (DesiredCopyCount/CurrentCopyCount), each observation also the
   * instances. Absent: a variant drill.
   */
  inference_component: drillInferenceComponentSchema.optional(),
  notes: z.array(safeString),
  provenance: provenanceSchema,
};

export const drillShardArtifactSchema = z.object({
  ...drillCommon,
  kind: z.literal('drill-shard'),
  shard: shardSchema,
});
export type DrillShardArtifact = z.infer<typeof drillShardArtifactSchema>;

export const windowJudgementSchema = z.enum(['ok', 'predicted', 'broken', 'not-judged']);

export const drillWindowSchema = z.object({
  index: z.number().int().nonnegative(),
  phase: drillPhaseNameSchema.nullable(),
  start_s: seconds('start_s'),
  end_s: seconds('end_s'),
  /** Wholly inside one phase: only full windows are judged. */
  full: z.boolean(),
  offered: count('offered'),
  ok: count('ok'),
  overflow: count('overflow'),
  errors: count('errors'),
  /** p95 TTFAB of ok requests from the intended send time (HDR, 0.1 %). */
  p95_ms: ms('p95_ms').nullable(),
  /** ok within the SLO / offered. */
  within_slo_fraction: probability.nullable(),
  /** p95 over the SLO, or fewer than 95 % of the arrivals answered within it. */
  over_slo: z.boolean(),
  /** Against the plan: `predicted` (what the plan said would happen) or `broken` (beyond it). */
  judged: windowJudgementSchema,
  reason: safeString.nullable(),
  // Additive (the SLO verdict); absent in older drills.
  /**
   * Whether the SLO held in this window: within the SLO (not over_slo), overflows no more than
   * max_overflow_probability of its arrivals, every arrival sent. null: not judged (a partial
   * window, or the trough).
   */
  slo_held: z.boolean().nullable().optional(),
  /** Why the SLO did not hold here (null when it held or was not judged). */
  slo_reason: safeString.nullable().optional(),
  /**
   * Additive: p95 of per-stream playback stall of the window's multi-chunk streams, every arrival
   * without an ok outcome a miss (HDR, measured); null: a miss, or no multi-chunk stream.
   */
  stall_p95_ms: ms('stall_p95_ms').nullable().optional(),
  /** Additive: the stall p95 over the underrun SLO (judged only with one). */
  over_underrun_slo: z.boolean().optional(),
});
export type DrillWindow = z.infer<typeof drillWindowSchema>;

/** One scale-out, step by step (offsets from the schedule start, s; null: not observed). */
export const lagChainSchema = z.object({
  /** The phase whose start was the last load step before the breach. */
  load_step: drillPhaseNameSchema,
  load_step_s: seconds('load_step_s'),
  /** Start of the first period of the run of breaching datapoints that raised the alarm. */
  first_breach_s: offset('first_breach_s').nullable(),
  alarm: safeString.nullable(),
  alarm_s: offset('alarm_s').nullable(),
  activity_s: offset('activity_s').nullable(),
  /** First poll that saw the new desired count (bounded by poll_s). */
  desired_s: offset('desired_s').nullable(),
  from_instances: instances('from_instances').nullable(),
  to_instances: instances('to_instances').nullable(),
  in_service_s: offset('in_service_s').nullable(),
  /** desired_s minus the origin: the later of the load step and the first breach. */
  policy_lag_s: seconds('policy_lag_s').nullable(),
  /** alarm_s minus first_breach_s. */
  detection_s: seconds('detection_s').nullable(),
  /** The alarm's datapoints x period (computed from its deployed settings). */
  configured_detection_s: seconds('configured_detection_s').nullable(),
  /** in_service_s minus desired_s. */
  scale_out_s: seconds('scale_out_s').nullable(),
  /**
   * `full`: the alarm's evaluation range held its EvaluationPeriods of real datapoints when it
   * fired; `partial`: fewer (the endpoint was idle before), so it fired sooner than configured.
   */
  evaluation: z.enum(['full', 'partial']).nullable(),
});
export type LagChain = z.infer<typeof lagChainSchema>;

export const drillAnalysisSchema = z.object({
  windows: z.array(drillWindowSchema),
  scale_outs: z.array(lagChainSchema),
  /** The first scale-out's policy lag: what `plan --drill` uses. */
  policy_lag: z.object({
    seconds: seconds('policy_lag seconds').nullable(),
    origin: z.literal('measured'),
    /** The scale-out it comes from: `full` (from a busy endpoint) or `partial` (from an idle one). */
    evaluation: z.enum(['full', 'partial']).nullable(),
    /** How it was measured, or why it was not. */
    detail: safeString,
  }),
  /** From the origin of the first breach to the first run of 3 good windows (0: the SLO never broke). */
  slo_recovered_s: seconds('slo_recovered_s').nullable(),
  steady: z.object({
    /** desired == current and no scale-out alarm in ALARM at the surge start. */
    settled_at_surge: z.boolean().nullable(),
    desired_at_surge: instances('desired_at_surge').nullable(),
    current_at_surge: instances('current_at_surge').nullable(),
    scaled_during: z.boolean().nullable(),
  }),
  observed: z.object({
    overflows: z.record(drillPhaseNameSchema, count('overflows')),
    windows_over_slo: z.record(drillPhaseNameSchema, count('windows')),
    /** Any overflow within T_plan of the surge start. */
    surge_overflowed_within_t_plan: z.boolean(),
    max_desired: instances('max_desired').nullable(),
    /**
     * Measured instance-minutes over the steady and surge phases (the current instance count
     * between polls); absent in older drills, null without an observer.
     */
    instance_minutes: z.number().nonnegative().max(1e9).nullable().optional(),
  }),
  scale_in: z.object({
    scale_ins: count('scale_ins'),
    /** Direction changes between successive scaling activities (out -> in -> out counts 2). */
    reversals: count('reversals'),
    detail: safeString,
  }),
  reasons: z.array(safeString),
});
export type DrillAnalysis = z.infer<typeof drillAnalysisSchema>;

/** The SLO judgement of a whole drill (every full steady and surge window). */
export const drillSloSchema = z.object({
  slo_ms: ms('slo_ms').positive(),
  /** A window holds when at least this share of its arrivals is answered within the SLO. */
  within_slo_share: probability,
  max_overflow_probability: probability,
  max_overflow_origin: z.enum(['plan', 'default']),
  /** Full windows of the steady and surge phases judged. */
  windows_judged: count('windows_judged'),
  /** The windows where the SLO did not hold, by index. */
  broken_windows: z.array(z.number().int().nonnegative()),
  /** Of those, how many in each phase. */
  broken_by_phase: z.object({ steady: count('steady'), surge: count('surge') }),
  /** Additive: the continuity SLO each window was also judged on (null: first audio only). */
  underrun_slo_ms: ms('underrun_slo_ms').nullable().optional(),
  /**
   * Additive: per phase, the p95 of per-stream stall over all its windows (misses at +infinity;
   * null: a miss or no multi-chunk stream), measured; absent when no response carried audio.
   */
  stall_p95_by_phase: z
    .object({
      steady: ms('steady stall_p95_ms').nullable(),
      surge: ms('surge stall_p95_ms').nullable(),
      trough: ms('trough stall_p95_ms').nullable(),
    })
    .optional(),
});
export type DrillSlo = z.infer<typeof drillSloSchema>;

export const drillArtifactSchema = z.object({
  ...drillCommon,
  kind: z.literal('drill'),
  /** Shards merged into this drill (one for a single process). */
  shards: z.array(shardSchema).min(1),
  /**
   * `pass` exactly when the SLO held (slo_held) and, in an inference-component drill from zero, its
   * from-zero phase held; older drills: when no window broke the plan's promise.
   */
  verdict: z.enum(['pass', 'fail']),
  /** The windows that broke the plan's promise (beyond what it predicted), by index. */
  broken_windows: z.array(z.number().int().nonnegative()),
  analysis: drillAnalysisSchema,
  // Additive (the SLO verdict); absent in older drills, which the gate does not take as proof.
  /**
   * Every full window of the steady and surge phases inside the SLO (p95 TTFAB from the intended
   * send time, overflows, timeouts and failures counted as misses) with overflows no more than
   * max_overflow_probability of its arrivals. The verdict and the exit code follow it.
   */
  slo_held: z.boolean().optional(),
  /** No window beyond what the plan predicted (every bad window `predicted`, none `broken`). */
  as_predicted: z.boolean().optional(),
  /** How slo_held was judged, and which windows broke the SLO. */
  slo: drillSloSchema.optional(),
});
export type DrillArtifact = z.infer<typeof drillArtifactSchema>;

export type DrillData = Omit<DrillShardArtifact, 'kind' | 'shard'>;
