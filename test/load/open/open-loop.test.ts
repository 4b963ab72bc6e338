import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { VirtualClock } from '../../../src/load/clock.js';
import {
  type ArrivalSpec,
  constantProfile,
  scheduleIdentity,
  shardArrivals,
} from '../../../src/load/open/arrivals.js';
import { OpenLoopEngine, type OpenLoopRecord, openLoopHistograms } from '../../../src/load/open/open-loop.js';
import { createHttpTransport } from '../../../src/load/transport/http-transport.js';
import { openLoopHistogramsSchema } from '../../../src/model/histograms.js';
import {
  decodeWindow,
  mergeOpenLoop,
  quantileMs,
  RELATIVE_PRECISION,
  sumWindows,
} from '../../../src/stats/histograms.js';
import { simulatedServer } from '../fixtures/simulated-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

// 29 prompts of different lengths: service time follows the text, as in TTS.
const BODIES = Array.from(
  { length: 29 },
  (_, i) => new Uint8Array(Buffer.from(JSON.stringify({ text: 'x'.repeat(5 + 3 * i) }))),
);
const serviceOf = (body: Uint8Array): number => 8 + body.byteLength / 4;

const START_AT_WALL = '2026-11-30T12:00:00.000Z';

/** Runs the shards of `spec` (one engine each) on one simulated clock against one shared server. */
async function simulate(spec: ArrivalSpec, shards: number, maxOutstanding = 1000) {
  const clock = new VirtualClock();
  const server = simulatedServer({ clock, slots: 4, serviceMs: serviceOf });
  const identity = scheduleIdentity(spec);
  const runs = Array.from({ length: shards }, (_, index) => {
    const engine = new OpenLoopEngine({
      transport: server,
      bodies: BODIES,
      requestTimeoutMs: 30_000,
      maxOutstanding,
      windowMs: 1000,
      clock,
    });
    return engine
      .run(shardArrivals(spec, { index, count: shards }), 0)
      .then((summary) => ({ summary, index }));
  });
  await clock.run();
  const done = await Promise.all(runs);
  // Through JSON and the schema, as shard files would travel.
  return done.map(({ summary, index }) => ({
    summary,
    file: openLoopHistogramsSchema.parse(
      JSON.parse(
        JSON.stringify(openLoopHistograms(summary, identity, START_AT_WALL, 1000, { index, count: shards })),
      ),
    ),
  }));
}

describe('open-loop engine: shards of one seeded schedule merge into the single-process run', () => {
  it('two shards merged add up exactly to one process and give its p95 within the histogram precision (a merge that loses or double-counts a shard fails)', async () => {
    const spec: ArrivalSpec = { process: 'poisson', profile: constantProfile(150, 20), seed: 11 };
    const [single] = await simulate(spec, 1);
    const shards = await simulate(spec, 2);
    const merged = mergeOpenLoop(shards.map((s, i) => ({ source: `shard-${i}.json`, data: s.file })));
    const one = single?.file;
    if (!one) throw new Error('no single run');
    // Counts add exactly, window by window.
    expect(merged.windows.map((w) => [w.index, w.offered, w.sent, w.outcome_counts])).toEqual(
      one.windows.map((w) => [w.index, w.offered, w.sent, w.outcome_counts]),
    );
    const total = (file: typeof one) => sumWindows(file.windows.map((w) => decodeWindow(w, 'test')));
    const a = total(one);
    const b = total(merged);
    expect(b.offered).toBe(scheduleIdentity(spec).arrivals);
    expect(b.series.ttfab_intended.totalCount).toBe(a.series.ttfab_intended.totalCount);
    const p95Single = quantileMs(a.series.ttfab_intended, 0.95) as number;
    const p95Merged = quantileMs(b.series.ttfab_intended, 0.95) as number;
    expect(p95Single).toBeGreaterThan(0);
    expect(Math.abs(p95Merged - p95Single)).toBeLessThanOrEqual(p95Single * RELATIVE_PRECISION);
    // Each shard alone sent about half, not all: the split is real.
    const shardSent = shards.map((s) => s.summary.sent);
    expect(shardSent[0] ?? 0).toBeLessThan(a.sent);
    expect((shardSent[0] ?? 0) + (shardSent[1] ?? 0)).toBe(a.sent);
  });

  it('an arrival beyond the outstanding cap is counted as client_dropped in its window, never skipped silently', async () => {
    const clock = new VirtualClock();
    // One slot, 100 ms each, 100 arrivals/s: the queue grows until the cap of 5 refuses arrivals.
    const server = simulatedServer({ clock, slots: 1, serviceMs: () => 100 });
    const records: OpenLoopRecord[] = [];
    const engine = new OpenLoopEngine({
      transport: server,
      bodies: BODIES,
      requestTimeoutMs: 30_000,
      maxOutstanding: 5,
      clock,
      onRecord: (r) => records.push(r),
    });
    const run = engine.run(
      shardArrivals({ process: 'constant', profile: constantProfile(100, 1), seed: 0 }),
      0,
    );
    await clock.run();
    const summary = await run;
    expect(summary.offered).toBe(100);
    expect(summary.dropped).toBeGreaterThan(0);
    expect(summary.sent + summary.dropped).toBe(100);
    expect(server.received).toBe(summary.sent);
    expect(summary.peakOutstanding).toBe(5);
    const counted = summary.windows.reduce((n, w) => n + (w.outcomes.client_dropped ?? 0), 0);
    expect(counted).toBe(summary.dropped);
    expect(records.filter((r) => r.outcome === 'client_dropped')).toHaveLength(summary.dropped);
    expect(records).toHaveLength(100);
  });
});

