/**
 * Is the p95 TTFAB (from the intended send time) of one open-loop rung within the SLO? A
 * group-sequential batch-sectioning decision: the rung is looked at as its data grows and ends at
 * the first decisive look. Pure.
 *
 * The data. Arrivals are independent of the server, but latencies are not independent of each
 * other: a request that arrives behind a queue waits for all of it, so consecutive latencies share
 * their queue, and in heavy traffic the queue forgets its state only over about (1 + L)^2 arrivals
 * (L the mean number in system, Little): its spatial scale grows like 1/(1 - rho), its relaxation
 * time like 1/(1 - rho)^2. A server whose speed itself drifts (slow spells of seconds to a minute)
 * adds dependence on the scale of its spells, whatever L is.
 *
 * No survivorship. Every arrival of the window counts: an overflow (503/429), a timeout, an error,
 * an arrival the client dropped, and a request still in flight past the SLO when the rung is
 * looked at are misses with latency +infinity (`WindowedSamples.misses`), in every p95 here.
 *
 * One look (`decideOpenLoopLook`).
 * - Batches: b = min(10, floor(n / m)) consecutive groups of whole windows (intended send time),
 *   m = max(40, 30 (1 + L)^2) arrivals, L measured on the rung; with fewer than 5 there is no
 *   interval. For refuting the SLO the queue a p95 at the SLO allows is enough:
 *   L_null = L min(1, SLO / p95) (an overloaded rung's queue keeps growing; it is decided a fail
 *   on the queue the SLO allows).
 * - Interval: sectioning on the log scale, centre = ln p95(window), se^2 = sum (ln q_i - centre)^2
 *   / (b - 1) / (1 - kappa/m) / b over the batch p95s q_i (a batch whose misses exceed 5 % has
 *   p95 +infinity, taken as ln max(4 SLO, 2 x the largest finite batch p95));
 *   [exp(centre - t(b-1, 1 - a_fail) se), exp(centre + t(b-1, 1 - a_pass) se)].
 * - Tails: the upper end, on which a false PASS depends, gets a tenth of the alpha (the window's
 *   p95 is skewed low: a window that caught fewer long busy periods looks faster and tighter).
 * - Dependence diagnostics before a decisive verdict: the von Neumann ratio of the batch p95s
 *   (below its 5 % point under independence: adjacent batches alike, the batches too short) and
 *   the batch-size sensitivity (se from pairs of batches over se from single ones above
 *   `SENSITIVITY_MAX`); either one makes the look not decisive.
 * - An early PASS (measure span under `FULL_SPAN_S`) needs its upper end below
 *   `EARLY_PASS_MARGIN` x SLO: a short window that caught none of a server's slow spells looks calm
 *   in every batch; its spread cannot show what it did not see.
 * - Futility: an interval wholly inside SLO x [0.95, 1.05] ends the rung undecided, near the SLO.
 *
 * Looks (`decideOpenLoopSequential`): at measure spans of 30 s x 1.5^k and at the end of the hold.
 * Look k spends alpha_k = A(t_k) - A(t_{k-1}) of each side, A(t) = 2 (1 - Phi(z_{1 - alpha/2} /
 * sqrt t)) (Lan-DeMets, O'Brien-Fleming type), t = span / the hold's measure span; by the union
 * bound the looks together spend at most alpha on each side.
 *
 * Calibrated by simulation over the class of src/stats/service-class.ts (i.i.d., regime-switching,
 * batching and replayed Kokoro service): `FALSE_PASS_BOUND` is what the simulation supports, not
 * the nominal level. Proofs: test/stats/open-loop-decision-coverage.test.ts,
 * test/stats/open-loop-mutants.test.ts, `npm run bench:coverage-openloop`.
 */

import { FUTILITY_FROM_S, stillStraddles } from './open-loop-futility.js';
import {
  integratedAutocorrelationTime,
  normalCdf,
  normalQuantile,
  obfSpent,
  vonNeumannCritical,
  vonNeumannRatio,
} from './sequential.js';
import { studentTQuantile } from './student-t.js';

