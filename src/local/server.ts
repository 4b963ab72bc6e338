/**
 * The one HTTP server of the local SageMaker, on loopback. It routes by protocol, so that
 * `AWS_ENDPOINT_URL=http://127.0.0.1:PORT` makes every unmodified SDK v3 client work:
 * - `POST /` with `X-Amz-Target: <prefix>.<Operation>`: the JSON protocols (1.1 for SageMaker,
 *   Application Auto Scaling, CloudWatch Logs, Service Quotas and the Price List API; 1.0 for
 *   CloudWatch);
 * - `POST /endpoints/<name>/invocations[-response-stream]`: SageMaker Runtime (REST-JSON).
 * An unknown target or operation is a 400 `UnknownOperationException` naming it, never a 200.
 */
import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { AwsError } from './aws-error.js';
import type { OperationHandler } from './contracts.js';
import type { Faults, ServiceName } from './faults.js';
import type { Runtime } from './runtime.js';

export interface JsonService {
  /** X-Amz-Target prefix, without the dot. */
  prefix: string;
  /** '1.0' or '1.1': the response content type `application/x-amz-json-<v>`. */
  version: '1.0' | '1.1';
  service: ServiceName;
  handler: OperationHandler;
}

const MAX_JSON_BODY = 10 * 1024 * 1024;

function sendJson(
  res: ServerResponse,
  status: number,
  version: string,
  payload: unknown,
  extraHeaders = {},
): void {
  const body = JSON.stringify(payload ?? {});
  res.writeHead(status, {
    'Content-Type': `application/x-amz-json-${version}`,
    'Content-Length': Buffer.byteLength(body),
    'x-amzn-RequestId': randomUUID(),
    ...extraHeaders,
  });
  res.end(body);
}

/**
 * CloudWatch's client is "awsQueryCompatible": for its modelled errors it also reads the Query
 * error code from `x-amzn-query-error` (exposed as `e.Code`). Only those get the header; an
 * unmodelled one (ThrottlingException, UnknownOperationException) keeps its JSON type as `e.name`.
 */
const CLOUDWATCH_QUERY_CODES: Record<string, string> = {
  InvalidParameterValueException: 'InvalidParameterValue',
  InvalidParameterCombinationException: 'InvalidParameterCombination',
  MissingRequiredParameterException: 'MissingParameter',
  InvalidNextToken: 'InvalidNextToken',
  ResourceNotFound: 'ResourceNotFound',
  LimitExceededFault: 'LimitExceeded',
  InternalServiceFault: 'InternalServiceError',
};

function sendAwsError(res: ServerResponse, version: string, err: AwsError): void {
  const queryCode = version === '1.0' ? CLOUDWATCH_QUERY_CODES[err.type] : undefined;
  sendJson(
    res,
    err.status,
    version,
    { __type: err.type, message: err.message },
    queryCode ? { 'x-amzn-query-error': `${queryCode};${err.status >= 500 ? 'Receiver' : 'Sender'}` } : {},
  );
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size <= MAX_JSON_BODY) parts.push(b);
    });
    req.on('error', reject);
    req.on('end', () => {
      if (size > MAX_JSON_BODY) {
        reject(new AwsError('SerializationException', 'Request body too large.', 400));
        return;
      }
      const text = Buffer.concat(parts).toString('utf8').trim();
      if (text === '') {
        resolve({});
        return;
      }
      try {
        const parsed = JSON.parse(text) as unknown;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
          throw new Error('not a JSON object');
        resolve(parsed as Record<string, unknown>);
      } catch (e) {
        reject(new AwsError('SerializationException', `Malformed JSON body: ${(e as Error).message}`, 400));
      }
    });
  });
}

export interface LocalServer {
  port: number;
  url: string;
  close(): Promise<void>;
}

export async function startServer(opts: {
  port: number;
  services: JsonService[];
  runtime: Runtime;
  faults: Faults;
}): Promise<LocalServer> {
  const byPrefix = new Map(opts.services.map((s) => [s.prefix, s]));

  const handleJson = async (req: IncomingMessage, res: ServerResponse, target: string): Promise<void> => {
    const dot = target.lastIndexOf('.');
    const prefix = dot >= 0 ? target.slice(0, dot) : '';
    const operation = dot >= 0 ? target.slice(dot + 1) : target;
    const service = byPrefix.get(prefix);
    const version = service?.version ?? (req.headers['content-type']?.includes('1.0') ? '1.0' : '1.1');
    try {
      if (!service) {
        req.resume();
        throw new AwsError(
          'UnknownOperationException',
          `Unknown operation ${target}: no such service here.`,
          400,
        );
      }
      const input = await readJson(req);
      const delayMs = opts.faults.callDelayMs(service.service, operation);
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      opts.faults.checkThrottle(service.service, operation);
      const output = await service.handler(operation, input);
      sendJson(res, 200, version, output);
    } catch (e) {
      const err =
        e instanceof AwsError
          ? e
          : new AwsError(
              'InternalFailure',
              `Internal error in the local SageMaker: ${(e as Error).message}`,
              500,
            );
      sendAwsError(res, version, err);
    }
  };

  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?', 1)[0] as string;
    if (opts.runtime.handle(req, res, path)) return;
    const target = req.headers['x-amz-target'];
    if (req.method === 'POST' && path === '/' && typeof target === 'string') {
      void handleJson(req, res, target);
      return;
    }
    req.resume();
    sendAwsError(
      res,
      '1.1',
      new AwsError(
        'UnknownOperationException',
        `Unknown operation ${req.method} ${path} (no X-Amz-Target).`,
        400,
      ),
    );
  });
  // Load tests hold hundreds of kept-alive connections; none may be cut while idle between requests.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  server.requestTimeout = 0;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  let closed: Promise<void> | undefined;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      return closed;
    },
  };
}
