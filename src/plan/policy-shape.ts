/**
 * The deployed policy shape: the one definition of what
 * a measured plan deploys. The CDK constructs (infra/lib) build their resources from
 * `expectedPolicyShape`; drift and validate diff `flattenPolicyShape` of it against what AWS
 * reports. Pure: names and numbers come from the plan and the model's endpoint/variant only.
 */
import type { PlanArtifact, ScalingMetric } from '../model/index.js';
import { scheduledActionsOf, stepScaleOutOf, UsageError } from '../model/index.js';

/** Which endpoint the shape is for. */
export interface PolicyTarget {
  modelName: string;
  endpoint: string;
  variant: string;
}

export type ComparisonOperator =
  | 'GreaterThanThreshold'
  | 'GreaterThanOrEqualToThreshold'
  | 'LessThanThreshold'
  | 'LessThanOrEqualToThreshold';

export type TreatMissingData = 'breaching' | 'notBreaching' | 'ignore' | 'missing';

/**
 * The container's own service time (the container contract): FirstChunkLatency in ms, from
 * dequeue to the first audio byte, per endpoint variant, published by the container as CloudWatch
 * embedded metric format (no queueing in it, unlike ModelLatency). SageMaker does not tell a
 * container which endpoint it serves, so the deployment sets `env` in the model environment.
 */
export const SERVICE_METRICS = {
  namespace: 'Scalegate/Container',
  metricName: 'FirstChunkLatency',
  unit: 'Milliseconds',
  env: { endpoint: 'SCALEGATE_ENDPOINT_NAME', variant: 'SCALEGATE_VARIANT_NAME' },
} as const;

/** The model environment that names the dimensions of the container's service-time metric. */
export const serviceMetricsEnvironment = (endpoint: string, variant: string): Record<string, string> => ({
  [SERVICE_METRICS.env.endpoint]: endpoint,
  [SERVICE_METRICS.env.variant]: variant,
});

/** A CloudWatch alarm on one metric of the endpoint variant (AWS/SageMaker, or the container's own). */
export interface AlarmShape {
  alarmName: string;
  namespace: 'AWS/SageMaker' | typeof SERVICE_METRICS.namespace;
  metricName: string;
  /** Always EndpointName + VariantName, in that order. */
  dimensions: { EndpointName: string; VariantName: string };
  /** Exactly one of statistic / extendedStatistic is set. */
  statistic: 'Maximum' | 'Sum' | 'Average' | null;
  extendedStatistic: string | null;
  periodS: number;
  evaluationPeriods: number;
  datapointsToAlarm: number;
  threshold: number;
  comparisonOperator: ComparisonOperator;
  treatMissingData: TreatMissingData;
  /** One line for the alarm description: what it means and where the number comes from. */
  description: string;
}

/**
 * How each metric a plan can track is deployed. The plan's `scaling_target_value` and
 * `scale_in_threshold` are in the metric's own units, so every alarm on the tracked metric uses
 * the statistic and period its predefined target-tracking metric uses:
 * - ConcurrentRequestsPerModel: target tracking on the high-resolution predefined metric
 *   (AWS/SageMaker ConcurrentRequestsPerModel, Maximum, published every 10 s); the scalegate
 *   alarms read it at 60 s with Maximum, which keeps every 10 s peak of the minute.
 * - InvocationsPerInstance: target tracking on the classic predefined metric
 *   SageMakerVariantInvocationsPerInstance: AWS/SageMaker InvocationsPerInstance, statistic Sum,
 *   1-minute periods. SageMaker publishes 1/numberOfInstances per request (SageMaker API
 *   Reference, ScalingPolicyMetric), so a minute's Sum is the invocations per minute per
 *   instance, the unit AWS's target value is in ("SageMakerVariantInvocationsPerInstance =
 *   (MAX_RPS * SAFETY_FACTOR) * 60", SageMaker Developer Guide, load testing your auto scaling
 *   configuration). Any other statistic or period would compare the threshold with another
 *   number.
 */