export { normalCdf, normalQuantile, obfSpent, vonNeumannCritical, vonNeumannRatio };

export const OPEN_LOOP_DECISION_METHOD = 'group-sequential-batch-sectioning-open-loop';
/** A batch lasts at least this many correlation lengths kappa = (1 + L)^2. */
export const BATCH_CORRELATIONS = 30;
/** A batch holds at least this many arrivals. */
export const MIN_OPEN_BATCH = 20;
export const MIN_OPEN_BATCHES = 5;
export const MAX_OPEN_BATCHES = 20;
/** Two-sided alpha over all looks. */
export const OPEN_LOOP_ALPHA = 0.05;
/** Share of alpha spent above the interval (the side a false PASS depends on). */
export const OPEN_LOOP_UPPER_SHARE = 0.1;
export const DEFAULT_OPEN_MIN_SAMPLES = 100;
/** The first look, seconds of measure window; each next one 1.5 x later. */
export const FIRST_LOOK_S = 30;
export const LOOK_GROWTH = 1.5;
/** A batch lasts at least this many autocorrelation times of the per-window median latency. */
export const TIME_CORRELATIONS = 5;
/**
 * The upper end of every interval is multiplied by this: calibrated over the class so that a
 * window that caught none of a server's long slow spells (its p95 far below the truth, its batches
 * alike) does not pass a rung whose true p95 is the SLO.
 */
export const UPPER_INFLATION = 1.1;
/**
 * The window medians' autocorrelation time, in arrivals, over (1 + L)^2 above which the server's
 * own state drifts (slow spells; i.i.d. service gave 1-9 in simulation, an M/D/2 near capacity 2-6 on
 * 1 s windows, 30 % slow spells of 10-60 s 3-80); the upper end is then inflated by
 * FLUCTUATION_INFLATION. 4, not 7: at 7 slow spells of 20 s in 60 s at rho 0.7 passed 6.5 % of 400
 * rungs at p95 = SLO on 1 s windows (1.0 % at 4).
 */
export const FLUCTUATION_MAX = 4;
export const FLUCTUATION_INFLATION = 1.4;
/** Below this measure span a PASS needs its upper end below EARLY_PASS_MARGIN x SLO. */
export const FULL_SPAN_S = 120;
export const EARLY_PASS_MARGIN = 0.8;
/** An interval inside SLO x [1 - FUTILITY_BAND, 1 + FUTILITY_BAND] ends the rung undecided. */
export const FUTILITY_BAND = 0.05;
/** Batch-size sensitivity: se of pairs of batches / se of batches above this flags dependence. */
export const SENSITIVITY_MAX = 2;
/**
 * P(PASS | true p95 = SLO) supported by simulation over the class (at most, in every family of
 * cells; `npm run bench:coverage-openloop`, test/stats/open-loop-decision-coverage.test.ts).
 */
export const FALSE_PASS_BOUND = 0.05;
export const FALSE_PASS_BOUND_CLASS =
  'i.i.d. M/G/k (CV 0-0.5), M/D/2, regime-switching 30 % slowdowns of 2-20 s at slow-spell load <= 0.9, dynamic batching, replayed Kokoro service; rho 0.5-0.95; hold 600 s';

/**
 * The rule, whole. The product uses `OPEN_LOOP_RULE`; the tests vary one field at a time to show
 * that each part is needed (a mutant must fail a test).
 */
