import { describe, expect, it } from 'vitest';
import {
  alignDown,
  alignUp,
  driftTest,
  evaluateSlo,
  joinServerConcurrency,
  periodsWithin,
  quantileWithMisses,
} from '../../src/stats/ladder-stats.js';
import { mulberry32 } from '../../src/stats/prng.js';

/** Seeded latencies: `center` +- `spread` (uniform), so every run sees the same numbers. */
function samples(seed: number, n: number, center: number, spread: number): number[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => center + (rand() * 2 - 1) * spread);
}

describe('SLO verdict from the p95 confidence interval', () => {
  it('passes decisively when the whole interval is inside the SLO, fails when it is wholly above', () => {
    const pass = evaluateSlo(samples(1, 200, 100, 10), 150);
    expect(pass).toMatchObject({ verdict: 'pass', decisive: true });
    expect((pass.interval as { high: number }).high).toBeLessThanOrEqual(150);
    const fail = evaluateSlo(samples(2, 200, 200, 10), 150);
    expect(fail).toMatchObject({ verdict: 'fail', decisive: true });
  });

  it('is uncertain while the interval straddles the SLO', () => {
    const s = samples(3, 200, 150, 20);
    const p95 = evaluateSlo(s, 1000).p95 as number;
    expect(evaluateSlo(s, p95)).toMatchObject({ verdict: 'uncertain', decisive: false });
  });

  it('is never decisive on fewer samples than asked for (nor without an interval)', () => {
    expect(evaluateSlo(samples(4, 50, 100, 10), 150)).toMatchObject({ verdict: 'uncertain', interval: null });
    expect(evaluateSlo(samples(4, 90, 100, 10), 150, { minSamples: 100 })).toMatchObject({
      verdict: 'pass',
      decisive: false,
    });
  });

  it('counts a request without audio as a certain miss: 10 % misses fail a fast server', () => {
    const s = samples(5, 180, 50, 5);
    const withMisses = [...s, ...Array(20).fill(Number.POSITIVE_INFINITY)];
    const ev = evaluateSlo(withMisses, 150);
    expect(ev).toMatchObject({ verdict: 'fail', misses: 20 });
    expect(ev.p95).toBe(Number.POSITIVE_INFINITY);
    expect(
      Number.isNaN(quantileWithMisses([1, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY], 0.9)),
    ).toBe(false);
    expect(quantileWithMisses([1, 2, 3, 4], 0.5)).toBe(2.5);
  });
});

describe('settledness (drift between the halves of a window)', () => {
  it('a stationary window is settled', () => {
    expect(driftTest(samples(6, 200, 300, 30)).settled).toBe(true);
  });

  it('a window whose latency climbs (a queue still filling) is not', () => {
    const ramp = Array.from({ length: 200 }, (_, i) => 100 + i * 2);
    const result = driftTest(ramp);
    expect(result.settled).toBe(false);
    expect(result.driftMs).toBeGreaterThan(150);
  });

  it('cannot call a window settled on too few samples', () => {
    expect(driftTest(samples(7, 20, 100, 1))).toMatchObject({ settled: false, driftMs: null });
  });
});

describe('CloudWatch join helpers', () => {
  it('uses only periods wholly inside the measure window', () => {
    const t0 = 1_700_000_000_000;
    const ts = [t0, t0 + 10_000, t0 + 20_000, t0 + 30_000];
    expect(periodsWithin(ts, [1, 2, 3, 4], 10, t0 + 5_000, t0 + 30_000)).toEqual([2, 3]);
  });

  it('R = server Maximum / client mean in-flight, null without data', () => {
    expect(joinServerConcurrency([8, 8], [7.9, 8], 8)).toMatchObject({ serverPeak: 8, ratio: 1, periods: 2 });
    expect(joinServerConcurrency([], [], 8)).toMatchObject({ ratio: null, periods: 0 });
  });

  it('aligns instants to period boundaries', () => {
    expect(alignUp(1_000_001, 10)).toBe(1_010_000);
    expect(alignUp(1_000_000, 10)).toBe(1_000_000);
    expect(alignDown(1_009_999, 10)).toBe(1_000_000);
  });
});
