/**
 * The release gate's judgement of the measurements a plan names, before it derives the plan again
 * from them. Pure.
 *
 * - `qmax_rederived`: Q_max (each run's and the reported one), its bracket, the p95s at Q_max and
 *   at concurrency 1 and the service time are derived again from the stored rungs, the way the
 *   ladder decided them (src/stats/ladder-class.ts, src/analysis/qmax.ts), and each rung's record
 *   must agree with itself (usable exactly when nothing voided it, a pass only within the SLO). A
 *   legacy qmax records no decision per rung, so its rungs cannot be judged again: it passes only
 *   when it is byte for byte one of the committed legacy measurements (src/model/legacy.ts); a file
 *   that claims the legacy origin, or has rungs without a recorded decision, is refused otherwise.
 * - `ttotal_rederived`: T_total of every scale-out from its timeline (desired_set to
 *   traffic_recovered, or to in_service for a lower bound), its end stage, and the prediction bound
 *   of a repeated run from its observations.
 * - `rederived`: the plan derived again from the measurements as re-derived (src/plan/derive.ts)
 *   with the plan's recorded choices, and compared with the file value by value.
 */
import { capacityChanged, qmaxUpperBound, rungResultOf } from '../analysis/qmax.js';
import { observationsOf, tTotalPrediction } from '../analysis/ttotal-repeat.js';
import {
  isUsageError,
  type PlanArtifact,
  type PlanMeasurements,
  type QmaxArtifact,
  type QmaxStep,
  type TtotalArtifact,
  type TtotalObservation,
} from '../model/index.js';
import { COMMITTED_LEGACY_MEASUREMENTS } from '../model/legacy.js';
import { searchState } from '../stats/ladder-class.js';
import { derivePlan } from './derive.js';
import { failCheck, type GateCheckOf, passCheck } from './gate-check.js';
import { measuredKinds, replanFix } from './gate-fixes.js';
import { attachInferenceComponent, icConfigOfBlock } from './inference-component.js';
import { planDifferences } from './plan-differences.js';
import { valuesEqual } from './policy-diff.js';

export type MeasurementCheck = GateCheckOf<
  'measurements' | 'qmax_rederived' | 'ttotal_rederived' | 'rederived'
>;

/** Timeline stamps are ISO times to the millisecond: T_total from them agrees to 1 ms. */
export const T_TOTAL_TOLERANCE_S = 0.001;

