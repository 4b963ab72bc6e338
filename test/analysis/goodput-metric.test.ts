import { describe, expect, it } from 'vitest';
import {
  alignedRungStart,
  metricLevelOf,
  metricQueryRange,
  rungMeasureWindow,
  wholeMetricPeriods,
} from '../../src/analysis/goodput-metric.js';
import { goodputMetricLevelSchema } from '../../src/model/artifacts.js';

const T0 = Date.parse('2026-01-01T00:00:05.000Z');
const rung = { started_at: new Date(T0).toISOString(), settle_s: 5, hold_s: 45, mean_in_system: 2 };

describe('goodput metric level (the per-rate CloudWatch join, pure half)', () => {
  it('aligns a rate so whole 10 s periods fill its measure window', () => {
    const start = alignedRungStart(Date.parse('2026-01-01T00:00:03.200Z'), 5);
    expect(new Date(start).toISOString()).toBe('2026-01-01T00:00:05.000Z');
    const window = rungMeasureWindow({ ...rung, started_at: new Date(start).toISOString() });
    expect(window.startMs % 10_000).toBe(0);
    expect(wholeMetricPeriods(window)).toBe(4);
    expect(metricQueryRange(window)).toEqual({ startMs: T0 + 5000, endMs: T0 + 45_000 });
  });

  it('counts only whole periods inside the window', () => {
    expect(wholeMetricPeriods({ startMs: T0, endMs: T0 + 19_000 })).toBe(1);
    expect(wholeMetricPeriods({ startMs: T0, endMs: T0 + 9_000 })).toBe(0);
  });

  it('records median and spread of the per-period Maximum, the mean in flight and the open-loop R', () => {
    const p = (k: number) => T0 + 5000 + k * 10_000;
    // The period before the window and the one straddling its end are left out.
    const series = { timestamps: [p(-1), p(0), p(1), p(2), p(3), p(4)], values: [99, 6, 8, 7, 10, 99] };
    const level = metricLevelOf(rung, series);
    expect(level).toEqual({
      metric: 'ConcurrentRequestsPerModel',
      statistic: 'Maximum',
      period_s: 10,
      periods: 4,
      p10: 6.3,
      p50: 7.5,
      p90: 9.4,
      mean_in_flight: 2,
      open_loop_r: 3.75,
      origin: 'measured',
    });
    expect(goodputMetricLevelSchema.parse(level)).toEqual(level);
  });

  it('is null without a datapoint inside the window, and R is null with nothing in flight', () => {
    expect(metricLevelOf(rung, { timestamps: [], values: [] })).toBeNull();
    const level = metricLevelOf({ ...rung, mean_in_system: 0 }, { timestamps: [T0 + 5000], values: [1] });
    expect(level?.open_loop_r).toBeNull();
  });
});
