/**
 * What the plan knows of its inputs' uncertainty, and carries into its figures. Pure.
 *
 * - T_total: the upper 90 % prediction bound for the next scale-out when ttotal was repeated
 *   (`--repeat n`, n >= 2), else the single observation, labelled so.
 * - Policy lag from a drill: the upper 90 % prediction bound over its scale-outs when it observed
 *   several, else the one it observed, labelled so.
 * - Q_max: decided by a valid interval (batch sectioning) or only a point estimate (a legacy rung).
 * - The surge overflow probability with a sensitivity band: recomputed with the throughput at its
 *   lower bound, Q_max minus its resolution, T_plan at its upper bound, each and all together.
 */
import { observationsOf } from '../analysis/ttotal-repeat.js';
import type {
  DrillArtifact,
  Finding,
  GoodputArtifact,
  QmaxArtifact,
  TtotalArtifact,
} from '../model/index.js';
import { PREDICTION_LEVEL, predictionBoundLabel, upperPredictionBound } from '../stats/prediction-bound.js';
import { overflowProbability, stationaryDistribution, type ThroughputPoint } from '../stats/surge.js';
import { checkHold, type HoldCheck } from '../stats/validated-holds.js';
import { round } from './formulas.js';
import { remeasure } from './remeasure.js';

/** The level of the T_plan upper bound the sensitivity band uses (stricter than the plan's 90 %). */
export const SENSITIVITY_T_LEVEL = 0.99;
/** One-sided normal quantile of the throughput's lower bound (95 %). */
const THROUGHPUT_Z = 1.645;

export interface PlannedTtotal {
  /** What T_plan is built from: the bound, or the one observation. */
  seconds: number;
  origin: 'measured' | 'bound';
  provenance: string;
  observations: number[];
  /** The upper SENSITIVITY_T_LEVEL prediction bound (the band's T_plan), null with one observation. */
  upper99S: number | null;
}

/** T_total as the plan takes it from a ttotal artifact (not a lower-bound one: that stays as it is). */
export function plannedTtotal(ttotal: TtotalArtifact): PlannedTtotal {
  const observations = observationsOf(ttotal).map((o) => o.t_total_s);
  const upper = ttotal.t_total_prediction?.upper_s ?? null;
  const strict =
    observations.length >= 2 ? upperPredictionBound(observations, SENSITIVITY_T_LEVEL).upper : null;
  if (upper !== null && observations.length >= 2) {
    return {
      seconds: upper,
      origin: 'bound',
      provenance: predictionBoundLabel({
        level: ttotal.t_total_prediction?.level ?? PREDICTION_LEVEL,
        n: observations.length,
      }),
      observations,
      upper99S: strict === null ? null : round(strict, 3),
    };
  }
  return {
    seconds: ttotal.t_total_s,
    origin: 'measured',
    provenance:
      observations.length === 1
        ? 'measured, single observation'
        : `measured (${ttotal.t_total_prediction?.description ?? 'no prediction bound'})`,
    observations,
    upper99S: strict === null ? null : round(strict, 3),
  };
}

export interface PlannedDrillLag {
  seconds: number;
  provenance: string;
  observations: number[];
}

/**
 * The drill's policy lag as the plan takes it: over its scale-outs from a busy endpoint (`full`
 * evaluation; else every one that has a lag), the upper 90 % prediction bound when there are
 * several, else the one (the drill's own figure).
 */
export function plannedDrillLag(drill: DrillArtifact): PlannedDrillLag | null {
  const single = drill.analysis.policy_lag.seconds;
  if (single === null) return null;
  const withLag = drill.analysis.scale_outs.filter((c) => c.policy_lag_s !== null);
  const full = withLag.filter((c) => c.evaluation === 'full');
  const pool = (full.length > 0 ? full : withLag).map((c) => c.policy_lag_s as number);
  if (pool.length >= 2) {
    // A lag of 0 s (the desired count seen at the first poll) has no logarithm: 1 ms stands in.
    const b = upperPredictionBound(pool.map((v) => Math.max(v, 0.001)));
    if (b.upper !== null) {
      return {
        seconds: round(b.upper, 3),
        provenance: `${predictionBoundLabel(b)} over the drill's ${pool.length} scale-outs`,
        observations: pool,
      };
    }
  }
  return {
    seconds: single,
    provenance: 'measured by a drill, single scale-out event: no prediction bound',
    observations: pool.length > 0 ? pool : [single],
  };
}

