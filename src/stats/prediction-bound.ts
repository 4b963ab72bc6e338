/**
 * An upper prediction bound for the next observation of a positive duration (T_total, a policy
 * lag) from n repeated observations. Pure.
 *
 * - n = 1: no bound (a single observation says nothing of the spread).
 * - 2 <= n < ORDER_STATISTIC_MIN_N: log-normal, t-based: with y = ln x, mean m and standard
 *   deviation s of the n logs, the bound is exp(m + t(n - 1, level) s sqrt(1 + 1/n)). Exact
 *   coverage `level` when the logs are normal and the observations independent.
 * - n >= ORDER_STATISTIC_MIN_N: distribution-free: the k-th smallest observation with
 *   k = ceil(level (n + 1)) covers the next observation with probability k / (n + 1) >= level for
 *   any continuous distribution (independent, identically distributed observations).
 */
import { studentTQuantile } from './student-t.js';

/** The level every prediction bound is stated at. */
export const PREDICTION_LEVEL = 0.9;
/** From this many observations on, the order statistic (no distribution assumed) is used. */
export const ORDER_STATISTIC_MIN_N = 19;

export type PredictionMethod = 'log-normal-t' | 'order-statistic';

export interface PredictionBound {
  n: number;
  level: number;
  /** null: not available (a single observation). */
  upper: number | null;
  method: PredictionMethod | null;
  /** One line: how the bound was computed, or why there is none. */
  description: string;
}

/** The upper `level` prediction bound for the next of `values` (all > 0). */
export function upperPredictionBound(values: readonly number[], level = PREDICTION_LEVEL): PredictionBound {
  const n = values.length;
  const pct = `${Number((level * 100).toFixed(2))} %`;
  if (n === 0 || values.some((v) => !(v > 0) || !Number.isFinite(v))) {
    throw new RangeError('upperPredictionBound needs at least one positive, finite observation');
  }
  if (n === 1) {
    return {
      n,
      level,
      upper: null,
      method: null,
      description: 'not available: single observation (repeat the measurement for a prediction bound)',
    };
  }
  if (n >= ORDER_STATISTIC_MIN_N) {
    const k = Math.ceil(level * (n + 1));
    const sorted = [...values].sort((a, b) => a - b);
    return {
      n,
      level,
      upper: sorted[Math.min(n, k) - 1] as number,
      method: 'order-statistic',
      description: `upper ${pct} prediction bound, distribution-free: observation ${k} of ${n} in ascending order (coverage ${k}/${n + 1})`,
    };
  }
  const logs = values.map((v) => Math.log(v));
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const sd = Math.sqrt(logs.reduce((a, y) => a + (y - mean) ** 2, 0) / (n - 1));
  const t = studentTQuantile(level, n - 1);
  return {
    n,
    level,
    upper: Math.exp(mean + t * sd * Math.sqrt(1 + 1 / n)),
    method: 'log-normal-t',
    description: `upper ${pct} prediction bound, log-normal: exp(mean + t(${n - 1}, ${level}) sd sqrt(1 + 1/${n})) over the logs of ${n} observations`,
  };
}

/** `bound (upper 90 % prediction, n=3)`: how a plan labels a figure taken from a bound. */
export const predictionBoundLabel = (b: Pick<PredictionBound, 'level' | 'n'>): string =>
  `bound (upper ${Number((b.level * 100).toFixed(2))} % prediction, n=${b.n})`;
