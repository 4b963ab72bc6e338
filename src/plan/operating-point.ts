/**
 * The deployed policy, from the surge: the per-instance rate each instance may be held at, the
 * level the tracked metric shows there, and the candidate (one per tracked metric) the plan
 * deploys. Pure and deterministic.
 *
 * 1. lambda_safe: the highest per-instance Poisson rate lambda from which a k x lambda surge
 *    overflows Q_max within T_plan with probability <= max_overflow_probability (the instance
 *    starts in its stationary state at lambda: what a fleet held there looks like when the surge
 *    begins; the same birth-death chain and exact first-passage computation as surge_survival),
 *    whose no-surge baseline stays within it too, and whose p95 TTFAB at the end of T_plan under
 *    the surge (the in-flight count an arrival finds at the 95th percentile of the transient
 *    distribution, read on the ladder's p95 curve) stays inside the SLO. Capped at goodput's
 *    lambda_max when one was measured.
 * 2. The metric's level at lambda_safe: ConcurrentRequestsPerModel is published as the Maximum
 *    per 10 s period, which under random arrivals lies far above the mean in flight (the closed
 *    loop's R = 1 does not carry over), so the target is the median per-period Maximum at
 *    lambda_safe: measured by goodput's CloudWatch join (interpolated between its rates), else
 *    computed by a seeded queueing simulation of the measured device. InvocationsPerInstance is
 *    the Sum per 60 s: 60 x lambda_safe, exactly (computed from the rate).
 * 3. Scale-in: the same hysteresis as the scale band, in rates: lambda_in = lambda_safe x
 *    (1 - 2h) / (1 - h). The scale-in alarm needs 15 consecutive 60 s periods at or below its
 *    threshold, so the threshold is the level a 60 s period stays under with probability
 *    0.5^(1/15) at lambda_in: at lambda_in the alarm fires within 15 minutes half the time, below
 *    it more often, above it less.
 */
import type { MetricLevel, PolicyCandidate, ScalingMetric, SeedRule } from '../model/index.js';
import { simulatePerPeriodMaximum } from '../stats/in-flight-sim.js';
import {
  overflowProbability,
  stationaryDistribution,
  type ThroughputPoint,
  throughputAt,
  transientDistribution,
} from '../stats/surge.js';
import { round } from './formulas.js';

/** Bisection steps for lambda_safe: resolution capacity / 2^14. */
const RATE_BISECTION_STEPS = 14;
/** Scale-in alarm: 15 consecutive 60 s periods at or below the threshold. */
export const SCALE_IN_PERIODS = 15;
export const SCALE_IN_PERIOD_S = 60;
/** Per-period quantile the scale-in threshold sits at: 0.5^(1/15), ~0.9548. */
export const SCALE_IN_QUANTILE = 0.5 ** (1 / SCALE_IN_PERIODS);

/** How each tracked metric is published and how fast target tracking reacts on it (AWS). */
export const METRIC_SPECS: Record<
  ScalingMetric,
  { statistic: 'Maximum' | 'Sum'; periodS: number; alarmDatapoints: number; label: string }
> = {
  // High-resolution predefined metric: 10 s periods, the alarm on 3 datapoints.
  ConcurrentRequestsPerModel: {
    statistic: 'Maximum',
    periodS: 10,
    alarmDatapoints: 3,
    label: 'the per-period maximum in flight',
  },
  // Classic predefined metric: 1 min periods, the alarm on 3 datapoints.
  InvocationsPerInstance: {
    statistic: 'Sum',
    periodS: 60,
    alarmDatapoints: 3,
    label: 'invocations per minute per instance',
  },
};

/**
 * InvocationsPerInstance's detection lag: its alarm's datapoints plus one period of publication
 * delay (assumed: a datapoint exists once its period closes), as ttotal computes it for the
 * deployed alarms.
 */
export const invocationsPolicyLagS = (): number =>
  METRIC_SPECS.InvocationsPerInstance.periodS * (METRIC_SPECS.InvocationsPerInstance.alarmDatapoints + 1);

export interface SurgeSafeInput {
  curve: readonly ThroughputPoint[];
  queueLimit: number;
  surgeRatio: number;
  tPlanS: number;
  maxOverflowProbability: number;
  lambdaMaxRps: number | null;
  sloMs: number;
  /** The ladder's p95 TTFAB at a concurrency (interpolated), null beyond the measured rungs. */
  p95AtConcurrency: (concurrency: number) => number | null;
}

