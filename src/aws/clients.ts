/**
 * Builds the SDK v3 clients every AWS-touching command receives. No logic: region and endpoint
 * come from flags or the standard SDK environment (AWS_REGION, AWS_PROFILE, AWS_ENDPOINT_URL —
 * the last is how everything points at the local SageMaker).
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { isIP } from 'node:net';
import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { SageMakerRuntimeClient } from '@aws-sdk/client-sagemaker-runtime';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { classifyFailures } from './operational.js';

export interface AwsClients {
  sagemaker: SageMakerClient;
  runtime: SageMakerRuntimeClient;
  autoscaling: ApplicationAutoScalingClient;
  cloudwatch: CloudWatchClient;
  logs: CloudWatchLogsClient;
  quotas: ServiceQuotasClient;
  region: string;
}

export interface ClientOptions {
  region: string;
  /** Overrides AWS_ENDPOINT_URL; tests pass the local SageMaker's URL. */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
  /** Highest number of requests the caller keeps in flight; the socket pool is sized above it. */
  maxConcurrency?: number;
}

export function createAwsClients(options: ClientOptions): AwsClients {
  const maxSockets = Math.max(50, (options.maxConcurrency ?? 0) + 16);
  const common = {
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
  };
  // The load engine drives the runtime client; no SDK retries there (a retried 503 would hide
  // saturation), and a socket pool above the concurrency so the client never queues requests.
  const runtime = new SageMakerRuntimeClient({
    ...common,
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets }),
    }),
  });
  const clients: AwsClients = {
    sagemaker: new SageMakerClient(common),
    runtime,
    autoscaling: new ApplicationAutoScalingClient(common),
    cloudwatch: new CloudWatchClient(common),
    logs: new CloudWatchLogsClient(common),
    quotas: new ServiceQuotasClient(common),
    region: options.region,
  };
  // A failed control-plane call names its operation, resource and region (exit 3); the runtime
  // client's failures are measurements and stay as they are.
  for (const client of [
    clients.sagemaker,
    clients.autoscaling,
    clients.cloudwatch,
    clients.logs,
    clients.quotas,
  ]) {
    classifyFailures(client as never, options.region);
  }
  return clients;
}

export function destroyAwsClients(clients: AwsClients): void {
  for (const client of [
    clients.sagemaker,
    clients.runtime,
    clients.autoscaling,
    clients.cloudwatch,
    clients.logs,
    clients.quotas,
  ]) {
    client.destroy();
  }
}

/** Runs `body` with fresh clients and always releases their sockets, whatever `body` does. */
export async function withAwsClients<T>(
  options: ClientOptions,
  body: (clients: AwsClients) => Promise<T>,
): Promise<T> {
  const clients = createAwsClients(options);
  try {
    return await body(clients);
  } finally {
    destroyAwsClients(clients);
  }
}

/**
 * A load command's run: with clients whose socket pool is sized above the load's concurrency when
 * it goes through AWS, with none when it does not (a container measured directly, a dry run).
 */
export function withLoadClients<T>(
  throughAws: boolean,
  options: ClientOptions,
  body: (clients: AwsClients | undefined) => Promise<T>,
): Promise<T> {
  return throughAws ? withAwsClients(options, body) : body(undefined);
}

/** The part of an SDK v3 client's resolved configuration that says where its calls go. */
interface EndpointConfig {
  isCustomEndpoint?: boolean;
  endpoint?: () => Promise<{ protocol?: string; hostname?: string; port?: number; path?: string }>;
  ignoreConfiguredEndpointUrls?: boolean;
  serviceConfiguredEndpoint?: () => Promise<string | undefined>;
}

/**
 * Where a client's calls go when it is pointed anywhere but AWS: an explicit `endpoint`, or the
 * SDK's configured endpoint (`AWS_ENDPOINT_URL_<SERVICE>`, `AWS_ENDPOINT_URL`, a profile's
 * `endpoint_url`), resolved exactly as the SDK resolves it. null: AWS's own endpoint. Reads local
 * configuration only; no AWS call.
 */
export async function clientEndpointUrl(client: { config: unknown }): Promise<string | null> {
  const config = client.config as EndpointConfig;
  if (config.isCustomEndpoint && typeof config.endpoint === 'function') {
    const e = await config.endpoint();
    return `${e.protocol ?? 'https:'}//${e.hostname ?? ''}${e.port ? `:${e.port}` : ''}${e.path ?? ''}`;
  }
  if (!config.ignoreConfiguredEndpointUrls && typeof config.serviceConfiguredEndpoint === 'function') {
    return (await config.serviceConfiguredEndpoint()) ?? null;
  }
  return null;
}

/** True for a URL on this machine's loopback interface (127.0.0.0/8, ::1, localhost). */
export function isLoopbackUrl(url: string | null): boolean {
  if (url === null) return false;
  let host: string;
  try {
    host = new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return false;
  }
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  if (isIP(host) === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * True when the clients that act on an endpoint (SageMaker, Application Auto Scaling) all reach
 * this machine's loopback: the local SageMaker, where nothing is production and nothing measured
 * belongs in the committed artifacts. Reads the clients' configuration only.
 */
export async function throughLocalSageMaker(
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
): Promise<boolean> {
  const urls = await Promise.all([
    clientEndpointUrl(clients.sagemaker),
    clientEndpointUrl(clients.autoscaling),
  ]);
  return urls.every(isLoopbackUrl);
}
