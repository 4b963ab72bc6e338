/**
 * The continuity side of a goodput rung (and of the lambda_max ladder), pure: the p95 of
 * per-stream playback stall time judged from the same HDR windows, by the same open-loop
 * group-sequential decision as first audio (src/stats/open-loop-sequential.ts), with every
 * arrival without an ok outcome a miss at +infinity; the rung's verdict combines both SLOs (fail
 * if either fails, pass only if both pass); the audio summary of the judged windows (which SLO
 * bounded lambda_max: src/analysis/continuity.ts). One code path for a single process and for
 * merged shards.
 */
import type { AudioFormat, AudioSummary } from '../model/artifacts.js';
import type { OpenLoopHistograms } from '../model/histograms.js';
import { decodeWindow, type LiveWindow, quantileMs, releaseWindow, sumWindows } from '../stats/histograms.js';
import { lookLagMs } from '../stats/open-loop-rung-sim.js';
import { decideOpenLoopSequential, type SequentialDecision } from '../stats/open-loop-sequential.js';
import { combinedVerdict } from './continuity.js';
import {
  type JudgedRung,
  judgeRung,
  liveLook,
  measureWindows,
  prefixOf,
  type RungJudgeSettings,
  rungWindowsFrom,
  rungWindowsOf,
} from './goodput-judge.js';

/** A rung's judge settings with the continuity SLO (null: first audio only). */
export interface ContinuityJudgeSettings extends RungJudgeSettings {
  underrunSloMs?: number | null;
  clientBufferMs?: number;
}

