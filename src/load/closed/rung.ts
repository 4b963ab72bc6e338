/**
 * One rung of the ladder: hold the engine at N outstanding requests, discard the settle period,
 * then judge the measure window with the sequential rung decision (src/stats/rung-decision.ts:
 * batch sectioning, at most 3 looks with a Bonferroni split). Adaptive rungs end at the first look
 * whose window is settled and whose p95 interval lies wholly inside or outside the SLO; otherwise
 * the window keeps growing up to the hold limit, where the final look decides or leaves the rung
 * undecided. Fixed rungs hold for the full time and judge the last `measureS` seconds in one look
 * (the reference method).
 */
import type { AudioFormat, AudioSummary, Outcome } from '../../model/artifacts.js';
import { opt, type UsageError, usage } from '../../model/errors.js';
import { type ClientHealth, demoteUnhealthyPass, judgeClientHealth } from '../../stats/client-health.js';
import { type AudioSample, summarizeAudio } from '../../stats/continuity.js';
import { alignUp, driftTest, quantileWithMisses } from '../../stats/ladder-stats.js';
import { sortedAscending } from '../../stats/quantiles.js';
import {
  continuityJudge,
  type RungDecision,
  RungJudge,
  sectionedWithTails,
  shortestResettledWindowMs,
} from '../../stats/rung-decision.js';
import { waitUntil } from '../../wait.js';
import { startClientHealth } from '../client-health.js';
import { type ClosedLoopEngine, type InFlightStats, monoOf, now, wallOf } from './engine.js';
import type { LadderMode } from './ladder.js';

export interface RungSpec {
  concurrency: number;
  mode: LadderMode;
  holdS: number;
  measureS: number;
  settleS: number;
  sloMs: number;
  /** Never decisive with fewer samples (`--min-samples`, default 100): the verdict is undecided. */
  minSamples?: number;
  /**
   * CloudWatch period to align adaptive measure windows to (the join needs whole periods inside
   * the window); the window then lasts at least one period. null: no alignment.
   */
  alignPeriodS?: number | null;
  /** How often an adaptive rung checks whether a look is due (default 250 ms). */
  evaluateEveryMs?: number;
  /**
   * The continuity SLO: p95 of per-stream stall time, ms. Set: the rung is also decided on it, by
   * a second judge of the same kind (src/stats/rung-decision.ts). null: first audio only.
   */
  underrunSloMs?: number | null;
  /** The client buffer the stall is computed with, ms (recorded in the audio summary). */
  clientBufferMs?: number;
}

export interface RungTick {
  concurrency: number;
  elapsedS: number;
  inFlight: number;
  samples: number;
  liveP95Ms: number | null;
  phase: 'settle' | 'measure';
}

/** `near_slo`: stopped undecided, its interval inside +-5 % of the SLO (futility). */
export type RungEnd = 'decisive' | 'near_slo' | 'hold';

export interface RungMeasurement {
  concurrency: number;
  epoch: number;
  /** Monotonic ms. */
  startedAt: number;
  endedAt: number;
  windowStart: number;
  windowEnd: number;
  end: RungEnd;
  /** The look the rung ended on: verdict, p95 interval, method, batches, look number. */
  evaluation: RungDecision;
  /** Looks taken (the last one is `evaluation`). */
  looks: number;
  /** The p95 interval of the successful requests only, same method and level as `evaluation`. */
  okP95Interval: { low: number; high: number } | null;
  /** TTFAB of successful requests whose audio started in the window, in time order, ms. */
  okTtfabMs: number[];
  /** Whole-response latency of successful requests that completed in the window, ms. */
  okLatencyMs: number[];
  outcomeCounts: Partial<Record<Outcome, number>>;
  completed: number;
  ok: number;
  rejected: number;
  /** Verdict samples that failed outright / were still waiting past the SLO at the window end. */
  failed: number;
  censored: number;
  achievedRps: number;
  inFlight: InFlightStats;
  loopDelayP99Ms: number | null;
  loopUtilization: number | null;
  /** The client over the rung; a pass it could not keep N outstanding for is undecided. */
  clientHealth: ClientHealth;
  /** Playback continuity and audio throughput of the window; null: no response carried accountable audio. */
  audio: AudioSummary | null;
  /** The audio format of the window's first accounted stream (header or configured); null: none. */
  audioFormat: AudioFormat | null;
  /**
   * The look the continuity judge ended on (stall samples: multi-chunk streams, failures as misses);
   * null without an underrun SLO or when no stream of the window had more than one chunk.
   */
  continuity: RungDecision | null;
}

