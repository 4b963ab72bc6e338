import { describe, expect, it } from 'vitest';
import { lognormalSampler, simulateClosedLoop, trueP95 } from '../../src/stats/closed-loop-sim.js';
import { mulberry32 } from '../../src/stats/prng.js';

describe('closed-loop simulator (the data the rung decision is proven on)', () => {
  it('a serial server at N outstanding answers in exactly N service times (deterministic service)', () => {
    const run = simulateClosedLoop(
      { slots: 1, meanServiceMs: 10, serviceCv: 0 },
      { outstanding: 8, durationS: 1, warmupCompletions: 8, seed: 1 },
    );
    expect(run.ttfabMs.length).toBeGreaterThan(90);
    for (const v of run.ttfabMs) expect(v).toBeCloseTo(80, 9);
    // One completion every service time.
    expect((run.atMs[1] as number) - (run.atMs[0] as number)).toBeCloseTo(10, 9);
  });

  it('a k-slot server queues N / k deep, and does not queue at N <= k', () => {
    const queued = simulateClosedLoop(
      { slots: 4, meanServiceMs: 40, serviceCv: 0 },
      { outstanding: 8, durationS: 1, warmupCompletions: 8, seed: 1 },
    );
    for (const v of queued.ttfabMs) expect(v).toBeCloseTo(80, 9);
    const idle = simulateClosedLoop(
      { slots: 4, meanServiceMs: 40, serviceCv: 0 },
      { outstanding: 3, durationS: 1, seed: 1 },
    );
    for (const v of idle.ttfabMs) expect(v).toBeCloseTo(40, 9);
  });

  it('is reproducible for a seed and differs across seeds', () => {
    const server = { slots: 1, meanServiceMs: 60, serviceCv: 0.3 };
    const a = simulateClosedLoop(server, { outstanding: 16, durationS: 30, seed: 5 });
    const b = simulateClosedLoop(server, { outstanding: 16, durationS: 30, seed: 5 });
    const c = simulateClosedLoop(server, { outstanding: 16, durationS: 30, seed: 6 });
    expect(Array.from(a.ttfabMs)).toEqual(Array.from(b.ttfabMs));
    expect(Array.from(a.ttfabMs)).not.toEqual(Array.from(c.ttfabMs));
    expect(trueP95(server, 4, { completions: 20_000 })).toBe(trueP95(server, 4, { completions: 20_000 }));
  });

  it('draws lognormal service times with the requested mean and CV', () => {
    const draw = lognormalSampler(60, 0.3, mulberry32(11));
    const xs = Array.from({ length: 200_000 }, draw);
    const mean = xs.reduce((s, v) => s + v, 0) / xs.length;
    const sd = Math.sqrt(xs.reduce((s, v) => s + (v - mean) ** 2, 0) / (xs.length - 1));
    expect(mean).toBeGreaterThan(59.7);
    expect(mean).toBeLessThan(60.3);
    expect(sd / mean).toBeGreaterThan(0.294);
    expect(sd / mean).toBeLessThan(0.306);
  });

  it('produces the dependence of a real closed loop: lag-1 autocorrelation near (N - 1) / N', () => {
    const run = simulateClosedLoop(
      { slots: 1, meanServiceMs: 60, serviceCv: 0.3 },
      { outstanding: 16, durationS: 600, warmupCompletions: 160, seed: 3 },
    );
    const x = Array.from(run.ttfabMs);
    const mean = x.reduce((s, v) => s + v, 0) / x.length;
    let num = 0;
    let den = 0;
    for (let i = 0; i < x.length; i++) {
      den += ((x[i] as number) - mean) ** 2;
      if (i > 0) num += ((x[i] as number) - mean) * ((x[i - 1] as number) - mean);
    }
    expect(num / den).toBeGreaterThan(0.9);
    expect(num / den).toBeLessThan(0.97);
  });

  it('regime switching: slow spells of the stated share, 30 % slower, lasting seconds (not per request)', () => {
    const server = {
      slots: 1,
      meanServiceMs: 60,
      serviceCv: 0,
      regime: { slowdown: 1.3, meanSlowS: 5, meanNormalS: 10 },
    };
    const run = simulateClosedLoop(server, { outstanding: 1, durationS: 3000, seed: 9 });
    const slow = Array.from(run.ttfabMs).filter((v) => v > 70).length / run.ttfabMs.length;
    // Time share slow 1/3; the slow spell serves 1/1.3 as many requests per second: 0.278.
    expect(slow).toBeGreaterThan(0.24);
    expect(slow).toBeLessThan(0.32);
    for (const v of run.ttfabMs) expect([60, 78].some((x) => Math.abs(v - x) < 1e-9)).toBe(true);
    // Spells: runs of slow requests average 5 s / 78 ms = 64 requests, not 1.
    let runs = 0;
    for (let i = 1; i < run.ttfabMs.length; i++)
      if ((run.ttfabMs[i] as number) > 70 && (run.ttfabMs[i - 1] as number) < 70) runs++;
    const slowCount = Array.from(run.ttfabMs).filter((v) => v > 70).length;
    expect(slowCount / runs).toBeGreaterThan(40);
    expect(slowCount / runs).toBeLessThan(90);
  });

  it('a batching server answers up to maxBatch waiting requests together', () => {
    const run = simulateClosedLoop(
      { slots: 1, meanServiceMs: 100, serviceCv: 0, batching: { maxBatch: 4, perItem: 0.5 } },
      { outstanding: 8, durationS: 10, warmupCompletions: 16, seed: 1 },
    );
    // Batches of 4 take 100 x (1 + 0.5 x 3) = 250 ms; 8 outstanding wait one batch, then are served.
    for (const v of run.ttfabMs) expect(v).toBeCloseTo(500, 9);
    expect((run.atMs[4] as number) - (run.atMs[0] as number)).toBeCloseTo(250, 9);
  });

  it('replays a trace in its recorded order from a seeded start', () => {
    const trace = [10, 20, 30, 40, 50];
    const run = simulateClosedLoop(
      { slots: 1, meanServiceMs: 30, serviceCv: 0, trace },
      { outstanding: 1, durationS: 1, seed: 4 },
    );
    const seen = Array.from(run.ttfabMs.subarray(0, 10));
    const start = trace.indexOf(seen[0] as number);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(seen).toEqual(Array.from({ length: 10 }, (_, i) => trace[(start + i) % 5]));
  });
});
