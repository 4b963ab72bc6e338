/**
 * What a goodput rung is judged by before any estimate: its measured input (the seam the p95
 * decision method plugs into) and the stated count limits on overflows and errors. Pure.
 */
import type { OpenLoopOutcome } from '../model/histograms.js';

export type RateVerdict = 'pass' | 'fail' | 'undecided';

/** What one rung measured, for `decide`. */
export interface GoodputRungInput {
  rate: number;
  sloMs: number;
  /** TTFAB from the intended send time of ok requests in the measure window, in intended-send order (ms). */
  ttfabIntendedMs: readonly number[];
  /** Intended send offsets (ms) of the same requests, aligned with ttfabIntendedMs. */
  intendedAtMs: readonly number[];
  /** Every arrival of the measure window by outcome (client_dropped included). */
  outcomeCounts: Partial<Record<OpenLoopOutcome, number>>;
  offered: number;
}

export interface GoodputDecision {
  verdict: RateVerdict;
  /** One line: why (the interval, the count that broke a limit...). */
  reason: string;
}

/** The seam: the rung decision method (valid for autocorrelated latencies; from src/stats). */
export type GoodputDecide = (rung: GoodputRungInput) => GoodputDecision;

export interface GoodputLimits {
  /** Most overflows (saturated_503 and throttled_429) as a fraction of arrivals. */
  maxOverflowFraction: number;
  /** Most other failures (5xx, model errors, timeouts, client_dropped, errors) as a fraction of arrivals. */
  maxErrorFraction: number;
}

const OVERFLOW: readonly OpenLoopOutcome[] = ['saturated_503', 'throttled_429'];

/**
 * The stated count limits: `fail` when overflows or errors exceed their fraction of the arrivals
 * (a client_dropped arrival counts as an error: the client could not even offer the rate).
 */
export function overflowAndErrorLimits(
  rung: GoodputRungInput,
  limits: GoodputLimits,
): GoodputDecision | null {
  if (rung.offered === 0) return { verdict: 'undecided', reason: 'no arrivals in the measure window' };
  let overflow = 0;
  let errors = 0;
  for (const [outcome, n] of Object.entries(rung.outcomeCounts) as Array<[OpenLoopOutcome, number]>) {
    if (outcome === 'ok') continue;
    if (OVERFLOW.includes(outcome)) overflow += n;
    else errors += n;
  }
  const pct = (v: number) => `${(v * 100).toFixed(2)} %`;
  if (overflow / rung.offered > limits.maxOverflowFraction) {
    return {
      verdict: 'fail',
      reason: `overflows ${overflow}/${rung.offered} = ${pct(overflow / rung.offered)} > ${pct(limits.maxOverflowFraction)}`,
    };
  }
  if (errors / rung.offered > limits.maxErrorFraction) {
    return {
      verdict: 'fail',
      reason: `errors ${errors}/${rung.offered} = ${pct(errors / rung.offered)} > ${pct(limits.maxErrorFraction)}`,
    };
  }
  return null;
}

/** The limits first (a stated rule), then the p95 decision method. */
export function withLimits(decide: GoodputDecide, limits: GoodputLimits): GoodputDecide {
  return (rung) => overflowAndErrorLimits(rung, limits) ?? decide(rung);
}
