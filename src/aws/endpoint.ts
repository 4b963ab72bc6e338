/**
 * Thin adapters over SageMaker endpoint calls: describe a variant's capacity, set its desired
 * instance count, and read what is deployed (for the live fingerprint). No decisions here.
 */
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  type SageMakerClient,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';

export interface CallOptions {
  abortSignal?: AbortSignal;
}

export interface VariantCapacity {
  endpointStatus: string;
  desired: number | null;
  current: number | null;
  failureReason: string | null;
}

export async function describeVariantCapacity(
  sagemaker: SageMakerClient,
  endpoint: string,
  variant: string,
  options: CallOptions = {},
): Promise<VariantCapacity> {
  const out = await sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpoint }), options);
  const found = (out.ProductionVariants ?? []).find((v) => v.VariantName === variant);
  if (!found) {
    const names = (out.ProductionVariants ?? []).map((v) => v.VariantName).join(', ');
    throw new Error(
      `endpoint ${endpoint} has no production variant ${variant} (variants: ${names || 'none'})`,
    );
  }
  return {
    endpointStatus: out.EndpointStatus ?? 'Unknown',
    desired: found.DesiredInstanceCount ?? null,
    current: found.CurrentInstanceCount ?? null,
    failureReason: out.FailureReason ?? null,
  };
}

export async function setDesiredInstanceCount(
  sagemaker: SageMakerClient,
  endpoint: string,
  variant: string,
  desired: number,
  options: CallOptions = {},
): Promise<void> {
  await sagemaker.send(
    new UpdateEndpointWeightsAndCapacitiesCommand({
      EndpointName: endpoint,
      DesiredWeightsAndCapacities: [{ VariantName: variant, DesiredInstanceCount: desired }],
    }),
    options,
  );
}

export interface DeployedVariant {
  endpointConfigName: string;
  modelName: string;
  instanceType: string;
  /** The image as the model specifies it (tag or digest form; CDK asset tags are content hashes). */
  image: string;
  environment: Record<string, string>;
}

/** DescribeEndpoint -> DescribeEndpointConfig -> DescribeModel for one variant. */
export async function describeDeployedVariant(
  sagemaker: SageMakerClient,
  endpoint: string,
  variant: string,
  options: CallOptions = {},
): Promise<DeployedVariant> {
  const ep = await sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpoint }), options);
  const configName = ep.EndpointConfigName;
  if (!configName) throw new Error(`DescribeEndpoint ${endpoint}: no EndpointConfigName in the answer`);
  const config = await sagemaker.send(
    new DescribeEndpointConfigCommand({ EndpointConfigName: configName }),
    options,
  );
  const pv = (config.ProductionVariants ?? []).find((v) => v.VariantName === variant);
  if (!pv) throw new Error(`endpoint config ${configName} has no production variant ${variant}`);
  if (!pv.ModelName) throw new Error(`endpoint config ${configName}, variant ${variant}: no ModelName`);
  if (!pv.InstanceType) {
    throw new Error(
      `endpoint config ${configName}, variant ${variant}: no InstanceType (serverless variants cannot be measured)`,
    );
  }
  const model = await sagemaker.send(new DescribeModelCommand({ ModelName: pv.ModelName }), options);
  const container = model.PrimaryContainer ?? model.Containers?.[0];
  if (!container?.Image) throw new Error(`model ${pv.ModelName}: no container image`);
  return {
    endpointConfigName: configName,
    modelName: pv.ModelName,
    instanceType: pv.InstanceType,
    image: container.Image,
    environment: { ...(container.Environment ?? {}) },
  };
}
