/**
 * How a plan's model environment reaches a running endpoint, as on AWS: CreateModel (image and
 * container environment) -> CreateEndpointConfig (the variant: model, instance type, count) ->
 * UpdateEndpoint (blue/green, fleet.ts), plus CreateEndpoint, DeleteEndpoint, DeleteModel and
 * DeleteEndpointConfig. JSON 1.1 wire shapes and ValidationException wording of SageMaker.
 *
 * Limits of the emulator, refused with a message rather than answered wrongly: one production
 * variant per endpoint config (and an update keeps its variant name), single-container models,
 * and deployment configs other than blue/green all at once (the default).
 */
import { type AwsError, validation } from './aws-error.js';
import type { OperationHandler } from './contracts.js';
import type { Endpoint, VariantDeployment } from './fleet.js';
import { type Input, memberReader, type Reader, unknownOperation } from './wire.js';

/** A model as CreateModel made it (immutable). */
export interface ModelRecord {
  name: string;
  arn: string;
  image: string;
  environment: Record<string, string>;
  executionRoleArn: string | null;
  creationTimeMs: number;
}

/** One production variant of an endpoint config. */
export interface VariantRecord {
  variantName: string;
  modelName: string;
  instanceType: string;
  initialInstanceCount: number;
  initialVariantWeight: number;
  routingStrategy: string;
  /** ManagedInstanceScaling (inference-component endpoints: instances follow the copies). */
  managedInstanceScaling?: {
    status: 'ENABLED' | 'DISABLED';
    minInstanceCount: number;
    maxInstanceCount: number;
  };
}

/** A variant without a model hosts inference components (its models come with each component). */
export const hostsInferenceComponents = (v: VariantRecord): boolean => v.modelName === '';

/** An endpoint config as CreateEndpointConfig made it (immutable). */
export interface EndpointConfigRecord {
  name: string;
  arn: string;
  variant: VariantRecord;
  creationTimeMs: number;
  /** Required for an endpoint config whose variant hosts inference components. */
  executionRoleArn?: string;
}

/** Starts a new endpoint on `deployment` (CreateEndpoint): it is Creating until its instances serve. */
export type EndpointFactory = (name: string, variantName: string, deployment: VariantDeployment) => Endpoint;

/** Where models, endpoint configs and endpoints live (the registry of sagemaker.ts). */
export interface DeploymentStore {
  readonly models: Map<string, ModelRecord>;
  readonly configs: Map<string, EndpointConfigRecord>;
  readonly factory?: EndpointFactory | undefined;
  get(name: string): Endpoint | undefined;
  add(e: Endpoint): void;
  remove(e: Endpoint): void;
  arn(kind: 'model' | 'endpoint-config' | 'endpoint', name: string): string;
  deploymentOf(config: EndpointConfigRecord): VariantDeployment;
  /**
   * CreateEndpoint of a config whose variant hosts inference components: the instances of
   * `endpoint` are managed from here on by the inference components (inference-components.ts).
   */
  hostInferenceComponents?(endpoint: Endpoint, config: EndpointConfigRecord): void;
}

/** SageMaker's pattern for model, endpoint config and endpoint names. */
const NAME_PATTERN = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;
const ENV_KEY_PATTERN = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const ROUTING_STRATEGIES = ['LEAST_OUTSTANDING_REQUESTS', 'RANDOM'] as const;
const VARIANT_PROPERTIES = ['DesiredInstanceCount', 'DesiredWeight', 'DataCaptureConfig'] as const;

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

function name(r: Reader, key: string): string {
  const value = r.str(key);
  if (!NAME_PATTERN.test(value)) {
    throw validation(
      `1 validation error detected: Value '${value}' at '${lowerFirst(key)}' failed to satisfy constraint: Member must satisfy regular expression pattern: ^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}`,
    );
  }
  return value;
}

const unsupported = (what: string): AwsError =>
  validation(`${what} is not supported by the local SageMaker.`);

function readEnvironment(raw: Input | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw === undefined) return out;
  const entries = Object.entries(raw);
  if (entries.length > 100)
    throw validation(`Environment has ${entries.length} entries; at most 100 are allowed.`);
  for (const [key, value] of entries) {
    if (!ENV_KEY_PATTERN.test(key) || key.length > 1024)
      throw validation(
        `Environment key '${key.slice(0, 100)}' must match [a-zA-Z_][a-zA-Z0-9_]* (at most 1024 characters).`,
      );
    if (typeof value !== 'string' || value.length > 1024)
      throw validation(`Environment value of '${key}' must be a string of at most 1024 characters.`);
    out[key] = value;
  }
  return out;
}

