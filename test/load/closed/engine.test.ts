import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClosedLoopEngine } from '../../../src/load/closed/engine.js';
import { encodePrompts } from '../../../src/load/prompts.js';
import { createHttpTransport } from '../../../src/load/transport/http-transport.js';
import type { RequestRecord } from '../../../src/load/types.js';
import { type CapacityServer, startCapacityServer } from '../fixtures/capacity-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** Resolves once `predicate` holds for the records seen so far (driven by onRecord events). */
function recorder() {
  const records: RequestRecord[] = [];
  const waiters: Array<{ test: () => boolean; resolve: () => void }> = [];
  return {
    records,
    onRecord: (r: RequestRecord) => {
      records.push(r);
      for (const w of [...waiters]) {
        if (w.test()) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    },
    until: (test: () => boolean) =>
      new Promise<void>((resolve) => {
        if (test()) resolve();
        else waiters.push({ test, resolve });
      }),
  };
}

async function capacity(slots: number, periodMs: number): Promise<CapacityServer> {
  const server = await startCapacityServer({ slots, periodMs });
  cleanups.push(() => server.close());
  return server;
}

const bodies = encodePrompts({ source: 'test', texts: ['hello there'] });

describe('closed-loop engine', () => {
  it('keeps exactly N requests outstanding (the server never sees more or fewer), so a ladder rung measures the concurrency it names', async () => {
    const server = await capacity(4, 20);
    const rec = recorder();
    const engine = new ClosedLoopEngine({
      transport: createHttpTransport({ url: server.url, maxConcurrency: 10 }),
      bodies,
      requestTimeoutMs: 5000,
      onRecord: rec.onRecord,
    });
    const epoch = engine.setConcurrency(10);
    await rec.until(() => rec.records.length >= 40);
    const from = rec.records[20]?.endedAt as number;
    await rec.until(() => rec.records.length >= 120);
    const to = rec.records[rec.records.length - 1]?.endedAt as number;
    const stats = engine.inFlightStats(from, to, 10);
    await engine.stop({ abort: false });
    expect(server.maxInFlight).toBe(10);
    expect(stats.peak).toBe(10);
    expect(stats.mean).toBeGreaterThan(9.9);
    expect(stats.shortfall).toBeLessThan(0.01);
    expect(engine.finished(epoch).every((r) => r.outcome === 'ok' && r.concurrency === 10)).toBe(true);
  });

  it('never retries: every dispatched request reaches the server exactly once', async () => {
    const server = await capacity(2, 10);
    const rec = recorder();
    const engine = new ClosedLoopEngine({
      transport: createHttpTransport({ url: server.url, maxConcurrency: 6 }),
      bodies,
      requestTimeoutMs: 5000,
      onRecord: rec.onRecord,
    });
    engine.setConcurrency(6);
    await rec.until(() => rec.records.length >= 60);
    await engine.stop({ abort: false });
    expect(server.received).toBe(rec.records.length);
    expect(new Set(rec.records.map((r) => r.seq)).size).toBe(rec.records.length);
  });

  it('reuses kept-alive sockets from a pool above N, and times connection setup only on the requests that opened one', async () => {
    const server = await capacity(4, 10);
    const rec = recorder();
    const engine = new ClosedLoopEngine({
      transport: createHttpTransport({ url: server.url, maxConcurrency: 8 }),
      bodies,
      requestTimeoutMs: 5000,
      onRecord: rec.onRecord,
    });
    engine.setConcurrency(8);
    await rec.until(() => rec.records.length >= 100);
    await engine.stop({ abort: false });
    expect(server.connections).toBe(8);
    const opened = rec.records.filter((r) => r.connectMs !== null);
    expect(opened).toHaveLength(8);
    for (const r of opened) expect(r.connectMs).toBeGreaterThanOrEqual(0);
    // TTFAB excludes the setup it recorded separately.
    for (const r of rec.records) {
      const raw = (r.firstAudioAt as number) - r.dispatchedAt;
      expect(r.ttfabMs).toBeCloseTo(raw - (r.connectMs ?? 0), 6);
    }
  });

  it('retires surplus workers when the concurrency drops, and tags each request with the epoch it was dispatched in', async () => {
    const server = await capacity(2, 10);
    const rec = recorder();
    const engine = new ClosedLoopEngine({
      transport: createHttpTransport({ url: server.url, maxConcurrency: 8 }),
      bodies,
      requestTimeoutMs: 5000,
      onRecord: rec.onRecord,
    });
    const first = engine.setConcurrency(8);
    await rec.until(() => rec.records.length >= 30);
    const second = engine.setConcurrency(3);
    await rec.until(() => engine.finished(second).length >= 30);
    const late = engine.finished(second);
    const from = late[10]?.endedAt as number;
    const to = late[late.length - 1]?.endedAt as number;
    const stats = engine.inFlightStats(from, to, 3);
    expect(stats.peak).toBe(3);
    expect(stats.mean).toBeGreaterThan(2.9);
    expect(late.every((r) => r.concurrency === 3 && r.epoch === second)).toBe(true);
    expect(engine.finished(first).every((r) => r.concurrency === 8)).toBe(true);
    await engine.stop({ abort: false });
  });
});

describe('outcomes (http transport)', () => {
  async function scripted(): Promise<string> {
    const server: Server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        const { text } = JSON.parse(Buffer.concat(parts).toString()) as { text: string };
        const json = (status: number, body: unknown) => {
          res.writeHead(status, { 'Content-Type': 'application/json' });
          res.end(JSON.stringify(body));
        };
        if (text === 'ok') {
          res.writeHead(200, { 'Content-Type': 'audio/wav' });
          res.write(Buffer.alloc(44, 1));
          res.end(Buffer.alloc(100, 2));
        } else if (text === '503')
          json(503, { error: 'queue_saturated', queue_depth: 4, max_queue_depth: 4 });
        else if (text === '429') json(429, { error: 'throttled' });
        else if (text === '500') json(500, { error: 'boom' });
        else if (text === '400') json(400, { error: 'bad_request' });
        else if (text === 'empty') {
          res.writeHead(200, { 'Content-Type': 'audio/wav' });
          res.end();
        } else if (text === 'cut') {
          res.writeHead(200, { 'Content-Type': 'audio/wav' });
          res.write(Buffer.alloc(10));
          res.destroy();
        }
        // 'hang': never answers
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    );
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  it('classifies every response into the closed outcome set, without retrying any of them', async () => {
    const url = await scripted();
    const texts = ['ok', '503', '429', '500', '400', 'empty', 'cut', 'hang'];
    const rec = recorder();
    const engine = new ClosedLoopEngine({
      transport: createHttpTransport({ url, maxConcurrency: 1 }),
      bodies: encodePrompts({ source: 'test', texts }),
      requestTimeoutMs: 300,
      onRecord: rec.onRecord,
    });
    engine.setConcurrency(1);
    await rec.until(() => rec.records.length >= texts.length);
    await engine.stop({ abort: true });
    const outcomes = rec.records.slice(0, texts.length).map((r) => [texts[r.promptIndex], r.outcome]);
    expect(outcomes).toEqual([
      ['ok', 'ok'],
      ['503', 'saturated_503'],
      ['429', 'throttled_429'],
      ['500', 'server_5xx'],
      ['400', 'error'],
      ['empty', 'model_error'],
      ['cut', 'error'],
      ['hang', 'client_timeout'],
    ]);
    const ok = rec.records[0] as RequestRecord;
    expect(ok.bytes).toBe(144);
    expect(ok.ttfabMs).not.toBeNull();
    expect(rec.records.slice(1, texts.length).every((r) => r.ttfabMs === null)).toBe(true);
  });

  it('reports a refused connection as an error outcome instead of throwing or retrying', async () => {
    const server = await startCapacityServer({ slots: 1, periodMs: 5 });
    const url = server.url;
    await server.close();
    const rec = recorder();
    const engine = new ClosedLoopEngine({
      transport: createHttpTransport({ url, maxConcurrency: 1 }),
      bodies,
      requestTimeoutMs: 1000,
      onRecord: rec.onRecord,
    });
    engine.setConcurrency(1);
    await rec.until(() => rec.records.length >= 3);
    await engine.stop({ abort: true });
    expect(rec.records[0]?.outcome).toBe('error');
    expect(rec.records[0]?.error).toMatch(/ECONNREFUSED/);
  });
});
