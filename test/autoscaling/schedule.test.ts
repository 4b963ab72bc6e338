import { describe, expect, it } from 'vitest';
import { firesIn, parseSchedule, ScheduleError, scheduledEffect } from '../../src/autoscaling/index.js';

const day = (iso: string) => Date.parse(iso);
const iso = (ms: number) => new Date(ms).toISOString();

describe('parseSchedule', () => {
  it('reads at() as a UTC instant (prevents a local-time offset moving a one-time action)', () => {
    const s = parseSchedule('at(2026-03-01T07:30:00)');
    expect(firesIn(s, day('2026-03-01T00:00:00Z'), day('2026-03-02T00:00:00Z')).map(iso)).toEqual([
      '2026-03-01T07:30:00.000Z',
    ]);
  });

  it.each([
    ['at(2026-02-30T07:30:00)', /not a date/],
    ['at(2026-03-01 07:30:00)', /at\(yyyy-mm-ddThh:mm:ss\)/],
    ['rate(0 minutes)', /positive integer/],
    ['rate(5 weeks)', /minute\|minutes/],
    ['cron(0 7 * * *)', /6 fields/],
    ['cron(0 7 * * MON *)', /exactly one of Day-of-month and Day-of-week/],
    ['cron(0 7 ? * ? *)', /exactly one of Day-of-month and Day-of-week/],
    ['cron(0 7 L * ? *)', /L \(last/],
    ['cron(0 7 ? * 2#1 *)', /# \(last/],
    ['cron(0 7 15W * ? *)', /W \(last/],
    ['cron(60 7 * * ? *)', /Minutes field 60: 60 is not a value from 0 to 59/],
    ['cron(0 7 ? * 0 *)', /Day-of-week field 0/],
    ['cron(0 17-8 * * ? *)', /runs backwards/],
    ['every 5 minutes', /expected at\(yyyy-mm-ddThh:mm:ss\), rate\(value unit\) or cron\(fields\)/],
  ])('refuses %s with a message naming the fault (prevents an action that never fires)', (text, message) => {
    expect(() => parseSchedule(text)).toThrow(ScheduleError);
    expect(() => parseSchedule(text)).toThrow(message);
  });
});

describe('firesIn', () => {
  const d0 = day('2026-03-02T00:00:00Z'); // a Monday

  it('enumerates every minute of a day for cron(* * * * ? *), 1440 fires in (from, to] (prevents an off-by-one at either end)', () => {
    const fires = firesIn(parseSchedule('cron(* * * * ? *)'), d0, d0 + 86_400_000);
    expect(fires).toHaveLength(1440);
    expect(fires[0]).toBe(d0 + 60_000);
    expect(fires.at(-1)).toBe(d0 + 86_400_000);
  });

  it('is fast enough to walk a day minute by minute (the simulator asks per evaluation step)', () => {
    const s = parseSchedule('cron(0/15 8-17 ? * MON-FRI *)');
    let n = 0;
    for (let t = d0; t < d0 + 86_400_000; t += 60_000) n += firesIn(s, t, t + 60_000).length;
    expect(n).toBe(40); // 10 hours x 4 quarter hours
  });

  it('numbers days of the week 1-7 = SUN-SAT like AWS, names and numbers alike (prevents firing a day late)', () => {
    const week = [d0, d0 + 7 * 86_400_000] as const;
    const byNumber = firesIn(parseSchedule('cron(0 6 ? * 2 *)'), ...week).map(iso);
    const byName = firesIn(parseSchedule('cron(0 6 ? * MON *)'), ...week).map(iso);
    expect(byNumber).toEqual(['2026-03-02T06:00:00.000Z']);
    expect(byName).toEqual(byNumber);
    expect(firesIn(parseSchedule('cron(0 6 ? * 1,7 *)'), ...week).map(iso)).toEqual([
      '2026-03-07T06:00:00.000Z',
      '2026-03-08T06:00:00.000Z',
    ]);
  });

  it('honours day of month, month names, years and increments', () => {
    const year = [day('2026-01-01T00:00:00Z'), day('2028-01-01T00:00:00Z')] as const;
    expect(firesIn(parseSchedule('cron(30 23 1 JAN,JUL ? 2027)'), ...year).map(iso)).toEqual([
      '2027-01-01T23:30:00.000Z',
      '2027-07-01T23:30:00.000Z',
    ]);
    expect(firesIn(parseSchedule('cron(10/20 0 1 1 ? 2026)'), ...year).map(iso)).toEqual([
      '2026-01-01T00:10:00.000Z',
      '2026-01-01T00:30:00.000Z',
      '2026-01-01T00:50:00.000Z',
    ]);
  });

  it('bounds the fires by StartTime and EndTime, inclusive (prevents an action outside its window)', () => {
    const s = parseSchedule('cron(0 * * * ? *)');
    const fires = firesIn(s, d0, d0 + 86_400_000, { startMs: d0 + 3 * 3_600_000, endMs: d0 + 5 * 3_600_000 });
    expect(fires.map(iso)).toEqual([
      '2026-03-02T03:00:00.000Z',
      '2026-03-02T04:00:00.000Z',
      '2026-03-02T05:00:00.000Z',
    ]);
  });

  it('counts a rate from StartTime (first fire at it), else from creation (first fire one interval later)', () => {
    const s = parseSchedule('rate(2 hours)');
    expect(firesIn(s, d0, d0 + 5 * 3_600_000, { startMs: d0 + 3_600_000 }).map(iso)).toEqual([
      '2026-03-02T01:00:00.000Z',
      '2026-03-02T03:00:00.000Z',
      '2026-03-02T05:00:00.000Z',
    ]);
    expect(firesIn(s, d0, d0 + 5 * 3_600_000, { createdMs: d0 + 60_000 }).map(iso)).toEqual([
      '2026-03-02T02:01:00.000Z',
      '2026-03-02T04:01:00.000Z',
    ]);
  });
});

describe('scheduledEffect', () => {
  const target = { minCapacity: 1, maxCapacity: 4, desired: 2 };

  it('raises desired to a new minimum above it and leaves an absent bound unchanged (prevents a pre-scale that does not scale)', () => {
    expect(scheduledEffect(target, { minCapacity: 3 })).toEqual({
      ok: true,
      minCapacity: 3,
      maxCapacity: 4,
      desired: 3,
    });
  });

  it('lowers desired to a new maximum below it', () => {
    expect(scheduledEffect(target, { minCapacity: 0, maxCapacity: 1 })).toEqual({
      ok: true,
      minCapacity: 0,
      maxCapacity: 1,
      desired: 1,
    });
  });

  it('keeps desired inside the new range, and refuses a minimum above the resulting maximum', () => {
    expect(scheduledEffect(target, { maxCapacity: 10 })).toMatchObject({ ok: true, desired: 2 });
    expect(scheduledEffect(target, { minCapacity: 5 })).toEqual({
      ok: false,
      reason: 'the minimum capacity 5 would be greater than the maximum capacity 4',
    });
  });
});
