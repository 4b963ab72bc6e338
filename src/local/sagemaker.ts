/**
 * The SageMaker control plane of the local SageMaker (JSON 1.1, `SageMaker.*`): models
 * (CreateModel, DescribeModel, DeleteModel), endpoint configs (CreateEndpointConfig,
 * DescribeEndpointConfig, DeleteEndpointConfig), endpoints (CreateEndpoint, DescribeEndpoint,
 * UpdateEndpoint, DeleteEndpoint, ListEndpoints, UpdateEndpointWeightsAndCapacities), answered
 * from the live fleet. Models and endpoint configs are immutable records, as on AWS: a new
 * environment is a new model and endpoint config, deployed with UpdateEndpoint (blue/green, see
 * fleet.ts). Also the `CapacityTarget` that Application Auto Scaling drives.
 */
import { createHash } from 'node:crypto';
import { validation } from './aws-error.js';
import type { CapacityTarget, OperationHandler } from './contracts.js';
import type { Endpoint, VariantDeployment } from './fleet.js';
import {
  createModelOperations,
  type DeploymentStore,
  type EndpointConfigRecord,
  type EndpointFactory,
  type ModelRecord,
} from './models.js';
import { epochSeconds, type Input, memberReader, unknownOperation } from './wire.js';

export class EndpointRegistry implements DeploymentStore {
  private readonly endpoints = new Map<string, Endpoint>();
  readonly models = new Map<string, ModelRecord>();
  readonly configs = new Map<string, EndpointConfigRecord>();

  constructor(
    readonly region: string,
    readonly accountId: string,
    /** CreateEndpoint; absent: the emulator serves only the endpoints it was started with. */
    readonly factory?: EndpointFactory,
  ) {}

  add(e: Endpoint): void {
    this.endpoints.set(e.name, e);
  }

  get(name: string): Endpoint | undefined {
    return this.endpoints.get(name);
  }

  remove(e: Endpoint): void {
    if (this.endpoints.get(e.name) === e) this.endpoints.delete(e.name);
  }

  all(): Endpoint[] {
    return [...this.endpoints.values()];
  }

  /** `arn:aws:sagemaker:<region>:<account>:<kind>/<name in lower case>`, as SageMaker writes them. */
  arn(kind: 'model' | 'endpoint-config' | 'endpoint', name: string): string {
    return `arn:aws:sagemaker:${this.region}:${this.accountId}:${kind}/${name.toLowerCase()}`;
  }

  /** The deployment an endpoint config describes (its variant's model, image and environment). */
  deploymentOf(config: EndpointConfigRecord): VariantDeployment {
    const model = this.models.get(config.variant.modelName);
    if (!model) throw validation(`Could not find model "${this.arn('model', config.variant.modelName)}".`);
    return {
      endpointConfigName: config.name,
      modelName: model.name,
      imageUri: model.image,
      environment: { ...model.environment },
      instanceType: config.variant.instanceType,
      initialInstanceCount: config.variant.initialInstanceCount,
      deployedAtMs: Date.now(),
    };
  }
}

/** `<repo>:<tag>` -> `<repo>@sha256:<digest>`: a 64-hex tag (a CDK asset hash) is used as the digest. */
export function resolvedImage(imageUri: string): string {
  const at = imageUri.indexOf('@sha256:');
  if (at >= 0) return imageUri;
  const slash = imageUri.lastIndexOf('/');
  const colon = imageUri.lastIndexOf(':');
  const repo = colon > slash ? imageUri.slice(0, colon) : imageUri;
  const tag = colon > slash ? imageUri.slice(colon + 1) : 'latest';
  const digest = /^[0-9a-f]{64}$/.test(tag) ? tag : createHash('sha256').update(imageUri).digest('hex');
  return `${repo}@sha256:${digest}`;
}

