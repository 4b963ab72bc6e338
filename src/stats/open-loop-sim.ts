/**
 * A seeded, pure simulator of the open loop: Poisson arrivals at a fixed rate into a FIFO server
 * with `slots` parallel slots (1 = serial) and lognormal service times (CV 0: deterministic, the
 * M/D/k server). Arrivals do not wait for each other, so a slow request delays every one queued
 * behind it and consecutive latencies share their queue: the data a goodput rung is judged on.
 *
 * TTFAB here is the time from the arrival (the intended send time) to completion, as in
 * closed-loop-sim.ts: a streaming server sends its first byte earlier by part of one service
 * time, which shifts the scale, not the dependence between consecutive samples.
 *
 * Used to prove the open-loop rung decision (src/stats/open-loop-decision.ts), to compute the true
 * p95 of a configuration from a long run, and the true rate at which it reaches an SLO.
 */
import { lognormalSampler, type SimulatedServer } from './closed-loop-sim.js';
import type { WindowedSamples } from './open-loop-decision.js';
import { mulberry32 } from './prng.js';
import { quantileSorted } from './quantiles.js';

export type { SimulatedServer } from './closed-loop-sim.js';

export interface OpenLoopRun {
  /** Poisson arrival rate, requests/s. */
  ratePerS: number;
  /** Arrivals are generated in [0, durationS); every one is served to completion. */
  durationS: number;
  seed: number;
}

export interface OpenLoopSamples {
  /** Arrival (intended send) instants, ms, ascending. */
  atMs: Float64Array;
  /** Arrival to completion of each request, ms, in arrival order. */
  ttfabMs: Float64Array;
}

/**
 * Runs the open loop from an empty server. Arrival k comes at E_1 + ... + E_k over the rate
 * (unit exponentials from one seeded stream) and draws its service time from a second stream,
 * so two runs with the same seed at different rates see the same requests, only closer together
 * (common random numbers: the latency of every request grows with the rate, which makes the
 * search for the rate at an SLO a clean bisection).
 */
export function simulateOpenLoop(server: SimulatedServer, run: OpenLoopRun): OpenLoopSamples {
  const { slots } = server;
  if (!Number.isInteger(slots) || slots < 1) throw new Error('slots must be a positive integer');
  if (!(run.ratePerS > 0)) throw new Error('the arrival rate must be positive');
  const arrivalsRandom = mulberry32(run.seed);
  const service = lognormalSampler(server.meanServiceMs, server.serviceCv, mulberry32(run.seed ^ 0x5eed));
  const horizonMs = run.durationS * 1000;
  const meanGapMs = 1000 / run.ratePerS;
  const expected = Math.ceil((horizonMs / meanGapMs) * 1.1) + 64;
  let atMs = new Float64Array(expected);
  let ttfabMs = new Float64Array(expected);
  // When each slot is next free (FIFO: each arrival, in order, takes the slot that frees first).
  const freeAt = new Float64Array(slots);
  let count = 0;
  let t = 0;
  for (;;) {
    t += -Math.log(1 - arrivalsRandom()) * meanGapMs;
    if (t >= horizonMs) break;
    let slot = 0;
    for (let s = 1; s < slots; s++) if ((freeAt[s] as number) < (freeAt[slot] as number)) slot = s;
    const start = Math.max(t, freeAt[slot] as number);
    const done = start + service();
    freeAt[slot] = done;
    if (count === atMs.length) {
      const grow = (a: Float64Array) => {
        const b = new Float64Array(a.length * 2);
        b.set(a);
        return b;
      };
      atMs = grow(atMs);
      ttfabMs = grow(ttfabMs);
    }
    atMs[count] = t;
    ttfabMs[count] = done - t;
    count++;
  }
  return { atMs: atMs.subarray(0, count), ttfabMs: ttfabMs.subarray(0, count) };
}

const capacityPerS = (server: SimulatedServer): number => (server.slots * 1000) / server.meanServiceMs;

/**
 * The true p95 at `ratePerS`: the p95 of one long run of the same simulator (default 2,000,000
 * arrivals, the first 10 % discarded as the transient from an empty server), whose own error is
 * small against any rung's interval.
 */
export function trueOpenLoopP95(
  server: SimulatedServer,
  ratePerS: number,
  options: { arrivals?: number; seed?: number } = {},
): number {
  const arrivals = options.arrivals ?? 2_000_000;
  const run = simulateOpenLoop(server, {
    ratePerS,
    durationS: arrivals / ratePerS,
    seed: options.seed ?? 0x7e57,
  });
  const kept = run.ttfabMs.subarray(Math.floor(run.ttfabMs.length / 10));
  const sorted = Float64Array.from(kept).sort();
  return quantileSorted(sorted as unknown as number[], 0.95) as number;
}

/**
 * The arrival rate at which the true p95 equals `sloMs` (bisection over long runs with common
 * random numbers, to a relative `tolerance`): the lambda_max a perfect measurement would find.
 * null when even a vanishing rate misses the SLO.
 */
export function trueRateAtSlo(
  server: SimulatedServer,
  sloMs: number,
  options: { arrivals?: number; seed?: number; tolerance?: number } = {},
): number | null {
  const tolerance = options.tolerance ?? 0.001;
  const capacity = capacityPerS(server);
  const p95At = (rate: number) => trueOpenLoopP95(server, rate, options);
  let lo = capacity * 1e-3;
  if (p95At(lo) > sloMs) return null;
  let hi = capacity * 0.9999;
  if (p95At(hi) <= sloMs) return hi;
  while ((hi - lo) / hi > tolerance) {
    const mid = (lo + hi) / 2;
    if (p95At(mid) <= sloMs) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

export interface SimulatedOpenRungSpec {
  sloMs: number;
  /** The rung's schedule length; arrivals before settleS are discarded. */
  holdS: number;
  settleS: number;
  /** Histogram window, ms of intended send time (the open loop's windows; default 1000). */
  windowMs?: number;
  minSamples?: number;
}

/**
 * The samples of a simulated rung as the goodput rung sees them: arrivals of [settleS, holdS) in
 * windows of intended send time, the mean number in system from Little's law over the same
 * arrivals. `quantile` reads the exact samples (the product reads merged HDR windows, 0.1 %).
 */
export function windowedRung(run: OpenLoopSamples, spec: SimulatedOpenRungSpec): WindowedSamples {
  const windowMs = spec.windowMs ?? 1000;
  const from = spec.settleS * 1000;
  const to = spec.holdS * 1000;
  const first = Math.ceil(from / windowMs);
  const last = Math.floor(to / windowMs);
  const starts: number[] = [];
  const counts: number[] = [];
  let i = 0;
  const total = run.atMs.length;
  while (i < total && (run.atMs[i] as number) < first * windowMs) i++;
  let inSystem = 0;
  for (let w = first; w < last; w++) {
    starts.push(i);
    let c = 0;
    while (i < total && (run.atMs[i] as number) < (w + 1) * windowMs) {
      inSystem += run.ttfabMs[i] as number;
      c++;
      i++;
    }
    counts.push(c);
  }
  starts.push(i);
  const seconds = ((last - first) * windowMs) / 1000;
  return {
    counts,
    meanInSystem: seconds > 0 ? inSystem / 1000 / seconds : 0,
    windowS: windowMs / 1000,
    quantile: (fromWindow, toWindow, q) => {
      const a = starts[fromWindow] as number;
      const b = starts[toWindow] as number;
      if (b <= a) return null;
      const sorted = Float64Array.from(run.ttfabMs.subarray(a, b)).sort();
      return quantileSorted(sorted as unknown as number[], q);
    },
  };
}