export const SCALING_METRIC_SHAPES = {
  ConcurrentRequestsPerModel: {
    predefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
    metricName: 'ConcurrentRequestsPerModel',
    statistic: 'Maximum',
    /** How descriptions name the metric (with its statistic). */
    label: 'ConcurrentRequestsPerModel (Maximum)',
    /** The dashboard's graph of the tracked metric. */
    graphTitle: 'Concurrent requests per model (Maximum) vs the measured thresholds',
    graphLabel: 'ConcurrentRequestsPerModel max',
  },
  InvocationsPerInstance: {
    predefinedMetricType: 'SageMakerVariantInvocationsPerInstance',
    metricName: 'InvocationsPerInstance',
    statistic: 'Sum',
    label: 'InvocationsPerInstance (Sum per minute: invocations per minute per instance)',
    graphTitle: 'Invocations per instance (Sum per minute) vs the measured thresholds',
    graphLabel: 'InvocationsPerInstance per minute',
  },
} as const satisfies Record<
  ScalingMetric,
  {
    predefinedMetricType: string;
    metricName: string;
    statistic: 'Maximum' | 'Sum';
    label: string;
    graphTitle: string;
    graphLabel: string;
  }
>;

export type PredefinedScalingMetricType =
  (typeof SCALING_METRIC_SHAPES)[ScalingMetric]['predefinedMetricType'];

/** One scheduled action on the scalable target (Application Auto Scaling PutScheduledAction). */
export interface ScheduledActionShape {
  /** `scalegate-<endpoint>-<variant>-<the plan's name>`. */
  scheduledActionName: string;
  /** `cron(...)`, `rate(...)` or `at(...)`, in `timezone`. */
  schedule: string;
  timezone: 'UTC';
  minCapacity: number;
  maxCapacity: number;
}

/** One step of a step policy, bounds relative to the alarm's threshold (null: unbounded above). */
export interface StepShape {
  metricIntervalLowerBound: number;
  metricIntervalUpperBound: number | null;
  scalingAdjustment: number;
}

/** The optional step scale-out for large surges: a step policy on the tracked metric, and its alarm. */
export interface StepScaleOutShape {
  policyName: string;
  policyType: 'StepScaling';
  adjustmentType: 'ChangeInCapacity' | 'PercentChangeInCapacity';
  steps: StepShape[];
  cooldownS: number;
  /** The busiest evaluated period picks the step (as the scale-in policy). */
  metricAggregationType: 'Maximum';
  /** The tracked metric with its statistic, over the plan's period, > threshold in every evaluated period. */
  alarm: AlarmShape;
}

