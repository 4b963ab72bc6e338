/**
 * `http` transport: POST straight to a container's `/invocations` (calibrating a container before
 * it is deployed). One request per call, no retries, a keep-alive pool sized above the load.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import { opt, usage } from '../../model/errors.js';
import type { ConnectionSlot, InvokeProbe, InvokeResult, Transport } from '../types.js';
import { agentOptions, poolSizeFor } from './agent.js';
import { classifyHttpStatus } from './outcomes.js';

export interface HttpTransportOptions {
  /** `http://HOST:PORT` (path defaults to /invocations) or a full URL. */
  url: string;
  /** Highest concurrency the engine will run; the socket pool is sized above it. */
  maxConcurrency: number;
  contentType?: string;
  /** @default audio/wav */
  accept?: string;
}

export function invocationsUrl(target: string): URL {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw usage`${opt('target', target)}: not a URL. Use http://HOST:PORT (the container's address).`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw usage`${opt('target', target)}: only http:// and https:// targets can be measured directly.`;
  }
  if (url.pathname === '' || url.pathname === '/') url.pathname = '/invocations';
  return url;
}

const MAX_ERROR_BODY = 2048;

export function createHttpTransport(options: HttpTransportOptions): Transport {
  const url = invocationsUrl(options.url);
  const secure = url.protocol === 'https:';
  const maxSockets = poolSizeFor(options.maxConcurrency);
  const agent = secure ? new HttpsAgent(agentOptions(maxSockets)) : new HttpAgent(agentOptions(maxSockets));
  const send = secure ? httpsRequest : httpRequest;
  const contentType = options.contentType ?? 'application/json';
  const accept = options.accept ?? 'audio/wav';
  const base = {
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port,
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    agent,
  };
  const connectEvent = secure ? 'secureConnect' : 'connect';

  const invoke = (body: Uint8Array, probe: InvokeProbe, signal: AbortSignal): Promise<InvokeResult> =>
    new Promise<InvokeResult>((resolve) => {
      let settled = false;
      const finish = (result: InvokeResult) => {
        if (settled) return;
        settled = true;
        resolve(result);
      };
      if (signal.aborted) {
        finish({ outcome: 'error', status: null, error: 'aborted before dispatch' });
        return;
      }
      const slot: ConnectionSlot = { openedAt: null, connectMs: null };
      probe.connection(slot);
      const req = send({
        ...base,
        signal,
        headers: { 'Content-Type': contentType, 'Content-Length': body.byteLength, Accept: accept },
      });
      req.once('socket', (socket: Socket) => {
        // A kept-alive socket arrives connected; a new one is still connecting: time its setup.
        if (!socket.connecting) return;
        socket.setNoDelay(true);
        const openedAt = performance.now();
        slot.openedAt = openedAt;
        socket.once(connectEvent, () => {
          slot.connectMs = performance.now() - openedAt;
        });
      });
      req.on('response', (res: IncomingMessage) => {
        const status = res.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          res.on('data', (chunk: Buffer) => probe.payload(chunk));
          res.on('end', () => finish({ outcome: 'ok', status, error: null }));
        } else {
          const parts: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            if (size < MAX_ERROR_BODY) parts.push(chunk);
            size += chunk.length;
          });
          res.on('end', () => {
            const text = Buffer.concat(parts).toString('utf8').slice(0, MAX_ERROR_BODY);
            finish({
              outcome: classifyHttpStatus(status, text),
              status,
              error: `HTTP ${status}: ${text.trim()}`,
              containerStatus: status,
            });
          });
        }
        res.on('error', (e) => finish({ outcome: 'error', status, error: `response: ${e.message}` }));
        res.on('close', () => {
          if (!res.complete) finish({ outcome: 'error', status, error: 'response cut mid-stream' });
        });
      });
      req.on('error', (e) => finish({ outcome: 'error', status: null, error: e.message }));
      req.end(body);
    });

  return {
    kind: 'http',
    target: url.toString(),
    invoke,
    endpointUrl: async () => new URL(url.toString()),
    close: async () => {
      agent.destroy();
    },
  };
}
