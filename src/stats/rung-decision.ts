/**
 * Is the p95 TTFAB of one rung within the SLO? A group-sequential decision whose false-PASS
 * probability is calibrated by simulation over a stated class of servers. Pure functions of
 * their inputs.
 *
 * The data. At N outstanding requests a closed loop's consecutive TTFABs share most of their
 * queue (on a serial server a TTFAB is close to the sum of the last N service times): lag-k
 * autocorrelation about (N - k) / N. A server whose speed itself drifts (slow spells of seconds)
 * adds dependence over seconds, whatever N. An interval that assumes independent samples covers
 * the true p95 far less often than it says.
 *
 * The interval: batch sectioning (Asmussen and Glynn, "Stochastic Simulation", IV.5; Nakayama
 * 2014). The window is cut into b consecutive batches of m >= max(4 N, 40) samples,
 * 5 <= b <= 20. The centre is the p95 of the whole window; the spread comes from the batch p95s:
 *     se^2 = sum (q_i - centre)^2 / (b - 1) / (1 - N/m) / b
 *     [centre - t(b - 1, 1 - alpha_fail) se,  centre + t(b - 1, 1 - alpha_pass) se]
 * 1 / (1 - N/m) corrects the first-order shrinkage of a batch spread when batches are only a few
 * correlation lengths long. The tails are unequal: a false PASS depends only on the upper end,
 * whose one-sided level is the calibrated PASS_ALPHA; the lower end gets the rest of 5 %.
 *
 * Dependence diagnostics before any decisive look (the batches must be long enough to be nearly
 * independent, which N alone cannot promise when the server's speed drifts):
 *  - von Neumann ratio of the batch p95s in time order (sum of squared successive differences over
 *    the sum of squares about their mean; about 2 for independent batches). Below its one-sided
 *    5 % critical value 2 - 1.645 sqrt(4 (b - 2) / (b^2 - 1)) the batches are merged in pairs
 *    (twice as long, half as many) and tested again; if fewer than 5 would remain the look is
 *    not decisive ("dependent batches").
 *  - batch-size sensitivity: the standard error from half as many batches of twice the size; the
 *    larger of the two is used (a spread that grows with the batch size means the batches were
 *    too short).
 *  - a PASS on a window shorter than 3 x the rung's measure time needs its upper end x 1.3 within
 *    the SLO (SHORT_WINDOW_MARGIN: a short window caught in a fast spell must not pass).
 *
 * Group-sequential looks (adaptive rungs). Looks are taken when the window first holds 5 minimal
 * batches, again whenever its sample count has grown by half since the last look, once when the
 * window first becomes long enough to pass without the short-window margin, and at the end of the
 * hold. Each side spends its alpha by an O'Brien-Fleming-type Lan-DeMets function of the
 * information fraction t (window time / longest possible window):
 *     A(t) = 2 - 2 Phi(z(1 - a/2) / sqrt t),  A(1) = a,
 * a look spending A(t_k) - A(t_{k-1}) on that side; the final look spends what is left. Early
 * looks spend almost nothing, so only a clear margin stops a rung early. Futility: an interim
 * look whose interval straddles the SLO but lies inside +-5 % of it ends the rung "undecided near
 * the SLO" (more time would not decide it).
 *
 * The guarantee, as what it is: over the class of simulated servers in `CALIBRATION`
 * (src/stats/closed-loop-sim.ts; i.i.d., regime-switching, batching and replayed Kokoro service),
 * at the adaptive defaults, the probability that a rung whose true p95 equals the SLO ends in a
 * PASS is at most `CALIBRATION.falsePassBound` pooled over the class (the contract: <= 5 %; its
 * worst cell is recorded beside it), and the reported interval covers the true p95
 * `CALIBRATION.coverage` of the time pooled. These are simulated bounds,
 * not nominal levels: PASS_ALPHA was lowered until the simulation showed them (`npm run
 * bench:coverage`; test/stats/rung-decision-coverage.test.ts checks them on a reduced class).
 *
 * A miss (a request without audio: failed, rejected, or still waiting past the SLO) is a sample
 * above the SLO whose size is unknown. The p95 that touches a miss is +Infinity; for the batch
 * spread a miss is counted at max(2 x SLO, the largest TTFAB seen).
 */
