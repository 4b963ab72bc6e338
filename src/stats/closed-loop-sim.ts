/**
 * A seeded, pure simulator of the measurement itself: a closed loop of N outstanding requests
 * against a FIFO server with `slots` parallel slots (1 = serial) and lognormal service times,
 * optionally modulated by slow regime switching (spells of a slower service rate), replayed from
 * a recorded trace, or served by a batching server (src/stats/closed-loop-class.ts lists the class
 * the rung decision is calibrated over).
 * The client re-sends a request the instant one completes (no think time), as the qmax engine
 * does, so consecutive TTFABs share most of their queue: the data a rung is judged on.
 *
 * TTFAB here is the time from dispatch to completion (the first audio byte of a response that
 * is only sent whole; a streaming server sends it earlier by part of one service time, which
 * shifts the scale, not the dependence between consecutive samples).
 *
 * Used to prove the rung decision (coverage of its interval, false-pass rate of the whole
 * procedure) and to compute the true p95 of a configuration from a long run.
 */
import { type DriftResult, driftTest } from './ladder-stats.js';
import { mulberry32 } from './prng.js';
import { quantileSorted } from './quantiles.js';
import { type LookTiming, type RungDecision, RungJudge, shortestResettledWindowMs } from './rung-decision.js';

export interface SimulatedServer {
  /** Requests served in parallel; 1 = serial. */
  slots: number;
  meanServiceMs: number;
  /** Coefficient of variation of the lognormal service time (stddev / mean). */
  serviceCv: number;
  /**
   * Slow fluctuations (regime switching, a Markov-modulated service rate): the server alternates
   * between a normal and a slow state, each held for an exponential time of the given mean; a
   * service started in the slow state takes `slowdown` times as long. Absent: i.i.d. service.
   */
  regime?: RegimeSwitching;
  /**
   * A batching server (slots must be 1): when free it takes up to `maxBatch` waiting requests at
   * once and answers them all together after mean service x (1 + perItem x (k - 1)).
   */
  batching?: { maxBatch: number; perItem: number };
  /**
   * Replay of recorded service times (ms) in their recorded order from a seeded starting point,
   * instead of lognormal draws (meanServiceMs and serviceCv then only describe the trace).
   */
  trace?: ArrayLike<number>;
}

export interface RegimeSwitching {
  /** Service-time factor in the slow state (1.3: 30 % slower). */
  slowdown: number;
  /** Mean time in the slow state, s. */
  meanSlowS: number;
  /** Mean time in the normal state, s. */
  meanNormalS: number;
}

/**
 * The service time of a request that starts service at `startMs`. Regime switching keeps its own
 * seeded generator (the state path does not depend on how many services were drawn).
 */
export function serviceSampler(server: SimulatedServer, seed: number): (startMs: number) => number {
  const random = mulberry32(seed);
  let base: () => number;
  if (server.trace && server.trace.length > 0) {
    const trace = server.trace;
    let i = Math.floor(random() * trace.length);
    base = () => {
      const v = trace[i % trace.length] as number;
      i++;
      return v;
    };
  } else {
    base = lognormalSampler(server.meanServiceMs, server.serviceCv, random);
  }
  const regime = server.regime;
  if (!regime) return () => base();
  const path = mulberry32((seed ^ 0x5bd1e995) >>> 0);
  const holdMs = (slow: boolean) =>
    -Math.log(1 - path()) * 1000 * (slow ? regime.meanSlowS : regime.meanNormalS);
  // Start in the stationary mix of the two states.
  let slow = path() < regime.meanSlowS / (regime.meanSlowS + regime.meanNormalS);
  let until = holdMs(slow);
  return (startMs: number) => {
    while (startMs >= until) {
      slow = !slow;
      until += holdMs(slow);
    }
    return base() * (slow ? regime.slowdown : 1);
  };
}

export interface ClosedLoopRun {
  /** N: requests outstanding at all times. */
  outstanding: number;
  /** Simulated seconds after the warm-up. */
  durationS: number;
  /** Completions discarded first (the transient from an empty server); default 0. */
  warmupCompletions?: number;
  seed: number;
}

export interface ClosedLoopSamples {
  /** Completion (first-byte) instants, ms since the run started (warm-up excluded), ascending. */
  atMs: Float64Array;
  /** TTFAB of each completion, ms, in the same (time) order. */
  ttfabMs: Float64Array;
}