export interface SurgeSafeRate {
  lambdaSafeRps: number;
  bound: 'surge' | 'lambda_max' | 'slo';
  capacityRps: number;
  share: number;
  surgeProbability: number;
  baselineProbability: number;
  surgeP95TtfabMs: number | null;
  exact: boolean;
}

/** Highest throughput the server reaches within Q_max. */
export function capacityOf(curve: readonly ThroughputPoint[], queueLimit: number): number {
  let capacity = 0;
  for (let n = 1; n <= Math.max(1, Math.floor(queueLimit)); n++) {
    capacity = Math.max(capacity, throughputAt(curve, n));
  }
  return capacity;
}

/**
 * p95 TTFAB of arrivals at the end of T_plan under the surge: the in-flight count an arrival
 * finds at the 95th percentile of the transient distribution, read on the ladder (an arrival
 * finding n waits like a closed loop of n + 1). Infinity when that percentile is turned away.
 */
function surgeP95(input: SurgeSafeInput, rate: number, held: Float64Array): number {
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const { distribution } = transientDistribution({
    curve: input.curve,
    queueLimit: limit,
    arrivalRate: input.surgeRatio * rate,
    start: held,
    horizonS: input.tPlanS,
  });
  let cumulative = 0;
  for (let n = 0; n <= limit; n++) {
    cumulative += distribution[n] as number;
    if (cumulative >= 0.95) {
      if (n >= limit) return Number.POSITIVE_INFINITY;
      return input.p95AtConcurrency(n + 1) ?? Number.POSITIVE_INFINITY;
    }
  }
  return Number.POSITIVE_INFINITY;
}

interface RateCheck {
  surge: number;
  baseline: number;
  surgeUpper: number;
  baselineUpper: number;
  held: Float64Array;
  exact: boolean;
}

function checkRate(input: SurgeSafeInput, rate: number): RateCheck {
  const limit = Math.max(1, Math.floor(input.queueLimit));
  const held = stationaryDistribution(input.curve, limit, rate);
  const at = (arrivalRate: number) =>
    overflowProbability({
      curve: input.curve,
      queueLimit: limit,
      arrivalRate,
      start: held,
      horizonS: input.tPlanS,
    });
  const surge = at(input.surgeRatio * rate);
  const baseline = at(rate);
  return {
    surge: surge.probability,
    baseline: baseline.probability,
    surgeUpper: surge.upperBound,
    baselineUpper: baseline.upperBound,
    held,
    exact: surge.exact && baseline.exact,
  };
}

/** Largest rate in [0, high] for which `ok` holds, by bisection (ok is monotone: true below). */
function bisectRate(high: number, ok: (rate: number) => boolean): number {
  let low = 0;
  for (let i = 0; i < RATE_BISECTION_STEPS; i++) {
    const mid = (low + high) / 2;
    if (ok(mid)) low = mid;
    else high = mid;
  }
  return low;
}

/**
 * lambda_safe by bisection on the rate, judged on upper bounds (never optimistic): first the
 * overflow tolerance, then, only if the SLO after the surge fails there, both together.
 */
export function surgeSafeRate(input: SurgeSafeInput): SurgeSafeRate {
  const capacity = capacityOf(input.curve, input.queueLimit);
  const p = input.maxOverflowProbability;
  const overflowHolds = (c: RateCheck) => c.surgeUpper <= p && c.baselineUpper <= p;
  let rate = bisectRate(capacity, (r) => overflowHolds(checkRate(input, r)));
  let bound: SurgeSafeRate['bound'] = 'surge';
  const sloHolds = (r: number, c: RateCheck) => surgeP95(input, r, c.held) <= input.sloMs;
  if (!sloHolds(rate, checkRate(input, rate))) {
    rate = bisectRate(rate, (r) => {
      const c = checkRate(input, r);
      return overflowHolds(c) && sloHolds(r, c);
    });
    bound = 'slo';
  }
  if (input.lambdaMaxRps !== null && input.lambdaMaxRps < rate) {
    rate = input.lambdaMaxRps;
    bound = 'lambda_max';
  }
  const final = checkRate(input, rate);
  const p95 = surgeP95(input, rate, final.held);
  return {
    lambdaSafeRps: rate,
    bound,
    capacityRps: capacity,
    share: capacity > 0 ? rate / capacity : 0,
    surgeProbability: final.surge,
    baselineProbability: final.baseline,
    surgeP95TtfabMs: Number.isFinite(p95) ? p95 : null,
    exact: final.exact,
  };
}