import { type DriftOptions, type DriftResult, driftTest, quantileWithMisses } from './ladder-stats.js';
import { quantileSorted, sortedAscending } from './quantiles.js';
import { normalUpperQuantile, normalUpperTail, studentTQuantile } from './student-t.js';

/** The three outcomes of a rung. `undecided`: no decision at the stated level (never a pass). */
export type Verdict = 'pass' | 'fail' | 'undecided';

export const DECISION_METHOD = 'batch-sectioning-sequential';
/** A batch lasts at least this many turns of the closed loop (N completions each). */
export const BATCH_TURNS = 4;
/** ... and at least this many samples (a p95 of fewer is mostly interpolation). */
export const MIN_BATCH_SAMPLES = 40;
export const MIN_BATCHES = 5;
export const MAX_BATCHES = 20;
/** Two-sided nominal error of a rung's reported interval (both sides over all looks). */
export const FAMILY_ALPHA = 0.05;
/** One-sided alpha of the upper end (a false PASS), calibrated by simulation. */
export const PASS_ALPHA = 0.005;
/** One-sided alpha of the lower end (a false FAIL). */
export const FAIL_ALPHA = FAMILY_ALPHA - PASS_ALPHA;
/** The first look waits for this many minimal batches. */
export const FIRST_LOOK_BATCHES = 5;
/** A further interim look once the sample count has grown by this factor since the last. */
export const LOOK_GROWTH = 1.5;
/** Futility: an interval inside SLO x (1 +- this) that straddles the SLO stops the rung. */
export const FUTILITY_BAND = 0.05;
/**
 * A PASS on a window shorter than LONG_PASS_SPANS x the rung's measure time needs its upper end
 * this far inside the SLO (upper end x 1.3 <= SLO): the largest slowdown of the calibration class,
 * so that a short window caught in a fast spell cannot pass a server that is slower on average.
 */
export const SHORT_WINDOW_MARGIN = 0.3;
export const LONG_PASS_SPANS = 3;
/**
 * Slow-spell margins on a long window: a PASS before the final look needs upper end x 1.05 <= SLO,
 * at it x 1.02. A 90-110 s window holds five to seven cycles of the class's 5/10 s spells; one
 * that caught few slow spells looks calm in every batch (no dependence check sees what it missed).
 */
export const INTERIM_PASS_MARGIN = 0.05;
export const FINAL_PASS_MARGIN = 0.02;
/**
 * The continuity judge's PASS margin at every look (upper end x (1 + this) <= the underrun SLO):
 * a stall time amplifies a slow spell (a device 30 % slower streams below real time, and every
 * stream in the spell stalls), so the stall p95 of a window depends on how many spells it caught
 * far more than a first-audio p95 does. Calibrated by `npm run bench:coverage-stall`
 * (src/stats/stall-sim.ts), slow spells of 5 s in 15 s, 200 rungs a cell: P(PASS | stall p95 =
 * SLO) 4.0 % of 24 cells pooled at margin 0 (100 rungs; 6-9 % in 8 cells), 3.0 % at 0.05, 2.6 %
 * at 0.1 (worst cell 6.0 %), 2.0 % at 0.2 (worst cell 5.0 %).
 */
export const STALL_PASS_MARGIN = 0.2;
/**
 * The shortest window a drifting rung may cut itself to (its older half discarded): long enough
 * to pass without the short-window margin. Cutting further let a window shrink into one fast
 * spell of a server whose speed fluctuates, and pass there.
 */
export const shortestResettledWindowMs = (measureMs: number, minWindowMs: number): number =>
  Math.max(minWindowMs, LONG_PASS_SPANS * measureMs);
/** One-sided level of the von Neumann test for dependent batch p95s. */
export const VON_NEUMANN_Z = 1.6448536269514722;
export const DEFAULT_MIN_SAMPLES = 100;

/**
 * What the simulation shows for this decision (`npm run bench:coverage -- --reps 100`, full grid,
 * 74 cells): P(PASS | true p95 = SLO) pooled over the cells of the class (0.24 % measured, its
 * one-sided 95 % upper confidence bound 0.37 %; `falsePassBound` rounds it up) and in its worst
 * cell (4 %), and the coverage of the reported interval pooled (98.5 %) and in the worst cell (93 %).
 */
