/**
 * One inference component's deployment, both ways, calls only:
 * - reading: DescribeInferenceComponent (+ its model's environment), the endpoint config's
 *   ManagedInstanceScaling, the scalable target on `sagemaker:inference-component:DesiredCopyCount`,
 *   its scaling policies and their alarms, into an `IcDeployedState` (src/plan/inference-component-rows.ts);
 * - applying: a new model and UpdateInferenceComponent when the copy's specification differs,
 *   RegisterScalableTarget, PutScalingPolicy (target tracking on ConcurrentRequestsPerCopy, the
 *   wake and idle step policies) and PutMetricAlarm, as the CDK construct's resources do on AWS.
 */
import {
  DescribeScalableTargetsCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
  type ScalingPolicy,
} from '@aws-sdk/client-application-auto-scaling';
import { PutMetricAlarmCommand } from '@aws-sdk/client-cloudwatch';
import {
  CreateModelCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeInferenceComponentCommand,
  type DescribeInferenceComponentCommandOutput,
  DescribeModelCommand,
  UpdateInferenceComponentCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import {
  type IcStepPolicy,
  type InferenceComponentPlan,
  icStepAdjustments,
  icStepPolicies,
} from '../model/index.js';
import {
  IC_DIMENSION,
  IC_NAMESPACE,
  IC_SCALABLE_DIMENSION,
  type IcDeployedState,
  icResourceId,
  icTargetPolicyName,
} from '../model/inference-component.js';
import type { CallOptions } from './endpoint.js';
import { describeMetricAlarms, type PolicyClients } from './policy.js';
import { SAGEMAKER_NAMESPACE } from './scaling.js';

const errorText = (e: unknown): string =>
  e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);

export async function describeInferenceComponent(
  clients: Pick<PolicyClients, 'sagemaker'>,
  name: string,
  options: CallOptions = {},
): Promise<DescribeInferenceComponentCommandOutput | null> {
  try {
    return await clients.sagemaker.send(
      new DescribeInferenceComponentCommand({ InferenceComponentName: name }),
      options,
    );
  } catch (e) {
    if (e instanceof Error && /not found|could not find|does not exist/i.test(e.message)) return null;
    throw e;
  }
}

async function modelEnvironment(
  clients: Pick<PolicyClients, 'sagemaker'>,
  modelName: string | undefined,
  options: CallOptions,
): Promise<{ image: string; environment: Record<string, string>; role: string | null } | null> {
  if (!modelName) return null;
  const model = await clients.sagemaker.send(new DescribeModelCommand({ ModelName: modelName }), options);
  const container = model.PrimaryContainer ?? model.Containers?.[0];
  if (!container?.Image) return null;
  return {
    image: container.Image,
    environment: { ...(container.Environment ?? {}) },
    role: model.ExecutionRoleArn ?? null,
  };
}

/** Reads what is deployed for the plan's component. Never writes. */
export async function readDeployedInferenceComponent(
  clients: PolicyClients,
  ic: InferenceComponentPlan,
  options: CallOptions = {},
): Promise<IcDeployedState> {
  const state: IcDeployedState = {
    component: null,
    managedInstanceScaling: null,
    scalableTarget: null,
    policies: [],
    alarms: new Map(),
    error: null,
  };
  try {
    const d = await describeInferenceComponent(clients, ic.component_name, options);
    if (d) {
      const req = d.Specification?.ComputeResourceRequirements;
      const model = await modelEnvironment(clients, d.Specification?.ModelName, options);
      state.component = {
        name: d.InferenceComponentName ?? ic.component_name,
        endpoint: d.EndpointName ?? '',
        variant: d.VariantName ?? null,
        status: d.InferenceComponentStatus ?? 'unknown',
        accelerators: req?.NumberOfAcceleratorDevicesRequired ?? null,
        cpuCores: req?.NumberOfCpuCoresRequired ?? null,
        memoryMb: req?.MinMemoryRequiredInMb ?? null,
        environment: model?.environment ?? null,
      };
    } else {
      state.error = `no inference component ${ic.component_name}`;
    }
    const endpoint = await clients.sagemaker.send(
      new DescribeEndpointCommand({ EndpointName: ic.endpoint }),
      options,
    );
    const config = await clients.sagemaker.send(
      new DescribeEndpointConfigCommand({ EndpointConfigName: endpoint.EndpointConfigName }),
      options,
    );
    const pv = (config.ProductionVariants ?? []).find((v) => v.VariantName === ic.variant);
    const mis = pv?.ManagedInstanceScaling;
    state.managedInstanceScaling = mis
      ? { status: mis.Status ?? null, min: mis.MinInstanceCount ?? null, max: mis.MaxInstanceCount ?? null }
      : null;
  } catch (e) {
    state.error = errorText(e);
  }
  const resourceId = icResourceId(ic.component_name);
  const targets = await clients.autoscaling.send(
    new DescribeScalableTargetsCommand({
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceIds: [resourceId],
      ScalableDimension: IC_SCALABLE_DIMENSION,
    }),
    options,
  );
  const target = targets.ScalableTargets?.[0];
  state.scalableTarget = target ? { min: target.MinCapacity ?? null, max: target.MaxCapacity ?? null } : null;
  const policies: ScalingPolicy[] = [];
  let nextToken: string | undefined;
  do {
    const out = await clients.autoscaling.send(
      new DescribeScalingPoliciesCommand({
        ServiceNamespace: SAGEMAKER_NAMESPACE,
        ResourceId: resourceId,
        ScalableDimension: IC_SCALABLE_DIMENSION,
        NextToken: nextToken,
      }),
      options,
    );
    policies.push(...(out.ScalingPolicies ?? []));
    nextToken = out.NextToken;
  } while (nextToken);
  state.policies = policies;
  const names = icStepPolicies(ic).map((step) => step.alarm.name);
  if (names.length > 0) {
    for (const alarm of await describeMetricAlarms(clients.cloudwatch, { names }, options)) {
      if (alarm.AlarmName) state.alarms.set(alarm.AlarmName, alarm);
    }
  }
  return state;
}

