/**
 * The class of a measured rung and where the search stands: what the ladder planner
 * (src/load/closed/ladder.ts) steers by and what the release gate re-derives Q_max and its bracket
 * from (src/plan/gate-measurements.ts). Pure.
 */
import type { Verdict } from './rung-decision.js';

/** pass = passing and usable; fail = measured above the SLO; indeterminate = anything else. */
export type RungClass = 'pass' | 'fail' | 'indeterminate';

export interface RungResult {
  concurrency: number;
  /** `uncertain` is the older name of `undecided` (artifacts written before it). */
  verdict: Verdict | 'uncertain';
  usable: boolean;
  /**
   * The measurement itself is void (the client was the bottleneck, or the fleet changed size):
   * not even a failure counts. A saturated or unsettled failing rung is still a measured breach.
   */
  invalid?: boolean;
  /** The rung's p95, ms (for placing the next rung only). */
  p95Ms?: number | null;
  /** Ended undecided with its interval inside +-5 % of the SLO: not measured again. */
  nearSlo?: boolean;
  /**
   * Ran to its hold and ended undecided on a valid interval (settled, usable, batches independent):
   * the SLO lies inside its interval or its pass margin. Like a near-SLO rung, not measured again.
   */
  heldUndecided?: boolean;
}

/**
 * An undecided rung whose own data put the SLO inside its interval (near the SLO, or to the end of
 * its hold on a valid window): the boundary is there. Measuring it again would give it a second,
 * independent chance to pass; it is not, and the search treats it as the boundary.
 */
export const atSlo = (r: RungResult): boolean =>
  (r.verdict === 'undecided' || r.verdict === 'uncertain') &&
  !r.invalid &&
  (r.nearSlo === true || r.heldUndecided === true);

export function classify(result: RungResult): RungClass {
  if (result.verdict === 'pass' && result.usable) return 'pass';
  if (result.verdict === 'fail' && !result.invalid) return 'fail';
  return 'indeterminate';
}

/** The class of a concurrency over all its measurements: a breach wins, then a pass. */
export function classOf(results: readonly RungResult[], concurrency: number): RungClass {
  let pass = false;
  for (const r of results) {
    if (r.concurrency !== concurrency) continue;
    const c = classify(r);
    if (c === 'fail') return 'fail';
    if (c === 'pass') pass = true;
  }
  return pass ? 'pass' : 'indeterminate';
}

export interface SearchState {
  /** Highest passing concurrency (0 when none). */
  lo: number;
  /** Lowest measured breach above lo (null when none). */
  hi: number | null;
  /** Undecided concurrencies strictly between lo and hi (or above lo when hi is null), ascending. */
  undecided: number[];
}

export function searchState(results: readonly RungResult[]): SearchState {
  const measured = [...new Set(results.map((r) => r.concurrency))].sort((a, b) => a - b);
  let lo = 0;
  for (const c of measured) if (classOf(results, c) === 'pass') lo = c;
  let hi: number | null = null;
  for (const c of measured) {
    if (c > lo && classOf(results, c) === 'fail') {
      hi = c;
      break;
    }
  }
  const undecided = measured.filter(
    (c) => c > lo && (hi === null || c < hi) && classOf(results, c) === 'indeterminate',
  );
  return { lo, hi, undecided };
}
