/**
 * The deployed scaling policy of one SageMaker variant, both ways:
 * - reading: Application Auto Scaling (scalable target, scaling policies), CloudWatch (alarms) and
 *   SageMaker (endpoint status, instance type, image, MAX_QUEUE_DEPTH, routing), mapped to the
 *   same `{parameter, value}` rows as `flattenPolicyShape` so src/plan/policy-diff.ts can diff them;
 * - applying: the calls that deploy a `PolicyShape` (RegisterScalableTarget, PutScalingPolicy x2,
 *   PutMetricAlarm), the same calls the CDK construct's resources make on AWS.
 * Thin: no decisions beyond mapping AWS fields (and their documented defaults) to rows.
 */
import {
  type ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  type ScalableTarget,
  type ScalingPolicy,
} from '@aws-sdk/client-application-auto-scaling';
import {
  type CloudWatchClient,
  DescribeAlarmsCommand,
  type MetricAlarm,
  PutMetricAlarmCommand,
} from '@aws-sdk/client-cloudwatch';
import { DescribeEndpointConfigCommand, type SageMakerClient } from '@aws-sdk/client-sagemaker';
import { imageDigestOf } from '../model/fingerprint.js';
import type { DeployedRow, RowValue } from '../plan/policy-diff.js';
import { SCALE_IN_ALARM_INVOKES_POLICY } from '../plan/policy-diff.js';
import {
  type AlarmShape,
  dimensionsValue,
  type PolicyShape,
  policyNames,
  scalableResourceId,
} from '../plan/policy-shape.js';
import {
  type CallOptions,
  type DeployedVariant,
  describeDeployedVariant,
  describeVariantCapacity,
  type VariantCapacity,
} from './endpoint.js';
import { SAGEMAKER_NAMESPACE, VARIANT_DIMENSION } from './scaling.js';

export interface PolicyClients {
  sagemaker: SageMakerClient;
  autoscaling: ApplicationAutoScalingClient;
  cloudwatch: CloudWatchClient;
}

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

export interface DeployedVariantWithRouting extends DeployedVariant {
  routingStrategy: string;
}

/** Everything deployed for one variant that the policy shape describes, as AWS reports it. */
export interface DeployedPolicyState {
  endpoint: string;
  variant: string;
  resourceId: string;
  /** null when the endpoint could not be described (`endpointError` says why). */
  capacity: VariantCapacity | null;
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
}

const errorText = (e: unknown): string =>
  e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);

export async function describeScalableTargets(
  autoscaling: ApplicationAutoScalingClient,
  resourceIds?: string[],
  options: CallOptions = {},
): Promise<ScalableTarget[]> {
  const targets: ScalableTarget[] = [];
  let nextToken: string | undefined;
  do {
    const out = await autoscaling.send(
      new DescribeScalableTargetsCommand({
        ServiceNamespace: SAGEMAKER_NAMESPACE,
        ...(resourceIds ? { ResourceIds: resourceIds } : {}),
        ScalableDimension: VARIANT_DIMENSION,
        NextToken: nextToken,
      }),
      options,
    );
    targets.push(...(out.ScalableTargets ?? []));
    nextToken = out.NextToken;
  } while (nextToken);
  return targets;
}

export async function describeScalingPolicies(
  autoscaling: ApplicationAutoScalingClient,
  resourceId: string,
  options: CallOptions = {},
): Promise<ScalingPolicy[]> {
  const policies: ScalingPolicy[] = [];
  let nextToken: string | undefined;
  do {
    const out = await autoscaling.send(
      new DescribeScalingPoliciesCommand({
        ServiceNamespace: SAGEMAKER_NAMESPACE,
        ResourceId: resourceId,
        ScalableDimension: VARIANT_DIMENSION,
        NextToken: nextToken,
      }),
      options,
    );
    policies.push(...(out.ScalingPolicies ?? []));
    nextToken = out.NextToken;
  } while (nextToken);
  return policies;
}

/** DescribeAlarms by names (batches of 100) or by prefix; metric alarms only. */
export async function describeMetricAlarms(
  cloudwatch: CloudWatchClient,
  query: { names: string[] } | { prefix: string },
  options: CallOptions = {},
): Promise<MetricAlarm[]> {
  const batches: ({ AlarmNames: string[] } | { AlarmNamePrefix: string })[] = [];
  if ('names' in query) {
    const names = [...new Set(query.names)];
    for (let i = 0; i < names.length; i += 100) batches.push({ AlarmNames: names.slice(i, i + 100) });
  } else {
    batches.push({ AlarmNamePrefix: query.prefix });
  }
  const alarms: MetricAlarm[] = [];
  for (const batch of batches) {
    let nextToken: string | undefined;
    do {
      const out = await cloudwatch.send(
        new DescribeAlarmsCommand({
          ...batch,
          AlarmTypes: ['MetricAlarm'],
          MaxRecords: 100,
          NextToken: nextToken,
        }),
        options,
      );
      alarms.push(...(out.MetricAlarms ?? []));
      nextToken = out.NextToken;
    } while (nextToken);
  }
  return alarms;
}

