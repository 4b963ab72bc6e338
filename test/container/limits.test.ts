// The reference container's limits, each against the abuse it prevents: SSML markup (880
// characters of <break> made gigabytes of audio), unbounded audio per request, a client that
// never reads (the response grew in memory), a connection flood, and slow half-sent requests
// (held connections for minutes). The real built server, spawned as a process, over loopback.
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ensureContainerBuilt, invoke, killAll, pingDetails, startContainer } from './harness.js';

const BYTES_PER_SECOND = 22050 * 2; // eSpeak-NG: 22.05 kHz, 16-bit mono
const QUICK = { WARMUP_RUNS: '1' };

beforeAll(() => {
  ensureContainerBuilt();
});
afterEach(async () => {
  await killAll();
});
afterAll(async () => {
  await killAll();
});

/** A raw TCP client: what it received, and a promise of its close. */
function rawClient(port: number): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => {
    received += d;
  });
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => received, closed };
}

const post = (text: string) => {
  const body = JSON.stringify({ text });
  return `POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
};

describe('plain text only', () => {
  test('SSML markup is read as text: a <break time="20s"/> adds no 20 s of silence', async () => {
    const container = await startContainer(QUICK);
    const marked = await invoke(container.port, { text: 'Hello <break time="20s"/> world.' });
    expect(marked.status).toBe(200);
    const seconds = (marked.body.length - 44) / BYTES_PER_SECOND;
    // With SSML honoured this is above 20 s; read as text (the tag spoken) it is a few seconds.
    expect(seconds).toBeLessThan(10);
    expect(seconds).toBeGreaterThan(1);
    // `&`, `<` and `>` on their own are still spoken, not dropped or parsed.
    const symbols = await invoke(container.port, { text: 'a < b & c > d' });
    expect(symbols.status).toBe(200);
    const plain = await invoke(container.port, { text: 'a b c d' });
    expect(symbols.body.length).toBeGreaterThan(plain.body.length);
  });
});

describe('audio per request is capped (MAX_AUDIO_S)', () => {
  test('a request whose audio runs past the cap is cut there, and the slot is free for the next one', async () => {
    const container = await startContainer({ ...QUICK, MAX_AUDIO_S: '2' });
    const long = 'Scalegate measures one instance and derives the policy. '.repeat(8); // ~15 s of speech
    const cut = await invoke(container.port, { text: long }).then(
      () => 'completed',
      (e: Error) => e.message,
    );
    expect(cut).toMatch(/aborted|socket hang up|ECONNRESET/);
    expect((await pingDetails(container.port)).body.in_flight).toBe(0);
    const next = await invoke(container.port, { text: 'Still serving.' });
    expect(next.status).toBe(200);
    expect(container.stderr()).toContain('the audio exceeds MAX_AUDIO_S=2 s');
  });
});

describe('a client that does not read', () => {
  test('pauses synthesis while the socket buffer is full (bounded memory) and is cut after SEND_STALL_TIMEOUT_S', async () => {
    const container = await startContainer({ ...QUICK, MAX_AUDIO_S: '600', SEND_STALL_TIMEOUT_S: '2' });
    // ~265 s of audio (11.7 MB) from 999 characters: more than loopback's kernel buffers absorb.
    const client = rawClient(container.port);
    client.socket.once('connect', () => {
      client.socket.write(post('a\n\n'.repeat(333)));
      client.socket.pause(); // never read
    });
    const line = await container.waitForLine(/client not reading for 2 s: job \d+ cut/, 60_000);
    const job = /job (\d+) cut/.exec(line)?.[1];
    await container.waitForLine(new RegExp(`job ${job} aborted, slot released`));
    // What the response held in memory when it was cut: a few chunks, not the megabytes left.
    const buffered = Number(/buffered=(\d+)/.exec(line)?.[1]);
    expect(buffered).toBeLessThan(512 * 1024);
    // The slot is free again (the paused client itself never reads the close, so it is ended here).
    expect((await pingDetails(container.port)).body.in_flight).toBe(0);
    expect((await invoke(container.port, { text: 'Next.' })).status).toBe(200);
    client.socket.destroy();
  });
});

describe('connections', () => {
  test('closes connections beyond MAX_CONNECTIONS as they arrive, while the open ones keep being served', async () => {
    const container = await startContainer({ ...QUICK, MAX_CONNECTIONS: '2' });
    const held = [rawClient(container.port), rawClient(container.port)];
    await Promise.all(held.map((c) => new Promise((r) => c.socket.once('connect', r))));
    // A request answered on each held connection: the server has accepted both.
    await Promise.all(
      held.map(
        (c) =>
          new Promise<void>((resolve) => {
            c.socket.on('data', () => {
              if (c.received().includes('HTTP/1.1 200')) resolve();
            });
            c.socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
          }),
      ),
    );
    const extra = rawClient(container.port);
    await extra.closed;
    expect(extra.received()).toBe('');
    const first = held[0] as ReturnType<typeof rawClient>;
    const before = first.received().length;
    await new Promise<void>((resolve) => {
      first.socket.on('data', () => {
        if (first.received().slice(before).includes('HTTP/1.1 200')) resolve();
      });
      first.socket.write('GET /ping HTTP/1.1\r\nHost: x\r\n\r\n');
    });
    for (const c of held) c.socket.destroy();
  });

  test('answers 408 and closes a request whose headers never finish (HEADERS_TIMEOUT_S)', async () => {
    const container = await startContainer({ ...QUICK, HEADERS_TIMEOUT_S: '1', REQUEST_TIMEOUT_S: '2' });
    const slow = rawClient(container.port);
    slow.socket.write('POST /invocations HTTP/1.1\r\nHost: x\r\n'); // never the blank line
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
  });

  test('answers 408 and closes a request whose body never finishes (REQUEST_TIMEOUT_S)', async () => {
    const container = await startContainer({ ...QUICK, HEADERS_TIMEOUT_S: '1', REQUEST_TIMEOUT_S: '2' });
    const slow = rawClient(container.port);
    slow.socket.write(
      'POST /invocations HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"te',
    );
    await slow.closed;
    expect(slow.received()).toMatch(/^HTTP\/1\.1 408 /);
    expect((await pingDetails(container.port)).body.in_flight).toBe(0);
  });

  test('refuses a request timeout shorter than the headers timeout at start-up (exit 2)', async () => {
    const container = await startContainer(
      { ...QUICK, HEADERS_TIMEOUT_S: '5', REQUEST_TIMEOUT_S: '2' },
      { waitReady: false },
    );
    expect((await container.exited).code).toBe(2);
    expect(container.stderr()).toContain('REQUEST_TIMEOUT_S=2');
  });
});
