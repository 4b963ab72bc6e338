/**
 * Which concurrency to measure next. Pure: the planner sees only the verdicts it is told.
 *
 * fixed: the given rungs in order (the reference method).
 * adaptive: concurrency 1 (service time), then growth until a rung is measured above the SLO (a
 * breach): doubling, or with the SLO and the rungs' p95s a breach probe 15 % above the boundary
 * extrapolated from the two highest rungs (src/stats/ladder-stats.ts `extrapolateBoundary`; at
 * most growth^3 x the highest rung). Then narrowing between the highest pass (lo) and the lowest
 * measured breach (hi) until hi - lo <= resolution: at the boundary a joint monotone fit of every
 * rung predicts (`predictBoundary`; first a pass candidate half a resolution below it, then a
 * breach candidate a resolution above that); without them, or once those are measured, by
 * bisection.
 *
 * A rung undecided at the SLO (its interval inside +-5 % of it, or held to its end undecided on a
 * valid interval: src/stats/ladder-class.ts `atSlo`) is the boundary: it is not measured again
 * (that would give it a second, independent chance to pass), and the search only looks for a
 * breach within the resolution above the band of such rungs, then a pass within the resolution
 * below it; the resolution is met when both are found.
 *
 * A void undecided rung (no interval, unsettled, unusable, dependent batches: it could not have
 * passed) is re-measured once; if it is still undecided the search goes on around it, first
 * toward the lowest measured breach (bisecting above the highest undecided rung), then below the
 * lowest undecided rung, never walking every concurrency in between. When no untried
 * concurrency is left in a gap that matters, the search ends and records that it did not reach
 * its resolution.
 */

import {
  atSlo,
  classify,
  classOf,
  type RungClass,
  type RungResult,
  type SearchState,
  searchState,
} from '../../stats/ladder-class.js';
import { extrapolateBoundary, predictBoundary } from '../../stats/ladder-stats.js';
import type { Verdict } from '../../stats/rung-decision.js';

export { atSlo, classify, classOf, type RungClass, type RungResult, type SearchState, searchState };

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
  /**
   * The SLO, ms: with it (and the rungs' p95s) the bracket is narrowed at the boundary predicted by
   * a monotone fit of every rung instead of at its middle.
   */
  sloMs?: number;
}

/** Hard stop against a planner bug or a pathological server: no ladder has more rungs. */
export const MAX_RUNGS_PER_RUN = 64;

/** A growth rung aimed by the fit lands this far above the extrapolated boundary (a breach). */
export const BREACH_PROBE = 0.15;

export class LadderPlanner {
  private readonly results: RungResult[] = [];
  private readonly growth: number;
  private fixedIndex = 0;
  /** Concurrencies placed at the fit's predicted boundary (not by growth or bisection). */
  private readonly fitPlaced = new Set<number>();

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

  /** The highest passing rung (0 when none) and the lowest measured breach above it. */
  bounds(): { lo: number; hi: number | null } {
    const { lo, hi } = searchState(this.results);
    return { lo, hi };
  }

  private timesMeasured(concurrency: number): number {
    return this.results.filter((r) => r.concurrency === concurrency).length;
  }

  private tried(concurrency: number): boolean {
    return this.results.some((r) => r.concurrency === concurrency);
  }

  /** The concurrency ended undecided at the SLO (src/stats/ladder-class.ts `atSlo`). */
  private atSlo(concurrency: number): boolean {
    return this.results.some((r) => r.concurrency === concurrency && atSlo(r));
  }

  private fitPoints(): Array<{ concurrency: number; p95Ms: number }> {
    return this.results
      .filter((r) => typeof r.p95Ms === 'number' && !r.invalid)
      .map((r) => ({ concurrency: r.concurrency, p95Ms: r.p95Ms as number }));
  }

