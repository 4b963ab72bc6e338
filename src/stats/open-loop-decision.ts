/**
 * Is the p95 TTFAB (from the intended send time) of one open-loop rung within the SLO? The
 * batch-sectioning decision of src/stats/rung-decision.ts, with batches cut for open-loop data.
 * Pure.
 *
 * The data. Arrivals are independent of the server, but latencies are not independent of each
 * other: a request that arrives behind a queue waits for all of it, so consecutive latencies
 * share their queue, and the queue forgets its state only over many arrivals. How many is set by
 * the load, not by a concurrency the client chose: in heavy traffic a single-server queue's
 * waiting time behaves like a reflected Brownian motion whose spatial scale (the mean number in
 * system L, Little) grows like 1/(1 - rho) while its time scale (relaxation time) grows like
 * 1/(1 - rho)^2 (M/M/1: 1/(mu (1 - sqrt rho)^2); in arrivals about 4 L^2). So the correlation
 * reaches about L^2 arrivals, not L: batches of a few L (the closed loop's 4 N with L for N) are
 * far too short near saturation, exactly where lambda_max is decided (coverage 64 % at rho 0.9 in
 * simulation), and a fixed time span would be too short there and needlessly long at light load.
 *
 * The rule. The correlation length is kappa = (1 + L)^2 arrivals, L measured on the rung itself
 * (sum of the in-system times of its arrivals / window seconds). The window is cut into exactly
 * 5 batches of consecutive histogram windows (intended send time), each of at least
 * BATCH_CORRELATIONS x kappa samples; with fewer there is no interval and the rung is undecided,
 * never a pass. Five batches, the longest the window allows: the tail of a p95 from queueing data
 * converges slowly (a few long busy periods decide it), and Student's t with 4 degrees of freedom
 * absorbs what is left of the batches' dependence.
 * The interval is sectioning on the log scale (latencies are positive and the spread of a p95
 * grows with its level; on the linear scale the upper end fell below the truth 5-9 % of the time
 * for a nominal 1.25 %):
 *     centre = ln p95(window), se^2 = sum (ln q_i - centre)^2 / (b - 1) / (1 - kappa/m) / b
 *     [exp(centre - t(4, 1 - 0.9 alpha) se), exp(centre + t(4, 1 - 0.1 alpha) se)]
 * The upper side, the one a false pass depends on, gets a tenth of the two-sided alpha 0.05: the
 * window's p95 is skewed low (a window that caught fewer long busy periods looks both faster and
 * tighter), so the upper end undershoots more often than it says. One look at the end of the
 * hold (a goodput rung has a fixed hold: no optional stopping).
 *
 * A fail needs less. A false fail happens only when the true p95 is at most the SLO, and then
 * the queue is no longer than one whose latencies are scaled down until its p95 is the SLO
 * (Little: L scales with the latencies), so for refuting the SLO the correlation length is taken
 * at L_null = L x min(1, SLO / p95). An overloaded rung, whose queue (and L) keeps growing, is
 * thus decided a fail on the queue the SLO allows, instead of staying undecided for ever; a pass
 * always needs the measured L.
 *
 * Batches are made of whole windows so that the decision reads the artifact's serialised HDR
 * windows, and merged shards are decided exactly as a single process.
 *
 * Proven by simulation: test/stats/open-loop-decision-coverage.test.ts (a reduced grid) and
 * `npm run bench:coverage-openloop` (M/D/k and M/G/k servers, 1 and 4 slots, rho 0.5-0.95).
 */
import { MIN_BATCH_SAMPLES } from './rung-decision.js';
import { studentTQuantile } from './student-t.js';

export const OPEN_LOOP_DECISION_METHOD = 'batch-sectioning-open-loop';
/** A batch lasts at least this many correlation lengths kappa = (1 + L)^2. */
export const BATCH_CORRELATIONS = 30;
/** The window is cut into exactly this many batches. */
export const OPEN_LOOP_BATCHES = 5;
/** Two-sided alpha of the one look. */
export const OPEN_LOOP_ALPHA = 0.05;
/** Share of alpha spent above the interval (the side a false pass depends on). */
export const OPEN_LOOP_UPPER_SHARE = 0.1;
export const DEFAULT_OPEN_MIN_SAMPLES = 100;

