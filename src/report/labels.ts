/**
 * How a figure's provenance is said, in every output (terminal, PR comment, job summary): one
 * wording per provenance, so no renderer can print a bound, a lower bound or a computed figure as
 * a measurement.
 */
import type { PlanArtifact, QmaxArtifact, TtotalArtifact } from '../model/index.js';

export type TTotalOrigin = PlanArtifact['measured']['t_total_origin'];
export type PolicyLagOrigin = NonNullable<PlanArtifact['measured']['policy_lag_origin']>;

/** The provenance of T_total in words, after the name: `T_total (…)`. */
export const T_TOTAL_PROVENANCE: Record<TTotalOrigin, string> = {
  measured: 'measured',
  stated: 'STATED, not measured',
  'lower-bound': 'LOWER BOUND: traffic never recovered, the clock stopped at in_service',
  bound: 'bound: upper prediction bound of repeated scale-outs',
};

export const tTotalLabel = (origin: TTotalOrigin): string => `T_total (${T_TOTAL_PROVENANCE[origin]})`;

/** A plan's T_total label with its recorded provenance (`bound (upper 90 % prediction, n=3)`) when it has one. */
export const planTtotalLabel = (
  m: Pick<PlanArtifact['measured'], 't_total_origin' | 't_total_provenance'>,
): string =>
  m.t_total_provenance && m.t_total_origin !== 'lower-bound'
    ? `T_total (${m.t_total_provenance})`
    : tTotalLabel(m.t_total_origin);

/** A plan's policy lag label with its recorded provenance (a drill's bound or single event) when it has one. */
export const planPolicyLagLabel = (m: PlanArtifact['measured']): string =>
  m.policy_lag_provenance ? `policy lag (${m.policy_lag_provenance})` : policyLagLabel(policyLagOriginOf(m));

/** The plan's rung holds against the validated ones; null for plans from before it was recorded. */
export const planHoldText = (m: PlanArtifact['measured']): string | null =>
  m.validated_hold === undefined
    ? null
    : `${m.validated_hold ? 'validated' : 'NOT VALIDATED (shorter or not recorded)'}: ${m.validated_hold_detail ?? ''}`;

/** A plan's Q_max provenance: recorded, else (older plans) from whether it was bracketed. */
export const planQmaxProvenance = (m: PlanArtifact['measured']): string =>
  m.q_max_provenance ?? (m.q_max_bracketed ? 'measured, bracketed' : 'lower bound: not bracketed');

/** A T_total value with its bound: `≥ 260.2 s` for a lower bound. */
export const tTotalValue = (origin: TTotalOrigin, text: string): string =>
  origin === 'lower-bound' ? `≥ ${text}` : text;

/** Plans written before `policy_lag_origin` existed: a deployed policy's lag was computed, never measured. */
export const policyLagOriginOf = (m: PlanArtifact['measured']): PolicyLagOrigin =>
  m.policy_lag_origin ?? (m.policy_lag_bounded ? 'bound' : 'computed');

export const POLICY_LAG_PROVENANCE: Record<PolicyLagOrigin, string> = {
  measured: 'measured by a drill',
  computed: 'from the deployed alarms, publication delay assumed',
  bound: 'bound, not measured',
};

export const policyLagLabel = (origin: PolicyLagOrigin): string =>
  `policy lag (${POLICY_LAG_PROVENANCE[origin]})`;

/** A ttotal artifact reads its lag from the deployed alarms, or states the 60 s bound. */
export const ttotalPolicyLagOrigin = (t: Pick<TtotalArtifact, 'policy_lag_bounded'>): PolicyLagOrigin =>
  t.policy_lag_bounded ? 'bound' : 'computed';

/**
 * The level of a rung's p95 interval, as a label: `97.5 %`, or, for artifacts from before the
 * batch decision (order statistics that assume independent samples), `95 %, iid`.
 */
export function ciLevelLabel(
  step: Pick<QmaxArtifact['steps'][number], 'ci_level' | 'decision_method'>,
): string {
  if (step.ci_level !== null && step.ci_level !== undefined) {
    return `${Number((step.ci_level * 100).toFixed(2))} %`;
  }
  return step.decision_method ? 'level not recorded' : '95 %, iid';
}

/** The service-time basis of a qmax artifact, when it is not an uncontended rung at concurrency 1. */
export function serviceTimeNote(q: Pick<QmaxArtifact, 'service_time_basis'>): string | null {
  const b = q.service_time_basis;
  if (!b?.fallback) return null;
  return b.usable
    ? `from concurrency ${b.concurrency}, not 1 (${b.reason}): it may include queueing`
    : `from concurrency ${b.concurrency}, an UNUSABLE rung (${b.reason})`;
}
