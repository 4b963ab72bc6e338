import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/stats/prng.js';
import {
  quantile,
  quantileConfidenceInterval,
  sortedAscending,
  summarize,
} from '../../src/stats/quantiles.js';

describe('quantiles', () => {
  it('interpolates like numpy (type 7), as the legacy artifacts did', () => {
    expect(quantile([1, 2, 3, 4], 0.5)).toBe(2.5);
    expect(quantile([10, 20, 30, 40, 50], 0.95)).toBeCloseTo(48, 10);
    expect(quantile([], 0.95)).toBeNull();
  });

  it('gives no p95 interval from too few samples rather than a falsely narrow one', () => {
    expect(
      quantileConfidenceInterval(sortedAscending(Array.from({ length: 71 }, (_, i) => i)), 0.95),
    ).toBeNull();
    expect(
      quantileConfidenceInterval(sortedAscending(Array.from({ length: 72 }, (_, i) => i)), 0.95),
    ).not.toBeNull();
  });

  it('picks exactly the binomial order statistics (ranks 184 and 197 of 200): a [min, max] interval fails this', () => {
    // Ranks from the exact Binomial(200, 0.95) CDF (computed independently): the largest l with
    // P(B <= l - 1) <= 2.5 % and the smallest u with P(B <= u - 1) >= 97.5 %.
    const values = sortedAscending(Array.from({ length: 200 }, (_, i) => 200 - i)); // 1..200
    const interval = quantileConfidenceInterval(values, 0.95);
    expect(interval).toMatchObject({ low: 184, high: 197 });
    expect(interval?.coverage).toBeCloseTo(0.9671521638567255, 9);
    expect(
      quantileConfidenceInterval(sortedAscending(Array.from({ length: 100 }, (_, i) => i + 1)), 0.95),
    ).toMatchObject({
      low: 90,
      high: 100,
    });
  });

  it('covers the true p95 of INDEPENDENT samples in at least ~95 % of repeated samples', () => {
    const random = mulberry32(7);
    // Exponential service times: true p95 = -ln(0.05).
    const truth = -Math.log(0.05);
    let covered = 0;
    const trials = 400;
    for (let t = 0; t < trials; t++) {
      const sample = sortedAscending(Array.from({ length: 200 }, () => -Math.log(1 - random())));
      const interval = quantileConfidenceInterval(sample, 0.95);
      if (interval && interval.low <= truth && truth <= interval.high) covered++;
    }
    expect(covered / trials).toBeGreaterThan(0.92);
  });

  it('summarizes p50/p95/p99 with the interval around p95', () => {
    const summary = summarize(Array.from({ length: 1000 }, (_, i) => i + 1));
    expect(summary.p95).toBeCloseTo(950.05, 6);
    expect(summary.p95Interval?.low).toBeLessThanOrEqual(950.05);
    expect(summary.p95Interval?.high).toBeGreaterThanOrEqual(950.05);
  });
});

describe('seeded generator', () => {
  it('gives the same sequence for the same seed (plans reproducible across machines)', () => {
    const a = mulberry32(42);
    const b = mulberry32(42);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(first[0]).toBe(0.6011037519201636);
  });
});