/** A rung's ok samples, in consecutive windows of intended send time. */
export interface WindowedSamples {
  /** Samples per window, in window order. */
  counts: readonly number[];
  /** The q-quantile of windows [from, to) together (null when they hold no sample). */
  quantile(from: number, to: number, q: number): number | null;
  /** Mean number of requests in the system over the window (Little: sum of in-system times / seconds). */
  meanInSystem: number;
}

export interface OpenLoopDecisionSettings {
  sloMs: number;
  /** Fewer samples than this: never decisive. @default 100 */
  minSamples?: number;
  /** Two-sided alpha. @default 0.05 */
  alpha?: number;
  /** Correlation lengths per batch (the benchmark varies it to show why 30). @default BATCH_CORRELATIONS */
  batchCorrelations?: number;
}

export interface OpenLoopDecision {
  method: typeof OPEN_LOOP_DECISION_METHOD;
  n: number;
  p95: number | null;
  interval: { low: number; high: number } | null;
  level: number;
  verdict: 'pass' | 'fail' | 'undecided';
  /** Effective sample size: the number of batches (0 without an interval). */
  batches: number;
  /** Mean batch length, samples. */
  batchSize: number;
  /** The shortest batch the rule accepts for this rung, samples. */
  minBatchSize: number;
  meanInSystem: number;
  /** kappa = (1 + L)^2, arrivals. */
  correlationLength: number;
  /**
   * `two-sided`: batches long enough for the measured L (pass or fail); `refute-only`: long
   * enough only for the queue the SLO allows (a fail is decisive, a pass is not); null: no interval.
   */
  scope: 'two-sided' | 'refute-only' | null;
  reason: string;
}

export const correlationLength = (meanInSystem: number): number => (1 + Math.max(0, meanInSystem)) ** 2;

export const openLoopMinBatch = (meanInSystem: number, batchCorrelations = BATCH_CORRELATIONS): number =>
  Math.max(MIN_BATCH_SAMPLES, Math.ceil(batchCorrelations * correlationLength(meanInSystem)));

/**
 * Cuts the windows into b groups of about n / b samples each (boundaries at the first window whose
 * cumulative count reaches i n / b); returns the window index boundaries (b + 1 of them).
 */
export function windowBatches(counts: readonly number[], b: number): number[] {
  const n = counts.reduce((a, c) => a + c, 0);
  const bounds = [0];
  let cumulative = 0;
  let next = 1;
  for (let w = 0; w < counts.length && next < b; w++) {
    cumulative += counts[w] as number;
    if (cumulative >= (next * n) / b) {
      bounds.push(w + 1);
      while (next < b && cumulative >= (next * n) / b) next++;
    }
  }
  bounds.push(counts.length);
  return [...new Set(bounds)];
}

const fmtMs = (v: number): string => `${v.toFixed(1)} ms`;