describe('open-loop engine: stop', () => {
  it('stop() ends the run at once: no arrival sent after it, cut requests in no outcome count (an interrupted run hangs or miscounts otherwise)', async () => {
    const clock = new VirtualClock();
    const server = simulatedServer({ clock, slots: 1, serviceMs: () => 200 });
    const records: OpenLoopRecord[] = [];
    const engine = new OpenLoopEngine({
      transport: server,
      bodies: BODIES,
      requestTimeoutMs: 30_000,
      maxOutstanding: 100,
      clock,
      onRecord: (r) => records.push(r),
    });
    const run = engine.run(
      shardArrivals({ process: 'constant', profile: constantProfile(10, 10), seed: 0 }),
      0,
    );
    clock.at(1050, () => engine.stop({ abort: true }));
    await clock.run();
    const summary = await run;
    // Arrivals at 0, 100, ..., 1000 ms were sent; none after the stop at 1050 ms.
    expect(summary.offered).toBe(11);
    expect(server.received).toBe(11);
    expect(summary.endedAt).toBe(1050);
    const counted = summary.windows.reduce(
      (n, w) => n + Object.values(w.outcomes).reduce((a, b) => a + (b ?? 0), 0),
      0,
    );
    // 200 ms each through one slot: 5 finished by 1050 ms, the other 6 were cut.
    expect(counted).toBe(5);
    expect(records.filter((r) => r.stopped)).toHaveLength(6);
  });
});

/**
 * Erlang's M/D/1 waiting time (service time 1, load rho): P(W <= x) =
 * (1 - rho) * sum_{k=0}^{floor(x)} (rho (k - x))^k / k! * e^{-rho (k - x)}; its q-quantile by bisection.
 */
function md1WaitQuantile(rho: number, q: number): number {
  const cdf = (x: number): number => {
    let sum = 0;
    let factorial = 1;
    for (let k = 0; k <= Math.floor(x); k++) {
      if (k > 0) factorial *= k;
      sum += ((rho * (k - x)) ** k / factorial) * Math.exp(-rho * (k - x));
    }
    return (1 - rho) * sum;
  };
  let lo = 0;
  let hi = 100;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (cdf(mid) < q) lo = mid;
    else hi = mid;
  }
  return lo;
}

