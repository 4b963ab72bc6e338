import { type DrillPhase, type DrillPrediction, type PlanArtifact, UsageError } from '../model/index.js';

/** Above this overflow probability within T_plan the plan warns (surge_survival): it predicted the breach. */
export const PREDICTED_OVERFLOW_ABOVE = 0.1;
/** A window answers at least this share of its arrivals within the SLO (the p95 counting failures). */
export const WITHIN_SLO_SHARE = 0.95;
/** The share of a window's arrivals that may overflow for a plan that predates max_overflow_probability. */
export const DEFAULT_MAX_OVERFLOW_PROBABILITY = 0.05;
/** Good windows in a row that mean the SLO holds again. */
export const RECOVERED_WINDOWS = 3;

export const DRILL_DEFAULTS = {
  windowS: 10,
  pollS: 1,
  seed: 1,
  /** Steady: T_plan (time for a scale-out the steady load may itself start) plus this. */
  steadyExtraS: 60,
  /** Surge: T_plan plus the larger of this and half of T_plan. */
  surgeMarginS: 30,
  /** Trough: the scale-in alarm's window and cooldown plus this. */
  troughMarginS: 120,
  /** Seconds between choosing the start and the first arrival (the first arrival on a window boundary). */
  leadS: 5,
} as const;

export const SURGE_RATIO_RANGE = { min: 1, max: 2 } as const;

const roundUpTo = (value: number, step: number): number => Math.ceil(value / step - 1e-9) * step;
export const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

// ---- what the plan promised ---------------------------------------------------------------

/** The figures a drill is judged against, from the plan (refused when it has nothing to drill). */
export function drillPrediction(plan: PlanArtifact, planFile: string): DrillPrediction {
  const target = plan.deployable.scaling_target_value;
  if (target === null) {
    throw new UsageError(
      `${planFile}: the plan has no scale-out target (no CloudWatch/client ratio R was measured), so there is no policy to drill. Re-measure with \`scalegate qmax --model ${plan.model_name}\` (CloudWatch join on), then \`scalegate plan\`.`,
    );
  }
  const xTarget = plan.derived.x_target_rps;
  if (xTarget === null || !(xTarget > 0)) {
    throw new UsageError(
      `${planFile}: the plan has no throughput at its target (x_target_rps), so no steady load can be derived. Re-derive it with \`scalegate plan --model ${plan.model_name}\`.`,
    );
  }
  const lagOrigin = plan.measured.policy_lag_bounded ? 'bound' : plan.inputs.drill ? 'measured' : 'computed';
  const maxOverflow = plan.policy?.max_overflow_probability;
  const lambdaSafe = plan.derived.lambda_safe_rps;
  return {
    scaling_target_value: target,
    scale_in_threshold: plan.deployable.scale_in_threshold,
    x_target_rps: xTarget,
    t_total_s: plan.measured.t_total_s,
    t_total_origin:
      plan.measured.t_total_origin === 'stated'
        ? 'assumed'
        : plan.measured.t_total_origin === 'measured'
          ? 'measured'
          : plan.measured.t_total_origin,
    policy_lag_s: plan.measured.policy_lag_s,
    policy_lag_origin: lagOrigin,
    t_plan_s: plan.derived.t_plan_s,
    surge_overflow_probability: plan.derived.surge_overflow_probability,
    baseline_overflow_probability: plan.derived.surge_baseline_overflow_probability ?? null,
    planned_surge_ratio: plan.chosen.surge_ratio,
    scale_in_cooldown_s: plan.deployable.scale_in_cooldown_s,
    queue_max_depth: plan.deployable.queue_max_depth,
    max_overflow_probability: maxOverflow ?? DEFAULT_MAX_OVERFLOW_PROBABILITY,
    max_overflow_origin: maxOverflow === undefined || maxOverflow === null ? 'default' : 'plan',
    lambda_safe_rps: lambdaSafe !== undefined && lambdaSafe !== null && lambdaSafe > 0 ? lambdaSafe : null,
  };
}

/** The per-instance rate the steady phase offers: lambda_safe when the plan has it, else X_target. */
export function steadyPerInstance(prediction: DrillPrediction): {
  rps: number;
  basis: 'lambda_safe' | 'x_target';
} {
  const safe = prediction.lambda_safe_rps;
  return safe !== undefined && safe !== null && safe > 0
    ? { rps: safe, basis: 'lambda_safe' }
    : { rps: prediction.x_target_rps, basis: 'x_target' };
}

// ---- the schedule ---------------------------------------------------------------------------

export interface PhaseChoice {
  surgeRatio: number;
  /** The fleet the steady load is sized for (instances; copies for an inference component). */
  instances: number;
  /** What `instances` counts. @default 'instance' */
  unit?: 'instance' | 'copy';
  windowS: number;
  /** Seconds of the scale-in alarm's evaluation (periods x period), from the deployed shape. */
  scaleInWindowS: number;
  steadyS?: number;
  surgeS?: number;
  troughS?: number;
  /** Trough load, requests/s (default: the plan's trough). */
  troughRps?: number;
  /** Steady load, requests/s (default: lambda_safe x instances; X_target x instances for older plans). */
  steadyRps?: number;
}

