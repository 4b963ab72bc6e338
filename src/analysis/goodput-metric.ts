/**
 * The pure half of goodput's CloudWatch join: at every measured Poisson rate, the level the
 * tracked metric showed, `ConcurrentRequestsPerModel` Maximum per 10 s period (what the seed's
 * target tracking compares with its target), over the whole periods inside the rate's measure
 * window (after the settle, before the end of the hold). Recorded as the median and spread (p10,
 * p90) of the per-period Maximum, the mean in flight (Little: the rate's measured mean in system)
 * and the open-loop R = p50 / mean in flight. No I/O: src/commands/goodput-cloudwatch.ts asks
 * CloudWatch (src/aws/metrics.ts) and hands the series here.
 */
import type { GoodputMetricLevel, GoodputRung } from '../model/artifacts.js';
import {
  IN_FLIGHT_SIM_DEFAULTS,
  type PerPeriodMaximum,
  simulatePerPeriodMaximum,
} from '../stats/in-flight-sim.js';
import { alignDown, alignUp, periodsWithin } from '../stats/ladder-stats.js';
import { quantileSorted, sortedAscending } from '../stats/quantiles.js';

/** The CloudWatch period of the tracked metric, s (the high-resolution predefined metric). */
export const METRIC_LEVEL_PERIOD_S = 10;

/** The one query of the join (src/aws/metrics.ts `getVariantMetricData`). */
export const METRIC_LEVEL_QUERY = {
  id: 'cmax',
  metricName: 'ConcurrentRequestsPerModel',
  stat: 'Maximum',
  periodS: METRIC_LEVEL_PERIOD_S,
} as const;

const round3 = (v: number): number => Math.round(v * 1000) / 1000;

/** A rung's measure window on the wall clock: [start + settle, start + hold), ms. */
export function rungMeasureWindow(rung: Pick<GoodputRung, 'started_at' | 'settle_s' | 'hold_s'>): {
  startMs: number;
  endMs: number;
} {
  const t0 = Date.parse(rung.started_at);
  return { startMs: t0 + rung.settle_s * 1000, endMs: t0 + rung.hold_s * 1000 };
}

/** Whole metric periods inside a window (period starts on multiples of the period since the epoch). */
export function wholeMetricPeriods(window: { startMs: number; endMs: number }): number {
  const first = alignUp(window.startMs, METRIC_LEVEL_PERIOD_S);
  const last = alignDown(window.endMs, METRIC_LEVEL_PERIOD_S);
  return Math.max(0, Math.floor((last - first) / (METRIC_LEVEL_PERIOD_S * 1000)));
}

/** The range to query for a window: its whole periods (start inclusive, end exclusive). */
export function metricQueryRange(window: { startMs: number; endMs: number }): {
  startMs: number;
  endMs: number;
} {
  return {
    startMs: alignUp(window.startMs, METRIC_LEVEL_PERIOD_S),
    endMs: alignDown(window.endMs, METRIC_LEVEL_PERIOD_S),
  };
}

/**
 * The earliest schedule start at or after `earliestMs` whose measure window begins on a period
 * boundary (start + settle a multiple of the period), so whole periods fill the window.
 */
export function alignedRungStart(earliestMs: number, settleS: number): number {
  const settleMs = settleS * 1000;
  return alignUp(earliestMs + settleMs, METRIC_LEVEL_PERIOD_S) - settleMs;
}

/**
 * The level one rate showed, from the per-period Maxima CloudWatch returned (timestamps: period
 * starts, epoch ms). null when no whole period inside the window has a datapoint yet.
 */
export function metricLevelOf(
  rung: Pick<GoodputRung, 'started_at' | 'settle_s' | 'hold_s' | 'mean_in_system'>,
  series: { timestamps: readonly number[]; values: readonly number[] },
): GoodputMetricLevel | null {
  const window = rungMeasureWindow(rung);
  const maxima = periodsWithin(
    series.timestamps,
    series.values,
    METRIC_LEVEL_PERIOD_S,
    window.startMs,
    window.endMs,
  );
  if (maxima.length === 0) return null;
  const sorted = sortedAscending(maxima);
  const q = (p: number) => round3(quantileSorted(sorted, p) as number);
  const p50 = q(0.5);
  const meanInFlight = round3(rung.mean_in_system);
  return {
    metric: 'ConcurrentRequestsPerModel',
    statistic: 'Maximum',
    period_s: METRIC_LEVEL_PERIOD_S,
    periods: maxima.length,
    p10: q(0.1),
    p50,
    p90: q(0.9),
    mean_in_flight: meanInFlight,
    open_loop_r: meanInFlight > 0 ? round3(p50 / meanInFlight) : null,
    origin: 'measured',
  };
}

/** The device the simulation models: the emulator's profile (src/analysis/device-profile.ts). */
export interface SimulatedDevice {
  lanes: number;
  service_mean_ms: number;
  service_sigma: number;
}

/**
 * The level computed for one instance of `device` at a Poisson `rate` (never measured): the seeded
 * queueing simulation of src/stats/in-flight-sim.ts with the device's lanes and log-normal service
 * time, scaled by the emulator's time scale, over 10 s periods.
 */
export function computedMetricLevel(
  device: SimulatedDevice,
  rate: number,
  options: {
    timeScale?: number;
    queueLimit?: number;
    seed?: number;
    periods?: number;
    transitS?: number;
  } = {},
): PerPeriodMaximum {
  return simulatePerPeriodMaximum({
    lanes: device.lanes,
    serviceMeanS: (device.service_mean_ms * (options.timeScale ?? 1)) / 1000,
    serviceSigma: device.service_sigma,
    rateRps: rate,
    queueLimit: options.queueLimit ?? Number.MAX_SAFE_INTEGER,
    periodS: METRIC_LEVEL_PERIOD_S,
    periods: options.periods ?? IN_FLIGHT_SIM_DEFAULTS.periods,
    seed: options.seed ?? IN_FLIGHT_SIM_DEFAULTS.seed,
    transitS: options.transitS ?? 0,
  });
}

/**
 * A level re-based on another mean in flight (a merge: CloudWatch saw every shard's arrivals, so
 * the per-period Maxima of any shard's join are the whole rate's, but each shard's mean in system
 * was only its share; the merged rung's is the whole).
 */
export function withMeanInFlight(level: GoodputMetricLevel, meanInSystem: number): GoodputMetricLevel {
  const meanInFlight = round3(meanInSystem);
  return {
    ...level,
    mean_in_flight: meanInFlight,
    open_loop_r: meanInFlight > 0 ? round3(level.p50 / meanInFlight) : null,
  };
}
