/**
 * Which Poisson arrival rate to measure next when searching lambda_max: the highest rate whose
 * p95 TTFAB from the intended send time is inside the SLO with overflows (503) and errors at most
 * a stated fraction, bracketed by a measured breach above it. Pure: the planner only sees the
 * verdicts it is told.
 *
 * The verdict of a rung is NOT decided here. It comes from `decide`, a parameter: the p95 of
 * open-loop latencies under load is autocorrelated (a queue carries its state from one request to
 * the next), so only a method proven valid for such data (src/stats) may turn a rung's samples
 * into pass / fail / undecided. `overflowAndErrorLimits` is the one rule applied here, because it
 * is a stated limit on counts, not an estimate.
 *
 * Search: start at `startRate`, grow geometrically while rungs pass, then bisect between the
 * highest pass (lo) and the lowest non-pass above it (hi) until hi - lo <= resolution x hi. A rung
 * that is only undecided bounds the search but is no breach: one rate above it is measured so
 * lambda_max is bracketed by a measured failure. A first rung that fails walks down by the same
 * factor until one passes (or `minRate` fails too). With a scout's rate over the SLO (`overRate`)
 * that rate is the first one above the passes; with the SLO and the rungs' p95s each bisection step
 * is placed where 1 / p95 interpolates to 1 / SLO, at least a fifth of the bracket inside it.
 */
import type { RateVerdict } from '../../stats/open-loop-limits.js';

export {
  type GoodputDecide,
  type GoodputDecision,
  type GoodputLimits,
  type GoodputRungInput,
  overflowAndErrorLimits,
  type RateVerdict,
  withLimits,
} from '../../stats/open-loop-limits.js';

export interface GoodputLadderSettings {
  startRate: number;
  /** Highest rate to try (the client's or the budget's limit). */
  maxRate: number;
  /** Lowest rate to try when walking down. */
  minRate: number;
  /** Stop bisecting when hi - lo <= resolution x hi (e.g. 0.05). */
  resolution: number;
  /** Geometric factor (default 2). */
  growth?: number;
  /**
   * A rate a scout saw over the SLO (src/load/open/goodput-scout.ts; no verdict): the first rate
   * measured above the passes, instead of growing blindly.
   */
  overRate?: number;
  /** The SLO (ms): with the rungs' p95s, bisection steps are placed by interpolation. */
  sloMs?: number;
}

export interface RateResult {
  rate: number;
  verdict: RateVerdict;
  reason: string;
  /** A pass: the SLO over the upper end of its p95 interval (how far inside it lies). */
  headroom?: number;
  /** The rung's p95 (ms; Infinity: over 5 % misses; absent or null: none), to place the next rate. */
  p95?: number | null;
}

/**
 * The p95 over the SLO a rung is aimed at to pass: the decision passes a rung only when its upper
 * end, calibrated x 1.1 and widened by the interval, is within the SLO, which takes a p95 well
 * inside it within a few looks (a p95 at 0.9 x SLO can never pass).
 */
export const PASS_AIM = 0.7;

/**
 * A bisection step lands at least this share of the bracket inside it: interpolation places the
 * step, a bad guess cannot stall the search at one end.
 */
export const INTERPOLATION_GUARD = 0.2;

/**
 * The rate at which the p95 reaches the SLO, interpolated linearly in 1 / p95 between a pass and a
 * non-pass above it (an infinite p95 is 1 / p95 = 0: a queue's p95 grows like 1 / (capacity -
 * rate)), kept `INTERPOLATION_GUARD` of the bracket inside it; null without two p95s to use.
 */
export function interpolatedRate(
  lo: { rate: number; p95: number },
  hi: { rate: number; p95: number },
  targetMs: number,
): number | null {
  const inv = (p: number) => (Number.isFinite(p) ? 1 / Math.max(p, 1e-9) : 0);
  const yLo = inv(lo.p95);
  const yHi = inv(hi.p95);
  const target = 1 / targetMs;
  if (!(hi.rate > lo.rate) || !(yLo > yHi) || !(yLo > target)) return null;
  const at = lo.rate + ((hi.rate - lo.rate) * (yLo - target)) / (yLo - yHi);
  const guard = INTERPOLATION_GUARD * (hi.rate - lo.rate);
  return Math.min(hi.rate - guard, Math.max(lo.rate + guard, at));
}

