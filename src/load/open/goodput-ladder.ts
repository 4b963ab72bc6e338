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
 * factor until one passes (or `minRate` fails too).
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
}

export interface RateResult {
  rate: number;
  verdict: RateVerdict;
  reason: string;
  /** A pass: the SLO over the upper end of its p95 interval (how far inside it lies). */
  headroom?: number;
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
    if (hi === null) {
      if (lo >= maxRate) return null;
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
      const up = roundRate(Math.min(maxRate, hi * this.growth));
      if (!tried(up)) return up;
    }
    if (hi - lo <= resolution * hi) return null;
    const mid = roundRate((lo + hi) / 2);
    return mid <= lo || mid >= hi || tried(mid) ? null : mid;
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
