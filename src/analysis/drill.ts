/**
 * The surge drill, pure: which load each phase offers (from the plan), what the plan promised,
 * and the judgement of what a drill recorded. No I/O; the HDR windows are decoded by the caller
 * (src/load/drill.ts), which hands over one WindowStat per window.
 *
 * Phases (open-loop Poisson arrivals, rates for the whole drill):
 * 1. steady: lambda_safe x n requests/s, the chosen policy's surge-safe per-instance rate the plan
 *    sizes each instance for (n = --start-instances); a plan that predates lambda_safe: X_target x
 *    n, its throughput at the scale-out target;
 * 2. surge: k times that, for T_plan plus a margin;
 * 3. trough: the plan's trough load, through the scale-in alarm's window and cooldown.
 * Phase lengths are fixed before the drill starts (shards must agree on the schedule), rounded
 * up to whole windows.
 *
 * Two answers, recorded side by side:
 * - `slo_held` (the verdict and the exit code): every full window of the steady and surge phases
 *   inside the SLO (p95 TTFAB from the intended send time at most the SLO, and at least 95 % of
 *   its arrivals answered within it: overflows (503), timeouts and other failures count as misses)
 *   with overflows no more than `max_overflow_probability` of its arrivals (the plan's policy
 *   choice; 0.05 for a plan that predates it) and every arrival sent (a window where the client
 *   could not send the schedule proves nothing). Exit 0 only when it held. A plan that predicted a
 *   breach does not make it a pass: the prediction is an explanation shown beside the failure.
 * - `as_predicted`: whether what happened is what the plan predicted (below).
 *
 * What the plan promises, and so what breaks it (`as_predicted`):
 * - once the tracked metric exceeds the scale-out target, the policy adds capacity within
 *   T_plan (= T_total + policy lag), and from then on the SLO holds;
 * - within T_plan of such a breach, the queue overflows with the probability the plan computed
 *   (surge_survival; for the steady phase its no-surge baseline). When that probability is above
 *   10 % (the finding warns) the plan itself predicted breaches there; at or below 10 % it
 *   promised none.
 * A full window of the steady or surge phase over the SLO (p95 TTFAB from the intended send time
 * above it, or under 95 % of arrivals answered within it), or with an overflow (503) or another
 * failure, is `predicted` when it lies within T_plan of a breach the plan predicted overflow
 * for, and `broken` otherwise; the drill went as predicted when no window is broken. The trough
 * phase is reported (scale-in, reversals, its windows) but not judged.
 */
