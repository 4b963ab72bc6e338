/**
 * Bounds on the HDR histograms an artifact carries, checked before any of them is decoded. A
 * histogram is a zlib stream inside base64 (HdrHistogram V2 compressed): a few bytes of it can
 * inflate to gigabytes, declare a value range whose counts array alone is hundreds of megabytes,
 * or skip the decoder's index far past its array (a loop of billions of steps). So each one is
 * inflated here with an output bound (node:zlib `maxOutputLength`), its header's declared range is
 * turned into the counts array the decoder would allocate, and its counts are walked once; and the
 * counts arrays of the histograms of one run's windows, and of one whole artifact, stay within a
 * budget, so what a merge, a judge or the gate decodes stays within a bounded amount of memory.
 */
import { inflateSync } from 'node:zlib';

/** The bounds, with their reasons. */
export const HDR_LIMITS = {
  /** base64 characters of one histogram (a real one is a few hundred to a few thousand). */
  encodedChars: 64 * 1024,
  /**
   * Highest value a histogram may declare, µs: 2^37 µs is 38 h, above any latency or send lag
   * of a run (LIMITS.seconds is one day).
   */
  highestValueUs: 2 ** 37,
  /** Cells of one histogram's counts array: 3 significant digits from 1 µs up to 2^37 µs. */
  cells: 32 * 1024,
  /** Bytes one histogram may inflate to: its header and at most 9 bytes per cell. */
  inflatedBytes: 40 + 9 * 32 * 1024,
  /**
   * Cells of the histograms of one run's windows together (a goodput rung's, a drill's): what a
   * judge holds decoded at once, 4 bytes each (256 MB). A window of a real TTS run (five
   * histograms, latencies up to a few seconds) takes about 70 000: a rung of 100 windows 7 M, a
   * two-hour drill in 10 s windows 50 M.
   */
  setCells: 64 * 1024 * 1024,
  /** Cells of all the histograms of one artifact: what reading it may decode in all (1 GB). */
  artifactCells: 256 * 1024 * 1024,
} as const;

const COMPRESSED_COOKIE_BASE = 0x1c849304;
const ENCODING_COOKIE_BASE = 0x1c849303;
const HEADER_BYTES = 40;

export interface HdrShape {
  significantDigits: number;
  lowestValue: number;
  highestValue: number;
  /** Cells of the counts array the decoder allocates for this histogram. */
  cells: number;
  /** Sum of the counts. */
  totalCount: number;
}

/** Why a histogram is refused (the caller names the artifact and field). */
export class HdrBoundsError extends Error {}

/** The counts array length HdrHistogram allocates for this range (JsHistogram's own arithmetic). */
export function countsArrayLength(lowest: number, highest: number, digits: number): number {
  const largestWithUnitResolution = 2 * Math.floor(10 ** digits);
  const unitMagnitude = Math.floor(Math.log2(lowest));
  const subBucketCountMagnitude = Math.ceil(Math.log2(largestWithUnitResolution));
  const halfCountMagnitude = Math.max(subBucketCountMagnitude, 1) - 1;
  const subBucketCount = 2 ** (halfCountMagnitude + 1);
  let smallestUntrackable = subBucketCount * 2 ** unitMagnitude;
  let buckets = 1;
  while (smallestUntrackable <= highest) {
    if (smallestUntrackable > Number.MAX_SAFE_INTEGER / 2) {
      buckets += 1;
      break;
    }
    smallestUntrackable *= 2;
    buckets += 1;
  }
  return (buckets + 1) * (subBucketCount / 2);
}

/** HdrHistogram's ByteBuffer.getInt64: high * 2^32 + low, both unsigned 32-bit words. */
const int64 = (b: Buffer, at: number): number => b.readUInt32BE(at) * 2 ** 32 + b.readUInt32BE(at + 4);

/**
 * Checks one encoded histogram within HDR_LIMITS and returns its shape; throws HdrBoundsError
 * saying what is wrong (never quoting the data).
 */