export const CALIBRATION = {
  falsePassBound: 0.01,
  worstCellFalsePass: 0.04,
  coverage: 0.98,
  worstCellCoverage: 0.93,
  class:
    'closed loops N 1-64, pooled over cells: serial and 4-slot lognormal service CV 0.1-0.5; 30 % slower spells ' +
    'of mean 2-10 s (regime switching); a batching server (up to 8); replayed Kokoro-82M device service; ' +
    'adaptive hold 120 s, measure 30 s. Worst cell: regime 5/10 s, N 4',
} as const;

export interface DecisionSettings {
  sloMs: number;
  /** N outstanding: sets the batch length. */
  concurrency: number;
  /** Fewer samples than this: never decisive (`--min-samples`, default 100). */
  minSamples?: number;
  drift?: DriftOptions;
}

export interface LookSpec {
  /** One-sided alpha of the upper end (the pass side) at this look. */
  passAlpha: number;
  /** One-sided alpha of the lower end (the fail side) at this look. */
  failAlpha: number;
  /** 1-based index of this look. */
  look: number;
  /** Most looks the rung could take (an upper bound for adaptive rungs). */
  maxLooks: number;
  /** A PASS needs upper end x (1 + passMargin) <= SLO (short windows, slow spells). Default 0. */
  passMargin?: number;
  /** Interim look (the rung may stop on it). */
  interim?: boolean;
}

/** The dependence checks of one look, recorded per rung. */
export interface DependenceDiagnostics {
  /** Batches the sample count allowed before any lengthening. */
  initialBatches: number;
  /** Times the batches were doubled because the von Neumann test found them dependent. */
  lengthened: number;
  /** von Neumann ratio of the batch p95s used (null without an interval). */
  vonNeumann: number | null;
  /** Its critical value at the batches used: below it the batches are dependent. */
  vonNeumannCritical: number | null;
  /** se from half as many batches of twice the size / se from the batches used. */
  halfBatchSeRatio: number | null;
  /** The batches passed the checks (false: dependent even at 5 batches: not decisive). */
  independent: boolean;
}

export interface RungDecision {
  method: typeof DECISION_METHOD;
  /** Samples judged, misses included. */
  n: number;
  /** Samples that were misses (no audio), counted as +Infinity. */
  misses: number;
  /** p95 of the window (+Infinity when it touches a miss). */
  p95: number | null;
  /** The p95 interval at `level`; high +Infinity when it reaches the misses; null: no interval. */
  interval: { low: number; high: number } | null;
  /** Two-sided confidence of this look's interval (1 - both sides' alpha at this look). */
  level: number;
  /** The two one-sided alphas of this look. */
  tails: { pass: number; fail: number };
  /** Nominal confidence of the whole rung's intervals (both sides, all looks): 0.95. */
  familyLevel: number;
  verdict: Verdict;
  /** pass or fail (an undecided rung is never decisive). */
  decisive: boolean;
  /** Undecided with an interval inside SLO +- 5 %: the rung sits at the SLO. */
  nearSlo: boolean;
  /** Effective sample size: the number of batches (0 when too few for an interval). */
  batches: number;
  /** Mean batch length, samples. */
  batchSize: number;
  /** The shortest batch the method accepts at this concurrency, samples. */
  minBatchSize: number;
  look: number;
  maxLooks: number;
  dependence: DependenceDiagnostics;
  drift: DriftResult;
  reason: string;
}

export const minBatchSize = (concurrency: number): number =>
  Math.max(BATCH_TURNS * Math.max(1, Math.round(concurrency)), MIN_BATCH_SAMPLES);

const fmtMs = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'no audio');
const fmtLevel = (level: number): string => `${(level * 100).toFixed(3).replace(/\.?0+$/, '')} %`;

export interface SectionedInterval {
  centre: number;
  low: number;
  high: number;
  batches: number;
  batchSize: number;
  batchQuantiles: number[];
}

function batchP95s(values: readonly number[], b: number): number[] {
  const n = values.length;
  const out: number[] = [];
  for (let i = 0; i < b; i++) {
    const batch = values.slice(Math.floor((i * n) / b), Math.floor(((i + 1) * n) / b));
    out.push(quantileSorted(sortedAscending(batch), 0.95) as number);
  }
  return out;
}