export interface PolicyShape {
  target: PolicyTarget;
  /** The metric the plan chose (deployable.scaling_metric): the scale-out, scale-in and above-target alarms' metric. */
  scalingMetric: ScalingMetric;
  scalableTarget: {
    serviceNamespace: 'sagemaker';
    resourceId: string;
    scalableDimension: 'sagemaker:variant:DesiredInstanceCount';
    minCapacity: number;
    maxCapacity: number;
    /** Deployed explicitly false: a deploy also clears a freeze an aborted run left behind. */
    suspendedState: {
      dynamicScalingInSuspended: false;
      dynamicScalingOutSuspended: false;
      scheduledScalingSuspended: false;
    };
  };
  scaleOut: {
    policyName: string;
    policyType: 'TargetTrackingScaling';
    predefinedMetricType: PredefinedScalingMetricType;
    /** In the tracked metric's own units. */
    targetValue: number;
    scaleOutCooldownS: number;
    disableScaleIn: true;
  };
  scaleIn: {
    policyName: string;
    policyType: 'StepScaling';
    adjustmentType: 'ChangeInCapacity';
    /** One step: metric at or below the threshold (upper bound 0 relative to it) -> -1 instance. */
    scalingAdjustment: -1;
    metricIntervalUpperBound: 0;
    cooldownS: number;
    /**
     * How the policy aggregates the alarm's datapoints (each already the alarm's statistic of one
     * period) to pick a step; AWS allows Average | Minimum | Maximum (default Average). Maximum
     * for both metrics: the busiest evaluated period (Maximum in flight, or the largest
     * per-minute Sum of invocations per instance), in the threshold's own units. With one step
     * bounded above at the threshold and all 15 of 15 periods at or below it, every aggregation
     * picks the same step; Maximum keeps the choice on the busiest minute if steps are added.
     */
    metricAggregationType: 'Maximum';
    alarm: AlarmShape;
  };
  /** The plan's scheduled actions (none in a plan made without a tune). */
  scheduledActions: ScheduledActionShape[];
  /** The plan's step scale-out; null when it has none. */
  stepScaleOut: StepScaleOutShape | null;
  container: { environment: { MAX_QUEUE_DEPTH: string } };
  deployment: {
    instanceType: string;
    /** The image digest the plan was measured on: what the deployed image must be. */
    imageDigest: string;
    routingStrategy: 'LEAST_OUTSTANDING_REQUESTS';
  };
  alarms: {
    errors5xx: AlarmShape;
    queueSaturation: AlarmShape;
    concurrencyAboveTarget: AlarmShape;
    /** null when the plan has no measured TTFAB p95 at concurrency 1. */
    serviceTime: AlarmShape | null;
  };
}

/**
 * Alarm timing. Every choice is a constant here (or derived from the plan below), so validate
 * compares the deployed alarms with exactly what was synthesized.
 *
 * - Scale-in, 60 s x 15 of 15, Maximum: ConcurrentRequestsPerModel is published every 10 s; a
 *   60 s period with Maximum keeps every 10 s peak (the maximum of six maxima), so one busy
 *   moment in a minute keeps the fleet. Fifteen consecutive low minutes are what AWS target
 *   tracking itself requires before scaling in (its scale-in alarm is 15 x 1 min); we disable
 *   that one (DisableScaleIn) and keep its patience, because removing one of N instances raises
 *   the survivors' load by N/(N-1) and getting the instance back costs a whole T_total. Any
 *   single minute above the threshold resets the count (datapoints = periods). Missing data is
 *   breaching: an idle endpoint publishes nothing and must still scale in.
 *   For InvocationsPerInstance the same timing applies with Sum (its 60 s Sum is the unit of the
 *   threshold; see SCALING_METRIC_SHAPES).
 * - Concurrency above target, 60 s, Maximum > target for ceil(T_plan / 60) + 1 consecutive
 *   minutes (InvocationsPerInstance: Sum per 60 s > target; the alarm keeps its name): scale-out should bring concurrency back under the target within one T_plan; above it
 *   for longer means scale-out is failing or the fleet is at max_instances.
 * - 5XX (platform errors), Sum >= 1 in 3 of 5 minutes: a single transient error does not page.
 * - Queue saturation, Sum >= 1 in 2 of 3 minutes: rejected requests are users turned away.
 * - Service time, p95 of the container's FirstChunkLatency (dequeue to first audio byte) over
 *   5 min, 3 of 3: sustained, not a spike. Not ModelLatency: it includes the container's queue,
 *   so at a threshold measured at concurrency 1 it fires under normal load at the target.
 */
export const ALARM_TIMING = {
  scaleIn: { periodS: 60, evaluationPeriods: 15, datapointsToAlarm: 15 },
  errors5xx: { periodS: 60, evaluationPeriods: 5, datapointsToAlarm: 3 },
  queueSaturation: { periodS: 60, evaluationPeriods: 3, datapointsToAlarm: 2 },
  serviceTime: { periodS: 300, evaluationPeriods: 3, datapointsToAlarm: 3 },
  /** Period of the concurrency-above-target alarm; its periods come from T_plan. */
  concurrencyAboveTargetPeriodS: 60,
} as const;

