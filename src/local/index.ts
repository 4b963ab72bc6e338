/**
 * The local SageMaker: one loopback HTTP server speaking the AWS protocols the tool uses, one
 * endpoint backed by real container processes. `startLocalSageMaker()` resolves once the
 * endpoint is InService with its initial instances.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createAutoScaling } from './autoscaling/index.js';
import type { EmulatedDevice } from './contracts.js';
import { checkEmulatedDevice, deviceEnvironment, startupDelaysMs } from './device.js';
import { SERVICE_METRICS_ENV } from './emf.js';
import { type FaultOptions, Faults } from './faults.js';
import {
  type ContainerSpec,
  Endpoint,
  type EndpointOptions,
  type EndpointStatus,
  type InstanceInfo,
  type VariantDeployment,
} from './fleet.js';
import { combinedCapacityTarget, InferenceComponents } from './inference-components.js';
import { LogStore } from './logs.js';
import { createMetricOperations, MetricStore } from './metrics.js';
import { createPricing } from './pricing.js';
import { createServiceQuotas } from './quotas.js';
import { Runtime } from './runtime.js';
import { createCapacityTarget, createSageMakerOperations, EndpointRegistry } from './sagemaker.js';
import { startServer } from './server.js';

export { clientConfigFor } from './aws-env.js';
export type { DeviceProfile, EmulatedDevice, StartupProfile } from './contracts.js';
export { describeEmulatedDevice } from './device.js';
export type { FaultOptions } from './faults.js';
export type { ContainerSpec, EndpointStatus, InstanceInfo } from './fleet.js';

export interface LocalSageMakerOptions {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  endpointName?: string;
  variantName?: string;
  region?: string;
  accountId?: string;
  /** Initial instance count (default 1). */
  instances?: number;
  instanceType?: string;
  /** Seconds from a capacity request to the instance's process starting (default 2). */
  provisionDelayS?: number;
  /** MAX_QUEUE_DEPTH of the model environment (default 64, the reference container's). */
  maxQueueDepth?: number;
  /** WORKERS of the model environment (default 1). */
  workers?: number;
  /** More model environment (applied before MAX_QUEUE_DEPTH / WORKERS). */
  environment?: Record<string, string>;
  /**
   * What each instance emulates (default: host CPU synthesis, instances share the cores). A device
   * becomes model environment (DEVICE_*), so it is in every fingerprint measured here; a start-up
   * profile replaces `provisionDelayS` and delays InService after the container is ready.
   */
  device?: EmulatedDevice;
  /** Value of the `<instance type> for endpoint usage` quota (default 4), enforced on capacity changes. */
  quota?: number;
  /**
   * The Price List API's table: on-demand USD per instance-hour by instance type, answered for any
   * region asked (`scalegate local up` passes the committed fallback table, `--price` overrides).
   * @default none: GetProducts finds no product
   */
  prices?: Record<string, number>;
  /** The publication and effective date the price entries carry. @default `2026-12-01T00:00:00Z` */
  pricesPublishedAt?: string;
  /** The container process; default the reference TTS container (`node infra/container/dist/server.js`). */
  container?: ContainerSpec;
  /** Register the variant as a scalable target, min 1 max `quota` (as a freshly deployed calibration endpoint). */
  registerScalableTarget?: boolean;
  /**
   * Image URI reported by DescribeModel / DeployedImages. scalegate passes the CDK asset URI of
   * infra/container (tagged with its asset hash, as `cdk deploy` tags it).
   * @default `defaultImageUri(accountId, region, 'reference-tts')`
   */
  imageUri?: string;
  faults?: FaultOptions;
  /** Longest from process start to /ping 200 (default 120 s). */
  startupTimeoutS?: number;
  /** SIGTERM drain allowance for a removed instance before SIGKILL (default 180 s). */
  drainTimeoutS?: number;
  /** Alarm evaluation interval of the Application Auto Scaling side (default 1000 ms). */
  alarmEvaluationIntervalMs?: number;
  /** Resolve even if the initial deployment fails (status Failed) instead of rejecting. */
  allowFailedDeploy?: boolean;
  /** Progress lines (instances starting, stopping...). */
  log?: (line: string) => void;
  onContainerLine?: (instanceId: string, line: string) => void;
  /** Called with the pid of every container process started. */
  onProcessStart?: (instanceId: string, pid: number) => void;
}

