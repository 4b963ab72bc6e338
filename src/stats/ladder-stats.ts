/**
 * Statistics of the qmax ladder besides the rung decision (src/stats/rung-decision.ts). Pure
 * functions of their inputs.
 *
 * A request that got no audio (rejected, failed, timed out, or still waiting past the SLO) is a
 * sample of +Infinity: it certainly missed the SLO. A rung is only believed once its window is
 * settled (no drift between its halves).
 */
import { mean, quantileSorted, selectInPlace, sortedAscending } from './quantiles.js';

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

/**
 * quantileWithMisses of an unsorted slice [from, to) of `values`, by selection instead of a sort
 * (the same value: type 7, +Infinity as soon as the interpolation touches a miss).
 */
export function quantileOfRange(
  values: ArrayLike<number>,
  from: number,
  to: number,
  q: number,
): number | null {
  const n = to - from;
  if (n <= 0) return null;
  const copy = new Float64Array(n);
  for (let i = 0; i < n; i++) copy[i] = values[from + i] as number;
  const position = (n - 1) * Math.min(1, Math.max(0, q));
  const below = Math.floor(position);
  const fraction = position - below;
  const low = selectInPlace(copy, below);
  if (fraction === 0 || below + 1 >= n) return low;
  // After selection everything right of `below` is >= low: the next order statistic is their minimum.
  let high = Number.POSITIVE_INFINITY;
  for (let i = below + 1; i < n; i++) if ((copy[i] as number) < high) high = copy[i] as number;
  if (!Number.isFinite(low) || !Number.isFinite(high)) return Number.POSITIVE_INFINITY;
  return low + (high - low) * fraction;
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
export function driftTest(valuesInTimeOrder: ArrayLike<number>, options: DriftOptions = {}): DriftResult {
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
  const n = valuesInTimeOrder.length;
  // Selection, not sorting: the rung runs this on every tick.
  const m1 = quantileOfRange(valuesInTimeOrder, 0, half, 0.5) as number;
  const m2 = quantileOfRange(valuesInTimeOrder, n - half, n, 0.5) as number;
  const median = quantileOfRange(valuesInTimeOrder, 0, n, 0.5) as number;
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
  /** Highest per-period Maximum (reported, not used for R). */
  serverPeak: number | null;
  /** Median of the per-period Maxima: the numerator of R. */
  serverMedianMaximum: number | null;
  serverMean: number | null;
  /** R(N) = median of the per-period Maxima / client mean in-flight. */
  ratio: number | null;
  periods: number;
}

/**
 * R(N) from the Maximum and Average datapoints of whole periods inside the measure window. The
 * numerator is the MEDIAN of the per-period Maxima, not their highest: the deployed target is
 * C_scale_max x R, so a single spike in one 10 s period (a retry burst, a scrape artefact) must not
 * raise it, which is the unsafe direction. With an even number of periods the median is the mean
 * of the middle two.
 */
export function joinServerConcurrency(
  maxima: readonly number[],
  averages: readonly number[],
  clientMeanInFlight: number,
): ServerConcurrencyJoin {
  if (maxima.length === 0)
    return { serverPeak: null, serverMedianMaximum: null, serverMean: null, ratio: null, periods: 0 };
  const serverPeak = Math.max(...maxima);
  const serverMedianMaximum = quantileSorted(sortedAscending(maxima), 0.5) as number;
  const serverMean = mean(averages);
  const ratio =
    clientMeanInFlight > 0 && serverMedianMaximum > 0 ? serverMedianMaximum / clientMeanInFlight : null;
  return { serverPeak, serverMedianMaximum, serverMean, ratio, periods: maxima.length };
}

/** Aligns an epoch-ms instant up to the next multiple of `periodS` (unchanged if already aligned). */
export const alignUp = (wallMs: number, periodS: number): number =>
  Math.ceil(wallMs / (periodS * 1000)) * periodS * 1000;
export const alignDown = (wallMs: number, periodS: number): number =>
  Math.floor(wallMs / (periodS * 1000)) * periodS * 1000;

/**
 * The concurrency at which the p95 reaches the SLO, from a joint monotone fit of every rung
 * measured so far: the p95s (median per concurrency) are made non-decreasing in concurrency by
 * pool-adjacent-violators (isotonic regression), and the SLO crossing is interpolated linearly
 * between the two fitted points around it. null when no fitted point lies on each side of the SLO.
 * Used to place the next rung, never to decide one.
 */
export function predictBoundary(
  points: ReadonlyArray<{ concurrency: number; p95Ms: number }>,
  sloMs: number,
): number | null {
  const by = new Map<number, number[]>();
  for (const p of points) {
    if (!Number.isFinite(p.p95Ms)) continue;
    by.set(p.concurrency, [...(by.get(p.concurrency) ?? []), p.p95Ms]);
  }
  const xs = [...by.keys()].sort((a, b) => a - b);
  if (xs.length < 2) return null;
  // Pool adjacent violators: blocks of (x values, mean, weight).
  const blocks: Array<{ xs: number[]; mean: number; weight: number }> = [];
  for (const x of xs) {
    const y = quantileSorted(sortedAscending(by.get(x) as number[]), 0.5) as number;
    blocks.push({ xs: [x], mean: y, weight: 1 });
    while (blocks.length > 1) {
      const last = blocks[blocks.length - 1] as (typeof blocks)[number];
      const prev = blocks[blocks.length - 2] as (typeof blocks)[number];
      if (prev.mean <= last.mean) break;
      const weight = prev.weight + last.weight;
      blocks.splice(blocks.length - 2, 2, {
        xs: [...prev.xs, ...last.xs],
        mean: (prev.mean * prev.weight + last.mean * last.weight) / weight,
        weight,
      });
    }
  }
  const fitted = blocks.flatMap((b) => b.xs.map((x) => ({ x, y: b.mean })));
  for (let i = 1; i < fitted.length; i++) {
    const a = fitted[i - 1] as { x: number; y: number };
    const b = fitted[i] as { x: number; y: number };
    if (a.y <= sloMs && b.y > sloMs) return a.x + ((sloMs - a.y) / (b.y - a.y)) * (b.x - a.x);
  }
  return null;
}

/**
 * Where the p95 would reach the SLO above every rung measured so far, by extending the straight
 * line through the two highest rungs (a closed loop's p95 grows about linearly in N once the
 * server is busy: Little's law). null with fewer than two finite p95s below the SLO or a line that
 * does not rise. Used to place the next growth rung, never to decide one.
 */
export function extrapolateBoundary(
  points: ReadonlyArray<{ concurrency: number; p95Ms: number }>,
  sloMs: number,
): number | null {
  const by = new Map<number, number>();
  for (const p of points) {
    if (!Number.isFinite(p.p95Ms) || p.p95Ms > sloMs) continue;
    by.set(p.concurrency, Math.max(by.get(p.concurrency) ?? 0, p.p95Ms));
  }
  const xs = [...by.keys()].sort((a, b) => a - b);
  if (xs.length < 2) return null;
  const x1 = xs[xs.length - 2] as number;
  const x2 = xs[xs.length - 1] as number;
  const y1 = by.get(x1) as number;
  const y2 = by.get(x2) as number;
  const slope = (y2 - y1) / (x2 - x1);
  if (!(slope > 0)) return null;
  return x2 + (sloMs - y2) / slope;
}
