import { z } from 'zod';
import { boundedNumber, LIMITS, safeString } from '../safe.js';
import { count, intervalSchema, ms, seconds } from './common.js';

/**
 * The audio a response carried, as the client read it from the stream's WAV header (or from the
 * configured raw PCM format when the stream has none).
 */
export const audioFormatSchema = z.object({
  /** `wav` (read from each response's RIFF header) or `pcm` (configured: raw samples, no header). */
  container: z.enum(['wav', 'pcm']),
  sample_rate_hz: boundedNumber(1, 1_000_000, 'sample_rate_hz').int(),
  channels: boundedNumber(1, 64, 'channels').int(),
  bits_per_sample: z.union([z.literal(8), z.literal(16), z.literal(24), z.literal(32)]),
  /** `header` when read from the responses, `configured` when stated by `request.audio_format`. */
  origin: z.enum(['header', 'configured']),
});
export type AudioFormat = z.infer<typeof audioFormatSchema>;

/**
 * Playback continuity and audio throughput of one rung (or one window): what the listener hears.
 * Stall time of a stream: playback starts at first audio + the client buffer, plays each chunk for
 * its audio duration and pauses whenever the next chunk has not arrived; the stall is the total
 * pause. Streams of a single chunk are "not applicable" (counted, never treated as ok).
 */
export const audioSummarySchema = z.object({
  /** Responses whose audio was accounted (format known, at least one audio byte). */
  streams: count('audio streams'),
  /** Of those, streams of more than one chunk: the ones the stall statistics judge. */
  multi_chunk: count('multi_chunk streams'),
  /** Single-chunk streams: continuity not applicable to them. */
  single_chunk: count('single_chunk streams'),
  /** Streams that stalled at all (stall > 0) / multi_chunk; null when none were multi-chunk. */
  underrun_share: z.number().min(0).max(1).nullable(),
  /**
   * p50 / p95 of per-stream stall time over multi-chunk streams (misses: +infinity), measured;
   * null when none was multi-chunk, or when the quantile is a miss (see the verdict).
   */
  stall_p50_ms: ms('stall_p50_ms').nullable(),
  stall_p95_ms: ms('stall_p95_ms').nullable(),
  /**
   * The p95's interval from the same batch machinery as the first-audio p95 (valid for dependent
   * data); null without an underrun SLO, or when an end of it reaches the misses.
   */
  stall_p95_ci_ms: intervalSchema.nullable(),
  /** Longest gap between two chunks of one stream over the rung, ms (measured). */
  max_chunk_gap_ms: ms('max_chunk_gap_ms').nullable(),
  /** Mean characters of a request's text (computed from the prompts sent). */
  characters_mean: boundedNumber(0, 1e7, 'characters_mean'),
  /** Mean audio seconds of a response (measured: bytes / byte rate of the format). */
  audio_s_mean: seconds('audio_s_mean'),
  /** Real-time factor: whole response time / its audio seconds (p50, p95), measured. */
  rtf_p50: boundedNumber(0, LIMITS.ratio, 'rtf_p50').nullable(),
  rtf_p95: boundedNumber(0, LIMITS.ratio, 'rtf_p95').nullable(),
  /** Characters and audio seconds completed per second of the window, per instance (measured). */
  characters_per_s: boundedNumber(0, 1e9, 'characters_per_s'),
  audio_s_per_s: boundedNumber(0, 1e9, 'audio_s_per_s'),
  /** The client buffer the stall was computed with, ms (setting). */
  client_buffer_ms: ms('client_buffer_ms'),
});
export type AudioSummary = z.infer<typeof audioSummarySchema>;

/** Which SLO decided the bound of a ladder (Q_max or lambda_max). */
export const boundedBySchema = z.enum(['first_audio', 'continuity', 'both', 'none']);
export type BoundedBy = z.infer<typeof boundedBySchema>;

/** The continuity side of a ladder: its SLO and what it decided (absent: first audio only). */
export const continuitySchema = z.object({
  /** p95 of per-stream stall time must be at or under this, ms (setting). */
  underrun_slo_ms: ms('underrun_slo_ms'),
  client_buffer_ms: ms('client_buffer_ms'),
  format: audioFormatSchema.nullable(),
  /**
   * Which SLO set the bound: the lowest breach above the bound failed on `first_audio`,
   * `continuity`, or `both`; `none` when nothing above the bound was measured as a breach.
   */
  bounded_by: boundedBySchema,
  /** A sentence for the reader, e.g. why continuity was not applicable. */
  note: safeString.nullable(),
});
export type Continuity = z.infer<typeof continuitySchema>;
