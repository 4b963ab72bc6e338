/**
 * Will one instance survive a surge until the scale-out lands? Computed exactly.
 *
 * Queue model (per instance; least-outstanding routing spreads a surge evenly, so one instance
 * stands for the fleet): a birth-death chain on n = requests in flight (queued + executing),
 * n = 0..Q_max.
 * - Before the surge the policy holds each instance at its target concurrency, so the run
 *   starts at n0 = round(C_scale_max) with arrivals at lambda0 = X(C_scale_max), the measured
 *   throughput at that concurrency (the rate that keeps n there).
 * - At t = 0 the surge multiplies arrivals by k: Poisson arrivals at rate k * lambda0.
 * - Departures are state-dependent at the measured throughput curve X(n) (interpolated between
 *   usable ladder rungs; flat beyond the last), so a serial server (X flat) and a parallel one
 *   (X rising with n) are both modelled from data, not from an M/M/c assumption.
 * - The container admits at most Q_max requests; an arrival that finds n = Q_max is rejected:
 *   that is an overflow. The run lasts T_plan, the time until new capacity serves.
 *
 * The overflow probability within T_plan is a first-passage probability of this finite chain,
 * computed by uniformization (Jensen's method) with the overflow as an absorbing state:
 *   P(no overflow by T) = sum_k Poisson(k; Lambda T) |v0 P^k|,  P = I + Q / Lambda,
 * where Q is the generator restricted to 0..Q_max and |.| the mass still in it. All terms are
 * non-negative (no cancellation); the Poisson tail left out is below 1e-12. The work is bounded
 * whatever the rates: the iteration stops as soon as the mass is absorbed (< 1e-14 left), or as
 * soon as its shape has converged to the quasi-stationary distribution (after which every step
 * multiplies the mass by the same factor r and the rest of the sum has a closed form), or when a
 * work budget runs out, in which case the result is a rigorous LOWER bound, labelled so. The
 * fluid (deterministic) time-to-overflow, dn/dt = k lambda0 - X(n), is returned beside it as the
 * intuition, integrated exactly on the piecewise-linear curve.
 */

export interface ThroughputPoint {
  concurrency: number;
  rps: number;
}

/** Linear interpolation of X(n) between measured points; X(0) = 0; flat beyond the ends. */
export function throughputAt(curve: readonly ThroughputPoint[], concurrency: number): number {
  if (curve.length === 0 || concurrency <= 0) return 0;
  const first = curve[0] as ThroughputPoint;
  if (concurrency <= first.concurrency) {
    // Below the first rung throughput falls to 0 at n = 0 (an idle server serves nothing).
    return (first.rps * concurrency) / first.concurrency;
  }
  for (let i = 1; i < curve.length; i++) {
    const low = curve[i - 1] as ThroughputPoint;
    const high = curve[i] as ThroughputPoint;
    if (concurrency <= high.concurrency) {
      const fraction = (concurrency - low.concurrency) / (high.concurrency - low.concurrency);
      return low.rps + (high.rps - low.rps) * fraction;
    }
  }
  return (curve[curve.length - 1] as ThroughputPoint).rps;
}

/** State-updates one overflow computation may spend (~20 ms): `plan` stays well under 1 s. */
export const DEFAULT_WORK_BUDGET = 10_000_000;
const POISSON_TAIL = 1e-12;
const ABSORBED = 1e-14;
const SHAPE_CONVERGED = 1e-12;

export interface OverflowInput {
  curve: readonly ThroughputPoint[];
  /** Q_max: the admission bound (states 0..floor(queueLimit)). */
  queueLimit: number;
  /** Poisson arrival rate during the horizon, requests/s. */
  arrivalRate: number;
  /** The state at t = 0, or a distribution over 0..Q_max. */
  start: number | Float64Array;
  horizonS: number;
}

export type OverflowMethod = 'uniformization' | 'uniformization-lower-bound';

export interface OverflowResult {
  /** P(an arrival finds Q_max in flight within the horizon); a lower bound when !exact. */
  probability: number;
  /** false: the work budget ran out; `probability` is a lower bound, `upperBound` the upper. */
  exact: boolean;
  upperBound: number;
  method: OverflowMethod;
  /** Uniformization steps taken, states, and their product (the work). */
  steps: number;
  states: number;
  work: number;
  /** How the iteration ended. */
  ended: 'absorbed' | 'quasi-stationary' | 'horizon' | 'budget' | 'no-arrivals';
}