/** The most the ladder grows by after a pass far inside the SLO. */
export const MAX_GROWTH = 8;

export const MAX_RATE_RUNGS = 32;

/** Rounds a rate to 3 significant digits (rungs are quoted and reproduced as given). */
export const roundRate = (r: number): number => Number(r.toPrecision(3));

export class GoodputLadder {
  private readonly results: RateResult[] = [];
  private readonly growth: number;

  constructor(readonly settings: GoodputLadderSettings) {
    const { startRate, maxRate, minRate, resolution } = settings;
    this.growth = settings.growth ?? 2;
    if (!(minRate > 0 && startRate >= minRate && maxRate >= startRate)) {
      throw new Error('rates must satisfy 0 < minRate <= startRate <= maxRate');
    }
    if (!(resolution > 0 && resolution < 1)) throw new Error('resolution must lie in (0, 1)');
    if (!(this.growth > 1)) throw new Error('growth must be above 1');
  }

  get measured(): readonly RateResult[] {
    return this.results;
  }

  record(result: RateResult): void {
    this.results.push(result);
  }

  /** Highest pass (0 when none) and the lowest non-pass above it. */
  bounds(): { lo: number; hi: number | null } {
    let lo = 0;
    for (const r of this.results) if (r.verdict === 'pass' && r.rate > lo) lo = r.rate;
    let hi: number | null = null;
    for (const r of this.results) {
      if (r.verdict !== 'pass' && r.rate > lo && (hi === null || r.rate < hi)) hi = r.rate;
    }
    return { lo, hi };
  }

  /** The next rate to measure, or null when done. */
  next(): number | null {
    if (this.results.length >= MAX_RATE_RUNGS) return null;
    const { startRate, maxRate, minRate, resolution } = this.settings;
    if (this.results.length === 0) return startRate;
    const { lo, hi } = this.bounds();
    const tried = (rate: number) => this.results.some((r) => r.rate === rate);
    const over = this.settings.overRate;
    if (hi === null) {
      if (lo >= maxRate) return null;
      // The scout saw this rate over the SLO: measure it first (a breach brackets lambda_max).
      if (over !== undefined && over > lo && over <= maxRate && !tried(over)) return over;
      // Far inside the SLO (its upper end a fraction of it) the ladder grows by the headroom, up
      // to MAX_GROWTH: latency cannot fall as the rate grows, so no pass is skipped that a
      // breach above would not bracket.
      const best = this.results.find((r) => r.verdict === 'pass' && r.rate === lo);
      const factor = Math.max(this.growth, Math.min(MAX_GROWTH, best?.headroom ?? 0));
      return roundRate(Math.min(maxRate, lo * factor));
    }
    if (lo === 0) {
      // Nothing passed yet: walk down from the lowest rate tried.
      const lowest = Math.min(...this.results.map((r) => r.rate));
      if (lowest <= minRate) return null;
      const down = roundRate(Math.max(minRate, lowest / this.growth));
      return tried(down) ? null : down;
    }
    const failAbove = this.results.some((r) => r.rate > lo && r.verdict === 'fail');
    const aboveHi = this.results.some((r) => r.rate > hi);
    if (!failAbove && !aboveHi && hi < maxRate) {
      if (over !== undefined && over > hi && over <= maxRate && !tried(over)) return over;
      const up = roundRate(Math.min(maxRate, hi * this.growth));
      if (!tried(up)) return up;
    }
    if (hi - lo <= resolution * hi) return null;
    const mid = this.placed(lo, hi) ?? roundRate((lo + hi) / 2);
    return mid <= lo || mid >= hi || tried(mid) ? null : mid;
  }

