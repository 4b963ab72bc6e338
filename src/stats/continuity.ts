/**
 * Playback continuity of streamed audio, pure arithmetic: the WAV header of a response, the audio
 * seconds it carried, and the stall time a listener hears. Playback starts at the first audio
 * chunk + the client buffer, plays each chunk's audio for its duration and pauses whenever the
 * next chunk has not arrived; the stall is the total pause. It is accumulated online per stream
 * (a few numbers; no chunk arrays), so a ladder of thousands of requests stays small.
 */
import type { AudioFormat, AudioSummary } from '../model/artifacts.js';
import { quantileSorted, sortedAscending } from './quantiles.js';

/** The raw PCM format a config states (`audio_format`), without the container fields. */
export interface PcmFormat {
  sample_rate_hz: number;
  channels: number;
  bits_per_sample: 8 | 16 | 24 | 32;
}

/** A header larger than this is not a streaming TTS header: the stream's audio is not accounted. */
export const MAX_HEADER_BYTES = 64 * 1024;

export type WavHeaderRead =
  | { status: 'need_more' }
  | { status: 'not_wav' }
  | { status: 'invalid'; reason: string }
  | {
      status: 'ok';
      format: AudioFormat;
      /** Offset of the first sample byte. */
      dataOffset: number;
      /** The data chunk's declared size; null for a streaming header (0 or 0xFFFFFFFF). */
      dataBytes: number | null;
    };

const ascii = (b: Uint8Array, at: number): string =>
  String.fromCharCode(b[at] as number, b[at + 1] as number, b[at + 2] as number, b[at + 3] as number);
const u16 = (b: Uint8Array, at: number): number => (b[at] as number) | ((b[at + 1] as number) << 8);
const u32 = (b: Uint8Array, at: number): number =>
  ((b[at] as number) | ((b[at + 1] as number) << 8) | ((b[at + 2] as number) << 16)) +
  (b[at + 3] as number) * 0x1000000;

const BITS = new Set([8, 16, 24, 32]);
/** WAVE_FORMAT_PCM, WAVE_FORMAT_IEEE_FLOAT, WAVE_FORMAT_EXTENSIBLE. */
const CODES = new Set([1, 3, 0xfffe]);

/**
 * Reads a RIFF/WAVE header from the first bytes of a response: the `fmt ` chunk (sample rate,
 * channels, bits) and where the `data` chunk starts. A streaming header's sizes (0 or 0xFFFFFFFF,
 * of RIFF or data) are tolerated: the data then runs to the end of the stream.
 */
export function parseWavHeader(bytes: Uint8Array): WavHeaderRead {
  const head = Math.min(bytes.length, 4);
  for (let i = 0; i < head; i++) if (bytes[i] !== 'RIFF'.charCodeAt(i)) return { status: 'not_wav' };
  if (bytes.length < 12) return { status: 'need_more' };
  if (ascii(bytes, 8) !== 'WAVE') return { status: 'not_wav' };
  let at = 12;
  let format: AudioFormat | null = null;
  for (;;) {
    if (bytes.length < at + 8) return { status: 'need_more' };
    const id = ascii(bytes, at);
    const size = u32(bytes, at + 4);
    if (id === 'data') {
      if (!format) return { status: 'invalid', reason: 'a data chunk before the fmt chunk' };
      const streaming = size === 0 || size === 0xffffffff;
      return { status: 'ok', format, dataOffset: at + 8, dataBytes: streaming ? null : size };
    }
    if (id === 'fmt ') {
      if (size < 16) return { status: 'invalid', reason: `a fmt chunk of ${size} bytes` };
      if (bytes.length < at + 8 + 16) return { status: 'need_more' };
      const code = u16(bytes, at + 8);
      const channels = u16(bytes, at + 10);
      const rate = u32(bytes, at + 12);
      const bits = u16(bytes, at + 22);
      if (!CODES.has(code)) return { status: 'invalid', reason: `format code ${code} is not PCM or float` };
      if (channels < 1 || channels > 64 || rate < 1 || rate > 1_000_000 || !BITS.has(bits)) {
        return { status: 'invalid', reason: `${channels} channels at ${rate} Hz, ${bits} bits` };
      }
      format = {
        container: 'wav',
        sample_rate_hz: rate,
        channels,
        bits_per_sample: bits as AudioFormat['bits_per_sample'],
        origin: 'header',
      };
    }
    // Chunks are word-aligned: an odd size is followed by a pad byte.
    at += 8 + size + (size % 2);
    if (at > MAX_HEADER_BYTES) return { status: 'invalid', reason: 'no data chunk in the first 64 KiB' };
  }
}