/** Consecutive minutes above target that mean scale-out is not keeping up (see ALARM_TIMING). */
export const aboveTargetPeriods = (tPlanS: number): number =>
  Math.max(1, Math.ceil(tPlanS / ALARM_TIMING.concurrencyAboveTargetPeriodS) + 1);

/** `endpoint/<endpoint>/variant/<variant>`: the Application Auto Scaling resource id. */
export const scalableResourceId = (endpoint: string, variant: string): string =>
  `endpoint/${endpoint}/variant/${variant}`;

/**
 * Deterministic names, from the endpoint and variant (unique per region; alarm and policy names
 * are regional, so the same endpoint name in two regions does not collide).
 */
export function policyNames(endpoint: string, variant: string) {
  const base = `scalegate-${endpoint}-${variant}`;
  return {
    scaleOutPolicy: `${base}-scale-out`,
    scaleInPolicy: `${base}-scale-in`,
    scaleInAlarm: `${base}-scale-in`,
    errors5xxAlarm: `${base}-5xx`,
    queueSaturationAlarm: `${base}-queue-saturation`,
    concurrencyAboveTargetAlarm: `${base}-concurrency-above-target`,
    serviceTimeAlarm: `${base}-service-time`,
    stepScaleOutPolicy: `${base}-step-scale-out`,
    stepScaleOutAlarm: `${base}-step-scale-out`,
    /** Every scheduled action scalegate deploys on the variant starts with it. */
    scheduledActionPrefix: `${base}-`,
  };
}

/**
 * CloudFormation stack names of a model's deployment, in the order they are applied:
 * foundation (role, weights bucket) -> model cache (weights sync) -> endpoint. Calibration has
 * one stack of its own, which shares nothing with production's: the calibration endpoint (its
 * execution role is the CI-access stack's). `scalegate deploy` and the CDK app both use these, so
 * the CLI never has to synthesize to know what it deploys.
 */
export function stackNames(modelName: string) {
  const base = `scalegate-${modelName}`;
  return {
    foundation: `${base}-foundation`,
    modelCache: `${base}-model-cache`,
    endpoint: `${base}-endpoint`,
    calibration: `${base}-calibration`,
  };
}

/** The calibration copy of an endpoint, where pull requests are measured before they merge. */
export const calibrationEndpointName = (endpoint: string): string => `${endpoint}-calibration`;

/** ms -> the microseconds AWS/SageMaker ModelLatency is published in (integer). */
export const msToMicroseconds = (ms: number): number => Math.round(ms * 1000);

function sageMakerAlarm(
  target: PolicyTarget,
  fields: Omit<AlarmShape, 'namespace' | 'dimensions' | 'statistic' | 'extendedStatistic'> & {
    statistic?: AlarmShape['statistic'];
    extendedStatistic?: string;
  },
): AlarmShape {
  return {
    namespace: 'AWS/SageMaker',
    dimensions: { EndpointName: target.endpoint, VariantName: target.variant },
    ...fields,
    statistic: fields.statistic ?? null,
    extendedStatistic: fields.extendedStatistic ?? null,
  };
}

/**
 * What a plan deploys onto `target`. Throws UsageError when the plan has no deployable
 * CloudWatch threshold (no CloudWatch/client ratio was measured), since then there is nothing
 * measured to scale on.
 */