export interface OpenLoopRule {
  batchCorrelations: number;
  /** kappa = (1 + L)^exponent. */
  correlationExponent: number;
  /** A batch may be this share of the rule's minimum (1: whole batches). */
  minBatchFactor: number;
  /** false: batches of MIN_OPEN_BATCH whatever the dependence (sectioning as if independent). */
  batching: boolean;
  upperShare: number;
  /** false: every look spends the whole alpha. */
  alphaSpending: boolean;
  /** false: misses (overflows, timeouts, drops) are left out of the p95. */
  countMisses: boolean;
  earlyPassMargin: number;
  diagnostics: boolean;
  /** A batch lasts at least this many integrated autocorrelation times of the window medians (0: off). */
  timeCorrelations: number;
  /** At most this many batches (more: a narrower t). */
  maxBatches: number;
  /** The upper end is multiplied by this (the calibration over the class: the window's p95 is skewed low). */
  upperInflation: number;
  /** ... and by this instead when the rung's state persists beyond its queue (fluctuation > FLUCTUATION_MAX). */
  fluctuationInflation: number;
  fluctuationMax: number;
  /** End a straddling rung undecided when its interval, narrowed to the last look, still would (open-loop-futility.ts). */
  projection: boolean;
  /** The dependence checks block a FAIL too (false: they guard a PASS only). */
  guardFail: boolean;
}

export const OPEN_LOOP_RULE: OpenLoopRule = {
  batchCorrelations: BATCH_CORRELATIONS,
  correlationExponent: 2,
  minBatchFactor: 1,
  batching: true,
  upperShare: OPEN_LOOP_UPPER_SHARE,
  alphaSpending: true,
  countMisses: true,
  earlyPassMargin: EARLY_PASS_MARGIN,
  diagnostics: true,
  timeCorrelations: TIME_CORRELATIONS,
  upperInflation: UPPER_INFLATION,
  fluctuationInflation: FLUCTUATION_INFLATION,
  fluctuationMax: FLUCTUATION_MAX,
  maxBatches: MAX_OPEN_BATCHES,
  projection: true,
  guardFail: false,
};

/** A rung's arrivals, in consecutive windows of intended send time. */
export interface WindowedSamples {
  /** Answered samples per window, in window order. */
  counts: readonly number[];
  /** Arrivals per window counted as misses at +infinity (absent: none). */
  misses?: readonly number[];
  /** The q-quantile of the answered samples of windows [from, to) (null when none). */
  quantile(from: number, to: number, q: number): number | null;
  /** Mean number of requests in the system over the window (Little). */
  meanInSystem: number;
  /** Seconds a window lasts (absent: 1, the windows the rule was calibrated on). */
  windowS?: number;
}

export interface OpenLoopDecisionSettings {
  sloMs: number;
  /** Fewer arrivals than this: never decisive. @default 100 */
  minSamples?: number;
  alpha?: number;
  rule?: Partial<OpenLoopRule>;
}

export type OpenLoopVerdict = 'pass' | 'fail' | 'undecided';

export interface OpenLoopDecision {
  method: typeof OPEN_LOOP_DECISION_METHOD;
  /** Arrivals judged (answered + misses). */
  n: number;
  misses: number;
  /** p95 with misses at +infinity (Infinity: more than 5 % misses). */
  p95: number | null;
  /** The decision interval of the look (its alphas). */
  interval: { low: number; high: number } | null;
  /** 1 - the alpha this look spends on both sides. */
  level: number;
  /** A 95 % interval (same batches, tenth of alpha above) for the record. */
  interval95: { low: number; high: number } | null;
  verdict: OpenLoopVerdict;
  /** The look ended the rung: pass, fail, or undecided near the SLO (futility). */
  stop: boolean;
  batches: number;
  batchSize: number;
  minBatchSize: number;
  meanInSystem: number;
  correlationLength: number;
  /** Integrated autocorrelation time of the window medians, windows (0: not used). */
  correlationWindows: number;
  /** tau in arrivals / (1 + L)^2: above FLUCTUATION_MAX the server itself drifts (slow spells). */
  fluctuation: number;
  scope: 'two-sided' | 'refute-only' | null;
  /** Von Neumann ratio of the batch log p95s (null: fewer than 3 batches). */
  vonNeumann: number | null;
  /** se from pairs of batches / se from batches (null: fewer than 6 batches). */
  sensitivity: number | null;
  reason: string;
}

export interface LookSpending {
  /** Seconds of measure window the look sees. */
  spanS: number;
  alphaPass: number;
  alphaFail: number;
}