/** A goodput rung judged on both SLOs: `verdict` combines them, `firstAudioVerdict` is the first audio alone. */
export interface JudgedAudioRung extends Omit<JudgedRung, 'continuity'> {
  firstAudioVerdict?: JudgedRung['verdict'];
  /** The continuity decision; null without a multi-chunk stream; absent without an underrun SLO. */
  continuity?: SequentialDecision | null;
  /** Absent: no underrun SLO and no accounted audio. */
  audio?: AudioSummary | null;
  format: AudioFormat | null;
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;
const orNull = (v: number | null): number | null => (v === null || !Number.isFinite(v) ? null : round3(v));

/**
 * The q-quantile of stall samples with `misses` more at +infinity (type 7 over the ranks): null
 * when it reaches the misses or there is no sample.
 */
function stallQuantile(w: LiveWindow, misses: number, q: number): number | null {
  const n = w.audio.stall.totalCount;
  const all = n + misses;
  if (n === 0) return null;
  const position = (all - 1) * q;
  if (Math.ceil(position) > n - 1) return null;
  return quantileMs(w.audio.stall, n === 1 ? 0 : Math.min(1, position / (n - 1)));
}

/** The audio summary of summed windows over `seconds` of intended send time. */
export function windowAudioSummary(
  total: LiveWindow,
  seconds: number,
  clientBufferMs: number,
  stallInterval: { low: number; high: number } | null,
): AudioSummary | null {
  const a = total.audio;
  if (a.streams === 0) return null;
  const misses = Math.max(0, total.offered - (total.outcomes.ok ?? 0));
  const multi = a.multiChunk;
  const rtf = (q: number) => {
    const v = quantileMs(a.rtfMilli, q);
    return v === null ? null : round3(v / 1000);
  };
  const s = Math.max(seconds, 1e-9);
  return {
    streams: a.streams,
    multi_chunk: multi,
    single_chunk: a.streams - multi,
    underrun_share: multi > 0 ? round3(a.stalled / multi) : null,
    stall_p50_ms: multi > 0 ? orNull(stallQuantile(total, misses, 0.5)) : null,
    stall_p95_ms: multi > 0 ? orNull(stallQuantile(total, misses, 0.95)) : null,
    stall_p95_ci_ms: stallInterval,
    max_chunk_gap_ms: a.maxChunkGapMs === null ? null : round3(a.maxChunkGapMs),
    characters_mean: round3(a.characters / a.streams),
    audio_s_mean: round3(a.audioS / a.streams),
    rtf_p50: rtf(0.5),
    rtf_p95: rtf(0.95),
    characters_per_s: round3(a.characters / s),
    audio_s_per_s: round3(a.audioS / s),
    client_buffer_ms: clientBufferMs,
  };
}

/**
 * The continuity decision of a rung from its windows, replaying the live looks (same spans and
 * lag as first audio, so a request in flight at a look is a miss of both); null without a
 * multi-chunk stream in the measure window (continuity not applicable).
 */
export function judgeContinuity(
  h: OpenLoopHistograms,
  s: ContinuityJudgeSettings,
  underrunSloMs: number,
  where: string,
): SequentialDecision | null {
  const r = rungWindowsOf(h, s, where, 'stall');
  if (r.counts.every((c) => c === 0)) return null;
  const maxSpanS = s.holdS - s.settleS;
  const lag = lookLagMs(s.sloMs, h.window_ms);
  const lookAt = (span: number) => (span >= maxSpanS - 1e-9 ? null : (s.settleS + span) * 1000 + lag);
  return decideOpenLoopSequential((span) => prefixOf(r, span, lookAt(span)), {
    sloMs: underrunSloMs,
    minSamples: s.minSamples,
    maxSpanS,
    availableS: s.stoppedAtS ?? maxSpanS,
  });
}

/** The finite interval of a decision (an end at the misses has no number). */
const finiteInterval = (d: SequentialDecision | null): { low: number; high: number } | null =>
  d?.interval && Number.isFinite(d.interval.low) && Number.isFinite(d.interval.high)
    ? { low: round3(d.interval.low), high: round3(d.interval.high) }
    : null;

/**
 * A rung judged from its windows on first audio and, with an underrun SLO, on continuity: the
 * verdict fails when either fails and passes only when both pass. The audio summary covers the
 * windows first audio judged.
 */
export function judgeAudioRung(
  h: OpenLoopHistograms,
  rate: number,
  s: ContinuityJudgeSettings,
  where: string,
): JudgedAudioRung {
  const { continuity: _none, ...judged } = judgeRung(h, rate, s, where);
  const slo = s.underrunSloMs ?? null;
  const continuity = slo === null ? null : judgeContinuity(h, s, slo, where);
  const { from } = measureWindows(h.window_ms, s.settleS, s.holdS);
  const to = from + Math.round((judged.measureS * 1000) / h.window_ms);
  const inRange: LiveWindow[] = [];
  for (const w of h.windows) if (w.index >= from && w.index < to) inRange.push(decodeWindow(w, where));
  const total = sumWindows(inRange, from, to);
  for (const w of inRange) releaseWindow(w);
  const audio = windowAudioSummary(total, judged.measureS, s.clientBufferMs ?? 0, finiteInterval(continuity));
  const format = total.audio.format;
  releaseWindow(total);
  if (slo === null) return { ...judged, format, ...(audio !== null ? { audio } : {}) };
  const verdict = combinedVerdict(judged.verdict, continuity?.verdict ?? null);
  const reason =
    continuity === null
      ? judged.reason
      : `first audio: ${judged.reason}; continuity (p95 stall vs ${slo} ms): ${continuity.reason}`;
  return { ...judged, verdict, reason, firstAudioVerdict: judged.verdict, continuity, audio, format };
}

/**
 * Whether a live rung stops at a look: both SLOs reached a decisive look, or either failed
 * decisively (the rung fails whatever the other says). Without an underrun SLO, or before any
 * multi-chunk stream finished, first audio alone decides.
 */
export function liveStop(
  windows: readonly LiveWindow[],
  windowMs: number,
  rate: number,
  spanS: number,
  lookAtMs: number,
  s: ContinuityJudgeSettings,
): boolean {
  const firstAudio = liveLook(rungWindowsFrom(windows, windowMs, s, lookAtMs), rate, spanS, s);
  const slo = s.underrunSloMs ?? null;
  if (slo === null) return firstAudio.stop;
  const stall = rungWindowsFrom(windows, windowMs, s, lookAtMs, 'stall');
  if (stall.counts.every((c) => c === 0)) return firstAudio.stop;
  const continuity = liveLook(stall, rate, spanS, { ...s, sloMs: slo, limits: NO_LIMITS });
  const failed = (l: { stop: boolean; verdict: string }) => l.stop && l.verdict === 'fail';
  return (firstAudio.stop && continuity.stop) || failed(firstAudio) || failed(continuity);
}

/** The count limits ride on first audio only: continuity judges the stall alone. */
const NO_LIMITS = { maxOverflowFraction: 1, maxErrorFraction: 1 };
