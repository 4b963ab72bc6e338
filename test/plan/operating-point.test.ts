/**
 * The surge-safe operating point: lambda_safe keeps its promise on a simulated device, the target
 * is expressed in the tracked metric's open-loop units, and the choice between metrics deploys
 * one that holds.
 */
import { describe, expect, it } from 'vitest';
import type { PolicyCandidate } from '../../src/model/index.js';
import {
  chooseCandidate,
  concurrencyLevel,
  invocationsLevel,
  poissonQuantile,
  SCALE_IN_QUANTILE,
  surgeSafeRate,
} from '../../src/plan/operating-point.js';
import { simulatePerPeriodMaximum, simulateSurgeOverflow } from '../../src/stats/in-flight-sim.js';

// The Kokoro-82M ml.g5.xlarge ladder's shape: one lane, 55.9 ms a request, 17.9 requests/s flat.
const curve = [
  { concurrency: 1, rps: 16.08 },
  { concurrency: 5, rps: 17.9 },
  { concurrency: 60, rps: 17.9 },
];
const device = { lanes: 1, serviceMeanS: 1 / 17.9, serviceSigma: 0.056 };
const safe = surgeSafeRate({
  curve,
  queueLimit: 50,
  surgeRatio: 1.25,
  tPlanS: 320,
  maxOverflowProbability: 0.05,
  lambdaMaxRps: null,
  sloMs: 3000,
  p95AtConcurrency: (n) => 56 * n + 10,
});

describe('lambda_safe', () => {
  it('holds its promise on a simulated serial device: a 1.25x surge from it overflows within T_plan in at most 5 % of seeded trials, while the seed rate overflows in nearly all (prevents an operating point that only the model believes)', () => {
    expect(safe.lambdaSafeRps).toBeGreaterThan(11);
    expect(safe.lambdaSafeRps).toBeLessThan(13.5);
    expect(safe.surgeProbability).toBeLessThanOrEqual(0.05);
    const trial = (rateRps: number) =>
      simulateSurgeOverflow({
        ...device,
        queueLimit: 50,
        rateRps,
        surgeRatio: 1.25,
        warmupS: 120,
        horizonS: 320,
        trials: 200,
        seed: 7,
      }).overflowShare;
    expect(trial(safe.lambdaSafeRps)).toBeLessThanOrEqual(0.05);
    // The closed-loop rule's rate (X at C_scale_max 37.5): the same check must fail it.
    expect(trial(17.89)).toBeGreaterThan(0.9);
  });

  it('is capped at a lower lambda_max and says so (random arrivals above lambda_max break the SLO)', () => {
    const capped = surgeSafeRate({
      curve,
      queueLimit: 50,
      surgeRatio: 1.25,
      tPlanS: 320,
      maxOverflowProbability: 0.05,
      lambdaMaxRps: 9,
      sloMs: 3000,
      p95AtConcurrency: (n) => 56 * n + 10,
    });
    expect(capped.lambdaSafeRps).toBe(9);
    expect(capped.bound).toBe('lambda_max');
  });

  it('is bounded by the SLO when the queue a surge builds would answer later than it (prevents a rate that survives overflow but not latency)', () => {
    const tight = surgeSafeRate({
      curve,
      queueLimit: 50,
      surgeRatio: 1.25,
      tPlanS: 320,
      maxOverflowProbability: 0.05,
      lambdaMaxRps: null,
      sloMs: 300,
      p95AtConcurrency: (n) => 56 * n + 10,
    });
    expect(tight.bound).toBe('slo');
    expect(tight.lambdaSafeRps).toBeLessThan(safe.lambdaSafeRps);
    expect(tight.surgeP95TtfabMs as number).toBeLessThanOrEqual(300);
  });
});

describe('the tracked metric at lambda_safe', () => {
  it('reproduces the M/D/1 mean in flight (Pollaczek-Khinchine) within 2 % (prevents a simulator that miscounts requests in flight)', () => {
    const sim = simulatePerPeriodMaximum({
      lanes: 1,
      serviceMeanS: 0.1,
      serviceSigma: 0,
      rateRps: 5,
      queueLimit: 1000,
      periodS: 10,
      periods: 4000,
    });
    const rho = 0.5;
    expect(sim.meanInFlight).toBeGreaterThan(0.98 * (rho + (rho * rho) / (2 * (1 - rho))));
    expect(sim.meanInFlight).toBeLessThan(1.02 * (rho + (rho * rho) / (2 * (1 - rho))));
  });

  it('puts the ConcurrentRequestsPerModel target at the per-period maximum, far above the mean in flight (prevents a target in closed-loop or mean units)', () => {
    const level = concurrencyLevel(safe.lambdaSafeRps, device, 50, []);
    const sim = simulatePerPeriodMaximum({
      ...device,
      rateRps: safe.lambdaSafeRps,
      queueLimit: 50,
      periodS: 10,
    });
    expect(level.origin).toBe('computed');
    expect(level.p50).toBe(sim.p50);
    expect(level.p50).toBeGreaterThan(2.5 * sim.meanInFlight);
    expect(level.p10).toBeLessThanOrEqual(level.p50);
    expect(level.p90).toBeGreaterThanOrEqual(level.p50);
  });

  it('takes measured goodput levels over the simulation: exact at a measured rate, interpolated between two, computed outside them', () => {
    const measured = [
      { rate_rps: 10, p10: 4, p50: 5, p90: 7 },
      { rate_rps: 14, p10: 6, p50: 9, p90: 13 },
    ];
    expect(concurrencyLevel(10, device, 50, measured)).toMatchObject({ origin: 'measured', p50: 5 });
    expect(concurrencyLevel(12, device, 50, measured)).toMatchObject({ origin: 'interpolated', p50: 7 });
    expect(concurrencyLevel(16, device, 50, measured).origin).toBe('computed');
  });

  it('InvocationsPerInstance: the target is 60 x lambda per minute and the scale-in threshold the Poisson quantile 0.5^(1/15) (prevents a target in requests/s)', () => {
    expect(invocationsLevel(12.5).p50).toBe(750);
    expect(SCALE_IN_QUANTILE).toBeCloseTo(0.9548, 4);
    // Poisson(100): quantile 0.9548 is 117 (P(X <= 116) = 0.9497, P(X <= 117) = 0.9590).
    expect(poissonQuantile(100, SCALE_IN_QUANTILE)).toBe(117);
    expect(poissonQuantile(100, 0.5)).toBe(100);
  });
});

describe('the choice between metrics', () => {
  const candidate = (metric: PolicyCandidate['metric'], peak: number, holds: boolean): PolicyCandidate =>
    ({
      metric,
      peak_instances: peak,
      holds,
      surge_overflow_probability: holds ? 0.04 : 0.5,
      t_plan_s: 300,
    }) as PolicyCandidate;

  it('deploys the one with fewer instances at peak among those that hold, never one that does not hold when another does', () => {
    expect(
      chooseCandidate([
        candidate('ConcurrentRequestsPerModel', 407, true),
        candidate('InvocationsPerInstance', 412, true),
      ]).metric,
    ).toBe('ConcurrentRequestsPerModel');
    expect(
      chooseCandidate([
        candidate('ConcurrentRequestsPerModel', 300, false),
        candidate('InvocationsPerInstance', 412, true),
      ]).metric,
    ).toBe('InvocationsPerInstance');
  });
});