  /**
   * The growth rung the fit aims at: BREACH_PROBE above the boundary extrapolated from the two
   * highest rungs, at least one above `top` and at most growth^3 x `top`; null without a fit.
   */
  private grownByFit(top: number): number | null {
    const slo = this.settings.sloMs;
    if (slo === undefined || top < 1) return null;
    const boundary = extrapolateBoundary(this.fitPoints(), slo);
    if (boundary === null) return null;
    const target = Math.ceil(boundary * (1 + BREACH_PROBE));
    return Math.max(top + 1, Math.min(target, Math.floor(top * this.growth ** 3)));
  }

  /**
   * The rung that confirms the boundary the monotone fit predicts (N*): first a pass candidate
   * round(N* - resolution / 2), then the breach candidate resolution above it, each if untried and
   * strictly inside the bracket; null without a fit (then the search bisects).
   */
  private atPredictedBoundary(lo: number, hi: number): number | null {
    const slo = this.settings.sloMs;
    if (slo === undefined) return null;
    const boundary = predictBoundary(this.fitPoints(), slo);
    if (boundary === null) return null;
    const r = this.settings.resolution;
    const pass = Math.round(boundary - r / 2);
    for (const c of [pass, pass + r]) {
      if (c > lo && c < hi && !this.tried(c)) return c;
    }
    return null;
  }

  /**
   * The last two rungs were both placed by the fit and came out on the same side of the boundary
   * (both passes or both breaches): the fit keeps missing in one direction (a curve its monotone
   * fit bends the wrong way would walk the bracket one concurrency at a time), so the next rung
   * bisects, as regula falsi's Illinois rule does.
   */
  private fitKeepsOneSide(): boolean {
    const last = this.results.slice(-2);
    if (last.length < 2 || !last.every((r) => this.fitPlaced.has(r.concurrency))) return false;
    const sides = last.map((r) => classify(r));
    return sides[0] === sides[1] && (sides[0] === 'pass' || sides[0] === 'fail');
  }

  /** The untried concurrency nearest the middle of (a, b), or null when there is none. */
  private bisect(a: number, b: number): number | null {
    const middle = a + Math.floor((b - a) / 2);
    for (let offset = 0; middle - offset > a || middle + offset < b; offset++) {
      for (const c of [middle + offset, middle - offset]) {
        if (c > a && c < b && !this.tried(c)) return c;
      }
    }
    return null;
  }

  /** The next concurrency to measure, or null when the ladder is done. */
  next(): number | null {
    if (this.results.length >= MAX_RUNGS_PER_RUN) return null;
    const { maxConcurrency, resolution } = this.settings;
    if (this.settings.mode === 'fixed') {
      while (this.fixedIndex < this.settings.rungs.length) {
        const rung = this.settings.rungs[this.fixedIndex++] as number;
        if (rung <= maxConcurrency) return rung;
      }
      return null;
    }
    if (this.results.length === 0) return 1;
    const { lo, hi, undecided } = searchState(this.results);
    // A void undecided rung (no valid interval, unsettled, unusable) is measured a second time
    // before anything else; one undecided at the SLO never is.
    const again = undecided.find((c) => this.timesMeasured(c) === 1 && !this.atSlo(c));
    if (again !== undefined) return again;
    if (hi === null) {
      // No breach yet: grow above everything measured (undecided rungs included).
      const top = Math.max(lo, ...undecided);
      if (top >= maxConcurrency) return null;
      const plain = Math.max(top + 1, Math.floor(top * this.growth));
      return Math.min(maxConcurrency, this.grownByFit(top) ?? plain);
    }
    const band = undecided.filter((c) => this.atSlo(c));
    if (band.length > 0) return this.aroundBand(lo, hi, band[0] as number, band[band.length - 1] as number);
    if (hi - lo <= resolution) return null;
    const placed = this.fitKeepsOneSide() ? null : this.atPredictedBoundary(lo, hi);
    if (placed !== null) {
      this.fitPlaced.add(placed);
      return placed;
    }
    if (undecided.length === 0) return this.bisect(lo, hi);
    // Toward the lowest measured breach first (a pass there settles the question), then below
    // the lowest undecided rung (a pass there raises Q_max).
    return (
      this.bisect(undecided[undecided.length - 1] as number, hi) ?? this.bisect(lo, undecided[0] as number)
    );
  }

