import { describe, expect, it } from 'vitest';
import {
  DECISION_METHOD,
  decideP95,
  FAMILY_ALPHA,
  minBatchSize,
  RungJudge,
  sectionedP95Interval,
} from '../../src/stats/rung-decision.js';
import { studentTQuantile } from '../../src/stats/student-t.js';

/** 5 batches of 40 in time order: batch i holds 40..1 shifted by 10 i (p95 of each: 38.05 + 10 i). */
const fiveBatches = (): number[] => {
  const values: number[] = [];
  for (let i = 0; i < 5; i++) for (let v = 40; v >= 1; v--) values.push(v + 10 * i);
  return values;
};

describe('Student t quantiles (the interval width depends on them)', () => {
  it('match published tables to 1e-6 (a wrong t would silently change every level)', () => {
    expect(studentTQuantile(0.975, 4)).toBeCloseTo(2.776445, 6);
    expect(studentTQuantile(0.975, 9)).toBeCloseTo(2.262157, 6);
    expect(studentTQuantile(0.9875, 4)).toBeCloseTo(3.4954059, 6);
    expect(studentTQuantile(0.9625, 4)).toBeCloseTo(2.3920575, 6);
    expect(studentTQuantile(0.99375, 9)).toBeCloseTo(3.1109348, 6);
    expect(studentTQuantile(0.025, 19)).toBeCloseTo(-2.093024, 6);
  });
});

describe('batch-sectioning interval of p95', () => {
  it('has exactly the sectioning end points (a [min, max] or an order-statistic interval fails this)', () => {
    // Independently computed (numpy type-7 quantiles, scipy t): centre 70.05, batch p95s
    // 38.05..78.05, se = sqrt(sum (q_i - c)^2 / 4 / (1 - 1/40) / 5) = 9.39176,
    // [c - t(4, 1 - 0.75 alpha) se, c + t(4, 1 - 0.25 alpha) se].
    const interval = sectionedP95Interval(fiveBatches(), 1, 0.05);
    expect(interval).not.toBeNull();
    expect(interval?.batches).toBe(5);
    expect(interval?.batchSize).toBe(40);
    expect(interval?.centre).toBeCloseTo(70.05, 9);
    expect(interval?.batchQuantiles).toEqual(
      [38.05, 48.05, 58.05, 68.05, 78.05].map((v) => expect.closeTo(v, 9)),
    );
    expect(interval?.low).toBeCloseTo(47.584373353520846, 6);
    expect(interval?.high).toBeCloseTo(102.87800846750656, 6);
  });

  it('batches are at least 4 N completions long: the same data at N = 10 has no interval', () => {
    expect(minBatchSize(1)).toBe(40);
    expect(minBatchSize(10)).toBe(40);
    expect(minBatchSize(16)).toBe(64);
    expect(minBatchSize(64)).toBe(256);
    expect(sectionedP95Interval(fiveBatches(), 16, 0.05)).toBeNull(); // 200 < 5 x 64
  });

  it('applies the finite-batch correction 1 / (1 - N/m) to the batch spread (removing it would narrow the interval)', () => {
    const values = Array.from(
      { length: 5 * 256 },
      (_, i) => 100 + ((i * 7919) % 101) + (i % 256 === 0 ? 40 : 0),
    );
    const interval = sectionedP95Interval(values, 64, 0.05);
    if (!interval) throw new Error('expected an interval from 5 batches of 256');
    expect(interval.batches).toBe(5);
    const c = interval.centre;
    const spread = interval.batchQuantiles.reduce((sum, q) => sum + (q - c) ** 2, 0);
    expect(spread).toBeGreaterThan(0);
    const se = Math.sqrt(spread / 4 / (1 - 64 / 256) / 5);
    expect(interval.high).toBeCloseTo(c + 3.4954059325164417 * se, 9);
    expect(interval.low).toBeCloseTo(c - 2.39205752415742 * se, 9);
  });
});