/** The rung Q_max stands on was judged by a valid interval (batch sectioning), not a point estimate. */
export function qmaxIntervalDecided(qmax: QmaxArtifact): boolean {
  return qmax.steps.some(
    (s) =>
      s.concurrency === qmax.q_max &&
      s.usable &&
      s.verdict === 'pass' &&
      typeof s.decision_method === 'string' &&
      s.ttfab_p95_ci_ms !== null,
  );
}

/** Q_max's provenance, as every output labels it. */
export function qmaxProvenance(qmax: QmaxArtifact): string {
  if (qmax.q_max === 0) return 'measured: concurrency 1 missed the SLO';
  const bracket = qmax.q_max_bracketed ? 'bracketed' : 'lower bound: not bracketed';
  return qmaxIntervalDecided(qmax)
    ? `measured, ${bracket}`
    : `POINT ESTIMATE (legacy rung: its p95 was compared with the SLO without a valid interval), ${bracket}`;
}

/** The finding: the rung at Q_max was decided by a valid interval, or Q_max is only a point estimate. */
export function qmaxDecisionFinding(qmax: QmaxArtifact, model: string): Finding {
  if (qmax.q_max === 0) {
    return {
      name: 'qmax_decision',
      verdict: 'ok',
      detail: 'Q_max 0: no rung passed, nothing to decide',
      fix: null,
    };
  }
  if (qmaxIntervalDecided(qmax)) {
    const step = qmax.steps.find((s) => s.concurrency === qmax.q_max && s.verdict === 'pass');
    return {
      name: 'qmax_decision',
      verdict: 'ok',
      detail: `the rung at Q_max ${qmax.q_max} passed on its interval (${step?.decision_method}${step?.ci_level ? `, ${Number((step.ci_level * 100).toFixed(2))} %` : ''}): the whole interval lay within the SLO`,
      fix: null,
    };
  }
  return {
    name: 'qmax_decision',
    verdict: 'warn',
    detail: `qmax_not_interval_decided: the rung at Q_max ${qmax.q_max} passed on its point estimate of p95 (a legacy rung: no valid interval for closed-loop data), so Q_max is a point estimate, not decided; a true p95 at the SLO passes such a rung about half the time`,
    fix: `re-measure with ${remeasure('qmax', model)} (each rung is decided by a batch-sectioning interval)`,
  };
}

/** The throughput curve at its lower bound: each rung's rate x (1 - 1.645 / sqrt(completions)). */
export function throughputLowerCurve(qmax: QmaxArtifact): ThroughputPoint[] {
  const byConcurrency = new Map<number, number[]>();
  for (const step of qmax.steps) {
    if (!step.usable) continue;
    const factor = step.completed > 0 ? Math.max(0, 1 - THROUGHPUT_Z / Math.sqrt(step.completed)) : 0;
    byConcurrency.set(step.concurrency, [
      ...(byConcurrency.get(step.concurrency) ?? []),
      step.achieved_rps * factor,
    ]);
  }
  return [...byConcurrency.entries()]
    .map(([concurrency, v]) => ({ concurrency, rps: v.reduce((a, b) => a + b, 0) / v.length }))
    .sort((a, b) => a.concurrency - b.concurrency);
}

/** Q_max's resolution: the search's, else the gap to the measured breach, else one. */
export function qmaxResolution(qmax: QmaxArtifact): number {
  const r =
    qmax.search?.resolution ??
    (qmax.q_max_upper_bound != null ? qmax.q_max_upper_bound - qmax.q_max : null) ??
    1;
  return Math.max(1, r);
}

