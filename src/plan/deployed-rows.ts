/**
 * The deployed scaling policy of one SageMaker variant as rows: what src/aws/policy.ts read from
 * Application Auto Scaling, CloudWatch and SageMaker, mapped to the same `{parameter, value}` rows
 * as `flattenPolicyShape` (AWS's documented defaults for fields a resource leaves unset), so
 * src/plan/policy-diff.ts can diff them; which policies and alarms no shape declares; which
 * alarms start a scale-out. Pure.
 */
import type {
  ScalableTarget,
  ScalingPolicy,
  ScheduledAction,
} from '@aws-sdk/client-application-auto-scaling';
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import type { ScaleOutAlarmTiming } from '../analysis/ttotal.js';
import { imageDigestOf } from '../model/fingerprint.js';
import { type DeployedRow, type RowValue, SCALE_IN_ALARM_INVOKES_POLICY } from './policy-diff.js';
import { dimensionsValue, policyNames, scheduledActionRows, stepsValue } from './policy-shape.js';

/** AWS defaults for fields a deployed resource may leave unset (API references). */
export const AWS_DEFAULTS = {
  /** TargetTrackingScalingPolicyConfiguration.DisableScaleIn */
  disableScaleIn: false,
  /** StepScalingPolicyConfiguration.MetricAggregationType */
  metricAggregationType: 'Average',
  /** PutMetricAlarm.TreatMissingData */
  treatMissingData: 'missing',
  /** ProductionVariant.RoutingConfig absent: SageMaker routes randomly. */
  routingStrategy: 'RANDOM',
} as const;

/** The endpoint's side of a deployment, as DescribeEndpoint / DescribeEndpointConfig / DescribeModel report it. */
export interface DeployedVariantWithRouting {
  instanceType: string;
  /** The image as the model specifies it (tag or digest form). */
  image: string;
  environment: Record<string, string>;
  routingStrategy: string;
}

/** Everything deployed for one variant that the policy shape describes, as AWS reports it. */
export interface DeployedPolicyState {
  endpoint: string;
  variant: string;
  resourceId: string;
  /** null when the endpoint could not be described (`endpointError` says why). */
  capacity: {
    endpointStatus: string;
    desired: number | null;
    current: number | null;
    failureReason: string | null;
  } | null;
  deployment: DeployedVariantWithRouting | null;
  endpointError: string | null;
  scalableTarget: ScalableTarget | null;
  /** Every scaling policy on the variant's scalable target. */
  policies: ScalingPolicy[];
  /**
   * Alarms by name: the ones the shape names, the ones any policy on the target reports (target
   * tracking's managed alarms, the alarms invoking a step policy) and every alarm under the
   * variant's `scalegate-<endpoint>-<variant>-` prefix.
   */
  alarms: Map<string, MetricAlarm>;
  /** The scheduled actions on the variant's scalable target; absent when there is no target (or not read). */
  scheduledActions?: ScheduledAction[];
}

/** Prefix of every alarm scalegate names for a variant (policy-shape.ts `policyNames`). */
export const variantAlarmPrefix = (endpoint: string, variant: string): string =>
  `scalegate-${endpoint}-${variant}-`;

const ALARM_FIELDS = [
  'name',
  'namespace',
  'metric',
  'dimensions',
  'statistic',
  'period_s',
  'evaluation_periods',
  'datapoints_to_alarm',
  'threshold',
  'comparison',
  'missing_data',
] as const;

const orNull = <T>(value: T | undefined | null): T | null => (value === undefined ? null : value);

function alarmRows(prefix: string, alarm: MetricAlarm | undefined): DeployedRow[] {
  if (!alarm) return ALARM_FIELDS.map((field) => ({ parameter: `${prefix}.${field}`, value: null }));
  const dimensions = Object.fromEntries(
    [...(alarm.Dimensions ?? [])]
      .sort((a, b) => ((a.Name ?? '') < (b.Name ?? '') ? -1 : (a.Name ?? '') > (b.Name ?? '') ? 1 : 0))
      .map((d) => [d.Name ?? '', d.Value ?? '']),
  );
  return [
    { parameter: `${prefix}.name`, value: orNull(alarm.AlarmName) },
    { parameter: `${prefix}.namespace`, value: orNull(alarm.Namespace) },
    { parameter: `${prefix}.metric`, value: orNull(alarm.MetricName) },
    { parameter: `${prefix}.dimensions`, value: dimensionsValue(dimensions) },
    { parameter: `${prefix}.statistic`, value: alarm.Statistic ?? alarm.ExtendedStatistic ?? null },
    { parameter: `${prefix}.period_s`, value: orNull(alarm.Period) },
    { parameter: `${prefix}.evaluation_periods`, value: orNull(alarm.EvaluationPeriods) },
    // Unset DatapointsToAlarm means "all of EvaluationPeriods" (PutMetricAlarm).
    {
      parameter: `${prefix}.datapoints_to_alarm`,
      value: alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods ?? null,
    },
    { parameter: `${prefix}.threshold`, value: orNull(alarm.Threshold) },
    { parameter: `${prefix}.comparison`, value: orNull(alarm.ComparisonOperator) },
    { parameter: `${prefix}.missing_data`, value: alarm.TreatMissingData ?? AWS_DEFAULTS.treatMissingData },
  ];
}