const basename = (file: string): string =>
  file.slice(Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\')) + 1);
const show = (v: unknown): string => (v === null || v === undefined ? 'none' : JSON.stringify(v));

/** A qmax whose rungs cannot be judged again: the legacy format, or rungs without a recorded decision. */
export function isLegacyQmax(qmax: QmaxArtifact): boolean {
  return qmax.provenance.origin === 'legacy' || qmax.steps.some((s) => !s.decision_method);
}

/** Where one rung's record contradicts itself (a modern rung: its flags and verdict are recorded). */
function stepProblems(step: QmaxStep, live: boolean): string[] {
  const at = `rung ${step.concurrency} (run ${step.run_index + 1})`;
  const problems: string[] = [];
  if (step.saturated !== step.rejected > 0)
    problems.push(`${at} records saturated ${step.saturated} with ${step.rejected} rejected`);
  if (step.capacity_changed !== capacityChanged(step.instance_counts, live))
    problems.push(
      `${at} records capacity_changed ${step.capacity_changed} with instance counts [${step.instance_counts.join(', ')}]`,
    );
  const voided =
    step.capacity_changed || step.client_bound || step.rejected > 0 || !step.settled || step.ok === 0;
  if (step.usable === voided)
    problems.push(
      `${at} records usable ${step.usable} although it ${voided ? 'was voided (capacity changed, client-bound, saturated, unsettled or no success)' : 'has nothing that voids it'}`,
    );
  if (step.usable !== (step.unusable_reason === null))
    problems.push(`${at} records usable ${step.usable} with unusable_reason ${show(step.unusable_reason)}`);
  if (step.verdict === 'pass' && !step.meets_slo)
    problems.push(`${at} records a pass although its own p95 does not meet the SLO (meets_slo false)`);
  return problems;
}

/** What the stored rungs give: Q_max per run and reported, the bracket, the p95s, the service time. */
export function qmaxFromSteps(qmax: QmaxArtifact): {
  values: Pick<
    QmaxArtifact,
    | 'q_max'
    | 'q_max_per_run'
    | 'q_max_bracketed'
    | 'q_max_upper_bound'
    | 'ttfab_p95_at_q_max_ms'
    | 'ttfab_p95_at_c1_ms'
  >;
  /** The service time's basis rungs (the lowest concurrency with latencies, usable ones first). */
  serviceBasis: QmaxStep[];
} {
  const steps = qmax.steps;
  const runs = [...new Set(steps.map((s) => s.run_index))].sort((a, b) => a - b);
  const perRun = runs.map(
    (run) => searchState(steps.filter((s) => s.run_index === run).map(rungResultOf)).lo,
  );
  const qMax = Math.min(...perRun);
  const upper = qmaxUpperBound(steps, qMax);
  const atQmax = steps.find((s) => s.concurrency === qMax && s.verdict === 'pass' && s.usable);
  const atC1 = steps.find((s) => s.concurrency === 1 && s.usable) ?? steps.find((s) => s.concurrency === 1);
  const withLatencies = steps.filter((s) => s.s_p95_s !== null && s.s_mean_s !== null);
  const usable = withLatencies.filter((s) => s.usable);
  const pool = usable.length > 0 ? usable : withLatencies;
  const lowest = Math.min(...pool.map((s) => s.concurrency));
  return {
    values: {
      q_max: qMax,
      q_max_per_run: perRun,
      q_max_bracketed: upper !== null,
      q_max_upper_bound: upper,
      ttfab_p95_at_q_max_ms: atQmax?.ttfab_p95_ms ?? null,
      ttfab_p95_at_c1_ms: atC1?.ttfab_p95_ms ?? null,
    },
    serviceBasis: pool.filter((s) => s.concurrency === lowest),
  };
}

/** The service time against its basis rungs: equal to one rung's, within their range when pooled. */
function serviceTimeProblems(qmax: QmaxArtifact, basis: readonly QmaxStep[]): string[] {
  const problems: string[] = [];
  for (const [field, value] of [
    ['s_mean_s', qmax.s_mean_s],
    ['s_p95_s', qmax.s_p95_s],
  ] as const) {
    const own = basis.map((s) => s[field] as number);
    if (own.length === 0) {
      if (value !== 0) problems.push(`${field} ${value}, but no rung has latencies (0)`);
      continue;
    }
    const lo = Math.min(...own);
    const hi = Math.max(...own);
    const ok =
      own.length === 1
        ? valuesEqual(lo, value)
        : (value >= lo || valuesEqual(lo, value)) && (value <= hi || valuesEqual(hi, value));
    if (!ok)
      problems.push(
        own.length === 1
          ? `${field} ${value}, its rung at concurrency ${basis[0]?.concurrency} measured ${lo}`
          : `${field} ${value}, outside the ${own.length} pooled rungs at concurrency ${basis[0]?.concurrency} (${lo} to ${hi})`,
      );
  }
  return problems;
}

/**
 * The qmax as its rungs give it (the values that differ corrected, so the plan is derived again
 * from what was measured) and the check.
 */
export function qmaxCheck(
  qmax: QmaxArtifact,
  file: string,
  sha256: string | null | undefined,
  remeasureFix: string,
): { qmax: QmaxArtifact; check: MeasurementCheck } {
  const legacy = isLegacyQmax(qmax);
  const { values, serviceBasis } = qmaxFromSteps(qmax);
  const problems: string[] = [];
  for (const [field, derived] of Object.entries(values)) {
    const recorded = qmax[field as keyof typeof values];
    if (JSON.stringify(recorded) !== JSON.stringify(derived))
      problems.push(`${field} ${show(recorded)} (recorded) vs ${show(derived)} (from its rungs)`);
  }
  problems.push(...serviceTimeProblems(qmax, serviceBasis));
  if (!legacy) for (const step of qmax.steps) problems.push(...stepProblems(step, qmax.frozen));
  const corrected: QmaxArtifact = { ...qmax, ...values };
  const bracket =
    values.q_max_upper_bound === null
      ? 'not bracketed'
      : `bracketed by a breach at ${values.q_max_upper_bound}`;
  if (problems.length > 0) {
    return {
      qmax: corrected,
      check: failCheck(
        'qmax_rederived',
        `${file} does not follow from its own rungs: ${problems.join('; ')}`,
        `an artifact is never edited by hand: ${remeasureFix}`,
      ),
    };
  }
  if (legacy) {
    const name = basename(file);
    const committed = COMMITTED_LEGACY_MEASUREMENTS[name];
    if (committed === undefined || committed !== sha256) {
      const why =
        qmax.provenance.origin === 'legacy'
          ? 'it claims the legacy origin'
          : `${qmax.steps.filter((s) => !s.decision_method).length} of its rungs record no decision`;
      return {
        qmax: corrected,
        check: failCheck(
          'qmax_rederived',
          `${file}: legacy, not re-derivable (${why}, so its rungs cannot be judged again) and not one of the committed legacy measurements (${committed === undefined ? `no committed legacy file is named ${name}` : `sha256 ${sha256 ?? 'unknown'} is not the committed ${committed}`})`,
          `re-measure with this scalegate, which records each rung's decision: ${remeasureFix}`,
        ),
      };
    }
    return {
      qmax: corrected,
      check: passCheck(
        'qmax_rederived',
        `Q_max ${values.q_max} (${bracket}) follows from the rungs of ${file}; legacy, not re-derivable rung by rung (no decision recorded per rung): accepted as the committed legacy measurement (sha256 ${committed.slice(0, 12)}…)`,
      ),
    };
  }
  return {
    qmax: corrected,
    check: passCheck(
      'qmax_rederived',
      `Q_max ${values.q_max} (${bracket}) and the service time follow from the ${qmax.steps.length} rungs of ${file}, each consistent with its recorded decision`,
    ),
  };
}

interface TimelineTotal {
  tTotalS: number;
  endStage: 'traffic_recovered' | 'in_service';
}

/** T_total from a timeline: desired_set to traffic_recovered, or to in_service (a lower bound). */
export function tTotalFromTimeline(timeline: TtotalArtifact['timeline']): TimelineTotal | null {
  const at = (stage: string): number | null => {
    const entry = timeline.find((t) => t.stage === stage);
    return entry ? Date.parse(entry.at) : null;
  };
  const start = at('desired_set');
  const recovered = at('traffic_recovered');
  const inService = at('in_service');
  const endStage = recovered !== null ? 'traffic_recovered' : inService !== null ? 'in_service' : null;
  const end = recovered ?? inService;
  if (start === null || end === null || endStage === null) return null;
  return { tTotalS: Math.max(Math.round(end - start) / 1000, 0.001), endStage };
}

type Recorded = Pick<TtotalObservation, 't_total_s' | 'timeline' | 'missing_stages'> & {
  t_total_end_stage?: string | null;
};

function timelineProblems(what: string, o: Recorded): { problems: string[]; total: TimelineTotal | null } {
  const total = tTotalFromTimeline(o.timeline);
  if (total === null)
    return {
      problems: [
        `${what}: its timeline has no desired_set or no end stage (traffic_recovered, in_service): T_total cannot be derived from it`,
      ],
      total,
    };
  const problems: string[] = [];
  if (Math.abs(total.tTotalS - o.t_total_s) > T_TOTAL_TOLERANCE_S)
    problems.push(
      `${what}: t_total_s ${o.t_total_s} (recorded) vs ${total.tTotalS} (desired_set to ${total.endStage} in its timeline)`,
    );
  const recordedEnd = o.t_total_end_stage ?? null;
  if (recordedEnd !== null && recordedEnd !== total.endStage)
    problems.push(`${what}: ends at ${recordedEnd} (recorded) but its timeline ends at ${total.endStage}`);
  if (
    recordedEnd === null &&
    o.missing_stages.includes('traffic_recovered') !== (total.endStage === 'in_service')
  )
    problems.push(`${what}: its missing stages and its timeline disagree on whether traffic recovered`);
  return { problems, total };
}

/** The ttotal as its timeline gives it (corrected where it differs) and the check. */
export function ttotalCheck(
  ttotal: TtotalArtifact,
  file: string,
  remeasureFix: string,
): { ttotal: TtotalArtifact; check: MeasurementCheck } {
  const top = timelineProblems('T_total', ttotal);
  const observations = ttotal.observations ? observationsOf(ttotal) : [];
  const per = observations.map((o) => timelineProblems(`scale-out ${o.index + 1}`, o));
  const problems = [...top.problems, ...per.flatMap((p) => p.problems)];
  // A figure within the stamps' resolution of its timeline stays as recorded (it is the same).
  const agreed = (recorded: number, total: TimelineTotal | null | undefined): number =>
    total && Math.abs(total.tTotalS - recorded) > T_TOTAL_TOLERANCE_S ? total.tTotalS : recorded;
  const correctedObservations = ttotal.observations
    ? observations.map((o, i) => ({ ...o, t_total_s: agreed(o.t_total_s, per[i]?.total) }))
    : undefined;
  let prediction = ttotal.t_total_prediction;
  if (prediction && correctedObservations && correctedObservations.length >= 2) {
    const again = tTotalPrediction(correctedObservations);
    if (
      again.upper_s !== prediction.upper_s &&
      !(
        again.upper_s !== null &&
        prediction.upper_s !== null &&
        Math.abs(again.upper_s - prediction.upper_s) <= T_TOTAL_TOLERANCE_S
      )
    )
      problems.push(
        `the prediction bound ${show(prediction.upper_s)} s (recorded) vs ${show(again.upper_s)} s (from its ${correctedObservations.length} scale-outs)`,
      );
    prediction = { ...prediction, upper_s: again.upper_s };
  }
  const corrected: TtotalArtifact = {
    ...ttotal,
    t_total_s: agreed(ttotal.t_total_s, top.total),
    ...(top.total && ttotal.t_total_end_stage !== undefined ? { t_total_end_stage: top.total.endStage } : {}),
    ...(correctedObservations ? { observations: correctedObservations } : {}),
    ...(prediction ? { t_total_prediction: prediction } : {}),
  };
  if (problems.length > 0) {
    return {
      ttotal: corrected,
      check: failCheck(
        'ttotal_rederived',
        `${file} does not follow from its own timeline: ${problems.join('; ')}`,
        `an artifact is never edited by hand: ${remeasureFix}`,
      ),
    };
  }
  const n = observations.length > 1 ? ` and each of its ${observations.length} scale-outs` : '';
  return {
    ttotal: corrected,
    check: passCheck(
      'ttotal_rederived',
      `T_total ${ttotal.t_total_s} s${n} follows from the timeline of ${file} (desired_set to ${top.total?.endStage})`,
    ),
  };
}

/**
 * The measurements judged and the plan derived again from them (as re-derived), with the plan's
 * own recorded choices.
 */
export function rederive(
  modelName: string,
  plan: PlanArtifact,
  planFile: string,
  measurements: PlanMeasurements | null,
  remeasure: { qmax: string; ttotal: string },
): { plan: PlanArtifact | null; checks: MeasurementCheck[] } {
  const replan = replanFix(modelName, plan);
  if (measurements === null || measurements.error !== null || measurements.qmax === null) {
    const why = measurements?.error ?? 'the measurements it names were not looked for';
    return {
      plan: null,
      checks: [
        failCheck(
          'measurements',
          `${why}: the gate derives the plan again from its own measurements and refuses without them`,
          `commit the ${measuredKinds(plan)} artifacts the plan was made from beside it, or re-plan from the ones you have: ${replan}`,
        ),
      ],
    };
  }
  const found = [
    measurements.qmaxFile,
    measurements.ttotalFile,
    measurements.drillFile,
    measurements.goodputFile,
    measurements.tuneFile,
  ]
    .filter(Boolean)
    .join(' and ');
  const checks: MeasurementCheck[] = [passCheck('measurements', found)];
  const q = qmaxCheck(measurements.qmax, measurements.qmaxFile, measurements.qmaxSha256, remeasure.qmax);
  checks.push(q.check);
  const t = measurements.ttotal
    ? ttotalCheck(
        measurements.ttotal,
        measurements.ttotalFile ?? plan.inputs.ttotal?.file ?? 'ttotal',
        remeasure.ttotal,
      )
    : null;
  checks.push(
    t?.check ??
      passCheck(
        'ttotal_rederived',
        `no ttotal measurement: T_total ${plan.inputs.t_total_stated_s} s is stated (assumed)`,
      ),
  );
  let derived: PlanArtifact;
  try {
    derived = derivePlan({
      modelName: plan.model_name,
      qmax: q.qmax,
      qmaxFile: plan.inputs.qmax.file,
      ttotal: t?.ttotal ?? null,
      ttotalFile: plan.inputs.ttotal?.file ?? null,
      tTotalStatedS: plan.inputs.t_total_stated_s,
      drill: measurements.drill ?? null,
      drillFile: plan.inputs.drill?.file ?? null,
      // The goodput measurement is an input too: open_loop_headroom counts in the verdict.
      goodput: measurements.goodput ?? null,
      goodputFile: plan.inputs.goodput?.file ?? null,
      // The tune whose chosen candidate the plan deploys (refused again if it no longer fits).
      tune: measurements.tune ?? null,
      tuneFile: plan.inputs.tune?.file ?? null,
      choices: {
        sloMs: plan.chosen.slo_ms,
        surgeRatio: plan.chosen.surge_ratio,
        peak: plan.chosen.peak,
        trough: plan.chosen.trough,
        minInstancesFloor: plan.chosen.min_instances_floor,
        invocationCeilingS: plan.chosen.invocation_ceiling_s,
        instanceHourlyUsd: plan.chosen.instance_hourly_usd,
        instanceQuota: plan.chosen.instance_quota,
        // The region the plan took for a legacy measurement when it was made, never today's config.
        legacyRegion: plan.chosen.legacy_region,
        policyRule: plan.chosen.policy_rule,
        maxOverflowProbability: plan.chosen.max_overflow_probability,
      },
      allowConfigMismatch: plan.inputs.config_mismatch_allowed,
      runId: plan.run_id,
      createdAt: plan.created_at,
      tool: plan.provenance.tool,
    });
  } catch (e) {
    if (!isUsageError(e)) throw e;
    checks.push(
      failCheck(
        'rederived',
        `${planFile} does not follow from its own inputs: ${e.message}`,
        `re-plan: ${replan}`,
      ),
    );
    return { plan: null, checks };
  }
  // An inference-component plan: its block derived again from the plan's own record of it.
  if (plan.inference_component) {
    derived = attachInferenceComponent(derived, {
      ttotal: t?.ttotal ?? null,
      endpoint: plan.inference_component.endpoint,
      variant: plan.inference_component.variant,
      config: icConfigOfBlock(plan.inference_component),
    });
  }
  const differences = planDifferences(plan, derived);
  checks.push(
    differences.length === 0
      ? passCheck('rederived', `every deployable value follows from ${found} and the plan's recorded choices`)
      : failCheck(
          'rederived',
          `${planFile} does not follow from its own measurements: ${differences.join('; ')}`,
          `a plan is never edited by hand: re-derive it with ${replan}`,
        ),
  );
  return { plan: derived, checks };
}
