/**
 * SageMaker InvokeEndpointWithResponseStream transports. `response-stream` (the default) sends
 * the SDK's wire request itself (lean-response-stream.ts); `sdk` goes through the SDK v3 runtime
 * client, kept as the reference. Each PayloadPart's bytes are audio; the first non-empty one is
 * the TTFAB. Neither retries (maxAttempts 1): a retried 503 would hide saturation.
 */
import {
  InvokeEndpointWithResponseStreamCommand,
  type ResponseStream,
  SageMakerRuntimeClient,
} from '@aws-sdk/client-sagemaker-runtime';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { ConnectionSlot, InvokeProbe, InvokeResult, Transport } from '../types.js';
import { connectionContext, poolSizeFor, TimedHttpAgent, TimedHttpsAgent } from './agent.js';
import {
  createLeanResponseStreamTransport,
  type LeanResponseStreamOptions,
  runtimeConcurrency,
  runtimeEndpointUrl,
  targetLabel,
} from './lean-response-stream.js';
import { classifySdkError, errorText } from './outcomes.js';

export interface LoadRuntimeClientOptions {
  region: string;
  /** Overrides AWS_ENDPOINT_URL (which the SDK honours by itself). */
  endpoint?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
  /** Highest concurrency the engine will run; the socket pool is sized above it. */
  maxConcurrency: number;
}

/**
 * A runtime client for load: no retries, a keep-alive pool above the concurrency, and agents that
 * time connection setup separately from TTFAB.
 */
export function createLoadRuntimeClient(options: LoadRuntimeClientOptions): SageMakerRuntimeClient {
  const maxSockets = poolSizeFor(options.maxConcurrency);
  const client = new SageMakerRuntimeClient({
    region: options.region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    maxAttempts: 1,
    requestHandler: new NodeHttpHandler({
      httpAgent: new TimedHttpAgent(maxSockets),
      httpsAgent: new TimedHttpsAgent(maxSockets),
      // The engine times requests out itself (client_timeout); no socket timeout behind its back.
      socketTimeout: 0,
      requestTimeout: 0,
    }),
  });
  runtimeConcurrency.set(client, options.maxConcurrency);
  return client;
}

export interface ResponseStreamTransportOptions {
  runtime: SageMakerRuntimeClient;
  endpoint: string;
  /** Pin the production variant (TargetVariant); the measurement is of one variant. */
  variant?: string;
  /** Route to this inference component (InferenceComponentName) on an IC-hosting endpoint. */
  inferenceComponent?: string;
  contentType?: string;
  /** @default audio/wav */
  accept?: string;
  /** Destroy the runtime client on close (true when the transport created it). */
  ownsClient?: boolean;
  /** Lean transport only: wire identity overrides (tests compare it with the SDK byte for byte). */
  userAgent?: LeanResponseStreamOptions['userAgent'];
  invocationId?: LeanResponseStreamOptions['invocationId'];
}

/** `response-stream`: the SDK's wire request without the SDK's per-request cost. */
export function createResponseStreamTransport(options: ResponseStreamTransportOptions): Transport {
  return createLeanResponseStreamTransport(options);
}

/** `sdk`: the same call through the SDK v3 client (the reference the lean transport is held to). */
export function createSdkResponseStreamTransport(options: ResponseStreamTransportOptions): Transport {
  const { runtime, endpoint } = options;
  const contentType = options.contentType ?? 'application/json';
  const accept = options.accept ?? 'audio/wav';

  const invoke = (body: Uint8Array, probe: InvokeProbe, signal: AbortSignal): Promise<InvokeResult> => {
    const slot: ConnectionSlot = { openedAt: null, connectMs: null };
    probe.connection(slot);
    return connectionContext.run(slot, () => send(body, probe, signal));
  };

  const send = async (body: Uint8Array, probe: InvokeProbe, signal: AbortSignal): Promise<InvokeResult> => {
    let status: number | null = null;
    try {
      const out = await runtime.send(
        new InvokeEndpointWithResponseStreamCommand({
          EndpointName: endpoint,
          Body: body,
          ContentType: contentType,
          Accept: accept,
          ...(options.variant ? { TargetVariant: options.variant } : {}),
          ...(options.inferenceComponent ? { InferenceComponentName: options.inferenceComponent } : {}),
        }),
        { abortSignal: signal },
      );
      status = out.$metadata.httpStatusCode ?? 200;
      if (!out.Body) return { outcome: 'error', status, error: 'response without a body stream' };
      for await (const event of out.Body as AsyncIterable<ResponseStream>) {
        if (event.PayloadPart) {
          if (event.PayloadPart.Bytes) probe.payload(event.PayloadPart.Bytes);
        } else if (event.ModelStreamError) {
          return { outcome: 'model_error', status, error: errorText(event.ModelStreamError) };
        } else if (event.InternalStreamFailure) {
          return { outcome: 'server_5xx', status, error: errorText(event.InternalStreamFailure) };
        }
      }
      return { outcome: 'ok', status, error: null };
    } catch (e) {
      const err = e as { $metadata?: { httpStatusCode?: number }; OriginalStatusCode?: number };
      return {
        outcome: classifySdkError(e),
        status: err.$metadata?.httpStatusCode ?? status,
        error: errorText(e),
        containerStatus: typeof err.OriginalStatusCode === 'number' ? err.OriginalStatusCode : null,
      };
    }
  };

  return {
    kind: 'sdk',
    target: targetLabel(options),
    invoke,
    endpointUrl: () => runtimeEndpointUrl(runtime, endpoint),
    close: async () => {
      if (options.ownsClient) runtime.destroy();
    },
  };
}
