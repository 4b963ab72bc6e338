/**
 * Arrival times from a trace: Poisson arrivals at a piecewise-constant rate (seeded: the same seed
 * gives the same arrivals), or the recorded request times as they are.
 */
import { mulberry32 } from '../stats/prng.js';
import type { SimArrivals } from './types.js';

/** Returns the next arrival time in seconds (Infinity after the last). */
export function arrivalStream(arrivals: SimArrivals, seed: number): () => number {
  if (arrivals.kind === 'timestamps') {
    const times = arrivals.times;
    let i = 0;
    return () => (i < times.length ? (times[i++] as number) : Number.POSITIVE_INFINITY);
  }
  const random = mulberry32(seed);
  const rows = arrivals.rows;
  let row = 0;
  let t = rows.length > 0 ? (rows[0] as { t_s: number }).t_s : Number.POSITIVE_INFINITY;
  const endOf = (k: number): number =>
    Math.min(
      k + 1 < rows.length ? (rows[k + 1] as { t_s: number }).t_s : arrivals.durationS,
      arrivals.durationS,
    );
  return () => {
    while (row < rows.length) {
      const rate = (rows[row] as { rps: number }).rps;
      const end = endOf(row);
      if (rate > 0) {
        // Exponential gap; memoryless, so a gap that crosses the row's end restarts there.
        const next = t - Math.log(1 - random()) / rate;
        if (next < end) {
          t = next;
          return t;
        }
      }
      row += 1;
      t = end;
    }
    return Number.POSITIVE_INFINITY;
  };
}

/** The rate in force at t (requests/s): the row whose span holds t. */
export function rateRowsAt(rows: readonly { t_s: number; rps: number }[], t: number): number {
  let lo = 0;
  let hi = rows.length - 1;
  if (hi < 0 || t < (rows[0] as { t_s: number }).t_s) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((rows[mid] as { t_s: number }).t_s <= t) lo = mid;
    else hi = mid - 1;
  }
  return (rows[lo] as { rps: number }).rps;
}

/**
 * The rate over time as rows, for the perfect fleet: a rate trace as it is; recorded times counted
 * per `binS` seconds.
 */
export function rateRows(arrivals: SimArrivals, binS = 60): { t_s: number; rps: number }[] {
  if (arrivals.kind === 'rate') return [...arrivals.rows];
  const bins = Math.max(1, Math.ceil(arrivals.durationS / binS));
  const counts = new Float64Array(bins);
  for (const t of arrivals.times) {
    const k = Math.min(bins - 1, Math.floor(t / binS));
    counts[k] = (counts[k] as number) + 1;
  }
  return Array.from(counts, (c, k) => ({ t_s: k * binS, rps: c / binS }));
}