/** Bytes of audio per second of playback. */
export const byteRate = (f: Pick<AudioFormat, 'sample_rate_hz' | 'channels' | 'bits_per_sample'>): number =>
  (f.sample_rate_hz * f.channels * f.bits_per_sample) / 8;

/** The configured raw PCM format as an audio format record. */
export const configuredFormat = (pcm: PcmFormat): AudioFormat => ({
  container: 'pcm',
  sample_rate_hz: pcm.sample_rate_hz,
  channels: pcm.channels,
  bits_per_sample: pcm.bits_per_sample,
  origin: 'configured',
});

/** What one finished stream carried, for the rung's summary. */
export interface StreamAudioResult {
  /** null: the format is unknown (no WAV header and no configured format) or the header is invalid. */
  format: AudioFormat | null;
  /** Audio seconds received (data bytes / byte rate). */
  audioS: number;
  /** Chunks that carried audio samples. */
  audioChunks: number;
  /** Total playback pause, ms; null for a single-chunk stream or an unaccounted one. */
  stallMs: number | null;
  /** Longest gap between two audio chunks, ms; null with fewer than two. */
  maxGapMs: number | null;
}

/**
 * One stream's audio, accumulated as chunks arrive: call `chunk` with each payload and its arrival
 * time (ms, any monotonic clock). Keeps the header bytes only until the header is read.
 */
export class StreamAudio {
  private head: Uint8Array | null = new Uint8Array(0);
  private format: AudioFormat | null = null;
  private rate = 0;
  /** Data bytes still expected when the header declared a size (null: to the end). */
  private left: number | null = null;
  private dataBytes = 0;
  private chunks = 0;
  private lastAt = 0;
  private maxGap: number | null = null;
  private playEnd = 0;
  private stall = 0;
  private failed = false;

  constructor(
    private readonly configured: PcmFormat | null,
    private readonly clientBufferMs: number,
  ) {}

  /** A payload of the response arrived at `at` ms. */
  chunk(at: number, bytes: Uint8Array): void {
    if (bytes.length === 0 || this.failed) return;
    let data = bytes.length;
    if (this.head !== null) {
      const joined = new Uint8Array(this.head.length + bytes.length);
      joined.set(this.head);
      joined.set(bytes, this.head.length);
      const read = parseWavHeader(joined);
      if (read.status === 'need_more') {
        if (joined.length > MAX_HEADER_BYTES) this.fail();
        else this.head = joined;
        return;
      }
      this.head = null;
      if (read.status === 'ok') {
        this.format = read.format;
        this.left = read.dataBytes;
        data = joined.length - read.dataOffset;
      } else if (read.status === 'not_wav' && this.configured) {
        this.format = configuredFormat(this.configured);
        data = joined.length;
      } else {
        this.fail();
        return;
      }
      this.rate = byteRate(this.format);
    }
    if (this.left !== null) {
      data = Math.min(data, this.left);
      this.left -= data;
    }
    if (data <= 0) return;
    this.audio(at, data);
  }

  private fail(): void {
    this.failed = true;
    this.head = null;
    this.format = null;
  }

  private audio(at: number, bytes: number): void {
    const durationMs = (bytes / this.rate) * 1000;
    this.dataBytes += bytes;
    if (this.chunks === 0) {
      this.playEnd = at + this.clientBufferMs + durationMs;
    } else {
      const gap = at - this.lastAt;
      if (this.maxGap === null || gap > this.maxGap) this.maxGap = gap;
      if (at > this.playEnd) {
        // Playback ran dry before this chunk: the listener heard silence.
        this.stall += at - this.playEnd;
        this.playEnd = at + durationMs;
      } else {
        this.playEnd += durationMs;
      }
    }
    this.chunks += 1;
    this.lastAt = at;
  }

  /** Chunks that carried audio so far. */
  get audioChunks(): number {
    return this.chunks;
  }

  /**
   * The stall of a stream still in flight, judged at `t`: the pauses so far and the one going on
   * (playback has run dry and more audio is awaited). Only ever grows while the stream lasts.
   */
  stallAt(t: number): number {
    if (this.chunks === 0) return 0;
    return this.stall + Math.max(0, t - this.playEnd);
  }

