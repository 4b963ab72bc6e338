/**
 * HDR histograms of the open loop (hdr-histogram-js, its pure-JS histograms: no WebAssembly, so
 * the same code runs in the bundled action): per window of intended send time, TTFAB and latency
 * from the intended and from the actual send, and the send lag. Values are integer microseconds
 * kept to 3 significant digits (0.1 % relative precision). `mergeOpenLoop` is pure: counts add,
 * windows align by index, percentiles come from the merged histograms.
 */
import * as hdr from 'hdr-histogram-js';
import type { AudioFormat } from '../model/artifacts.js';
import { UsageError } from '../model/errors.js';
import { HdrBoundsError, inspectHdr } from '../model/hdr-bounds.js';
import {
  HDR_ENCODING,
  type OpenLoopHistograms,
  type OpenLoopOutcome,
  type OpenLoopWindow,
  type OpenLoopWindowAudio,
  type SerializedHdrHistogram,
  type Shard,
} from '../model/histograms.js';

export const SIGNIFICANT_DIGITS = 3;
/** Relative precision of a recorded value: a percentile read back is within this of the true one. */
export const RELATIVE_PRECISION = 10 ** -SIGNIFICANT_DIGITS;

export type Histogram = hdr.Histogram;

export function newHistogram(): Histogram {
  return hdr.build({
    bitBucketSize: 32,
    lowestDiscernibleValue: 1,
    highestTrackableValue: 2,
    numberOfSignificantValueDigits: SIGNIFICANT_DIGITS,
    autoResize: true,
    useWebAssembly: false,
  });
}

/** Records a duration in ms (as whole microseconds; negative values clamp to 0). */
export function recordMs(h: Histogram, ms: number): void {
  h.recordValue(Math.max(0, Math.round(ms * 1000)));
}

/** The `q`-quantile (0..1) in ms; null for an empty histogram. */
export function quantileMs(h: Histogram, q: number): number | null {
  if (h.totalCount === 0) return null;
  return h.getValueAtPercentile(q * 100) / 1000;
}

/** How many recorded values exceed `ms` (within the histogram's precision; a rank search on percentiles). */
export function countAboveMs(h: Histogram, ms: number): number {
  const total = h.totalCount;
  const v = ms * 1000;
  if (total === 0 || h.maxValue <= v) return 0;
  // The largest rank whose value is at most v (0: every value is above it).
  let lo = 0;
  let hi = total;
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    if (h.getValueAtPercentile((100 * (mid - 0.5)) / total) <= v) lo = mid;
    else hi = mid;
  }
  return total - lo;
}

export function encodeHistogram(h: Histogram): SerializedHdrHistogram {
  return {
    encoding: HDR_ENCODING,
    unit: 'us',
    significant_digits: SIGNIFICANT_DIGITS,
    count: h.totalCount,
    data: hdr.encodeIntoCompressedBase64(h),
  };
}

/**
 * Decodes into a fresh auto-resizing histogram; `where` names the source in errors. The encoding
 * is checked within its bounds first (src/model/hdr-bounds.ts: inflated size, declared range,
 * counts), so no histogram decodes into more memory or steps than those allow.
 */
export function decodeHistogram(s: SerializedHdrHistogram, where: string): Histogram {
  try {
    inspectHdr(s.data, s.significant_digits);
  } catch (e) {
    if (e instanceof HdrBoundsError) throw new UsageError(`${where}: histogram refused (${e.message}).`);
    throw e;
  }
  let decoded: Histogram;
  try {
    decoded = hdr.decodeFromCompressedBase64(s.data, 32, false);
  } catch (e) {
    throw new UsageError(`${where}: histogram data does not decode (${(e as Error).message}).`);
  }
  if (decoded.totalCount !== s.count) {
    throw new UsageError(
      `${where}: histogram holds ${decoded.totalCount} values but says ${s.count}: the file is corrupted.`,
    );
  }
  const h = newHistogram();
  h.add(decoded);
  decoded.destroy();
  return h;
}

export type SeriesName = 'ttfab_intended' | 'ttfab_sent' | 'latency_intended' | 'latency_sent' | 'send_lag';
export const SERIES: readonly SeriesName[] = [
  'ttfab_intended',
  'ttfab_sent',
  'latency_intended',
  'latency_sent',
  'send_lag',
];

/** The audio of a window's ok responses being recorded (see openLoopWindowAudioSchema). */
export interface LiveWindowAudio {
  streams: number;
  multiChunk: number;
  stalled: number;
  audioS: number;
  characters: number;
  maxChunkGapMs: number | null;
  format: AudioFormat | null;
  /** Stall time of multi-chunk streams, ms. */
  stall: Histogram;
  /** Real-time factor x 1000 (recorded with recordMs). */
  rtfMilli: Histogram;
}

/** One window being recorded (or decoded for a merge). */
export interface LiveWindow {
  index: number;
  offered: number;
  sent: number;
  outcomes: Partial<Record<OpenLoopOutcome, number>>;
  series: Record<SeriesName, Histogram>;
  audio: LiveWindowAudio;
}