/** A lognormal sampler with the given mean and CV (Box-Muller over the seeded generator). */
export function lognormalSampler(meanMs: number, cv: number, random: () => number): () => number {
  if (!(meanMs > 0) || !(cv >= 0)) throw new Error('lognormal: mean must be positive, CV >= 0');
  const sigma2 = Math.log(1 + cv * cv);
  const sigma = Math.sqrt(sigma2);
  const mu = Math.log(meanMs) - sigma2 / 2;
  let spare: number | null = null;
  return () => {
    let z: number;
    if (spare !== null) {
      z = spare;
      spare = null;
    } else {
      const u = 1 - random(); // (0, 1]
      const v = random();
      const r = Math.sqrt(-2 * Math.log(u));
      z = r * Math.cos(2 * Math.PI * v);
      spare = r * Math.sin(2 * Math.PI * v);
    }
    return Math.exp(mu + sigma * z);
  };
}

/**
 * Runs the closed loop from an empty server with N requests dispatched at t = 0. Returns the
 * completions after the warm-up, in time order, with times relative to the end of the warm-up
 * (the instant of the last discarded completion; 0 without warm-up).
 */
export function simulateClosedLoop(server: SimulatedServer, run: ClosedLoopRun): ClosedLoopSamples {
  const n = run.outstanding;
  const slots = server.slots;
  if (!Number.isInteger(n) || n < 1) throw new Error('outstanding must be a positive integer');
  if (!Number.isInteger(slots) || slots < 1) throw new Error('slots must be a positive integer');
  const service = serviceSampler(server, run.seed);
  if (server.batching) return simulateBatchingLoop(server, run, service);
  const warmup = run.warmupCompletions ?? 0;
  const horizonMs = run.durationS * 1000;
  const busy = Math.min(slots, n);
  // Waiting requests, FIFO, by dispatch time (a ring of at most N entries).
  const waiting = new Float64Array(n);
  let head = 0;
  let size = 0;
  const push = (t: number) => {
    waiting[(head + size) % n] = t;
    size++;
  };
  const shift = (): number => {
    const t = waiting[head] as number;
    head = (head + 1) % n;
    size--;
    return t;
  };
  for (let i = 0; i < n; i++) push(0);
  const doneAt = new Float64Array(busy);
  const sentAt = new Float64Array(busy);
  for (let s = 0; s < busy; s++) {
    sentAt[s] = shift();
    doneAt[s] = service(0);
  }
  const expected = Math.ceil((horizonMs / server.meanServiceMs) * busy * 1.2) + 16;
  let atMs = new Float64Array(expected);
  let ttfabMs = new Float64Array(expected);
  let count = 0;
  let seen = 0;
  let origin = 0;
  for (;;) {
    let slot = 0;
    for (let s = 1; s < busy; s++) if ((doneAt[s] as number) < (doneAt[slot] as number)) slot = s;
    const t = doneAt[slot] as number;
    const latency = t - (sentAt[slot] as number);
    seen++;
    if (seen === warmup) origin = t;
    if (seen > warmup) {
      const at = t - origin;
      if (at > horizonMs) break;
      if (count === atMs.length) {
        const grow = (a: Float64Array) => {
          const b = new Float64Array(a.length * 2);
          b.set(a);
          return b;
        };
        atMs = grow(atMs);
        ttfabMs = grow(ttfabMs);
      }
      atMs[count] = at;
      ttfabMs[count] = latency;
      count++;
    }
    // The client sends the next request at once; the freed slot takes the oldest waiting one.
    push(t);
    sentAt[slot] = shift();
    doneAt[slot] = t + service(t);
  }
  return { atMs: atMs.subarray(0, count), ttfabMs: ttfabMs.subarray(0, count) };
}

/** The closed loop against a batching server (one batch in service at a time). */
function simulateBatchingLoop(
  server: SimulatedServer,
  run: ClosedLoopRun,
  service: (startMs: number) => number,
): ClosedLoopSamples {
  const { maxBatch, perItem } = server.batching as { maxBatch: number; perItem: number };
  const n = run.outstanding;
  const warmup = run.warmupCompletions ?? 0;
  const horizonMs = run.durationS * 1000;
  // Waiting requests by dispatch time, FIFO (at most N).
  let waiting: number[] = Array.from({ length: n }, () => 0);
  const at: number[] = [];
  const ttfab: number[] = [];
  let seen = 0;
  let origin = 0;
  let t = 0;
  for (;;) {
    const k = Math.min(maxBatch, waiting.length);
    const batch = waiting.slice(0, k);
    waiting = waiting.slice(k);
    const done = t + service(t) * (1 + perItem * (k - 1));
    for (const sent of batch) {
      seen++;
      if (seen === warmup) origin = done;
      if (seen > warmup) {
        if (done - origin > horizonMs)
          return { atMs: Float64Array.from(at), ttfabMs: Float64Array.from(ttfab) };
        at.push(done - origin);
        ttfab.push(done - sent);
      }
    }
    // Every answered request is sent again at once.
    for (let i = 0; i < k; i++) waiting.push(done);
    t = done;
  }
}