export type SensitivityVary = 'throughput_low' | 'q_max_low' | 't_plan_high' | 'all';

export interface SensitivityInput {
  curve: readonly ThroughputPoint[];
  qmax: QmaxArtifact;
  surgeRatio: number;
  rateRps: number;
  tPlanS: number;
  /** T_plan at its upper bound; null: none (a single observation). */
  tPlanUpperS: number | null;
  tPlanUpperNote: string;
}

/** One surge computation: from the stationary state at the rate, a k surge, within T. */
function surgeAt(
  curve: readonly ThroughputPoint[],
  queueLimit: number,
  k: number,
  rate: number,
  horizonS: number,
) {
  const limit = Math.max(1, Math.floor(queueLimit));
  const r = overflowProbability({
    curve,
    queueLimit: limit,
    arrivalRate: k * rate,
    start: stationaryDistribution(curve, limit, rate),
    horizonS,
  });
  // The upper bound: never optimistic when the work budget ran out (equal to it when exact).
  return { probability: r.upperBound, exact: r.exact };
}

/** The surge overflow probability at the deployed rate, and how far it moves with each input. */
export function surgeSensitivity(input: SensitivityInput) {
  const { qmax, surgeRatio: k, rateRps: rate } = input;
  const lowCurve = throughputLowerCurve(qmax);
  const resolution = qmaxResolution(qmax);
  const lowQ = Math.max(1, qmax.q_max - resolution);
  const nominal = surgeAt(input.curve, qmax.q_max, k, rate, input.tPlanS);
  const tHigh = input.tPlanUpperS;
  const item = (
    vary: SensitivityVary,
    curve: readonly ThroughputPoint[],
    q: number,
    t: number,
    used: string,
  ) => {
    const r = surgeAt(curve, q, k, rate, t);
    return { vary, probability: round(r.probability, 4), exact: r.exact, used };
  };
  const items = [
    item(
      'throughput_low',
      lowCurve,
      qmax.q_max,
      input.tPlanS,
      `each rung's throughput x (1 - 1.645 / sqrt(completions)) (one-sided 95 % Poisson bound, assumed)`,
    ),
    item(
      'q_max_low',
      input.curve,
      lowQ,
      input.tPlanS,
      `Q_max ${qmax.q_max} - resolution ${resolution} = ${lowQ}`,
    ),
    tHigh === null
      ? { vary: 't_plan_high' as const, probability: null, exact: true, used: input.tPlanUpperNote }
      : item(
          't_plan_high',
          input.curve,
          qmax.q_max,
          tHigh,
          `T_plan ${round(tHigh, 1)} s (${input.tPlanUpperNote})`,
        ),
    item(
      'all',
      lowCurve,
      lowQ,
      tHigh ?? input.tPlanS,
      tHigh === null
        ? 'throughput and Q_max at their bounds together (T_plan as planned: no upper bound)'
        : 'throughput, Q_max and T_plan at their bounds together',
    ),
  ];
  const all = items[items.length - 1]?.probability ?? nominal.probability;
  return {
    rate_rps: round(rate, 6),
    nominal: round(nominal.probability, 4),
    low: round(nominal.probability, 4),
    high: Math.max(round(nominal.probability, 4), ...items.map((i) => i.probability ?? 0), all),
    method: 'uniformization (upper bound when the work budget ran out)',
    items,
  };
}
export type SurgeSensitivity = ReturnType<typeof surgeSensitivity>;

/** The ladders' holds against the validated ones: qmax's (closed loop) and goodput's (open loop). */
export function validatedHolds(qmax: QmaxArtifact, goodput: GoodputArtifact | null): HoldCheck {
  const checks = [
    checkHold('closed-loop', qmax.ladder.hold_s, qmax.ladder.settle_s),
    ...(goodput ? [checkHold('open-loop', goodput.ladder.hold_s, goodput.ladder.settle_s)] : []),
  ];
  return {
    validated: checks.every((c) => c.validated),
    detail: checks.map((c) => c.detail).join('; '),
  };
}
