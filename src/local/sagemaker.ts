/**
 * The SageMaker control plane of the local SageMaker (JSON 1.1, `SageMaker.*`): models
 * (CreateModel, DescribeModel, DeleteModel), endpoint configs (CreateEndpointConfig,
 * DescribeEndpointConfig, DeleteEndpointConfig), endpoints (CreateEndpoint, DescribeEndpoint,
 * UpdateEndpoint, DeleteEndpoint, ListEndpoints, UpdateEndpointWeightsAndCapacities), answered
 * from the live fleet. Models and endpoint configs are immutable records, as on AWS: a new
 * environment is a new model and endpoint config, deployed with UpdateEndpoint (blue/green, see
 * fleet.ts). Also the `CapacityTarget` that Application Auto Scaling drives.
 * AddTags, DeleteTags and ListTags on its endpoints, endpoint configs and models.
 */
import { createHash } from 'node:crypto';
import { decodeToken, page } from './autoscaling/input.js';
import { validation } from './aws-error.js';
import type { CapacityTarget, OperationHandler } from './contracts.js';
import type { Endpoint, VariantDeployment } from './fleet.js';
import type { InferenceComponents } from './inference-components.js';
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
  /** Tags by resource ARN (endpoint, endpoint config, model), in insertion order as ListTags returns them. */
  readonly tags = new Map<string, Map<string, string>>();
  readonly models = new Map<string, ModelRecord>();
  readonly configs = new Map<string, EndpointConfigRecord>();
  /** The inference components and the endpoints that host them (set by startLocalSageMaker). */
  inferenceComponents: InferenceComponents | undefined;

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

  hostInferenceComponents(endpoint: Endpoint, config: EndpointConfigRecord): void {
    if (!this.inferenceComponents)
      throw validation(
        'An endpoint that hosts inference components is not supported by the local SageMaker.',
      );
    this.inferenceComponents.host(endpoint, config);
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

/** SageMaker's resource ARN pattern (AddTags, DeleteTags, ListTags: `ResourceArn`, at most 256). */
const RESOURCE_ARN = /^arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+$/;
/** Tag keys and values: letters, digits, spaces and `_.:/=+-@` (keys 1-128, values 0-256). */
const TAG_TEXT = /^[\p{L}\p{Z}\p{N}_.:/=+\-@]*$/u;
/** User tags one resource may carry. */
export const MAX_TAGS_PER_RESOURCE = 50;

const constraint = (value: string, member: string, what: string) =>
  validation(
    `1 validation error detected: Value '${value}' at '${member}' failed to satisfy constraint: ${what}`,
  );

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
    // An endpoint hosting inference components counts its emulated instances (the copies are the processes).
    const hosted = registry.inferenceComponents?.counts(e.name);
    if (hosted) {
      const managed = registry.configs.get(d.endpointConfigName)?.variant.managedInstanceScaling;
      return {
        EndpointName: e.name,
        EndpointArn: e.arn,
        EndpointConfigName: d.endpointConfigName,
        ProductionVariants: [
          {
            VariantName: e.variantName,
            CurrentWeight: 1,
            DesiredWeight: 1,
            CurrentInstanceCount: hosted.current,
            DesiredInstanceCount: hosted.desired,
            ...(managed
              ? {
                  ManagedInstanceScaling: {
                    Status: managed.status,
                    MinInstanceCount: managed.minInstanceCount,
                    MaxInstanceCount: managed.maxInstanceCount,
                  },
                }
              : {}),
          },
        ],
        EndpointStatus: e.status,
        ...(e.failureReason ? { FailureReason: e.failureReason } : {}),
        CreationTime: epochSeconds(e.creationTimeMs),
        LastModifiedTime: epochSeconds(e.lastModifiedTimeMs),
      };
    }
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
          // No model: the variant hosts inference components.
          ...(v.modelName !== '' ? { ModelName: v.modelName } : {}),
          InitialInstanceCount: v.initialInstanceCount,
          InstanceType: v.instanceType,
          InitialVariantWeight: v.initialVariantWeight,
          RoutingConfig: { RoutingStrategy: v.routingStrategy },
          ...(v.managedInstanceScaling
            ? {
                ManagedInstanceScaling: {
                  Status: v.managedInstanceScaling.status,
                  MinInstanceCount: v.managedInstanceScaling.minInstanceCount,
                  MaxInstanceCount: v.managedInstanceScaling.maxInstanceCount,
                },
              }
            : {}),
        },
      ],
      ...(c.executionRoleArn ? { ExecutionRoleArn: c.executionRoleArn } : {}),
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
    if (registry.inferenceComponents?.counts(e.name))
      throw validation(
        `Endpoint "${e.arn}" hosts inference components: its instances follow their copies (managed instance scaling); change copy counts instead.`,
      );
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

  /** The tags of an existing resource; a malformed or unknown ARN is the service's ValidationException. */
  const tagsOf = (r: ReturnType<typeof memberReader>): Map<string, string> => {
    const arn = r.str('ResourceArn');
    if (arn.length > 256 || !RESOURCE_ARN.test(arn)) {
      throw constraint(
        arn,
        'resourceArn',
        'Member must satisfy regular expression pattern: arn:aws[a-z-]*:sagemaker:[a-z0-9-]*:[0-9]{12}:.+',
      );
    }
    const known =
      registry.all().some((e) => e.arn === arn) ||
      [...registry.models.values(), ...registry.configs.values()].some((record) => record.arn === arn);
    if (!known) throw validation(`Resource ${arn} does not exist.`);
    let tags = registry.tags.get(arn);
    if (!tags) {
      tags = new Map();
      registry.tags.set(arn, tags);
    }
    return tags;
  };

  const checkKey = (key: string, member: string) => {
    if (key.length < 1 || key.length > 128)
      throw constraint(key, member, 'Member must have length between 1 and 128');
    if (!TAG_TEXT.test(key))
      throw constraint(
        key,
        member,
        'Member must satisfy regular expression pattern: ([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)',
      );
  };

  const addTags = (input: Input) => {
    const r = memberReader(input, validation);
    const tags = tagsOf(r);
    const items = r.list('Tags');
    if (items.length > MAX_TAGS_PER_RESOURCE)
      throw constraint(
        '[...]',
        'tags',
        `Member must have length less than or equal to ${MAX_TAGS_PER_RESOURCE}`,
      );
    const next = new Map(tags);
    items.forEach((raw, i) => {
      const item = memberReader((raw ?? {}) as Input, validation);
      const key = item.str('Key');
      const value = item.str('Value', true) ?? '';
      checkKey(key, `tags.${i + 1}.member.key`);
      if (value.length > 256 || !TAG_TEXT.test(value)) {
        throw constraint(
          value,
          `tags.${i + 1}.member.value`,
          'Member must satisfy regular expression pattern: ([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*) and have length less than or equal to 256',
        );
      }
      if (key.toLowerCase().startsWith('aws:'))
        throw validation(`Tag keys beginning with "aws:" are reserved: ${key}.`);
      next.set(key, value);
    });
    if (next.size > MAX_TAGS_PER_RESOURCE) {
      throw validation(
        `Too many tags: a resource can have at most ${MAX_TAGS_PER_RESOURCE} tags (would have ${next.size}).`,
      );
    }
    // All or nothing: the tags change only once every one of them is valid.
    tags.clear();
    for (const [k, v] of next) tags.set(k, v);
    return { Tags: items.map((raw) => ({ Key: (raw as Input).Key, Value: (raw as Input).Value ?? '' })) };
  };

  const deleteTags = (input: Input) => {
    const r = memberReader(input, validation);
    const tags = tagsOf(r);
    const keys = r.strList('TagKeys') ?? [];
    if (keys.length < 1 || keys.length > MAX_TAGS_PER_RESOURCE)
      throw constraint('[...]', 'tagKeys', `Member must have length between 1 and ${MAX_TAGS_PER_RESOURCE}`);
    keys.forEach((key, i) => {
      checkKey(key, `tagKeys.${i + 1}.member`);
    });
    // Keys the resource does not carry are ignored, as AWS ignores them.
    for (const key of keys) tags.delete(key);
    return {};
  };

  const listTags = (input: Input) => {
    const r = memberReader(input, validation);
    const tags = tagsOf(r);
    const max = r.int('MaxResults', true) ?? 50;
    if (max < 50)
      throw constraint(String(max), 'maxResults', 'Member must have value greater than or equal to 50');
    const all = [...tags.entries()].map(([Key, Value]) => ({ Key, Value }));
    const scope = `tags:${r.str('ResourceArn')}`;
    const { items, nextToken } = page(
      all,
      decodeToken(r.str('NextToken', true), scope, validation),
      max,
      scope,
    );
    return { Tags: items, ...(nextToken ? { NextToken: nextToken } : {}) };
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
      case 'AddTags':
        return addTags(input);
      case 'DeleteTags':
        return deleteTags(input);
      case 'ListTags':
        return listTags(input);
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
      case 'CreateInferenceComponent':
      case 'DescribeInferenceComponent':
      case 'UpdateInferenceComponent':
      case 'UpdateInferenceComponentRuntimeConfig':
      case 'DeleteInferenceComponent':
      case 'ListInferenceComponents':
        if (!registry.inferenceComponents) throw unknownOperation(operation);
        return registry.inferenceComponents.operations(operation, input);
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
