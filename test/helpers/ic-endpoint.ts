import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
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
