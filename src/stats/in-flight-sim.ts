/**
 * What a tracked metric shows when one instance receives Poisson arrivals: a seeded simulation of
 * one instance in simulated time. Pure and deterministic (same input, same numbers).
 *
 * The instance: `lanes` identical lanes fed from one FIFO (the device model the emulator and the
 * device derivation use), each request holding a lane for a log-normal service time (mean
 * `serviceMeanS`, shape `serviceSigma`); at most `queueLimit` requests in flight (queued plus
 * executing); an arrival that finds the limit is turned away (an overflow).
 *
 * ConcurrentRequestsPerModel is the number of requests in flight on the instance; CloudWatch
 * publishes its Maximum per period. Under a closed loop that is the loop's concurrency; under
 * random arrivals the per-period maximum lies far above the time-average in flight, and that
 * maximum is what target tracking compares with its target. The simulation records the in-flight
 * count at every event and keeps the maximum of each period, after a warm-up of one period.
 */
import { mulberry32 } from './prng.js';
import { quantileSorted } from './quantiles.js';

export interface InFlightSimInput {
  lanes: number;
  serviceMeanS: number;
  /** Log-normal shape of the service time (0: deterministic). */
  serviceSigma: number;
  rateRps: number;
  queueLimit: number;
  periodS: number;
  /** Periods recorded (after the warm-up). @default 600, fewer when the rate is high (work bound) */
  periods?: number;
  /** @default 1 */
  seed?: number;
  /**
   * Time a request is counted in flight without holding a lane (between the count's front end and
   * the device: hand-over before, response delivery after), s. Shifting the count by a constant
   * before and after the device gives the same per-period distribution as extending it after the
   * finish, so one number is enough. @default 0 (the device's occupancy alone)
   */
  transitS?: number;
}

export interface PerPeriodMaximum {
  /** Quantiles of the per-period Maximum of requests in flight. */
  p10: number;
  p50: number;
  p90: number;
  /** Any quantile of the per-period Maximum (q in [0, 1]). */
  quantile: (q: number) => number;
  /** Time-average requests in flight. */
  meanInFlight: number;
  /** Share of arrivals turned away at the limit. */
  overflowShare: number;
  periods: number;
  seed: number;
}

/** Arrivals one simulation may draw: bounds the work whatever the rate (~30 ms). */
const MAX_ARRIVALS = 100_000;
const MIN_PERIODS = 200;
export const IN_FLIGHT_SIM_DEFAULTS = { periods: 600, seed: 1 } as const;

/** A log-normal sampler with the given mean and shape (Box-Muller on the seeded generator). */
export function lognormalSampler(random: () => number, mean: number, sigma: number): () => number {
  if (!(sigma > 0)) return () => mean;
  const mu = Math.log(mean) - (sigma * sigma) / 2;
  let spare: number | null = null;
  return () => {
    let z: number;
    if (spare !== null) {
      z = spare;
      spare = null;
    } else {
      const u = 1 - random();
      const v = random();
      const r = Math.sqrt(-2 * Math.log(u));
      z = r * Math.cos(2 * Math.PI * v);
      spare = r * Math.sin(2 * Math.PI * v);
    }
    return Math.exp(mu + sigma * z);
  };
}