/** Standard error of the window's p95 from b batch p95s around `centre`. */
function sectioningSe(
  batchQuantiles: readonly number[],
  centre: number,
  n: number,
  concurrency: number,
): number {
  const b = batchQuantiles.length;
  const m = n / b;
  let sumSquares = 0;
  for (const q of batchQuantiles) sumSquares += (q - centre) ** 2;
  const variance = sumSquares / (b - 1) / (1 - Math.max(1, concurrency) / m);
  return Math.sqrt(Math.max(0, variance) / b);
}

/** von Neumann ratio of a series (about 2 when independent; small when positively dependent). */
export function vonNeumannRatio(series: readonly number[]): number | null {
  const b = series.length;
  if (b < 3) return null;
  const avg = series.reduce((s, v) => s + v, 0) / b;
  let num = 0;
  let den = 0;
  for (let i = 0; i < b; i++) {
    den += ((series[i] as number) - avg) ** 2;
    if (i > 0) num += ((series[i] as number) - (series[i - 1] as number)) ** 2;
  }
  return den > 0 ? num / den : null;
}

/** One-sided critical value of the von Neumann ratio for b independent values. */
export const vonNeumannCritical = (b: number): number =>
  2 - VON_NEUMANN_Z * Math.sqrt((4 * (b - 2)) / (b * b - 1));

/**
 * The plain batch-sectioning interval of the p95 (no dependence checks) at two-sided level
 * 1 - alpha, a quarter of it above: the closed-loop rule other decisions compare themselves with.
 * null when fewer than 5 batches of max(4 N, 40) samples fit.
 */
export function sectionedP95Interval(
  valuesInTimeOrder: ArrayLike<number>,
  concurrency: number,
  alpha: number,
): SectionedInterval | null {
  return sectionedWithTails(valuesInTimeOrder, concurrency, { pass: alpha / 4, fail: (3 * alpha) / 4 });
}

/** The batch-sectioning interval with given one-sided tails. */
export function sectionedWithTails(
  valuesInTimeOrder: ArrayLike<number>,
  concurrency: number,
  tails: { pass: number; fail: number },
): SectionedInterval | null {
  const n = valuesInTimeOrder.length;
  const b = Math.min(MAX_BATCHES, Math.floor(n / minBatchSize(concurrency)));
  if (b < MIN_BATCHES) return null;
  const values = Array.from(valuesInTimeOrder);
  const centre = quantileSorted(sortedAscending(values), 0.95) as number;
  const batchQuantiles = batchP95s(values, b);
  const se = sectioningSe(batchQuantiles, centre, n, concurrency);
  return {
    centre,
    low: Math.max(0, centre - studentTQuantile(1 - tails.fail, b - 1) * se),
    high: centre + studentTQuantile(1 - tails.pass, b - 1) * se,
    batches: b,
    batchSize: n / b,
    batchQuantiles,
  };
}

/**
 * The interval of a decisive look: batch sectioning after the dependence checks (von Neumann on
 * the batch p95s, lengthening batches while they fail it; the larger se of b and b/2 batches).
 */
export function checkedP95Interval(
  valuesInTimeOrder: ArrayLike<number>,
  concurrency: number,
  tails: { pass: number; fail: number },
): { interval: SectionedInterval | null; dependence: DependenceDiagnostics } {
  const n = valuesInTimeOrder.length;
  const initial = Math.min(MAX_BATCHES, Math.floor(n / minBatchSize(concurrency)));
  const none: DependenceDiagnostics = {
    initialBatches: Math.max(0, initial),
    lengthened: 0,
    vonNeumann: null,
    vonNeumannCritical: null,
    halfBatchSeRatio: null,
    independent: false,
  };
  if (initial < MIN_BATCHES) return { interval: null, dependence: none };
  const values = Array.from(valuesInTimeOrder);
  const centre = quantileSorted(sortedAscending(values), 0.95) as number;
  let b = initial;
  let lengthened = 0;
  let quantiles = batchP95s(values, b);
  let ratio = vonNeumannRatio(quantiles);
  let independent = ratio === null || ratio >= vonNeumannCritical(b);
  while (!independent && Math.floor(b / 2) >= MIN_BATCHES) {
    b = Math.floor(b / 2);
    lengthened++;
    quantiles = batchP95s(values, b);
    ratio = vonNeumannRatio(quantiles);
    independent = ratio === null || ratio >= vonNeumannCritical(b);
  }
  let se = sectioningSe(quantiles, centre, n, concurrency);
  let halfRatio: number | null = null;
  const half = Math.floor(b / 2);
  if (half >= 3) {
    const seHalf = sectioningSe(batchP95s(values, half), centre, n, concurrency);
    halfRatio = se > 0 ? seHalf / se : null;
    se = Math.max(se, seHalf);
  }
  return {
    interval: {
      centre,
      low: Math.max(0, centre - studentTQuantile(1 - tails.fail, b - 1) * se),
      high: centre + studentTQuantile(1 - tails.pass, b - 1) * se,
      batches: b,
      batchSize: n / b,
      batchQuantiles: quantiles,
    },
    dependence: {
      initialBatches: initial,
      lengthened,
      vonNeumann: ratio,
      vonNeumannCritical: vonNeumannCritical(b),
      halfBatchSeRatio: halfRatio,
      independent,
    },
  };
}

