/**
 * The goodput count limits are judged on one-sided bounds valid for clustered overflows, and every
 * miss counts in a window's p95 (no survivorship).
 */
import { describe, expect, it } from 'vitest';
import { censoredP95 } from '../../src/analysis/drill-merge.js';
import { censoredQuantile } from '../../src/stats/open-loop-decision.js';
import { designEffect, overflowAndErrorLimits, wilsonBounds } from '../../src/stats/open-loop-limits.js';

const limits = { maxOverflowFraction: 0.01, maxErrorFraction: 0.01 };
const rung = (
  overflow: number,
  offered: number,
  batches?: Array<{ offered: number; overflow: number; errors: number }>,
) => ({
  rate: 10,
  sloMs: 500,
  ttfabIntendedMs: [],
  intendedAtMs: [],
  outcomeCounts: { ok: offered - overflow, saturated_503: overflow },
  offered,
  ...(batches ? { batches } : {}),
});

describe('goodput limits on one-sided bounds', () => {
  it('does not pass a rung on a point estimate within the limit: 0.8 % of 1000 arrivals is not shown within 1 % (upper bound above it)', () => {
    const d = overflowAndErrorLimits(rung(8, 1000), limits);
    expect(d?.verdict).toBe('undecided');
    expect(wilsonBounds(8, 1000).high).toBeGreaterThan(0.01);
  });

  it('holds a limit once the upper bound is within it (0 of 1000), and fails it only on the lower bound (2 % of 1000)', () => {
    expect(overflowAndErrorLimits(rung(0, 1000), limits)).toBeNull();
    expect(overflowAndErrorLimits(rung(20, 1000), limits)?.verdict).toBe('fail');
  });

  it('widens the bound for clustered overflows (design effect from batches): 0.5 % all in one of ten batches is not shown within 1 %', () => {
    const spread = Array.from({ length: 10 }, () => ({ offered: 2000, overflow: 10, errors: 0 }));
    const clustered = Array.from({ length: 10 }, (_, i) => ({
      offered: 2000,
      overflow: i === 0 ? 100 : 0,
      errors: 0,
    }));
    expect(designEffect(spread, (b) => b.overflow)).toBeCloseTo(1, 0);
    expect(designEffect(clustered, (b) => b.overflow)).toBeGreaterThan(50);
    expect(overflowAndErrorLimits(rung(100, 20_000, spread), limits)).toBeNull();
    expect(overflowAndErrorLimits(rung(100, 20_000, clustered), limits)?.verdict).toBe('undecided');
  });
});

describe('no survivorship: misses count at +infinity in a p95', () => {
  it('a window with 93 % of its arrivals answered fast has an infinite p95, not the p95 of the answered ones', () => {
    expect(censoredP95(100, 93, () => 50)).toBe(Number.POSITIVE_INFINITY);
    expect(censoredP95(100, 96, (q) => q * 100)).toBeCloseTo(((0.95 * 100) / 96) * 100, 6);
    const data = { counts: [93], misses: [7], meanInSystem: 1, quantile: () => 50 };
    expect(censoredQuantile(data, 0, 1, 0.95)).toBe(Number.POSITIVE_INFINITY);
    expect(censoredQuantile(data, 0, 1, 0.95, false)).toBe(50);
  });
});