/** What `applyInferenceComponentPlan` changed. */
export interface AppliedInferenceComponent {
  /** The model created for a new specification (null: the specification already matched). */
  modelName: string | null;
  policyNames: string[];
  alarmNames: string[];
}

async function putStep(
  clients: Pick<PolicyClients, 'autoscaling' | 'cloudwatch'>,
  ic: InferenceComponentPlan,
  step: IcStepPolicy,
  options: CallOptions,
): Promise<void> {
  const policy = await clients.autoscaling.send(
    new PutScalingPolicyCommand({
      PolicyName: step.name,
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceId: icResourceId(ic.component_name),
      ScalableDimension: IC_SCALABLE_DIMENSION,
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: step.adjustment_type,
        StepAdjustments: icStepAdjustments(step),
        Cooldown: step.cooldown_s,
        MetricAggregationType: 'Maximum',
      },
    }),
    options,
  );
  const a = step.alarm;
  await clients.cloudwatch.send(
    new PutMetricAlarmCommand({
      AlarmName: a.name,
      ActionsEnabled: true,
      AlarmActions: policy.PolicyARN ? [policy.PolicyARN] : [],
      Namespace: IC_NAMESPACE,
      MetricName: a.metric,
      Dimensions: [{ Name: IC_DIMENSION, Value: ic.component_name }],
      Statistic: a.statistic,
      Period: a.period_s,
      EvaluationPeriods: a.evaluation_periods,
      DatapointsToAlarm: a.datapoints_to_alarm,
      Threshold: a.threshold,
      ComparisonOperator: a.comparison,
      TreatMissingData: a.missing_data,
    }),
    options,
  );
}

/**
 * A new specification for the component when its copy's compute or MAX_QUEUE_DEPTH differs from
 * the plan: a new model (the component's model with the plan's environment over it) and
 * UpdateInferenceComponent. Returns the new model's name, or null when nothing differed.
 */