export function expectedPolicyShape(target: PolicyTarget, plan: PlanArtifact): PolicyShape {
  const d = plan.deployable;
  if (d.scaling_target_value === null || d.scale_in_threshold === null) {
    throw new UsageError(
      `the plan for ${target.modelName} has no deployable CloudWatch threshold (scaling_target_value is null: no CloudWatch/client ratio R was measured). Re-run \`scalegate qmax --model ${target.modelName}\` with the CloudWatch join on the sagemaker transport, then \`scalegate plan\`.`,
    );
  }
  const names = policyNames(target.endpoint, target.variant);
  const tPlanS = plan.derived.t_plan_s;
  const serviceTimeMs = d.service_time_alarm_ms;
  const scalingMetric = d.scaling_metric;
  const tracked = SCALING_METRIC_SHAPES[scalingMetric];

  return {
    target: { ...target },
    scalingMetric,
    scalableTarget: {
      serviceNamespace: 'sagemaker',
      resourceId: scalableResourceId(target.endpoint, target.variant),
      scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      minCapacity: d.min_instances,
      maxCapacity: d.max_instances,
      suspendedState: {
        dynamicScalingInSuspended: false,
        dynamicScalingOutSuspended: false,
        scheduledScalingSuspended: false,
      },
    },
    scaleOut: {
      policyName: names.scaleOutPolicy,
      policyType: 'TargetTrackingScaling',
      predefinedMetricType: tracked.predefinedMetricType,
      targetValue: d.scaling_target_value,
      scaleOutCooldownS: d.scale_out_cooldown_s,
      disableScaleIn: true,
    },
    scaleIn: {
      policyName: names.scaleInPolicy,
      policyType: 'StepScaling',
      adjustmentType: 'ChangeInCapacity',
      scalingAdjustment: -1,
      metricIntervalUpperBound: 0,
      cooldownS: d.scale_in_cooldown_s,
      metricAggregationType: 'Maximum',
      alarm: sageMakerAlarm(target, {
        alarmName: names.scaleInAlarm,
        metricName: tracked.metricName,
        statistic: tracked.statistic,
        ...ALARM_TIMING.scaleIn,
        threshold: d.scale_in_threshold,
        comparisonOperator: 'LessThanOrEqualToThreshold',
        treatMissingData: 'breaching',
        description: `scalegate ${target.modelName}: scale in by one instance when ${tracked.label} stays at or below ${d.scale_in_threshold} (plan scale_in_threshold) for ${ALARM_TIMING.scaleIn.evaluationPeriods} minutes; missing data (idle) counts as low.`,
      }),
    },
    scheduledActions: scheduledActionsOf(d).map((a) => ({
      scheduledActionName: `${names.scheduledActionPrefix}${a.name}`,
      schedule: a.schedule,
      timezone: 'UTC',
      minCapacity: a.min_capacity,
      maxCapacity: a.max_capacity,
    })),
    stepScaleOut: stepScaleOutShape(target, plan, names),
    container: { environment: { MAX_QUEUE_DEPTH: String(d.queue_max_depth) } },
    deployment: {
      instanceType: plan.fingerprint.instance_type,
      imageDigest: plan.fingerprint.image_digest,
      routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
    },
    alarms: {
      errors5xx: sageMakerAlarm(target, {
        alarmName: names.errors5xxAlarm,
        metricName: 'Invocation5XXErrors',
        statistic: 'Sum',
        ...ALARM_TIMING.errors5xx,
        threshold: 1,
        comparisonOperator: 'GreaterThanOrEqualToThreshold',
        treatMissingData: 'notBreaching',
        description: `scalegate ${target.modelName}: SageMaker returned 5XX errors in ${ALARM_TIMING.errors5xx.datapointsToAlarm} of ${ALARM_TIMING.errors5xx.evaluationPeriods} minutes.`,
      }),
      // Queue saturation: the container answers 503 queue_saturated, and SageMaker reports a
      // container's non-2xx answer to the caller as a ModelError, counted in InvocationModelErrors
      // (not in Invocation5XXErrors, which counts SageMaker's own 5XX). No AWS/SageMaker metric
      // carries the container's status code, so this alarm also counts the container's 400s
      // (malformed bodies) and crashes; under valid traffic a contract-following container's
      // only non-2xx answer is the 503, so a rise here with 5XX flat is saturation.
      queueSaturation: sageMakerAlarm(target, {
        alarmName: names.queueSaturationAlarm,
        metricName: 'InvocationModelErrors',
        statistic: 'Sum',
        ...ALARM_TIMING.queueSaturation,
        threshold: 1,
        comparisonOperator: 'GreaterThanOrEqualToThreshold',
        treatMissingData: 'notBreaching',
        description: `scalegate ${target.modelName}: the container rejected requests (503 queue_saturated at MAX_QUEUE_DEPTH=${d.queue_max_depth}, counted as InvocationModelErrors) in ${ALARM_TIMING.queueSaturation.datapointsToAlarm} of ${ALARM_TIMING.queueSaturation.evaluationPeriods} minutes.`,
      }),
      concurrencyAboveTarget: sageMakerAlarm(target, {
        alarmName: names.concurrencyAboveTargetAlarm,
        metricName: tracked.metricName,
        statistic: tracked.statistic,
        periodS: ALARM_TIMING.concurrencyAboveTargetPeriodS,
        evaluationPeriods: aboveTargetPeriods(tPlanS),
        datapointsToAlarm: aboveTargetPeriods(tPlanS),
        threshold: d.scaling_target_value,
        comparisonOperator: 'GreaterThanThreshold',
        treatMissingData: 'notBreaching',
        description: `scalegate ${target.modelName}: ${tracked.label} above the scaling target ${d.scaling_target_value} for longer than T_plan (${tPlanS} s) + 1 min: scale-out is not keeping up or the fleet is at max_instances (${d.max_instances}).`,
      }),
      serviceTime:
        serviceTimeMs === null
          ? null
          : {
              ...sageMakerAlarm(target, {
                alarmName: names.serviceTimeAlarm,
                metricName: SERVICE_METRICS.metricName,
                extendedStatistic: 'p95',
                ...ALARM_TIMING.serviceTime,
                threshold: serviceTimeMs,
                comparisonOperator: 'GreaterThanThreshold',
                treatMissingData: 'notBreaching',
                description: `scalegate ${target.modelName}: the container's own service time (FirstChunkLatency p95, dequeue to first audio byte, no queueing) above the measured TTFAB p95 at concurrency 1 (${serviceTimeMs} ms; the service time, not the SLO): service itself degraded.`,
              }),
              namespace: SERVICE_METRICS.namespace,
            },
    },
  };
}