/** Prefix of every alarm scalegate names for a variant (policy-shape.ts `policyNames`). */
export const variantAlarmPrefix = (endpoint: string, variant: string): string =>
  `scalegate-${endpoint}-${variant}-`;

async function describeDeployment(
  sagemaker: SageMakerClient,
  endpoint: string,
  variant: string,
  options: CallOptions,
): Promise<DeployedVariantWithRouting> {
  const deployed = await describeDeployedVariant(sagemaker, endpoint, variant, options);
  const config = await sagemaker.send(
    new DescribeEndpointConfigCommand({ EndpointConfigName: deployed.endpointConfigName }),
    options,
  );
  const pv = (config.ProductionVariants ?? []).find((v) => v.VariantName === variant);
  return {
    ...deployed,
    routingStrategy: pv?.RoutingConfig?.RoutingStrategy ?? AWS_DEFAULTS.routingStrategy,
  };
}

/** Reads what is deployed for `endpoint`/`variant`. Never writes. */
export async function readDeployedPolicy(
  clients: PolicyClients,
  endpoint: string,
  variant: string,
  options: CallOptions = {},
): Promise<DeployedPolicyState> {
  const resourceId = scalableResourceId(endpoint, variant);
  let capacity: VariantCapacity | null = null;
  let deployment: DeployedVariantWithRouting | null = null;
  let endpointError: string | null = null;
  try {
    capacity = await describeVariantCapacity(clients.sagemaker, endpoint, variant, options);
    deployment = await describeDeployment(clients.sagemaker, endpoint, variant, options);
  } catch (e) {
    endpointError = errorText(e);
  }
  const [target] = await describeScalableTargets(clients.autoscaling, [resourceId], options);
  const policies = target ? await describeScalingPolicies(clients.autoscaling, resourceId, options) : [];
  const names = policyNames(endpoint, variant);
  const wanted = [
    names.scaleInAlarm,
    names.errors5xxAlarm,
    names.queueSaturationAlarm,
    names.concurrencyAboveTargetAlarm,
    names.serviceTimeAlarm,
    ...policies.flatMap((p) => (p.Alarms ?? []).map((a) => a.AlarmName).filter((n): n is string => !!n)),
  ];
  const alarms = new Map<string, MetricAlarm>();
  for (const alarm of await describeMetricAlarms(clients.cloudwatch, { names: wanted }, options)) {
    if (alarm.AlarmName) alarms.set(alarm.AlarmName, alarm);
  }
  const prefix = variantAlarmPrefix(endpoint, variant);
  for (const alarm of await describeMetricAlarms(clients.cloudwatch, { prefix }, options)) {
    if (alarm.AlarmName) alarms.set(alarm.AlarmName, alarm);
  }
  return {
    endpoint,
    variant,
    resourceId,
    capacity,
    deployment,
    endpointError,
    scalableTarget: target ?? null,
    policies,
    alarms,
  };
}

// ---- mapping to rows ------------------------------------------------------------------------

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