/** The device the queueing simulation runs: lanes and a log-normal service time (seconds). */
export interface SimulatedDevice {
  lanes: number;
  serviceMeanS: number;
  serviceSigma: number;
}

/** A goodput rate's measured per-period Maximum of ConcurrentRequestsPerModel. */
export interface MeasuredLevel {
  rate_rps: number;
  p10: number;
  p50: number;
  p90: number;
}

const roundLevel = (
  level: Omit<MetricLevel, 'p10' | 'p50' | 'p90'> & { p10: number; p50: number; p90: number },
) => ({
  ...level,
  rate_rps: round(level.rate_rps, 6),
  p10: round(level.p10, 3),
  p50: round(level.p50, 3),
  p90: round(level.p90, 3),
});

/**
 * ConcurrentRequestsPerModel's per-10 s Maximum at `rate`: measured (or interpolated between
 * measured rates) when goodput's join bracketed it, else computed by the seeded simulation.
 */
export function concurrencyLevel(
  rate: number,
  device: SimulatedDevice,
  queueLimit: number,
  measured: readonly MeasuredLevel[],
): MetricLevel {
  const points = [...measured].sort((a, b) => a.rate_rps - b.rate_rps);
  const exact = points.find((p) => Math.abs(p.rate_rps - rate) <= 1e-9 * Math.max(1, rate));
  if (exact) {
    return roundLevel({ ...exact, rate_rps: rate, origin: 'measured', method: 'goodput CloudWatch join' });
  }
  for (let i = 0; i + 1 < points.length; i++) {
    const a = points[i] as MeasuredLevel;
    const b = points[i + 1] as MeasuredLevel;
    if (a.rate_rps < rate && rate < b.rate_rps) {
      const f = (rate - a.rate_rps) / (b.rate_rps - a.rate_rps);
      const mix = (x: number, y: number) => x + (y - x) * f;
      return roundLevel({
        rate_rps: rate,
        p10: mix(a.p10, b.p10),
        p50: mix(a.p50, b.p50),
        p90: mix(a.p90, b.p90),
        origin: 'interpolated',
        method: `goodput CloudWatch join, between ${round(a.rate_rps, 3)} and ${round(b.rate_rps, 3)} requests/s`,
      });
    }
  }
  const sim = simulatePerPeriodMaximum({
    lanes: device.lanes,
    serviceMeanS: device.serviceMeanS,
    serviceSigma: device.serviceSigma,
    rateRps: rate,
    queueLimit,
    periodS: METRIC_SPECS.ConcurrentRequestsPerModel.periodS,
  });
  return roundLevel({
    rate_rps: rate,
    p10: sim.p10,
    p50: sim.p50,
    p90: sim.p90,
    origin: 'computed',
    method: `queueing simulation of one instance (seed ${sim.seed}, ${sim.periods} periods of 10 s)`,
  });
}

/** The standard normal quantile (Acklam's rational approximation, |error| < 1.2e-9). */
function normalQuantile(p: number): number {
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716,
    2.506628277459239,
  ];
  const b = [
    -54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572,
  ];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const low = 0.02425;
  const [a0, a1, a2, a3, a4, a5] = a as [number, number, number, number, number, number];
  const [b0, b1, b2, b3, b4] = b as [number, number, number, number, number];
  const [c0, c1, c2, c3, c4, c5] = c as [number, number, number, number, number, number];
  const [d0, d1, d2, d3] = d as [number, number, number, number];
  if (p < low) {
    const q = Math.sqrt(-2 * Math.log(p));
    return (
      (((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
    );
  }
  if (p > 1 - low) {
    const q = Math.sqrt(-2 * Math.log(1 - p));
    return (
      -(((((c0 * q + c1) * q + c2) * q + c3) * q + c4) * q + c5) /
      ((((d0 * q + d1) * q + d2) * q + d3) * q + 1)
    );
  }
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a0 * r + a1) * r + a2) * r + a3) * r + a4) * r + a5) * q) /
    (((((b0 * r + b1) * r + b2) * r + b3) * r + b4) * r + 1)
  );
}