/** The step scale-out of a plan that has one: the steps as deployed and the alarm that invokes them. */
function stepScaleOutShape(
  target: PolicyTarget,
  plan: PlanArtifact,
  names: ReturnType<typeof policyNames>,
): StepScaleOutShape | null {
  const step = stepScaleOutOf(plan.deployable);
  if (!step) return null;
  const tracked = SCALING_METRIC_SHAPES[plan.deployable.scaling_metric];
  return {
    policyName: names.stepScaleOutPolicy,
    policyType: 'StepScaling',
    adjustmentType: step.adjustment_type,
    steps: step.steps.map((s) => ({
      metricIntervalLowerBound: s.lower_bound,
      metricIntervalUpperBound: s.upper_bound,
      scalingAdjustment: s.adjustment,
    })),
    cooldownS: step.cooldown_s,
    metricAggregationType: 'Maximum',
    alarm: sageMakerAlarm(target, {
      alarmName: names.stepScaleOutAlarm,
      metricName: tracked.metricName,
      statistic: tracked.statistic,
      periodS: step.period_s,
      evaluationPeriods: step.evaluation_periods,
      datapointsToAlarm: step.evaluation_periods,
      threshold: step.threshold,
      comparisonOperator: 'GreaterThanThreshold',
      treatMissingData: 'notBreaching',
      description: `scalegate ${target.modelName}: step scale-out when ${tracked.label} is above ${step.threshold} for ${step.evaluation_periods} x ${step.period_s} s (the tuned policy's step scale-out for large surges).`,
    }),
  };
}

