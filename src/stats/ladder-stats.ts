/**
 * Statistics the qmax ladder decides with. Pure functions of their inputs.
 *
 * A rung's TTFAB samples are judged against the SLO by the distribution-free confidence interval
 * of their p95; a request that got no audio (rejected, failed, timed out, or still waiting past
 * the SLO) is a sample of +Infinity: it certainly missed the SLO. The rung is only believed once
 * its window is settled (no drift between its halves).
 */
import { mean, quantileConfidenceInterval, quantileSorted, sortedAscending } from './quantiles.js';

export type Verdict = 'pass' | 'fail' | 'uncertain';

/**
 * Type-7 quantile of an ascending array that may end in +Infinity (misses): Infinity as soon as
 * the interpolation touches a miss (plain interpolation would give NaN for Infinity - Infinity).
 */
export function quantileWithMisses(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * Math.min(1, Math.max(0, q));
  const below = Math.floor(position);
  const fraction = position - below;
  const low = sorted[below] as number;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  if (!Number.isFinite(low) || (fraction > 0 && !Number.isFinite(high))) return Number.POSITIVE_INFINITY;
  return quantileSorted(sorted, q);
}

export interface DriftOptions {
  /** Relative tolerance on the median (default 10 %). */
  relativeTolerance?: number;
  /** Absolute tolerance floor, ms (default 5 ms): timer jitter is not drift. */
  absoluteToleranceMs?: number;
  /** Fewer samples than this per half: not enough to tell (default 20). */
  minPerHalf?: number;
}

export interface DriftResult {
  /** median(second half) - median(first half), ms; null when it cannot be computed. */
  driftMs: number | null;
  toleranceMs: number;
  settled: boolean;
  reason: string;
}

/**
 * Drift between the first and second half of a window, in time order: the median of the later half
 * minus the median of the earlier one. Settled when that is within tolerance of the window's median.
 */
export function driftTest(valuesInTimeOrder: readonly number[], options: DriftOptions = {}): DriftResult {
  const rel = options.relativeTolerance ?? 0.1;
  const abs = options.absoluteToleranceMs ?? 5;
  const minPerHalf = options.minPerHalf ?? 20;
  const half = Math.floor(valuesInTimeOrder.length / 2);
  if (half < minPerHalf) {
    return {
      driftMs: null,
      toleranceMs: abs,
      settled: false,
      reason: `too few samples to test drift (${valuesInTimeOrder.length}, need ${2 * minPerHalf})`,
    };
  }
  const first = sortedAscending(valuesInTimeOrder.slice(0, half));
  const second = sortedAscending(valuesInTimeOrder.slice(valuesInTimeOrder.length - half));
  const all = sortedAscending(valuesInTimeOrder);
  const m1 = quantileWithMisses(first, 0.5) as number;
  const m2 = quantileWithMisses(second, 0.5) as number;
  const median = quantileWithMisses(all, 0.5) as number;
  if (!Number.isFinite(m1) && !Number.isFinite(m2)) {
    return { driftMs: null, toleranceMs: abs, settled: true, reason: 'most requests failed throughout' };
  }
  if (!Number.isFinite(m1) || !Number.isFinite(m2)) {
    return {
      driftMs: null,
      toleranceMs: abs,
      settled: false,
      reason: 'failures started or stopped mid-window',
    };
  }
  const tolerance = Math.max(abs, rel * (Number.isFinite(median) ? median : Math.max(m1, m2)));
  const drift = m2 - m1;
  const settled = Math.abs(drift) <= tolerance;
  return {
    driftMs: drift,
    toleranceMs: tolerance,
    settled,
    reason: settled
      ? `median drift ${drift.toFixed(1)} ms within ±${tolerance.toFixed(1)} ms`
      : `median drift ${drift.toFixed(1)} ms beyond ±${tolerance.toFixed(1)} ms`,
  };
}

export interface SloEvaluationOptions {
  /** Fewer samples than this: never decisive (default 100; a 95 % CI of p95 needs at least 72). */
  minSamples?: number;
  confidence?: number;
  drift?: DriftOptions;
}