export function simulatePerPeriodMaximum(input: InFlightSimInput): PerPeriodMaximum {
  const seed = input.seed ?? IN_FLIGHT_SIM_DEFAULTS.seed;
  const lanes = Math.max(1, Math.floor(input.lanes));
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const rate = input.rateRps;
  const transit = Math.max(0, input.transitS ?? 0);
  const wanted = input.periods ?? IN_FLIGHT_SIM_DEFAULTS.periods;
  // The work is bounded whatever the rate: at most MAX_ARRIVALS arrivals. Where even MIN_PERIODS
  // whole periods hold more, each period is shortened to fit: the maximum over a shorter window
  // is never above the period's (a lower estimate of the level, so a target from it scales out
  // earlier, never later).
  const periodS = Math.min(input.periodS, MAX_ARRIVALS / Math.max(1e-9, rate * MIN_PERIODS));
  const affordable = Math.floor(MAX_ARRIVALS / Math.max(1, rate * periodS));
  const periods = Math.max(1, Math.min(wanted, Math.max(MIN_PERIODS, affordable)));
  const random = mulberry32(seed);
  const service = lognormalSampler(random, input.serviceMeanS, input.serviceSigma);
  const interArrival = () => -Math.log(1 - random()) / rate;

  const laneFree = new Float64Array(lanes); // when each lane next becomes free
  const finishes = new MinHeap(); // finish times of the requests in flight
  const maxima: number[] = [];
  const warmupEnd = periodS;
  const end = warmupEnd + periods * periodS;
  let boundary = periodS;
  let periodMax = 0;
  let area = 0; // integral of in-flight over [warmupEnd, end]
  let lastChange = 0;
  let arrivals = 0;
  let overflows = 0;

  const accumulate = (t: number) => {
    const from = Math.max(lastChange, warmupEnd);
    if (t > from) area += finishes.size * (t - from);
    lastChange = t;
  };
  // Departures and period boundaries up to time t, in time order.
  const advanceTo = (t: number) => {
    for (;;) {
      const departure = finishes.size > 0 ? finishes.peek() : Number.POSITIVE_INFINITY;
      if (boundary <= departure && boundary <= t) {
        if (boundary > warmupEnd) maxima.push(periodMax);
        periodMax = finishes.size;
        boundary += periodS;
        continue;
      }
      if (departure > t) return;
      accumulate(departure);
      finishes.pop();
    }
  };

  let now = rate > 0 ? interArrival() : end;
  while (now < end) {
    advanceTo(now);
    accumulate(now);
    const counted = now >= warmupEnd;
    if (counted) arrivals++;
    if (finishes.size >= limit) {
      if (counted) overflows++;
    } else {
      // FIFO: the request takes the lane that frees first, after every request admitted before it.
      let lane = 0;
      for (let i = 1; i < lanes; i++) if ((laneFree[i] as number) < (laneFree[lane] as number)) lane = i;
      const finish = Math.max(now, laneFree[lane] as number) + service();
      laneFree[lane] = finish;
      finishes.push(finish + transit);
      if (finishes.size > periodMax) periodMax = finishes.size;
    }
    now += interArrival();
  }
  advanceTo(end);
  accumulate(end);

  const sorted = maxima.sort((a, b) => a - b);
  const quantile = (q: number) => quantileSorted(sorted, q) ?? 0;
  return {
    p10: quantile(0.1),
    p50: quantile(0.5),
    p90: quantile(0.9),
    quantile,
    meanInFlight: area / (end - warmupEnd),
    overflowShare: arrivals > 0 ? overflows / arrivals : 0,
    periods: sorted.length,
    seed,
  };
}

/** A binary min-heap of numbers (finish times). */
class MinHeap {
  private items: number[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): number {
    return this.items[0] as number;
  }
  push(value: number): void {
    const items = this.items;
    items.push(value);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((items[parent] as number) <= value) break;
      items[i] = items[parent] as number;
      i = parent;
    }
    items[i] = value;
  }
  pop(): number {
    const items = this.items;
    const top = items[0] as number;
    const last = items.pop() as number;
    if (items.length > 0) {
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        if (left >= items.length) break;
        const right = left + 1;
        const child =
          right < items.length && (items[right] as number) < (items[left] as number) ? right : left;
        if ((items[child] as number) >= last) break;
        items[i] = items[child] as number;
        i = child;
      }
      items[i] = last;
    }
    return top;
  }
}

export interface SurgeTrialInput {
  lanes: number;
  serviceMeanS: number;
  serviceSigma: number;
  queueLimit: number;
  /** The rate each instance is held at before the surge. */
  rateRps: number;
  surgeRatio: number;
  /** Warm-up at `rateRps` before the surge (reaches the held state). */
  warmupS: number;
  horizonS: number;
  trials: number;
  seed?: number;
}

/**
 * Monte Carlo of the surge on the simulated device: held at `rateRps` for `warmupS`, then
 * `surgeRatio x rateRps` for `horizonS`; the share of trials in which an arrival found the limit
 * during the surge. The check of the exact chain the plan computes with (which models departures
 * as a birth-death process at the measured throughput: more variable than a log-normal device).
 */
export function simulateSurgeOverflow(input: SurgeTrialInput): { overflowShare: number; trials: number } {
  const random = mulberry32(input.seed ?? IN_FLIGHT_SIM_DEFAULTS.seed);
  const service = lognormalSampler(random, input.serviceMeanS, input.serviceSigma);
  const lanes = Math.max(1, Math.floor(input.lanes));
  const limit = Math.max(1, Math.floor(input.queueLimit));
  let overflowed = 0;
  for (let trial = 0; trial < input.trials; trial++) {
    const laneFree = new Float64Array(lanes);
    const finishes = new MinHeap();
    const end = input.warmupS + input.horizonS;
    let now = 0;
    let hit = false;
    for (;;) {
      const rate = now < input.warmupS ? input.rateRps : input.surgeRatio * input.rateRps;
      now += -Math.log(1 - random()) / rate;
      if (now >= end) break;
      while (finishes.size > 0 && finishes.peek() <= now) finishes.pop();
      if (finishes.size >= limit) {
        if (now >= input.warmupS) {
          hit = true;
          break;
        }
        continue;
      }
      let lane = 0;
      for (let i = 1; i < lanes; i++) if ((laneFree[i] as number) < (laneFree[lane] as number)) lane = i;
      const finish = Math.max(now, laneFree[lane] as number) + service();
      laneFree[lane] = finish;
      finishes.push(finish);
    }
    if (hit) overflowed++;
  }
  return { overflowShare: overflowed / input.trials, trials: input.trials };
}