/** The smallest k with P(Poisson(mean) <= k) >= q. */
export function poissonQuantile(mean: number, q: number): number {
  if (!(mean > 0)) return 0;
  if (mean > 1e5) {
    // Normal approximation (continuity-corrected): exact summation would take mean terms.
    return Math.max(0, Math.ceil(mean + normalQuantile(q) * Math.sqrt(mean) - 0.5));
  }
  // Start from the mode's neighbourhood in log space (no underflow for large means).
  let k = 0;
  let logPmf = -mean;
  let cdf = Math.exp(logPmf);
  const limit = mean + 40 * Math.sqrt(mean) + 40;
  while (cdf < q && k < limit) {
    k++;
    logPmf += Math.log(mean) - Math.log(k);
    cdf += Math.exp(logPmf);
  }
  return k;
}

/** InvocationsPerInstance's Sum per 60 s at `rate`: Poisson(60 x rate), exactly. */
export function invocationsLevel(rate: number): MetricLevel {
  const mean = SCALE_IN_PERIOD_S * rate;
  return roundLevel({
    rate_rps: rate,
    p10: poissonQuantile(mean, 0.1),
    p50: mean,
    p90: poissonQuantile(mean, 0.9),
    origin: 'computed',
    method: '60 s x the rate (Poisson counts)',
  });
}

export interface CandidateInput extends Omit<SurgeSafeInput, 'tPlanS'> {
  metric: ScalingMetric;
  tTotalS: number;
  policyLagS: number;
  policyLagOrigin: 'measured' | 'computed' | 'bound';
  /** (1 - 2h) / (1 - h): lambda_in / lambda_safe. */
  scaleInRatio: number;
  device: SimulatedDevice;
  measuredLevels: readonly MeasuredLevel[];
  peak: { unit: 'rps' | 'streams'; value: number };
  trough: { unit: 'rps' | 'streams'; value: number };
  instanceHourlyUsd: number | null;
}

/** Instances for a load: by rate (rps), or by the mean in flight at the rate (streams). */
function instancesAt(
  load: { unit: 'rps' | 'streams'; value: number },
  rate: number,
  meanInFlight: number,
): number {
  if (load.value <= 0) return 0;
  const perInstance = load.unit === 'rps' ? rate : meanInFlight;
  if (!(perInstance > 0)) return Number.POSITIVE_INFINITY;
  return Math.ceil(Number((load.value / perInstance).toFixed(9)));
}

