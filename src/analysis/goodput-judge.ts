/**
 * A goodput rung judged from its serialised HDR windows: the count limits (overflows, errors),
 * then the open-loop p95 decision (src/stats/open-loop-decision.ts) over the measure window, and
 * the figures an artifact records. One code path for a single process and for merged shards: the
 * verdict always comes from the windows, never from samples only one process saw.
 */

import type { OpenLoopHistograms, OpenLoopOutcome } from '../model/histograms.js';
import { decodeWindow, type LiveWindow, newHistogram, quantileMs, sumWindows } from '../stats/histograms.js';
import {
  decideOpenLoopP95,
  type OpenLoopDecision,
  type WindowedSamples,
} from '../stats/open-loop-decision.js';
import { type GoodputLimits, overflowAndErrorLimits } from '../stats/open-loop-limits.js';
import type { RungJudgement } from './goodput.js';

export interface RungJudgeSettings {
  sloMs: number;
  holdS: number;
  settleS: number;
  limits: GoodputLimits;
  /** A rung is never decisive on fewer ok samples. @default 100 */
  minSamples?: number;
}

/** A rung judged from its windows: the analysis' judgement with the decision in full. */
export interface JudgedRung extends RungJudgement {
  decision: OpenLoopDecision;
  /** Seconds of intended send time judged (whole windows inside [settle, hold)). */
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

const OVERFLOW: readonly OpenLoopOutcome[] = ['saturated_503', 'throttled_429'];

export function judgeRung(
  h: OpenLoopHistograms,
  rate: number,
  s: RungJudgeSettings,
  where: string,
): JudgedRung {
  const { from, to } = measureWindows(h.window_ms, s.settleS, s.holdS);
  const byIndex = new Map<number, LiveWindow>();
  for (const w of h.windows) {
    if (w.index >= from && w.index < to) byIndex.set(w.index, decodeWindow(w, where));
  }
  const inRange: LiveWindow[] = [];
  for (let i = from; i < to; i++) {
    const w = byIndex.get(i);
    if (w) inRange.push(w);
  }
  const measureS = (Math.max(0, to - from) * h.window_ms) / 1000;
  const total = sumWindows(inRange, from, to);
  const counts: number[] = [];
  for (let i = from; i < to; i++) counts.push(byIndex.get(i)?.series.ttfab_intended.totalCount ?? 0);
  const latency = total.series.latency_intended;
  const windows: WindowedSamples = {
    counts,
    // HDR values are microseconds: the sum of in-system times in seconds over the window seconds.
    meanInSystem: measureS > 0 ? (latency.mean * latency.totalCount) / 1e6 / measureS : 0,
    quantile: (a, b, q) => {
      const sum = newHistogram();
      for (let i = from + a; i < from + b; i++) {
        const w = byIndex.get(i);
        if (w) sum.add(w.series.ttfab_intended);
      }
      return quantileMs(sum, q);
    },
  };
  const decision = decideOpenLoopP95(windows, { sloMs: s.sloMs, minSamples: s.minSamples });
  const offered = total.offered;
  const outcomeCounts = total.outcomes;
  const limit = overflowAndErrorLimits(
    {
      rate,
      sloMs: s.sloMs,
      ttfabIntendedMs: [],
      intendedAtMs: [],
      outcomeCounts,
      offered,
    },
    s.limits,
  );
  let overflow = 0;
  let errors = 0;
  for (const [outcome, n] of Object.entries(outcomeCounts) as Array<[OpenLoopOutcome, number]>) {
    if (outcome === 'ok') continue;
    if (OVERFLOW.includes(outcome)) overflow += n;
    else errors += n;
  }
  let verdict: JudgedRung['verdict'];
  let reason: string;
  if (limit && limit.verdict === 'fail') {
    verdict = 'fail';
    reason = `${limit.reason}; ${decision.reason}`;
  } else if (limit) {
    verdict = 'undecided';
    reason = limit.reason;
  } else {
    verdict = decision.verdict;
    reason = decision.reason;
  }
  const ok = outcomeCounts.ok ?? 0;
  return {
    verdict,
    reason,
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
    ttfabP95Ms: quantileMs(total.series.ttfab_intended, 0.95),
    ttfabP99Ms: quantileMs(total.series.ttfab_intended, 0.99),
    ttfabSentP95Ms: quantileMs(total.series.ttfab_sent, 0.95),
    latencyP95Ms: quantileMs(latency, 0.95),
    sendLagP99Ms: quantileMs(total.series.send_lag, 0.99),
  };
}
