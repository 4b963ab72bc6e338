/**
 * SageMaker Runtime of the local SageMaker (REST-JSON): `POST /endpoints/<name>/invocations`
 * (InvokeEndpoint, buffered) and `/invocations-response-stream` (InvokeEndpointWithResponseStream,
 * AWS event-stream framing). Each request goes to the InService instance with the fewest
 * outstanding requests (ties: round robin), as SageMaker's LEAST_OUTSTANDING_REQUESTS routing.
 *
 * A container's non-2xx answer reaches the caller as SageMaker returns it: HTTP 424 `ModelError`
 * with `OriginalStatusCode` (the container's status) and `OriginalMessage` (its body). So a
 * container's `503 {"error":"queue_saturated",...}` surfaces in the SDK v3 client as
 * `e.name === 'ModelError'`, `e.OriginalStatusCode === 503`, `e.OriginalMessage` holding the
 * container's JSON, `e.$metadata.httpStatusCode === 424`. A failure after the stream has started
 * is an event-stream `exception` message `ModelStreamError` (`{Message, ErrorCode}`), which the
 * client raises while iterating the body.
 *
 * An endpoint hosting inference components routes on `X-Amzn-SageMaker-Inference-Component`
 * (the SDK's `InferenceComponentName`) to that component's copies (inference-components.ts).
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { AwsError } from './aws-error.js';
import type { Faults } from './faults.js';
import type { Endpoint, Instance } from './fleet.js';
import { noCapacityError } from './inference-components.js';
import type { MetricStore } from './metrics.js';
import { VariantMetrics } from './metrics.js';
import type { EndpointRegistry } from './sagemaker.js';

/** AWS's payload limit for real-time invocations. */
const MAX_PAYLOAD_BYTES = 6 * 1024 * 1024;

const toUtf8 = (bytes: Uint8Array): string =>
  Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
const fromUtf8 = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, 'utf8'));
const codec = new EventStreamCodec(toUtf8, fromUtf8);

const str = (value: string) => ({ type: 'string' as const, value });

export function payloadPart(bytes: Uint8Array): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': str('event'),
      ':event-type': str('PayloadPart'),
      ':content-type': str('application/octet-stream'),
    },
    body: bytes,
  });
}

export function modelStreamError(message: string, errorCode: string): Uint8Array {
  return codec.encode({
    headers: {
      ':message-type': str('exception'),
      ':exception-type': str('ModelStreamError'),
      ':content-type': str('application/json'),
    },
    body: fromUtf8(JSON.stringify({ Message: message, ErrorCode: errorCode })),
  });
}

export interface RuntimeContext {
  registry: EndpointRegistry;
  faults: Faults;
  metrics: MetricStore;
  region: string;
  accountId: string;
}

/** REST-JSON error: the SDK reads the type from `x-amzn-ErrorType` (and `__type`), members from the body. */
function sendError(res: ServerResponse, err: AwsError, extra: Record<string, unknown> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify({ __type: err.type, Message: err.message, message: err.message, ...extra });
  res.writeHead(err.status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-ErrorType': err.type,
    'x-amzn-RequestId': randomUUID(),
  });
  res.end(body);
}

function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= limit) parts.push(b);
    });
    req.on('end', () => resolve(size > limit ? undefined : Buffer.concat(parts)));
    req.on('error', reject);
  });
}

export class Runtime {
  private readonly variantMetrics = new Map<Endpoint, VariantMetrics>();
  /** Keep-alive to the containers; sockets idle past 30 s are dropped before a container's 65 s. */
  private readonly agent = new http.Agent({
    keepAlive: true,
    maxSockets: Number.POSITIVE_INFINITY,
    timeout: 30_000,
  });

  constructor(private readonly ctx: RuntimeContext) {}

  close(): void {
    this.agent.destroy();
  }

  metricsOf(e: Endpoint): VariantMetrics {
    let m = this.variantMetrics.get(e);
    if (!m) {
      m = new VariantMetrics(this.ctx.metrics, e.name, e.variantName, () => e.current);
      this.variantMetrics.set(e, m);
    }
    return m;
  }