export interface PhaseLengths {
  steadyS: number;
  surgeS: number;
  troughS: number;
}

/** Default phase lengths from the plan (before rounding to windows). */
export function defaultPhaseLengths(prediction: DrillPrediction, scaleInWindowS: number): PhaseLengths {
  const tPlan = prediction.t_plan_s;
  return {
    steadyS: tPlan + DRILL_DEFAULTS.steadyExtraS,
    surgeS: tPlan + Math.max(DRILL_DEFAULTS.surgeMarginS, tPlan / 2),
    troughS: scaleInWindowS + prediction.scale_in_cooldown_s + DRILL_DEFAULTS.troughMarginS,
  };
}

/** The plan's trough load in requests/s (streams are converted at the target: X_target / C_scale_max each). */
export function planTroughRps(plan: PlanArtifact): number {
  const { trough } = plan.chosen;
  if (trough.unit === 'rps') return trough.value;
  const perStream = (plan.derived.x_target_rps ?? 0) / Math.max(1e-9, plan.derived.c_scale_max);
  return trough.value * perStream;
}

export function drillPhases(
  plan: PlanArtifact,
  prediction: DrillPrediction,
  choice: PhaseChoice,
): DrillPhase[] {
  const w = choice.windowS;
  const defaults = defaultPhaseLengths(prediction, choice.scaleInWindowS);
  const steadyS = roundUpTo(choice.steadyS ?? defaults.steadyS, w);
  const surgeS = roundUpTo(choice.surgeS ?? defaults.surgeS, w);
  const troughS = roundUpTo(choice.troughS ?? defaults.troughS, w);
  const perInstance = steadyPerInstance(prediction);
  const steadyRps = choice.steadyRps ?? perInstance.rps * choice.instances;
  const troughRps = choice.troughRps ?? planTroughRps(plan);
  const x = round(perInstance.rps, 3);
  const unit = choice.unit ?? 'instance';
  const name = perInstance.basis === 'lambda_safe' ? 'lambda_safe' : 'X_target';
  const what =
    perInstance.basis === 'lambda_safe'
      ? `the chosen policy's surge-safe rate per ${unit}, what the plan sizes the fleet for`
      : "the plan's throughput at its target: the plan predates lambda_safe";
  return [
    {
      name: 'steady',
      start_s: 0,
      end_s: steadyS,
      rate_rps: round(steadyRps, 6),
      rate_source:
        choice.steadyRps !== undefined
          ? `chosen: --steady-rps (the plan's ${name} ${x} x ${choice.instances} ${unit}(s) would be ${round(perInstance.rps * choice.instances, 3)})`
          : `computed: ${name} ${x} requests/s x ${choice.instances} ${unit}(s) (${what})`,
    },
    {
      name: 'surge',
      start_s: steadyS,
      end_s: steadyS + surgeS,
      rate_rps: round(steadyRps * choice.surgeRatio, 6),
      rate_source: `computed: surge ratio ${choice.surgeRatio} x the steady rate`,
    },
    {
      name: 'trough',
      start_s: steadyS + surgeS,
      end_s: steadyS + surgeS + troughS,
      rate_rps: round(troughRps, 6),
      rate_source:
        choice.troughRps !== undefined
          ? 'chosen: --trough-rps'
          : `chosen: the plan's trough load (${plan.chosen.trough.value} ${plan.chosen.trough.unit})`,
    },
  ];
}

export const drillDurationS = (phases: readonly DrillPhase[]): number =>
  Math.max(...phases.map((p) => p.end_s));

export interface DrillEstimate {
  durationS: number;
  arrivals: number;
  /** Instance-minutes if the fleet holds n in the steady phase and ceil(k n) from the surge on. */
  instanceMinutes: number;
  fleetAfterSurge: number;
  hourlyUsd: number | null;
  costUsd: number | null;
}

/** What a drill costs (computed from its settings; the fleet after the surge is an assumption). */
export function drillEstimate(
  phases: readonly DrillPhase[],
  instances: number,
  surgeRatio: number,
  maxInstances: number,
  hourlyUsd: number | null,
): DrillEstimate {
  const steady = phases.find((p) => p.name === 'steady') as DrillPhase;
  const durationS = drillDurationS(phases);
  const fleetAfterSurge = Math.min(
    maxInstances,
    Math.max(instances, Math.ceil(surgeRatio * instances - 1e-9)),
  );
  const instanceMinutes =
    (instances * (steady.end_s - steady.start_s) + fleetAfterSurge * (durationS - steady.end_s)) / 60;
  const arrivals = phases.reduce((sum, p) => sum + p.rate_rps * (p.end_s - p.start_s), 0);
  return {
    durationS,
    arrivals: Math.round(arrivals),
    instanceMinutes: round(instanceMinutes, 2),
    fleetAfterSurge,
    hourlyUsd,
    costUsd: hourlyUsd === null ? null : round((instanceMinutes / 60) * hourlyUsd, 2),
  };
}

/** The seconds of `phases` a time falls in (the phase whose [start, end) holds it). */
export function phaseAt(phases: readonly DrillPhase[], tS: number): DrillPhase | null {
  return phases.find((p) => tS >= p.start_s && tS < p.end_s) ?? null;
}
