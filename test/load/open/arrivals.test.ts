import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openLoopEventLine } from '../../../src/load/events.js';
import {
  type ArrivalSpec,
  constantProfile,
  parseShard,
  parseStartAt,
  scheduleIdentity,
  scheduleOffsets,
  shardArrivals,
} from '../../../src/load/open/arrivals.js';
import type { OpenLoopRecord } from '../../../src/load/open/open-loop.js';
import { loadReplay, loadSchedule, parseReplay } from '../../../src/load/open/schedule-file.js';
import { UsageError } from '../../../src/model/errors.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-arrivals-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};

describe('Poisson arrivals', () => {
  const spec = (seed: number, rate = 1000): ArrivalSpec => ({
    process: 'poisson',
    profile: constantProfile(rate, 20),
    seed,
  });

  it('are reproducible from the seed and differ between seeds (shards must agree on one schedule)', () => {
    const a = [...scheduleOffsets(spec(42))];
    const b = [...scheduleOffsets(spec(42))];
    const c = [...scheduleOffsets(spec(43))];
    expect(a).toEqual(b);
    expect(c.slice(0, 10)).not.toEqual(a.slice(0, 10));
    expect(scheduleIdentity(spec(42)).schedule_hash).toBe(scheduleIdentity(spec(42)).schedule_hash);
    expect(scheduleIdentity(spec(42)).schedule_hash).not.toBe(scheduleIdentity(spec(43)).schedule_hash);
  });

  it('hold the stated rate within 4 standard deviations (a rate 5 % off, or evenly spaced arrivals, fail)', () => {
    // 1000/s for 20 s: the count is Poisson(20000), sd 141; 4 sd = 2.8 % < 5 %.
    for (const seed of [1, 2, 3]) {
      const t = [...scheduleOffsets(spec(seed))];
      expect(Math.abs(t.length - 20_000)).toBeLessThan(4 * Math.sqrt(20_000));
      // Exponential gaps: coefficient of variation 1 (0 for a constant rate); sd of the estimate ~0.007.
      const gaps = t.slice(1).map((v, i) => v - (t[i] as number));
      const mean = gaps.reduce((s, g) => s + g, 0) / gaps.length;
      const sd = Math.sqrt(gaps.reduce((s, g) => s + (g - mean) ** 2, 0) / gaps.length);
      expect(Math.abs(sd / mean - 1)).toBeLessThan(0.04);
      expect(t.every((v, i) => i === 0 || v >= (t[i - 1] as number))).toBe(true);
      expect((t.at(-1) as number) < 20_000).toBe(true);
    }
  });

  it('follow a ramp schedule: the first half of a 0 -> 2000/s ramp gets a quarter of the arrivals', () => {
    const profile = loadSchedule(file('ramp.csv', 't_s,rate\n0,0\n10,2000\n'), 'ramp');
    const t = [...scheduleOffsets({ process: 'poisson', profile, seed: 5 })];
    // Expected 10000 in all (sd 100) and 2500 in the first 5 s (sd 50).
    expect(Math.abs(t.length - 10_000)).toBeLessThan(400);
    expect(Math.abs(t.filter((v) => v < 5000).length - 2500)).toBeLessThan(200);
  });
});