import type { ScalingPolicy } from '@aws-sdk/client-application-auto-scaling';
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import type {
  DrillAnalysis,
  DrillLoadSecond,
  DrillObserver,
  DrillPhase,
  DrillPhaseName,
  DrillPrediction,
  DrillSlo,
  DrillWindow,
  LagChain,
  PlanArtifact,
  WatchedAlarm,
} from '../model/index.js';
import { UsageError } from '../model/index.js';

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
const round = (value: number, digits = 3): number => Number(value.toFixed(digits));

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
    t_total_origin: plan.measured.t_total_origin === 'stated' ? 'assumed' : 'measured',
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
  /** The fleet the steady load is sized for (instances). */
  instances: number;
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
  const name = perInstance.basis === 'lambda_safe' ? 'lambda_safe' : 'X_target';
  const what =
    perInstance.basis === 'lambda_safe'
      ? "the chosen policy's surge-safe rate per instance, what the plan sizes the fleet for"
      : "the plan's throughput at its target: the plan predates lambda_safe";
  return [
    {
      name: 'steady',
      start_s: 0,
      end_s: steadyS,
      rate_rps: round(steadyRps, 6),
      rate_source:
        choice.steadyRps !== undefined
          ? `chosen: --steady-rps (the plan's ${name} ${x} x ${choice.instances} instance(s) would be ${round(perInstance.rps * choice.instances, 3)})`
          : `computed: ${name} ${x} requests/s x ${choice.instances} instance(s) (${what})`,
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

// ---- the alarms to watch ----------------------------------------------------------------------

/**
 * The alarms that start a scale-out (a scale-out policy's own alarms that compare GreaterThan:
 * target tracking's high alarm) and a scale-in (the alarms of policies that remove instances, and
 * target tracking's low alarm), with their deployed settings.
 */
export function watchedAlarms(
  policies: readonly ScalingPolicy[],
  alarms: ReadonlyMap<string, MetricAlarm>,
): WatchedAlarm[] {
  const out: WatchedAlarm[] = [];
  const seen = new Set<string>();
  for (const policy of policies) {
    const steps = policy.StepScalingPolicyConfiguration?.StepAdjustments ?? [];
    const removes = steps.some((s) => (s.ScalingAdjustment ?? 0) < 0);
    const adds =
      policy.PolicyType === 'TargetTrackingScaling' || steps.some((s) => (s.ScalingAdjustment ?? 0) > 0);
    for (const ref of policy.Alarms ?? []) {
      const alarm = ref.AlarmName ? alarms.get(ref.AlarmName) : undefined;
      if (!alarm?.AlarmName || seen.has(alarm.AlarmName)) continue;
      const greater = /^GreaterThan/.test(alarm.ComparisonOperator ?? '');
      const role =
        policy.PolicyType === 'TargetTrackingScaling'
          ? greater
            ? 'scale-out'
            : 'scale-in'
          : adds && greater
            ? 'scale-out'
            : removes
              ? 'scale-in'
              : null;
      if (role === null || alarm.Period === undefined || alarm.EvaluationPeriods === undefined) continue;
      seen.add(alarm.AlarmName);
      out.push({
        name: alarm.AlarmName,
        role,
        metric: `${alarm.Namespace ?? ''} ${alarm.MetricName ?? ''}`.trim(),
        statistic: alarm.Statistic ?? alarm.ExtendedStatistic ?? 'unknown',
        period_s: alarm.Period,
        evaluation_periods: alarm.EvaluationPeriods,
        datapoints_to_alarm: alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods,
        threshold: alarm.Threshold ?? 0,
        comparison: alarm.ComparisonOperator ?? 'unknown',
      });
    }
  }
  return out.sort((a, b) =>
    a.role === b.role ? a.name.localeCompare(b.name) : a.role === 'scale-out' ? -1 : 1,
  );
}

/** `Setting desired instance count to 3.` -> 3. */
export function desiredFromDescription(description: string): number | null {
  const m = /desired (?:instance )?count to (\d+)/i.exec(description);
  return m ? Number(m[1]) : null;
}

// ---- the judgement ------------------------------------------------------------------------------

/** One window of intended send time, decoded from the HDR windows. */
export interface WindowStat {
  index: number;
  offered: number;
  ok: number;
  overflow: number;
  /** Every other failure (5xx, model errors, timeouts, client_dropped, errors). */
  errors: number;
  clientDropped: number;
  p95Ms: number | null;
}

export interface DrillAnalysisInput {
  phases: readonly DrillPhase[];
  windowS: number;
  sloMs: number;
  prediction: DrillPrediction;
  windows: readonly WindowStat[];
  seconds: readonly DrillLoadSecond[];
  observer: DrillObserver | null;
}

export interface DrillJudgement {
  analysis: DrillAnalysis;
  /** `pass` exactly when the SLO held. */
  verdict: 'pass' | 'fail';
  /** The windows beyond what the plan predicted (judged `broken`). */
  brokenWindows: number[];
  /** Every full steady and surge window inside the SLO, overflows within max_overflow_probability. */
  sloHeld: boolean;
  /** No window beyond what the plan predicted. */
  asPredicted: boolean;
  slo: DrillSlo;
}

const fmtS = (s: number): string => `${round(s, 1)} s`;
const pct = (p: number): string => `${(p * 100).toFixed(1)} %`;

function comparisonOf(alarm: WatchedAlarm | undefined): (v: number) => boolean {
  if (!alarm) return () => false;
  switch (alarm.comparison) {
    case 'GreaterThanOrEqualToThreshold':
      return (v) => v >= alarm.threshold;
    case 'GreaterThanThreshold':
      return (v) => v > alarm.threshold;
    case 'LessThanThreshold':
      return (v) => v < alarm.threshold;
    default:
      return (v) => v <= alarm.threshold;
  }
}

/** The start of the run of breaching periods that ends with the last period complete before `atS`. */
function breachStartBefore(
  points: readonly { t_s: number; value: number }[],
  periodS: number,
  breaches: (v: number) => boolean,
  atS: number,
): number | null {
  const complete = [...points].filter((p) => p.t_s + periodS <= atS + 1e-6).sort((a, b) => b.t_s - a.t_s);
  const last = complete[0];
  if (!last || !breaches(last.value)) return null;
  let first = last.t_s;
  for (const p of complete.slice(1)) {
    if (Math.abs(first - p.t_s - periodS) > 1e-6 || !breaches(p.value)) break;
    first = p.t_s;
  }
  return first;
}

/**
 * `full` when the alarm's evaluation range held at least EvaluationPeriods real datapoints when
 * it fired; `partial` when it held fewer (the endpoint was idle before: an idle variant publishes
 * nothing), and CloudWatch decided on the datapoints it had (TreatMissingData missing), sooner than
 * its datapoints x period.
 */
function evaluationOf(
  points: readonly { t_s: number; value: number }[],
  alarm: WatchedAlarm,
  alarmS: number,
): 'full' | 'partial' {
  const complete = points.filter((p) => p.t_s + alarm.period_s <= alarmS + 1e-6);
  const lastStart = Math.max(...complete.map((p) => p.t_s));
  if (!Number.isFinite(lastStart)) return 'partial';
  const rangeStart = lastStart + alarm.period_s - (alarm.evaluation_periods + 2) * alarm.period_s;
  const real = complete.filter((p) => p.t_s >= rangeStart - 1e-6).length;
  return real >= alarm.evaluation_periods ? 'full' : 'partial';
}

function lastPhaseStartAtOrBefore(phases: readonly DrillPhase[], tS: number): DrillPhase {
  let found = phases[0] as DrillPhase;
  for (const p of phases) if (p.start_s <= tS + 1e-9) found = p;
  return found;
}

function lagChains(input: DrillAnalysisInput): LagChain[] {
  const { observer, phases } = input;
  if (!observer) return [];
  const outAlarms = observer.alarms.filter((a) => a.role === 'scale-out');
  const outNames = new Set(outAlarms.map((a) => a.name));
  const obs = [...observer.observations].sort((a, b) => a.t_s - b.t_s);
  const desiredBefore = (tS: number): number | null => {
    let d: number | null = null;
    for (const o of obs) if (o.t_s < tS && o.desired !== null) d = o.desired;
    return d;
  };
  const chains: LagChain[] = [];
  let known = obs.find((o) => o.desired !== null)?.desired ?? null;
  for (const activity of [...observer.activities].sort((a, b) => a.start_s - b.start_s)) {
    const from = desiredBefore(activity.start_s) ?? known;
    const to = activity.to_desired;
    if (to === null || from === null || to <= from) {
      if (to !== null) known = to;
      continue;
    }
    known = to;
    const transition = [...observer.transitions]
      .filter((t) => outNames.has(t.alarm) && t.to === 'ALARM' && t.t_s <= activity.start_s + 0.5)
      .sort((a, b) => b.t_s - a.t_s)[0];
    const alarm = outAlarms.find((a) => a.name === transition?.alarm) ?? outAlarms[0];
    const firstBreach =
      transition && alarm
        ? breachStartBefore(
            observer.metric.points,
            observer.metric.period_s,
            comparisonOf(alarm),
            transition.t_s,
          )
        : null;
    const stepPhase = lastPhaseStartAtOrBefore(phases, firstBreach ?? transition?.t_s ?? activity.start_s);
    const origin = Math.max(stepPhase.start_s, firstBreach ?? stepPhase.start_s);
    const seen = obs.find((o) => o.t_s >= activity.start_s - 1e-6 && o.desired !== null && o.desired >= to);
    const desiredS = seen ? seen.t_s : null;
    const served =
      desiredS === null
        ? undefined
        : obs.find(
            (o) => o.t_s >= desiredS && o.current !== null && o.current >= to && o.status === 'InService',
          );
    chains.push({
      load_step: stepPhase.name,
      load_step_s: stepPhase.start_s,
      first_breach_s: firstBreach,
      alarm: transition?.alarm ?? null,
      alarm_s: transition ? round(transition.t_s) : null,
      activity_s: round(activity.start_s),
      desired_s: desiredS === null ? null : round(desiredS),
      from_instances: from,
      to_instances: to,
      in_service_s: served ? round(served.t_s) : null,
      policy_lag_s: desiredS === null ? null : round(Math.max(0, desiredS - origin)),
      detection_s:
        transition && firstBreach !== null ? round(Math.max(0, transition.t_s - firstBreach)) : null,
      configured_detection_s: alarm ? alarm.datapoints_to_alarm * alarm.period_s : null,
      evaluation: transition && alarm ? evaluationOf(observer.metric.points, alarm, transition.t_s) : null,
      scale_out_s: served && desiredS !== null ? round(Math.max(0, served.t_s - desiredS)) : null,
    });
  }
  return chains;
}

interface Allowance {
  phase: DrillPhaseName;
  fromS: number;
  toS: number;
  /** Where the breach came from, for the reason text. */
  label: string;
}

function describeProblems(
  w: Omit<DrillWindow, 'judged' | 'reason'>,
  sloMs: number,
  clientDropped: number,
): string {
  const parts: string[] = [];
  if (w.p95_ms !== null && w.p95_ms > sloMs) parts.push(`p95 ${round(w.p95_ms, 1)} ms > SLO ${sloMs} ms`);
  if (w.ok === 0 && w.offered > 0) parts.push('no request answered');
  if (w.within_slo_fraction !== null && w.within_slo_fraction < WITHIN_SLO_SHARE)
    parts.push(`${pct(w.within_slo_fraction)} within the SLO`);
  if (w.overflow > 0) parts.push(`${w.overflow} overflow(s) (503)`);
  const otherErrors = w.errors - clientDropped;
  if (otherErrors > 0) parts.push(`${otherErrors} failed request(s)`);
  if (clientDropped > 0)
    parts.push(`${clientDropped} arrival(s) the client could not send (its outstanding cap)`);
  return parts.join(', ');
}

/**
 * Why one full steady or surge window did not hold the SLO (null: it held): over the SLO (p95, or
 * under 95 % of its arrivals answered within it, failures counted as misses), overflows above
 * max_overflow_probability of its arrivals, or arrivals the client could not send (then the
 * window proves nothing).
 */
function sloMiss(
  w: Omit<DrillWindow, 'judged' | 'reason'>,
  sloMs: number,
  maxOverflow: number,
  clientDropped: number,
): string | null {
  const parts: string[] = [];
  if (w.offered === 0) return null;
  if (w.p95_ms !== null && w.p95_ms > sloMs) parts.push(`p95 ${round(w.p95_ms, 1)} ms > SLO ${sloMs} ms`);
  if (w.ok === 0) parts.push('no request answered');
  if (w.within_slo_fraction !== null && w.within_slo_fraction < WITHIN_SLO_SHARE)
    parts.push(`${pct(w.within_slo_fraction)} of arrivals within the SLO < ${pct(WITHIN_SLO_SHARE)}`);
  const share = w.overflow / w.offered;
  if (share > maxOverflow + 1e-12)
    parts.push(`${w.overflow} overflow(s) (503) = ${pct(share)} of arrivals > ${pct(maxOverflow)}`);
  if (clientDropped > 0)
    parts.push(`${clientDropped} arrival(s) the client could not send: the window proves nothing`);
  return parts.length > 0 ? parts.join(', ') : null;
}

export function analyzeDrill(input: DrillAnalysisInput): DrillJudgement {
  const { phases, windowS: w, sloMs, prediction, observer } = input;
  const bySecond = new Map(input.seconds.map((s) => [s.t, s]));
  const surge = phases.find((p) => p.name === 'surge') as DrillPhase;
  const steady = phases.find((p) => p.name === 'steady') as DrillPhase;
  const tPlan = prediction.t_plan_s;

  // Where the plan's promise starts: in each loaded phase, the first period over the plan's
  // scale-out target. One allowance per load step: a metric that dips under the target and comes
  // back while no capacity was added does not restart the clock.
  const metric = observer?.metric;
  const predictedFor = (phase: DrillPhaseName): number | null =>
    phase === 'surge' ? prediction.surge_overflow_probability : prediction.baseline_overflow_probability;
  const hasMetric = metric !== undefined && metric.points.length > 0;
  const allowances: Allowance[] = [];
  for (const phase of [steady, surge]) {
    let start: number | null = phase.start_s;
    if (hasMetric) {
      const first = [...metric.points]
        .sort((a, b) => a.t_s - b.t_s)
        .find(
          (p) =>
            p.t_s + metric.period_s > phase.start_s &&
            p.t_s < phase.end_s &&
            p.value > prediction.scaling_target_value,
        );
      start = first ? Math.max(phase.start_s, first.t_s) : null;
    }
    if (start === null) continue;
    allowances.push({
      phase: phase.name,
      fromS: start,
      toS: start + tPlan,
      label: hasMetric
        ? `the tracked metric exceeded the target ${prediction.scaling_target_value} from ${fmtS(start)} (${phase.name})`
        : `the ${phase.name} load step at ${fmtS(start)} (no metric was read)`,
    });
  }
  const episodeStarts = hasMetric ? allowances.map((a) => a.fromS) : null;

  const maxOverflow = prediction.max_overflow_probability ?? DEFAULT_MAX_OVERFLOW_PROBABILITY;
  // A plan that records its tolerance predicted overflow where its probability exceeds it; an
  // older plan warned above 10 %.
  const predictedAbove = prediction.max_overflow_probability ?? PREDICTED_OVERFLOW_ABOVE;
  const windows: DrillWindow[] = [];
  const broken: number[] = [];
  const clientDroppedTotal = input.windows.reduce((s, x) => s + x.clientDropped, 0);
  for (const stat of [...input.windows].sort((a, b) => a.index - b.index)) {
    const startS = stat.index * w;
    const endS = startS + w;
    const phase = phaseAt(phases, startS);
    const full = phase !== null && endS <= phase.end_s + 1e-9;
    let within = 0;
    for (let t = Math.floor(startS); t < endS; t++) within += bySecond.get(t)?.within_slo ?? 0;
    const fraction = stat.offered > 0 ? Math.min(1, within / stat.offered) : null;
    const overSlo =
      stat.offered > 0 &&
      ((stat.p95Ms !== null && stat.p95Ms > sloMs) ||
        stat.ok === 0 ||
        (fraction !== null && fraction < WITHIN_SLO_SHARE));
    const base = {
      index: stat.index,
      phase: phase?.name ?? null,
      start_s: startS,
      end_s: endS,
      full,
      offered: stat.offered,
      ok: stat.ok,
      overflow: stat.overflow,
      errors: stat.errors,
      p95_ms: stat.p95Ms === null ? null : round(stat.p95Ms, 3),
      within_slo_fraction: fraction === null ? null : round(fraction, 6),
      over_slo: overSlo,
    };
    const bad = overSlo || stat.overflow > 0 || stat.errors > 0;
    if (!full || phase === null || phase.name === 'trough') {
      windows.push({
        ...base,
        judged: 'not-judged',
        reason: bad ? describeProblems(base, sloMs, stat.clientDropped) : null,
        slo_held: null,
        slo_reason: null,
      });
      continue;
    }
    const miss = sloMiss(base, sloMs, maxOverflow, stat.clientDropped);
    const slo = { slo_held: miss === null, slo_reason: miss };
    if (!bad) {
      windows.push({ ...base, judged: 'ok', reason: null, ...slo });
      continue;
    }
    const problems = describeProblems(base, sloMs, stat.clientDropped);
    const p = predictedFor(phase.name);
    const covering = allowances.find((a) => startS < a.toS && endS > a.fromS);
    const what = phase.name === 'surge' ? 'surge_survival' : "surge_survival's no-surge baseline";
    if (stat.clientDropped === 0 && covering && p !== null && p > predictedAbove) {
      windows.push({
        ...base,
        judged: 'predicted',
        reason: `${problems}: within T_plan ${fmtS(tPlan)} of when ${covering.label}, where the plan predicted overflow (${what} ${pct(p)})`,
        ...slo,
      });
      continue;
    }
    const why =
      stat.clientDropped > 0
        ? 'the load generator could not offer the schedule, so this window measures the client, not the endpoint'
        : !covering
          ? `more than T_plan ${fmtS(tPlan)} after the load first exceeded the target ${prediction.scaling_target_value}${allowances.length > 0 ? ` (${allowances.map((a) => `${fmtS(a.fromS)} in the ${a.phase}`).join(', ')})` : ''}: the policy should have added capacity by then`
          : p === null
            ? 'the plan has no overflow prediction for it'
            : `the plan predicted no overflow here (${what} ${pct(p)} <= ${pct(predictedAbove)})`;
    windows.push({ ...base, judged: 'broken', reason: `${problems}: ${why}`, ...slo });
    broken.push(stat.index);
  }

  // The SLO: every full window of the steady and surge phases held it (none judged: not shown).
  const sloJudged = windows.filter((x) => x.slo_held === true || x.slo_held === false);
  const sloBroken = sloJudged.filter((x) => x.slo_held === false);
  const sloHeld = sloJudged.length > 0 && sloBroken.length === 0;
  const sloSummary: DrillSlo = {
    slo_ms: sloMs,
    within_slo_share: WITHIN_SLO_SHARE,
    max_overflow_probability: maxOverflow,
    max_overflow_origin: prediction.max_overflow_origin ?? 'default',
    windows_judged: sloJudged.length,
    broken_windows: sloBroken.map((x) => x.index),
    broken_by_phase: {
      steady: sloBroken.filter((x) => x.phase === 'steady').length,
      surge: sloBroken.filter((x) => x.phase === 'surge').length,
    },
  };

  const chains = lagChains(input);
  // A scale-out from a busy endpoint (a full evaluation range) is the one a surge from the target sees.
  const first =
    chains.find((c) => c.policy_lag_s !== null && c.evaluation === 'full') ??
    chains.find((c) => c.policy_lag_s !== null) ??
    null;
  const policyLag = {
    seconds: first?.policy_lag_s ?? null,
    origin: 'measured' as const,
    evaluation: first?.evaluation ?? null,
    detail: first
      ? `${first.load_step} start ${fmtS(first.load_step_s)}` +
        `${first.first_breach_s !== null ? ` -> first breaching period ${fmtS(first.first_breach_s)}` : ''}` +
        `${first.alarm_s !== null ? ` -> ${first.alarm ?? 'alarm'} in ALARM ${fmtS(first.alarm_s)}` : ''}` +
        ` -> scaling activity ${fmtS(first.activity_s ?? 0)} -> desired ${first.from_instances} -> ${first.to_instances} seen ${fmtS(first.desired_s ?? 0)}` +
        ` (from the later of the load step and the first breaching period)` +
        (first.evaluation === 'partial'
          ? `; the alarm's evaluation range held fewer than ${first.configured_detection_s === null ? 'its' : 'its configured'} datapoints (the endpoint was idle before it), so it fired sooner than datapoints x period: not the lag of a surge from a busy endpoint`
          : '')
      : observer === null
        ? 'not observed: this drill had no observer (only shard 0 observes the endpoint)'
        : chains.length > 0
          ? 'a scale-out happened but the new desired count was never seen by a poll'
          : 'no scale-out happened during the drill, so no policy lag was measured',
  };

  // Time until the SLO holds again, from the first breach of the target.
  const origin = first
    ? Math.max(first.load_step_s, first.first_breach_s ?? first.load_step_s)
    : (episodeStarts?.[0] ?? null);
  let sloRecovered: number | null = null;
  const judgedWindows = windows.filter((x) => x.full && x.phase !== 'trough');
  if (origin !== null) {
    const after = judgedWindows.filter((x) => x.end_s > origin);
    const bad = (x: DrillWindow) => x.judged === 'predicted' || x.judged === 'broken';
    if (!after.some(bad)) sloRecovered = 0;
    else {
      for (let i = 0; i + RECOVERED_WINDOWS <= after.length; i++) {
        const run = after.slice(i, i + RECOVERED_WINDOWS);
        if (run.every((x) => !bad(x)) && after.slice(0, i).some(bad)) {
          sloRecovered = round(Math.max(0, (run[0] as DrillWindow).start_s - origin));
          break;
        }
      }
    }
  }

  // The fleet when the surge began.
  const obs = observer ? [...observer.observations].sort((a, b) => a.t_s - b.t_s) : [];
  const atSurge = [...obs].reverse().find((o) => o.t_s <= surge.start_s) ?? null;
  const outNames = new Set((observer?.alarms ?? []).filter((a) => a.role === 'scale-out').map((a) => a.name));
  const activities = observer ? [...observer.activities].sort((a, b) => a.start_s - b.start_s) : [];
  const steadyActivities = activities.filter((a) => a.start_s >= steady.start_s && a.start_s < steady.end_s);
  const settled =
    atSurge === null
      ? null
      : atSurge.desired !== null &&
        atSurge.desired === atSurge.current &&
        ![...outNames].some((n) => atSurge.alarms[n] === 'ALARM');

  const perPhase = (pick: (s: DrillLoadSecond) => number): Record<DrillPhaseName, number> => {
    const out = { steady: 0, surge: 0, trough: 0 } as Record<DrillPhaseName, number>;
    for (const s of input.seconds) {
      const p = phaseAt(phases, s.t);
      if (p) out[p.name] += pick(s);
    }
    return out;
  };
  const windowsOver = { steady: 0, surge: 0, trough: 0 } as Record<DrillPhaseName, number>;
  for (const x of windows) if (x.full && x.phase && x.over_slo) windowsOver[x.phase] += 1;
  const surgeOverflow = input.seconds.some(
    (s) => s.t >= surge.start_s && s.t < surge.start_s + tPlan && s.overflow > 0,
  );

  // Scale-in and reversals (flapping).
  const directions: ('out' | 'in')[] = [];
  let level = obs.find((o) => o.desired !== null)?.desired ?? null;
  for (const a of activities) {
    if (a.to_desired === null || level === null) {
      level = a.to_desired ?? level;
      continue;
    }
    if (a.to_desired > level) directions.push('out');
    else if (a.to_desired < level) directions.push('in');
    level = a.to_desired;
  }
  let reversals = 0;
  for (let i = 1; i < directions.length; i++) if (directions[i] !== directions[i - 1]) reversals++;
  const scaleIns = directions.filter((d) => d === 'in').length;
  const trough = phases.find((p) => p.name === 'trough') as DrillPhase;
  const scaleInDetail =
    observer === null
      ? 'not observed (no observer)'
      : scaleIns === 0
        ? `no scale-in during the drill (the trough lasted ${fmtS(trough.end_s - trough.start_s)}; the scale-in alarm needs its whole evaluation window of low load first)`
        : `${scaleIns} scale-in(s), ${reversals} reversal(s) between scaling directions`;

  const reasons: string[] = [];
  if (sloJudged.length === 0) {
    reasons.push(
      'no full window of the steady or surge phase was recorded: the drill proves nothing about the SLO',
    );
  } else if (sloBroken.length > 0) {
    const first3 = sloBroken.slice(0, 3);
    reasons.push(
      `the SLO broke in ${sloBroken.length} of ${sloJudged.length} full steady and surge window(s): ${first3
        .map((x) => `${x.phase} ${fmtS(x.start_s)}-${fmtS(x.end_s)} (${x.slo_reason})`)
        .join('; ')}${sloBroken.length > 3 ? '; ...' : ''}`,
    );
  } else {
    reasons.push(
      `the SLO held in all ${sloJudged.length} full steady and surge window(s): at least ${pct(WITHIN_SLO_SHARE)} of arrivals within ${sloMs} ms, overflows at most ${pct(maxOverflow)} of arrivals in each`,
    );
  }
  if (broken.length > 0) {
    const first3 = windows.filter((x) => x.judged === 'broken').slice(0, 3);
    reasons.push(
      `not as the plan predicted: ${broken.length} window(s) broke the plan's promise: ${first3
        .map((x) => `${x.phase} ${fmtS(x.start_s)}-${fmtS(x.end_s)} (${x.reason})`)
        .join('; ')}${broken.length > 3 ? '; ...' : ''}`,
    );
  } else {
    const predicted = windows.filter((x) => x.judged === 'predicted').length;
    reasons.push(
      predicted === 0
        ? 'as the plan predicted: no window of the steady and surge phases had an overflow, a failure or a breach of the SLO'
        : `as the plan predicted: ${predicted} window(s) with overflows, failures or over the SLO, each within T_plan of a breach for which the plan predicted overflow; none beyond it`,
    );
  }
  if (clientDroppedTotal > 0)
    reasons.push(
      `the client dropped ${clientDroppedTotal} arrival(s) at its outstanding cap: run more shards or a larger client`,
    );
  if (settled === false)
    reasons.push(
      `the fleet was not settled when the surge began (desired ${atSurge?.desired ?? 'n/a'}, current ${atSurge?.current ?? 'n/a'}${[...outNames].some((n) => atSurge?.alarms[n] === 'ALARM') ? ', scale-out alarm in ALARM' : ''}): lengthen --steady-s`,
    );
  if (steadyActivities.length > 0)
    reasons.push(
      `the policy scaled during the steady phase (${steadyActivities.map((a) => a.description).join('; ')}): the steady load already exceeded what the fleet holds under the policy`,
    );

  // Instance-minutes over the steady and surge phases: the endpoint's current instance count,
  // held from one poll to the next (what the fleet cost while the SLO was judged).
  const judgedEnd = surge.end_s;
  let instanceSeconds = 0;
  let seen = false;
  for (let i = 0; i < obs.length; i++) {
    const o = obs[i] as (typeof obs)[number];
    const next = obs[i + 1];
    const from = Math.max(o.t_s, steady.start_s);
    const to = Math.min(next ? next.t_s : judgedEnd, judgedEnd);
    if (o.current === null || to <= from) continue;
    instanceSeconds += o.current * (to - from);
    seen = true;
  }

  const analysis: DrillAnalysis = {
    windows,
    scale_outs: chains,
    policy_lag: policyLag,
    slo_recovered_s: sloRecovered,
    steady: {
      settled_at_surge: settled,
      desired_at_surge: atSurge?.desired ?? null,
      current_at_surge: atSurge?.current ?? null,
      scaled_during: observer ? steadyActivities.length > 0 : null,
    },
    observed: {
      overflows: perPhase((s) => s.overflow),
      windows_over_slo: windowsOver,
      surge_overflowed_within_t_plan: surgeOverflow,
      max_desired: obs.reduce<number | null>(
        (m, o) => (o.desired === null ? m : Math.max(m ?? 0, o.desired)),
        null,
      ),
      instance_minutes: seen ? round(instanceSeconds / 60, 3) : null,
    },
    scale_in: { scale_ins: scaleIns, reversals, detail: scaleInDetail },
    reasons,
  };
  return {
    analysis,
    verdict: sloHeld ? 'pass' : 'fail',
    brokenWindows: broken,
    sloHeld,
    asPredicted: broken.length === 0,
    slo: sloSummary,
  };
}