export function inspectHdr(data: string, declaredDigits: number): HdrShape {
  if (data.length > HDR_LIMITS.encodedChars) {
    throw new HdrBoundsError(
      `${data.length} base64 characters, above the ${HDR_LIMITS.encodedChars} a histogram may take`,
    );
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw new HdrBoundsError('not base64');
  const bytes = Buffer.from(data, 'base64');
  if (bytes.length < 8 || (bytes.readInt32BE(0) & ~0xf0) !== COMPRESSED_COOKIE_BASE) {
    throw new HdrBoundsError('not an HdrHistogram V2 compressed encoding');
  }
  const compressedLength = bytes.readUInt32BE(4);
  if (compressedLength <= 0 || compressedLength > bytes.length - 8) {
    throw new HdrBoundsError(`declares ${compressedLength} compressed bytes, carries ${bytes.length - 8}`);
  }
  let payload: Buffer;
  try {
    payload = inflateSync(bytes.subarray(8, 8 + compressedLength), {
      maxOutputLength: HDR_LIMITS.inflatedBytes,
    });
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ERR_BUFFER_TOO_LARGE' || e instanceof RangeError) {
      throw new HdrBoundsError(
        `inflates to more than ${HDR_LIMITS.inflatedBytes} bytes (a decompression bomb, or not a histogram)`,
      );
    }
    throw new HdrBoundsError('does not inflate (corrupted zlib data)');
  }
  if (payload.length < HEADER_BYTES || (payload.readInt32BE(0) & ~0xf0) !== ENCODING_COOKIE_BASE) {
    throw new HdrBoundsError('inflates to something that is not an HdrHistogram V2 encoding');
  }
  const payloadLength = payload.readUInt32BE(4);
  const digits = payload.readUInt32BE(12);
  const lowest = int64(payload, 16);
  const highest = int64(payload, 24);
  if (payloadLength < 0 || payloadLength > payload.length - HEADER_BYTES) {
    throw new HdrBoundsError(
      `declares ${payloadLength} bytes of counts, carries ${payload.length - HEADER_BYTES}`,
    );
  }
  if (digits !== declaredDigits) {
    throw new HdrBoundsError(
      `encodes ${digits} significant digits where significant_digits says ${declaredDigits}`,
    );
  }
  if (!(lowest >= 1 && lowest <= HDR_LIMITS.highestValueUs)) {
    throw new HdrBoundsError(`lowest discernible value ${lowest} is outside 1..${HDR_LIMITS.highestValueUs}`);
  }
  if (!(highest >= 2 * lowest && highest <= HDR_LIMITS.highestValueUs)) {
    throw new HdrBoundsError(
      `highest trackable value ${highest} is outside ${2 * lowest}..${HDR_LIMITS.highestValueUs} µs`,
    );
  }
  const cells = countsArrayLength(lowest, highest, digits);
  if (cells > HDR_LIMITS.cells) {
    throw new HdrBoundsError(
      `its range needs ${cells} counts cells (${digits} digits up to ${highest}), above the ${HDR_LIMITS.cells} a histogram may take`,
    );
  }
  // The counts, as the decoder walks them: ZigZag LEB128, a negative word skips that many zeros.
  const end = HEADER_BYTES + payloadLength;
  let at = HEADER_BYTES;
  let index = 0;
  let total = 0;
  while (at < end) {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 9; i++) {
      if (at >= end) throw new HdrBoundsError('its counts end in the middle of a number');
      const byte = payload[at++] as number;
      value += (byte & 0x7f) * scale;
      if (i === 8 || (byte & 0x80) === 0) break;
      scale *= 128;
    }
    const word = value % 2 === 0 ? value / 2 : -(value + 1) / 2;
    index += word < 0 ? -word : 1;
    if (word > 0) total += word;
    if (index > cells) {
      throw new HdrBoundsError(`its counts run past the ${cells} cells its range has`);
    }
  }
  return { significantDigits: digits, lowestValue: lowest, highestValue: highest, cells, totalCount: total };
}

/** Where a histogram sits in a parsed artifact (`rungs.0.histograms.windows.3.ttfab_intended`). */
export interface HdrAt {
  path: Array<string | number>;
  histogram: { data: string; significant_digits: number; count: number };
}

/** Every serialized histogram in `value` (any object with `encoding: HDR_ENCODING`), with its path. */
export function* histogramsIn(
  value: unknown,
  encoding: string,
  path: Array<string | number> = [],
): Generator<HdrAt> {
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) yield* histogramsIn(value[i], encoding, [...path, i]);
    return;
  }
  if (typeof value !== 'object' || value === null) return;
  const record = value as Record<string, unknown>;
  if (record.encoding === encoding && typeof record.data === 'string') {
    yield { path, histogram: record as unknown as HdrAt['histogram'] };
    return;
  }
  for (const [key, child] of Object.entries(record)) yield* histogramsIn(child, encoding, [...path, key]);
}

const MB_PER_CELL = 4 / 2 ** 20;

/**
 * Every histogram of a parsed artifact within HDR_LIMITS, the histograms of each run's windows
 * within the set budget and all of them within the artifact budget. Returns null, or the first
 * problem as `field.path: why`.
 */
export function checkArtifactHistograms(artifact: unknown, encoding: string): string | null {
  let cells = 0;
  const bySet = new Map<string, number>();
  for (const { path, histogram } of histogramsIn(artifact, encoding)) {
    const field = [...path, 'data'].join('.');
    let shape: HdrShape;
    try {
      shape = inspectHdr(histogram.data, histogram.significant_digits);
    } catch (e) {
      if (e instanceof HdrBoundsError) return `${field}: ${e.message}`;
      throw e;
    }
    if (shape.totalCount !== histogram.count) {
      return `${field}: holds ${shape.totalCount} values where count says ${histogram.count} (corrupted)`;
    }
    const windows = path.indexOf('windows');
    const set = windows < 0 ? field : path.slice(0, windows + 1).join('.');
    const inSet = (bySet.get(set) ?? 0) + shape.cells;
    bySet.set(set, inSet);
    if (inSet > HDR_LIMITS.setCells) {
      return `${field}: the histograms of ${set} up to here need ${inSet} counts cells to decode, above the ${HDR_LIMITS.setCells} (${HDR_LIMITS.setCells * MB_PER_CELL} MB) one run's windows may take`;
    }
    cells += shape.cells;
    if (cells > HDR_LIMITS.artifactCells) {
      return `${field}: the histograms up to here need ${cells} counts cells to decode, above the ${HDR_LIMITS.artifactCells} (${HDR_LIMITS.artifactCells * MB_PER_CELL} MB) one artifact may take`;
    }
  }
  return null;
}