export interface SloEvaluation {
  /** Samples judged, misses included. */
  n: number;
  /** Samples that were misses by outcome (no audio), counted as +Infinity. */
  misses: number;
  /** p95 over every sample (Infinity when more than 5 % missed). */
  p95: number | null;
  interval: { low: number; high: number } | null;
  /** pass: the whole interval is within the SLO; fail: wholly above it; otherwise uncertain. */
  verdict: Verdict;
  /** Enough samples and an interval wholly on one side. */
  decisive: boolean;
  drift: DriftResult;
  reason: string;
}

/**
 * Judges one window of TTFAB samples (time order; +Infinity for misses) against the SLO.
 */
export function evaluateSlo(
  samplesInTimeOrder: readonly number[],
  sloMs: number,
  options: SloEvaluationOptions = {},
): SloEvaluation {
  const minSamples = Math.max(options.minSamples ?? 100, 1);
  const sorted = sortedAscending(samplesInTimeOrder);
  const n = sorted.length;
  const misses = sorted.filter((v) => !Number.isFinite(v)).length;
  const p95 = quantileWithMisses(sorted, 0.95);
  const ci = quantileConfidenceInterval(sorted, 0.95, options.confidence ?? 0.95);
  const interval = ci ? { low: ci.low, high: ci.high } : null;
  const drift = driftTest(samplesInTimeOrder, options.drift);
  let verdict: Verdict = 'uncertain';
  let reason: string;
  const fmt = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'no audio');
  if (!interval) {
    reason = `${n} samples: too few for a confidence interval of p95`;
  } else if (interval.high <= sloMs) {
    verdict = 'pass';
    reason = `p95 95 % CI [${fmt(interval.low)}, ${fmt(interval.high)}] within the ${sloMs} ms SLO`;
  } else if (interval.low > sloMs) {
    verdict = 'fail';
    reason = `p95 95 % CI [${fmt(interval.low)}, ${fmt(interval.high)}] above the ${sloMs} ms SLO`;
  } else {
    reason = `p95 95 % CI [${fmt(interval.low)}, ${fmt(interval.high)}] straddles the ${sloMs} ms SLO`;
  }
  if (misses > 0) reason += `; ${misses} of ${n} samples are misses without audio`;
  const decisive = verdict !== 'uncertain' && n >= minSamples;
  if (verdict !== 'uncertain' && !decisive) reason += ` (only ${n} samples, need ${minSamples})`;
  return { n, misses, p95, interval, verdict, decisive, drift, reason };
}

/** CloudWatch datapoints (period starts, epoch ms) wholly inside [startMs, endMs]. */
export function periodsWithin(
  timestamps: readonly number[],
  values: readonly number[],
  periodS: number,
  startMs: number,
  endMs: number,
): number[] {
  const out: number[] = [];
  for (let i = 0; i < timestamps.length; i++) {
    const t = timestamps[i] as number;
    if (t >= startMs && t + periodS * 1000 <= endMs) out.push(values[i] as number);
  }
  return out;
}

export interface ServerConcurrencyJoin {
  serverPeak: number | null;
  serverMean: number | null;
  /** R(N) = server Maximum / client mean in-flight. */
  ratio: number | null;
  periods: number;
}

/** R(N) from the Maximum and Average datapoints of whole periods inside the measure window. */
export function joinServerConcurrency(
  maxima: readonly number[],
  averages: readonly number[],
  clientMeanInFlight: number,
): ServerConcurrencyJoin {
  if (maxima.length === 0) return { serverPeak: null, serverMean: null, ratio: null, periods: 0 };
  const serverPeak = Math.max(...maxima);
  const serverMean = mean(averages);
  const ratio = clientMeanInFlight > 0 && serverPeak > 0 ? serverPeak / clientMeanInFlight : null;
  return { serverPeak, serverMean, ratio, periods: maxima.length };
}

/** Aligns an epoch-ms instant up to the next multiple of `periodS` (unchanged if already aligned). */
export const alignUp = (wallMs: number, periodS: number): number =>
  Math.ceil(wallMs / (periodS * 1000)) * periodS * 1000;
export const alignDown = (wallMs: number, periodS: number): number =>
  Math.floor(wallMs / (periodS * 1000)) * periodS * 1000;
