/**
 * Serialized open-loop measurements: HDR histograms per time window, as the goodput and drill
 * artifacts (and shard files that `merge` combines) carry them. A histogram is stored as
 * HdrHistogram's compressed base64 encoding (V2 format, the one every HdrHistogram port reads),
 * values in integer microseconds. Windows are indexed by the INTENDED send time of a request
 * (offset from the schedule start), so shards of one schedule put every request in the same
 * window and merging is a plain sum per index.
 */
import { z } from 'zod';
import { audioFormatSchema } from './artifacts/audio.js';
import { HDR_LIMITS } from './hdr-bounds.js';
import { outcomeSchema } from './outcomes.js';
import { safeString } from './safe.js';

/** Encoding of `data`: HdrHistogram V2 compressed, base64 (hdr-histogram-js encodeIntoCompressedBase64). */
export const HDR_ENCODING = 'hdr-v2-compressed-base64';

export const hdrHistogramSchema = z.object({
  encoding: z.literal(HDR_ENCODING),
  unit: z.literal('us'),
  /** Relative precision: values are kept to this many significant decimal digits. */
  significant_digits: z.number().int().min(1).max(5),
  /** Recorded values (redundant with `data`; checked on decode so a corrupted file is caught). */
  count: z.number().int().nonnegative(),
  /**
   * Bounded here; its inflated size, declared range and counts are checked when the artifact is
   * read (src/model/hdr-bounds.ts), before anything decodes it.
   */
  data: z
    .string()
    .max(HDR_LIMITS.encodedChars, `at most ${HDR_LIMITS.encodedChars} base64 characters per histogram`)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'base64'),
});
export type SerializedHdrHistogram = z.infer<typeof hdrHistogramSchema>;

/** The open loop's outcomes: the closed set plus arrivals the client refused at its outstanding cap. */
export const openLoopOutcomeSchema = z.enum([...outcomeSchema.options, 'client_dropped']);
export type OpenLoopOutcome = z.infer<typeof openLoopOutcomeSchema>;

const windowCount = z.number().int().nonnegative();

/**
 * The audio of a window's ok responses (playback continuity, audio throughput): counts and sums
 * that add across shards, and the stall time of each multi-chunk stream as a histogram. Misses of
 * the continuity decision are the window's requests without an ok outcome, as for first audio.
 */
export const openLoopWindowAudioSchema = z.object({
  /** Ok responses whose audio was accounted (format known, at least one audio byte). */
  streams: windowCount,
  /** Of those, streams of more than one audio chunk (the ones the stall judges). */
  multi_chunk: windowCount,
  /** Multi-chunk streams that stalled at all (stall > 0). */
  stalled: windowCount,
  /** Audio seconds the accounted streams carried. */
  audio_s: z.number().nonnegative().max(1e9),
  /** Characters (Unicode code points) of the accounted requests' texts. */
  characters: z.number().int().nonnegative().max(1e12),
  /** Longest gap between two audio chunks of one stream, ms; null with no multi-chunk stream. */
  max_chunk_gap_ms: z.number().nonnegative().max(1e9).nullable(),
  /** The format of the window's first accounted stream (header or configured). */
  format: audioFormatSchema.nullable(),
  /** Per-stream stall time of multi-chunk streams, ms (recorded as microseconds). */
  stall: hdrHistogramSchema,
  /** Real-time factor per stream (response time from the actual send / audio seconds), x 1000, recorded as microseconds of a ms value. */
  rtf_milli: hdrHistogramSchema,
});
export type OpenLoopWindowAudio = z.infer<typeof openLoopWindowAudioSchema>;

export const openLoopWindowSchema = z.object({
  /** Window number: intended send offset / window_ms, rounded down. */
  index: z.number().int().nonnegative(),
  /** Arrivals the schedule put in this window (for this shard). */
  offered: z.number().int().nonnegative(),
  /** Arrivals actually sent (offered minus client_dropped). */
  sent: z.number().int().nonnegative(),
  /** Finished requests by outcome, client_dropped included; counted in the window of their intended time. */
  outcome_counts: z.partialRecord(openLoopOutcomeSchema, z.number().int().nonnegative()),
  /** TTFAB of ok requests from the intended send time (coordinated-omission correct). */
  ttfab_intended: hdrHistogramSchema,
  /** TTFAB of ok requests from the actual send (what a closed-loop tool would report). */
  ttfab_sent: hdrHistogramSchema,
  /** Whole-response latency of ok requests from the intended send time. */
  latency_intended: hdrHistogramSchema,
  /** Whole-response latency of ok requests from the actual send. */
  latency_sent: hdrHistogramSchema,
  /** Actual send minus intended send of every sent request (schedule adherence). */
  send_lag: hdrHistogramSchema,
  /** Additive: the audio of the window's ok responses; absent when none carried accountable audio. */
  audio: openLoopWindowAudioSchema.optional(),
});
export type OpenLoopWindow = z.infer<typeof openLoopWindowSchema>;

export const arrivalProcessSchema = z.enum(['constant', 'poisson', 'replay']);

/** What schedule the requests followed: shards of one schedule agree on all of it. */
export const scheduleIdentitySchema = z.object({
  process: arrivalProcessSchema,
  /** Seed of the Poisson process; null for deterministic schedules. */
  seed: z.number().int().nonnegative().nullable(),
  /** Human-readable description, e.g. `poisson 120/s for 60 s` or `step schedule.csv`. */
  description: safeString,
  /** Hash of the whole schedule definition (process, rates, seed, file content): equal iff the schedule is. */
  schedule_hash: z.string().regex(/^[0-9a-f]{64}$/),
  /** Arrivals of the whole schedule (all shards). */
  arrivals: z.number().int().nonnegative(),
  duration_s: z.number().nonnegative(),
});
export type ScheduleIdentity = z.infer<typeof scheduleIdentitySchema>;

export const shardSchema = z
  .object({ index: z.number().int().nonnegative(), count: z.number().int().positive() })
  .refine((s) => s.index < s.count, { message: 'shard index must be below the shard count' });
export type Shard = z.infer<typeof shardSchema>;

/** One open-loop run (or the merge of the shards of one): the windows and what they belong to. */
export const openLoopHistogramsSchema = z.object({
  schedule: scheduleIdentitySchema,
  /** Wall time of the schedule's offset 0 (the agreed start of every shard). */
  start_at: z.string().datetime({ offset: true }),
  window_ms: z.number().int().positive(),
  /** Shards whose data this holds: one for a single run, all 0..n-1 after a merge. */
  shards: z.array(shardSchema).min(1),
  windows: z.array(openLoopWindowSchema),
});
export type OpenLoopHistograms = z.infer<typeof openLoopHistogramsSchema>;
