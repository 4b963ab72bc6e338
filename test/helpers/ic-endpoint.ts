import {
  type ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateInferenceComponentCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  DescribeInferenceComponentCommand,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import { inferenceComponentConfigSchema } from '../../src/model/index.js';
import { eventually } from '../local/helpers.js';

export interface IcHostingEndpoint {
  endpoint: string;
  /** The model the components will name (`<endpoint>-model`). */
  modelName: string;
  image: string;
  roleArn: string;
  environment: Record<string, string>;
  /** Managed instance scaling bounds of the variant. */
  minInstances: number;
  maxInstances: number;
}

/**
 * What a deploy of an inference-component endpoint creates before its components: the model, an
 * endpoint config with managed instance scaling and no model on its variant, the endpoint, awaited
 * InService. Sent through the real SDK client to the local SageMaker.
 */
export async function createIcHostingEndpoint(
  sagemaker: SageMakerClient,
  e: IcHostingEndpoint,
): Promise<void> {
  await sagemaker.send(
    new CreateModelCommand({
      ModelName: e.modelName,
      PrimaryContainer: { Image: e.image, Environment: e.environment },
      ExecutionRoleArn: e.roleArn,
    }),
  );
  await sagemaker.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: `${e.endpoint}-config`,
      ExecutionRoleArn: e.roleArn,
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          InstanceType: 'ml.g5.xlarge',
          InitialInstanceCount: 1,
          ManagedInstanceScaling: {
            Status: 'ENABLED',
            MinInstanceCount: e.minInstances,
            MaxInstanceCount: e.maxInstances,
          },
        },
      ],
    }),
  );
  await sagemaker.send(
    new CreateEndpointCommand({ EndpointName: e.endpoint, EndpointConfigName: `${e.endpoint}-config` }),
  );
  await eventually(async () => {
    const d = await sagemaker.send(new DescribeEndpointCommand({ EndpointName: e.endpoint }));
    return d.EndpointStatus === 'InService' ? true : undefined;
  }, 10_000);
}

/** The packing the IC command tests declare: 2 copies of 2 vCPUs / 4 GiB per instance, 1-4 copies on 1-2 instances. */
export const packedComponentConfig = inferenceComponentConfigSchema.parse({
  copies_per_instance: 2,
  cpu_cores: 2,
  memory_mb: 4096,
  min_copies: 1,
  max_copies: 4,
  instance_bounds: { min: 1, max: 2 },
});

export interface ScalableComponent extends Omit<IcHostingEndpoint, 'minInstances' | 'maxInstances'> {
  component: string;
  /** Copies to create and await serving. */
  copies: number;
}

/**
 * The hosting endpoint (1-2 instances), one component of `packedComponentConfig`'s compute on it
 * and its scalable target (1-4 copies), awaited until `copies` copies serve.
 */
export async function createScalableComponent(
  clients: { sagemaker: SageMakerClient; autoscaling: ApplicationAutoScalingClient },
  c: ScalableComponent,
): Promise<void> {
  const { sagemaker, autoscaling } = clients;
  await createIcHostingEndpoint(sagemaker, { ...c, minInstances: 1, maxInstances: 2 });
  await sagemaker.send(
    new CreateInferenceComponentCommand({
      InferenceComponentName: c.component,
      EndpointName: c.endpoint,
      VariantName: 'AllTraffic',
      Specification: {
        ModelName: c.modelName,
        ComputeResourceRequirements: { NumberOfCpuCoresRequired: 2, MinMemoryRequiredInMb: 4096 },
      },
      RuntimeConfig: { CopyCount: c.copies },
    }),
  );
  await autoscaling.send(
    new RegisterScalableTargetCommand({
      ServiceNamespace: 'sagemaker',
      ResourceId: `inference-component/${c.component}`,
      ScalableDimension: 'sagemaker:inference-component:DesiredCopyCount',
      MinCapacity: 1,
      MaxCapacity: 4,
    }),
  );
  await eventually(async () => {
    const d = await sagemaker.send(
      new DescribeInferenceComponentCommand({ InferenceComponentName: c.component }),
    );
    return d.InferenceComponentStatus === 'InService' && d.RuntimeConfig?.CurrentCopyCount === c.copies
      ? true
      : undefined;
  }, 10_000);
}

/** A component's desired and current copies and its scalable target's suspension flags. */
export async function componentState(
  clients: { sagemaker: SageMakerClient; autoscaling: ApplicationAutoScalingClient },
  component: string,
) {
  const d = await clients.sagemaker.send(
    new DescribeInferenceComponentCommand({ InferenceComponentName: component }),
  );
  const t = await clients.autoscaling.send(
    new DescribeScalableTargetsCommand({
      ServiceNamespace: 'sagemaker',
      ResourceIds: [`inference-component/${component}`],
      ScalableDimension: 'sagemaker:inference-component:DesiredCopyCount',
    }),
  );
  return {
    desired: d.RuntimeConfig?.DesiredCopyCount,
    current: d.RuntimeConfig?.CurrentCopyCount,
    suspended: t.ScalableTargets?.[0]?.SuspendedState,
  };
}
