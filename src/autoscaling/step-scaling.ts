/**
 * Step scaling (Application Auto Scaling User Guide, "Step scaling policies"): which step an alarm
 * breach falls in, and the capacity that step asks for.
 *
 * - Steps are intervals of (metric - alarm threshold); above the threshold the lower bound is
 *   inclusive and the upper exclusive, below it the reverse.
 * - The metric is the alarm's breaching evaluated datapoints aggregated by MetricAggregationType
 *   (Average when absent). With no real datapoint (missing data treated as breaching, or a state
 *   set by SetAlarmState) there is no metric value: 0 is used, i.e. the step that touches the
 *   threshold on the alarm's breaching side.
 * - PercentChangeInCapacity rounds as AWS does: > 1 down, (0, 1) to 1, (-1, 0) to -1, < -1 up
 *   (toward zero); MinAdjustmentMagnitude then raises a smaller change to that magnitude.
 */
import { type Comparison, type Evaluation, isGreaterComparison } from './alarm-evaluation.js';

export const ADJUSTMENT_TYPES = ['ChangeInCapacity', 'ExactCapacity', 'PercentChangeInCapacity'] as const;
export type AdjustmentType = (typeof ADJUSTMENT_TYPES)[number];
export const AGGREGATIONS = ['Average', 'Minimum', 'Maximum'] as const;
export type Aggregation = (typeof AGGREGATIONS)[number];

export interface StepAdjustment {
  /** MetricIntervalLowerBound, relative to the threshold; undefined = -infinity. */
  lower: number | undefined;
  /** MetricIntervalUpperBound, relative to the threshold; undefined = +infinity. */
  upper: number | undefined;
  adjustment: number;
}

export interface StepRules {
  adjustmentType: AdjustmentType;
  steps: readonly StepAdjustment[];
  minAdjustmentMagnitude: number | undefined;
  aggregation: Aggregation;
}

/** The alarm a step policy is attached to, as far as step selection needs it. */
export interface StepAlarm {
  threshold: number;
  comparison: Comparison;
}

/** metric - threshold: the breaching real datapoints aggregated (0 without any). */
export function stepDiff(
  evaluation: Evaluation | undefined,
  threshold: number,
  aggregation: Aggregation,
): number {
  const values = (evaluation?.evaluated ?? [])
    .filter((d) => d.breaching && d.value !== undefined)
    .map((d) => d.value as number);
  if (values.length === 0) return 0;
  const v =
    aggregation === 'Minimum'
      ? Math.min(...values)
      : aggregation === 'Maximum'
        ? Math.max(...values)
        : values.reduce((s, x) => s + x, 0) / values.length;
  return v - threshold;
}

/** Above the threshold the lower bound is inclusive and the upper exclusive; below, the reverse. */
export function inInterval(s: StepAdjustment, diff: number, above: boolean): boolean {
  const lo = s.lower ?? -Infinity;
  const hi = s.upper ?? Infinity;
  return above ? diff >= lo && diff < hi : diff > lo && diff <= hi;
}

export function applyAdjustment(rules: StepRules, base: number, adjustment: number): number {
  switch (rules.adjustmentType) {
    case 'ChangeInCapacity':
      return base + adjustment;
    case 'ExactCapacity':
      return adjustment;
    case 'PercentChangeInCapacity': {
      const raw = (base * adjustment) / 100;
      let change = raw > 0 ? Math.max(1, Math.floor(raw)) : raw < 0 ? Math.min(-1, Math.ceil(raw)) : 0;
      const min = rules.minAdjustmentMagnitude;
      if (min !== undefined && change !== 0 && Math.abs(change) < min) change = Math.sign(change) * min;
      return base + change;
    }
  }
}

/** The capacity the step the alarm's evaluation falls in asks for from `base`; undefined: no step. */
export function stepDesired(
  rules: StepRules,
  alarm: StepAlarm,
  evaluation: Evaluation | undefined,
  base: number,
): number | undefined {
  const diff = stepDiff(evaluation, alarm.threshold, rules.aggregation);
  const above = diff > 0 || (diff === 0 && isGreaterComparison(alarm.comparison));
  const chosen = rules.steps.find((s) => inInterval(s, diff, above));
  if (!chosen) return undefined;
  return applyAdjustment(rules, base, chosen.adjustment);
}
