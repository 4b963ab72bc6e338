/**
 * Is the p95 TTFAB of one rung within the SLO? A decision that keeps its stated level for
 * closed-loop latencies and for repeated looks. Pure functions of their inputs.
 *
 * The data. At N outstanding requests a closed loop's consecutive TTFABs share most of their
 * queue (on a serial server a TTFAB is close to the sum of the last N service times): lag-k
 * autocorrelation about (N - k) / N. A window of n samples holds about n / N independent ones, so
 * an interval that assumes independent samples (binomial order statistics) covers the true p95
 * far less often than it says (28-58 % for a claimed 95 % at N 10-50). After N completions every
 * request in the system has been replaced, so the dependence reaches about N completions.
 *
 * The interval: batch sectioning (Asmussen and Glynn, "Stochastic Simulation", IV.5; Nakayama,
 * "Confidence intervals using sectioning for quantiles", 2014). The window is cut into b
 * consecutive batches of m >= max(4 N, 40) samples, 5 <= b <= 20. The centre is the p95 of the
 * whole window; the spread comes from the batch p95s around it:
 *     se^2 = sum (q_i - centre)^2 / (b - 1) / (1 - N/m) / b
 *     [centre - t(b - 1, 1 - 3 alpha/4) se,  centre + t(b - 1, 1 - alpha/4) se]
 * The factor 1 / (1 - N/m) corrects the known first-order shrinkage of a batch variance when
 * batches are only a few correlation lengths long (for a dependence over ~N samples, a batch
 * spread underestimates the variance by a fraction of order N/m); with m >= 4 N it is at most
 * 4/3. The tails are unequal on purpose: the p95 of a closed-loop window is skewed low (slow
 * requests come in bursts; a window that caught fewer bursts looks both faster and tighter), so
 * a symmetric interval's upper end falls below the true p95 about twice as often as it says
 * (~5 % for a nominal 2.5 % at N 16-64 in simulation). Its upper side, the one a false pass
 * depends on, therefore gets a quarter of the look's alpha and the lower side three quarters:
 * the two-sided level is unchanged and both sides then hold in simulation. The effective sample
 * size is b. With fewer than 5 such batches there is no interval: the rung is undecided, never a
 * decisive pass.
 *
 * A miss (a request without audio: failed, rejected, or still waiting past the SLO) is a sample
 * above the SLO whose size is unknown. The p95 that touches a miss is +Infinity; for the batch
 * spread a miss is counted at max(2 x SLO, the largest TTFAB seen), which cannot move a verdict
 * across the SLO (only whether a value exceeds the SLO matters) and makes the spread larger, not
 * smaller, than any finite stand-in below it.
 *
 * Repeated looks. An adaptive rung may stop as soon as a look is decisive, which alone would
 * inflate its error rates (optional stopping). A rung takes at most 3 looks: 2 interim looks,
 * each at alpha 0.0125 (98.75 % intervals), when the window first holds 10 minimal batches and
 * again when it has doubled since, and a final look when the hold ends that spends whatever alpha
 * is left (97.5 % to 95 %). By Bonferroni the intervals of all looks hold together with
 * probability >= 95 %, so the interval reported when the rung ends covers the true p95 with
 * probability >= 95 %, and a rung whose true p95 is at the SLO ends in a decisive pass with
 * probability <= 1.25 % nominal (the upper quarter of 5 %; the simulation measures what it really
 * is). A fixed rung (the reference method) takes one look at the end, 95 %.
 *
 * Proven by simulation: test/stats/rung-decision-coverage.test.ts (a reduced grid) and
 * `npm run bench:coverage` (N 1-64, CV 0.1-0.5, serial and 4-slot servers).
 */
import { type DriftOptions, type DriftResult, driftTest, quantileWithMisses } from './ladder-stats.js';
import { quantileSorted, sortedAscending } from './quantiles.js';
import { studentTQuantile } from './student-t.js';

/** The three outcomes of a rung. `undecided`: no decision at the stated level (never a pass). */
export type Verdict = 'pass' | 'fail' | 'undecided';