  /** Returns false when the path is not a runtime path. */
  handle(req: IncomingMessage, res: ServerResponse, path: string): boolean {
    const m = /^\/endpoints\/([^/]+)\/(invocations|invocations-response-stream)$/.exec(path);
    if (!m) return false;
    const name = decodeURIComponent(m[1] as string);
    const streaming = m[2] === 'invocations-response-stream';
    const operation = streaming ? 'InvokeEndpointWithResponseStream' : 'InvokeEndpoint';
    void this.invoke(req, res, name, operation, streaming).catch((e) => {
      sendError(res, e instanceof AwsError ? e : new AwsError('InternalFailure', String(e), 500));
    });
    return true;
  }

  private async invoke(
    req: IncomingMessage,
    res: ServerResponse,
    name: string,
    operation: string,
    streaming: boolean,
  ): Promise<void> {
    if (req.method !== 'POST')
      throw new AwsError('UnknownOperationException', `Unknown operation ${req.method} ${req.url}`, 404);
    this.ctx.faults.checkThrottle('SageMakerRuntime', operation);
    const body = await readBody(req, MAX_PAYLOAD_BYTES);
    if (body === undefined) throw new AwsError('ValidationError', 'Request payload is too large.', 413);
    const notFound = () =>
      new AwsError('ValidationError', `Endpoint ${name} of account ${this.ctx.accountId} not found.`, 400);
    const endpoint = this.ctx.registry.get(name);
    if (
      !endpoint ||
      endpoint.status === 'Creating' ||
      endpoint.status === 'Failed' ||
      endpoint.status === 'Deleting'
    )
      throw notFound();
    const targetVariant = req.headers['x-amzn-sagemaker-target-variant'];
    if (typeof targetVariant === 'string' && targetVariant !== endpoint.variantName) {
      throw new AwsError(
        'ValidationError',
        `The variant ${targetVariant} is not a production variant of endpoint ${name}.`,
        400,
      );
    }
    // An endpoint hosting inference components serves the one the request names (and only that).
    const named = req.headers['x-amzn-sagemaker-inference-component'];
    const component = this.ctx.registry.inferenceComponents?.route(
      name,
      typeof named === 'string' && named !== '' ? named : undefined,
    );
    const added = this.ctx.faults.addedLatencyMs;
    if (added > 0) await new Promise((r) => setTimeout(r, added));
    const metrics = component ? component.metrics : this.metricsOf(endpoint);
    const injected = this.ctx.faults.invocationFailure();
    if (injected) {
      metrics.invocation('5xx');
      throw injected;
    }
    if (component) {
      const copy = component.copies.pick();
      if (!copy) {
        // Zero copies, or all still starting: SageMaker fails it at once and counts it.
        metrics.noCapacity();
        throw noCapacityError();
      }
      this.forward(req, res, body, component.copies, copy, metrics, streaming);
      return;
    }
    const instance = endpoint.pick();
    if (!instance)
      throw new AwsError('ServiceUnavailable', `No instance of endpoint ${name} is in service.`, 503);
    this.forward(req, res, body, endpoint, instance, metrics, streaming);
  }