/** log P(X >= k) for X ~ Poisson(mean), k >= 0, summed in log space (O(k + sqrt(mean)) terms). */
function logPoissonUpperTail(mean: number, k: number): number {
  if (k <= 0) return 0;
  if (mean <= 0) return Number.NEGATIVE_INFINITY;
  const logMean = Math.log(mean);
  // log pmf at j, incrementally from j = 0.
  if (k > mean) {
    // Upper tail directly: terms fall geometrically past the mode.
    let lp = -mean;
    for (let j = 1; j <= k; j++) lp += logMean - Math.log(j);
    let sum = 0;
    let term = 1;
    for (let j = k; term > 1e-17 * sum || sum === 0; j++) {
      sum += term;
      term *= mean / (j + 1);
      if (j > k + 1e7) break;
    }
    return lp + Math.log(sum);
  }
  // 1 - lower tail; the lower tail summed relative to its largest term (j = k - 1, as k <= mean).
  const logs = new Float64Array(k);
  let lp = -mean;
  for (let j = 0; j < k; j++) {
    if (j > 0) lp += logMean - Math.log(j);
    logs[j] = lp;
  }
  const top = logs[k - 1] as number;
  let sum = 0;
  for (const l of logs) sum += Math.exp(l - top);
  const lower = Math.exp(top) * sum;
  return Math.log(Math.max(0, 1 - lower));
}

/**
 * The overflow probability of the chain within the horizon, by uniformization. Deterministic;
 * the work is at most `workBudget` state-updates.
 */
export function overflowProbability(
  input: OverflowInput,
  options: { workBudget?: number } = {},
): OverflowResult {
  const budget = options.workBudget ?? DEFAULT_WORK_BUDGET;
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const states = limit + 1;
  const lambda = input.arrivalRate;
  let v = new Float64Array(states);
  if (typeof input.start === 'number') {
    v[Math.min(limit, Math.max(0, Math.round(input.start)))] = 1;
  } else {
    let total = 0;
    for (let n = 0; n < states; n++) total += input.start[n] ?? 0;
    for (let n = 0; n < states; n++) v[n] = (input.start[n] ?? 0) / total;
  }
  const base = { states, method: 'uniformization' as const };
  if (!(lambda > 0) || !(input.horizonS > 0)) {
    return { ...base, probability: 0, exact: true, upperBound: 0, steps: 0, work: 0, ended: 'no-arrivals' };
  }
  const mu = new Float64Array(states);
  let muMax = 0;
  for (let n = 1; n < states; n++) {
    mu[n] = throughputAt(input.curve, n);
    if ((mu[n] as number) > muMax) muMax = mu[n] as number;
  }
  // 5 % above the fastest total rate: every state keeps a self-loop, so the chain is aperiodic
  // and its shape converges (a flat curve would otherwise make it alternate between parities).
  const Lambda = 1.05 * (lambda + muMax);
  const up = lambda / Lambda;
  const down = new Float64Array(states);
  const stay = new Float64Array(states);
  for (let n = 0; n < states; n++) {
    down[n] = (mu[n] as number) / Lambda;
    stay[n] = 1 - up - (down[n] as number);
  }
  const mean = Lambda * input.horizonS;
  const logMean = Math.log(mean);
  let logWeight = -mean; // log Poisson(k; mean), k = 0
  let weightSum = 0;
  let survival = 0; // sum_k w_k |v_k|
  let mass = 1;
  let next = new Float64Array(states);
  const maxSteps = Math.max(1, Math.floor(budget / states));
  let k = 0;
  const finish = (
    probability: number,
    upperBound: number,
    exact: boolean,
    ended: OverflowResult['ended'],
  ) => ({
    ...base,
    method: exact ? ('uniformization' as const) : ('uniformization-lower-bound' as const),
    probability: Math.min(1, Math.max(0, probability)),
    upperBound: Math.min(1, Math.max(0, upperBound)),
    exact,
    steps: k,
    work: k * states,
    ended,
  });
  for (;;) {
    const weight = Math.exp(logWeight);
    survival += weight * mass;
    weightSum += weight;
    if (k >= mean && 1 - weightSum <= POISSON_TAIL) {
      // Every step left carries at most the Poisson mass left (< 1e-12).
      return finish(1 - survival, 1 - survival, true, 'horizon');
    }
    if (mass < ABSORBED) {
      // The rest of the sum is at most (1 - weightSum) * mass < 1e-14.
      return finish(1 - survival, 1 - survival, true, 'absorbed');
    }
    if (k >= maxSteps) {
      // |v_j| <= |v_k| for j > k: the unseen terms are at most (1 - weightSum) * mass.
      const survivalHigh = survival + Math.max(0, 1 - weightSum) * mass;
      return finish(1 - survivalHigh, 1 - survival, false, 'budget');
    }
    // One step of the uniformized chain; an arrival at Q_max leaves (the overflow).
    next[0] = (v[0] as number) * (stay[0] as number) + (v[1] as number) * (down[1] as number);
    for (let n = 1; n < limit; n++) {
      next[n] =
        (v[n] as number) * (stay[n] as number) +
        (v[n - 1] as number) * up +
        (v[n + 1] as number) * (down[n + 1] as number);
    }
    next[limit] = (v[limit] as number) * (stay[limit] as number) + (v[limit - 1] as number) * up;
    let nextMass = 0;
    for (let n = 0; n < states; n++) nextMass += next[n] as number;
    // Every 16 steps: has the shape converged? From then on each step multiplies the mass by the
    // same ratio r, and the rest of the sum has a closed form.
    let converged = false;
    if ((k & 15) === 15 && k > states && nextMass > 0) {
      let shapeChange = 0;
      for (let n = 0; n < states; n++) {
        shapeChange += Math.abs((next[n] as number) / nextMass - (v[n] as number) / mass);
      }
      converged = shapeChange < SHAPE_CONVERGED;
    }
    const ratio = nextMass / mass;
    [v, next] = [next, v];
    k++;
    logWeight += logMean - Math.log(k);
    mass = nextMass;
    if (converged) {
      // sum_{j >= k} w_j mass r^(j-k) = mass r^-k e^(-mean (1 - r)) P(Poisson(mean r) >= k).
      const r = ratio;
      const logTail = Math.log(mass) - k * Math.log(r) - mean * (1 - r) + logPoissonUpperTail(mean * r, k);
      const tail = Math.exp(logTail);
      return finish(1 - (survival + tail), 1 - (survival + tail), true, 'quasi-stationary');
    }
  }
}