  /**
   * The boundary lies in the band [bandLo, bandHi] of rungs undecided at the SLO: a breach within
   * the resolution above it first (cheap: a breach decides early), then a pass within the
   * resolution below it; null once both are measured or nothing untried is left.
   */
  private aroundBand(lo: number, hi: number, bandLo: number, bandHi: number): number | null {
    const r = this.settings.resolution;
    if (hi - bandHi > r) {
      const c = bandHi + r;
      if (c < hi && !this.tried(c)) return c;
      const b = this.bisect(bandHi, Math.min(hi, bandHi + r + 1));
      if (b !== null) return b;
    }
    if (bandLo - lo > r) {
      const c = bandLo - r;
      if (c > lo && !this.tried(c)) return c;
      return this.bisect(Math.max(lo, bandLo - r - 1), bandLo);
    }
    return null;
  }
}

export interface LadderSummary {
  qMax: number;
  bracketed: boolean;
  /** Lowest measured breach above Q_max; null when none (Q_max is then only a lower bound). */
  upperBound: number | null;
  nonMonotone: string[];
  /** The requested resolution (adaptive); null for a fixed ladder or when not given. */
  resolution: number | null;
  /** upperBound - qMax <= resolution; null when no resolution was requested. */
  resolutionMet: boolean | null;
  /** Concurrencies that ended undecided between Q_max and its upper bound. */
  undecided: number[];
}

/**
 * Q_max of one run: the highest passing (usable) rung; bracketed only by a measured failure above
 * it. With `settings` (adaptive), whether the bracket is within the requested resolution.
 */
export function summarizeLadder(results: readonly RungResult[], settings?: LadderSettings): LadderSummary {
  const { lo: qMax, hi: upperBound, undecided } = searchState(results);
  // A measured breach below a passing rung: the curve is not monotone (reported, never hidden).
  const nonMonotone: string[] = [];
  const passes = results.filter((r) => classify(r) === 'pass');
  for (const r of results) {
    if (classify(r) !== 'fail') continue;
    const above = passes.filter((p) => p.concurrency > r.concurrency).map((p) => p.concurrency);
    if (above.length === 0) continue;
    nonMonotone.push(`concurrency ${r.concurrency} failed below passing concurrency ${Math.max(...above)}`);
  }
  const resolution = settings?.mode === 'adaptive' ? settings.resolution : null;
  return {
    qMax,
    bracketed: upperBound !== null,
    upperBound,
    nonMonotone,
    resolution,
    resolutionMet: resolution === null ? null : resolutionMetAround(results, qMax, upperBound, resolution),
    undecided,
  };
}

/**
 * The search record of an artifact (all runs pooled) for its reported Q_max: the lowest measured
 * breach above it, the requested resolution, whether it was met, the undecided rungs in between.
 */
export function searchRecord(
  results: readonly RungResult[],
  qMax: number,
  settings: LadderSettings,
): {
  upper_bound: number | null;
  resolution: number | null;
  resolution_met: boolean | null;
  undecided_rungs: number[];
} {
  const measured = [...new Set(results.map((r) => r.concurrency))].sort((a, b) => a - b);
  const upper = measured.find((c) => c > qMax && classOf(results, c) === 'fail') ?? null;
  const resolution = settings.mode === 'adaptive' ? settings.resolution : null;
  return {
    upper_bound: upper,
    resolution,
    resolution_met: resolution === null ? null : resolutionMetAround(results, qMax, upper, resolution),
    undecided_rungs: measured.filter(
      (c) => c > qMax && (upper === null || c < upper) && classOf(results, c) === 'indeterminate',
    ),
  };
}

/** The search reached its resolution: a measured breach within `resolution` above Q_max. */
export const resolutionMet = (qMax: number, upperBound: number | null, resolution: number): boolean =>
  upperBound !== null && upperBound - qMax <= resolution;

/**
 * resolutionMet, or the boundary located by rungs undecided at the SLO between Q_max and its upper
 * bound: the lowest of them within `resolution` above Q_max and the highest within `resolution`
 * below the breach.
 */
