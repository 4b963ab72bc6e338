/**
 * What a plan may deploy beyond target tracking and the scale-in step: scheduled actions (minimum
 * capacity by time of day, for ramps the policy cannot follow within T_plan) and a step scale-out
 * for large surges. Shared by the plan and the tune artifacts.
 */
import { z } from 'zod';
import { safeString } from '../safe.js';
import { instances, seconds } from './common.js';

const capacity = instances('capacity');

/** One scheduled action: Application Auto Scaling `PutScheduledAction` on the variant's scalable target. */
export const scheduledActionSchema = z.object({
  /** Unique per scalable target; `scalegate-<endpoint>-<variant>-` is prefixed when deployed. */
  name: safeString.min(1).max(200),
  /** `cron(minutes hours day-of-month month day-of-week year)` in UTC (Application Auto Scaling syntax). */
  schedule: safeString.min(1).max(256),
  min_capacity: capacity,
  max_capacity: capacity,
});
export type ScheduledAction = z.infer<typeof scheduledActionSchema>;

/**
 * An optional step scale-out for large surges, on the tracked metric (its statistic and period):
 * when the metric exceeds `threshold` in `evaluation_periods` consecutive periods, add instances
 * by the step the excess falls in (bounds relative to the threshold, as Application Auto Scaling's
 * MetricIntervalLowerBound / UpperBound).
 */
export const stepScaleOutSchema = z.object({
  threshold: z.number().min(0).max(1e9),
  period_s: z.number().int().min(10).max(3600),
  evaluation_periods: z.number().int().min(1).max(60),
  cooldown_s: seconds('cooldown'),
  adjustment_type: z.enum(['ChangeInCapacity', 'PercentChangeInCapacity']),
  steps: z
    .array(
      z.object({
        lower_bound: z.number().min(0).max(1e9),
        upper_bound: z.number().min(0).max(1e9).nullable(),
        adjustment: z.number().int().min(1).max(10_000),
      }),
    )
    .min(1)
    .max(20),
});
export type StepScaleOut = z.infer<typeof stepScaleOutSchema>;