/**
 * Stationary distribution of the chain with arrivals at `arrivalRate` (arrivals at Q_max turned
 * away): the state a fleet sits in before a surge when it is held at that load.
 */
export function stationaryDistribution(
  curve: readonly ThroughputPoint[],
  queueLimit: number,
  arrivalRate: number,
): Float64Array {
  const limit = Math.max(1, Math.floor(queueLimit));
  const logs = new Float64Array(limit + 1);
  for (let n = 1; n <= limit; n++) {
    const mu = throughputAt(curve, n);
    logs[n] = (logs[n - 1] as number) + (mu > 0 ? Math.log(arrivalRate / mu) : Number.POSITIVE_INFINITY);
  }
  let top = Number.NEGATIVE_INFINITY;
  for (const l of logs) if (l > top) top = l;
  const pi = new Float64Array(limit + 1);
  let total = 0;
  for (let n = 0; n <= limit; n++) {
    pi[n] = Number.isFinite(top) ? Math.exp((logs[n] as number) - top) : n === limit ? 1 : 0;
    total += pi[n] as number;
  }
  for (let n = 0; n <= limit; n++) pi[n] = (pi[n] as number) / total;
  return pi;
}

/**
 * Exact time for the fluid queue dn/dt = arrivalRate - X(n) to rise from `start` to `limit`; null
 * when it never does (or not within `giveUpAfterS`). X is piecewise linear in n, so each piece
 * integrates in closed form: O(number of rungs), whatever the rates.
 */
export function fluidOverflowTime(
  curve: readonly ThroughputPoint[],
  start: number,
  limit: number,
  arrivalRate: number,
  giveUpAfterS: number,
): number | null {
  if (start >= limit) return 0;
  // Breakpoints of X(n): 0, every rung, then flat.
  const knots = [0, ...curve.map((p) => p.concurrency)].filter(
    (c, i, all) => i === 0 || c > (all[i - 1] as number),
  );
  let n = start;
  let t = 0;
  while (n < limit) {
    const nextKnot = knots.find((c) => c > n) ?? Number.POSITIVE_INFINITY;
    const end = Math.min(limit, nextKnot);
    const x0 = throughputAt(curve, n);
    const x1 = throughputAt(curve, end);
    const g0 = arrivalRate - x0;
    const g1 = arrivalRate - x1;
    if (g0 <= 0) return null;
    if (g1 <= 0) return null; // growth reaches 0 inside this piece: the fluid stops below the limit
    const slope = (x1 - x0) / (end - n); // X(m) = x0 + slope (m - n)
    t += Math.abs(slope) < 1e-15 ? (end - n) / g0 : Math.log(g0 / g1) / slope;
    if (t > giveUpAfterS) return null;
    n = end;
  }
  return t;
}