  private forward(
    req: IncomingMessage,
    res: ServerResponse,
    body: Buffer,
    endpoint: Endpoint,
    instance: Instance,
    metrics: VariantMetrics,
    streaming: boolean,
  ): void {
    const variant = endpoint.variantName;
    const logGroupArn = `arn:aws:logs:${this.ctx.region}:${this.ctx.accountId}:log-group:${endpoint.logGroup}`;
    const accept = streaming ? req.headers['x-amzn-sagemaker-accept'] : req.headers.accept;
    const started = performance.now();
    // InvocationsPerInstance divides by the active instances at the time of the request.
    const instancesAtRequest = endpoint.current;
    instance.inFlight += 1;
    metrics.begin(instance.id);
    let finished = false;
    // Called before the last byte goes to the client: the next request of a closed loop must
    // never see this one still counted.
    const finish = (outcome: 'ok' | '4xx' | '5xx', withLatency = true) => {
      if (finished) return;
      finished = true;
      instance.inFlight -= 1;
      metrics.end(instance.id);
      metrics.invocation(
        outcome,
        withLatency ? (performance.now() - started) * 1000 : undefined,
        instancesAtRequest,
      );
    };
    const upstream = http.request({
      host: '127.0.0.1',
      port: instance.port,
      method: 'POST',
      path: '/invocations',
      agent: this.agent,
      headers: {
        'Content-Type': req.headers['content-type'] ?? 'application/octet-stream',
        'Content-Length': body.length,
        ...(typeof accept === 'string' ? { Accept: accept } : {}),
      },
    });
    const modelError = (message: string, extra: Record<string, unknown>) =>
      sendError(res, new AwsError('ModelError', message, 424), { ...extra, LogStreamArn: logGroupArn });

    // The caller went away: stop the container's work too (it frees its admission slot).
    res.on('close', () => {
      if (!res.writableFinished) {
        upstream.destroy();
        finish('ok', false);
      }
    });

    upstream.on('error', (err) => {
      if (finished) return;
      finish('5xx');
      if (!res.headersSent) {
        modelError(`An error occurred while sending the request to the model: ${err.message}`, {});
      } else {
        res.end(modelStreamError(`The model container failed mid-stream: ${err.message}`, 'StreamBroken'));
      }
    });

    upstream.on('response', (up) => {
      const status = up.statusCode ?? 500;
      const contentType = up.headers['content-type'] ?? 'application/octet-stream';
      if (status < 200 || status >= 300) {
        const parts: Buffer[] = [];
        up.on('data', (b: Buffer) => parts.push(b));
        up.on('error', () => {});
        up.on('end', () => {
          const text = Buffer.concat(parts).toString('utf8');
          finish(status >= 500 ? '5xx' : '4xx');
          const kind = status >= 500 ? 'server' : 'client';
          modelError(
            `Received ${kind} error (${status}) from primary with message "${text}". See https://${this.ctx.region}.console.aws.amazon.com/cloudwatch/home?region=${this.ctx.region}#logEventViewer:group=${endpoint.logGroup} in account ${this.ctx.accountId} for more information.`,
            { OriginalStatusCode: status, OriginalMessage: text },
          );
        });
        return;
      }
      const ok = () => !finished;
      if (!streaming) {
        const parts: Buffer[] = [];
        up.on('data', (b: Buffer) => parts.push(b));
        up.on('error', () => {});
        up.on('end', () => {
          if (!ok()) return;
          finish('ok');
          const out = Buffer.concat(parts);
          res.writeHead(200, {
            'Content-Type': contentType,
            'Content-Length': out.length,
            'x-Amzn-Invoked-Production-Variant': variant,
            'x-amzn-RequestId': randomUUID(),
          });
          res.end(out);
        });
        up.on('close', () => {
          if (!up.complete && ok()) {
            finish('5xx');
            modelError('The model container closed the connection before its response was complete.', {});
          }
        });
        return;
      }
      res.writeHead(200, {
        'Content-Type': 'application/vnd.amazon.eventstream',
        'X-Amzn-SageMaker-Content-Type': contentType,
        'x-Amzn-Invoked-Production-Variant': variant,
        'x-amzn-RequestId': randomUUID(),
      });
      up.on('data', (chunk: Buffer) => {
        if (res.destroyed) return;
        // One container chunk = one PayloadPart; backpressure passes through to the container.
        if (!res.write(payloadPart(chunk))) {
          up.pause();
          res.once('drain', () => up.resume());
        }
      });
      up.on('error', () => {});
      up.on('end', () => {
        if (!ok()) return;
        finish('ok');
        res.end();
      });
      up.on('close', () => {
        if (!up.complete && ok()) {
          finish('5xx');
          res.end(
            modelStreamError(
              'The model container closed the response stream before it was complete.',
              'StreamBroken',
            ),
          );
        }
      });
    });
    upstream.end(body);
  }
}