export function policyCandidate(input: CandidateInput): PolicyCandidate {
  const spec = METRIC_SPECS[input.metric];
  const tPlanS = input.tTotalS + input.policyLagS;
  const safe = surgeSafeRate({ ...input, tPlanS });
  const rate = safe.lambdaSafeRps;
  const scaleInRate = rate * input.scaleInRatio;
  let target: MetricLevel;
  let scaleIn: MetricLevel;
  let threshold: number;
  if (input.metric === 'ConcurrentRequestsPerModel') {
    target = concurrencyLevel(rate, input.device, input.queueLimit, input.measuredLevels);
    // The scale-in alarm reads 60 s Maxima: simulated at lambda_in (goodput measures 10 s ones).
    const minute = simulatePerPeriodMaximum({
      lanes: input.device.lanes,
      serviceMeanS: input.device.serviceMeanS,
      serviceSigma: input.device.serviceSigma,
      rateRps: scaleInRate,
      queueLimit: input.queueLimit,
      periodS: SCALE_IN_PERIOD_S,
    });
    scaleIn = roundLevel({
      rate_rps: scaleInRate,
      p10: minute.p10,
      p50: minute.p50,
      p90: minute.p90,
      origin: 'computed',
      method: `queueing simulation of one instance (seed ${minute.seed}, ${minute.periods} periods of 60 s)`,
    });
    threshold = Math.max(1, Math.ceil(minute.quantile(SCALE_IN_QUANTILE)));
  } else {
    target = invocationsLevel(rate);
    scaleIn = invocationsLevel(scaleInRate);
    threshold = poissonQuantile(SCALE_IN_PERIOD_S * scaleInRate, SCALE_IN_QUANTILE);
  }
  const meanInFlight = simulatePerPeriodMaximum({
    lanes: input.device.lanes,
    serviceMeanS: input.device.serviceMeanS,
    serviceSigma: input.device.serviceSigma,
    rateRps: rate,
    queueLimit: input.queueLimit,
    periodS: METRIC_SPECS.ConcurrentRequestsPerModel.periodS,
    periods: 200,
  }).meanInFlight;
  const peakInstances = instancesAt(input.peak, rate, meanInFlight);
  const troughInstances = instancesAt(input.trough, rate, meanInFlight);
  const p = input.maxOverflowProbability;
  return {
    metric: input.metric,
    statistic: spec.statistic,
    period_s: spec.periodS,
    policy_lag_s: round(input.policyLagS, 6),
    policy_lag_origin: input.policyLagOrigin,
    t_plan_s: round(tPlanS, 6),
    lambda_safe_rps: round(rate, 6),
    lambda_safe_bound: safe.bound,
    throughput_share: round(Math.min(1, safe.share), 6),
    surge_overflow_probability: round(safe.surgeProbability, 4),
    baseline_overflow_probability: round(safe.baselineProbability, 4),
    surge_p95_ttfab_ms: safe.surgeP95TtfabMs === null ? null : round(safe.surgeP95TtfabMs, 3),
    target,
    scale_in_rate_rps: round(scaleInRate, 6),
    scale_in: scaleIn,
    scale_in_threshold: round(threshold, 3),
    target_value: round(Math.max(input.metric === 'ConcurrentRequestsPerModel' ? 1 : 0.001, target.p50), 3),
    peak_instances: peakInstances,
    trough_instances: troughInstances,
    cost_per_hour_usd:
      input.instanceHourlyUsd === null ? null : round(peakInstances * input.instanceHourlyUsd, 2),
    holds: safe.surgeProbability <= p && safe.baselineProbability <= p && rate > 0,
  };
}

/** The candidate to deploy: the lowest instance-hours at peak among those that hold. */
export function chooseCandidate(candidates: readonly PolicyCandidate[]): PolicyCandidate {
  const holding = candidates.filter((c) => c.holds);
  const pool = holding.length > 0 ? holding : candidates;
  return [...pool].sort(
    (a, b) =>
      a.peak_instances - b.peak_instances ||
      (holding.length > 0 ? 0 : a.surge_overflow_probability - b.surge_overflow_probability) ||
      a.t_plan_s - b.t_plan_s,
  )[0] as PolicyCandidate;
}

const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;
const num = (value: number, digits = 2): string => value.toFixed(digits);

/** Why the chosen candidate, in one sentence (against the seed's closed-loop rule). */
export function policyReason(
  chosen: PolicyCandidate,
  seed: SeedRule,
  saturationConcurrency: number,
  maxOverflowProbability: number,
  lanes: number,
): string {
  const why =
    lanes <= 1 || saturationConcurrency <= 2
      ? 'a serial device: concurrency above 1 adds no throughput'
      : seed.throughput_share >= 0.95
        ? `the device saturates at ${saturationConcurrency} in flight`
        : `the closed-loop target leaves ${pct(1 - seed.throughput_share)} throughput headroom`;
  const seedTarget =
    seed.target_value === null ? `C_scale_max ${num(seed.c_scale_max, 1)}` : `${seed.target_value}`;
  const seedFate = seed.holds
    ? `it would hold (overflow ${pct(seed.surge_overflow_probability)} with the surge)`
    : seed.baseline_overflow_probability > maxOverflowProbability
      ? `it overflows with probability ${pct(seed.baseline_overflow_probability)} without any surge`
      : `a surge overflows it with probability ${pct(seed.surge_overflow_probability)}`;
  const spec = METRIC_SPECS[chosen.metric];
  return `${why}, so the closed-loop target ${seedTarget} runs each instance at ${pct(seed.throughput_share)} of its throughput and ${seedFate}; tracking ${spec.label} (${chosen.metric}, ${chosen.statistic} per ${chosen.period_s} s) at ${chosen.target_value}, its level at ${num(chosen.lambda_safe_rps)} requests/s (${pct(chosen.throughput_share)} of throughput), instead`;
}
