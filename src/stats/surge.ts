/**
 * Will one instance survive a surge until the scale-out lands?
 *
 * Queue model (per instance; least-outstanding routing spreads a surge evenly, so one instance
 * stands for the fleet): a birth-death chain on n = requests in flight (queued + executing).
 * - Before the surge the policy holds each instance at its target concurrency, so the run
 *   starts at n0 = round(C_scale_max) with arrivals at lambda0 = X(C_scale_max), the measured
 *   throughput at that concurrency (the rate that keeps n there).
 * - At t = 0 the surge multiplies arrivals by k: Poisson arrivals at rate k * lambda0.
 * - Departures are state-dependent at the measured throughput curve X(n) (interpolated between
 *   usable ladder rungs; flat beyond the last), so a serial server (X flat) and a parallel one
 *   (X rising with n) are both modelled from data, not from an M/M/c assumption.
 * - The container admits at most Q_max requests; an arrival that finds n = Q_max is rejected:
 *   that is an overflow. The run lasts T_plan, the time until new capacity serves.
 * Simulated exactly (Gillespie) with a seeded generator: the same inputs give the same figures
 * on every machine. The fluid (deterministic) time-to-overflow, dn/dt = k*lambda0 - X(n), is
 * returned beside it as the intuition.
 */
import { mulberry32 } from './prng.js';

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

export interface SurgeInput {
  curve: readonly ThroughputPoint[];
  /** C_scale_max: where the policy holds each instance. */
  targetConcurrency: number;
  /** Q_max: the admission bound. */
  queueLimit: number;
  surgeRatio: number;
  horizonS: number;
  trials?: number;
  seed?: number;
}

export interface SurgeResult {
  trials: number;
  overflowTrials: number;
  overflowProbability: number;
  /** Median time to the first rejection among overflowing trials, seconds. */
  medianOverflowS: number | null;
  /** Deterministic time for the fluid queue to reach Q_max; null when it never does. */
  fluidOverflowS: number | null;
  arrivalRate: number;
}

export const DEFAULT_SURGE_TRIALS = 2000;
export const DEFAULT_SURGE_SEED = 0x5ca1e;

export function simulateSurge(input: SurgeInput): SurgeResult {
  const trials = input.trials ?? DEFAULT_SURGE_TRIALS;
  const random = mulberry32(input.seed ?? DEFAULT_SURGE_SEED);
  const baseRate = throughputAt(input.curve, input.targetConcurrency);
  const arrivalRate = input.surgeRatio * baseRate;
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const start = Math.min(limit, Math.max(0, Math.round(input.targetConcurrency)));
  // Departure rate per state, precomputed: the chain only visits 0..limit.
  const departureRate = Array.from({ length: limit + 1 }, (_, n) => throughputAt(input.curve, n));
  const overflowTimes: number[] = [];
  for (let trial = 0; trial < trials; trial++) {
    let n = start;
    let t = 0;
    for (;;) {
      const down = departureRate[n] as number;
      const total = arrivalRate + down;
      if (total <= 0) break;
      // 1 - u is in (0, 1], so the logarithm is finite.
      t += -Math.log(1 - random()) / total;
      if (t > input.horizonS) break;
      if (random() * total < arrivalRate) {
        if (n >= limit) {
          overflowTimes.push(t);
          break;
        }
        n++;
      } else {
        n--;
      }
    }
  }
  overflowTimes.sort((a, b) => a - b);
  return {
    trials,
    overflowTrials: overflowTimes.length,
    overflowProbability: overflowTimes.length / trials,
    medianOverflowS:
      overflowTimes.length > 0 ? (overflowTimes[Math.floor(overflowTimes.length / 2)] as number) : null,
    fluidOverflowS: fluidOverflowTime(input.curve, start, limit, arrivalRate, input.horizonS * 10),
    arrivalRate,
  };
}

/** Integrates dn/dt = arrivals - X(n) from n0 until n reaches the limit (null: it never does). */
export function fluidOverflowTime(
  curve: readonly ThroughputPoint[],
  start: number,
  limit: number,
  arrivalRate: number,
  giveUpAfterS: number,
): number | null {
  let n = start;
  let t = 0;
  const step = 0.001;
  while (n < limit) {
    const growth = arrivalRate - throughputAt(curve, n);
    if (growth <= 0) return null;
    // Advance by at most 1/1000 of a request, or a millisecond: small against any real drain.
    const dt = Math.max(step, 0.001 / growth);
    n += growth * dt;
    t += dt;
    if (t > giveUpAfterS) return null;
  }
  return t;
}
