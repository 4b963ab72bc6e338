import { describe, expect, it } from 'vitest';
import {
  type GoodputDecide,
  GoodputLadder,
  type GoodputLadderSettings,
  type GoodputRungInput,
  overflowAndErrorLimits,
  summarizeGoodput,
  withLimits,
} from '../../../src/load/open/goodput-ladder.js';

const settings: GoodputLadderSettings = { startRate: 10, maxRate: 2000, minRate: 0.5, resolution: 0.05 };

/** Walks the ladder against a known boundary; `band` rates just above it come back undecided. */
function walk(boundary: number, band = 0, s = settings) {
  const ladder = new GoodputLadder(s);
  for (let rate = ladder.next(); rate !== null; rate = ladder.next()) {
    const verdict = rate <= boundary ? 'pass' : rate <= boundary * (1 + band) ? 'undecided' : 'fail';
    ladder.record({ rate, verdict, reason: '' });
  }
  return { ladder, summary: summarizeGoodput(ladder.measured) };
}

describe('lambda_max ladder over Poisson rates', () => {
  it.each([3, 17.9, 123.4, 999])(
    'finds a boundary of %s/s within the resolution, bracketed by a measured breach',
    (boundary) => {
      const { summary, ladder } = walk(boundary);
      expect(summary.lambdaMax).toBeLessThanOrEqual(boundary);
      expect(summary.bracketed).toBe(true);
      expect((summary.breachRate as number) - summary.lambdaMax).toBeLessThanOrEqual(
        0.05 * (summary.breachRate as number) + 0.01,
      );
      expect(ladder.measured.length).toBeLessThanOrEqual(16);
    },
  );

  it('does not call an undecided rung a breach: it measures above it until a rung really fails', () => {
    const { summary, ladder } = walk(100, 0.5);
    expect(summary.bracketed).toBe(true);
    expect(summary.breachRate as number).toBeGreaterThan(150);
    expect(ladder.measured.some((r) => r.verdict === 'undecided')).toBe(true);
  });

  it('reports an unbracketed lambda_max when even the highest rate passes (a lower bound, not a measurement of the limit)', () => {
    const { summary } = walk(1e9);
    expect(summary.lambdaMax).toBe(2000);
    expect(summary.bracketed).toBe(false);
  });

  it('walks down when the first rate fails, and gives 0 when nothing down to minRate passes', () => {
    expect(walk(2.2).summary.lambdaMax).toBeGreaterThan(2);
    expect(walk(0.1).summary).toMatchObject({ lambdaMax: 0, bracketed: true });
  });
});

describe('rung decision seam', () => {
  const rung = (counts: GoodputRungInput['outcomeCounts'], offered: number): GoodputRungInput => ({
    rate: 10,
    sloMs: 500,
    ttfabIntendedMs: [100, 200],
    intendedAtMs: [0, 100],
    outcomeCounts: counts,
    offered,
  });
  const limits = { maxOverflowFraction: 0.01, maxErrorFraction: 0.005 };

  it('fails a rung whose 503 overflows exceed the stated fraction, before any p95 method is asked', () => {
    let asked = 0;
    const decide: GoodputDecide = () => {
      asked++;
      return { verdict: 'pass', reason: 'p95 inside' };
    };
    const d = withLimits(decide, limits)(rung({ ok: 980, saturated_503: 20 }, 1000));
    expect(d.verdict).toBe('fail');
    expect(d.reason).toMatch(/overflows 20\/1000 = 2.00 % \(95 % bounds \[1\.\d+ %, [\d.]+ %\]\) > 1.00 %/);
    expect(asked).toBe(0);
  });

  it('counts client_dropped as an error (the client could not offer the rate) and passes clean rungs to the method', () => {
    expect(overflowAndErrorLimits(rung({ ok: 990, client_dropped: 10 }, 1000), limits)?.reason).toMatch(
      /errors 10\/1000/,
    );
    const d = withLimits(
      () => ({ verdict: 'undecided', reason: 'interval straddles' }),
      limits,
    )(rung({ ok: 1000 }, 1000));
    expect(d).toEqual({ verdict: 'undecided', reason: 'interval straddles' });
  });
});

describe('ladder: headroom and one chance per rate', () => {
  it('grows by the headroom of a pass far inside the SLO (up to 8x), by 2 otherwise, and never measures a rate twice', () => {
    const ladder = new GoodputLadder({ startRate: 1, maxRate: 1000, minRate: 0.1, resolution: 0.05 });
    expect(ladder.next()).toBe(1);
    ladder.record({ rate: 1, verdict: 'pass', reason: '', headroom: 5 });
    expect(ladder.next()).toBe(5);
    ladder.record({ rate: 5, verdict: 'pass', reason: '', headroom: 1.2 });
    expect(ladder.next()).toBe(10);
    // An undecided rate is never re-measured (its data would get a second, independent chance to pass).
    const seen: number[] = [];
    const walk = new GoodputLadder({ startRate: 8, maxRate: 64, minRate: 1, resolution: 0.05 });
    for (let rate = walk.next(); rate !== null; rate = walk.next()) {
      seen.push(rate);
      walk.record({ rate, verdict: rate <= 20 ? 'pass' : rate <= 30 ? 'undecided' : 'fail', reason: '' });
    }
    expect(new Set(seen).size).toBe(seen.length);
  });
});