/** Names of policies on the target that the shape does not declare. */
export function orphanPolicies(state: DeployedPolicyState): ScalingPolicy[] {
  const names = policyNames(state.endpoint, state.variant);
  const declared = new Set([names.scaleOutPolicy, names.scaleInPolicy]);
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

export interface ScaleOutAlarmTiming {
  policyName: string;
  alarmName: string;
  periodS: number;
  datapointsToAlarm: number;
}

/**
 * The alarms that start a scale-out on `resourceId`: the high alarms of its target-tracking
 * policies (those target tracking creates: comparison GreaterThan*) and the alarms invoking a step
 * policy with a positive adjustment. Empty when no scale-out policy is deployed.
 */
export async function readScaleOutAlarmTimings(
  clients: Pick<PolicyClients, 'autoscaling' | 'cloudwatch'>,
  resourceId: string,
  options: CallOptions = {},
): Promise<ScaleOutAlarmTiming[]> {
  const policies = await describeScalingPolicies(clients.autoscaling, resourceId, options);
  const scaleOut = policies.filter((p) => {
    if (p.PolicyType === 'TargetTrackingScaling') return true;
    const steps = p.StepScalingPolicyConfiguration?.StepAdjustments ?? [];
    return steps.some((s) => (s.ScalingAdjustment ?? 0) > 0);
  });
  const names = scaleOut.flatMap((p) =>
    (p.Alarms ?? []).map((a) => a.AlarmName).filter((n): n is string => !!n),
  );
  if (names.length === 0) return [];
  const alarms = await describeMetricAlarms(clients.cloudwatch, { names }, options);
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

// ---- applying -------------------------------------------------------------------------------

export interface AppliedPolicy {
  scalableTargetArn: string | null;
  scaleOutPolicyArn: string;
  scaleInPolicyArn: string;
  alarmNames: string[];
}

export async function putMetricAlarm(
  cloudwatch: CloudWatchClient,
  alarm: AlarmShape,
  alarmActions: string[],
  options: CallOptions = {},
): Promise<void> {
  await cloudwatch.send(
    new PutMetricAlarmCommand({
      AlarmName: alarm.alarmName,
      AlarmDescription: alarm.description.slice(0, 1024),
      ActionsEnabled: true,
      AlarmActions: alarmActions,
      Namespace: alarm.namespace,
      MetricName: alarm.metricName,
      Dimensions: Object.entries(alarm.dimensions).map(([Name, Value]) => ({ Name, Value })),
      ...(alarm.statistic !== null
        ? { Statistic: alarm.statistic }
        : { ExtendedStatistic: alarm.extendedStatistic as string }),
      Period: alarm.periodS,
      EvaluationPeriods: alarm.evaluationPeriods,
      DatapointsToAlarm: alarm.datapointsToAlarm,
      Threshold: alarm.threshold,
      ComparisonOperator: alarm.comparisonOperator,
      TreatMissingData: alarm.treatMissingData,
    }),
    options,
  );
}

/**
 * Deploys the scaling side of a shape: the scalable target (min/max, all suspension flags off),
 * the target-tracking scale-out policy, the step scale-in policy and its alarm (invoking the
 * policy), and the observability alarms. Idempotent (every call is a create-or-update). The
 * container's MAX_QUEUE_DEPTH is part of the model, not of scaling: the caller sets it.
 */
export async function applyScalingShape(
  clients: Pick<PolicyClients, 'autoscaling' | 'cloudwatch'>,
  shape: PolicyShape,
  options: CallOptions = {},
): Promise<AppliedPolicy> {
  const t = shape.scalableTarget;
  const registered = await clients.autoscaling.send(
    new RegisterScalableTargetCommand({
      ServiceNamespace: t.serviceNamespace,
      ResourceId: t.resourceId,
      ScalableDimension: t.scalableDimension,
      MinCapacity: t.minCapacity,
      MaxCapacity: t.maxCapacity,
      SuspendedState: {
        DynamicScalingInSuspended: t.suspendedState.dynamicScalingInSuspended,
        DynamicScalingOutSuspended: t.suspendedState.dynamicScalingOutSuspended,
        ScheduledScalingSuspended: t.suspendedState.scheduledScalingSuspended,
      },
    }),
    options,
  );
  const out = shape.scaleOut;
  const scaleOut = await clients.autoscaling.send(
    new PutScalingPolicyCommand({
      PolicyName: out.policyName,
      ServiceNamespace: t.serviceNamespace,
      ResourceId: t.resourceId,
      ScalableDimension: t.scalableDimension,
      PolicyType: out.policyType,
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: out.targetValue,
        PredefinedMetricSpecification: { PredefinedMetricType: out.predefinedMetricType },
        ScaleOutCooldown: out.scaleOutCooldownS,
        DisableScaleIn: out.disableScaleIn,
      },
    }),
    options,
  );
  const inn = shape.scaleIn;
  const scaleIn = await clients.autoscaling.send(
    new PutScalingPolicyCommand({
      PolicyName: inn.policyName,
      ServiceNamespace: t.serviceNamespace,
      ResourceId: t.resourceId,
      ScalableDimension: t.scalableDimension,
      PolicyType: inn.policyType,
      StepScalingPolicyConfiguration: {
        AdjustmentType: inn.adjustmentType,
        StepAdjustments: [
          {
            MetricIntervalUpperBound: inn.metricIntervalUpperBound,
            ScalingAdjustment: inn.scalingAdjustment,
          },
        ],
        Cooldown: inn.cooldownS,
        MetricAggregationType: inn.metricAggregationType,
      },
    }),
    options,
  );
  if (!scaleOut.PolicyARN || !scaleIn.PolicyARN) {
    throw new Error(`PutScalingPolicy on ${t.resourceId} returned no PolicyARN`);
  }
  await putMetricAlarm(clients.cloudwatch, inn.alarm, [scaleIn.PolicyARN], options);
  const observability = [
    shape.alarms.errors5xx,
    shape.alarms.queueSaturation,
    shape.alarms.concurrencyAboveTarget,
    ...(shape.alarms.serviceTime ? [shape.alarms.serviceTime] : []),
  ];
  for (const alarm of observability) await putMetricAlarm(clients.cloudwatch, alarm, [], options);
  return {
    scalableTargetArn: registered.ScalableTargetARN ?? null,
    scaleOutPolicyArn: scaleOut.PolicyARN,
    scaleInPolicyArn: scaleIn.PolicyARN,
    alarmNames: [inn.alarm.alarmName, ...observability.map((a) => a.alarmName)],
  };
}