/** One look at a window of TTFAB samples (time order; +Infinity for misses). */
export function decideP95(
  samplesInTimeOrder: readonly number[],
  settings: DecisionSettings,
  look: LookSpec = { passAlpha: PASS_ALPHA, failAlpha: FAIL_ALPHA, look: 1, maxLooks: 1 },
): RungDecision {
  const { sloMs } = settings;
  const minSamples = Math.max(1, settings.minSamples ?? DEFAULT_MIN_SAMPLES);
  const n = samplesInTimeOrder.length;
  const sorted = sortedAscending(samplesInTimeOrder);
  let largestFinite = 0;
  let misses = 0;
  for (const v of sorted) {
    if (Number.isFinite(v)) largestFinite = v;
    else misses++;
  }
  const p95 = quantileWithMisses(sorted, 0.95);
  const missValue = Math.max(2 * sloMs, largestFinite);
  const imputed =
    misses > 0 ? samplesInTimeOrder.map((v) => (Number.isFinite(v) ? v : missValue)) : samplesInTimeOrder;
  const tails = { pass: look.passAlpha, fail: look.failAlpha };
  const { interval: section, dependence } = checkedP95Interval(imputed, settings.concurrency, tails);
  const drift = driftTest(samplesInTimeOrder, settings.drift);
  const shortest = minBatchSize(settings.concurrency);
  let interval: { low: number; high: number } | null = null;
  if (section) {
    const reachesMisses = misses > 0 && (p95 === Number.POSITIVE_INFINITY || section.high >= missValue);
    interval = { low: section.low, high: reachesMisses ? Number.POSITIVE_INFINITY : section.high };
  }
  const level = 1 - look.passAlpha - look.failAlpha;
  let verdict: Verdict = 'undecided';
  let nearSlo = false;
  let reason: string;
  const how = section
    ? `${section.batches} batches of ${Math.round(section.batchSize)} samples, look ${look.look} of <= ${look.maxLooks}`
    : '';
  if (!interval || !section) {
    reason = `${n} samples: too few for ${MIN_BATCHES} batches of >= ${shortest} (${BATCH_TURNS} x N, N = ${settings.concurrency}); no interval, undecided`;
  } else {
    const ci = `p95 ${fmtLevel(level)} CI [${fmtMs(interval.low)}, ${fmtMs(interval.high)}] (${how})`;
    if (interval.high <= sloMs) {
      verdict = 'pass';
      reason = `${ci} within the ${sloMs} ms SLO`;
    } else if (interval.low > sloMs) {
      verdict = 'fail';
      reason = `${ci} above the ${sloMs} ms SLO`;
    } else {
      reason = `${ci} straddles the ${sloMs} ms SLO`;
      nearSlo =
        dependence.independent &&
        interval.low >= sloMs * (1 - FUTILITY_BAND) &&
        interval.high <= sloMs * (1 + FUTILITY_BAND);
      if (nearSlo) reason += ` and lies within +-${FUTILITY_BAND * 100} % of it: undecided near the SLO`;
    }
    // The check guards a PASS only: a FAIL with the whole interval above the SLO needs no
    // protection against a false PASS (an overloaded rung's batches trend; it would never fail).
    if (verdict === 'pass' && !dependence.independent) {
      reason += ` (batch p95s dependent even in ${section.batches} batches: von Neumann ratio ${(dependence.vonNeumann ?? 0).toFixed(2)} < ${(dependence.vonNeumannCritical ?? 0).toFixed(2)}; undecided)`;
      verdict = 'undecided';
    }
    const margin = look.passMargin ?? 0;
    if (verdict === 'pass' && interval.high * (1 + margin) > sloMs) {
      reason +=
        margin === SHORT_WINDOW_MARGIN
          ? ` (a window this short passes only with its upper end x ${1 + margin} within the SLO: undecided)`
          : ` (a PASS ${look.interim ? 'before the final look' : 'at the final look'} needs its upper end x ${1 + margin} within the SLO: undecided)`;
      verdict = 'undecided';
    }
  }
  if (misses > 0) reason += `; ${misses} of ${n} samples are misses without audio`;
  if (verdict !== 'undecided' && n < minSamples) {
    reason += ` (only ${n} samples, --min-samples ${minSamples}: undecided)`;
    verdict = 'undecided';
  }
  return {
    method: DECISION_METHOD,
    n,
    misses,
    p95,
    interval,
    level,
    tails,
    familyLevel: 1 - FAMILY_ALPHA,
    verdict,
    decisive: verdict !== 'undecided',
    nearSlo,
    batches: section?.batches ?? 0,
    batchSize: section?.batchSize ?? 0,
    minBatchSize: shortest,
    look: look.look,
    maxLooks: look.maxLooks,
    dependence,
    drift,
    reason,
  };
}

