/**
 * The observability alarms of an inference-component plan: what the CDK app (and `scalegate/cdk`)
 * puts beside the component's scaling, every number from the plan's `inference_component` block.
 * Pure. Per-component SageMaker metrics carry the `InferenceComponentName` dimension:
 *
 * - no capacity: `NoCapacityInvocationFailures` Sum >= 1 per minute. A component that keeps a
 *   copy (min copies >= 1) should never refuse for want of one: 1 of 1. A component that scales
 *   to zero refuses every request during a wake, so only refusals in more consecutive minutes
 *   than the plan's wake spans (ceil(wake / 60 s) + 1) mean the wake is not completing.
 * - copies above target: `ConcurrentRequestsPerCopy` Maximum above the copy target for longer
 *   than the cold path's T_plan + 1 min (a copy that needs a new instance is the slowest way out):
 *   copy scale-out is not keeping up, or the component is at max copies.
 * - model errors: `InvocationModelErrors` Sum >= 1 in 2 of 3 minutes (the container's 503
 *   queue_saturated at the plan's MAX_QUEUE_DEPTH is counted there, as on a variant).
 * - service time: the container's own FirstChunkLatency p95 (dequeue to first audio byte, no
 *   queueing), on the dimensions the container publishes it with (the endpoint and the variant
 *   hosting the component), above the measured TTFAB p95 at concurrency 1; absent when the plan
 *   has none. Not ModelLatency: it includes the container's queue.
 */
import type { InferenceComponentPlan, PlanArtifact } from '../model/index.js';
import { IC_DIMENSION, IC_NAMESPACE } from '../model/inference-component.js';
import { ALARM_TIMING, aboveTargetPeriods, SERVICE_METRICS } from './policy-shape.js';

/** One alarm on one metric: the shape CDK, Terraform and readers build from. */
export interface IcObservabilityAlarm {
  alarmName: string;
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  /** Exactly one of statistic / extendedStatistic is set. */
  statistic: 'Maximum' | 'Sum' | null;
  extendedStatistic: string | null;
  periodS: number;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  threshold: number;
  comparisonOperator: 'GreaterThanOrEqualToThreshold' | 'GreaterThanThreshold';
  treatMissingData: 'notBreaching';
  description: string;
}

export interface IcObservabilityAlarms {
  noCapacity: IcObservabilityAlarm;
  copiesAboveTarget: IcObservabilityAlarm;
  modelErrors: IcObservabilityAlarm;
  serviceTime: IcObservabilityAlarm | null;
}

/** The per-copy concurrency the copy target tracks (the predefined metric's underlying metric). */
export const IC_CONCURRENCY_METRIC = 'ConcurrentRequestsPerCopy';

/** Alarm names: `scalegate-<endpoint>-<component>-<what>`, beside the plan's `-copies`, `-wake`, `-idle`. */
export function icAlarmNames(ic: Pick<InferenceComponentPlan, 'endpoint' | 'component_name'>) {
  const base = `scalegate-${ic.endpoint}-${ic.component_name}`;
  return {
    noCapacity: `${base}-no-capacity`,
    copiesAboveTarget: `${base}-copies-above-target`,
    modelErrors: `${base}-model-errors`,
    serviceTime: `${base}-service-time`,
  };
}

/** Consecutive minutes of no-capacity refusals that mean something is wrong (see the module doc). */
export function noCapacityPeriods(ic: InferenceComponentPlan): number {
  const z = ic.scale_to_zero;
  return z ? Math.ceil(z.wake_s / 60) + 1 : 1;
}

export function icObservabilityAlarms(modelName: string, plan: PlanArtifact): IcObservabilityAlarms {
  const ic = plan.inference_component;
  if (!ic) throw new Error(`the plan for ${modelName} has no inference_component block`);
  const names = icAlarmNames(ic);
  const dims = { [IC_DIMENSION]: ic.component_name };
  const perIc = {
    namespace: IC_NAMESPACE,
    dimensions: dims,
    extendedStatistic: null,
    treatMissingData: 'notBreaching' as const,
  };
  const wake = ic.scale_to_zero;
  const noCapacityN = noCapacityPeriods(ic);
  const coldS = ic.paths.cold.t_plan_s;
  const aboveN = aboveTargetPeriods(coldS);
  const serviceMs = plan.deployable.service_time_alarm_ms;
  return {
    noCapacity: {
      ...perIc,
      alarmName: names.noCapacity,
      metricName: 'NoCapacityInvocationFailures',
      statistic: 'Sum',
      periodS: 60,
      evaluationPeriods: noCapacityN,
      datapointsToAlarm: noCapacityN,
      threshold: 1,
      comparisonOperator: 'GreaterThanOrEqualToThreshold',
      description: wake
        ? `scalegate ${modelName}: requests refused for no capacity in ${noCapacityN} consecutive minutes, longer than the plan's wake from zero (${wake.wake_s} s, ${wake.wake_origin}): the wake is not completing.`
        : `scalegate ${modelName}: requests refused for no capacity although the plan keeps at least ${ic.copies.min} copies.`,
    },
    copiesAboveTarget: {
      ...perIc,
      alarmName: names.copiesAboveTarget,
      metricName: IC_CONCURRENCY_METRIC,
      statistic: 'Maximum',
      periodS: ALARM_TIMING.concurrencyAboveTargetPeriodS,
      evaluationPeriods: aboveN,
      datapointsToAlarm: aboveN,
      threshold: ic.copy_target.value,
      comparisonOperator: 'GreaterThanThreshold',
      description: `scalegate ${modelName}: concurrent requests per copy above the copy target ${ic.copy_target.value} (${ic.copy_target.origin}) for longer than the cold path's T_plan (${coldS} s, ${ic.paths.cold.origin}) + 1 min: copy scale-out is not keeping up or the component is at max copies (${ic.copies.max}).`,
    },
    modelErrors: {
      ...perIc,
      alarmName: names.modelErrors,
      metricName: 'InvocationModelErrors',
      statistic: 'Sum',
      ...ALARM_TIMING.queueSaturation,
      threshold: 1,
      comparisonOperator: 'GreaterThanOrEqualToThreshold',
      description: `scalegate ${modelName}: the component's container rejected requests (503 queue_saturated at MAX_QUEUE_DEPTH=${plan.deployable.queue_max_depth}, counted as InvocationModelErrors) in ${ALARM_TIMING.queueSaturation.datapointsToAlarm} of ${ALARM_TIMING.queueSaturation.evaluationPeriods} minutes.`,
    },
    serviceTime:
      serviceMs === null
        ? null
        : {
            alarmName: names.serviceTime,
            namespace: SERVICE_METRICS.namespace,
            metricName: SERVICE_METRICS.metricName,
            dimensions: { EndpointName: ic.endpoint, VariantName: ic.variant },
            statistic: null,
            extendedStatistic: 'p95',
            ...ALARM_TIMING.serviceTime,
            threshold: serviceMs,
            comparisonOperator: 'GreaterThanThreshold',
            treatMissingData: 'notBreaching',
            description: `scalegate ${modelName}: the container's own service time (FirstChunkLatency p95, dequeue to first audio byte, no queueing) above the measured TTFAB p95 at concurrency 1 (${serviceMs} ms): service itself degraded (copies sharing a device slow each other, or the model degraded).`,
          },
  };
}