describe('deterministic schedules and shards', () => {
  it('a step schedule sends exactly its area: 100/s for 2 s then 300/s for 1 s = 500', () => {
    const profile = loadSchedule(
      file(
        'step.json',
        JSON.stringify([
          { t_s: 0, rate: 100 },
          { t_s: 2, rate: 300 },
          { t_s: 3, rate: 0 },
        ]),
      ),
      'step',
    );
    const t = [...scheduleOffsets({ process: 'constant', profile, seed: 0 })];
    expect(t.length).toBe(500);
    expect(t.filter((v) => v < 2000).length).toBe(200);
    expect(t[1]).toBeCloseTo(10, 9);
  });

  it('n shards send every arrival of the single schedule exactly once, at the same intended time', () => {
    const spec: ArrivalSpec = { process: 'poisson', profile: constantProfile(300, 5), seed: 9 };
    const all = [...shardArrivals(spec)];
    const parts = [0, 1, 2].flatMap((index) => [...shardArrivals(spec, { index, count: 3 })]);
    expect(parts.length).toBe(all.length);
    expect(parts.sort((a, b) => a.seq - b.seq)).toEqual(all);
  });

  it('an open-loop events file replays its intended send times, not its late actual sends', () => {
    const record = (seq: number, intendedAt: number, sentAt: number): OpenLoopRecord => ({
      seq,
      promptIndex: 0,
      window: 0,
      intendedAt,
      sentAt,
      firstAudioAt: null,
      endedAt: null,
      connectMs: null,
      sendLagMs: sentAt - intendedAt,
      ttfabIntendedMs: null,
      ttfabSentMs: null,
      latencyIntendedMs: null,
      latencySentMs: null,
      outcome: 'ok',
      status: 200,
      bytes: 0,
      error: null,
      stopped: false,
    });
    const lines = [record(0, 1000, 1000.5), record(1, 1250, 1900), record(2, 1500, 1901)].map((r) =>
      openLoopEventLine(r),
    );
    const offsets = parseReplay(lines.join('\n'), 'events.jsonl');
    expect(offsets.map((v) => Math.round(v))).toEqual([0, 250, 500]);
  });

  it('replay keeps the recorded gaps, relative to the first timestamp', () => {
    const offsets = loadReplay(
      file(
        'replay.txt',
        '2026-11-30T12:00:00.000Z\n{"dispatched_at":"2026-11-30T12:00:00.250Z"}\n2026-11-30T12:00:01.000Z\n',
      ),
    );
    expect(offsets).toEqual([0, 250, 1000]);
  });
});

describe('bad schedule input is refused naming the file (exit 2), never half-applied', () => {
  const refuse = (text: string, pattern: RegExp, shape: 'step' | 'ramp' = 'step') => {
    const path = file(`bad-${Math.random().toString(36).slice(2)}.csv`, text);
    let error: unknown;
    try {
      loadSchedule(path, shape);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as Error).message).toContain(path);
    expect((error as Error).message).toMatch(pattern);
  };

  it('negative time', () => refuse('0,10\n-5,10\n', /line 2: time -5 is negative/));
  it('non-monotone times', () => refuse('0,10\n5,10\n5,20\n', /line 3: time 5 does not come after 5/));
  it('times going back', () => refuse('0,10\n5,10\n3,20\n', /strictly increase/));
  it('negative rate', () => refuse('0,10\n5,-1\n', /rate -1 is negative/));
  it('only zero rates', () => refuse('0,0\n5,0\n', /every rate is 0/));
  it('a first row after 0', () => refuse('2,10\n5,10\n', /first row must be at t_s 0/));
  it('a single row', () => refuse('0,10\n', /at least two rows/));
  it('not numbers', () => refuse('0,10\nten,20\n', /line 2 "ten,20" is not two numbers/));
  it('bad JSON', () => refuse('[{"t_s": 0, "rate": 1}, {"t_s": 1}]', /point 2 needs numbers/));
  it('a missing file', () => {
    expect(() => loadSchedule(join(dir, 'nope.csv'), 'step')).toThrow(
      /--schedule .*nope\.csv: cannot read \(no such file\)/,
    );
  });
  it('a replay file whose times go backwards', () => {
    const path = file('back.txt', '1.0\n2.0\n1.5\n');
    expect(() => loadReplay(path)).toThrow(new RegExp(`--replay ${path}: line 3: time goes backwards`));
  });
  it('a rate of 0 or below for a constant or Poisson process', () => {
    expect(() => constantProfile(0, 10)).toThrow(UsageError);
    expect(() => constantProfile(-3, 10)).toThrow(/--rate -3: the arrival rate must be a positive number/);
  });
  it('a shard outside 0..n-1', () => {
    expect(() => parseShard('2/2')).toThrow(/--shard 2\/2: use i\/n with 0 <= i < n/);
    expect(parseShard('1/3')).toEqual({ index: 1, count: 3 });
  });
  it('a --start-at that is not a zoned ISO time, lies in the past, or more than a day ahead', () => {
    const now = Date.parse('2026-11-30T12:00:00Z');
    expect(parseStartAt('2026-11-30T12:00:05Z', now)).toBe(now + 5000);
    expect(() => parseStartAt('2026-11-30 12:00', now)).toThrow(
      /--start-at 2026-11-30 12:00: not an ISO-8601 time with a zone/,
    );
    expect(() => parseStartAt('2026-11-30T11:59:58Z', now)).toThrow(/lies 2.0 s in the past/);
    expect(() => parseStartAt('2026-12-02T12:00:00Z', now)).toThrow(/more than a day ahead/);
  });
});
