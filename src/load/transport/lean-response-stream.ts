/**
 * `response-stream`, the lean way: InvokeEndpointWithResponseStream sent over node:http(s) with
 * the very wire request the SDK v3 client sends (same path, headers in the same order, SigV4 by
 * `@smithy/signature-v4` with the SDK's SHA-256, same body), its event stream decoded frame by
 * frame with `@smithy/eventstream-codec`, errors mapped as the SDK maps them. What it leaves out
 * is the SDK's per-request middleware stack (~0.6 ms of CPU a request), which at fleet rates is
 * the client, not the server, adding latency.
 *
 * Region, endpoint URL (AWS_ENDPOINT_URL, FIPS, partitions) and credentials (the SDK's default
 * provider chain, @aws-sdk/credential-provider-node, unless given) are resolved once by the
 * runtime client's own configuration, so they are what the SDK would use. No retries.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import {
  InvokeEndpointWithResponseStreamCommand,
  type SageMakerRuntimeClient,
} from '@aws-sdk/client-sagemaker-runtime';
import { Sha256 } from '@smithy/core/checksum';
import { getEndpointFromInstructions } from '@smithy/core/endpoints';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { SignatureV4 } from '@smithy/signature-v4';
import { VERSION } from '../../version.js';
import type { ConnectionSlot, InvokeProbe, InvokeResult, Transport, TransportKind } from '../types.js';
import { agentOptions, poolSizeFor } from './agent.js';
import { classifySdkError, errorText } from './outcomes.js';

export interface LeanResponseStreamOptions {
  /** Supplies region, endpoint resolution and credentials (its configuration only; it never sends). */
  runtime: SageMakerRuntimeClient;
  endpoint: string;
  variant?: string;
  /** The inference component the requests go to (an IC-hosting endpoint serves only the one named). */
  inferenceComponent?: string;
  contentType?: string;
  accept?: string;
  /** Highest concurrency driven; the socket pool is sized above it (default: the runtime's, else 64). */
  maxConcurrency?: number;
  ownsClient?: boolean;
  /** The client's name on the wire (default scalegate's); tests set the SDK's to compare bytes. */
  userAgent?: { userAgent: string; xAmzUserAgent: string };
  /** amz-sdk-invocation-id of each request (default a random UUID, as the SDK). */
  invocationId?: () => string;
  kind?: TransportKind;
}

/** Pool sizes of runtime clients made for load (set by createLoadRuntimeClient). */
export const runtimeConcurrency = new WeakMap<SageMakerRuntimeClient, number>();

const toUtf8 = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8');
const fromUtf8 = (s: string): Uint8Array => new Uint8Array(Buffer.from(s, 'utf8'));
const codec = new EventStreamCodec(toUtf8, fromUtf8);

/** The SDK's path-label encoding (encodeURIComponent plus !'()*). */
const encodeLabel = (s: string): string =>
  encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

const MAX_ERROR_BODY = 4096;
/** Larger than any event-stream message SageMaker sends (payload parts are far smaller). */
const MAX_FRAME = 32 * 1024 * 1024;

interface Resolved {
  url: URL;
  signer: SignatureV4;
  region: string;
}

interface WireError {
  name: string;
  message: string;
  OriginalStatusCode?: number;
  $metadata: { httpStatusCode: number };
}

/** The error an SDK client would throw for a non-2xx REST-JSON answer (code from x-amzn-errortype, code, __type). */
export function wireError(status: number, headers: IncomingMessage['headers'], text: string): WireError {
  let body: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object') body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: the status alone classifies it.
  }
  const sanitize = (v: unknown): string | undefined => {
    if (typeof v !== 'string' || v === '') return undefined;
    let s = v;
    if (s.includes(':')) s = s.split(':')[0] as string;
    if (s.includes('#')) s = s.split('#').at(-1) as string;
    return s;
  };
  const header = headers['x-amzn-errortype'];
  const name =
    sanitize(Array.isArray(header) ? header[0] : header) ??
    sanitize(body.code) ??
    sanitize(body.__type) ??
    `HTTP${status}`;
  const message = String(body.message ?? body.Message ?? text ?? '').slice(0, 500);
  const original = body.OriginalStatusCode;
  return {
    name,
    message,
    ...(typeof original === 'number' ? { OriginalStatusCode: original } : {}),
    $metadata: { httpStatusCode: status },
  };
}

/** The runtime host the client's configuration resolves for `endpoint` (AWS_ENDPOINT_URL, FIPS, partitions). */
export async function runtimeEndpointUrl(runtime: SageMakerRuntimeClient, endpoint: string): Promise<URL> {
  const resolved = await getEndpointFromInstructions(
    { EndpointName: endpoint },
    InvokeEndpointWithResponseStreamCommand as unknown as Parameters<typeof getEndpointFromInstructions>[1],
    runtime.config as unknown as Parameters<typeof getEndpointFromInstructions>[2],
  );
  return new URL(resolved.url.toString());
}