export const DECISION_METHOD = 'batch-sectioning';
/** A batch lasts at least this many turns of the closed loop (N completions each). */
export const BATCH_TURNS = 4;
/** ... and at least this many samples (a p95 of fewer is mostly interpolation). */
export const MIN_BATCH_SAMPLES = 40;
export const MIN_BATCHES = 5;
export const MAX_BATCHES = 20;
/** Family-wise two-sided error of all the looks of one rung together. */
export const FAMILY_ALPHA = 0.05;
/** Share of a look's alpha spent above the interval (the side a false pass depends on). */
export const UPPER_TAIL_SHARE = 0.25;
export const INTERIM_LOOKS = 2;
export const INTERIM_ALPHA = 0.0125;
/** The first interim look waits for this many minimal batches. */
export const FIRST_LOOK_BATCHES = 10;
export const DEFAULT_MIN_SAMPLES = 100;

export interface DecisionSettings {
  sloMs: number;
  /** N outstanding: sets the batch length. */
  concurrency: number;
  /** Fewer samples than this: never decisive (`--min-samples`, default 100). */
  minSamples?: number;
  drift?: DriftOptions;
}

export interface LookSpec {
  /** Two-sided alpha this look spends. */
  alpha: number;
  /** 1-based index of this look. */
  look: number;
  /** Most looks the rung could take. */
  maxLooks: number;
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
  /** Two-sided confidence of this look's interval (1 - its alpha). */
  level: number;
  /** Confidence of all looks' intervals holding together (Bonferroni), 0.95. */
  familyLevel: number;
  verdict: Verdict;
  /** pass or fail (an undecided rung is never decisive). */
  decisive: boolean;
  /** Effective sample size: the number of batches (0 when too few for an interval). */
  batches: number;
  /** Mean batch length, samples. */
  batchSize: number;
  /** The shortest batch the method accepts at this concurrency, samples. */
  minBatchSize: number;
  look: number;
  maxLooks: number;
  drift: DriftResult;
  reason: string;
}

export const minBatchSize = (concurrency: number): number =>
  Math.max(BATCH_TURNS * Math.max(1, Math.round(concurrency)), MIN_BATCH_SAMPLES);

const fmtMs = (v: number): string => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : 'no audio');
const fmtLevel = (level: number): string => `${(level * 100).toFixed(2).replace(/\.?0+$/, '')} %`;

export interface SectionedInterval {
  centre: number;
  low: number;
  high: number;
  batches: number;
  batchSize: number;
  batchQuantiles: number[];
}

/**
 * The batch-sectioning interval of the p95 of finite samples in time order, at two-sided level
 * 1 - alpha. null when fewer than 5 batches of max(4 N, 40) samples fit. Exposed for tests and
 * for intervals over successful requests only.
 */
export function sectionedP95Interval(
  valuesInTimeOrder: ArrayLike<number>,
  concurrency: number,
  alpha: number,
): SectionedInterval | null {
  const n = valuesInTimeOrder.length;
  const shortest = minBatchSize(concurrency);
  const b = Math.min(MAX_BATCHES, Math.floor(n / shortest));
  if (b < MIN_BATCHES) return null;
  const values = Array.from(valuesInTimeOrder);
  const centre = quantileSorted(sortedAscending(values), 0.95) as number;
  const batchQuantiles: number[] = [];
  for (let i = 0; i < b; i++) {
    const batch = values.slice(Math.floor((i * n) / b), Math.floor(((i + 1) * n) / b));
    batchQuantiles.push(quantileSorted(sortedAscending(batch), 0.95) as number);
  }
  const m = n / b;
  let sumSquares = 0;
  for (const q of batchQuantiles) sumSquares += (q - centre) ** 2;
  const variance = sumSquares / (b - 1) / (1 - Math.max(1, concurrency) / m);
  const se = Math.sqrt(variance / b);
  return {
    centre,
    low: Math.max(0, centre - studentTQuantile(1 - (1 - UPPER_TAIL_SHARE) * alpha, b - 1) * se),
    high: centre + studentTQuantile(1 - UPPER_TAIL_SHARE * alpha, b - 1) * se,
    batches: b,
    batchSize: m,
    batchQuantiles,
  };
}