/** Above this overflow probability within T_plan a surge is a warning. */
export const SURGE_OVERFLOW_WARN = 0.1;
const BISECTION_STEPS = 8;

export interface SurgeInput {
  curve: readonly ThroughputPoint[];
  /** C_scale_max: where the policy holds each instance. */
  targetConcurrency: number;
  /** Q_max: the admission bound. */
  queueLimit: number;
  surgeRatio: number;
  horizonS: number;
  /** Overflow probability the plan tolerates (default 10 %). */
  warnAbove?: number;
  workBudget?: number;
}

export interface SurgeAnalysis {
  /** In-flight requests the chain and the fluid start from: round(C_scale_max), within 0..Q_max. */
  start: number;
  /** lambda0 = X(C_scale_max): the arrival rate that holds the target. */
  baseRate: number;
  /** k * lambda0. */
  arrivalRate: number;
  /** The most this server completes within the admission bound: max X(n), n <= Q_max. */
  capacityRps: number;
  /** lambda0 / capacityRps: how busy the target keeps it. */
  utilization: number;
  /** Lowest concurrency at which X(n) reaches 99 % of capacityRps (a target there runs it flat out). */
  saturationConcurrency: number;
  surge: OverflowResult;
  /** The same with no surge (k = 1): what the target alone does. */
  baseline: OverflowResult;
  fluidOverflowS: number | null;
  /**
   * none: within tolerance; surge: the surge overflows, the target alone does not; no-headroom:
   * the target alone overflows, with or without a surge.
   */
  cause: 'none' | 'surge' | 'no-headroom';
  /** cause surge: the largest surge ratio (down to 1.00) the plan survives within T_plan. */
  survivableSurgeRatio: number | null;
  /**
   * cause no-headroom: the highest share of capacityRps each instance may be held at (from its
   * stationary state at that load) so that even the k surge stays within tolerance.
   */
  headroomUtilization: number | null;
  /** Overflow computations done and their total work (state-updates): bounded for any input. */
  evaluations: number;
  work: number;
  exact: boolean;
}

/**
 * The surge, the no-surge baseline beside it, the cause, and the change that would bring the
 * probability within tolerance. At most 2 + 8 overflow computations, each within its budget.
 */
export function analyzeSurge(input: SurgeInput): SurgeAnalysis {
  const warn = input.warnAbove ?? SURGE_OVERFLOW_WARN;
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const start = Math.min(limit, Math.max(0, Math.round(input.targetConcurrency)));
  const baseRate = throughputAt(input.curve, input.targetConcurrency);
  let capacityRps = 0;
  for (let n = 1; n <= limit; n++) capacityRps = Math.max(capacityRps, throughputAt(input.curve, n));
  let saturationConcurrency = limit;
  for (let n = limit; n >= 1; n--)
    if (throughputAt(input.curve, n) >= 0.99 * capacityRps) saturationConcurrency = n;
  let evaluations = 0;
  let work = 0;
  let exact = true;
  const overflow = (arrivalRate: number, from: number | Float64Array): OverflowResult => {
    const result = overflowProbability(
      { curve: input.curve, queueLimit: limit, arrivalRate, start: from, horizonS: input.horizonS },
      { workBudget: input.workBudget },
    );
    evaluations++;
    work += result.work;
    return result;
  };
  const surge = overflow(input.surgeRatio * baseRate, start);
  const baseline = overflow(baseRate, start);
  exact = surge.exact && baseline.exact;
  // Causes are named from lower bounds: a probability that is only bounded is never overstated.
  let cause: SurgeAnalysis['cause'] = 'none';
  let survivableSurgeRatio: number | null = null;
  let headroomUtilization: number | null = null;
  if (baseline.probability > warn) {
    cause = 'no-headroom';
    // Largest u with P(overflow | held at u * capacity, then a k surge) <= warn; P rises with u.
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < BISECTION_STEPS; i++) {
      const u = (lo + hi) / 2;
      const held = stationaryDistribution(input.curve, limit, u * capacityRps);
      // Judged on the upper bound: a recommendation must hold even where the budget ran out.
      if (overflow(input.surgeRatio * u * capacityRps, held).upperBound <= warn) lo = u;
      else hi = u;
    }
    headroomUtilization = lo;
  } else if (surge.probability > warn) {
    cause = 'surge';
    let lo = 1;
    let hi = input.surgeRatio;
    for (let i = 0; i < BISECTION_STEPS; i++) {
      const k = (lo + hi) / 2;
      if (overflow(k * baseRate, start).upperBound <= warn) lo = k;
      else hi = k;
    }
    survivableSurgeRatio = lo;
  }
  return {
    start,
    baseRate,
    arrivalRate: input.surgeRatio * baseRate,
    capacityRps,
    utilization: capacityRps > 0 ? baseRate / capacityRps : 0,
    saturationConcurrency,
    surge,
    baseline,
    fluidOverflowS: fluidOverflowTime(
      input.curve,
      start,
      limit,
      input.surgeRatio * baseRate,
      input.horizonS * 10,
    ),
    cause,
    survivableSurgeRatio,
    headroomUtilization,
    evaluations,
    work,
    exact,
  };
}