export function newWindowAudio(): LiveWindowAudio {
  return {
    streams: 0,
    multiChunk: 0,
    stalled: 0,
    audioS: 0,
    characters: 0,
    maxChunkGapMs: null,
    format: null,
    stall: newHistogram(),
    rtfMilli: newHistogram(),
  };
}

/** One ok stream's audio into its window (nothing when its audio was not accounted). */
export function recordStreamAudio(
  into: LiveWindowAudio,
  stream: {
    format: AudioFormat | null;
    audioS: number;
    stallMs: number | null;
    maxGapMs: number | null;
    characters: number;
    responseMs: number | null;
  },
): void {
  if (stream.format === null) return;
  into.streams += 1;
  into.audioS += stream.audioS;
  into.characters += stream.characters;
  into.format ??= stream.format;
  if (stream.stallMs !== null) {
    into.multiChunk += 1;
    if (stream.stallMs > 0) into.stalled += 1;
    recordMs(into.stall, stream.stallMs);
  }
  if (stream.maxGapMs !== null && (into.maxChunkGapMs === null || stream.maxGapMs > into.maxChunkGapMs)) {
    into.maxChunkGapMs = stream.maxGapMs;
  }
  if (stream.responseMs !== null && stream.audioS > 0) {
    recordMs(into.rtfMilli, (stream.responseMs / 1000 / stream.audioS) * 1000);
  }
}

function encodeWindowAudio(a: LiveWindowAudio): OpenLoopWindowAudio {
  return {
    streams: a.streams,
    multi_chunk: a.multiChunk,
    stalled: a.stalled,
    audio_s: a.audioS,
    characters: a.characters,
    max_chunk_gap_ms: a.maxChunkGapMs,
    format: a.format,
    stall: encodeHistogram(a.stall),
    rtf_milli: encodeHistogram(a.rtfMilli),
  };
}

function decodeWindowAudio(a: OpenLoopWindowAudio | undefined, at: string): LiveWindowAudio {
  if (a === undefined) return newWindowAudio();
  return {
    streams: a.streams,
    multiChunk: a.multi_chunk,
    stalled: a.stalled,
    audioS: a.audio_s,
    characters: a.characters,
    maxChunkGapMs: a.max_chunk_gap_ms,
    format: a.format,
    stall: decodeHistogram(a.stall, `${at} audio.stall`),
    rtfMilli: decodeHistogram(a.rtf_milli, `${at} audio.rtf_milli`),
  };
}

function addWindowAudio(into: LiveWindowAudio, from: LiveWindowAudio): void {
  into.streams += from.streams;
  into.multiChunk += from.multiChunk;
  into.stalled += from.stalled;
  into.audioS += from.audioS;
  into.characters += from.characters;
  into.format ??= from.format;
  if (
    from.maxChunkGapMs !== null &&
    (into.maxChunkGapMs === null || from.maxChunkGapMs > into.maxChunkGapMs)
  ) {
    into.maxChunkGapMs = from.maxChunkGapMs;
  }
  into.stall.add(from.stall);
  into.rtfMilli.add(from.rtfMilli);
}

export function newWindow(index: number): LiveWindow {
  return {
    index,
    offered: 0,
    sent: 0,
    outcomes: {},
    series: {
      ttfab_intended: newHistogram(),
      ttfab_sent: newHistogram(),
      latency_intended: newHistogram(),
      latency_sent: newHistogram(),
      send_lag: newHistogram(),
    },
    audio: newWindowAudio(),
  };
}

export function encodeWindow(w: LiveWindow): OpenLoopWindow {
  return {
    index: w.index,
    offered: w.offered,
    sent: w.sent,
    outcome_counts: { ...w.outcomes },
    ttfab_intended: encodeHistogram(w.series.ttfab_intended),
    ttfab_sent: encodeHistogram(w.series.ttfab_sent),
    latency_intended: encodeHistogram(w.series.latency_intended),
    latency_sent: encodeHistogram(w.series.latency_sent),
    send_lag: encodeHistogram(w.series.send_lag),
    // Additive: only windows with accounted audio carry the block (older files read as none).
    ...(w.audio.streams > 0 ? { audio: encodeWindowAudio(w.audio) } : {}),
  };
}

export function decodeWindow(w: OpenLoopWindow, where: string): LiveWindow {
  const at = `${where} window ${w.index}`;
  return {
    index: w.index,
    offered: w.offered,
    sent: w.sent,
    outcomes: { ...w.outcome_counts },
    series: {
      ttfab_intended: decodeHistogram(w.ttfab_intended, `${at} ttfab_intended`),
      ttfab_sent: decodeHistogram(w.ttfab_sent, `${at} ttfab_sent`),
      latency_intended: decodeHistogram(w.latency_intended, `${at} latency_intended`),
      latency_sent: decodeHistogram(w.latency_sent, `${at} latency_sent`),
      send_lag: decodeHistogram(w.send_lag, `${at} send_lag`),
    },
    audio: decodeWindowAudio(w.audio, at),
  };
}

