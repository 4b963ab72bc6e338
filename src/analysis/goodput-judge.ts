/**
 * A goodput rung judged from its serialised HDR windows: the open-loop group-sequential p95
 * decision (src/stats/open-loop-decision.ts) with the count limits (overflows, errors) at every
 * look, and the figures an artifact records. One code path for a single process and for merged
 * shards: the verdict always comes from the windows, never from samples only one process saw.
 * The live rung (src/load/open/open-rung.ts) asks `liveLook` at each look whether to stop; the
 * artifact's verdict is the replay of the same looks on the complete windows.
 *
 * No survivorship: every arrival of the measure window counts; overflows, errors, timeouts and
 * dropped arrivals are misses at +infinity in the p95, and, live, so are requests still in flight
 * past the look's lag.
 */

import type { OpenLoopHistograms, OpenLoopOutcome } from '../model/histograms.js';
import {
  countAboveMs,
  decodeWindow,
  type Histogram,
  type LiveWindow,
  newHistogram,
  quantileMs,
  sumWindows,
} from '../stats/histograms.js';
import { decideOpenLoopLook, lookSpending, type WindowedSamples } from '../stats/open-loop-decision.js';
import {
  type GoodputLimits,
  isOverflow,
  type OutcomeBatch,
  overflowAndErrorLimits,
} from '../stats/open-loop-limits.js';
import { lookLagMs } from '../stats/open-loop-rung-sim.js';
import {
  decideOpenLoopSequential,
  type SequentialDecision,
  withLookLimits,
} from '../stats/open-loop-sequential.js';
import type { RungJudgement } from './goodput.js';

export interface RungJudgeSettings {
  sloMs: number;
  holdS: number;
  settleS: number;
  limits: GoodputLimits;
  /** A rung is never decisive on fewer arrivals. @default 100 */
  minSamples?: number;
  /** Measure span (s) at which the rung stopped on a decisive look; absent: it ran its hold. */
  stoppedAtS?: number | null;
}

/** A rung judged from its windows: the analysis' judgement with the decision in full. */
export interface JudgedRung extends RungJudgement {
  decision: SequentialDecision;
  /** Seconds of intended send time judged (whole windows inside [settle, stop or hold)). */
  measureS: number;
}

/** Window indices [from, to) wholly inside [settleS, holdS) of intended send time. */
export function measureWindows(
  windowMs: number,
  settleS: number,
  holdS: number,
): { from: number; to: number } {
  return { from: Math.ceil((settleS * 1000) / windowMs), to: Math.floor((holdS * 1000) / windowMs) };
}

/** A rung's measure window, window by window: what every look reads. */
export interface RungWindows {
  windowMs: number;
  /** Answered (with a TTFAB) per window. */
  counts: number[];
  /** Every other arrival per window (overflow, error, timeout, drop, in flight past the lag). */
  misses: number[];
  overflow: number[];
  errors: number[];
  /** Seconds in system per window (Little's L numerator). */
  inSystemS: number[];
  /** Completion latency from the intended send time per window (complete windows only: a look replayed). */
  latency?: (Histogram | null)[];
  /** Window index (from the schedule start) of the first window. */
  firstIndex?: number;
  /** q-quantile of the answered TTFABs of windows [a, b). */
  quantile(a: number, b: number, q: number): number | null;
}

/**
 * The first `spanS` seconds of a rung's windows as the decision reads them. Complete windows
 * replaying a look taken `lookAtMs` after the schedule start (null: the hold's last look, which
 * sees every request finished) count what was still in flight then as misses, as the live look
 * did: a request of window w whose latency exceeds lookAtMs - the end of w (ok or not: a late
 * error counted twice only adds misses, never a pass).
 */
export function prefixOf(r: RungWindows, spanS: number, lookAtMs: number | null = null): WindowedSamples {
  const k = Math.min(r.counts.length, Math.floor((spanS * 1000) / r.windowMs + 1e-9));
  let inSystem = 0;
  for (let w = 0; w < k; w++) inSystem += r.inSystemS[w] as number;
  const seconds = (k * r.windowMs) / 1000;
  const counts = r.counts.slice(0, k);
  const misses = r.misses.slice(0, k);
  let censored = false;
  if (lookAtMs !== null && r.latency) {
    for (let w = 0; w < k; w++) {
      const h = r.latency[w];
      const end = ((r.firstIndex ?? 0) + w + 1) * r.windowMs;
      const late = h ? Math.min(counts[w] as number, countAboveMs(h, lookAtMs - end)) : 0;
      if (late > 0) {
        counts[w] = (counts[w] as number) - late;
        misses[w] = (misses[w] as number) + late;
        censored = true;
      }
    }
  }
  // The censored are the slowest of their window, above the quantiles a decision reads below
  // them: the answered quantile is the complete one at the same rank.
  const quantile = censored
    ? (a: number, b: number, q: number) => {
        let all = 0;
        let kept = 0;
        for (let w = a; w < b; w++) {
          all += r.counts[w] as number;
          kept += counts[w] as number;
        }
        return kept === 0 ? null : r.quantile(a, b, (q * kept) / all);
      }
    : r.quantile;
  return {
    counts,
    misses,
    meanInSystem: seconds > 0 ? inSystem / seconds : 0,
    quantile,
    windowS: r.windowMs / 1000,
  };
}