export function createSageMakerOperations(registry: EndpointRegistry): OperationHandler {
  const endpointByName = (name: string): Endpoint => {
    const e = registry.get(name);
    if (!e) throw validation(`Could not find endpoint "${name}".`);
    return e;
  };

  const describeEndpoint = (input: Input) => {
    const r = memberReader(input, validation);
    const e = endpointByName(r.str('EndpointName'));
    const d = e.deployment;
    const image = (deployment: VariantDeployment) => ({
      SpecifiedImage: deployment.imageUri,
      ResolvedImage: resolvedImage(deployment.imageUri),
      ResolutionTime: epochSeconds(deployment.deployedAtMs),
    });
    const pending = e.pending;
    return {
      EndpointName: e.name,
      EndpointArn: e.arn,
      EndpointConfigName: d.endpointConfigName,
      ProductionVariants: [
        {
          VariantName: e.variantName,
          DeployedImages: [image(d)],
          CurrentWeight: 1,
          DesiredWeight: 1,
          CurrentInstanceCount: e.current,
          DesiredInstanceCount: e.desired,
          ...(e.status === 'Updating' || e.status === 'Creating'
            ? {
                VariantStatus: [
                  {
                    Status: e.status,
                    StatusMessage: `${e.current} of ${e.desired} instances in service`,
                    StartTime: epochSeconds(e.lastModifiedTimeMs),
                  },
                ],
              }
            : {}),
        },
      ],
      EndpointStatus: e.status,
      ...(e.failureReason ? { FailureReason: e.failureReason } : {}),
      CreationTime: epochSeconds(e.creationTimeMs),
      LastModifiedTime: epochSeconds(e.lastModifiedTimeMs),
      // The endpoint config an UpdateEndpoint is deploying, until traffic has shifted to it.
      ...(pending
        ? {
            PendingDeploymentSummary: {
              EndpointConfigName: pending.deployment.endpointConfigName,
              StartTime: epochSeconds(pending.startMs),
              ProductionVariants: [
                {
                  VariantName: e.variantName,
                  DeployedImages: [image(pending.deployment)],
                  CurrentInstanceCount: e.pendingInService,
                  DesiredInstanceCount: pending.desired,
                  InstanceType: pending.deployment.instanceType,
                  VariantStatus: [
                    {
                      Status: 'Creating',
                      StatusMessage: `${e.pendingInService} of ${pending.desired} instances in service`,
                      StartTime: epochSeconds(pending.startMs),
                    },
                  ],
                },
              ],
            },
          }
        : {}),
    };
  };

  const describeEndpointConfig = (input: Input) => {
    const r = memberReader(input, validation);
    const name = r.str('EndpointConfigName');
    const c = registry.configs.get(name);
    if (!c) throw validation(`Could not find endpoint configuration "${name}".`);
    const v = c.variant;
    return {
      EndpointConfigName: c.name,
      EndpointConfigArn: c.arn,
      ProductionVariants: [
        {
          VariantName: v.variantName,
          ModelName: v.modelName,
          InitialInstanceCount: v.initialInstanceCount,
          InstanceType: v.instanceType,
          InitialVariantWeight: v.initialVariantWeight,
          RoutingConfig: { RoutingStrategy: v.routingStrategy },
        },
      ],
      CreationTime: epochSeconds(c.creationTimeMs),
    };
  };

  const describeModel = (input: Input) => {
    const r = memberReader(input, validation);
    const name = r.str('ModelName');
    const m = registry.models.get(name);
    if (!m) throw validation(`Could not find model "${registry.arn('model', name)}".`);
    return {
      ModelName: m.name,
      ModelArn: m.arn,
      PrimaryContainer: {
        Image: m.image,
        Mode: 'SingleModel',
        Environment: { ...m.environment },
      },
      ...(m.executionRoleArn ? { ExecutionRoleArn: m.executionRoleArn } : {}),
      CreationTime: epochSeconds(m.creationTimeMs),
      EnableNetworkIsolation: false,
    };
  };

  const listEndpoints = () => ({
    Endpoints: registry.all().map((e) => ({
      EndpointName: e.name,
      EndpointArn: e.arn,
      CreationTime: epochSeconds(e.creationTimeMs),
      LastModifiedTime: epochSeconds(e.lastModifiedTimeMs),
      EndpointStatus: e.status,
    })),
  });

  const updateWeightsAndCapacities = (input: Input) => {
    const r = memberReader(input, validation);
    const e = endpointByName(r.str('EndpointName'));
    const items = r.list('DesiredWeightsAndCapacities');
    if (items.length === 0) throw validation('DesiredWeightsAndCapacities must not be empty.');
    let count: number | undefined;
    for (const raw of items) {
      const item = memberReader((raw ?? {}) as Input, validation);
      const variant = item.str('VariantName');
      if (variant !== e.variantName)
        throw validation(`The variant name(s) [${variant}] is/are not present in the endpoint "${e.name}".`);
      const weight = item.num('DesiredWeight', true);
      if (weight !== undefined && weight < 0) throw validation('DesiredWeight must be at least 0.');
      count = item.num('DesiredInstanceCount', true) ?? count;
    }
    // Only a weight change (one variant: nothing to shift) is accepted as a no-op update.
    e.setDesired(count ?? e.desired);
    return { EndpointArn: e.arn };
  };

  const deployments = createModelOperations(registry);

  return async (operation, input) => {
    switch (operation) {
      case 'CreateModel':
      case 'DeleteModel':
      case 'CreateEndpointConfig':
      case 'DeleteEndpointConfig':
      case 'CreateEndpoint':
      case 'UpdateEndpoint':
      case 'DeleteEndpoint':
        return deployments(operation, input);
      case 'DescribeEndpoint':
        return describeEndpoint(input);
      case 'DescribeEndpointConfig':
        return describeEndpointConfig(input);
      case 'DescribeModel':
        return describeModel(input);
      case 'ListEndpoints':
        return listEndpoints();
      case 'UpdateEndpointWeightsAndCapacities':
        return updateWeightsAndCapacities(input);
      default:
        throw unknownOperation(operation);
    }
  };
}

/** `endpoint/<endpoint>/variant/<variant>` -> that variant's capacity, for Application Auto Scaling. */
export function createCapacityTarget(registry: EndpointRegistry): CapacityTarget {
  const find = (resourceId: string): Endpoint | undefined => {
    const m = /^endpoint\/([^/]+)\/variant\/([^/]+)$/.exec(resourceId);
    if (!m) return undefined;
    const e = registry.get(m[1] as string);
    return e && e.variantName === m[2] ? e : undefined;
  };
  return {
    describe(resourceId) {
      const e = find(resourceId);
      return e ? { desired: e.desired, current: e.current, status: e.status } : undefined;
    },
    async setDesired(resourceId, desired) {
      const e = find(resourceId);
      if (!e) throw validation(`Could not find endpoint variant for resource ${resourceId}.`);
      e.setDesired(desired);
    },
  };
}