/**
 * Alpha spent by information fraction t of a one-sided level a: O'Brien-Fleming type
 * (Lan and DeMets 1983), 2 - 2 Phi(z(1 - a/2) / sqrt t); a at t = 1, almost nothing early.
 */
export function obrienFlemingSpent(a: number, t: number): number {
  if (t >= 1) return a;
  if (!(t > 0)) return 0;
  return Math.min(a, 2 * normalUpperTail(normalUpperQuantile(a / 2) / Math.sqrt(t)));
}

export interface JudgeSettings extends DecisionSettings {
  /** adaptive: interim looks allowed; fixed: one look when the hold ends. */
  mode: 'adaptive' | 'fixed';
  /**
   * The rung's nominal measure time, ms: a PASS on a window shorter than LONG_PASS_SPANS x this
   * needs the SHORT_WINDOW_MARGIN. Default 0 (no margin).
   */
  measureMs?: number;
  /** A PASS needs at least this margin at every look (the continuity judge: STALL_PASS_MARGIN). @default 0 */
  minPassMargin?: number;
}

/** Where the rung is in its hold when it looks. */
export interface LookTiming {
  /** Length of the current window, ms. */
  windowMs: number;
  /** Longest window the rung could still reach (to the end of its hold), ms. */
  maxWindowMs: number;
}

export interface JudgeStep {
  /** The look taken at this step, if one was due. */
  decision: RungDecision | null;
  /** The rung ends: a decisive and settled look, futility, or the hold is over. */
  stop: boolean;
}

/**
 * The continuity (stall) judge a rung runs beside its first-audio one: the same method at the same
 * level, with STALL_PASS_MARGIN at every look. The rung (src/load/closed/rung.ts) and the stall
 * simulation's proof (test/stats/stall-decision-coverage.test.ts) build it here.
 */
export function continuityJudge(settings: JudgeSettings): RungJudge {
  return new RungJudge({ ...settings, minPassMargin: STALL_PASS_MARGIN });
}

/** Upper bound on the looks of an adaptive rung (5 minimal batches growing by half to 20 x). */
const MAX_ADAPTIVE_LOOKS = 12;

/**
 * The sequential procedure of one rung: when to look, what each look spends, when to stop. The
 * rung (src/load/closed/rung.ts) calls `step` on every tick with its measure window; the coverage
 * simulation calls the very same method on simulated windows.
 */
export class RungJudge {
  private looks = 0;
  private spent = { pass: 0, fail: 0 };
  private lastLookN = 0;
  private lookedLong = false;
  private latest: RungDecision | null = null;

  constructor(readonly settings: JudgeSettings) {}

  get maxLooks(): number {
    return this.settings.mode === 'adaptive' ? MAX_ADAPTIVE_LOOKS : 1;
  }

  get looksTaken(): number {
    return this.looks;
  }