  /**
   * The step between the highest pass and the lowest non-pass above it, placed on their p95s
   * (null: bisect): the rate interpolated to a p95 of PASS_AIM x SLO when it lies more than one
   * resolution above the pass (a pass there narrows the bracket most); else the lowest rate whose
   * pass meets the resolution with the non-pass, when its non-pass meets it with the pass (either
   * verdict ends the search, a pass with a higher lambda_max); else one resolution above the pass
   * (a non-pass there ends the search).
   */
  private placed(lo: number, hi: number): number | null {
    const sloMs = this.settings.sloMs;
    const at = (rate: number) => this.results.find((r) => r.rate === rate)?.p95;
    const pLo = at(lo);
    const pHi = at(hi);
    if (sloMs === undefined || pLo === undefined || pLo === null || pHi === undefined || pHi === null)
      return null;
    const aimed = interpolatedRate({ rate: lo, p95: pLo }, { rate: hi, p95: pHi }, PASS_AIM * sloMs);
    // The highest rate whose non-pass meets the resolution with this pass (3 significant digits, down).
    let step = roundRate(lo / (1 - this.settings.resolution));
    // Down by one in the third significant digit until it meets the resolution.
    for (let i = 0; i < 20 && step > lo && step - lo > this.settings.resolution * step; i++) {
      step = roundRate(step - 10 ** (Math.floor(Math.log10(step)) - 2));
    }
    const tried = (rate: number) => this.results.some((r) => r.rate === rate);
    if (aimed !== null && roundRate(aimed) > step && !tried(roundRate(aimed))) return roundRate(aimed);
    // The lowest rate whose pass meets the resolution with the non-pass (3 significant digits, up):
    // when its non-pass meets it with the pass too, either verdict ends the search.
    let closing = roundRate(hi * (1 - this.settings.resolution));
    for (let i = 0; i < 20 && closing < hi && hi - closing > this.settings.resolution * hi; i++) {
      closing = roundRate(closing + 10 ** (Math.floor(Math.log10(closing)) - 2));
    }
    const res = this.settings.resolution;
    if (closing > lo && closing < hi && closing - lo <= res * closing && !tried(closing)) return closing;
    if (step > lo && step < hi && !tried(step)) return step;
    return aimed === null ? null : roundRate(aimed);
  }
}

export interface GoodputSummary {
  /** Highest passing rate (0: none passed). */
  lambdaMax: number;
  /** A measured failure lies above lambdaMax. */
  bracketed: boolean;
  /** Lowest measured failure above lambdaMax. */
  breachRate: number | null;
  /** Failures below a passing rate (reported, never hidden). */
  nonMonotone: string[];
}

export function summarizeGoodput(results: readonly RateResult[]): GoodputSummary {
  let lambdaMax = 0;
  for (const r of results) if (r.verdict === 'pass' && r.rate > lambdaMax) lambdaMax = r.rate;
  let breachRate: number | null = null;
  for (const r of results) {
    if (r.verdict === 'fail' && r.rate > lambdaMax && (breachRate === null || r.rate < breachRate))
      breachRate = r.rate;
  }
  const nonMonotone: string[] = [];
  for (const r of results) {
    if (r.verdict !== 'fail') continue;
    const above = results.filter((p) => p.verdict === 'pass' && p.rate > r.rate);
    if (above.length > 0) {
      nonMonotone.push(`${r.rate}/s failed below passing ${Math.max(...above.map((p) => p.rate))}/s`);
    }
  }
  return { lambdaMax, bracketed: breachRate !== null, breachRate, nonMonotone };
}

/**
 * The longest rate sequence the ladder could walk (for a dry run): every boundary between
 * minRate and maxRate on a log grid, with and without an undecided band just above it.
 */
export function worstCaseRateRungs(settings: GoodputLadderSettings): { rungs: number; example: number[] } {
  let worst: number[] = [];
  const { minRate, maxRate } = settings;
  const steps = 400;
  for (let i = -1; i <= steps + 1; i++) {
    const boundary = minRate * (maxRate / minRate) ** (i / steps) * (i < 0 ? 0.5 : 1);
    for (const band of [0, 0.5]) {
      const ladder = new GoodputLadder(settings);
      const seen: number[] = [];
      for (let rate = ladder.next(); rate !== null; rate = ladder.next()) {
        seen.push(rate);
        const verdict: RateVerdict =
          rate <= boundary ? 'pass' : rate <= boundary * (1 + band) ? 'undecided' : 'fail';
        ladder.record({ rate, verdict, reason: '' });
      }
      if (seen.length > worst.length) worst = seen;
    }
  }
  return { rungs: worst.length, example: worst };
}