/** Adds `from` into `into` (counts and every histogram). */
export function addWindow(into: LiveWindow, from: LiveWindow): void {
  into.offered += from.offered;
  into.sent += from.sent;
  for (const [k, v] of Object.entries(from.outcomes) as Array<[OpenLoopOutcome, number]>) {
    into.outcomes[k] = (into.outcomes[k] ?? 0) + v;
  }
  for (const name of SERIES) into.series[name].add(from.series[name]);
  addWindowAudio(into.audio, from.audio);
}

/** Windows [from, to) (indices) summed into one: the whole run, or a measure window of it. */
export function sumWindows(
  windows: Iterable<LiveWindow>,
  from = 0,
  to = Number.POSITIVE_INFINITY,
): LiveWindow {
  const total = newWindow(from);
  for (const w of windows) if (w.index >= from && w.index < to) addWindow(total, w);
  return total;
}

export interface LabelledHistograms {
  /** Where the data came from (a file name): named in every error. */
  source: string;
  data: OpenLoopHistograms;
}

const shardKey = (s: Shard): string => `${s.index}/${s.count}`;

/**
 * Merges the shards of one schedule. Refused (UsageError naming the file) when they follow
 * different schedules (seed, rates, file), start at different times, use different windows,
 * repeat a shard, or do not together cover shards 0..n-1 of one n.
 */
export function mergeOpenLoop(parts: readonly LabelledHistograms[]): OpenLoopHistograms {
  const first = parts[0];
  if (!first) throw new UsageError('merge: no shard files given.');
  const ref = first.data;
  const seen = new Map<string, string>();
  let count: number | null = null;
  for (const { source, data } of parts) {
    if (data.schedule.schedule_hash !== ref.schedule.schedule_hash) {
      throw new UsageError(
        `${source}: follows another schedule than ${first.source} (${data.schedule.description}, seed ${data.schedule.seed ?? 'none'} vs ${ref.schedule.description}, seed ${ref.schedule.seed ?? 'none'}); shards of one run share --seed and the schedule.`,
      );
    }
    if (data.start_at !== ref.start_at) {
      throw new UsageError(
        `${source}: started at ${data.start_at}, ${first.source} at ${ref.start_at}; shards of one run share --start-at.`,
      );
    }
    if (data.window_ms !== ref.window_ms) {
      throw new UsageError(
        `${source}: ${data.window_ms} ms windows, ${first.source} ${ref.window_ms} ms; shards of one run share the window.`,
      );
    }
    for (const shard of data.shards) {
      if (count === null) count = shard.count;
      if (shard.count !== count) {
        throw new UsageError(
          `${source}: shard ${shardKey(shard)} belongs to a ${shard.count}-way split, others to a ${count}-way one.`,
        );
      }
      const other = seen.get(shardKey(shard));
      if (other !== undefined) {
        throw new UsageError(
          `${source}: shard ${shardKey(shard)} is also in ${other}; give each shard once.`,
        );
      }
      seen.set(shardKey(shard), source);
    }
  }
  const n = count as number;
  const missing: number[] = [];
  for (let i = 0; i < n; i++) if (!seen.has(`${i}/${n}`)) missing.push(i);
  if (missing.length > 0) {
    throw new UsageError(
      `merge: shards ${missing.map((i) => `${i}/${n}`).join(', ')} are missing: the shards must cover 0..${n - 1}.`,
    );
  }
  // One window index at a time, across the shards: decoded, added, encoded, released. What is
  // held decoded at once is one window of each shard, however many windows a run has.
  const byIndex = new Map<number, Array<{ source: string; window: OpenLoopWindow }>>();
  for (const { source, data } of parts) {
    for (const window of data.windows) {
      const list = byIndex.get(window.index);
      if (list) list.push({ source, window });
      else byIndex.set(window.index, [{ source, window }]);
    }
  }
  const windows: OpenLoopWindow[] = [];
  for (const index of [...byIndex.keys()].sort((a, b) => a - b)) {
    let into: LiveWindow | null = null;
    for (const { source, window } of byIndex.get(index) as Array<{
      source: string;
      window: OpenLoopWindow;
    }>) {
      const decoded = decodeWindow(window, source);
      if (into === null) into = decoded;
      else {
        addWindow(into, decoded);
        releaseWindow(decoded);
      }
    }
    const merged = into as LiveWindow;
    windows.push(encodeWindow(merged));
    releaseWindow(merged);
  }
  return {
    schedule: ref.schedule,
    start_at: ref.start_at,
    window_ms: ref.window_ms,
    shards: Array.from({ length: n }, (_, index) => ({ index, count: n })),
    windows,
  };
}

/** Frees a window's histograms (their counts arrays) once it has been added or encoded. */
export function releaseWindow(w: LiveWindow): void {
  for (const name of SERIES) w.series[name].destroy();
  w.audio.stall.destroy();
  w.audio.rtfMilli.destroy();
}