export async function updateComponentSpecification(
  clients: Pick<PolicyClients, 'sagemaker'>,
  ic: InferenceComponentPlan,
  stamp: string,
  options: CallOptions = {},
): Promise<string | null> {
  const d = await describeInferenceComponent(clients, ic.component_name, options);
  if (!d) return null;
  const model = await modelEnvironment(clients, d.Specification?.ModelName, options);
  const req = d.Specification?.ComputeResourceRequirements;
  const envSame = Object.entries(ic.container_environment).every(([k, v]) => model?.environment[k] === v);
  const computeSame =
    (req?.NumberOfAcceleratorDevicesRequired ?? null) === ic.packing.accelerators &&
    (req?.NumberOfCpuCoresRequired ?? null) === ic.packing.cpu_cores &&
    (req?.MinMemoryRequiredInMb ?? null) === ic.packing.memory_mb;
  if (envSame && computeSame) return null;
  let modelName = d.Specification?.ModelName;
  if (!envSame && model) {
    modelName = `${ic.component_name.slice(0, 40).replace(/-+$/, '')}-model-${stamp}`;
    await clients.sagemaker.send(
      new CreateModelCommand({
        ModelName: modelName,
        PrimaryContainer: {
          Image: model.image,
          Mode: 'SingleModel',
          Environment: { ...model.environment, ...ic.container_environment },
        },
        ...(model.role ? { ExecutionRoleArn: model.role } : {}),
      }),
      options,
    );
  }
  await clients.sagemaker.send(
    new UpdateInferenceComponentCommand({
      InferenceComponentName: ic.component_name,
      Specification: {
        ModelName: modelName,
        ComputeResourceRequirements: {
          ...(ic.packing.accelerators !== null
            ? { NumberOfAcceleratorDevicesRequired: ic.packing.accelerators }
            : {}),
          ...(ic.packing.cpu_cores !== null ? { NumberOfCpuCoresRequired: ic.packing.cpu_cores } : {}),
          MinMemoryRequiredInMb: ic.packing.memory_mb,
        },
      },
    }),
    options,
  );
  return modelName ?? null;
}

/** The scaling side: scalable target, copy target tracking, and (min copies 0) the wake and idle rules. Idempotent. */
export async function applyInferenceComponentScaling(
  clients: Pick<PolicyClients, 'autoscaling' | 'cloudwatch'>,
  ic: InferenceComponentPlan,
  options: CallOptions = {},
): Promise<Omit<AppliedInferenceComponent, 'modelName'>> {
  const resourceId = icResourceId(ic.component_name);
  await clients.autoscaling.send(
    new RegisterScalableTargetCommand({
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceId: resourceId,
      ScalableDimension: IC_SCALABLE_DIMENSION,
      MinCapacity: ic.copies.min,
      MaxCapacity: ic.copies.max,
    }),
    options,
  );
  const targetName = icTargetPolicyName(ic);
  await clients.autoscaling.send(
    new PutScalingPolicyCommand({
      PolicyName: targetName,
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceId: resourceId,
      ScalableDimension: IC_SCALABLE_DIMENSION,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: ic.copy_target.value,
        PredefinedMetricSpecification: { PredefinedMetricType: ic.copy_target.predefined_metric },
        ScaleOutCooldown: ic.copy_target.scale_out_cooldown_s,
        ScaleInCooldown: ic.copy_target.scale_in_cooldown_s,
        DisableScaleIn: ic.copy_target.disable_scale_in,
      },
    }),
    options,
  );
  const steps = icStepPolicies(ic);
  for (const step of steps) await putStep(clients, ic, step, options);
  return {
    policyNames: [targetName, ...steps.map((step) => step.name)],
    alarmNames: steps.map((step) => step.alarm.name),
  };
}

/** A component's copy counts and its endpoint's instances, as one poll sees them. */
export interface ComponentCounts {
  /** The component's status (InService, Updating, ...). */
  status: string;
  desired: number;
  current: number;
  /** The endpoint's production variant's current instance count (managed instance scaling). */
  instances: number | null;
}

/** DescribeInferenceComponent and DescribeEndpoint, read together. */
export async function describeComponentCounts(
  clients: Pick<PolicyClients, 'sagemaker'>,
  component: string,
  endpoint: string,
  options: CallOptions = {},
): Promise<ComponentCounts> {
  const [d, e] = await Promise.all([
    clients.sagemaker.send(
      new DescribeInferenceComponentCommand({ InferenceComponentName: component }),
      options,
    ),
    clients.sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpoint }), options),
  ]);
  return {
    status: d.InferenceComponentStatus ?? 'unknown',
    desired: d.RuntimeConfig?.DesiredCopyCount ?? 0,
    current: d.RuntimeConfig?.CurrentCopyCount ?? 0,
    instances: e.ProductionVariants?.[0]?.CurrentInstanceCount ?? null,
  };
}

/** Sets the component's copy count (UpdateInferenceComponentRuntimeConfig), as an operator would. */
export async function setComponentCopyCount(
  clients: Pick<PolicyClients, 'sagemaker'>,
  component: string,
  copies: number,
  options: CallOptions = {},
): Promise<void> {
  await clients.sagemaker.send(
    new UpdateInferenceComponentRuntimeConfigCommand({
      InferenceComponentName: component,
      DesiredRuntimeConfig: { CopyCount: copies },
    }),
    options,
  );
}
