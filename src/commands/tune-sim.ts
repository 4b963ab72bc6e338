/**
 * `scalegate tune`'s scoring: a policy (or the perfect fleet) through the fleet simulator on the
 * trace, every run with the same seed (common random numbers: the arrivals and service times are
 * the same draws for every policy, so differences between scores are the policies').
 */
import type { TunedPolicy, TuneScore } from '../model/index.js';
import {
  type FleetSimInput,
  type FleetSimResult,
  type SimArrivals,
  type SimDevice,
  type SimStartup,
  simPolicyFromTuned,
  simulateFleet,
} from '../sim/index.js';

export type Simulate = (input: FleetSimInput) => FleetSimResult;

/** What every run of one tune shares: the device, the start-up, the trace and the settings. */
export interface TuneSimContext {
  device: SimDevice;
  startup: SimStartup;
  arrivals: SimArrivals;
  seed: number;
  windowS: number;
  sloMs: number;
  maxOverflowProbability: number;
  evaluationIntervalS: number;
  /** Publication delay per tracked metric: the plan's policy lag less the alarm's own periods. */
  metricDelayS: FleetSimInput['metricDelayS'];
  startEpochMs: number;
  /**
   * Instances in service at t = 0 for a policy: ceil(the trace's first rate / lambda_safe) within
   * the policy's bounds (the fleet a steady policy would have had when the trace begins).
   */
  initialNeed: number;
}

const round = (v: number, digits: number): number => Number(v.toFixed(digits));

/** A simulation's score (full windows only: a window cut off by the trace's end is not judged). */
export function scoreOf(result: FleetSimResult, windowS: number, durationS: number): TuneScore {
  const full = result.windows.filter((w) => w.startS + windowS <= durationS + 1e-9);
  return {
    slo_attainment: round(Math.min(1, Math.max(0, result.sloAttainment)), 6),
    request_attainment: round(Math.min(1, Math.max(0, result.requestAttainment)), 6),
    windows: full.length,
    windows_outside_slo: full.filter((w) => !w.sloHeld).length,
    requests: result.requests,
    overflows: result.overflows,
    instance_hours: round(result.instanceHours, 6),
    peak_instances: result.peakInstances,
    scale_outs: result.activities.filter((a) => a.direction === 'out').length,
    scale_ins: result.activities.filter((a) => a.direction === 'in').length,
    p95_ttfab_ms: result.p95TtfabMs === null ? null : round(result.p95TtfabMs, 3),
  };
}

/** The windows a simulation had outside the SLO, as [startS, endS). */
export const failedWindows = (result: FleetSimResult, windowS: number): { startS: number; endS: number }[] =>
  result.windows.filter((w) => !w.sloHeld).map((w) => ({ startS: w.startS, endS: w.startS + windowS }));

function inputOf(ctx: TuneSimContext, fleet: FleetSimInput['fleet']): FleetSimInput {
  const initial =
    fleet.kind === 'policy'
      ? {
          initialInstances: Math.min(
            fleet.policy.maxInstances,
            Math.max(fleet.policy.minInstances, ctx.initialNeed),
          ),
        }
      : {};
  return {
    ...initial,
    device: ctx.device,
    startup: ctx.startup,
    fleet,
    arrivals: ctx.arrivals,
    seed: ctx.seed,
    windowS: ctx.windowS,
    sloMs: ctx.sloMs,
    maxOverflowProbability: ctx.maxOverflowProbability,
    evaluationIntervalS: ctx.evaluationIntervalS,
    metricDelayS: ctx.metricDelayS,
    startEpochMs: ctx.startEpochMs,
    timeline: false,
  };
}

export interface Scored {
  score: TuneScore;
  result: FleetSimResult;
}

export function scorePolicy(ctx: TuneSimContext, simulate: Simulate, policy: TunedPolicy): Scored {
  const result = simulate(inputOf(ctx, { kind: 'policy', policy: simPolicyFromTuned(policy) }));
  return { score: scoreOf(result, ctx.windowS, ctx.arrivals.durationS), result };
}

/** The perfect fleet: ceil(lambda(t) / lambda_safe) instances at every moment, no start-up. */
export function scorePerfect(ctx: TuneSimContext, simulate: Simulate, lambdaSafeRps: number): Scored {
  const result = simulate(inputOf(ctx, { kind: 'perfect', ratePerInstance: lambdaSafeRps }));
  return { score: scoreOf(result, ctx.windowS, ctx.arrivals.durationS), result };
}

/** The simulator this build runs (src/sim), unless a command is given another. */
export const defaultSimulate: Simulate = simulateFleet;
