/**
 * Where the lambda_max ladder starts and where it steps (pure): the scout's doubling steps and
 * its start, the scout's over rate measured first above the passes, and bisection steps placed on
 * the rungs' p95s. None of it decides a verdict; each test says what a wrong placement would cost.
 */
import { describe, expect, it } from 'vitest';
import {
  GoodputLadder,
  INTERPOLATION_GUARD,
  interpolatedRate,
  type RateResult,
} from '../../../src/load/open/goodput-ladder.js';
import { GoodputScout, scoutStep } from '../../../src/load/open/goodput-scout.js';

describe('the scout', () => {
  it('counts every arrival without audio at +infinity in a step p95 (a step that overflowed is over, however fast its answers)', () => {
    const fast = Array.from({ length: 90 }, () => 10);
    expect(scoutStep(8, 200, fast, 100)).toMatchObject({ p95Ms: Number.POSITIVE_INFINITY, over: true });
    const answered = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(scoutStep(8, 200, answered, 100)).toMatchObject({ p95Ms: 95, over: false });
    expect(scoutStep(8, 90, answered, 100).over).toBe(true);
    expect(scoutStep(8, 200, [], 0)).toMatchObject({ p95Ms: null, over: false });
  });

  it('doubles until a step is over the SLO and starts the ladder at the highest step that was not', () => {
    const scout = new GoodputScout({ firstRate: 1, maxRate: 1000 });
    const seen: number[] = [];
    for (let rate = scout.next(); rate !== null; rate = scout.next()) {
      seen.push(rate);
      scout.record({ rate, offered: 10, ok: 10, p95Ms: rate >= 64 ? 900 : 50, over: rate >= 64 });
    }
    expect(seen).toEqual([1, 2, 4, 8, 16, 32, 64]);
    expect(scout.outcome()).toMatchObject({ startRate: 32, overRate: 64 });
  });

  it('stops at the highest rate when nothing is over, and starts at the first rate when the first step is over (the ladder walks down)', () => {
    const none = new GoodputScout({ firstRate: 1, maxRate: 5 });
    for (let rate = none.next(); rate !== null; rate = none.next()) {
      none.record({ rate, offered: 5, ok: 5, p95Ms: 10, over: false });
    }
    expect(none.outcome()).toMatchObject({ startRate: 5, overRate: null });
    const all = new GoodputScout({ firstRate: 1, maxRate: 5 });
    all.record({
      rate: all.next() as number,
      offered: 5,
      ok: 0,
      p95Ms: Number.POSITIVE_INFINITY,
      over: true,
    });
    expect(all.next()).toBeNull();
    expect(all.outcome()).toMatchObject({ startRate: 1, overRate: 1 });
  });
});

describe('the ladder with a scout and p95s', () => {
  const record = (ladder: GoodputLadder, r: RateResult) => ladder.record(r);

  it("measures the scout's over rate first above a pass, so the bracket's breach comes from one short overloaded rung", () => {
    const ladder = new GoodputLadder({
      startRate: 32,
      maxRate: 1000,
      minRate: 1,
      resolution: 0.05,
      overRate: 64,
      sloMs: 200,
    });
    expect(ladder.next()).toBe(32);
    record(ladder, { rate: 32, verdict: 'pass', reason: '', p95: 100, headroom: 1.4 });
    expect(ladder.next()).toBe(64);
  });

  it('interpolates 1 / p95 to the aim (an infinite p95 at 0) and keeps the step a fifth of the bracket inside it', () => {
    // 1/100 at 32, 0 at 64: 1/140 lies 2/7 of the way.
    expect(
      interpolatedRate({ rate: 32, p95: 100 }, { rate: 64, p95: Number.POSITIVE_INFINITY }, 140),
    ).toBeCloseTo(32 + (32 * 2) / 7, 6);
    // The aim lies beyond the non-pass: the step stays a fifth inside the bracket.
    expect(interpolatedRate({ rate: 30, p95: 100 }, { rate: 40, p95: 120 }, 140)).toBeCloseTo(
      40 - INTERPOLATION_GUARD * 10,
      6,
    );
    expect(interpolatedRate({ rate: 30, p95: 150 }, { rate: 40, p95: 300 }, 140)).toBeNull();
  });

  it('after a pass and a breach, steps to the interpolated rate, then closes the bracket with a rate whose verdict either way meets the resolution', () => {
    const ladder = new GoodputLadder({
      startRate: 32,
      maxRate: 1000,
      minRate: 1,
      resolution: 0.05,
      overRate: 64,
      sloMs: 200,
    });
    record(ladder, { rate: 32, verdict: 'pass', reason: '', p95: 100 });
    record(ladder, { rate: 64, verdict: 'fail', reason: '', p95: Number.POSITIVE_INFINITY });
    // 1/100 -> 0 over 32..64, aimed at 0.7 x 200 = 140 ms.
    expect(ladder.next()).toBe(41.1);
    record(ladder, { rate: 41.1, verdict: 'undecided', reason: '', p95: 195 });
    const aimed = ladder.next() as number;
    expect(aimed).toBeGreaterThan(33.7);
    expect(aimed).toBeLessThan(41.1);
    record(ladder, { rate: aimed, verdict: 'pass', reason: '', p95: 138 });
    const closing = ladder.next() as number;
    // Its pass meets 5 % with 41.1, its non-pass meets 5 % with the pass below.
    expect(41.1 - closing).toBeLessThanOrEqual(0.05 * 41.1);
    expect(closing - aimed).toBeLessThanOrEqual(0.05 * closing);
    record(ladder, { rate: closing, verdict: 'undecided', reason: '', p95: 170 });
    expect(ladder.next()).toBeNull();
  });

  it('bisects as before without p95s (a ladder told only verdicts)', () => {
    const ladder = new GoodputLadder({
      startRate: 10,
      maxRate: 1000,
      minRate: 1,
      resolution: 0.05,
      sloMs: 200,
    });
    record(ladder, { rate: 10, verdict: 'pass', reason: '' });
    record(ladder, { rate: 20, verdict: 'fail', reason: '' });
    expect(ladder.next()).toBe(15);
  });
});