export function createLeanResponseStreamTransport(options: LeanResponseStreamOptions): Transport {
  const { runtime } = options;
  const contentType = options.contentType ?? 'application/json';
  const accept = options.accept ?? 'audio/wav';
  const maxSockets = poolSizeFor(options.maxConcurrency ?? runtimeConcurrency.get(runtime) ?? 1);
  const http = new HttpAgent(agentOptions(maxSockets));
  const https = new HttpsAgent(agentOptions(maxSockets));
  const userAgent = options.userAgent ?? {
    userAgent: `scalegate/${VERSION} lean-response-stream`,
    xAmzUserAgent: `scalegate/${VERSION}`,
  };
  const invocationId = options.invocationId ?? randomUUID;
  // Bodies repeat (a prompt set): their SHA-256 (x-amz-content-sha256) is computed once each.
  const payloadHashes = new WeakMap<Uint8Array, string>();
  const payloadHash = (body: Uint8Array): string => {
    let hash = payloadHashes.get(body);
    if (hash === undefined) {
      hash = createHash('sha256').update(body).digest('hex');
      payloadHashes.set(body, hash);
    }
    return hash;
  };
  const path = `/endpoints/${encodeLabel(options.endpoint)}/invocations-response-stream`;

  let resolving: Promise<Resolved> | null = null;
  // Once resolved, used directly: no promise hop on the hot path.
  let ready: Resolved | null = null;
  const resolve = (): Promise<Resolved> | Resolved => {
    if (ready) return ready;
    resolving ??= (async () => {
      const config = runtime.config;
      const region = await config.region();
      const endpoint = await getEndpointFromInstructions(
        { EndpointName: options.endpoint },
        InvokeEndpointWithResponseStreamCommand as unknown as Parameters<
          typeof getEndpointFromInstructions
        >[1],
        config as unknown as Parameters<typeof getEndpointFromInstructions>[2],
      );
      const signer = new SignatureV4({
        service: 'sagemaker',
        region,
        credentials: config.credentials,
        sha256: Sha256,
      });
      ready = { url: new URL(endpoint.url.toString()), signer, region };
      return ready;
    })();
    resolving.catch(() => {
      resolving = null;
    });
    return resolving;
  };

  const invoke = async (body: Uint8Array, probe: InvokeProbe, signal: AbortSignal): Promise<InvokeResult> => {
    if (signal.aborted) return { outcome: 'error', status: null, error: 'aborted before dispatch' };
    const slot: ConnectionSlot = { openedAt: null, connectMs: null };
    probe.connection(slot);
    let resolved: Resolved;
    let signed: { headers: Record<string, string> };
    try {
      const r = resolve();
      resolved = r instanceof Promise ? await r : r;
      const { url } = resolved;
      const host = url.port ? `${url.hostname}:${url.port}` : url.hostname;
      // The SDK's header order: serializer, content-length, user agent, host, retry, then the signer's.
      const headers: Record<string, string> = {
        'content-type': contentType,
        'x-amzn-sagemaker-accept': accept,
      };
      if (options.variant) headers['x-amzn-sagemaker-target-variant'] = options.variant;
      if (options.inferenceComponent)
        headers['x-amzn-sagemaker-inference-component'] = options.inferenceComponent;
      headers['content-length'] = String(body.byteLength);
      headers['x-amz-user-agent'] = userAgent.xAmzUserAgent;
      headers['user-agent'] = userAgent.userAgent;
      headers.host = host;
      headers['amz-sdk-invocation-id'] = invocationId();
      headers['amz-sdk-request'] = 'attempt=1; max=1';
      const hash = payloadHash(body);
      const toSign = await resolved.signer.sign({
        method: 'POST',
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port ? Number(url.port) : undefined,
        path: `${url.pathname.replace(/\/$/, '')}${path}`,
        query: {},
        // Given, the signer takes the payload hash from here instead of hashing the body again.
        headers: { ...headers, 'x-amz-content-sha256': hash },
        body,
      });
      // The SDK's order after its own headers: date, token, payload hash, authorization.
      const out = toSign.headers as Record<string, string>;
      const final: Record<string, string> = { ...headers, 'x-amz-date': out['x-amz-date'] as string };
      if (out['x-amz-security-token'] !== undefined)
        final['x-amz-security-token'] = out['x-amz-security-token'];
      final['x-amz-content-sha256'] = hash;
      final.authorization = out.authorization as string;
      signed = { headers: final };
    } catch (e) {
      return { outcome: 'error', status: null, error: `endpoint or signing: ${errorText(e)}` };
    }
    return send(resolved.url, signed.headers, body, probe, signal, slot);
  };

  const send = (
    url: URL,
    headers: Record<string, string>,
    body: Uint8Array,
    probe: InvokeProbe,
    signal: AbortSignal,
    slot: ConnectionSlot,
  ): Promise<InvokeResult> =>
    new Promise<InvokeResult>((done) => {
      let settled = false;
      const finish = (result: InvokeResult) => {
        if (settled) return;
        settled = true;
        done(result);
      };
      const secure = url.protocol === 'https:';
      const req = (secure ? httpsRequest : httpRequest)({
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port,
        path: `${url.pathname.replace(/\/$/, '')}${path}`,
        method: 'POST',
        agent: secure ? https : http,
        headers,
        signal,
      });
      req.once('socket', (socket: Socket) => {
        if (!socket.connecting) return;
        socket.setNoDelay(true);
        const openedAt = performance.now();
        slot.openedAt = openedAt;
        socket.once(secure ? 'secureConnect' : 'connect', () => {
          slot.connectMs = performance.now() - openedAt;
        });
      });
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status < 200 || status >= 300) {
          const parts: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < MAX_ERROR_BODY) parts.push(chunk);
            size += chunk.length;
          });
          res.on('end', () => {
            const err = wireError(status, res.headers, Buffer.concat(parts).toString('utf8'));
            finish({
              outcome: classifySdkError(err),
              status,
              error: errorText(err),
              containerStatus: err.OriginalStatusCode ?? null,
            });
          });
          res.on('error', (e) => finish({ outcome: 'error', status, error: `response: ${e.message}` }));
          return;
        }
        // Event-stream framing: each message starts with its total length (4 bytes, big-endian).
        let pending: Buffer = Buffer.alloc(0);
        res.on('data', (chunk: Buffer) => {
          if (settled) return;
          pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
          while (pending.length >= 4) {
            const length = pending.readUInt32BE(0);
            // A prelude (12 bytes) and a message CRC (4) at least; far beyond any payload part: corrupt.
            if (length < 16 || length > MAX_FRAME) {
              res.destroy();
              finish({ outcome: 'error', status, error: `event stream: a frame of ${length} bytes` });
              return;
            }
            if (pending.length < length) break;
            const frame = pending.subarray(0, length);
            pending = pending.subarray(length);
            let message: ReturnType<typeof codec.decode>;
            try {
              message = codec.decode(frame);
            } catch (e) {
              res.destroy();
              finish({ outcome: 'error', status, error: `event stream: ${errorText(e)}` });
              return;
            }
            const type = message.headers[':message-type']?.value;
            if (type === 'event') {
              if (message.headers[':event-type']?.value === 'PayloadPart') probe.payload(message.body);
              continue;
            }
            // An exception (modelled, e.g. ModelStreamError) or an error message ends the stream.
            const name = String(
              type === 'exception'
                ? message.headers[':exception-type']?.value
                : (message.headers[':error-code']?.value ?? 'UnknownError'),
            );
            let text = type === 'exception' ? '' : String(message.headers[':error-message']?.value ?? '');
            if (type === 'exception') {
              try {
                const parsed = JSON.parse(toUtf8(message.body)) as { Message?: string; message?: string };
                text = parsed.Message ?? parsed.message ?? '';
              } catch {
                text = toUtf8(message.body).slice(0, 500);
              }
            }
            const err = { name, message: text, $metadata: { httpStatusCode: status } };
            res.destroy();
            finish({ outcome: classifySdkError(err), status, error: errorText(err) });
            return;
          }
        });
        res.on('end', () => {
          if (pending.length > 0) finish({ outcome: 'error', status, error: 'event stream cut mid-message' });
          else finish({ outcome: 'ok', status, error: null });
        });
        res.on('error', (e) => finish({ outcome: 'error', status, error: `response: ${e.message}` }));
        res.on('close', () => {
          if (!res.complete) finish({ outcome: 'error', status, error: 'response cut mid-stream' });
        });
      });
      req.on('error', (e) => finish({ outcome: 'error', status: null, error: e.message }));
      req.end(body);
    });

  return {
    kind: options.kind ?? 'response-stream',
    target: targetLabel(options),
    invoke,
    endpointUrl: async () => {
      const r = resolve();
      return new URL((r instanceof Promise ? await r : r).url.toString());
    },
    close: async () => {
      http.destroy();
      https.destroy();
      if (options.ownsClient) runtime.destroy();
    },
  };
}

/** What a SageMaker transport measures, for the report: the endpoint, its variant, its component. */
export const targetLabel = (o: { endpoint: string; variant?: string; inferenceComponent?: string }): string =>
  `endpoint ${o.endpoint}${o.variant ? ` variant ${o.variant}` : ''}${o.inferenceComponent ? ` component ${o.inferenceComponent}` : ''}`;