/** The scale-in policy's alarm: the one it reports invoking it (the expected name first). */
function scaleInAlarmOf(
  state: DeployedPolicyState,
  policy: ScalingPolicy | undefined,
  expectedName: string,
): { alarm: MetricAlarm | undefined; invokesPolicy: boolean | null } {
  const byName = state.alarms.get(expectedName);
  if (!policy) return { alarm: byName, invokesPolicy: byName ? false : null };
  const invoking = [...state.alarms.values()].filter(
    (a) => policy.PolicyARN !== undefined && (a.AlarmActions ?? []).includes(policy.PolicyARN),
  );
  const reported = new Set((policy.Alarms ?? []).map((a) => a.AlarmName));
  const attached = invoking.find((a) => a.AlarmName === expectedName) ?? invoking[0];
  if (attached) return { alarm: attached, invokesPolicy: true };
  const fallback = byName ?? [...state.alarms.values()].find((a) => reported.has(a.AlarmName));
  return { alarm: fallback, invokesPolicy: fallback ? false : null };
}

function stepRows(policy: ScalingPolicy | undefined): DeployedRow[] {
  const config = policy?.StepScalingPolicyConfiguration;
  const steps = config?.StepAdjustments ?? [];
  const one = steps.length === 1 ? steps[0] : undefined;
  // Anything but exactly one step is shown whole, so the mismatch says what is deployed.
  const stepsText = steps.length === 0 ? null : JSON.stringify(steps);
  return [
    { parameter: 'scale_in.policy_name', value: orNull(policy?.PolicyName) },
    { parameter: 'scale_in.policy_type', value: orNull(policy?.PolicyType) },
    { parameter: 'scale_in.adjustment_type', value: orNull(config?.AdjustmentType) },
    { parameter: 'scale_in.adjustment', value: one ? orNull(one.ScalingAdjustment) : stepsText },
    {
      parameter: 'scale_in.metric_interval_upper_bound',
      value: one ? (one.MetricIntervalUpperBound ?? 'unbounded') : stepsText,
    },
    { parameter: 'scale_in.cooldown_s', value: orNull(config?.Cooldown) },
    {
      parameter: 'scale_in.metric_aggregation',
      value: config ? (config.MetricAggregationType ?? AWS_DEFAULTS.metricAggregationType) : null,
    },
  ];
}

function trackingRows(policy: ScalingPolicy | undefined): DeployedRow[] {
  const config = policy?.TargetTrackingScalingPolicyConfiguration;
  const custom = config?.CustomizedMetricSpecification;
  const metric =
    config?.PredefinedMetricSpecification?.PredefinedMetricType ??
    (custom ? `custom:${custom.Namespace ?? ''}/${custom.MetricName ?? '(metric math)'}` : null);
  return [
    { parameter: 'scale_out.policy_name', value: orNull(policy?.PolicyName) },
    { parameter: 'scale_out.policy_type', value: orNull(policy?.PolicyType) },
    { parameter: 'scale_out.metric', value: metric },
    { parameter: 'scale_out.target_value', value: orNull(config?.TargetValue) },
    { parameter: 'scale_out.cooldown_s', value: orNull(config?.ScaleOutCooldown) },
    {
      parameter: 'scale_out.disable_scale_in',
      value: config ? (config.DisableScaleIn ?? AWS_DEFAULTS.disableScaleIn) : null,
    },
  ];
}

function queueDepthValue(environment: Record<string, string> | undefined): RowValue {
  const raw = environment?.MAX_QUEUE_DEPTH;
  if (raw === undefined) return null;
  const n = Number(raw);
  return raw.trim() !== '' && Number.isFinite(n) ? n : raw;
}

