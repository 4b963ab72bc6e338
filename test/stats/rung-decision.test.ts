import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../../src/stats/prng.js';
import {
  checkedP95Interval,
  continuityJudge,
  DECISION_METHOD,
  decideP95,
  FAIL_ALPHA,
  FAMILY_ALPHA,
  FINAL_PASS_MARGIN,
  INTERIM_PASS_MARGIN,
  minBatchSize,
  obrienFlemingSpent,
  PASS_ALPHA,
  RungJudge,
  SHORT_WINDOW_MARGIN,
  STALL_PASS_MARGIN,
  sectionedP95Interval,
  sectionedWithTails,
  vonNeumannCritical,
  vonNeumannRatio,
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

/** 5 batches of 40 whose p95s (38.05 + 0, 30, 10, 40, 20) alternate: serially independent-looking. */
const mixedBatches = (): number[] => {
  const values: number[] = [];
  for (const shift of [0, 30, 10, 40, 20]) for (let v = 40; v >= 1; v--) values.push(v + shift);
  return values;
};

describe('one look of the rung decision', () => {
  const settings = { sloMs: 150, concurrency: 1, minSamples: 100 };

  it('passes when the interval is wholly within the SLO, fails when wholly above, records method and batches', () => {
    const pass = decideP95(mixedBatches(), { ...settings, sloMs: 120 });
    expect(pass).toMatchObject({
      verdict: 'pass',
      decisive: true,
      method: DECISION_METHOD,
      batches: 5,
      look: 1,
    });
    expect(pass.level).toBeCloseTo(0.95, 12);
    expect(pass.tails).toEqual({ pass: PASS_ALPHA, fail: FAIL_ALPHA });
    const fail = decideP95(mixedBatches(), { ...settings, sloMs: 40 });
    expect(fail).toMatchObject({ verdict: 'fail', decisive: true });
    const straddle = decideP95(mixedBatches(), { ...settings, sloMs: 80 });
    expect(straddle).toMatchObject({ verdict: 'undecided', decisive: false });
  });

  it('is undecided, never a pass, without enough batches, however fast the samples', () => {
    const fast = Array.from({ length: 1000 }, () => 1);
    const decision = decideP95(fast, { sloMs: 1000, concurrency: 64 }); // needs 5 x 256
    expect(decision).toMatchObject({ verdict: 'undecided', interval: null, batches: 0, decisive: false });
    expect(decision.reason).toContain('too few for 5 batches of >= 256');
  });

  it('enforces --min-samples: an interval wholly inside the SLO from too few samples is undecided', () => {
    const decision = decideP95(mixedBatches(), { ...settings, sloMs: 1000, minSamples: 201 });
    expect(decision.interval).not.toBeNull();
    expect(decision).toMatchObject({ verdict: 'undecided', decisive: false });
    expect(decision.reason).toContain('--min-samples 201');
  });

  it('counts requests without audio as misses: they can fail a rung and stop it from passing', () => {
    const base = mixedBatches();
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

describe("the decision's calibrated tails and dependence checks", () => {
  it('gives the upper end (a false PASS) only the calibrated PASS_ALPHA: symmetric tails fail this', () => {
    expect(PASS_ALPHA).toBeLessThanOrEqual(0.005);
    expect(PASS_ALPHA + FAIL_ALPHA).toBeCloseTo(FAMILY_ALPHA, 12);
    // 20 independent-looking batches of 40 (a von Neumann ratio near 2): the end points are exactly
    // centre -/+ t(19, 1 - alpha_side) se with se the larger of the 20- and 10-batch spreads.
    const values = Array.from({ length: 800 }, (_, i) => 100 + ((i * 7919) % 97) + ((i * 104729) % 13));
    const { interval, dependence } = checkedP95Interval(values, 1, { pass: PASS_ALPHA, fail: FAIL_ALPHA });
    if (!interval) throw new Error('expected an interval');
    expect(dependence).toMatchObject({ initialBatches: 20, lengthened: 0, independent: true });
    const c = interval.centre;
    const se20 = Math.sqrt(
      interval.batchQuantiles.reduce((sum, q) => sum + (q - c) ** 2, 0) / 19 / (1 - 1 / 40) / 20,
    );
    const se = Math.max(se20, se20 * (dependence.halfBatchSeRatio ?? 0));
    expect(interval.high).toBeCloseTo(c + studentTQuantile(1 - PASS_ALPHA, 19) * se, 9);
    expect(interval.low).toBeCloseTo(c - studentTQuantile(1 - FAIL_ALPHA, 19) * se, 9);
    expect(interval.high - c).toBeGreaterThan(c - interval.low);
  });

  it('merges batches in pairs while their p95s are serially dependent (von Neumann), undecided below 5', () => {
    expect(vonNeumannRatio([1, 2, 1, 2, 1, 2])).toBeGreaterThan(2);
    expect(vonNeumannCritical(5)).toBeCloseTo(2 - 1.6448536269514722 * Math.sqrt(12 / 24), 12);
    // A level shift halfway through a window of 20 batches: successive batch p95s are alike.
    const shifted = Array.from({ length: 800 }, (_, i) => (i < 400 ? 100 : 130) + ((i * 7919) % 11));
    const { dependence } = checkedP95Interval(shifted, 1, { pass: PASS_ALPHA, fail: FAIL_ALPHA });
    expect(dependence.initialBatches).toBe(20);
    expect(dependence.lengthened).toBeGreaterThanOrEqual(1);
    expect(dependence.independent).toBe(false);
    const decision = decideP95(shifted, { sloMs: 1e6, concurrency: 1 });
    expect(decision.verdict).toBe('undecided');
    expect(decision.reason).toContain('dependent');
  });

  it('the plain sectioning rule (the comparison other decisions use) keeps its quarter-upper split', () => {
    const a = sectionedP95Interval(fiveBatches(), 1, 0.05);
    const b = sectionedWithTails(fiveBatches(), 1, { pass: 0.0125, fail: 0.0375 });
    expect(a).toEqual(b);
  });
});

describe('the group-sequential judge of a rung', () => {
  const many = (n: number) => Array.from({ length: n }, (_, i) => 100 + (i % 50));

  it("spends alpha O'Brien-Fleming style: almost nothing early, all of it by the end (no spending fails this)", () => {
    expect(obrienFlemingSpent(PASS_ALPHA, 1)).toBe(PASS_ALPHA);
    expect(obrienFlemingSpent(PASS_ALPHA, 0.25)).toBeLessThan(PASS_ALPHA / 1000);
    expect(obrienFlemingSpent(0.05, 0.5)).toBeCloseTo(0.005574596, 6); // Lan-DeMets table value
    const first = 5 * minBatchSize(4); // 200 samples
    const slo = decideP95(many(first), { sloMs: 1e9, concurrency: 4 }).p95 as number;
    const judge = new RungJudge({ mode: 'adaptive', sloMs: slo, concurrency: 4 });
    const timing = (windowMs: number) => ({ windowMs, maxWindowMs: 100_000 });
    expect(judge.step(many(first - 1), false, timing(20_000))).toEqual({ decision: null, stop: false });
    const one = judge.step(many(first), false, timing(25_000));
    expect(one.decision?.look).toBe(1);
    expect(one.decision?.tails.pass).toBeCloseTo(obrienFlemingSpent(PASS_ALPHA, 0.25), 15);
    // The next look waits until the window has grown by half.
    expect(judge.step(many(1.5 * first - 1), false, timing(30_000)).decision).toBeNull();
    const two = judge.step(many(1.5 * first), false, timing(50_000));
    expect(two.decision?.tails.pass).toBeCloseTo(
      obrienFlemingSpent(PASS_ALPHA, 0.5) - obrienFlemingSpent(PASS_ALPHA, 0.25),
      15,
    );
    const final = judge.step(many(10 * first), true, timing(100_000));
    expect(final.stop).toBe(true);
    expect(final.decision?.tails.pass).toBeCloseTo(PASS_ALPHA - obrienFlemingSpent(PASS_ALPHA, 0.5), 12);
    expect(final.decision?.tails.fail).toBeCloseTo(FAIL_ALPHA - obrienFlemingSpent(FAIL_ALPHA, 0.5), 12);
    expect(judge.looksTaken).toBe(3);
  });

  it('stops at the first decisive, settled look; a short window passes only with the 30 % margin', () => {
    const judge = new RungJudge({ mode: 'adaptive', sloMs: 1000, concurrency: 4, measureMs: 30_000 });
    const step = judge.step(many(200), false, { windowMs: 10_000, maxWindowMs: 110_000 });
    expect(step.stop).toBe(true);
    expect(step.decision?.verdict).toBe('pass');
    // The same data against an SLO the upper end clears by less than the margin: undecided.
    const tight = new RungJudge({ mode: 'adaptive', sloMs: 0, concurrency: 4, measureMs: 30_000 });
    const high = judge.decision?.interval?.high as number;
    const near = new RungJudge({
      ...tight.settings,
      sloMs: high * (1 + SHORT_WINDOW_MARGIN / 2),
    }).step(many(200), false, { windowMs: 10_000, maxWindowMs: 110_000 });
    expect(near.decision?.verdict).toBe('undecided');
  });

  it('on a long window passes before the final look only with its upper end x 1.05 within the SLO, at it with x 1.02 (slow spells a 90 s window missed would otherwise pass)', () => {
    const long = { windowMs: 95_000, maxWindowMs: 110_000 };
    const settings = { mode: 'adaptive' as const, concurrency: 4, measureMs: 30_000 };
    const probe = new RungJudge({ ...settings, sloMs: 1e9 });
    probe.step(many(4000), false, long);
    const interimHigh = probe.decision?.interval?.high as number;
    const interim = (sloMs: number) => {
      const judge = new RungJudge({ ...settings, sloMs });
      return judge.step(many(4000), false, long).decision?.verdict;
    };
    expect(interim(interimHigh * (1 + INTERIM_PASS_MARGIN) * 1.001)).toBe('pass');
    expect(interim(interimHigh * (1 + INTERIM_PASS_MARGIN) * 0.999)).toBe('undecided');
    const final = (sloMs: number) => new RungJudge({ ...settings, sloMs }).look(many(4000), true, long);
    const finalHigh = final(1e9).interval?.high as number;
    expect(final(finalHigh * (1 + FINAL_PASS_MARGIN) * 1.001).verdict).toBe('pass');
    expect(final(finalHigh * (1 + FINAL_PASS_MARGIN) * 0.999).verdict).toBe('undecided');
    // A fixed rung's single look keeps the bare upper end (it records no calibrated bound).
    const fixed = new RungJudge({ ...settings, mode: 'fixed', sloMs: finalHigh * 1.001 }).look(
      many(4000),
      true,
      long,
    );
    expect(fixed.verdict).toBe('pass');
  });

  it('stops undecided near the SLO when its interval straddles it within +-5 % (futility)', () => {
    const random = mulberry32(3);
    const values = Array.from({ length: 4000 }, () => 100 + 50 * random());
    const p95 = decideP95(values, { sloMs: 1e9, concurrency: 4 }).p95 as number;
    const judge = new RungJudge({ mode: 'adaptive', sloMs: p95, concurrency: 4 });
    const step = judge.step(values, false, { windowMs: 60_000, maxWindowMs: 110_000 });
    expect(step.decision?.verdict).toBe('undecided');
    expect(step.decision?.nearSlo).toBe(true);
    expect(step.stop).toBe(true);
  });

  it('a fixed rung looks once, at the end, at 95 %', () => {
    const judge = new RungJudge({ mode: 'fixed', sloMs: 1000, concurrency: 4 });
    expect(judge.step(many(5000), false)).toEqual({ decision: null, stop: false });
    const end = judge.step(many(5000), true);
    expect(end.decision?.level).toBeCloseTo(0.95, 12);
    expect(end.decision?.maxLooks).toBe(1);
  });
});

describe('the dependence check guards a PASS only (closed loop)', () => {
  // Batch p95s 38.05, 48.05, ... 78.05 in time order: a trend (von Neumann ratio far below its 5 % point).
  const trending = { concurrency: 1, minSamples: 100 };

  it('fails a rung whose whole interval lies above the SLO even though its batches trend (an overloaded rung would otherwise never fail)', () => {
    const d = decideP95(fiveBatches(), { ...trending, sloMs: 20 });
    expect(d.dependence.independent).toBe(false);
    expect(d.interval?.low as number).toBeGreaterThan(20);
    expect(d.verdict).toBe('fail');
  });

  it('still refuses a PASS on the same trending batches with the whole interval inside the SLO (no false PASS from dependent batches)', () => {
    const d = decideP95(fiveBatches(), { ...trending, sloMs: 10_000 });
    expect(d.dependence.independent).toBe(false);
    expect(d.interval?.high as number).toBeLessThan(10_000);
    expect(d.verdict).toBe('undecided');
    expect(d.reason).toMatch(/dependent/);
  });
});

describe('the continuity judge PASS margin', () => {
  it('keeps a continuity PASS undecided unless its upper end x (1 + STALL_PASS_MARGIN) is within the SLO (prevents the stall judge passing on the first-audio margins)', () => {
    const random = mulberry32(11);
    const samples = Array.from({ length: 3000 }, () => 40 + 20 * random());
    const settings = (sloMs: number) => ({
      mode: 'adaptive' as const,
      sloMs,
      concurrency: 4,
      minSamples: 100,
    });
    const high = new RungJudge(settings(1e9)).look(samples, true).interval?.high as number;
    const slo = high * 1.05;
    // The first-audio judge passes it; the continuity judge the rung builds does not.
    expect(new RungJudge(settings(slo)).look(samples, true).verdict).toBe('pass');
    const stalls = continuityJudge(settings(slo)).look(samples, true);
    expect(STALL_PASS_MARGIN).toBeGreaterThan(0.05);
    expect(stalls.verdict).toBe('undecided');
    expect(stalls.reason).toContain(`needs its upper end x ${1 + STALL_PASS_MARGIN} within the SLO`);
    expect(continuityJudge(settings(high * (1 + STALL_PASS_MARGIN))).look(samples, true).verdict).toBe(
      'pass',
    );
  });
});
