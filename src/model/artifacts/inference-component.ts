/**
 * The plan's deployable block for an inference-component model (`kind: 'inference-component'`):
 * copy-level target tracking on ConcurrentRequestsPerCopy, copy and instance bounds (managed
 * instance scaling), T_plan per scale-out path, and scale to zero. Optional on the plan: older
 * plans and variant plans carry none.
 */
import { z } from 'zod';
import { icFingerprintSchema } from '../inference-component.js';
import { boundedNumber, LIMITS, safeString } from '../safe.js';
import { instances, seconds } from './common.js';

/** Where a figure comes from, as every output labels it. */
export const icOriginSchema = z.enum(['measured', 'computed', 'assumed', 'bound']);
export type IcOrigin = z.infer<typeof icOriginSchema>;

const timedPathSchema = z.object({
  /** T_plan of this path: policy lag plus the time until the new copy serves. */
  t_plan_s: seconds('t_plan_s'),
  origin: icOriginSchema,
  /** How it was obtained, in words. */
  provenance: safeString,
});

const alarmSchema = z.object({
  name: safeString,
  metric: safeString,
  statistic: z.enum(['Sum', 'Maximum', 'Average']),
  period_s: z.number().int().positive(),
  evaluation_periods: z.number().int().positive(),
  datapoints_to_alarm: z.number().int().positive(),
  threshold: z.number().nonnegative(),
  comparison: z.enum(['GreaterThanOrEqualToThreshold', 'LessThanOrEqualToThreshold', 'LessThanThreshold']),
  missing_data: z.enum(['missing', 'notBreaching', 'breaching', 'ignore']),
});
export type IcAlarm = z.infer<typeof alarmSchema>;

/** One StepAdjustment: bounds relative to the alarm threshold (null: unbounded). */
const stepAdjustmentSchema = z.object({
  lower: z.number().nullable(),
  upper: z.number().nullable(),
  adjustment: z.number().int(),
});
export type IcStepAdjustment = z.infer<typeof stepAdjustmentSchema>;

const stepPolicySchema = z.object({
  name: safeString,
  adjustment_type: z.enum(['ChangeInCapacity', 'ExactCapacity']),
  /** The adjustment of the step that touches the threshold (the only one, unless `steps`). */
  adjustment: z.number().int(),
  cooldown_s: z.number().int().nonnegative(),
  /** Several steps (the copy scale-in's); absent: one step from the threshold outwards. */
  steps: z.array(stepAdjustmentSchema).min(1).optional(),
  alarm: alarmSchema,
});
export type IcStepPolicy = z.infer<typeof stepPolicySchema>;

export const inferenceComponentPlanSchema = z.object({
  component_name: safeString,
  endpoint: safeString,
  variant: safeString,
  /** The packing the plan is for (also in the plan's fingerprint). */
  packing: icFingerprintSchema,
  copies: z.object({
    min: instances('min copies'),
    max: instances('max copies').positive(),
    peak: instances('peak copies'),
    trough: instances('trough copies'),
  }),
  /** Managed instance scaling: ceil(copies / copies_per_instance). */
  instances: z.object({
    min: instances('min instances'),
    max: instances('max instances').positive(),
  }),
  copy_target: z.object({
    /** Predefined metric of the target-tracking policy. */
    predefined_metric: z.literal('SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution'),
    /** Target in ConcurrentRequestsPerCopy units. */
    value: boundedNumber(0, LIMITS.concurrency * LIMITS.ratio, 'copy target').positive(),
    lambda_safe_per_copy_rps: boundedNumber(0, LIMITS.rps, 'lambda_safe_per_copy_rps').nullable(),
    origin: icOriginSchema,
    provenance: safeString,
    scale_out_cooldown_s: z.number().int().nonnegative(),
    scale_in_cooldown_s: z.number().int().nonnegative(),
    /**
     * Scale-in disabled on the copy target tracking (min copies 0): its low alarm, whose range
     * holds only the readings since a wake, would take the woken copy back to 0; copies are then
     * removed by `scale_to_zero.copy_scale_in` and the last one by the idle rule only.
     */
    disable_scale_in: z.boolean().default(false),
  }),
  /** T_plan per scale-out path: a copy onto an instance with room, a new instance, a wake from zero. */
  paths: z.object({ warm: timedPathSchema, cold: timedPathSchema, zero: timedPathSchema.nullable() }),
  /** min copies 0: the wake policy, the idle scale-in rule, the client retry budget. */
  scale_to_zero: z
    .object({
      wake: stepPolicySchema,
      idle_scale_in: stepPolicySchema,
      /**
       * Removes one copy after 15 minutes below 90 % of the copy target with traffic, never on
       * missing data (the minutes before a wake); idle minutes are the idle rule's. Null in plans
       * written before it existed (their copy target tracking scaled in).
       */
      copy_scale_in: stepPolicySchema.nullable().default(null),
      idle_minutes: z.number().int().positive(),
      wake_s: seconds('wake_s'),
      wake_origin: icOriginSchema,
      wake_tolerance_s: seconds('wake_tolerance_s'),
      retry: z.object({
        attempts: z.number().int().nonnegative(),
        backoff_s: z.number().nonnegative(),
        /** attempts x backoff: how long a client keeps trying. */
        covers_s: z.number().nonnegative(),
        /** Attempts needed at this backoff to cover wake_s. */
        attempts_needed: z.number().int().nonnegative(),
      }),
    })
    .nullable(),
  /** The container environment the component's model carries (MAX_QUEUE_DEPTH per copy). */
  container_environment: z.record(safeString, safeString),
  /** What the block assumes until per-copy and per-path measurements exist. */
  assumptions: z.array(safeString),
});
export type InferenceComponentPlan = z.infer<typeof inferenceComponentPlanSchema>;

/** A step policy's StepAdjustments as Application Auto Scaling takes them (bounds omitted when unbounded). */
export function icStepAdjustments(
  step: IcStepPolicy,
): { MetricIntervalLowerBound?: number; MetricIntervalUpperBound?: number; ScalingAdjustment: number }[] {
  const steps =
    step.steps ??
    // One step from the threshold outwards, on the alarm's breaching side.
    (step.alarm.comparison === 'GreaterThanOrEqualToThreshold'
      ? [{ lower: 0, upper: null, adjustment: step.adjustment }]
      : [{ lower: null, upper: 0, adjustment: step.adjustment }]);
  return steps.map((s) => ({
    ...(s.lower !== null ? { MetricIntervalLowerBound: s.lower } : {}),
    ...(s.upper !== null ? { MetricIntervalUpperBound: s.upper } : {}),
    ScalingAdjustment: s.adjustment,
  }));
}

/** The step policies a plan deploys beside its copy target tracking: wake, idle, copy scale-in (min copies 0). */
export function icStepPolicies(ic: InferenceComponentPlan): IcStepPolicy[] {
  const z = ic.scale_to_zero;
  if (!z) return [];
  return [z.wake, z.idle_scale_in, ...(z.copy_scale_in ? [z.copy_scale_in] : [])];
}