export interface LocalSageMakerHandle {
  /** `http://127.0.0.1:<port>`: the AWS_ENDPOINT_URL for every client. */
  url: string;
  port: number;
  region: string;
  accountId: string;
  endpointName: string;
  variantName: string;
  imageUri: string;
  /** Live instances (ids, ports, pids, states). */
  instances(): InstanceInfo[];
  /** Status and counts, as DescribeEndpoint would answer. */
  status(): { status: EndpointStatus; desired: number; current: number; failureReason?: string };
  /** Resolves when the endpoint's status satisfies `predicate`. */
  waitFor(predicate: (s: ReturnType<LocalSageMakerHandle['status']>) => boolean): Promise<void>;
  /** The fault set; assigning replaces it. */
  faults: FaultOptions;
  /**
   * Test shortcut for a new model environment (e.g. MAX_QUEUE_DEPTH). With `replaceInstances`: a
   * new model and endpoint config deployed blue/green, exactly as CreateModel +
   * CreateEndpointConfig + UpdateEndpoint over the wire do; resolves when settled, rejects when it
   * rolled back. Without: the routed model's environment changes in place (emulator only: AWS
   * models are immutable); instances started from now on get it.
   */
  updateModelEnvironment(
    env: Record<string, string | undefined>,
    options?: { replaceInstances?: boolean },
  ): Promise<void>;
  /** The metric store behind CloudWatch (tests may inspect it or record into AWS/ namespaces). */
  metrics: MetricStore;
  /** Clears faults, metrics, scaling targets/policies/activities and alarms. Instances stay. */
  reset(): void;
  /** Stops every container it started (waits for them to exit) and the server. Idempotent. */
  close(): Promise<void>;
}

/**
 * infra/container of this checkout or installed package, found upward from this module (works
 * from src/ and dist/, and from node_modules/scalegate/dist/, which ships the container).
 */
export function findContainerDir(from: string = dirname(fileURLToPath(import.meta.url))): string {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, 'infra', 'container');
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`cannot find infra/container above ${from}`);
    dir = parent;
  }
}

/** What the reference container imports at run time (its only dependency). */
const CONTAINER_DEPENDENCY = '@echogarden/espeak-ng-emscripten';

/** Whether Node's resolution from the container finds its dependency (its own node_modules or above). */
function containerDependencyInstalled(containerDir: string): boolean {
  let dir = containerDir;
  for (;;) {
    if (existsSync(join(dir, 'node_modules', ...CONTAINER_DEPENDENCY.split('/'), 'package.json')))
      return true;
    const parent = dirname(dir);
    if (parent === dir) return false;
    dir = parent;
  }
}

export function defaultContainer(): ContainerSpec {
  const dir = findContainerDir();
  const entry = join(dir, 'dist', 'server.js');
  if (!existsSync(entry)) {
    throw new Error(
      `${entry} does not exist: build the reference container first (cd infra/container && npm ci)`,
    );
  }
  if (!containerDependencyInstalled(dir)) {
    throw new Error(
      `the reference TTS container's dependency (${CONTAINER_DEPENDENCY}, GPL-3.0, used only by that separate program) is not installed: ` +
        `run \`npm ci --omit=dev --ignore-scripts --no-audit --no-fund --prefix ${dir}\` once (a checkout's \`npm ci\` does it).`,
    );
  }
  // The reference container prints `[tts] listening host=... port=N` (with PORT=0 it picks N).
  return {
    command: [process.execPath, entry],
    cwd: dir,
    portFromOutput: /^\[tts\] listening .*\bport=(\d+)/,
  };
}