/** One look at a window of TTFAB samples (time order; +Infinity for misses). */
export function decideP95(
  samplesInTimeOrder: readonly number[],
  settings: DecisionSettings,
  look: LookSpec = { alpha: FAMILY_ALPHA, look: 1, maxLooks: 1 },
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
  const section = sectionedP95Interval(imputed, settings.concurrency, look.alpha);
  const drift = driftTest(samplesInTimeOrder, settings.drift);
  const shortest = minBatchSize(settings.concurrency);
  let interval: { low: number; high: number } | null = null;
  if (section) {
    const reachesMisses = misses > 0 && (p95 === Number.POSITIVE_INFINITY || section.high >= missValue);
    interval = { low: section.low, high: reachesMisses ? Number.POSITIVE_INFINITY : section.high };
  }
  const level = 1 - look.alpha;
  let verdict: Verdict = 'undecided';
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
    familyLevel: 1 - FAMILY_ALPHA,
    verdict,
    decisive: verdict !== 'undecided',
    batches: section?.batches ?? 0,
    batchSize: section?.batchSize ?? 0,
    minBatchSize: shortest,
    look: look.look,
    maxLooks: look.maxLooks,
    drift,
    reason,
  };
}

export interface JudgeSettings extends DecisionSettings {
  /** adaptive: interim looks allowed; fixed: one look when the hold ends. */
  mode: 'adaptive' | 'fixed';
}

export interface JudgeStep {
  /** The look taken at this step, if one was due. */
  decision: RungDecision | null;
  /** The rung ends: a decisive and settled look, or the hold is over. */
  stop: boolean;
}

/**
 * The sequential procedure of one rung: when to look, what each look spends, when to stop. The
 * rung (src/load/closed/rung.ts) calls `step` on every tick with its measure window; the coverage
 * simulation calls the very same method on simulated windows.
 */
export class RungJudge {
  private looks = 0;
  private spent = 0;
  private lastLookN = 0;
  private latest: RungDecision | null = null;

  constructor(readonly settings: JudgeSettings) {}

  get maxLooks(): number {
    return this.settings.mode === 'adaptive' ? INTERIM_LOOKS + 1 : 1;
  }

  get looksTaken(): number {
    return this.looks;
  }

  /** The last look taken (null before the first). */
  get decision(): RungDecision | null {
    return this.latest;
  }

  /** Is an interim look due for a window of n samples? */
  interimDue(n: number): boolean {
    if (this.settings.mode !== 'adaptive' || this.looks >= INTERIM_LOOKS) return false;
    const first = FIRST_LOOK_BATCHES * minBatchSize(this.settings.concurrency);
    return n >= Math.max(first, 2 * this.lastLookN);
  }

  /** Takes a look now: an interim one, or the final one that spends all alpha left. */
  look(samplesInTimeOrder: readonly number[], final: boolean): RungDecision {
    const alpha = final ? FAMILY_ALPHA - this.spent : INTERIM_ALPHA;
    this.looks++;
    this.spent += alpha;
    this.lastLookN = samplesInTimeOrder.length;
    this.latest = decideP95(samplesInTimeOrder, this.settings, {
      alpha,
      look: this.looks,
      maxLooks: this.maxLooks,
    });
    return this.latest;
  }

  /**
   * One tick of the rung with its current window. At the end of the hold the final look is
   * always taken; before it, an interim look when due, and the rung stops on a decisive look whose
   * window is settled.
   */
  step(samplesInTimeOrder: readonly number[], atHoldEnd: boolean): JudgeStep {
    if (atHoldEnd) return { decision: this.look(samplesInTimeOrder, true), stop: true };
    if (!this.interimDue(samplesInTimeOrder.length)) return { decision: null, stop: false };
    const decision = this.look(samplesInTimeOrder, false);
    return { decision, stop: decision.decisive && decision.drift.settled };
  }
}