interface WindowData {
  samples: number[];
  /** Requests that failed outright (any outcome but ok) in the window. */
  failed: number;
  /** Requests still without audio past the SLO (certain misses, not failures). */
  censored: number;
  okTtfab: number[];
  okLatency: number[];
  outcomeCounts: Partial<Record<Outcome, number>>;
  completed: number;
  ok: number;
  rejected: number;
  /** Stall samples in time order (multi-chunk streams; failed, or stalled past the SLO in flight: +Infinity). */
  stall: number[];
  /** Streams of the window with more than one audio chunk (the continuity judge needs one). */
  multiChunk: number;
  audio: AudioSample[];
}

/** Everything known about epoch `epoch` inside [from, to] at instant `to`. */
function collect(
  engine: ClosedLoopEngine,
  epoch: number,
  from: number,
  to: number,
  sloMs: number,
  underrunSloMs: number | null = null,
): WindowData {
  const timed: Array<[number, number]> = [];
  const stall: Array<[number, number]> = [];
  const audio: AudioSample[] = [];
  let multiChunk = 0;
  const okTtfab: Array<[number, number]> = [];
  const okLatency: number[] = [];
  const outcomeCounts: Partial<Record<Outcome, number>> = {};
  let completed = 0;
  let ok = 0;
  let rejected = 0;
  let failed = 0;
  let censored = 0;
  for (const r of engine.finished(epoch)) {
    if (r.outcome === 'ok') {
      const at = r.firstAudioAt as number;
      if (at >= from && at <= to) {
        timed.push([at, r.ttfabMs as number]);
        okTtfab.push([at, r.ttfabMs as number]);
      }
    } else {
      const at = r.endedAt as number;
      if (at >= from && at <= to) {
        timed.push([at, Number.POSITIVE_INFINITY]);
        failed += 1;
      }
    }
    const ended = r.endedAt as number;
    if (ended >= from && ended <= to) {
      // Continuity is known when the stream ends: its stall, or a miss when it failed.
      const heard = r.outcome === 'ok' ? (r.audio?.result() ?? null) : null;
      audio.push({
        audio: r.outcome === 'ok' ? heard : null,
        characters: r.characters ?? 0,
        totalMs: r.latencyMs,
      });
      if (r.outcome !== 'ok') stall.push([ended, Number.POSITIVE_INFINITY]);
      else if (heard?.stallMs !== null && heard?.stallMs !== undefined) {
        stall.push([ended, heard.stallMs]);
        multiChunk += 1;
      }
      completed += 1;
      outcomeCounts[r.outcome] = (outcomeCounts[r.outcome] ?? 0) + 1;
      if (r.outcome === 'ok') {
        ok += 1;
        okLatency.push(r.latencyMs as number);
      } else if (r.outcome === 'saturated_503' || r.outcome === 'throttled_429') {
        rejected += 1;
      }
    }
  }
  for (const r of engine.inFlightRecords()) {
    if (r.epoch !== epoch) continue;
    if (underrunSloMs !== null && r.audio && r.audio.stallAt(to) > underrunSloMs) {
      // Still streaming but already paused longer than the continuity SLO: a certain miss.
      const passedAt = r.audio.stallPassesAt(underrunSloMs) as number;
      if (passedAt >= from) stall.push([passedAt, Number.POSITIVE_INFINITY]);
    }
    if (r.firstAudioAt !== null && r.ttfabMs !== null) {
      // Still streaming: its TTFAB is already known.
      if (r.firstAudioAt >= from && r.firstAudioAt <= to) {
        timed.push([r.firstAudioAt, r.ttfabMs]);
        okTtfab.push([r.firstAudioAt, r.ttfabMs]);
      }
    } else {
      // No audio yet and already past the SLO: a certain miss (censored), whatever comes later.
      const missedAt = r.dispatchedAt + sloMs;
      if (to - r.dispatchedAt > sloMs && missedAt >= from) {
        timed.push([missedAt, Number.POSITIVE_INFINITY]);
        censored += 1;
      }
    }
  }
  timed.sort((a, b) => a[0] - b[0]);
  okTtfab.sort((a, b) => a[0] - b[0]);
  stall.sort((a, b) => a[0] - b[0]);
  return {
    stall: stall.map(([, v]) => v),
    multiChunk,
    audio,
    samples: timed.map(([, v]) => v),
    failed,
    censored,
    okTtfab: okTtfab.map(([, v]) => v),
    okLatency,
    outcomeCounts,
    completed,
    ok,
    rejected,
  };
}