/**
 * The distribution of requests in flight after `horizonS` of Poisson arrivals at `arrivalRate`,
 * from `start` (arrivals at Q_max turned away, no absorption), by uniformization. Where the
 * work budget runs out the stationary distribution at the same rate is returned instead: it is
 * stochastically larger than any state reached from a lighter load, so never optimistic.
 */
export function transientDistribution(
  input: OverflowInput,
  options: { workBudget?: number } = {},
): { distribution: Float64Array; exact: boolean } {
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const states = limit + 1;
  const lambda = input.arrivalRate;
  let v = new Float64Array(states);
  if (typeof input.start === 'number') v[Math.min(limit, Math.max(0, Math.round(input.start)))] = 1;
  else for (let n = 0; n < states; n++) v[n] = input.start[n] ?? 0;
  if (!(lambda > 0) || !(input.horizonS > 0)) return { distribution: v, exact: true };
  const mu = new Float64Array(states);
  let muMax = 0;
  for (let n = 1; n < states; n++) {
    mu[n] = throughputAt(input.curve, n);
    muMax = Math.max(muMax, mu[n] as number);
  }
  const Lambda = 1.05 * (lambda + muMax);
  const mean = Lambda * input.horizonS;
  const budget = options.workBudget ?? DEFAULT_WORK_BUDGET;
  if (mean * states > budget) {
    return { distribution: stationaryDistribution(input.curve, limit, lambda), exact: false };
  }
  const up = lambda / Lambda;
  const out = new Float64Array(states);
  let next = new Float64Array(states);
  let logWeight = -mean;
  let weightSum = 0;
  const logMean = Math.log(mean);
  for (let k = 0; ; k++) {
    const weight = Math.exp(logWeight);
    for (let n = 0; n < states; n++) out[n] = (out[n] as number) + weight * (v[n] as number);
    weightSum += weight;
    // Past mean + 12 sd the Poisson tail is below 1e-30 (the sum's rounding may never reach 1e-12).
    if (k >= mean && (1 - weightSum <= POISSON_TAIL || k > mean + 12 * Math.sqrt(mean) + 20)) break;
    for (let n = 0; n < states; n++) {
      const down = (mu[n] as number) / Lambda;
      const upHere = n < limit ? up : 0; // at Q_max an arrival is turned away: no move
      const stay = 1 - upHere - down;
      next[n] = (v[n] as number) * stay;
    }
    for (let n = 0; n < limit; n++) next[n + 1] = (next[n + 1] as number) + (v[n] as number) * up;
    for (let n = 1; n < states; n++)
      next[n - 1] = (next[n - 1] as number) + (v[n] as number) * ((mu[n] as number) / Lambda);
    [v, next] = [next, v];
    logWeight += logMean - Math.log(k + 1);
  }
  let total = 0;
  for (let n = 0; n < states; n++) total += out[n] as number;
  for (let n = 0; n < states; n++) out[n] = (out[n] as number) / total;
  return { distribution: out, exact: true };
}
