/**
 * The network floor under every first-audio time: the fastest of a few TCP (and, for https, TLS)
 * handshakes from this machine to the host the requests go to (the endpoint's runtime host, or a
 * container measured directly). A TCP connect is one round trip, so its minimum over a few tries
 * is the round-trip time without queueing anywhere; a TTFAB measured from here can never be below
 * it. Measured once at the start of a run, before the load.
 */
import { connect as tcpConnect } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface RttFloor {
  /** `host:port` the handshakes went to. */
  target: string;
  /** Fastest TCP connect, ms: one round trip. null when no handshake completed. */
  tcpMs: number | null;
  /** Fastest TCP + TLS handshake, ms (https only; null for http or when none completed). */
  tlsMs: number | null;
  /** Handshakes that completed, of `attempts`. */
  completed: number;
  attempts: number;
  /** Why a handshake failed (the last failure), or null. */
  error: string | null;
}

export interface RttOptions {
  /** Handshakes tried (sequentially). @default 5 */
  attempts?: number;
  /** Longest one handshake may take, ms. @default 5000 */
  timeoutMs?: number;
  signal?: AbortSignal;
}

const defaultPort = (url: URL): number =>
  url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;

/** One handshake: TCP connect time and, for TLS, the time to the end of the TLS handshake. */
function handshake(
  url: URL,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ tcpMs: number; tlsMs: number | null }> {
  const secure = url.protocol === 'https:';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = defaultPort(url);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    let tcpMs: number | null = null;
    const socket = secure
      ? tlsConnect({
          host,
          port,
          servername: /^[\d.:]+$/.test(host) ? undefined : host,
          ALPNProtocols: ['http/1.1'],
        })
      : tcpConnect({ host, port });
    const timer = setTimeout(() => fail(new Error(`no handshake within ${timeoutMs} ms`)), timeoutMs);
    const onAbort = () => fail(new Error('aborted'));
    signal?.addEventListener('abort', onAbort, { once: true });
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      socket.destroy();
    };
    const fail = (e: Error) => {
      done();
      reject(e);
    };
    socket.setNoDelay(true);
    socket.once('connect', () => {
      tcpMs = performance.now() - started;
      if (!secure) {
        done();
        resolve({ tcpMs, tlsMs: null });
      }
    });
    if (secure) {
      socket.once('secureConnect', () => {
        const tlsMs = performance.now() - started;
        done();
        resolve({ tcpMs: tcpMs ?? tlsMs, tlsMs });
      });
    }
    socket.once('error', (e) => fail(e));
  });
}

/** The fastest of `attempts` handshakes to `url`'s host. Never throws: a failure is recorded. */
export async function measureRttFloor(url: URL, options: RttOptions = {}): Promise<RttFloor> {
  const attempts = options.attempts ?? 5;
  const timeoutMs = options.timeoutMs ?? 5000;
  const tcp: number[] = [];
  const tls: number[] = [];
  let error: string | null = null;
  for (let i = 0; i < attempts; i++) {
    if (options.signal?.aborted) break;
    try {
      const h = await handshake(url, timeoutMs, options.signal);
      tcp.push(h.tcpMs);
      if (h.tlsMs !== null) tls.push(h.tlsMs);
    } catch (e) {
      error = (e as Error).message;
    }
  }
  const min = (xs: number[]): number | null => (xs.length === 0 ? null : Math.min(...xs));
  return {
    target: `${url.hostname}:${defaultPort(url)}`,
    tcpMs: min(tcp),
    tlsMs: min(tls),
    completed: tcp.length,
    attempts,
    error,
  };
}