/** The count limits over the first `spanS` seconds (with 10 batches of windows for the design effect). */
export function limitsAt(r: RungWindows, spanS: number, rate: number, s: RungJudgeSettings) {
  const k = Math.min(r.counts.length, Math.floor((spanS * 1000) / r.windowMs + 1e-9));
  const outcomeCounts: Partial<Record<OpenLoopOutcome, number>> = {};
  const batches: OutcomeBatch[] = [];
  let ok = 0;
  let overflow = 0;
  let errors = 0;
  const per = Math.max(1, Math.ceil(k / 10));
  for (let w = 0; w < k; w++) {
    ok += r.counts[w] as number;
    overflow += r.overflow[w] as number;
    errors += r.errors[w] as number;
    if (w % per === 0) batches.push({ offered: 0, overflow: 0, errors: 0 });
    const b = batches[batches.length - 1] as OutcomeBatch;
    b.offered += (r.counts[w] as number) + (r.misses[w] as number);
    b.overflow += r.overflow[w] as number;
    b.errors += r.errors[w] as number;
  }
  outcomeCounts.ok = ok;
  outcomeCounts.saturated_503 = overflow;
  outcomeCounts.error = errors;
  const offered = batches.reduce((a, b) => a + b.offered, 0);
  return overflowAndErrorLimits(
    { rate, sloMs: s.sloMs, ttfabIntendedMs: [], intendedAtMs: [], outcomeCounts, offered, batches },
    s.limits,
  );
}

/**
 * What a rung's decision judges: `ttfab` (first audio from the intended send time) or `stall`
 * (per-stream playback stall of multi-chunk streams). Both count every arrival without an ok
 * outcome as a miss; an ok single-chunk stream is neither a sample nor a miss of `stall`.
 */
export type JudgedSeries = 'ttfab' | 'stall';

const seriesOf = (w: LiveWindow, series: JudgedSeries): Histogram =>
  series === 'stall' ? w.audio.stall : w.series.ttfab_intended;

/** The measure window's windows from serialised HDR windows. */
export function rungWindowsOf(
  h: OpenLoopHistograms,
  s: RungJudgeSettings,
  where: string,
  series: JudgedSeries = 'ttfab',
): RungWindows {
  const { from, to } = measureWindows(h.window_ms, s.settleS, s.holdS);
  const decoded: LiveWindow[] = [];
  for (const w of h.windows) if (w.index >= from && w.index < to) decoded.push(decodeWindow(w, where));
  return rungWindowsFrom(decoded, h.window_ms, s, null, series);
}

/**
 * The measure window's windows from live ones at a look `lookAtMs` after the schedule start: an
 * arrival offered without an outcome yet is in flight, a miss, in the system since its window.
 */
export function rungWindowsFrom(
  windows: readonly LiveWindow[],
  windowMs: number,
  s: Pick<RungJudgeSettings, 'settleS' | 'holdS'>,
  lookAtMs: number | null,
  series: JudgedSeries = 'ttfab',
): RungWindows {
  const { from, to } = measureWindows(windowMs, s.settleS, s.holdS);
  const byIndex = new Map<number, LiveWindow>();
  for (const w of windows) if (w.index >= from && w.index < to) byIndex.set(w.index, w);
  const r: RungWindows = {
    windowMs,
    firstIndex: from,
    ...(lookAtMs === null ? { latency: [] } : {}),
    counts: [],
    misses: [],
    overflow: [],
    errors: [],
    inSystemS: [],
    quantile: (a, b, q) => {
      const sum = newHistogram();
      for (let i = from + a; i < from + b; i++) {
        const w = byIndex.get(i);
        if (w) sum.add(seriesOf(w, series));
      }
      return quantileMs(sum, q);
    },
  };
  for (let i = from; i < to; i++) {
    const w = byIndex.get(i);
    const answered = w ? seriesOf(w, series).totalCount : 0;
    let overflow = 0;
    let errors = 0;
    let finished = 0;
    for (const [o, n] of Object.entries(w?.outcomes ?? {}) as Array<[OpenLoopOutcome, number]>) {
      finished += n;
      if (o === 'ok') continue;
      if (isOverflow(o)) overflow += n;
      else errors += n;
    }
    const latency = w?.series.latency_intended;
    const inFlight = Math.max(0, (w?.offered ?? 0) - finished);
    r.latency?.push(w?.series.latency_intended ?? null);
    r.counts.push(answered);
    // An ok single-chunk stream has no stall: neither a sample nor a miss of the stall series.
    const unjudged = series === 'stall' && w ? (w.outcomes.ok ?? 0) - answered : 0;
    r.misses.push(Math.max(0, (w?.offered ?? 0) - answered - unjudged));
    r.overflow.push(overflow);
    r.errors.push(errors);
    // HDR values are microseconds; a request in flight has been in the system since its window ended at least.
    const waiting = lookAtMs === null ? 0 : (inFlight * Math.max(0, lookAtMs - (i + 1) * windowMs)) / 1000;
    r.inSystemS.push((latency ? (latency.mean * latency.totalCount) / 1e6 : 0) + waiting);
  }
  return r;
}

