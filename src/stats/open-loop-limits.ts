/**
 * What a goodput rung is judged by besides its p95: its measured input (the seam the p95
 * decision method plugs into) and the stated limits on overflows and errors, judged on one-sided
 * bounds, not point estimates. Pure.
 *
 * A limit holds when the upper bound of the fraction is within it and is broken when the lower
 * bound is above it; in between the rung cannot pass on it (it is not shown to hold). Bounds are
 * Wilson's score bounds at one-sided 95 % on an effective sample: overflows and errors come in
 * clusters (a queue at its limit refuses every arrival for a while), so the arrivals are divided
 * by the design effect measured from consecutive batches of windows (the variance of the batch
 * fractions over the binomial variance; at least 1).
 */
import type { OpenLoopOutcome } from '../model/histograms.js';

export type RateVerdict = 'pass' | 'fail' | 'undecided';

/** Counts of one batch of consecutive windows. */
export interface OutcomeBatch {
  offered: number;
  overflow: number;
  errors: number;
}

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
  /** The same arrivals in consecutive batches (for the design effect; absent: independent). */
  batches?: readonly OutcomeBatch[];
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
export const isOverflow = (o: OpenLoopOutcome): boolean => OVERFLOW.includes(o);

/** One-sided 95 % normal quantile of the limit bounds. */
export const LIMIT_Z = 1.644854;

/** Wilson score bounds of a proportion x / n (n may be fractional: an effective sample). */
export function wilsonBounds(x: number, n: number, z = LIMIT_Z): { low: number; high: number } {
  if (!(n > 0)) return { low: 0, high: 1 };
  const p = x / n;
  const z2 = z * z;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (z / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** The variance of batch fractions over the binomial variance (at least 1; 1 without batches). */
export function designEffect(
  batches: readonly OutcomeBatch[] | undefined,
  pick: (b: OutcomeBatch) => number,
): number {
  if (!batches || batches.length < 3) return 1;
  const used = batches.filter((b) => b.offered > 0);
  const n = used.reduce((a, b) => a + b.offered, 0);
  const x = used.reduce((a, b) => a + pick(b), 0);
  if (used.length < 3 || x === 0 || x === n) return 1;
  const p = x / n;
  const m = n / used.length;
  let s = 0;
  for (const b of used) s += b.offered * (pick(b) / b.offered - p) ** 2;
  const batchVariance = s / (used.length - 1) / m;
  return Math.max(1, (batchVariance * m) / (p * (1 - p)));
}

/** A fraction's bounds with its design effect. */
export function limitBounds(
  x: number,
  n: number,
  batches: readonly OutcomeBatch[] | undefined,
  pick: (b: OutcomeBatch) => number,
): { low: number; high: number; designEffect: number } {
  const d = designEffect(batches, pick);
  return { ...wilsonBounds(x / d, n / d), designEffect: d };
}

/**
 * The stated limits on bounds: `fail` when a lower bound exceeds its limit; `undecided` when an
 * upper bound does (not shown to hold: the rung cannot pass); null when both hold. A
 * client_dropped arrival counts as an error (the client could not even offer the rate).
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
    if (isOverflow(outcome)) overflow += n;
    else errors += n;
  }
  const pct = (v: number) => `${(v * 100).toFixed(2)} %`;
  const checks = [
    {
      what: 'overflows',
      x: overflow,
      limit: limits.maxOverflowFraction,
      pick: (b: OutcomeBatch) => b.overflow,
    },
    { what: 'errors', x: errors, limit: limits.maxErrorFraction, pick: (b: OutcomeBatch) => b.errors },
  ];
  let notShown: GoodputDecision | null = null;
  for (const c of checks) {
    const b = limitBounds(c.x, rung.offered, rung.batches, c.pick);
    const text = `${c.what} ${c.x}/${rung.offered} = ${pct(c.x / rung.offered)} (95 % bounds [${pct(b.low)}, ${pct(b.high)}]${b.designEffect > 1 ? `, design effect ${b.designEffect.toFixed(1)}` : ''})`;
    if (b.low > c.limit) return { verdict: 'fail', reason: `${text} > ${pct(c.limit)}` };
    if (b.high > c.limit && notShown === null) {
      notShown = { verdict: 'undecided', reason: `${text}: not shown within ${pct(c.limit)}` };
    }
  }
  return notShown;
}

/** The limits first (a stated rule), then the p95 decision method. */
export function withLimits(decide: GoodputDecide, limits: GoodputLimits): GoodputDecide {
  return (rung) => {
    const limit = overflowAndErrorLimits(rung, limits);
    if (limit?.verdict === 'fail') return limit;
    const d = decide(rung);
    // A pass needs the limits shown to hold.
    if (limit && d.verdict === 'pass') return limit;
    return d;
  };
}