/** ProductionVariantManagedInstanceScaling: MinInstanceCount 0 allowed (scale to zero). */
function readManagedInstanceScaling(raw: Input | undefined): VariantRecord['managedInstanceScaling'] {
  if (raw === undefined) return undefined;
  const m = memberReader(raw, validation);
  if (m.has('ScaleInPolicy')) throw unsupported('ManagedInstanceScaling.ScaleInPolicy');
  const status = m.oneOf('Status', ['ENABLED', 'DISABLED'] as const);
  const min = m.int('MinInstanceCount', true) ?? 1;
  const max = m.int('MaxInstanceCount', true) ?? min;
  if (min < 0) throw validation('MinInstanceCount must be at least 0.');
  if (max < 1 || max < min)
    throw validation('MaxInstanceCount must be at least 1 and at least MinInstanceCount.');
  return { status, minInstanceCount: min, maxInstanceCount: max };
}

export function createModelOperations(registry: DeploymentStore): OperationHandler {
  const createModel = (input: Input) => {
    const r = memberReader(input, validation);
    const modelName = name(r, 'ModelName');
    if (registry.models.has(modelName))
      throw validation(`Cannot create already existing model "${registry.arn('model', modelName)}".`);
    const containers = r.objList('Containers');
    const primary = r.obj('PrimaryContainer');
    if (primary && containers) throw validation('Specify either PrimaryContainer or Containers, not both.');
    if (containers && containers.length !== 1) throw unsupported('A model of more than one container');
    const container = primary ?? containers?.[0];
    if (!container) throw validation('PrimaryContainer or Containers is required.');
    const c = memberReader(container, validation);
    const image = c.str('Image');
    const mode = c.str('Mode', true) ?? 'SingleModel';
    if (mode !== 'SingleModel') throw unsupported(`Container mode ${mode}`);
    const model: ModelRecord = {
      name: modelName,
      arn: registry.arn('model', modelName),
      image,
      environment: readEnvironment(c.obj('Environment')),
      executionRoleArn: r.str('ExecutionRoleArn', true) ?? null,
      creationTimeMs: Date.now(),
    };
    registry.models.set(modelName, model);
    return { ModelArn: model.arn };
  };

  const deleteModel = (input: Input) => {
    const r = memberReader(input, validation);
    const modelName = r.str('ModelName');
    if (!registry.models.delete(modelName))
      throw validation(`Could not find model "${registry.arn('model', modelName)}".`);
    return {};
  };

  const createEndpointConfig = (input: Input) => {
    const r = memberReader(input, validation);
    const configName = name(r, 'EndpointConfigName');
    if (registry.configs.has(configName)) {
      throw validation(
        `Cannot create already existing endpoint configuration "${registry.arn('endpoint-config', configName)}".`,
      );
    }
    const variants = r.objList('ProductionVariants') ?? [];
    if (variants.length === 0) throw validation('ProductionVariants must hold at least one variant.');
    if (variants.length > 1) throw unsupported('An endpoint config of more than one production variant');
    const v = memberReader(variants[0] as Input, validation);
    // No model: the variant hosts inference components, which bring their models.
    const modelName = v.str('ModelName', true) ?? '';
    if (modelName !== '' && !registry.models.has(modelName))
      throw validation(`Could not find model "${registry.arn('model', modelName)}".`);
    if (v.has('ServerlessConfig')) throw unsupported('A serverless variant');
    const count = v.int('InitialInstanceCount');
    if (count < 1) throw validation('InitialInstanceCount must be at least 1.');
    const managed = readManagedInstanceScaling(v.obj('ManagedInstanceScaling'));
    const executionRoleArn = r.str('ExecutionRoleArn', true);
    if (modelName === '' && executionRoleArn === undefined)
      throw validation(
        'ExecutionRoleArn is required for an endpoint configuration whose production variant hosts inference components.',
      );
    const weight = v.num('InitialVariantWeight', true) ?? 1;
    if (weight < 0) throw validation('InitialVariantWeight must be at least 0.');
    const routing = v.obj('RoutingConfig');
    const variant: VariantRecord = {
      variantName: name(v, 'VariantName'),
      modelName,
      instanceType: v.str('InstanceType'),
      initialInstanceCount: count,
      initialVariantWeight: weight,
      routingStrategy: routing
        ? memberReader(routing, validation).oneOf('RoutingStrategy', ROUTING_STRATEGIES)
        : 'RANDOM',
      ...(managed ? { managedInstanceScaling: managed } : {}),
    };
    const config: EndpointConfigRecord = {
      name: configName,
      arn: registry.arn('endpoint-config', configName),
      variant,
      creationTimeMs: Date.now(),
      ...(executionRoleArn !== undefined ? { executionRoleArn } : {}),
    };
    registry.configs.set(configName, config);
    return { EndpointConfigArn: config.arn };
  };

  const deleteEndpointConfig = (input: Input) => {
    const r = memberReader(input, validation);
    const configName = r.str('EndpointConfigName');
    if (!registry.configs.delete(configName))
      throw validation(`Could not find endpoint configuration "${configName}".`);
    return {};
  };

  const configByName = (configName: string): EndpointConfigRecord => {
    const c = registry.configs.get(configName);
    if (!c) throw validation(`Could not find endpoint configuration "${configName}".`);
    return c;
  };

  /** Only what the emulator does (blue/green, all at once) is accepted. */
  const checkDeploymentConfig = (raw: Input | undefined): void => {
    if (raw === undefined) return;
    const d = memberReader(raw, validation);
    if (d.has('RollingUpdatePolicy')) throw unsupported('RollingUpdatePolicy');
    if (d.has('AutoRollbackConfiguration')) throw unsupported('AutoRollbackConfiguration');
    const policy = d.obj('BlueGreenUpdatePolicy');
    const routing = policy ? memberReader(policy, validation).obj('TrafficRoutingConfiguration') : undefined;
    const type = routing ? memberReader(routing, validation).str('Type') : 'ALL_AT_ONCE';
    if (type !== 'ALL_AT_ONCE') throw unsupported(`Traffic routing ${type}`);
  };

  const updateEndpoint = (input: Input) => {
    const r = memberReader(input, validation);
    const endpointName = r.str('EndpointName');
    const e = registry.get(endpointName);
    if (!e) throw validation(`Could not find endpoint "${endpointName}".`);
    const config = configByName(r.str('EndpointConfigName'));
    const current = registry.configs.get(e.deployment.endpointConfigName);
    if (hostsInferenceComponents(config.variant) || (current && hostsInferenceComponents(current.variant)))
      throw unsupported('UpdateEndpoint of an endpoint that hosts inference components');
    if (config.variant.variantName !== e.variantName) {
      throw unsupported(
        `Replacing production variant ${e.variantName} of endpoint "${endpointName}" with ${config.variant.variantName}`,
      );
    }
    const retainAll = r.bool('RetainAllVariantProperties') ?? false;
    const excluded = (r.objList('ExcludeRetainedVariantProperties') ?? []).map((p) =>
      memberReader(p, validation).oneOf('VariantPropertyType', VARIANT_PROPERTIES),
    );
    if (excluded.length > 0 && !retainAll)
      throw validation('ExcludeRetainedVariantProperties requires RetainAllVariantProperties to be true.');
    checkDeploymentConfig(r.obj('DeploymentConfig'));
    e.update(registry.deploymentOf(config), retainAll && !excluded.includes('DesiredInstanceCount'));
    return { EndpointArn: e.arn };
  };

  const createEndpoint = (input: Input) => {
    const r = memberReader(input, validation);
    const endpointName = name(r, 'EndpointName');
    if (registry.get(endpointName))
      throw validation(
        `Cannot create already existing endpoint "${registry.arn('endpoint', endpointName)}".`,
      );
    const config = configByName(r.str('EndpointConfigName'));
    checkDeploymentConfig(r.obj('DeploymentConfig'));
    if (!registry.factory) throw unsupported('CreateEndpoint on this emulator');
    if (hostsInferenceComponents(config.variant)) {
      if (!registry.hostInferenceComponents) throw unsupported('An endpoint that hosts inference components');
      const hosting = registry.factory(endpointName, config.variant.variantName, {
        endpointConfigName: config.name,
        modelName: '',
        imageUri: '',
        environment: {},
        instanceType: config.variant.instanceType,
        initialInstanceCount: config.variant.initialInstanceCount,
        deployedAtMs: Date.now(),
      });
      registry.add(hosting);
      registry.hostInferenceComponents(hosting, config);
      return { EndpointArn: hosting.arn };
    }
    const deployment = registry.deploymentOf(config);
    const e = registry.factory(endpointName, config.variant.variantName, deployment);
    registry.add(e);
    // Creating until its instances serve; a deployment that cannot start ends Failed.
    e.deploy(deployment.initialInstanceCount).catch((err: unknown) => {
      e.status = 'Failed';
      e.failureReason = err instanceof Error ? err.message : String(err);
      e.lastModifiedTimeMs = Date.now();
      e.emit('change');
    });
    return { EndpointArn: e.arn };
  };

  const deleteEndpoint = (input: Input) => {
    const r = memberReader(input, validation);
    const endpointName = r.str('EndpointName');
    const e = registry.get(endpointName);
    if (!e) throw validation(`Could not find endpoint "${endpointName}".`);
    if (e.status !== 'Deleting') {
      void e.delete().then(() => registry.remove(e));
    }
    return {};
  };

  return async (operation, input) => {
    switch (operation) {
      case 'CreateModel':
        return createModel(input);
      case 'DeleteModel':
        return deleteModel(input);
      case 'CreateEndpointConfig':
        return createEndpointConfig(input);
      case 'DeleteEndpointConfig':
        return deleteEndpointConfig(input);
      case 'CreateEndpoint':
        return createEndpoint(input);
      case 'UpdateEndpoint':
        return updateEndpoint(input);
      case 'DeleteEndpoint':
        return deleteEndpoint(input);
      default:
        throw unknownOperation(operation);
    }
  };
}