/** Steps as one comparable value: `lower..upper:+adjustment` joined by `; ` (upper empty: unbounded). */
export const stepsValue = (steps: readonly StepShape[]): string =>
  steps
    .map(
      (s) =>
        `${s.metricIntervalLowerBound}..${s.metricIntervalUpperBound ?? ''}:${s.scalingAdjustment > 0 ? '+' : ''}${s.scalingAdjustment}`,
    )
    .join('; ');

export type ShapeValue = string | number | boolean;

export interface ShapeRow {
  parameter: string;
  value: ShapeValue;
}

/** `EndpointName=x,VariantName=y`: dimensions as one comparable value. */
export const dimensionsValue = (dimensions: Record<string, string>): string =>
  Object.entries(dimensions)
    .map(([name, value]) => `${name}=${value}`)
    .join(',');

function alarmRows(prefix: string, alarm: AlarmShape): ShapeRow[] {
  return [
    { parameter: `${prefix}.name`, value: alarm.alarmName },
    { parameter: `${prefix}.namespace`, value: alarm.namespace },
    { parameter: `${prefix}.metric`, value: alarm.metricName },
    { parameter: `${prefix}.dimensions`, value: dimensionsValue(alarm.dimensions) },
    { parameter: `${prefix}.statistic`, value: alarm.statistic ?? (alarm.extendedStatistic as string) },
    { parameter: `${prefix}.period_s`, value: alarm.periodS },
    { parameter: `${prefix}.evaluation_periods`, value: alarm.evaluationPeriods },
    { parameter: `${prefix}.datapoints_to_alarm`, value: alarm.datapointsToAlarm },
    { parameter: `${prefix}.threshold`, value: alarm.threshold },
    { parameter: `${prefix}.comparison`, value: alarm.comparisonOperator },
    { parameter: `${prefix}.missing_data`, value: alarm.treatMissingData },
  ];
}

/** One scheduled action's rows, `scheduled_action.<deployed name>.{schedule, timezone, min_capacity, max_capacity}`. */
export function scheduledActionRows(a: ScheduledActionShape): ShapeRow[] {
  const p = `scheduled_action.${a.scheduledActionName}`;
  return [
    { parameter: `${p}.schedule`, value: a.schedule },
    { parameter: `${p}.timezone`, value: a.timezone },
    { parameter: `${p}.min_capacity`, value: a.minCapacity },
    { parameter: `${p}.max_capacity`, value: a.maxCapacity },
  ];
}

/**
 * The shape as ordered `{parameter, value}` rows with stable parameter names: what validate and
 * drift compare, one row per deployed parameter. Names (all snake_case):
 * scalable_target.{resource_id, scalable_dimension, min_capacity, max_capacity,
 *   suspended.dynamic_scaling_in, suspended.dynamic_scaling_out, suspended.scheduled_scaling},
 * scale_out.{policy_name, policy_type, metric, target_value, cooldown_s, disable_scale_in},
 * scale_in.{policy_name, policy_type, adjustment_type, adjustment, metric_interval_upper_bound,
 *   cooldown_s, metric_aggregation}, scale_in.alarm.*, container.max_queue_depth,
 * deployment.{instance_type, image_digest, routing_strategy}, and alarm rows
 * (`<prefix>.{name, namespace, metric, dimensions, statistic, period_s, evaluation_periods,
 * datapoints_to_alarm, threshold, comparison, missing_data}`) for scale_in.alarm,
 * alarms.errors_5xx, alarms.queue_saturation, alarms.concurrency_above_target and (when the plan
 * has it) alarms.service_time; then, for a tuned plan, `scheduled_action.<name>.*` per scheduled
 * action and step_scale_out.{policy_name, policy_type, adjustment_type, steps, cooldown_s,
 * metric_aggregation} with step_scale_out.alarm.*.
 */