export const correlationLength = (meanInSystem: number, exponent = 2): number =>
  (1 + Math.max(0, meanInSystem)) ** exponent;

export const openLoopMinBatch = (meanInSystem: number, rule: OpenLoopRule = OPEN_LOOP_RULE): number =>
  rule.batching
    ? Math.max(
        MIN_OPEN_BATCH,
        Math.ceil(rule.batchCorrelations * correlationLength(meanInSystem, rule.correlationExponent)),
      )
    : MIN_OPEN_BATCH;

/** The measure spans (s) at which a rung of `maxSpanS` is looked at: 30 x 1.5^k, and the end. */
export function lookSpans(maxSpanS: number): number[] {
  const spans: number[] = [];
  for (let s = FIRST_LOOK_S; s < maxSpanS * 0.95; s *= LOOK_GROWTH) spans.push(Math.round(s));
  spans.push(maxSpanS);
  return spans;
}

/**
 * Share of each side's alpha spread evenly over the looks (a floor, Haybittle-Peto style), the
 * rest spent by the O'Brien-Fleming-type function: without it an early look spends almost nothing
 * (1e-10 at a tenth of the hold) and even a rung far inside the SLO waits for the hold's middle.
 */
export const SPENDING_FLOOR_SHARE = 0.2;

/** Each look's alphas: increments of the spending function (the whole alpha at each without). */
export function lookSpending(
  maxSpanS: number,
  alpha = OPEN_LOOP_ALPHA,
  rule: OpenLoopRule = OPEN_LOOP_RULE,
): LookSpending[] {
  const up = alpha * rule.upperShare;
  const down = alpha - up;
  const spans = lookSpans(maxSpanS);
  const k = spans.length;
  let prev = 0;
  const spend = (side: number, t: number, p: number) =>
    (SPENDING_FLOOR_SHARE * side) / k + (1 - SPENDING_FLOOR_SHARE) * (obfSpent(side, t) - obfSpent(side, p));
  return spans.map((spanS) => {
    const t = spanS / maxSpanS;
    const look = rule.alphaSpending
      ? { spanS, alphaPass: spend(up, t, prev), alphaFail: spend(down, t, prev) }
      : { spanS, alphaPass: up, alphaFail: down };
    prev = t;
    return look;
  });
}

/**
 * Cuts the windows into b groups of about total / b arrivals each (boundaries at the first window
 * whose cumulative count reaches i total / b); returns the window index boundaries.
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

/** The q-quantile of windows [from, to) with their misses at +infinity (null: no arrival). */
export function censoredQuantile(
  data: WindowedSamples,
  from: number,
  to: number,
  q: number,
  countMisses = true,
): number | null {
  let ok = 0;
  let miss = 0;
  for (let w = from; w < to; w++) {
    ok += data.counts[w] as number;
    if (countMisses) miss += data.misses?.[w] ?? 0;
  }
  const n = ok + miss;
  if (n === 0) return null;
  const rank = Math.ceil(q * n);
  if (rank > ok) return Number.POSITIVE_INFINITY;
  return data.quantile(from, to, Math.min(1, (q * n) / ok));
}

const fmtMs = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'inf');

/**
 * The integrated autocorrelation time, in windows, of the log median latency of each window
 * (Geyer's initial positive sequence): how long the server's state persists, whatever causes it
 * (a queue, a slow spell of the server). Windows without an arrival repeat the previous value.
 */
export function windowCorrelationTime(data: WindowedSamples, countMisses = true): number {
  const xs: number[] = [];
  let prev: number | null = null;
  for (let w = 0; w < data.counts.length; w++) {
    const q = censoredQuantile(data, w, w + 1, 0.5, countMisses);
    if (q !== null) prev = Math.log(Math.max(Number.isFinite(q) ? q : 1e9, 1e-6));
    if (prev !== null) xs.push(prev);
  }
  return integratedAutocorrelationTime(xs);
}