export function resolutionMetAround(
  results: readonly RungResult[],
  qMax: number,
  upperBound: number | null,
  resolution: number,
): boolean {
  if (upperBound === null) return false;
  if (resolutionMet(qMax, upperBound, resolution)) return true;
  const band = [
    ...new Set(
      results
        .filter((r) => r.concurrency > qMax && r.concurrency < upperBound && atSlo(r))
        .map((r) => r.concurrency)
        .filter((c) => classOf(results, c) === 'indeterminate'),
    ),
  ].sort((a, b) => a - b);
  if (band.length === 0) return false;
  return (
    (band[0] as number) - qMax <= resolution && upperBound - (band[band.length - 1] as number) <= resolution
  );
}

/**
 * Every concurrency the ladder could measure and the worst-case rung count (every rung held to its
 * limit), from simulating the planner against every possible boundary, with and without rung
 * p95s of several curve shapes (`WORST_CASE_P95_SHAPES`) when the ladder places rungs by them.
 */
export function worstCaseRungs(settings: LadderSettings): { rungs: number; example: number[] } {
  if (settings.mode === 'fixed') {
    const rungs = settings.rungs.filter((r) => r <= settings.maxConcurrency);
    return { rungs: rungs.length, example: rungs };
  }
  let worst: number[] = [];
  // With an SLO the rungs' p95s place the next rung (growth by extrapolation, narrowing at the
  // fit's boundary): every curve shape below is walked too, each crossing the SLO at the boundary.
  const slo = settings.sloMs;
  const shapes: Array<((c: number, boundary: number) => number) | null> = [
    null,
    ...(slo === undefined
      ? []
      : WORST_CASE_P95_SHAPES.map((shape) => (c: number, b: number) => slo * shape(c, b))),
  ];
  // Every boundary up to 2048; beyond that a sample of them (the gaps are geometric anyway).
  const step = Math.max(1, Math.floor(settings.maxConcurrency / 2048));
  for (let boundary = 0; boundary <= settings.maxConcurrency; boundary += step) {
    for (const p95 of shapes) {
      // The worst case adds one undecided rung (a straddle at the boundary, measured twice).
      for (const straddle of [false, true]) {
        const seen = walkPlanner(settings, boundary, straddle, p95);
        if (seen.length > worst.length) worst = seen;
      }
    }
  }
  return { rungs: worst.length, example: worst };
}

/**
 * The rungs the planner measures against a server whose rungs pass up to `boundary` and fail
 * above it (the rung just above it undecided when `straddle`), with p95s from `p95` when given.
 */
function walkPlanner(
  settings: LadderSettings,
  boundary: number,
  straddle: boolean,
  p95: ((c: number, boundary: number) => number) | null,
): number[] {
  const planner = new LadderPlanner(settings);
  const seen: number[] = [];
  for (let c = planner.next(); c !== null; c = planner.next()) {
    seen.push(c);
    const verdict: Verdict = straddle && c === boundary + 1 ? 'undecided' : c <= boundary ? 'pass' : 'fail';
    planner.record({ concurrency: c, verdict, usable: true, ...(p95 ? { p95Ms: p95(c, boundary) } : {}) });
  }
  return seen;
}

/**
 * p95 / SLO at concurrency c for a boundary b (the curve crosses the SLO at b + 0.5): the shapes
 * the worst case walks. Linear (a serial device), square root and cubic (bending either way from
 * a straight fit), a knee (flat, then linear), and a step (flat just under the SLO, then just over:
 * nothing to extrapolate from).
 */
export const WORST_CASE_P95_SHAPES: ReadonlyArray<(c: number, b: number) => number> = [
  (c, b) => c / (b + 0.5),
  (c, b) => Math.sqrt(c / (b + 0.5)),
  (c, b) => (c / (b + 0.5)) ** 3,
  (c, b) => (c <= b / 2 ? 0.4 : 0.4 + (0.6 * (c - b / 2)) / (b / 2 + 0.5)),
  (c, b) => (c <= b ? 0.9 : 1.1),
];