export function decideOpenLoopP95(
  data: WindowedSamples,
  settings: OpenLoopDecisionSettings,
): OpenLoopDecision {
  const { sloMs } = settings;
  const alpha = settings.alpha ?? OPEN_LOOP_ALPHA;
  const minSamples = Math.max(1, settings.minSamples ?? DEFAULT_OPEN_MIN_SAMPLES);
  const n = data.counts.reduce((a, c) => a + c, 0);
  const L = data.meanInSystem;
  const kappa = correlationLength(L);
  const c = settings.batchCorrelations ?? BATCH_CORRELATIONS;
  const shortest = openLoopMinBatch(L, c);
  const p95 = n > 0 ? data.quantile(0, data.counts.length, 0.95) : null;
  const base = {
    method: OPEN_LOOP_DECISION_METHOD,
    n,
    p95,
    level: 1 - alpha,
    meanInSystem: L,
    correlationLength: kappa,
    minBatchSize: shortest,
  } as const;
  const rule = `${OPEN_LOOP_BATCHES} batches of >= ${shortest} samples (${c} x (1 + L)^2, L = ${L.toFixed(2)} in system)`;
  const undecided = (reason: string): OpenLoopDecision => ({
    ...base,
    interval: null,
    scope: null,
    verdict: 'undecided',
    batches: 0,
    batchSize: 0,
    reason,
  });
  const tooFew = `${n} samples: too few for ${rule}; no interval, undecided (a longer --hold-s decides it)`;
  if (p95 === null) return undecided(tooFew);
  // The queue a p95 at the SLO would imply: enough to refute the SLO (see above).
  const nullL = p95 > sloMs ? L * (sloMs / p95) : L;
  const refuteOnly = n < OPEN_LOOP_BATCHES * shortest;
  const shortestNull = openLoopMinBatch(nullL, c);
  if (refuteOnly && n < OPEN_LOOP_BATCHES * shortestNull) return undecided(tooFew);
  const needed = refuteOnly ? shortestNull : shortest;
  const bounds = windowBatches(data.counts, OPEN_LOOP_BATCHES);
  const logQuantiles: number[] = [];
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const from = bounds[i] as number;
    const to = bounds[i + 1] as number;
    const size = data.counts.slice(from, to).reduce((a, k) => a + k, 0);
    const q = data.quantile(from, to, 0.95);
    if (q === null || size === 0) continue;
    smallest = Math.min(smallest, size);
    logQuantiles.push(Math.log(Math.max(q, 1e-6)));
  }
  const b = logQuantiles.length;
  // Windows are coarse at high rates: a batch may come out shorter than the rule wants.
  if (b < OPEN_LOOP_BATCHES || smallest < needed / 2) return undecided(tooFew);
  const m = n / b;
  const kappaUsed = refuteOnly ? correlationLength(nullL) : kappa;
  const centre = Math.log(Math.max(p95, 1e-6));
  let sumSquares = 0;
  for (const q of logQuantiles) sumSquares += (q - centre) ** 2;
  const se = Math.sqrt(sumSquares / (b - 1) / (1 - Math.min(0.5, kappaUsed / m)) / b);
  const interval = {
    low: Math.exp(centre - studentTQuantile(1 - (1 - OPEN_LOOP_UPPER_SHARE) * alpha, b - 1) * se),
    high: Math.exp(centre + studentTQuantile(1 - OPEN_LOOP_UPPER_SHARE * alpha, b - 1) * se),
  };
  const how = refuteOnly
    ? `${b} batches of ${Math.round(m)} samples: enough only to refute the SLO (>= ${shortestNull} for the queue a p95 at the SLO allows, L = ${nullL.toFixed(2)}; a pass needs >= ${shortest}, L = ${L.toFixed(2)} measured)`
    : `${b} batches of ${Math.round(m)} samples, >= ${shortest}: ${c} x (1 + L)^2, L = ${L.toFixed(2)}`;
  const ci = `p95 ${((1 - alpha) * 100).toFixed(0)} % CI [${fmtMs(interval.low)}, ${fmtMs(interval.high)}] (${how})`;
  let verdict: OpenLoopDecision['verdict'] = 'undecided';
  let reason: string;
  if (interval.high <= sloMs && !refuteOnly) {
    verdict = 'pass';
    reason = `${ci} within the ${sloMs} ms SLO`;
  } else if (interval.low > sloMs) {
    verdict = 'fail';
    reason = `${ci} above the ${sloMs} ms SLO`;
  } else if (refuteOnly) {
    reason = `${ci} does not refute the ${sloMs} ms SLO, and a pass needs longer batches: undecided`;
  } else {
    reason = `${ci} straddles the ${sloMs} ms SLO`;
  }
  if (verdict !== 'undecided' && n < minSamples) {
    reason += ` (only ${n} samples, minimum ${minSamples}: undecided)`;
    verdict = 'undecided';
  }
  return {
    ...base,
    interval,
    scope: refuteOnly ? 'refute-only' : 'two-sided',
    verdict,
    batches: b,
    batchSize: m,
    minBatchSize: needed,
    reason,
  };
}
