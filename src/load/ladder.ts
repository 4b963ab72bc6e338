/**
 * Which concurrency to measure next. Pure: the planner sees only the verdicts it is told.
 *
 * fixed: the given rungs in order (the reference method).
 * adaptive: concurrency 1 (service time), then geometric growth until a rung does not pass, then
 * bisection between the highest pass (lo) and the lowest non-pass above it (hi) until
 * hi - lo <= resolution. A rung that straddles the SLO (uncertain) is an upper bound for the
 * search but not a measured breach, so the planner measures one rung above it to bracket Q_max.
 */
import type { Verdict } from '../stats/ladder-stats.js';

export type LadderMode = 'adaptive' | 'fixed';

export const DEFAULT_FIXED_RUNGS: readonly number[] = [1, 5, 10, 20, 30, 40, 50, 60];

export interface LadderSettings {
  mode: LadderMode;
  /** fixed: the rungs to walk. */
  rungs: readonly number[];
  maxConcurrency: number;
  resolution: number;
  /** Geometric growth factor of the adaptive ladder (default 2). */
  growth?: number;
}

/** pass = passing and usable; fail = measured above the SLO; indeterminate = anything else. */
export type RungClass = 'pass' | 'fail' | 'indeterminate';

export interface RungResult {
  concurrency: number;
  verdict: Verdict;
  usable: boolean;
  /**
   * The measurement itself is void (the client was the bottleneck, or the fleet changed size):
   * not even a failure counts. A saturated or unsettled failing rung is still a measured breach.
   */
  invalid?: boolean;
}

export function classify(result: RungResult): RungClass {
  if (result.verdict === 'pass' && result.usable) return 'pass';
  if (result.verdict === 'fail' && !result.invalid) return 'fail';
  return 'indeterminate';
}

/** Hard stop against a planner bug or a pathological server: no ladder has more rungs. */
export const MAX_RUNGS_PER_RUN = 64;

export class LadderPlanner {
  private readonly results: RungResult[] = [];
  private readonly growth: number;
  private fixedIndex = 0;

  constructor(readonly settings: LadderSettings) {
    this.growth = settings.growth ?? 2;
    if (settings.mode === 'fixed' && settings.rungs.length === 0)
      throw new Error('a fixed ladder needs rungs');
  }

  get measured(): readonly RungResult[] {
    return this.results;
  }

  record(result: RungResult): void {
    this.results.push(result);
  }

  /** The highest passing rung (0 when none) and the lowest non-passing rung above it. */
  bounds(): { lo: number; hi: number | null } {
    let lo = 0;
    for (const r of this.results) if (classify(r) === 'pass' && r.concurrency > lo) lo = r.concurrency;
    let hi: number | null = null;
    for (const r of this.results) {
      if (classify(r) !== 'pass' && r.concurrency > lo && (hi === null || r.concurrency < hi))
        hi = r.concurrency;
    }
    return { lo, hi };
  }

  /** The next concurrency to measure, or null when the ladder is done. */
  next(): number | null {
    if (this.results.length >= MAX_RUNGS_PER_RUN) return null;
    const { maxConcurrency } = this.settings;
    if (this.settings.mode === 'fixed') {
      while (this.fixedIndex < this.settings.rungs.length) {
        const rung = this.settings.rungs[this.fixedIndex++] as number;
        if (rung <= maxConcurrency) return rung;
      }
      return null;
    }
    if (this.results.length === 0) return 1;
    const { lo, hi } = this.bounds();
    if (hi === null) {
      if (lo >= maxConcurrency) return null;
      return Math.min(maxConcurrency, Math.max(lo + 1, Math.floor(lo * this.growth)));
    }
    // Bracket: hi only straddled (or was unusable); measure above it once to find a real breach.
    const failAbove = this.results.some((r) => r.concurrency > lo && classify(r) === 'fail');
    const measuredAboveHi = this.results.some((r) => r.concurrency > hi);
    if (!failAbove && !measuredAboveHi && hi < maxConcurrency) {
      return Math.min(maxConcurrency, Math.max(hi + 1, Math.floor(hi * this.growth)));
    }
    if (hi - lo <= this.settings.resolution) return null;
    return lo + Math.floor((hi - lo) / 2);
  }
}

export interface LadderSummary {
  qMax: number;
  bracketed: boolean;
  upperBound: number | null;
  nonMonotone: string[];
}

/** Q_max of one run: the highest passing (usable) rung; bracketed only by a measured failure above it. */
export function summarizeLadder(results: readonly RungResult[]): LadderSummary {
  let qMax = 0;
  for (const r of results) if (classify(r) === 'pass' && r.concurrency > qMax) qMax = r.concurrency;
  let upperBound: number | null = null;
  for (const r of results) {
    if (
      classify(r) === 'fail' &&
      r.concurrency > qMax &&
      (upperBound === null || r.concurrency < upperBound)
    ) {
      upperBound = r.concurrency;
    }
  }
  // A measured breach below a passing rung: the curve is not monotone (reported, never hidden).
  const nonMonotone: string[] = [];
  const passes = results.filter((r) => classify(r) === 'pass');
  for (const r of results) {
    if (classify(r) !== 'fail') continue;
    const above = passes.filter((p) => p.concurrency > r.concurrency).map((p) => p.concurrency);
    if (above.length === 0) continue;
    nonMonotone.push(`concurrency ${r.concurrency} failed below passing concurrency ${Math.max(...above)}`);
  }
  return { qMax, bracketed: upperBound !== null, upperBound, nonMonotone };
}

/**
 * Every concurrency the ladder could measure and the worst-case rung count (every rung held to its
 * limit), from simulating the planner against every possible boundary.
 */
export function worstCaseRungs(settings: LadderSettings): { rungs: number; example: number[] } {
  if (settings.mode === 'fixed') {
    const rungs = settings.rungs.filter((r) => r <= settings.maxConcurrency);
    return { rungs: rungs.length, example: rungs };
  }
  let worst: number[] = [];
  // Every boundary up to 2048; beyond that a sample of them (the gaps are geometric anyway).
  const step = Math.max(1, Math.floor(settings.maxConcurrency / 2048));
  for (let boundary = 0; boundary <= settings.maxConcurrency; boundary += step) {
    // The worst case adds one uncertain rung (a straddle at the boundary) on top of pass/fail.
    for (const straddle of [false, true]) {
      const planner = new LadderPlanner(settings);
      const seen: number[] = [];
      for (let c = planner.next(); c !== null; c = planner.next()) {
        seen.push(c);
        const verdict: Verdict =
          straddle && c === boundary + 1 ? 'uncertain' : c <= boundary ? 'pass' : 'fail';
        planner.record({ concurrency: c, verdict, usable: true });
      }
      if (seen.length > worst.length) worst = seen;
    }
  }
  return { rungs: worst.length, example: worst };
}