  /** When the stall of a stream still in flight passes `limitMs` at the latest (if no chunk comes). */
  stallPassesAt(limitMs: number): number | null {
    if (this.chunks === 0) return null;
    return this.playEnd + Math.max(0, limitMs - this.stall);
  }

  result(): StreamAudioResult {
    const accounted = this.format !== null && this.chunks > 0;
    return {
      format: accounted ? this.format : null,
      audioS: accounted ? this.dataBytes / this.rate : 0,
      audioChunks: this.chunks,
      stallMs: accounted && this.chunks > 1 ? this.stall : null,
      maxGapMs: this.maxGap,
    };
  }
}

/** Type-7 quantile of ascending values that may end in +Infinity (misses): Infinity once it touches one. */
export function quantileOfStalls(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const fraction = position - below;
  const low = sorted[below] as number;
  if (fraction === 0) return low;
  const high = sorted[below + 1] as number;
  if (!Number.isFinite(high)) return Number.POSITIVE_INFINITY;
  return low + fraction * (high - low);
}

/** One request of a window, as the summary needs it. */
export interface AudioSample {
  /** Successful: the stream's audio. Failed / timed out / overflowed: null (a miss). */
  audio: StreamAudioResult | null;
  /** Characters of the prompt text sent. */
  characters: number;
  /** Whole response time, ms (successful only). */
  totalMs: number | null;
}

/** The stall samples the continuity decision judges: multi-chunk stall times, misses +Infinity. */
export function stallSamples(samples: readonly AudioSample[]): number[] {
  const out: number[] = [];
  for (const s of samples) {
    if (s.audio === null) out.push(Number.POSITIVE_INFINITY);
    else if (s.audio.stallMs !== null) out.push(s.audio.stallMs);
  }
  return out;
}

/**
 * The audio summary of one window (`windowS` seconds): stall p50/p95 over multi-chunk streams
 * with every failed request a miss (+Infinity), the underrun share, audio and characters per
 * request and per second, the real-time factor. `stallInterval` is the p95's interval from the
 * decision (null when none was computed). null when no response carried accountable audio.
 */
export function summarizeAudio(
  samples: readonly AudioSample[],
  windowS: number,
  clientBufferMs: number,
  stallInterval: { low: number; high: number } | null,
): AudioSummary | null {
  const accounted = samples.filter((s) => s.audio !== null && s.audio.format !== null);
  if (accounted.length === 0) return null;
  const multi = accounted.filter((s) => (s.audio as StreamAudioResult).stallMs !== null);
  const stalls = sortedAscending(stallSamples(samples));
  const stalled = multi.filter((s) => ((s.audio as StreamAudioResult).stallMs as number) > 0).length;
  const rtf = sortedAscending(
    accounted
      .filter((s) => s.totalMs !== null && (s.audio as StreamAudioResult).audioS > 0)
      .map((s) => (s.totalMs as number) / 1000 / (s.audio as StreamAudioResult).audioS),
  );
  let gap: number | null = null;
  for (const s of accounted) {
    const g = (s.audio as StreamAudioResult).maxGapMs;
    if (g !== null && (gap === null || g > gap)) gap = g;
  }
  const audioS = accounted.reduce((sum, s) => sum + (s.audio as StreamAudioResult).audioS, 0);
  const characters = accounted.reduce((sum, s) => sum + s.characters, 0);
  const seconds = Math.max(windowS, 1e-9);
  const finite = (v: number | null): number | null => (v === null || !Number.isFinite(v) ? null : v);
  return {
    streams: accounted.length,
    multi_chunk: multi.length,
    single_chunk: accounted.length - multi.length,
    underrun_share: multi.length > 0 ? stalled / multi.length : null,
    stall_p50_ms: multi.length > 0 ? finite(quantileOfStalls(stalls, 0.5)) : null,
    stall_p95_ms: multi.length > 0 ? finite(quantileOfStalls(stalls, 0.95)) : null,
    stall_p95_ci_ms: stallInterval,
    max_chunk_gap_ms: gap,
    characters_mean: characters / accounted.length,
    audio_s_mean: audioS / accounted.length,
    rtf_p50: quantileSorted(rtf, 0.5),
    rtf_p95: quantileSorted(rtf, 0.95),
    characters_per_s: characters / seconds,
    audio_s_per_s: audioS / seconds,
    client_buffer_ms: clientBufferMs,
  };
}
