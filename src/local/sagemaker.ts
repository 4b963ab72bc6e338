/**
 * The SageMaker control plane of the local SageMaker (JSON 1.1, `SageMaker.*`): DescribeEndpoint,
 * DescribeEndpointConfig, DescribeModel, ListEndpoints and UpdateEndpointWeightsAndCapacities,
 * answered from the live fleet; AddTags, DeleteTags and ListTags on its endpoints, endpoint
 * configs and models. Also the `CapacityTarget` that Application Auto Scaling drives.
 */
import { createHash } from 'node:crypto';
import { decodeToken, page } from './autoscaling/input.js';
import { validation } from './aws-error.js';
import type { CapacityTarget, OperationHandler } from './contracts.js';
import type { Endpoint } from './fleet.js';
import { epochSeconds, type Input, memberReader, unknownOperation } from './wire.js';

export class EndpointRegistry {
  private readonly endpoints = new Map<string, Endpoint>();
  /** Tags by resource ARN (endpoint, endpoint config, model), in insertion order as ListTags returns them. */
  readonly tags = new Map<string, Map<string, string>>();

  add(e: Endpoint): void {
    this.endpoints.set(e.name, e);
  }

  get(name: string): Endpoint | undefined {
    return this.endpoints.get(name);
  }

  all(): Endpoint[] {
    return [...this.endpoints.values()];
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
    const o = e.opts;
    const image = {
      SpecifiedImage: o.imageUri,
      ResolvedImage: resolvedImage(o.imageUri),
      ResolutionTime: epochSeconds(e.creationTimeMs),
    };
    return {
      EndpointName: e.name,
      EndpointArn: e.arn,
      EndpointConfigName: o.endpointConfigName,
      ProductionVariants: [
        {
          VariantName: e.variantName,
          DeployedImages: [image],
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
    };
  };

  const describeEndpointConfig = (input: Input) => {
    const r = memberReader(input, validation);
    const name = r.str('EndpointConfigName');
    const e = registry.all().find((x) => x.opts.endpointConfigName === name);
    if (!e) throw validation(`Could not find endpoint configuration "${name}".`);
    return {
      EndpointConfigName: name,
      EndpointConfigArn: `arn:aws:sagemaker:${e.opts.region}:${e.opts.accountId}:endpoint-config/${name.toLowerCase()}`,
      ProductionVariants: [
        {
          VariantName: e.variantName,
          ModelName: e.opts.modelName,
          InitialInstanceCount: e.opts.initialInstanceCount,
          InstanceType: e.opts.instanceType,
          InitialVariantWeight: 1,
          RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
        },
      ],
      CreationTime: epochSeconds(e.creationTimeMs),
    };
  };

  const describeModel = (input: Input) => {
    const r = memberReader(input, validation);
    const name = r.str('ModelName');
    const e = registry.all().find((x) => x.opts.modelName === name);
    if (!e) throw validation(`Could not find model "${name}".`);
    return {
      ModelName: name,
      ModelArn: `arn:aws:sagemaker:${e.opts.region}:${e.opts.accountId}:model/${name.toLowerCase()}`,
      PrimaryContainer: {
        Image: e.opts.imageUri,
        Mode: 'SingleModel',
        Environment: { ...e.environment },
      },
      ExecutionRoleArn: `arn:aws:iam::${e.opts.accountId}:role/scalegate-local-sagemaker-execution`,
      CreationTime: epochSeconds(e.creationTimeMs),
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
    const known = registry.all().some((e) => {
      const prefix = `arn:aws:sagemaker:${e.opts.region}:${e.opts.accountId}:`;
      return [
        e.arn,
        `${prefix}endpoint-config/${e.opts.endpointConfigName.toLowerCase()}`,
        `${prefix}model/${e.opts.modelName.toLowerCase()}`,
      ].includes(arn);
    });
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

  return async (operation, input) => {
    switch (operation) {
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
