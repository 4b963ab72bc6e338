/**
 * HDR histograms in artifacts are zlib inside base64: a decompression bomb, a declared range
 * whose counts array is gigabytes, or counts that walk the decoder's index far past its array.
 * Each is refused when the artifact is read (exit 2, naming the file and the field), before
 * anything decodes it; a shard of many windows of huge-range histograms (what made a 1.3 MB shard
 * take gigabytes in `scalegate merge`) is refused by the budget of one run's windows.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runMerge } from '../../src/commands/merge.js';
import {
  countsArrayLength,
  HDR_LIMITS,
  inspectHdr,
  isUsageError,
  parseArtifact,
  readArtifact,
  type SerializedHdrHistogram,
  writeArtifact,
} from '../../src/model/index.js';
import { decodeHistogram, encodeHistogram, newHistogram, recordMs } from '../../src/stats/histograms.js';
import { buildDrill, windowsWith } from '../helpers/drill-data.js';
import { bombShard, hdrFromPayload, hdrPayload, inflateBomb, oneValueAt } from '../helpers/hdr-bomb.js';

function thrown(fn: () => unknown): Error {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('expected a refusal, nothing was thrown');
}

const dir = () => mkdtempSync(join(tmpdir(), 'scalegate-hdr-'));

/** A passing drill whose window 3 ttfab_intended is `h`, parsed as a committed file would be. */
function drillWith(h: SerializedHdrHistogram): unknown {
  const json = JSON.parse(JSON.stringify(buildDrill({ windows: windowsWith(), observer: null })));
  json.histograms.windows[3].ttfab_intended = h;
  return json;
}

const FIELD = 'histograms.windows.3.ttfab_intended.data';

describe('one histogram', () => {
  it('accepts what the encoder writes, and says what it would cost to decode', () => {
    const h = newHistogram();
    for (let i = 1; i <= 1000; i++) recordMs(h, i * 3);
    const shape = inspectHdr(encodeHistogram(h).data, 3);
    expect(shape.totalCount).toBe(1000);
    expect(shape.significantDigits).toBe(3);
    // 3 s = 3e6 µs needs 11 buckets beyond the first 2048 values: (12 + 1) x 1024 cells.
    expect(shape.cells).toBe(countsArrayLength(1, shape.highestValue, 3));
    expect(shape.cells).toBeLessThanOrEqual(HDR_LIMITS.cells);
    expect(parseArtifact('drill', drillWith(encodeHistogram(h)), 'd.json')).toBeTruthy();
  });

  it('refuses a zlib bomb (50 kB that inflate to 40 MB) without inflating it whole', () => {
    const bomb = inflateBomb(40 * 1024 * 1024);
    expect(bomb.data.length).toBeLessThan(HDR_LIMITS.encodedChars);
    const e = thrown(() => parseArtifact('drill', drillWith(bomb), 'drill-bomb.json'));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain(
      `drill-bomb.json: invalid drill artifact:\n  - ${FIELD}: inflates to more than ${HDR_LIMITS.inflatedBytes} bytes`,
    );
  });

  it('refuses a declared range beyond 2^37 µs, and a range whose counts array is too large at 5 digits', () => {
    const huge = hdrFromPayload(hdrPayload({ highest: 2 ** 52, words: [] }), 0);
    expect(thrown(() => parseArtifact('drill', drillWith(huge), 'd.json')).message).toContain(
      `${FIELD}: highest trackable value 4503599627370496 is outside 2..137438953472 µs`,
    );
    const fine = hdrFromPayload(hdrPayload({ digits: 5, highest: 2 ** 36, words: [] }), 0, 5);
    expect(thrown(() => parseArtifact('drill', drillWith(fine), 'd.json')).message).toMatch(
      new RegExp(
        `${FIELD.replace(/\./g, '\\.')}: its range needs \\d+ counts cells \\(5 digits up to 68719476736\\), above the 32768`,
      ),
    );
    const lying = hdrFromPayload(hdrPayload({ digits: 4, highest: 2 ** 20, words: [] }), 0, 3);
    expect(thrown(() => parseArtifact('drill', drillWith(lying), 'd.json')).message).toContain(
      'encodes 4 significant digits where significant_digits says 3',
    );
  });

  it('refuses counts that skip past the array (a zero run of 2^40 the decoder would walk)', () => {
    const skip = hdrFromPayload(hdrPayload({ highest: 2 ** 20, words: [-(2 ** 40), 1] }), 1);
    const e = thrown(() => parseArtifact('drill', drillWith(skip), 'd.json'));
    expect(e.message).toMatch(
      /histograms\.windows\.3\.ttfab_intended\.data: its counts run past the \d+ cells its range has/,
    );
  });

  it('refuses a count that is not the one recorded, and data that is not base64 or too long', () => {
    const h = oneValueAt(1000);
    expect(thrown(() => parseArtifact('drill', drillWith({ ...h, count: 7 }), 'd.json')).message).toContain(
      `${FIELD}: holds 1 values where count says 7 (corrupted)`,
    );
    expect(
      thrown(() =>
        parseArtifact('drill', drillWith({ ...h, data: 'A'.repeat(HDR_LIMITS.encodedChars + 4) }), 'd.json'),
      ).message,
    ).toContain(`${FIELD}: at most ${HDR_LIMITS.encodedChars} base64 characters per histogram`);
    expect(
      thrown(() => parseArtifact('drill', drillWith({ ...h, data: 'not base64!' }), 'd.json')).message,
    ).toContain(`${FIELD}: base64`);
  });

  it('decodeHistogram itself refuses a bomb (data that never went through a file)', () => {
    const e = thrown(() => decodeHistogram(inflateBomb(10 * 1024 * 1024), 'in memory'));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toContain('in memory: histogram refused (inflates to more than');
  });
});

describe('a shard of many huge-range windows', () => {
  it('is refused by `merge` before decoding, naming the file, the field and the 256 MB budget; nothing is written', () => {
    const d = dir();
    const file = join(d, 'drill.shard-0-of-1.json');
    // 1300 windows, each of five histograms holding one value at 2^36 µs: 1.2 MB on disk, about
    // 186 M counts cells (0.7 GB) decoded.
    writeFileSync(file, JSON.stringify(bombShard(1300, 2 ** 36)));
    const out = join(d, 'merged.json');
    const e = thrown(() => runMerge({ files: [file], outFile: out }));
    expect(isUsageError(e)).toBe(true);
    expect(e.message).toMatch(
      /drill\.shard-0-of-1\.json: invalid drill-shard artifact:\n {2}- histograms\.windows\.\d+\.\w+\.data: the histograms of histograms\.windows up to here need \d+ counts cells to decode, above the 67108864 \(256 MB\) one run's windows may take/,
    );
    expect(existsSync(out)).toBe(false);
  });

  it('within the budget, merges window by window into the same histograms', () => {
    const d = dir();
    const file = join(d, 'drill.shard-0-of-1.json');
    const shard = bombShard(40, 2 ** 31);
    writeArtifact('drill-shard', file, shard);
    const out = join(d, 'merged.json');
    runMerge({ files: [file], outFile: out });
    const merged = readArtifact('drill', out);
    expect(merged.histograms.windows).toHaveLength(40);
    const at = decodeHistogram(
      merged.histograms.windows[39]?.latency_sent as SerializedHdrHistogram,
      'merged',
    );
    expect(at.totalCount).toBe(1);
    expect(at.maxValue).toBeGreaterThanOrEqual(2 ** 31);
  });
});
