/**
 * The alarms and step rules a plan's policy deploys (src/plan/policy-shape.ts), in the terms of
 * the shared Application Auto Scaling rules (src/autoscaling): what the simulator evaluates, and
 * what the emulator is configured with in the agreement tests.
 */
import {
  type EvaluationSpec,
  managedAlarmSpecs,
  PREDEFINED_METRICS,
  type StepRules,
} from '../autoscaling/index.js';
import { ALARM_TIMING, SCALING_METRIC_SHAPES } from '../plan/policy-shape.js';
import type { SimPolicy } from './types.js';

export function policyAlarms(policy: SimPolicy) {
  const tracked = SCALING_METRIC_SHAPES[policy.metric];
  const predefined = PREDEFINED_METRICS[tracked.predefinedMetricType];
  const trackingHigh: EvaluationSpec = managedAlarmSpecs(policy.targetValue, predefined.timing).high;
  const scaleInAlarm: EvaluationSpec = {
    ...ALARM_TIMING.scaleIn,
    threshold: policy.scaleInThreshold,
    comparison: 'LessThanOrEqualToThreshold',
    treatMissingData: 'breaching',
  };
  // One step: at or below the threshold (upper bound 0 relative to it) -> -1 instance.
  const scaleInRules: StepRules = {
    adjustmentType: 'ChangeInCapacity',
    steps: [{ lower: undefined, upper: 0, adjustment: -1 }],
    minAdjustmentMagnitude: undefined,
    aggregation: 'Maximum',
  };
  const s = policy.stepScaleOut;
  // Step scale-out: the metric above the threshold in evaluation_periods of evaluation_periods;
  // missing data not evaluated (the alarm's default).
  const stepOut = s && {
    alarm: {
      periodS: s.period_s,
      evaluationPeriods: s.evaluation_periods,
      datapointsToAlarm: s.evaluation_periods,
      threshold: s.threshold,
      comparison: 'GreaterThanThreshold',
      treatMissingData: 'missing',
    } satisfies EvaluationSpec,
    rules: {
      adjustmentType: s.adjustment_type,
      steps: s.steps.map((x) => ({
        lower: x.lower_bound,
        upper: x.upper_bound ?? undefined,
        adjustment: x.adjustment,
      })),
      minAdjustmentMagnitude: undefined,
      aggregation: 'Maximum',
    } satisfies StepRules,
    cooldownS: s.cooldown_s,
  };
  return {
    tracked,
    trackedStatistic: predefined.statistic,
    trackingHigh,
    scaleInAlarm,
    scaleInRules,
    stepOut,
  };
}