export function flattenPolicyShape(shape: PolicyShape): ShapeRow[] {
  const t = shape.scalableTarget;
  const rows: ShapeRow[] = [
    { parameter: 'scalable_target.resource_id', value: t.resourceId },
    { parameter: 'scalable_target.scalable_dimension', value: t.scalableDimension },
    { parameter: 'scalable_target.min_capacity', value: t.minCapacity },
    { parameter: 'scalable_target.max_capacity', value: t.maxCapacity },
    {
      parameter: 'scalable_target.suspended.dynamic_scaling_in',
      value: t.suspendedState.dynamicScalingInSuspended,
    },
    {
      parameter: 'scalable_target.suspended.dynamic_scaling_out',
      value: t.suspendedState.dynamicScalingOutSuspended,
    },
    {
      parameter: 'scalable_target.suspended.scheduled_scaling',
      value: t.suspendedState.scheduledScalingSuspended,
    },
    { parameter: 'scale_out.policy_name', value: shape.scaleOut.policyName },
    { parameter: 'scale_out.policy_type', value: shape.scaleOut.policyType },
    { parameter: 'scale_out.metric', value: shape.scaleOut.predefinedMetricType },
    { parameter: 'scale_out.target_value', value: shape.scaleOut.targetValue },
    { parameter: 'scale_out.cooldown_s', value: shape.scaleOut.scaleOutCooldownS },
    { parameter: 'scale_out.disable_scale_in', value: shape.scaleOut.disableScaleIn },
    { parameter: 'scale_in.policy_name', value: shape.scaleIn.policyName },
    { parameter: 'scale_in.policy_type', value: shape.scaleIn.policyType },
    { parameter: 'scale_in.adjustment_type', value: shape.scaleIn.adjustmentType },
    { parameter: 'scale_in.adjustment', value: shape.scaleIn.scalingAdjustment },
    { parameter: 'scale_in.metric_interval_upper_bound', value: shape.scaleIn.metricIntervalUpperBound },
    { parameter: 'scale_in.cooldown_s', value: shape.scaleIn.cooldownS },
    { parameter: 'scale_in.metric_aggregation', value: shape.scaleIn.metricAggregationType },
    ...alarmRows('scale_in.alarm', shape.scaleIn.alarm),
    { parameter: 'container.max_queue_depth', value: Number(shape.container.environment.MAX_QUEUE_DEPTH) },
    { parameter: 'deployment.instance_type', value: shape.deployment.instanceType },
    { parameter: 'deployment.image_digest', value: shape.deployment.imageDigest },
    { parameter: 'deployment.routing_strategy', value: shape.deployment.routingStrategy },
    ...alarmRows('alarms.errors_5xx', shape.alarms.errors5xx),
    ...alarmRows('alarms.queue_saturation', shape.alarms.queueSaturation),
    ...alarmRows('alarms.concurrency_above_target', shape.alarms.concurrencyAboveTarget),
  ];
  if (shape.alarms.serviceTime) rows.push(...alarmRows('alarms.service_time', shape.alarms.serviceTime));
  for (const a of shape.scheduledActions) rows.push(...scheduledActionRows(a));
  const step = shape.stepScaleOut;
  if (step) {
    rows.push(
      { parameter: 'step_scale_out.policy_name', value: step.policyName },
      { parameter: 'step_scale_out.policy_type', value: step.policyType },
      { parameter: 'step_scale_out.adjustment_type', value: step.adjustmentType },
      { parameter: 'step_scale_out.steps', value: stepsValue(step.steps) },
      { parameter: 'step_scale_out.cooldown_s', value: step.cooldownS },
      { parameter: 'step_scale_out.metric_aggregation', value: step.metricAggregationType },
      ...alarmRows('step_scale_out.alarm', step.alarm),
    );
  }
  return rows;
}
