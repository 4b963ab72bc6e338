/**
 * The deployed scaling policy of one SageMaker variant, both ways, calls only:
 * - reading: Application Auto Scaling (scalable target, scaling policies), CloudWatch (alarms) and
 *   SageMaker (endpoint status, instance type, image, MAX_QUEUE_DEPTH, routing) into a
 *   `DeployedPolicyState` (src/plan/deployed-rows.ts maps it to rows);
 * - applying: the calls that deploy a `PolicyShape` (RegisterScalableTarget, PutScalingPolicy x2,
 *   PutMetricAlarm), the same calls the CDK construct's resources make on AWS.
 */
import {
  type ApplicationAutoScalingClient,
  DeleteScalingPolicyCommand,
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  type ScalableTarget,
  type ScalingPolicy,
} from '@aws-sdk/client-application-auto-scaling';
import {
  type CloudWatchClient,
  DeleteAlarmsCommand,
  DescribeAlarmsCommand,
  type MetricAlarm,
  PutMetricAlarmCommand,
} from '@aws-sdk/client-cloudwatch';
import { DescribeEndpointConfigCommand, type SageMakerClient } from '@aws-sdk/client-sagemaker';
import type { ScaleOutAlarmTiming } from '../analysis/ttotal.js';
import {
  AWS_DEFAULTS,
  type DeployedPolicyState,
  type DeployedVariantWithRouting,
  reportedAlarmNames,
  scaleOutAlarmTimings,
  scaleOutPolicies,
  variantAlarmPrefix,
} from '../plan/deployed-rows.js';
import { type AlarmShape, type PolicyShape, policyNames, scalableResourceId } from '../plan/policy-shape.js';
import {
  type CallOptions,
  describeDeployedVariant,
  describeVariantCapacity,
  type VariantCapacity,
} from './endpoint.js';
import { SAGEMAKER_NAMESPACE, VARIANT_DIMENSION } from './scaling.js';
import { applyScheduledActions, describeScheduledActions } from './scheduled.js';

export type { DeployedPolicyState } from '../plan/deployed-rows.js';

export interface PolicyClients {
  sagemaker: SageMakerClient;
  autoscaling: ApplicationAutoScalingClient;
  cloudwatch: CloudWatchClient;
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

/** Reads what is deployed for `endpoint`/`variant` (its scheduled actions included). Never writes. */
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
    names.stepScaleOutAlarm,
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
    ...(target
      ? { scheduledActions: await describeScheduledActions(clients.autoscaling, resourceId, options) }
      : {}),
  };
}

// ---- scale-out detection lag ------------------------------------------------------------------

/**
 * The alarms that start a scale-out on `resourceId` (src/plan/deployed-rows.ts
 * `scaleOutAlarmTimings`). Empty when no scale-out policy is deployed.
 */
export async function readScaleOutAlarmTimings(
  clients: Pick<PolicyClients, 'autoscaling' | 'cloudwatch'>,
  resourceId: string,
  options: CallOptions = {},
): Promise<ScaleOutAlarmTiming[]> {
  const scaleOut = scaleOutPolicies(await describeScalingPolicies(clients.autoscaling, resourceId, options));
  const names = reportedAlarmNames(scaleOut);
  if (names.length === 0) return [];
  return scaleOutAlarmTimings(scaleOut, await describeMetricAlarms(clients.cloudwatch, { names }, options));
}

// ---- applying -------------------------------------------------------------------------------

export interface AppliedPolicy {
  scalableTargetArn: string | null;
  scaleOutPolicyArn: string;
  scaleInPolicyArn: string;
  /** null when the shape has no step scale-out. */
  stepScaleOutPolicyArn: string | null;
  alarmNames: string[];
  /** The scheduled actions put, and the stale scalegate ones deleted. */
  scheduledActions: { put: string[]; deleted: string[] };
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
  const stepArn = await applyStepScaleOut(clients, shape, options);
  // Scheduled actions: the plan's put, the scalegate ones it no longer has deleted.
  const scheduled = await applyScheduledActions(
    clients.autoscaling,
    t.resourceId,
    policyNames(shape.target.endpoint, shape.target.variant).scheduledActionPrefix,
    shape.scheduledActions,
    options,
  );
  return {
    scalableTargetArn: registered.ScalableTargetARN ?? null,
    scaleOutPolicyArn: scaleOut.PolicyARN,
    scaleInPolicyArn: scaleIn.PolicyARN,
    stepScaleOutPolicyArn: stepArn,
    alarmNames: [
      inn.alarm.alarmName,
      ...observability.map((a) => a.alarmName),
      ...(shape.stepScaleOut ? [shape.stepScaleOut.alarm.alarmName] : []),
    ],
    scheduledActions: scheduled,
  };
}

/**
 * The step scale-out policy and its alarm, when the shape has one; when it has none, a step
 * scale-out an earlier plan deployed (scalegate's name) is deleted with its alarm. Its ARN, or null.
 */
async function applyStepScaleOut(
  clients: Pick<PolicyClients, 'autoscaling' | 'cloudwatch'>,
  shape: PolicyShape,
  options: CallOptions,
): Promise<string | null> {
  const t = shape.scalableTarget;
  const step = shape.stepScaleOut;
  if (!step) {
    const names = policyNames(shape.target.endpoint, shape.target.variant);
    const deployed = await describeScalingPolicies(clients.autoscaling, t.resourceId, options);
    if (deployed.some((p) => p.PolicyName === names.stepScaleOutPolicy)) {
      await clients.autoscaling.send(
        new DeleteScalingPolicyCommand({
          PolicyName: names.stepScaleOutPolicy,
          ServiceNamespace: t.serviceNamespace,
          ResourceId: t.resourceId,
          ScalableDimension: t.scalableDimension,
        }),
        options,
      );
      await clients.cloudwatch.send(
        new DeleteAlarmsCommand({ AlarmNames: [names.stepScaleOutAlarm] }),
        options,
      );
    }
    return null;
  }
  const put = await clients.autoscaling.send(
    new PutScalingPolicyCommand({
      PolicyName: step.policyName,
      ServiceNamespace: t.serviceNamespace,
      ResourceId: t.resourceId,
      ScalableDimension: t.scalableDimension,
      PolicyType: step.policyType,
      StepScalingPolicyConfiguration: {
        AdjustmentType: step.adjustmentType,
        StepAdjustments: step.steps.map((s) => ({
          MetricIntervalLowerBound: s.metricIntervalLowerBound,
          ...(s.metricIntervalUpperBound === null
            ? {}
            : { MetricIntervalUpperBound: s.metricIntervalUpperBound }),
          ScalingAdjustment: s.scalingAdjustment,
        })),
        Cooldown: step.cooldownS,
        MetricAggregationType: step.metricAggregationType,
      },
    }),
    options,
  );
  if (!put.PolicyARN)
    throw new Error(`PutScalingPolicy ${step.policyName} on ${t.resourceId} returned no PolicyARN`);
  await putMetricAlarm(clients.cloudwatch, step.alarm, [put.PolicyARN], options);
  return put.PolicyARN;
}
