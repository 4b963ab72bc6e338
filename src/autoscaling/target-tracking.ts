/**
 * Target tracking (Application Auto Scaling User Guide, "How target tracking scaling works"): the
 * two alarms a policy creates and owns, and the capacity it asks for when one of them fires.
 *
 * The managed alarms, per metric:
 * - Standard metrics (SageMakerVariantInvocationsPerInstance, customized metrics): 1-minute
 *   periods, AlarmHigh on 3 datapoints, AlarmLow on 15 datapoints (the alarms AWS creates:
 *   "3 datapoints within 3 minutes", "15 datapoints within 15 minutes").
 * - SageMakerVariantConcurrentRequestsPerModelHighResolution: the SageMaker Developer Guide
 *   ("Define a scaling policy", high-resolution predefined metric) says these metrics emit every
 *   10 seconds, so the policy "reacts by scaling out much more quickly", while "as the traffic to
 *   your models decreases, your policy scales in at the same speed as it would for standard
 *   metrics". Hence AWS/SageMaker ConcurrentRequestsPerModel, statistic Maximum, 10 s periods:
 *   AlarmHigh on 3 datapoints (30 s) and AlarmLow on 90 datapoints (the same 15 minutes).
 * AlarmHigh is `> target`; AlarmLow is `< 90 % of the target` ("scale in only when the metric is
 * ... typically more than 10 % below the target"). Neither sets TreatMissingData (missing).
 *
 * Capacity: proportional to the metric, enough for it to come back to the target,
 * `ceil(base x metric / target)`, at least one more on scale-out and at least one fewer on
 * scale-in; without a metric value, +1 / -1.
 */
import type { Evaluation, EvaluationSpec } from './alarm-evaluation.js';

export const PREDEFINED_METRIC_TYPES = [
  'SageMakerVariantInvocationsPerInstance',
  'SageMakerVariantConcurrentRequestsPerModelHighResolution',
  'SageMakerInferenceComponentInvocationsPerCopy',
  'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution',
] as const;
export type PredefinedMetricType = (typeof PREDEFINED_METRIC_TYPES)[number];

/** The period and datapoints of a policy's managed alarms. */
export interface ManagedAlarmTiming {
  periodS: number;
  highDatapoints: number;
  lowDatapoints: number;
}

/**
 * The metric a predefined type stands for: a variant's (dimensions EndpointName, VariantName) or an
 * inference component's (dimension InferenceComponentName), scaling that resource's capacity.
 */
export interface PredefinedMetric {
  resource: 'variant' | 'inference-component';
  namespace: 'AWS/SageMaker';
  metricName: string;
  statistic: 'Maximum' | 'Sum';
  timing: ManagedAlarmTiming;
}

export const PREDEFINED_METRICS: Record<PredefinedMetricType, PredefinedMetric> = {
  SageMakerVariantConcurrentRequestsPerModelHighResolution: {
    resource: 'variant',
    namespace: 'AWS/SageMaker',
    metricName: 'ConcurrentRequestsPerModel',
    statistic: 'Maximum',
    timing: { periodS: 10, highDatapoints: 3, lowDatapoints: 90 },
  },
  SageMakerVariantInvocationsPerInstance: {
    resource: 'variant',
    namespace: 'AWS/SageMaker',
    metricName: 'InvocationsPerInstance',
    statistic: 'Sum',
    timing: { periodS: 60, highDatapoints: 3, lowDatapoints: 15 },
  },
  // The inference-component counterparts: the same timings, per copy instead of per instance.
  SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution: {
    resource: 'inference-component',
    namespace: 'AWS/SageMaker',
    metricName: 'ConcurrentRequestsPerCopy',
    statistic: 'Maximum',
    timing: { periodS: 10, highDatapoints: 3, lowDatapoints: 90 },
  },
  SageMakerInferenceComponentInvocationsPerCopy: {
    resource: 'inference-component',
    namespace: 'AWS/SageMaker',
    metricName: 'InvocationsPerCopy',
    statistic: 'Sum',
    timing: { periodS: 60, highDatapoints: 3, lowDatapoints: 15 },
  },
};

/** A CustomizedMetricSpecification's managed alarms: standard 1-minute timing. */
export const CUSTOMIZED_METRIC_TIMING: ManagedAlarmTiming = {
  periodS: 60,
  highDatapoints: 3,
  lowDatapoints: 15,
};

/** AlarmLow's threshold as a share of the target value. */
export const SCALE_IN_FRACTION = 0.9;

/** The evaluation of AlarmHigh and AlarmLow for `targetValue`. */
export function managedAlarmSpecs(
  targetValue: number,
  timing: ManagedAlarmTiming,
): { high: EvaluationSpec; low: EvaluationSpec } {
  return {
    high: {
      periodS: timing.periodS,
      evaluationPeriods: timing.highDatapoints,
      datapointsToAlarm: timing.highDatapoints,
      threshold: targetValue,
      comparison: 'GreaterThanThreshold',
      treatMissingData: 'missing',
    },
    low: {
      periodS: timing.periodS,
      evaluationPeriods: timing.lowDatapoints,
      datapointsToAlarm: timing.lowDatapoints,
      threshold: targetValue * SCALE_IN_FRACTION,
      comparison: 'LessThanThreshold',
      treatMissingData: 'missing',
    },
  };
}

/** Scale-out from `base`: enough capacity for `metric` to come back to the target, at least +1. */
export function trackingScaleOut(base: number, metric: number | undefined, targetValue: number): number {
  return metric === undefined ? base + 1 : Math.max(base + 1, Math.ceil((base * metric) / targetValue));
}

/** Scale-in from `base`: the proportional capacity, at least one fewer. */
export function trackingScaleIn(base: number, metric: number | undefined, targetValue: number): number {
  return metric === undefined ? base - 1 : Math.min(base - 1, Math.ceil((base * metric) / targetValue));
}

/** The newest real datapoint behind an alarm's state, if any (the metric target tracking scales on). */
export function latestEvaluatedValue(evaluation: Evaluation | undefined): number | undefined {
  if (!evaluation) return undefined;
  return evaluation.evaluated.find((d) => d.value !== undefined)?.value ?? evaluation.recent[0]?.value;
}