/** The step scale-out policy (scalegate's name) with its invoking alarm, as rows (none deployed: no rows). */
function stepScaleOutRows(state: DeployedPolicyState): DeployedRow[] {
  const names = policyNames(state.endpoint, state.variant);
  const policy = state.policies.find((p) => p.PolicyName === names.stepScaleOutPolicy);
  if (!policy) return [];
  const config = policy.StepScalingPolicyConfiguration;
  const steps = (config?.StepAdjustments ?? []).map((a) => ({
    metricIntervalLowerBound: a.MetricIntervalLowerBound ?? Number.NEGATIVE_INFINITY,
    metricIntervalUpperBound: a.MetricIntervalUpperBound ?? null,
    scalingAdjustment: a.ScalingAdjustment ?? 0,
  }));
  const { alarm } = scaleInAlarmOf(state, policy, names.stepScaleOutAlarm);
  return [
    { parameter: 'step_scale_out.policy_name', value: orNull(policy.PolicyName) },
    { parameter: 'step_scale_out.policy_type', value: orNull(policy.PolicyType) },
    { parameter: 'step_scale_out.adjustment_type', value: orNull(config?.AdjustmentType) },
    { parameter: 'step_scale_out.steps', value: steps.length === 0 ? null : stepsValue(steps) },
    { parameter: 'step_scale_out.cooldown_s', value: orNull(config?.Cooldown) },
    {
      parameter: 'step_scale_out.metric_aggregation',
      value: config ? (config.MetricAggregationType ?? AWS_DEFAULTS.metricAggregationType) : null,
    },
    ...alarmRows('step_scale_out.alarm', alarm),
  ];
}

/** scalegate's scheduled actions on the target (its name prefix), as rows. */
function scheduledRows(state: DeployedPolicyState): DeployedRow[] {
  const prefix = policyNames(state.endpoint, state.variant).scheduledActionPrefix;
  return (state.scheduledActions ?? [])
    .filter((a) => a.ScheduledActionName?.startsWith(prefix) === true)
    .flatMap((a) =>
      scheduledActionRows({
        scheduledActionName: a.ScheduledActionName as string,
        schedule: a.Schedule ?? '',
        // Unset Timezone is UTC (PutScheduledAction).
        timezone: (a.Timezone ?? 'UTC') as 'UTC',
        minCapacity: a.ScalableTargetAction?.MinCapacity as number,
        maxCapacity: a.ScalableTargetAction?.MaxCapacity as number,
      }).map((row) => ({ parameter: row.parameter, value: orNull(row.value) })),
    );
}

/** Names of policies on the target that the shape does not declare. */
export function orphanPolicies(state: DeployedPolicyState): ScalingPolicy[] {
  const names = policyNames(state.endpoint, state.variant);
  // The step scale-out is compared row by row (step_scale_out.*), an extra one included.
  const declared = new Set([names.scaleOutPolicy, names.scaleInPolicy, names.stepScaleOutPolicy]);
  return state.policies.filter((p) => !declared.has(p.PolicyName ?? ''));
}

/** Alarms under the variant's scalegate prefix that the shape does not declare. */
export function orphanAlarms(state: DeployedPolicyState): MetricAlarm[] {
  const names = policyNames(state.endpoint, state.variant);
  const declared = new Set<string>([
    names.scaleInAlarm,
    names.errors5xxAlarm,
    names.queueSaturationAlarm,
    names.concurrencyAboveTargetAlarm,
    names.serviceTimeAlarm,
    names.stepScaleOutAlarm,
  ]);
  const prefix = variantAlarmPrefix(state.endpoint, state.variant);
  return [...state.alarms.values()].filter(
    (a) => a.AlarmName?.startsWith(prefix) === true && !declared.has(a.AlarmName),
  );
}

/**
 * The deployed state as rows under `flattenPolicyShape`'s parameter names (null = not deployed),
 * plus `scale_in.alarm.invokes_policy` and one `extra` row per orphan policy
 * (`orphan.policy.<name>`) and orphan alarm (`orphan.alarm.<name>`).
 */
