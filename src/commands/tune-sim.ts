/**
 * `scalegate tune`'s scoring: a policy (or the perfect fleet) through the fleet simulator on the
 * trace, every run with the same seed (common random numbers: the arrivals and service times are
 * the same draws for every policy, so differences between scores are the policies').
 */
import type { TunedPolicy, TuneScore } from '../model/index.js';
import type {
  FleetSimInput,
  FleetSimResult,
  SimArrivals,
  SimDevice,
  SimPolicy,
  SimStartup,
} from '../sim/types.js';

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
  startEpochMs: number;
  /**
   * Instances in service at t = 0 for a policy: ceil(the trace's first rate / lambda_safe) within
   * the policy's bounds (the fleet a steady policy would have had when the trace begins).
   */
  initialNeed: number;
}

export function simPolicyOf(p: TunedPolicy): SimPolicy {
  return {
    metric: p.scaling_metric,
    targetValue: p.target_value,
    scaleInThreshold: p.scale_in_threshold,
    scaleOutCooldownS: p.scale_out_cooldown_s,
    scaleInCooldownS: p.scale_in_cooldown_s,
    minInstances: p.min_instances,
    maxInstances: p.max_instances,
    stepScaleOut: p.step_scale_out,
    scheduledActions: p.scheduled_actions,
  };
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
    startEpochMs: ctx.startEpochMs,
    timeline: false,
  };
}

export interface Scored {
  score: TuneScore;
  result: FleetSimResult;
}

export function scorePolicy(ctx: TuneSimContext, simulate: Simulate, policy: TunedPolicy): Scored {
  const result = simulate(inputOf(ctx, { kind: 'policy', policy: simPolicyOf(policy) }));
  return { score: scoreOf(result, ctx.windowS, ctx.arrivals.durationS), result };
}

/** The perfect fleet: ceil(lambda(t) / lambda_safe) instances at every moment, no start-up. */
export function scorePerfect(ctx: TuneSimContext, simulate: Simulate, lambdaSafeRps: number): Scored {
  const result = simulate(inputOf(ctx, { kind: 'perfect', ratePerInstance: lambdaSafeRps }));
  return { score: scoreOf(result, ctx.windowS, ctx.arrivals.durationS), result };
}

/** The trace as rate rows (timestamps: arrivals per minute). */
export function rateRowsOf(arrivals: SimArrivals): { t_s: number; rps: number }[] {
  if (arrivals.kind === 'rate') return [...arrivals.rows];
  const binS = 60;
  const bins = Math.max(1, Math.ceil(arrivals.durationS / binS));
  const counts = new Array<number>(bins).fill(0);
  for (const t of arrivals.times) {
    const i = Math.min(bins - 1, Math.max(0, Math.floor(t / binS)));
    counts[i] = (counts[i] as number) + 1;
  }
  return counts.map((c, i) => ({ t_s: i * binS, rps: c / binS }));
}

/** The simulator this build runs (src/sim), unless a command is given another. */
export const defaultSimulate: Simulate = () => {
  throw new Error('the fleet simulator (src/sim) is not part of this build');
};