/** The interval of a continuity look when both ends are finite (a miss-bound end has no number). */
const finiteInterval = (d: RungDecision | null): { low: number; high: number } | null =>
  d?.interval && Number.isFinite(d.interval.low) && Number.isFinite(d.interval.high)
    ? { low: d.interval.low, high: d.interval.high }
    : null;

export interface RungOptions {
  signal?: AbortSignal;
  onTick?: (tick: RungTick) => void;
}

export function validateRungTimes(
  spec: Pick<RungSpec, 'mode' | 'holdS' | 'measureS' | 'settleS'>,
): UsageError | null {
  const { holdS, measureS, settleS } = spec;
  if (!(measureS > 0)) return usage`${opt('measure-s')} must be positive.`;
  if (spec.mode === 'fixed' && holdS < settleS + measureS) {
    return usage`${opt('hold-s', holdS)} is shorter than ${opt('settle-s', settleS)} + ${opt('measure-s', measureS)}: a fixed rung measures the last measure-s seconds of its hold, after the settle period.`;
  }
  if (spec.mode === 'adaptive' && holdS <= settleS) {
    return usage`${opt('hold-s', holdS)} leaves no time to measure after ${opt('settle-s', settleS)}.`;
  }
  return null;
}

export async function runRung(
  engine: ClosedLoopEngine,
  spec: RungSpec,
  options: RungOptions = {},
): Promise<RungMeasurement> {
  const { signal, onTick } = options;
  const judge = new RungJudge({
    mode: spec.mode,
    sloMs: spec.sloMs,
    concurrency: spec.concurrency,
    minSamples: spec.minSamples ?? 100,
    // A pass on a short window needs a margin (slow fluctuations of the server).
    measureMs: spec.measureS * 1000,
  });
  const underrunSloMs = spec.underrunSloMs ?? null;
  // The continuity SLO is judged by a second judge of the same kind, at the same level.
  const stallJudge =
    underrunSloMs === null
      ? null
      : continuityJudge({
          mode: spec.mode,
          sloMs: underrunSloMs,
          concurrency: spec.concurrency,
          minSamples: spec.minSamples ?? 100,
          measureMs: spec.measureS * 1000,
        });
  let firstAudioEnded: RungDecision | null = null;
  let continuityEnded: RungDecision | null = null;
  const tickMs = spec.evaluateEveryMs ?? 250;
  const periodS = spec.alignPeriodS ?? null;
  const epoch = engine.setConcurrency(spec.concurrency);
  const startedAt = now();
  engine.forgetBefore(epoch, startedAt);
  engine.resetLoopDelay();
  const health = startClientHealth();
  const settleEnd = startedAt + spec.settleS * 1000;
  let holdEnd = startedAt + spec.holdS * 1000;
  const measureMs = spec.measureS * 1000;

  let measureStart = settleEnd;
  // An adaptive rung is judged on at least a third of its nominal window (and at least 1 s, and a
  // whole CloudWatch period when joining): enough samples alone can be gathered in a moment of
  // transient contention; a few seconds of wall time average it out.
  let minWindowMs = Math.min(measureMs, Math.max(1000, measureMs / 3));
  if (spec.mode === 'adaptive' && periodS) minWindowMs = Math.max(minWindowMs, periodS * 1000);
  if (spec.mode === 'fixed') measureStart = Math.max(settleEnd, holdEnd - measureMs);

  /**
   * Adaptive: measurement starts after the settle time AND once the transition is over: every
   * request of the previous rung has finished, then N requests dispatched after that have too (one
   * full turn of the closed loop at the new concurrency). With the CloudWatch join the start is
   * aligned to a period boundary and the rung lasts at least one whole period beyond it.
   */
  let warm = spec.mode === 'fixed';
  let drainedAt: number | null = null;
  const checkWarm = (t: number): void => {
    if (warm) return;
    if (drainedAt === null) {
      if (engine.olderInFlight(epoch) > 0) return;
      drainedAt = t;
    }
    const since = drainedAt;
    let fresh = 0;
    for (const r of engine.finished(epoch)) if (r.dispatchedAt >= since) fresh += 1;
    if (fresh < spec.concurrency) return;
    warm = true;
    measureStart = Math.max(settleEnd, t);
    if (periodS) {
      measureStart = monoOf(alignUp(wallOf(measureStart), periodS));
      holdEnd = Math.max(holdEnd, measureStart + minWindowMs);
    }
  };

  /**
   * Adaptive window: grows from measureStart (more samples tighten the interval while the rung is
   * extended); when it is not settled, its older half is discarded as further settling.
   */
  const resettle = (t: number): void => {
    if (t - measureStart < 2 * minWindowMs) return;
    let middle = (measureStart + t) / 2;
    if (periodS) middle = monoOf(alignUp(wallOf(middle), periodS));
    if (t - middle >= shortestResettledWindowMs(measureMs, minWindowMs)) measureStart = middle;
  };

  /** Samples and live p95 for progress only: no look, no decision. */
  const liveAt = (from: number, to: number) => {
    const data = collect(engine, epoch, from, to, spec.sloMs);
    return { n: data.samples.length, p95: quantileWithMisses(sortedAscending(data.samples), 0.95) };
  };

  /** Ends the rung on the look just taken, or takes the final look now. */
  const finish = (
    end: RungEnd,
    from: number,
    to: number,
    taken?: { data: WindowData; decision: RungDecision | null; continuity?: RungDecision | null },
  ): RungMeasurement => {
    const data = taken?.data ?? collect(engine, epoch, from, to, spec.sloMs, underrunSloMs);
    const timing = { windowMs: to - from, maxWindowMs: Math.max(to - from, holdEnd - settleEnd) };
    const judged = taken?.decision ?? judge.look(data.samples, true, timing);
    // Continuity applies to multi-chunk streams only: none in the window, no continuity verdict.
    const stallJudged =
      stallJudge === null || data.multiChunk === 0
        ? null
        : (taken?.continuity ?? stallJudge.look(data.stall, true, timing));
    const clientHealth = judgeClientHealth(health.stop(), spec.sloMs);
    const healthy = (d: RungDecision): RungDecision => {
      const demoted = demoteUnhealthyPass(d.verdict, d.reason, clientHealth);
      return demoted.demoted ? { ...d, verdict: 'undecided', decisive: false, reason: demoted.reason } : d;
    };
    const evaluation = healthy(judged);
    const continuity = stallJudged === null ? null : healthy(stallJudged);
    const okInterval = sectionedWithTails(data.okTtfab, spec.concurrency, evaluation.tails);
    const seconds = Math.max((to - from) / 1000, 1e-9);
    return {
      concurrency: spec.concurrency,
      epoch,
      startedAt,
      endedAt: to,
      windowStart: from,
      windowEnd: to,
      end,
      evaluation,
      looks: judge.looksTaken,
      okP95Interval: okInterval ? { low: okInterval.low, high: okInterval.high } : null,
      okTtfabMs: data.okTtfab,
      okLatencyMs: data.okLatency,
      outcomeCounts: data.outcomeCounts,
      completed: data.completed,
      ok: data.ok,
      rejected: data.rejected,
      failed: data.failed,
      censored: data.censored,
      achievedRps: data.ok / seconds,
      inFlight: engine.inFlightStats(from, to, spec.concurrency),
      loopDelayP99Ms: engine.loopDelayP99Ms(),
      loopUtilization: engine.loopUtilization(),
      clientHealth,
      audio: summarizeAudio(data.audio, seconds, spec.clientBufferMs ?? 0, finiteInterval(continuity)),
      audioFormat: data.audio.find((s) => s.audio?.format)?.audio?.format ?? null,
      continuity,
    };
  };

  /** One look at the rung every tick (and at the end of the hold): its measurement once it is over. */
  const tick = (): RungMeasurement | undefined => {
    const t = now();
    const measuring = t >= measureStart;
    if (spec.mode === 'fixed') {
      if (t >= holdEnd) return finish('hold', measureStart, holdEnd);
      if (onTick) {
        const from = measuring ? measureStart : startedAt;
        const live = liveAt(from, t);
        onTick({
          concurrency: spec.concurrency,
          elapsedS: (t - startedAt) / 1000,
          inFlight: engine.inFlight,
          samples: live.n,
          liveP95Ms: live.p95,
          phase: measuring ? 'measure' : 'settle',
        });
      }
      return undefined;
    }
    checkWarm(t);
    if (warm && t >= measureStart + minWindowMs) {
      const from = measureStart;
      const data = collect(engine, epoch, from, t, spec.sloMs, underrunSloMs);
      const atHoldEnd = t >= holdEnd;
      const timing = { windowMs: t - from, maxWindowMs: holdEnd - from };
      let decision: RungDecision | null = null;
      if (firstAudioEnded === null) {
        const step = judge.step(data.samples, atHoldEnd, timing);
        decision = step.decision;
        if (step.stop && step.decision) firstAudioEnded = step.decision;
      }
      if (stallJudge && continuityEnded === null && data.multiChunk > 0) {
        const step = stallJudge.step(data.stall, atHoldEnd, timing);
        if (step.stop && step.decision) continuityEnded = step.decision;
      }
      const failed = (d: RungDecision | null) => d?.decisive === true && d.verdict === 'fail';
      // Both SLOs ended, or either failed decisively (the rung fails whatever the other says).
      const ended =
        (firstAudioEnded !== null && (stallJudge === null || continuityEnded !== null)) ||
        failed(firstAudioEnded) ||
        failed(continuityEnded);
      if (ended || atHoldEnd) {
        const looks = [firstAudioEnded, continuityEnded].filter((d): d is RungDecision => d !== null);
        const end: RungEnd = atHoldEnd
          ? 'hold'
          : looks.some((d) => d.nearSlo && !failed(d))
            ? 'near_slo'
            : 'decisive';
        return finish(end, from, t, { data, decision: firstAudioEnded, continuity: continuityEnded });
      }
      // Drift is checked on every tick (it decides where the window starts, not the verdict).
      const drift = decision?.drift ?? driftTest(data.samples);
      if (!drift.settled && drift.driftMs !== null) resettle(t);
      onTick?.({
        concurrency: spec.concurrency,
        elapsedS: (t - startedAt) / 1000,
        inFlight: engine.inFlight,
        samples: data.samples.length,
        liveP95Ms: quantileWithMisses(sortedAscending(data.samples), 0.95),
        phase: 'measure',
      });
    } else {
      if (t >= holdEnd) return finish('hold', Math.min(measureStart, t), t);
      if (onTick) {
        const live = liveAt(warm && measuring ? measureStart : startedAt, t);
        onTick({
          concurrency: spec.concurrency,
          elapsedS: (t - startedAt) / 1000,
          inFlight: engine.inFlight,
          samples: live.n,
          liveP95Ms: live.p95,
          phase: warm && measuring ? 'measure' : 'settle',
        });
      }
    }
    return undefined;
  };

  try {
    const measured = await waitUntil(`rung at concurrency ${spec.concurrency} to end`, tick, {
      interval: (t) => Math.min(tickMs, Math.max(holdEnd - t, 0)),
      clock: now,
      pauseFirst: true,
      signal,
    });
    return measured as RungMeasurement;
  } finally {
    health.stop();
  }
}
