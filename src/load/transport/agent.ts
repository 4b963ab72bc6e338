/**
 * Keep-alive socket pools sized above the load. The timed agents tell the SDK request that opened
 * a new socket how long the connection setup took: the `sdk` transport runs each SDK call inside
 * an AsyncLocalStorage context, and the agent's createConnection runs synchronously inside
 * http.request (which the SDK's NodeHttpHandler calls), so it finds that request's slot. The http
 * and lean response-stream transports need none of this (they see their own request's socket),
 * and so keep AsyncLocalStorage (and its promise-hook cost) off their hot path.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type AgentOptions, Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import type { Duplex } from 'node:stream';
import type { ConnectionSlot } from '../types.js';

/** The slot of the request being sent (set around the SDK call by the response-stream transport). */
export const connectionContext = new AsyncLocalStorage<ConnectionSlot>();

function watch(socket: Duplex, secure: boolean): void {
  const slot = connectionContext.getStore();
  if (!slot) return;
  const openedAt = performance.now();
  slot.openedAt = openedAt;
  socket.once(secure ? 'secureConnect' : 'connect', () => {
    slot.connectMs = performance.now() - openedAt;
  });
}

/** Pool size for `concurrency` outstanding requests: always above it, never the SDK's 50. */
export const poolSizeFor = (concurrency: number): number => Math.max(64, Math.ceil(concurrency * 1.25) + 16);

/**
 * Idle keep-alive sockets are dropped after this, before a server's own idle timeout (60-65 s on
 * AWS front ends and the local SageMaker): a request written onto a socket the server is closing
 * fails with a reset that says nothing about the endpoint. (Node lowers an agent's idle timeout to
 * a server's `Keep-Alive: timeout` hint, but without an agent timeout it keeps idle sockets forever.)
 */
export const IDLE_SOCKET_TIMEOUT_MS = 30_000;

export const agentOptions = (maxSockets: number): AgentOptions => ({
  keepAlive: true,
  keepAliveMsecs: 10_000,
  timeout: IDLE_SOCKET_TIMEOUT_MS,
  maxSockets,
  maxFreeSockets: maxSockets,
  scheduling: 'lifo',
});

export class TimedHttpAgent extends HttpAgent {
  constructor(maxSockets: number) {
    super(agentOptions(maxSockets));
  }
  override createConnection(...args: Parameters<HttpAgent['createConnection']>): Duplex {
    const socket = super.createConnection(...args) as Duplex;
    watch(socket, false);
    return socket;
  }
}

export class TimedHttpsAgent extends HttpsAgent {
  constructor(maxSockets: number) {
    super(agentOptions(maxSockets));
  }
  override createConnection(...args: Parameters<HttpsAgent['createConnection']>): Duplex {
    const socket = super.createConnection(...args) as Duplex;
    watch(socket, true);
    return socket;
  }
}
