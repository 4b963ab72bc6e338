/**
 * Quantiles, selection, and the order-statistic interval for independent samples. Pure functions.
 */

/** Sorted copy, ascending (a typed-array sort: numeric, and several times faster than a comparator). */
export const sortedAscending = (values: ArrayLike<number>): number[] =>
  Array.from(Float64Array.from(values).sort());

/**
 * The k-th smallest (0-based) of `values`, which it reorders in place (Hoare's selection with a
 * median-of-three pivot): O(n), for statistics computed on every tick of a rung.
 */
export function selectInPlace(values: Float64Array, k: number): number {
  let left = 0;
  let right = values.length - 1;
  while (right > left) {
    const mid = (left + right) >>> 1;
    const a = values[left] as number;
    const b = values[mid] as number;
    const c = values[right] as number;
    const pivot = Math.max(Math.min(a, b), Math.min(Math.max(a, b), c)); // median of three
    let i = left;
    let j = right;
    while (i <= j) {
      while ((values[i] as number) < pivot) i++;
      while ((values[j] as number) > pivot) j--;
      if (i <= j) {
        const t = values[i] as number;
        values[i] = values[j] as number;
        values[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) right = j;
    else if (k >= i) left = i;
    else return values[k] as number;
  }
  return values[k] as number;
}

/**
 * Quantile by linear interpolation between order statistics (Hyndman & Fan type 7, the
 * numpy/R default, which the legacy artifacts used). `sorted` must be ascending.
 */
export function quantileSorted(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  if (q <= 0) return sorted[0] as number;
  if (q >= 1) return sorted[sorted.length - 1] as number;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const fraction = position - below;
  const low = sorted[below] as number;
  const high = sorted[Math.min(below + 1, sorted.length - 1)] as number;
  return low + (high - low) * fraction;
}

export const quantile = (values: readonly number[], q: number): number | null =>
  quantileSorted(sortedAscending(values), q);

export const mean = (values: readonly number[]): number | null =>
  values.length === 0 ? null : values.reduce((sum, v) => sum + v, 0) / values.length;

/** Binomial(n, p) cumulative probabilities P(B <= k) for k = 0..n, computed in log space. */
function binomialCdf(n: number, p: number): Float64Array {
  const cdf = new Float64Array(n + 1);
  const logP = Math.log(p);
  const logQ = Math.log1p(-p);
  let logPmf = n * logQ;
  let total = 0;
  for (let k = 0; k <= n; k++) {
    total += Math.exp(logPmf);
    cdf[k] = Math.min(1, total);
    logPmf += Math.log((n - k) / (k + 1)) + logP - logQ;
  }
  return cdf;
}

export interface QuantileInterval {
  low: number;
  high: number;
  /** Actual coverage of the chosen order statistics (>= the requested confidence). */
  coverage: number;
}

/**
 * Distribution-free confidence interval for the q-quantile of INDEPENDENT samples: the order
 * statistics X(l) and X(u) such that P(X(l) <= true quantile <= X(u)) >= confidence, from the
 * binomial count of samples below the quantile. Returns null when there are too few samples for
 * an interval at this confidence (fewer than 72 for a two-sided 95 % interval of p95).
 * Not valid for closed-loop latencies, whose consecutive samples share their queue (it covers
 * 28-58 % instead of 95 % there): a rung is judged by src/stats/rung-decision.ts. Kept for
 * independent data and as the peer of `npm run bench:coverage`.
 */
export function quantileConfidenceInterval(
  sorted: readonly number[],
  q: number,
  confidence = 0.95,
): QuantileInterval | null {
  const n = sorted.length;
  if (n === 0) return null;
  const alpha = (1 - confidence) / 2;
  const cdf = binomialCdf(n, q);
  const below = (j: number): number => (j <= 0 ? 0 : (cdf[j - 1] as number)); // P(B <= j-1)
  // Largest l (1-based) with P(B <= l-1) <= alpha, smallest u with P(B <= u-1) >= 1-alpha.
  let lowRank = 0;
  for (let j = 1; j <= n; j++) {
    if (below(j) <= alpha) lowRank = j;
    else break;
  }
  let highRank = 0;
  for (let j = 1; j <= n; j++) {
    if (below(j) >= 1 - alpha) {
      highRank = j;
      break;
    }
  }
  if (lowRank === 0 || highRank === 0) return null;
  return {
    low: sorted[lowRank - 1] as number,
    high: sorted[highRank - 1] as number,
    coverage: below(highRank) - below(lowRank),
  };
}

export interface LatencySummary {
  count: number;
  mean: number | null;
  p50: number | null;
  p95: number | null;
  p99: number | null;
  p95Interval: QuantileInterval | null;
}

export function summarize(values: readonly number[]): LatencySummary {
  const sorted = sortedAscending(values);
  return {
    count: sorted.length,
    mean: mean(sorted),
    p50: quantileSorted(sorted, 0.5),
    p95: quantileSorted(sorted, 0.95),
    p99: quantileSorted(sorted, 0.99),
    p95Interval: quantileConfidenceInterval(sorted, 0.95),
  };
}