describe('open-loop engine against queueing theory (simulated time)', () => {
  it('reproduces the M/D/1 mean (Pollaczek-Khinchine) and exact p95 latency from the intended send (evenly spaced arrivals, or latency from the wrong instant, miss them)', async () => {
    // Poisson arrivals at 50/s into one slot of 10 ms: rho 0.5, mean wait rho*S/(2(1-rho)) = 5 ms, latency 15 ms.
    const clock = new VirtualClock();
    const server = simulatedServer({ clock, slots: 1, serviceMs: () => 10 });
    const engine = new OpenLoopEngine({
      transport: server,
      bodies: BODIES,
      requestTimeoutMs: 60_000,
      maxOutstanding: 10_000,
      windowMs: 60_000,
      clock,
    });
    const run = engine.run(
      shardArrivals({ process: 'poisson', profile: constantProfile(50, 1200), seed: 3 }),
      0,
    );
    await clock.run();
    const all = sumWindows((await run).windows);
    expect(all.series.latency_intended.totalCount).toBeGreaterThan(55_000);
    const meanMs = all.series.latency_intended.mean / 1000;
    // 5 % of 15 ms; D/D/1 (evenly spaced) gives 10 ms, a latency from first audio 12.5 ms.
    expect(Math.abs(meanMs - 15)).toBeLessThan(0.75);
    // The whole distribution, not just the mean: p95 against the exact M/D/1 waiting time.
    const exactP95 = 10 * (1 + md1WaitQuantile(0.5, 0.95));
    expect(exactP95).toBeCloseTo(30.506, 2);
    const p95 = quantileMs(all.series.latency_intended, 0.95) as number;
    expect(Math.abs(p95 - exactP95)).toBeLessThan(0.02 * exactP95);
  });
});

describe('open-loop engine: coordinated omission', () => {
  it('intended-time TTFAB shows a 1 s stall for every request scheduled inside it, where actual-send TTFAB does not', async () => {
    // The server shares this process: its stall (a synchronous 1 s block, like a stop-the-world
    // pause) also holds the sender, so requests scheduled inside it are sent late, after it.
    let stall: { from: number; to: number } | null = null;
    const blocker = new Int32Array(new SharedArrayBuffer(4));
    const server: Server = createServer((req, res) => {
      const parts: Buffer[] = [];
      req.on('data', (d: Buffer) => parts.push(d));
      req.on('end', () => {
        if (Buffer.concat(parts).toString().includes('stall') && stall === null) {
          const from = performance.now();
          Atomics.wait(blocker, 0, 0, 1000);
          stall = { from, to: performance.now() };
        }
        res.writeHead(200, { 'Content-Type': 'audio/wav' });
        res.end(Buffer.alloc(64, 1));
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    cleanups.push(
      () =>
        new Promise<void>((r) => {
          server.closeAllConnections();
          server.close(() => r());
        }),
    );
    const transport = createHttpTransport({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      maxConcurrency: 500,
    });
    cleanups.push(() => transport.close());
    // 200 req/s for 2 s; request 100 (t = 0.5 s) carries the stall.
    const bodies = Array.from(
      { length: 400 },
      (_, i) => new Uint8Array(Buffer.from(JSON.stringify({ text: i === 100 ? 'stall' : 'ok' }))),
    );
    const records: OpenLoopRecord[] = [];
    const engine = new OpenLoopEngine({
      transport,
      bodies,
      requestTimeoutMs: 10_000,
      maxOutstanding: 500,
      onRecord: (r) => records.push(r),
    });
    const summary = await engine.run(
      shardArrivals({ process: 'constant', profile: constantProfile(200, 2), seed: 0 }),
      performance.now() + 20,
    );
    const s = stall as { from: number; to: number } | null;
    if (!s) throw new Error('the stall request never reached the server');
    expect(summary.sent).toBe(400);
    const inside = records.filter((r) => r.intendedAt > s.from && r.intendedAt < s.to);
    // 200/s over ~1 s: about 200 requests were due while the process stood still.
    expect(inside.length).toBeGreaterThan(150);
    expect(inside.every((r) => r.outcome === 'ok')).toBe(true);
    const shows = (measured: number | null, r: OpenLoopRecord) =>
      (measured as number) + (r.connectMs ?? 0) >= s.to - r.intendedAt;
    // Every one of them: TTFAB from the intended time covers the rest of the stall.
    expect(inside.filter((r) => !shows(r.ttfabIntendedMs, r))).toEqual([]);
    // The naive measure, from the (late) actual send, misses it for those due in its first half.
    const early = inside.filter((r) => r.intendedAt < (s.from + s.to) / 2);
    expect(early.length).toBeGreaterThan(50);
    expect(early.filter((r) => shows(r.ttfabSentMs, r)).length).toBeLessThan(early.length / 2);
    // And the histograms say the same: intended-time p99 holds the stall, send lag explains it.
    const all = sumWindows(summary.windows);
    expect(quantileMs(all.series.ttfab_intended, 0.99) as number).toBeGreaterThan(
      quantileMs(all.series.ttfab_sent, 0.99) as number,
    );
    expect(quantileMs(all.series.send_lag, 0.99) as number).toBeGreaterThan(0.5 * (s.to - s.from));
  });
});