/**
 * The true p95 TTFAB of a configuration: the p95 of one long run of the same simulator (default
 * 2,000,000 completions after a warm-up of 100 N), whose own error is small against any rung's
 * interval (its window is ~1000 times shorter).
 */
export function trueP95(
  server: SimulatedServer,
  outstanding: number,
  options: { completions?: number; seed?: number } = {},
): number {
  const completions = options.completions ?? 2_000_000;
  const batch = server.batching ? Math.min(server.batching.maxBatch, outstanding) : 1;
  const slowShare = server.regime
    ? (server.regime.meanSlowS * (server.regime.slowdown - 1)) /
      (server.regime.meanSlowS + server.regime.meanNormalS)
    : 0;
  const batchTime = server.batching ? 1 + server.batching.perItem * (batch - 1) : 1;
  const throughputPerMs =
    (Math.min(server.slots, outstanding) * batch) / (server.meanServiceMs * batchTime * (1 + slowShare));
  const run = simulateClosedLoop(server, {
    outstanding,
    durationS: completions / throughputPerMs / 1000,
    warmupCompletions: 100 * outstanding,
    seed: options.seed ?? 0x7e57,
  });
  const sorted = Float64Array.from(run.ttfabMs).sort();
  return quantileSorted(sorted as unknown as number[], 0.95) as number;
}

export interface SimulatedRungSpec {
  concurrency: number;
  mode: 'adaptive' | 'fixed';
  sloMs: number;
  holdS: number;
  measureS: number;
  settleS: number;
  minSamples?: number;
  /** How often the rung checks whether a look is due (default 250 ms, as the rung). */
  tickMs?: number;
  /** The judge's PASS margin at every look (the continuity judge's STALL_PASS_MARGIN). @default 0 */
  minPassMargin?: number;
}

/** What the harness needs of a judge: RungJudge, or a peer procedure to compare it with. */
export interface JudgeLike<D extends { drift: DriftResult }> {
  step(
    samplesInTimeOrder: readonly number[],
    atHoldEnd: boolean,
    timing?: LookTiming,
  ): { decision: D | null; stop: boolean };
  look(samplesInTimeOrder: readonly number[], final: boolean, timing?: LookTiming): D;
  readonly looksTaken: number;
}

export interface SimulatedRung<D = RungDecision> {
  decision: D;
  end: 'decisive' | 'near_slo' | 'hold';
  looks: number;
  windowStartMs: number;
  windowEndMs: number;
}

/**
 * One rung over a simulated run that starts at the rung's start (an empty server, N requests sent
 * at t = 0; no warm-up discarded: the rung's settle period and its warm check do that). The
 * timing is the rung's (src/load/closed/rung.ts): settle, warm after the first tick plus N fresh
 * completions, a minimum window of a third of the measure time (at least 1 s), a tick every
 * 250 ms, the window's older half discarded while its medians drift, requests still without
 * audio past the SLO counted as misses; the judging is the rung's own `RungJudge.step`.
 */
export function simulateRung(run: ClosedLoopSamples, spec: SimulatedRungSpec): SimulatedRung {
  const judge = new RungJudge({
    mode: spec.mode,
    sloMs: spec.sloMs,
    concurrency: spec.concurrency,
    minSamples: spec.minSamples ?? 100,
    measureMs: spec.measureS * 1000,
    ...(spec.minPassMargin !== undefined ? { minPassMargin: spec.minPassMargin } : {}),
  });
  return simulateRungWith(run, spec, judge);
}

