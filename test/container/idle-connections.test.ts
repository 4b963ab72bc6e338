// Silent connections cannot lock the reference container out. A TCP connection that never sends a
// byte is not a request, so the headers and request timeouts never start for it; without an idle
// timeout, MAX_CONNECTIONS of them held the server shut for as long as they stayed open. The real
// built server, spawned as a process, over loopback; every wait is on an event ('close', a
// response), never a sleep.
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ensureContainerBuilt, invoke, killAll, newAgent, pingDetails, startContainer } from './harness.js';

const QUICK = { WARMUP_RUNS: '1' };
const SILENT = 64;

beforeAll(() => {
  ensureContainerBuilt();
});
afterEach(async () => {
  await killAll();
});
afterAll(async () => {
  await killAll();
});

interface Silent {
  socket: Socket;
  /** Resolves when the socket closes (we never close it ourselves before the end of a test). */
  closed: Promise<void>;
  isClosed: () => boolean;
  received: () => number;
}

/** `n` connected sockets that never send a byte. */
async function silentConnections(port: number, n: number): Promise<Silent[]> {
  const all = Array.from({ length: n }, (): Silent => {
    const socket = connect(port, '127.0.0.1');
    let closed = false;
    let received = 0;
    socket.on('data', (d: Buffer) => {
      received += d.length;
    });
    socket.on('error', () => {});
    return {
      socket,
      closed: new Promise<void>((resolve) =>
        socket.once('close', () => {
          closed = true;
          resolve();
        }),
      ),
      isClosed: () => closed,
      received: () => received,
    };
  });
  await Promise.all(all.map((s) => new Promise((r) => s.socket.once('connect', r))));
  return all;
}

describe('silent connections', () => {
  test('64 silent connections hold no admission slot: a request is served while they are all still open', async () => {
    // One admission slot: were a connection to take one, the request would get 503.
    const container = await startContainer({ ...QUICK, MAX_QUEUE_DEPTH: '1', IDLE_TIMEOUT_S: '600' });
    const silent = await silentConnections(container.port, SILENT);
    const served = await invoke(container.port, { text: 'Still serving.' }, { agent: newAgent() });
    expect(served.status).toBe(200);
    expect(served.body.length).toBeGreaterThan(44);
    expect(silent.filter((s) => s.isClosed())).toHaveLength(0);
    expect((await pingDetails(container.port)).body.in_flight).toBe(0);
    for (const s of silent) s.socket.destroy();
  });

  test('at MAX_CONNECTIONS=64, 64 silent connections are closed by the server after IDLE_TIMEOUT_S, unanswered, and then a request is served', async () => {
    // The headers and request timeouts are set far out, so only the idle timeout can close them.
    const container = await startContainer({
      ...QUICK,
      MAX_CONNECTIONS: String(SILENT),
      IDLE_TIMEOUT_S: '1',
      HEADERS_TIMEOUT_S: '600',
      REQUEST_TIMEOUT_S: '600',
    });
    const silent = await silentConnections(container.port, SILENT);
    // Every one of them is closed by the server (this side never closes them).
    await Promise.all(silent.map((s) => s.closed));
    expect(silent.map((s) => s.received()).filter((n) => n > 0)).toEqual([]);
    const served = await invoke(container.port, { text: 'Unlocked.' }, { agent: newAgent() });
    expect(served.status).toBe(200);
  });

  test('the idle timeout stops at the first request: a request queued longer than IDLE_TIMEOUT_S is still answered', async () => {
    // An emulated device answers after 2.5 s with the first byte; the idle timeout is 1 s.
    const container = await startContainer({
      ...QUICK,
      IDLE_TIMEOUT_S: '1',
      DEVICE_PROFILE: JSON.stringify({
        source: 'test',
        lanes: 1,
        service_mean_ms: 2500,
        service_sigma: 0,
        first_audio_fraction: 1,
      }),
    });
    const agent = newAgent();
    const first = await invoke(container.port, { text: 'Slow device.' }, { agent });
    expect(first.status).toBe(200);
    expect(first.body.length).toBeGreaterThan(44);
  });

  test('a kept-alive connection idle past KEEP_ALIVE_TIMEOUT_S after its response is closed by the server', async () => {
    const container = await startContainer({ ...QUICK, KEEP_ALIVE_TIMEOUT_S: '1' });
    const socket = connect(container.port, '127.0.0.1');
    socket.on('error', () => {});
    let text = '';
    socket.setEncoding('latin1');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    await new Promise<void>((resolve) => {
      socket.on('data', (d: string) => {
        text += d;
        if (/\r\n\r\n\{.*\}$/s.test(text)) resolve();
      });
      socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    expect(text).toMatch(/^HTTP\/1\.1 200 /);
    expect(text.toLowerCase()).toContain('keep-alive: timeout=1');
    await closed;
  });

  test('refuses an idle timeout that is not a whole number of seconds at start-up (exit 2)', async () => {
    const container = await startContainer({ ...QUICK, IDLE_TIMEOUT_S: '0.5' }, { waitReady: false });
    expect((await container.exited).code).toBe(2);
    expect(container.stderr()).toContain('IDLE_TIMEOUT_S=0.5');
  });
});