  /** The last look taken (null before the first). */
  get decision(): RungDecision | null {
    return this.latest;
  }

  /**
   * The window a PASS needs to go without the short-window margin: LONG_PASS_SPANS x the measure
   * time, never longer than most of the longest window the hold allows (a --measure-s close to the
   * hold would otherwise demand the margin of every pass).
   */
  private longSpanMs(timing?: LookTiming): number {
    return Math.min(
      LONG_PASS_SPANS * (this.settings.measureMs ?? 0),
      0.85 * (timing?.maxWindowMs ?? Number.POSITIVE_INFINITY),
    );
  }

  /**
   * How far inside the SLO a PASS must put the upper end: SHORT_WINDOW_MARGIN on a short window;
   * on an adaptive rung's long window INTERIM_PASS_MARGIN before the final look and
   * FINAL_PASS_MARGIN at it (the calibration class's slow spells); none on a fixed rung's.
   */
  private passMargin(final: boolean, longSpanMs: number, timing?: LookTiming): number {
    const floor = this.settings.minPassMargin ?? 0;
    if (timing && timing.windowMs < longSpanMs) return Math.max(SHORT_WINDOW_MARGIN, floor);
    if (this.settings.mode !== 'adaptive') return floor;
    return Math.max(final ? FINAL_PASS_MARGIN : INTERIM_PASS_MARGIN, floor);
  }

  /** Is an interim look due for a window of n samples? */
  interimDue(n: number): boolean {
    if (this.settings.mode !== 'adaptive' || this.looks >= MAX_ADAPTIVE_LOOKS - 1) return false;
    const first = FIRST_LOOK_BATCHES * minBatchSize(this.settings.concurrency);
    return n >= Math.max(first, Math.ceil(LOOK_GROWTH * this.lastLookN));
  }

  /** Takes a look now: an interim one at information fraction t, or the final one (all alpha left). */
  look(samplesInTimeOrder: readonly number[], final: boolean, timing?: LookTiming): RungDecision {
    const t = final
      ? 1
      : timing && timing.maxWindowMs > 0
        ? Math.min(1, Math.max(0.01, Math.round((100 * timing.windowMs) / timing.maxWindowMs) / 100))
        : 0.5;
    const target = {
      pass: obrienFlemingSpent(PASS_ALPHA, t),
      fail: obrienFlemingSpent(FAIL_ALPHA, t),
    };
    // Never less than a sliver: a look with no alpha at all would have an infinite interval.
    const passAlpha = Math.max(target.pass - this.spent.pass, 1e-9);
    const failAlpha = Math.max(target.fail - this.spent.fail, 1e-9);
    this.looks++;
    this.spent = { pass: this.spent.pass + passAlpha, fail: this.spent.fail + failAlpha };
    this.lastLookN = samplesInTimeOrder.length;
    const longSpan = this.longSpanMs(timing);
    if (timing && timing.windowMs >= longSpan) this.lookedLong = true;
    this.latest = decideP95(samplesInTimeOrder, this.settings, {
      passAlpha,
      failAlpha,
      look: this.looks,
      maxLooks: this.maxLooks,
      passMargin: this.passMargin(final, longSpan, timing),
      interim: !final,
    });
    return this.latest;
  }

  /**
   * One tick of the rung with its current window. At the end of the hold the final look is
   * always taken; before it, an interim look when due, and the rung stops on a decisive look whose
   * window is settled, or on futility (undecided near the SLO).
   */
  step(samplesInTimeOrder: readonly number[], atHoldEnd: boolean, timing?: LookTiming): JudgeStep {
    if (atHoldEnd) return { decision: this.look(samplesInTimeOrder, true, timing), stop: true };
    // A look is also due the first time the window is long enough to pass without the margin.
    const longDue =
      timing !== undefined &&
      !this.lookedLong &&
      this.looks > 0 &&
      this.looks < MAX_ADAPTIVE_LOOKS - 1 &&
      timing.windowMs >= this.longSpanMs(timing);
    if (!longDue && !this.interimDue(samplesInTimeOrder.length)) return { decision: null, stop: false };
    const decision = this.look(samplesInTimeOrder, false, timing);
    const settled = decision.drift.settled;
    return { decision, stop: settled && (decision.decisive || decision.nearSlo) };
  }
}
