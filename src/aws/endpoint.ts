/**
 * Thin adapters over SageMaker endpoint calls: describe a variant's capacity, set its desired
 * instance count, read what is deployed (for the live fingerprint), and deploy a new model onto
 * an endpoint (CreateModel, CreateEndpointConfig, UpdateEndpoint). No decisions here.
 */
import {
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeInferenceComponentCommand,
  DescribeModelCommand,
  ListInferenceComponentsCommand,
  type ProductionVariant,
  type SageMakerClient,
  UpdateEndpointCommand,
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

/** The model of the (one) inference component an endpoint hosts; null when it hosts none. */
async function componentModel(
  sagemaker: SageMakerClient,
  endpoint: string,
  options: CallOptions,
): Promise<string | null> {
  const list = await sagemaker.send(
    new ListInferenceComponentsCommand({ EndpointNameEquals: endpoint, MaxResults: 1 }),
    options,
  );
  const name = list.InferenceComponents?.[0]?.InferenceComponentName;
  if (!name) return null;
  const d = await sagemaker.send(
    new DescribeInferenceComponentCommand({ InferenceComponentName: name }),
    options,
  );
  return d.Specification?.ModelName ?? null;
}

/** DescribeEndpoint -> DescribeEndpointConfig -> DescribeModel for one variant (or its component's model). */
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
  // A variant hosting an inference component names no model: the component's is the one served.
  const modelName = pv.ModelName ?? (await componentModel(sagemaker, endpoint, options));
  if (!modelName) throw new Error(`endpoint config ${configName}, variant ${variant}: no ModelName`);
  if (!pv.InstanceType) {
    throw new Error(
      `endpoint config ${configName}, variant ${variant}: no InstanceType (serverless variants cannot be measured)`,
    );
  }
  const model = await sagemaker.send(new DescribeModelCommand({ ModelName: modelName }), options);
  const container = model.PrimaryContainer ?? model.Containers?.[0];
  if (!container?.Image) throw new Error(`model ${modelName}: no container image`);
  return {
    endpointConfigName: configName,
    modelName,
    instanceType: pv.InstanceType,
    image: container.Image,
    environment: { ...(container.Environment ?? {}) },
  };
}

/** What a new model for the same variant needs from the deployed one (the endpoint config's variant, the model's role). */
export interface DeployedModel extends DeployedVariant {
  /** The deployed endpoint config's variant, as CreateEndpointConfig takes it. */
  variant: ProductionVariant;
  executionRoleArn: string | null;
}

export async function describeDeployedModel(
  sagemaker: SageMakerClient,
  endpoint: string,
  variant: string,
  options: CallOptions = {},
): Promise<DeployedModel> {
  const deployed = await describeDeployedVariant(sagemaker, endpoint, variant, options);
  const config = await sagemaker.send(
    new DescribeEndpointConfigCommand({ EndpointConfigName: deployed.endpointConfigName }),
    options,
  );
  const pv = (config.ProductionVariants ?? []).find((v) => v.VariantName === variant) as ProductionVariant;
  const model = await sagemaker.send(new DescribeModelCommand({ ModelName: deployed.modelName }), options);
  return { ...deployed, variant: pv, executionRoleArn: model.ExecutionRoleArn ?? null };
}

export async function createModel(
  sagemaker: SageMakerClient,
  model: {
    name: string;
    image: string;
    environment: Record<string, string>;
    executionRoleArn: string | null;
  },
  options: CallOptions = {},
): Promise<string | null> {
  const out = await sagemaker.send(
    new CreateModelCommand({
      ModelName: model.name,
      PrimaryContainer: { Image: model.image, Mode: 'SingleModel', Environment: model.environment },
      ...(model.executionRoleArn ? { ExecutionRoleArn: model.executionRoleArn } : {}),
    }),
    options,
  );
  return out.ModelArn ?? null;
}

export async function createEndpointConfig(
  sagemaker: SageMakerClient,
  name: string,
  variant: ProductionVariant,
  options: CallOptions = {},
): Promise<string | null> {
  const out = await sagemaker.send(
    new CreateEndpointConfigCommand({ EndpointConfigName: name, ProductionVariants: [variant] }),
    options,
  );
  return out.EndpointConfigArn ?? null;
}

/** UpdateEndpoint; `retainVariantProperties` keeps the variant's current desired count and weight. */
export async function updateEndpoint(
  sagemaker: SageMakerClient,
  endpoint: string,
  endpointConfigName: string,
  retainVariantProperties: boolean,
  options: CallOptions = {},
): Promise<void> {
  await sagemaker.send(
    new UpdateEndpointCommand({
      EndpointName: endpoint,
      EndpointConfigName: endpointConfigName,
      RetainAllVariantProperties: retainVariantProperties,
    }),
    options,
  );
}

/** Status, the endpoint config in use, and the reason of the last failed update. */
export async function describeEndpointDeployment(
  sagemaker: SageMakerClient,
  endpoint: string,
  options: CallOptions = {},
): Promise<{ status: string; endpointConfigName: string | null; failureReason: string | null }> {
  const out = await sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpoint }), options);
  return {
    status: out.EndpointStatus ?? 'Unknown',
    endpointConfigName: out.EndpointConfigName ?? null,
    failureReason: out.FailureReason ?? null,
  };
}