/**
 * The autocorrelation time `tau` measured on windows of `windowS` seconds, in 1 s windows (what
 * FLUCTUATION_MAX and TIME_CORRELATIONS were calibrated on): 1 + (tau - 1) windowS. The floor of
 * 1 (independent windows) stays 1, and the persistence beyond one window keeps its length in
 * seconds, so the batches a slow spell needs do not depend on the window. (Leaving out what
 * independent windows show by chance, about 0.7 at 25 windows, was tried: it let the slow spells
 * of 20 s in 60 s at rho 0.7 pass 7 % of rungs at p95 = SLO.)
 */
export const secondsCorrelationTime = (tau: number, windowS: number): number =>
  1 + Math.max(0, tau - 1) * windowS;

/** One look at the windows seen so far, spending `look` (the hold's last look when `final`). */
export function decideOpenLoopLook(
  data: WindowedSamples,
  settings: OpenLoopDecisionSettings,
  look: LookSpending & {
    final: boolean;
    /** The hold's last look (for the futility projection; absent: none). */
    last?: LookSpending;
  },
): OpenLoopDecision {
  const { sloMs } = settings;
  const rule: OpenLoopRule = { ...OPEN_LOOP_RULE, ...settings.rule };
  const alpha = settings.alpha ?? OPEN_LOOP_ALPHA;
  const minSamples = Math.max(1, settings.minSamples ?? DEFAULT_OPEN_MIN_SAMPLES);
  const windows = data.counts.length;
  let n = 0;
  let misses = 0;
  for (let w = 0; w < windows; w++) {
    n += data.counts[w] as number;
    if (rule.countMisses) misses += data.misses?.[w] ?? 0;
  }
  n += misses;
  const L = data.meanInSystem;
  const kappa = correlationLength(L, rule.correlationExponent);
  const tau = rule.timeCorrelations > 0 ? windowCorrelationTime(data, rule.countMisses) : 0;
  const windowS = data.windowS ?? 1;
  const perSecond = windows > 0 ? n / (windows * windowS) : 0;
  // tau in 1 s windows (the calibration's): only the persistence beyond one window counts, and
  // it lasts (tau - 1) x windowS seconds; a w s window's floor of 1 is no w s of persistence.
  const tauS = tau > 0 ? secondsCorrelationTime(tau, windowS) : 0;
  // Only the persistence beyond one window (tau 1: independent windows) lengthens the batches.
  const timeBatch = Math.ceil(rule.timeCorrelations * Math.max(0, tauS - 1) * perSecond);
  const shortest = Math.max(openLoopMinBatch(L, rule), rule.batching ? timeBatch : 0);
  // How much longer the server's state persists than its queue alone explains (slow spells).
  const fluctuation = kappa > 0 ? (tauS * perSecond) / correlationLength(L) : 0;
  const p95 = n > 0 ? censoredQuantile(data, 0, windows, 0.95, rule.countMisses) : null;
  const base = {
    method: OPEN_LOOP_DECISION_METHOD,
    n,
    misses,
    p95,
    meanInSystem: L,
    correlationLength: kappa,
    correlationWindows: tau,
    fluctuation,
    minBatchSize: shortest,
  } as const;
  const undecided = (reason: string, level = 1 - look.alphaPass - look.alphaFail): OpenLoopDecision => ({
    ...base,
    interval: null,
    interval95: null,
    level,
    scope: null,
    verdict: 'undecided',
    stop: false,
    batches: 0,
    batchSize: 0,
    vonNeumann: null,
    sensitivity: null,
    reason,
  });
  const rule$ = `>= ${MIN_OPEN_BATCHES} batches of >= ${shortest} arrivals (${rule.batchCorrelations} x (1 + L)^${rule.correlationExponent}, L = ${L.toFixed(2)}; ${rule.timeCorrelations} x ${tauS.toFixed(1)} s of autocorrelation)`;
  const tooFew = `${n} arrivals: too few for ${rule$}; no interval${look.final ? ', undecided (a longer --hold-s decides it)' : ''}`;
  if (p95 === null) return undecided(tooFew);
  const nullL = p95 > sloMs ? L * (sloMs / p95) : L;
  // Refuting needs only the queue the SLO allows (an overloaded rung's trend is no slow spell).
  const shortestNull = openLoopMinBatch(nullL, rule);
  const allowed = (m: number) => Math.max(MIN_OPEN_BATCH, m * rule.minBatchFactor);
  const refuteOnly = n < MIN_OPEN_BATCHES * allowed(shortest);
  if (refuteOnly && n < MIN_OPEN_BATCHES * allowed(shortestNull)) return undecided(tooFew);
  const needed = refuteOnly ? shortestNull : shortest;
  const b = rule.batching
    ? Math.min(rule.maxBatches, Math.floor(n / allowed(needed)))
    : Math.floor(n / MIN_OPEN_BATCH);
  const totals = data.counts.map((c, w) => c + (rule.countMisses ? (data.misses?.[w] ?? 0) : 0));
  const bounds = windowBatches(totals, b);
  const qs: number[] = [];
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const from = bounds[i] as number;
    const to = bounds[i + 1] as number;
    let size = 0;
    for (let w = from; w < to; w++) size += totals[w] as number;
    const q = censoredQuantile(data, from, to, 0.95, rule.countMisses);
    if (q === null || size === 0) continue;
    smallest = Math.min(smallest, size);
    qs.push(q);
  }
  // Windows are whole: a batch may come out shorter than the rule wants.
  if (qs.length < MIN_OPEN_BATCHES || (rule.batching && smallest < allowed(needed) / 2))
    return undecided(tooFew);
  const finite = qs.filter(Number.isFinite);
  const capLog = Math.log(Math.max(4 * sloMs, 2 * (finite.length > 0 ? Math.max(...finite) : sloMs)));
  const lg = (v: number) => (Number.isFinite(v) ? Math.log(Math.max(v, 1e-6)) : capLog);
  const logQs = qs.map(lg);
  const bq = logQs.length;
  const m = n / bq;
  const kappaUsed = correlationLength(refuteOnly ? nullL : L, rule.correlationExponent);
  const shrink = rule.batching ? 1 - Math.min(0.5, kappaUsed / m) : 1;
  const centre = lg(p95);
  const seOf = (xs: readonly number[]) => {
    let s = 0;
    for (const x of xs) s += (x - centre) ** 2;
    return Math.sqrt(s / (xs.length - 1) / shrink / xs.length);
  };
  const se = seOf(logQs);
  const inflation = fluctuation > rule.fluctuationMax ? rule.fluctuationInflation : rule.upperInflation;
  const interval = {
    low: Math.exp(centre - studentTQuantile(1 - look.alphaFail, bq - 1) * se),
    high: inflation * Math.exp(centre + studentTQuantile(1 - look.alphaPass, bq - 1) * se),
  };
  const interval95 = {
    low: Math.exp(centre - studentTQuantile(1 - alpha * (1 - OPEN_LOOP_UPPER_SHARE), bq - 1) * se),
    high: inflation * Math.exp(centre + studentTQuantile(1 - alpha * OPEN_LOOP_UPPER_SHARE, bq - 1) * se),
  };
  // Dependence diagnostics.
  const vonNeumann = vonNeumannRatio(logQs);
  let sensitivity: number | null = null;
  if (bq >= 6) {
    const pairs: number[] = [];
    for (let i = 0; i + 1 < bq; i += 2) {
      const from = bounds[i] as number;
      const to = bounds[i + 2] as number;
      pairs.push(lg(censoredQuantile(data, from, to, 0.95, rule.countMisses) as number));
    }
    // Independent batches: a pair's p95 varies half as much, so both se estimate the same.
    sensitivity = se > 0 ? seOf(pairs) / se : null;
  }
  // Batches that barely differ (within 2 %) carry no dependence that could matter.
  const spread = Math.max(...logQs) - Math.min(...logQs);
  const dependent =
    rule.diagnostics &&
    spread >= 0.02 &&
    ((vonNeumann !== null && bq >= 5 && vonNeumann < vonNeumannCritical(bq)) ||
      (sensitivity !== null && sensitivity > SENSITIVITY_MAX));
  const level = 1 - look.alphaPass - look.alphaFail;
  const how = refuteOnly
    ? `${bq} batches of ${Math.round(m)}: enough only to refute the SLO (>= ${shortestNull} for the queue a p95 at the SLO allows, L = ${nullL.toFixed(2)}; a pass needs >= ${shortest})`
    : `${bq} batches of ${Math.round(m)}, >= ${shortest}: ${rule.batchCorrelations} x (1 + L)^${rule.correlationExponent}, L = ${L.toFixed(2)}, and ${rule.timeCorrelations} x ${tauS.toFixed(1)} s of autocorrelation`;
  const missText =
    misses > 0 ? `, ${misses} misses (overflows, errors, timeouts, drops) counted at +inf` : '';
  const ci = `p95 ${fmtMs(p95)} at ${look.spanS} s, ${(level * 100).toFixed(level > 0.999 ? 4 : 2)} % CI [${fmtMs(interval.low)}, ${fmtMs(interval.high)}] (${how}${missText})`;
  let verdict: OpenLoopVerdict = 'undecided';
  let stop = false;
  let reason: string;
  const passMargin = look.spanS < FULL_SPAN_S && !look.final ? rule.earlyPassMargin : 1;
  const below = interval.high <= sloMs * passMargin && Number.isFinite(p95) && !refuteOnly;
  const above = interval.low > sloMs;
  // The checks guard a PASS only: a dependence that narrows the interval can hide a p95 above
  // the SLO, but a FAIL needs no protection against a false PASS (an overloaded queue's batches
  // always trend, and it would never fail).
  if ((below || (rule.guardFail && above)) && dependent) {
    reason = `${ci}; batches look dependent (von Neumann ${vonNeumann?.toFixed(2) ?? '-'}, pairs/single se ${sensitivity?.toFixed(2) ?? '-'}): not decisive`;
  } else if (below && n >= minSamples) {
    verdict = 'pass';
    stop = true;
    reason = `${ci} within the ${sloMs} ms SLO${passMargin < 1 ? ` (early: below ${passMargin} x SLO)` : ''}`;
  } else if (above && n >= minSamples) {
    verdict = 'fail';
    stop = true;
    reason = `${ci} above the ${sloMs} ms SLO`;
  } else if (interval.low >= sloMs * (1 - FUTILITY_BAND) && interval.high <= sloMs * (1 + FUTILITY_BAND)) {
    stop = true;
    reason = `${ci} lies within ${FUTILITY_BAND * 100} % of the ${sloMs} ms SLO: undecided near the SLO`;
  } else if (
    rule.projection &&
    look.last &&
    look.spanS >= FUTILITY_FROM_S &&
    !look.final &&
    interval.low <= sloMs &&
    interval.high > sloMs &&
    stillStraddles({
      ...{ centre, se, inflation, sloMs, spanS: look.spanS, last: look.last },
      ...{ batches: bq, maxBatches: rule.maxBatches },
    })
  ) {
    stop = true;
    reason = `${ci} straddles the ${sloMs} ms SLO and, narrowed to the ${look.last.spanS} s look, still would: undecided`;
  } else if (refuteOnly) {
    reason = `${ci} does not refute the ${sloMs} ms SLO, and a pass needs longer batches`;
  } else if (below || above) {
    reason = `${ci}: only ${n} arrivals, minimum ${minSamples}`;
  } else {
    reason = `${ci} straddles the ${sloMs} ms SLO`;
  }
  return {
    ...base,
    interval,
    interval95,
    level,
    scope: refuteOnly ? 'refute-only' : 'two-sided',
    verdict,
    stop,
    batches: bq,
    batchSize: m,
    minBatchSize: needed,
    vonNeumann,
    sensitivity,
    reason,
  };
}
