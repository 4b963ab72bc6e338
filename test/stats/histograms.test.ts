import { describe, expect, it } from 'vitest';
import { constantProfile, scheduleIdentity } from '../../src/load/open/arrivals.js';
import { UsageError } from '../../src/model/errors.js';
import { type OpenLoopHistograms, openLoopHistogramsSchema } from '../../src/model/histograms.js';
import {
  decodeWindow,
  encodeWindow,
  mergeOpenLoop,
  newWindow,
  quantileMs,
  RELATIVE_PRECISION,
  recordMs,
} from '../../src/stats/histograms.js';

const schedule = (seed: number) =>
  scheduleIdentity({ process: 'poisson', profile: constantProfile(50, 2), seed });

function part(
  index: number,
  count: number,
  seed = 1,
  startAt = '2026-11-30T12:00:00.000Z',
): OpenLoopHistograms {
  const w = newWindow(0);
  w.offered = 10;
  w.sent = 10;
  w.outcomes.ok = 10;
  for (let i = 1; i <= 10; i++) recordMs(w.series.ttfab_intended, 100 * i + index);
  return openLoopHistogramsSchema.parse({
    schedule: schedule(seed),
    start_at: startAt,
    window_ms: 1000,
    shards: [{ index, count }],
    windows: [encodeWindow(w)],
  });
}

describe('serialized HDR windows', () => {
  it('round-trip through JSON with percentiles within the stated precision', () => {
    const w = newWindow(3);
    for (let i = 1; i <= 1000; i++) recordMs(w.series.latency_sent, i * 1.7);
    const back = decodeWindow(JSON.parse(JSON.stringify(encodeWindow(w))), 'x.json');
    const p95 = quantileMs(back.series.latency_sent, 0.95) as number;
    expect(Math.abs(p95 - 950 * 1.7)).toBeLessThanOrEqual(950 * 1.7 * RELATIVE_PRECISION + 0.001);
  });

  it('refuse a histogram whose count disagrees with its data (a corrupted file)', () => {
    const encoded = encodeWindow(newWindow(0));
    encoded.ttfab_sent.count = 5;
    expect(() => decodeWindow(encoded, 'shard-1.json')).toThrow(
      /shard-1\.json window 0 ttfab_sent: histogram holds 0 values but says 5/,
    );
  });
});

describe('merge of shard files', () => {
  const refused = (parts: Array<[string, OpenLoopHistograms]>, pattern: RegExp) => {
    let error: unknown;
    try {
      mergeOpenLoop(parts.map(([source, data]) => ({ source, data })));
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(pattern);
  };

  it('adds counts of aligned windows', () => {
    const merged = mergeOpenLoop([
      { source: 'a.json', data: part(0, 2) },
      { source: 'b.json', data: part(1, 2) },
    ]);
    expect(merged.shards).toEqual([
      { index: 0, count: 2 },
      { index: 1, count: 2 },
    ]);
    expect(merged.windows[0]?.offered).toBe(20);
    expect(merged.windows[0]?.ttfab_intended.count).toBe(20);
  });
  it('refuses shards that disagree on the schedule seed, naming the file', () =>
    refused(
      [
        ['a.json', part(0, 2, 1)],
        ['b.json', part(1, 2, 2)],
      ],
      /^b\.json: follows another schedule than a\.json .*seed 2 vs .*seed 1/,
    ));
  it('refuses shards that do not cover 0..n-1', () =>
    refused(
      [
        ['a.json', part(0, 3)],
        ['b.json', part(1, 3)],
      ],
      /shards 2\/3 are missing/,
    ));
  it('refuses a shard given twice', () =>
    refused(
      [
        ['a.json', part(0, 2)],
        ['b.json', part(0, 2)],
      ],
      /^b\.json: shard 0\/2 is also in a\.json/,
    ));
  it('refuses shards of different splits', () =>
    refused(
      [
        ['a.json', part(0, 2)],
        ['b.json', part(1, 3)],
      ],
      /^b\.json: shard 1\/3 belongs to a 3-way split/,
    ));
  it('refuses shards that started at different times', () =>
    refused(
      [
        ['a.json', part(0, 2)],
        ['b.json', part(1, 2, 1, '2026-11-30T12:00:01.000Z')],
      ],
      /^b\.json: started at/,
    ));
});