export function flattenDeployedPolicy(state: DeployedPolicyState): DeployedRow[] {
  const names = policyNames(state.endpoint, state.variant);
  const t = state.scalableTarget;
  const s = t?.SuspendedState;
  const scaleOut = state.policies.find((p) => p.PolicyName === names.scaleOutPolicy);
  const scaleIn = state.policies.find((p) => p.PolicyName === names.scaleInPolicy);
  const { alarm: scaleInAlarm, invokesPolicy } = scaleInAlarmOf(state, scaleIn, names.scaleInAlarm);
  const d = state.deployment;
  const rows: DeployedRow[] = [
    { parameter: 'scalable_target.resource_id', value: orNull(t?.ResourceId) },
    { parameter: 'scalable_target.scalable_dimension', value: orNull(t?.ScalableDimension) },
    { parameter: 'scalable_target.min_capacity', value: orNull(t?.MinCapacity) },
    { parameter: 'scalable_target.max_capacity', value: orNull(t?.MaxCapacity) },
    // A registered target with no SuspendedState reported is not suspended.
    {
      parameter: 'scalable_target.suspended.dynamic_scaling_in',
      value: t ? (s?.DynamicScalingInSuspended ?? false) : null,
    },
    {
      parameter: 'scalable_target.suspended.dynamic_scaling_out',
      value: t ? (s?.DynamicScalingOutSuspended ?? false) : null,
    },
    {
      parameter: 'scalable_target.suspended.scheduled_scaling',
      value: t ? (s?.ScheduledScalingSuspended ?? false) : null,
    },
    ...trackingRows(scaleOut),
    ...stepRows(scaleIn),
    ...alarmRows('scale_in.alarm', scaleInAlarm),
    { parameter: 'container.max_queue_depth', value: queueDepthValue(d?.environment) },
    { parameter: 'deployment.instance_type', value: orNull(d?.instanceType) },
    { parameter: 'deployment.image_digest', value: d ? imageDigestOf(d.image) : null },
    { parameter: 'deployment.routing_strategy', value: orNull(d?.routingStrategy) },
    ...alarmRows('alarms.errors_5xx', state.alarms.get(names.errors5xxAlarm)),
    ...alarmRows('alarms.queue_saturation', state.alarms.get(names.queueSaturationAlarm)),
    ...alarmRows('alarms.concurrency_above_target', state.alarms.get(names.concurrencyAboveTargetAlarm)),
    ...alarmRows('alarms.service_time', state.alarms.get(names.serviceTimeAlarm)),
    { parameter: SCALE_IN_ALARM_INVOKES_POLICY, value: invokesPolicy },
    ...scheduledRows(state),
    ...stepScaleOutRows(state),
  ];
  for (const p of orphanPolicies(state)) {
    rows.push({
      parameter: `orphan.policy.${p.PolicyName ?? '(unnamed)'}`,
      value: p.PolicyType ?? 'unknown',
    });
  }
  for (const a of orphanAlarms(state)) {
    rows.push({ parameter: `orphan.alarm.${a.AlarmName}`, value: a.MetricName ?? 'metric math' });
  }
  return rows;
}

// ---- scale-out detection lag ------------------------------------------------------------------

/**
 * The policies that start a scale-out: target tracking (its high alarm) and step policies with a
 * positive adjustment.
 */
export function scaleOutPolicies(policies: readonly ScalingPolicy[]): ScalingPolicy[] {
  return policies.filter((p) => {
    if (p.PolicyType === 'TargetTrackingScaling') return true;
    const steps = p.StepScalingPolicyConfiguration?.StepAdjustments ?? [];
    return steps.some((s) => (s.ScalingAdjustment ?? 0) > 0);
  });
}

/** The alarms `policies` report, by name. */
export const reportedAlarmNames = (policies: readonly ScalingPolicy[]): string[] =>
  policies.flatMap((p) => (p.Alarms ?? []).map((a) => a.AlarmName).filter((n): n is string => !!n));

/**
 * The timing of every alarm that starts a scale-out: each scale-out policy's own alarms whose
 * comparison is GreaterThan* (target tracking's high alarm; a step policy's trigger).
 */
export function scaleOutAlarmTimings(
  scaleOut: readonly ScalingPolicy[],
  alarms: readonly MetricAlarm[],
): ScaleOutAlarmTiming[] {
  const timings: ScaleOutAlarmTiming[] = [];
  for (const policy of scaleOut) {
    const own = new Set((policy.Alarms ?? []).map((a) => a.AlarmName));
    for (const alarm of alarms) {
      if (!own.has(alarm.AlarmName)) continue;
      if (!/^GreaterThan/.test(alarm.ComparisonOperator ?? '')) continue;
      if (alarm.Period === undefined || alarm.EvaluationPeriods === undefined) continue;
      timings.push({
        policyName: policy.PolicyName ?? '',
        alarmName: alarm.AlarmName ?? '',
        periodS: alarm.Period,
        datapointsToAlarm: alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods,
      });
    }
  }
  return timings;
}