describe('one look of the rung decision', () => {
  const settings = { sloMs: 150, concurrency: 1, minSamples: 100 };

  it('passes when the interval is wholly within the SLO, fails when wholly above, records method and batches', () => {
    const pass = decideP95(fiveBatches(), { ...settings, sloMs: 110 });
    expect(pass).toMatchObject({
      verdict: 'pass',
      decisive: true,
      method: DECISION_METHOD,
      batches: 5,
      look: 1,
    });
    expect(pass.level).toBeCloseTo(0.95, 12);
    const fail = decideP95(fiveBatches(), { ...settings, sloMs: 40 });
    expect(fail).toMatchObject({ verdict: 'fail', decisive: true });
    const straddle = decideP95(fiveBatches(), { ...settings, sloMs: 80 });
    expect(straddle).toMatchObject({ verdict: 'undecided', decisive: false });
  });

  it('is undecided, never a pass, without enough batches, however fast the samples', () => {
    const fast = Array.from({ length: 1000 }, () => 1);
    const decision = decideP95(fast, { sloMs: 1000, concurrency: 64 }); // needs 5 x 256
    expect(decision).toMatchObject({ verdict: 'undecided', interval: null, batches: 0, decisive: false });
    expect(decision.reason).toContain('too few for 5 batches of >= 256');
  });

  it('enforces --min-samples: an interval wholly inside the SLO from too few samples is undecided', () => {
    const decision = decideP95(fiveBatches(), { ...settings, sloMs: 1000, minSamples: 201 });
    expect(decision.interval).not.toBeNull();
    expect(decision).toMatchObject({ verdict: 'undecided', decisive: false });
    expect(decision.reason).toContain('--min-samples 201');
  });

  it('counts requests without audio as misses: they can fail a rung and stop it from passing', () => {
    const base = fiveBatches();
    // 12 % misses spread over the window: p95 is +Infinity, the interval reaches the misses.
    const withMisses = base.map((v, i) => (i % 8 === 0 ? Number.POSITIVE_INFINITY : v));
    const decision = decideP95(withMisses, { ...settings, sloMs: 1000 });
    expect(decision.p95).toBe(Number.POSITIVE_INFINITY);
    expect(decision.interval?.high).toBe(Number.POSITIVE_INFINITY);
    expect(decision.verdict).not.toBe('pass');
    const allMissed = base.map(() => Number.POSITIVE_INFINITY);
    expect(decideP95(allMissed, { ...settings, sloMs: 100 })).toMatchObject({ verdict: 'fail', misses: 200 });
  });
});

describe('the sequential judge of a rung (repeated looks)', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => 100 + (i % 50));

  it('takes at most 2 interim looks and a final one, spending exactly the family alpha', () => {
    const first = 10 * minBatchSize(4); // 400 samples
    // An SLO at the window's own p95: every look straddles, so the rung never stops early.
    const slo = decideP95(many(first), { sloMs: 1e9, concurrency: 4 }).p95 as number;
    const judge = new RungJudge({ mode: 'adaptive', sloMs: slo, concurrency: 4 });
    expect(judge.step(many(first - 1), false)).toEqual({ decision: null, stop: false });
    const one = judge.step(many(first), false);
    expect(one).toMatchObject({ stop: false, decision: { look: 1, verdict: 'undecided' } });
    expect(one.decision?.level).toBeCloseTo(1 - 0.0125, 12);
    // The next interim look waits until the window has doubled.
    expect(judge.step(many(2 * first - 1), false).decision).toBeNull();
    const two = judge.step(many(2 * first), false);
    expect(two).toMatchObject({ stop: false, decision: { look: 2, verdict: 'undecided' } });
    // No third interim look, however much data arrives.
    expect(judge.step(many(10 * first), false).decision).toBeNull();
    const final = judge.step(many(10 * first), true);
    expect(final.stop).toBe(true);
    expect(final.decision?.look).toBe(3);
    expect(final.decision?.level).toBeCloseTo(1 - (FAMILY_ALPHA - 2 * 0.0125), 12);
    expect(judge.looksTaken).toBe(3);
  });

  it('stops at the first decisive, settled interim look', () => {
    const judge = new RungJudge({ mode: 'adaptive', sloMs: 1000, concurrency: 4 });
    const step = judge.step(many(400), false);
    expect(step.stop).toBe(true);
    expect(step.decision?.verdict).toBe('pass');
  });

  it('a fixed rung looks once, at the end, at 95 %', () => {
    const judge = new RungJudge({ mode: 'fixed', sloMs: 1000, concurrency: 4 });
    expect(judge.step(many(5000), false)).toEqual({ decision: null, stop: false });
    const end = judge.step(many(5000), true);
    expect(end.decision?.level).toBeCloseTo(0.95, 12);
    expect(end.decision?.maxLooks).toBe(1);
  });
});
