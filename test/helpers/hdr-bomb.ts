/**
 * Crafted HDR histograms and shards: the attacks on histogram decoding that src/model/hdr-bounds.ts
 * refuses. Each is a valid HdrHistogram V2 compressed encoding of its kind (the library decodes it),
 * built here byte by byte so a test states exactly what the file claims.
 */
import { deflateSync } from 'node:zlib';
import type { DrillShardArtifact, OpenLoopWindow, SerializedHdrHistogram } from '../../src/model/index.js';
import { encodeHistogram, newHistogram } from '../../src/stats/histograms.js';
import { drillData, observerWith, okWindow } from './drill-data.js';

const zigzag = (value: number): number[] => {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  const out: number[] = [];
  for (let i = 0; i < 9; i++) {
    const byte = v % 128;
    v = Math.floor(v / 128);
    if (v === 0 || i === 8) {
      out.push(byte);
      break;
    }
    out.push(byte | 0x80);
  }
  return out;
};

/** An HdrHistogram V2 payload: the header as stated, then the counts words as given. */
export function hdrPayload(o: {
  digits?: number;
  lowest?: number;
  highest: number;
  words: number[];
}): Buffer {
  const counts = Buffer.from(o.words.flatMap(zigzag));
  const header = Buffer.alloc(40);
  header.writeInt32BE(0x1c849313, 0);
  header.writeInt32BE(counts.length, 4);
  header.writeInt32BE(0, 8);
  header.writeInt32BE(o.digits ?? 3, 12);
  header.writeBigInt64BE(BigInt(o.lowest ?? 1), 16);
  header.writeBigInt64BE(BigInt(o.highest), 24);
  header.writeBigInt64BE(1n, 32);
  return Buffer.concat([header, counts]);
}

/** A payload compressed into the `data` of a serialized histogram. */
export function hdrFromPayload(payload: Buffer, count: number, digits = 3): SerializedHdrHistogram {
  const compressed = deflateSync(payload, { level: 9 });
  const head = Buffer.alloc(8);
  head.writeInt32BE(0x1c849314, 0);
  head.writeInt32BE(compressed.length, 4);
  return {
    encoding: 'hdr-v2-compressed-base64',
    unit: 'us',
    significant_digits: digits,
    count,
    data: Buffer.concat([head, compressed]).toString('base64'),
  };
}

/** One value recorded at `valueUs` by the real encoder (an honest histogram of a huge value). */
export function oneValueAt(valueUs: number): SerializedHdrHistogram {
  const h = newHistogram();
  h.recordValue(valueUs);
  return encodeHistogram(h);
}

/** A zlib bomb: the payload padded with zeros to `bytes` (about a thousandth of that compressed). */
export function inflateBomb(bytes: number): SerializedHdrHistogram {
  const payload = Buffer.alloc(bytes);
  hdrPayload({ highest: 2 ** 20, words: [] }).copy(payload);
  payload.writeInt32BE(bytes - 40, 4);
  return hdrFromPayload(payload, 0);
}

/**
 * A drill shard of `windows` windows whose five histograms each hold one value at `valueUs`: each
 * decodes into a counts array as large as that value's range. About 1 kB per window on disk.
 */
export function bombShard(windows: number, valueUs: number): DrillShardArtifact {
  const data = drillData({
    windows: Array.from({ length: windows }, () => okWindow(1, 100)),
    observer: observerWith({ breachS: 20 }),
  });
  const h = oneValueAt(valueUs);
  const bomb = (w: OpenLoopWindow): OpenLoopWindow => ({
    ...w,
    offered: 1,
    sent: 1,
    outcome_counts: { ok: 1 },
    ttfab_intended: h,
    ttfab_sent: h,
    latency_intended: h,
    latency_sent: h,
    send_lag: h,
  });
  return {
    ...data,
    kind: 'drill-shard',
    shard: { index: 0, count: 1 },
    histograms: { ...data.histograms, windows: data.histograms.windows.map(bomb) },
    load_seconds: data.load_seconds.slice(0, 10),
  };
}