/** Whether the live rung stops at the look of `spanS`: a decisive look (pass, fail, or undecided near the SLO). */
export function liveLook(
  r: RungWindows,
  rate: number,
  spanS: number,
  s: RungJudgeSettings,
): { stop: boolean; reason: string; verdict: 'pass' | 'fail' | 'undecided' } {
  const maxSpanS = s.holdS - s.settleS;
  const spending = lookSpending(maxSpanS);
  const look = spending.find((l) => Math.abs(l.spanS - spanS) < 1e-9);
  const last = spending[spending.length - 1];
  if (!look || !last) return { stop: false, reason: `no look at ${spanS} s`, verdict: 'undecided' };
  const d = withLookLimits(
    decideOpenLoopLook(
      prefixOf(r, spanS),
      { sloMs: s.sloMs, minSamples: s.minSamples },
      { ...look, final: false, last },
    ),
    limitsAt(r, spanS, rate, s),
  );
  return { stop: d.stop, reason: d.reason, verdict: d.verdict };
}

export function judgeRung(
  h: OpenLoopHistograms,
  rate: number,
  s: RungJudgeSettings,
  where: string,
): JudgedRung {
  const r = rungWindowsOf(h, s, where);
  const maxSpanS = s.holdS - s.settleS;
  const availableS = s.stoppedAtS ?? maxSpanS;
  const lag = lookLagMs(s.sloMs, h.window_ms);
  // Each look replayed as the live rung took it: what was in flight then is a miss.
  const lookAt = (span: number) => (span >= maxSpanS - 1e-9 ? null : (s.settleS + span) * 1000 + lag);
  const decision = decideOpenLoopSequential((span) => prefixOf(r, span, lookAt(span)), {
    sloMs: s.sloMs,
    minSamples: s.minSamples,
    maxSpanS,
    availableS,
    limits: (span) => limitsAt(r, span, rate, s),
  });
  const { from } = measureWindows(h.window_ms, s.settleS, s.holdS);
  const judgedTo = from + Math.floor((decision.stoppedAtS * 1000) / h.window_ms + 1e-9);
  const inRange: LiveWindow[] = [];
  for (const w of h.windows) {
    if (w.index >= from && w.index < judgedTo) inRange.push(decodeWindow(w, where));
  }
  const measureS = ((judgedTo - from) * h.window_ms) / 1000;
  const total = sumWindows(inRange, from, judgedTo);
  const offered = total.offered;
  const outcomeCounts = total.outcomes;
  let overflow = 0;
  let errors = 0;
  for (const [outcome, n] of Object.entries(outcomeCounts) as Array<[OpenLoopOutcome, number]>) {
    if (outcome === 'ok') continue;
    if (isOverflow(outcome)) overflow += n;
    else errors += n;
  }
  const ok = outcomeCounts.ok ?? 0;
  const latency = total.series.latency_intended;
  return {
    verdict: decision.verdict,
    reason: decision.reason,
    decision,
    offered,
    sent: total.sent,
    ok,
    outcomeCounts,
    overflowFraction: offered > 0 ? overflow / offered : 0,
    errorFraction: offered > 0 ? errors / offered : 0,
    measureS,
    sentRps: measureS > 0 ? total.sent / measureS : 0,
    goodputRps: measureS > 0 ? ok / measureS : 0,
    ttfabP50Ms: quantileMs(total.series.ttfab_intended, 0.5),
    // With misses at +infinity (null above 5 % misses: no finite p95).
    ttfabP95Ms: decision.p95 !== null && Number.isFinite(decision.p95) ? decision.p95 : null,
    ttfabP99Ms: quantileMs(total.series.ttfab_intended, 0.99),
    ttfabSentP95Ms: quantileMs(total.series.ttfab_sent, 0.95),
    latencyP95Ms: quantileMs(latency, 0.95),
    sendLagP99Ms: quantileMs(total.series.send_lag, 0.99),
  };
}