/** simulateRung with any judge (the benchmark's peer: the procedure this one replaced). */
export function simulateRungWith<D extends { drift: DriftResult }>(
  run: ClosedLoopSamples,
  spec: SimulatedRungSpec,
  judge: JudgeLike<D>,
): SimulatedRung<D> {
  const { atMs, ttfabMs } = run;
  const total = atMs.length;
  const tickMs = spec.tickMs ?? 250;
  const settleEnd = spec.settleS * 1000;
  const holdEnd = spec.holdS * 1000;
  const measureMs = spec.measureS * 1000;
  const minWindowMs = Math.min(measureMs, Math.max(1000, measureMs / 3));
  if (holdEnd > (total > 0 ? (atMs[total - 1] as number) : 0)) {
    throw new Error('the simulated run is shorter than the rung hold');
  }
  const firstAtOrAfter = (t: number): number => {
    let lo = 0;
    let hi = total;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((atMs[mid] as number) < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  /** The rung's window [from, to] at instant `to`: completions, plus in-flight certain misses. */
  const windowAt = (from: number, to: number): number[] => {
    const begin = firstAtOrAfter(from);
    const end = firstAtOrAfter(to + 1e-9);
    // In flight at `to` (sent before it, done after): exactly N of them in a closed loop. Those
    // already past the SLO are certain misses, placed at the instant they became so.
    const missedAt: number[] = [];
    let inFlight = 0;
    for (let i = end; i < total && inFlight < spec.concurrency; i++) {
      const sent = (atMs[i] as number) - (ttfabMs[i] as number);
      if (sent > to) continue;
      inFlight++;
      const at = sent + spec.sloMs;
      if (to - sent > spec.sloMs && at >= from) missedAt.push(at);
    }
    missedAt.sort((a, b) => a - b);
    // Merge the two time-ordered streams.
    const out = new Array<number>(end - begin + missedAt.length);
    let i = begin;
    let j = 0;
    for (let o = 0; o < out.length; o++) {
      if (j < missedAt.length && (i >= end || (missedAt[j] as number) < (atMs[i] as number))) {
        out[o] = Number.POSITIVE_INFINITY;
        j++;
      } else {
        out[o] = ttfabMs[i] as number;
        i++;
      }
    }
    return out;
  };
  const finish = (end: SimulatedRung['end'], from: number, to: number, decision?: D): SimulatedRung<D> => ({
    decision:
      decision ??
      judge.look(windowAt(from, to), true, {
        windowMs: to - from,
        maxWindowMs: Math.max(to - from, holdEnd - settleEnd),
      }),
    end,
    looks: judge.looksTaken,
    windowStartMs: from,
    windowEndMs: to,
  });

  let measureStart = spec.mode === 'fixed' ? Math.max(settleEnd, holdEnd - measureMs) : settleEnd;
  let warm = spec.mode === 'fixed';
  let drainedAt: number | null = null;
  const resettle = (t: number): void => {
    if (t - measureStart < 2 * minWindowMs) return;
    const middle = (measureStart + t) / 2;
    if (t - middle >= shortestResettledWindowMs(measureMs, minWindowMs)) measureStart = middle;
  };
  let t = 0;
  for (;;) {
    t = Math.min(t + tickMs, Math.max(holdEnd, t));
    if (spec.mode === 'fixed') {
      if (t >= holdEnd) return finish('hold', measureStart, holdEnd);
      continue;
    }
    if (!warm) {
      // Nothing of a previous rung is in flight: drained at the first tick; warm once N requests
      // sent after it have completed.
      if (drainedAt === null) drainedAt = t;
      let fresh = 0;
      const upTo = firstAtOrAfter(t + 1e-9);
      for (let i = 0; i < upTo; i++) {
        if ((atMs[i] as number) - (ttfabMs[i] as number) >= drainedAt) fresh++;
      }
      if (fresh >= spec.concurrency) {
        warm = true;
        measureStart = Math.max(settleEnd, t);
      }
    }
    if (warm && t >= measureStart + minWindowMs) {
      const from = measureStart;
      const samples = windowAt(from, t);
      const atHoldEnd = t >= holdEnd;
      const { decision, stop } = judge.step(samples, atHoldEnd, {
        windowMs: t - from,
        maxWindowMs: holdEnd - from,
      });
      if (stop && decision) {
        const nearSlo = (decision as { nearSlo?: boolean }).nearSlo === true;
        return finish(atHoldEnd ? 'hold' : nearSlo ? 'near_slo' : 'decisive', from, t, decision);
      }
      const drift = decision?.drift ?? driftTest(samples);
      if (!drift.settled && drift.driftMs !== null) resettle(t);
    } else if (t >= holdEnd) {
      return finish('hold', Math.min(measureStart, t), t);
    }
  }
}