export function defaultImageUri(accountId: string, region: string, hash: string): string {
  return `${accountId}.dkr.ecr.${region}.amazonaws.com/cdk-hnb659fds-container-assets-${accountId}-${region}:${hash}`;
}

export async function startLocalSageMaker(
  options: LocalSageMakerOptions = {},
): Promise<LocalSageMakerHandle> {
  const region = options.region ?? 'local';
  const accountId = options.accountId ?? '000000000000';
  const endpointName = options.endpointName ?? 'speech-kokoro-82m';
  const variantName = options.variantName ?? 'AllTraffic';
  const instanceType = options.instanceType ?? 'ml.g5.xlarge';
  const initial = options.instances ?? 1;
  if (options.device) checkEmulatedDevice(options.device);
  const replayed = options.device ? startupDelaysMs(options.device) : null;
  const provisionDelayS = replayed ? replayed.provisionMs / 1000 : (options.provisionDelayS ?? 2);
  const quota = options.quota ?? 4;
  const checkInt = (name: string, v: number, min: number) => {
    if (!Number.isInteger(v) || v < min)
      throw new RangeError(`${name} must be an integer >= ${min} (got ${v})`);
  };
  checkInt('instances', initial, 1);
  checkInt('quota', quota, 1);
  if (!(provisionDelayS >= 0)) throw new RangeError(`provisionDelayS must be >= 0 (got ${provisionDelayS})`);
  if (options.maxQueueDepth !== undefined) checkInt('maxQueueDepth', options.maxQueueDepth, 1);
  if (options.workers !== undefined) checkInt('workers', options.workers, 1);
  if (initial > quota) throw new RangeError(`instances (${initial}) exceeds the quota (${quota})`);

  const container = options.container ?? defaultContainer();
  const imageUri = options.imageUri ?? defaultImageUri(accountId, region, 'reference-tts');

  const faults = new Faults(options.faults);
  const metrics = new MetricStore();
  // Embedded metric format lines in a container's log stream become metrics, as CloudWatch does.
  const logs = new LogStore(region, accountId, Date.now, (datum) =>
    metrics.put(datum.namespace, datum.metricName, datum.dimensions, datum.timestampMs, datum.unit, datum),
  );
  // Every endpoint of this emulator, initial or created through CreateEndpoint, runs this way.
  const endpointOptions = (
    name: string,
    variant: string,
    deployment: VariantDeployment,
  ): EndpointOptions => ({
    endpointName: name,
    variantName: variant,
    deployment,
    container,
    provisionDelayMs: provisionDelayS * 1000,
    // A replayed start-up is paced by the container: allow for it on top of the timeout.
    startupTimeoutMs:
      (options.startupTimeoutS ?? 120) * 1000 +
      (options.device?.startup ? options.device.startup.ready_s * options.device.timeScale * 1000 : 0),
    pingIntervalMs: 100,
    drainTimeoutMs: (options.drainTimeoutS ?? 180) * 1000,
    ...(replayed ? { inServiceDelayMs: replayed.inServiceMs } : {}),
    // Each instance's device draws its own service times, reproducibly (launch order).
    ...(options.device?.profile ? { instanceEnvironment: (n: number) => ({ DEVICE_SEED: String(n) }) } : {}),
    quota: () => quota,
    logs,
    faults,
    region,
    accountId,
    ...(options.log ? { log: options.log } : {}),
    ...(options.onContainerLine ? { onContainerLine: options.onContainerLine } : {}),
    ...(options.onProcessStart ? { onProcessStart: options.onProcessStart } : {}),
  });
  const registry = new EndpointRegistry(
    region,
    accountId,
    (name, variant, deployment) => new Endpoint(endpointOptions(name, variant, deployment)),
  );
  // What a deploy of the model would have created: a model, an endpoint config, the endpoint.
  const modelName = `${endpointName}-model`;
  const endpointConfigName = `${endpointName}-config`;
  const now = Date.now();
  registry.models.set(modelName, {
    name: modelName,
    arn: registry.arn('model', modelName),
    image: imageUri,
    environment: {
      ...(options.environment ?? {}),
      ...(options.device ? deviceEnvironment(options.device) : {}),
      // Where the container's service-time metrics go (as the CDK endpoint stack sets them).
      [SERVICE_METRICS_ENV.endpoint]: endpointName,
      [SERVICE_METRICS_ENV.variant]: variantName,
      MAX_QUEUE_DEPTH: String(options.maxQueueDepth ?? 64),
      WORKERS: String(options.workers ?? 1),
    },
    executionRoleArn: `arn:aws:iam::${accountId}:role/scalegate-local-sagemaker-execution`,
    creationTimeMs: now,
  });
  const config = {
    name: endpointConfigName,
    arn: registry.arn('endpoint-config', endpointConfigName),
    variant: {
      variantName,
      modelName,
      instanceType,
      initialInstanceCount: initial,
      initialVariantWeight: 1,
      routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
    },
    creationTimeMs: now,
  };
  registry.configs.set(endpointConfigName, config);
  const endpoint = new Endpoint(endpointOptions(endpointName, variantName, registry.deploymentOf(config)));
  registry.add(endpoint);
  // Inference components: the copies run as the instances of an endpoint do (same container,
  // start-up replay and timeouts); an instance a copy needs is provisioned as an instance is.
  const inferenceComponents = new InferenceComponents({
    region,
    accountId,
    metrics,
    provisionMs: provisionDelayS * 1000,
    copyFleet: (name, variant, deployment) =>
      new Endpoint({
        ...endpointOptions(name, variant, deployment),
        provisionDelayMs: 0,
        logGroup: `/aws/sagemaker/InferenceComponents/${name}`,
      }),
    models: registry.models,
    endpoint: (name) => registry.get(name),
    ...(options.log ? { log: options.log } : {}),
  });
  registry.inferenceComponents = inferenceComponents;

  const capacity = combinedCapacityTarget(createCapacityTarget(registry), inferenceComponents);
  const autoscaling = createAutoScaling({
    capacity,
    metrics,
    accountId,
    region,
    ...(options.alarmEvaluationIntervalMs ? { evaluationIntervalMs: options.alarmEvaluationIntervalMs } : {}),
  });
  const runtime = new Runtime({ registry, faults, metrics, region, accountId });
  const metricOps = createMetricOperations(metrics);
  const alarmOps = new Set(autoscaling.alarmOperations);
  const server = await startServer({
    port: options.port ?? 0,
    faults,
    runtime,
    services: [
      {
        prefix: 'SageMaker',
        version: '1.1',
        service: 'SageMaker',
        handler: createSageMakerOperations(registry),
      },
      {
        prefix: 'AnyScaleFrontendService',
        version: '1.1',
        service: 'ApplicationAutoScaling',
        handler: autoscaling.applicationAutoScaling,
      },
      { prefix: 'Logs_20140328', version: '1.1', service: 'CloudWatchLogs', handler: logs.handle },
      {
        prefix: 'ServiceQuotasV20190624',
        version: '1.1',
        service: 'ServiceQuotas',
        handler: createServiceQuotas({ instanceType, value: () => quota, region, accountId }),
      },
      {
        prefix: 'AWSPriceListService',
        version: '1.1',
        service: 'Pricing',
        handler: createPricing({
          prices: () => options.prices ?? {},
          publishedAt: options.pricesPublishedAt ?? '2026-12-01T00:00:00Z',
        }),
      },
      {
        prefix: 'GraniteServiceVersion20100801',
        version: '1.0',
        service: 'CloudWatch',
        handler: (op, input) =>
          alarmOps.has(op) ? autoscaling.cloudWatchAlarms(op, input) : metricOps(op, input),
      },
    ],
  });

  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      autoscaling.close();
      // Every endpoint: the initial one and any made through CreateEndpoint.
      await Promise.all([
        ...[...new Set([endpoint, ...registry.all()])].map((e) => e.close(10_000)),
        inferenceComponents.close(10_000),
      ]);
      runtime.close();
      await server.close();
    })();
    return closing;
  };

  // Emulator shortcut for tests; with replaceInstances, the same path as CreateModel +
  // CreateEndpointConfig + UpdateEndpoint (RetainAllVariantProperties) over the wire.
  let revision = 0;
  const updateModelEnvironment = async (
    env: Record<string, string | undefined>,
    replaceInstances: boolean,
  ): Promise<void> => {
    if (!replaceInstances) {
      endpoint.setEnvironmentInPlace(env);
      const model = registry.models.get(endpoint.deployment.modelName);
      if (model) registry.models.set(model.name, { ...model, environment: { ...endpoint.environment } });
      return;
    }
    const current = endpoint.deployment;
    const environment = { ...current.environment };
    for (const [k, v] of Object.entries(env)) {
      if (v === undefined) delete environment[k];
      else environment[k] = v;
    }
    revision += 1;
    const name = `${endpointName}-model-r${revision}`;
    const cfg = `${endpointName}-config-r${revision}`;
    const old = registry.models.get(current.modelName);
    registry.models.set(name, {
      name,
      arn: registry.arn('model', name),
      image: current.imageUri,
      environment,
      executionRoleArn: old?.executionRoleArn ?? null,
      creationTimeMs: Date.now(),
    });
    const oldConfig = registry.configs.get(current.endpointConfigName);
    const next = {
      name: cfg,
      arn: registry.arn('endpoint-config', cfg),
      variant: {
        variantName,
        modelName: name,
        instanceType: current.instanceType,
        initialInstanceCount: current.initialInstanceCount,
        initialVariantWeight: 1,
        routingStrategy: oldConfig?.variant.routingStrategy ?? 'LEAST_OUTSTANDING_REQUESTS',
      },
      creationTimeMs: Date.now(),
    };
    registry.configs.set(cfg, next);
    endpoint.update(registry.deploymentOf(next), true);
    await endpoint.waitFor(() => endpoint.status === 'InService' && endpoint.pending === null);
    if (endpoint.failureReason) throw new Error(`model update failed: ${endpoint.failureReason}`);
  };

  const status = () => ({
    status: endpoint.status,
    desired: endpoint.desired,
    current: endpoint.current,
    ...(endpoint.failureReason ? { failureReason: endpoint.failureReason } : {}),
  });

  try {
    await endpoint.deploy(initial);
    if (endpoint.status === 'Failed' && !options.allowFailedDeploy) {
      throw new Error(`endpoint ${endpointName} failed to deploy: ${endpoint.failureReason}`);
    }
    if (options.registerScalableTarget) {
      await autoscaling.applicationAutoScaling('RegisterScalableTarget', {
        ServiceNamespace: 'sagemaker',
        ResourceId: `endpoint/${endpointName}/variant/${variantName}`,
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        MinCapacity: 1,
        MaxCapacity: quota,
      });
    }
  } catch (e) {
    await close();
    throw e;
  }

  return {
    url: server.url,
    port: server.port,
    region,
    accountId,
    endpointName,
    variantName,
    imageUri,
    instances: () => endpoint.list(),
    status,
    waitFor: (predicate) => endpoint.waitFor(() => predicate(status())),
    get faults() {
      return faults.get();
    },
    set faults(next: FaultOptions) {
      faults.set(next);
    },
    updateModelEnvironment: (env, opts = {}) => updateModelEnvironment(env, opts.replaceInstances ?? false),
    metrics,
    reset() {
      faults.reset();
      metrics.reset();
      autoscaling.reset();
    },
    close,
  };
}
