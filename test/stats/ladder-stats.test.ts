import { describe, expect, it } from 'vitest';
import {
  alignDown,
  alignUp,
  driftTest,
  extrapolateBoundary,
  joinServerConcurrency,
  periodsWithin,
  predictBoundary,
  quantileOfRange,
  quantileWithMisses,
} from '../../src/stats/ladder-stats.js';
import { mulberry32 } from '../../src/stats/prng.js';
import { sortedAscending } from '../../src/stats/quantiles.js';

/** Seeded latencies: `center` +- `spread` (uniform), so every run sees the same numbers. */
function samples(seed: number, n: number, center: number, spread: number): number[] {
  const rand = mulberry32(seed);
  return Array.from({ length: n }, () => center + (rand() * 2 - 1) * spread);
}

describe('misses in quantiles', () => {
  it('a quantile that touches a request without audio is +Infinity, never NaN', () => {
    expect(
      Number.isNaN(quantileWithMisses([1, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY], 0.9)),
    ).toBe(false);
    expect(quantileWithMisses([1, 2, Number.POSITIVE_INFINITY], 0.9)).toBe(Number.POSITIVE_INFINITY);
    expect(quantileWithMisses([1, 2, 3, 4], 0.5)).toBe(2.5);
  });

  it('selection gives the same quantile as sorting (the drift test runs it on every tick)', () => {
    const values = samples(9, 301, 100, 50);
    for (const q of [0, 0.1, 0.5, 0.95, 1]) {
      expect(quantileOfRange(values, 0, values.length, q)).toBe(
        quantileWithMisses(sortedAscending(values), q),
      );
      expect(quantileOfRange(values, 100, 250, q)).toBe(
        quantileWithMisses(sortedAscending(values.slice(100, 250)), q),
      );
    }
    const withMiss = [...values.slice(0, 19), Number.POSITIVE_INFINITY];
    expect(quantileOfRange(withMiss, 0, 20, 0.99)).toBe(Number.POSITIVE_INFINITY);
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

  it('R = median of the per-period Maxima / client mean in-flight, null without data', () => {
    expect(joinServerConcurrency([8, 8], [7.9, 8], 8)).toMatchObject({ serverPeak: 8, ratio: 1, periods: 2 });
    expect(joinServerConcurrency([8, 9, 10, 11], [8, 8, 8, 8], 8)).toMatchObject({
      serverMedianMaximum: 9.5,
      ratio: 9.5 / 8,
    });
    expect(joinServerConcurrency([], [], 8)).toMatchObject({ ratio: null, periods: 0 });
  });

  it('one spiking 10 s period does not raise R (the deployed target would rise: the unsafe direction)', () => {
    const join = joinServerConcurrency([20, 20, 20, 20, 20, 64], [20, 20, 20, 20, 20, 21], 20);
    expect(join.ratio).toBe(1);
    expect(join.serverPeak).toBe(64);
  });

  it('aligns instants to period boundaries', () => {
    expect(alignUp(1_000_001, 10)).toBe(1_010_000);
    expect(alignUp(1_000_000, 10)).toBe(1_000_000);
    expect(alignDown(1_009_999, 10)).toBe(1_000_000);
  });
});

describe('joint monotone fit of the ladder (placing the next rung, never deciding one)', () => {
  it('interpolates the SLO crossing between the fitted rungs around it', () => {
    const points = [1, 2, 4, 8, 16, 32, 64].map((c) => ({ concurrency: c, p95Ms: 56 * c + 10 }));
    // 56 c + 10 = 3000 at c = 53.39; the fit between 32 and 64 is that same line.
    expect(predictBoundary(points, 3000)).toBeCloseTo(2990 / 56, 9);
  });

  it('pools a non-monotone pair (a noisy rung) instead of crossing the SLO twice', () => {
    const points = [
      { concurrency: 10, p95Ms: 500 },
      { concurrency: 20, p95Ms: 1100 },
      { concurrency: 30, p95Ms: 900 },
      { concurrency: 40, p95Ms: 1400 },
    ];
    // 20 and 30 pool to 1000: the only crossing of 1200 lies between 30 (1000) and 40 (1400).
    expect(predictBoundary(points, 1200)).toBeCloseTo(35, 9);
    expect(predictBoundary(points, 2000)).toBeNull();
    expect(predictBoundary(points, 100)).toBeNull();
  });

  it('extrapolates the line through the two highest rungs below the SLO (for growth only)', () => {
    const points = [1, 2, 16].map((c) => ({ concurrency: c, p95Ms: 56 * c + 10 }));
    expect(extrapolateBoundary(points, 3000)).toBeCloseTo(2990 / 56, 9);
    // A rung already above the SLO is no point of the line below it; a flat line predicts nothing.
    expect(extrapolateBoundary([...points, { concurrency: 64, p95Ms: 4000 }], 3000)).toBeCloseTo(
      2990 / 56,
      9,
    );
    expect(
      extrapolateBoundary(
        [
          { concurrency: 1, p95Ms: 100 },
          { concurrency: 2, p95Ms: 100 },
        ],
        3000,
      ),
    ).toBeNull();
    expect(extrapolateBoundary([{ concurrency: 1, p95Ms: 100 }], 3000)).toBeNull();
  });
});
