/**
 * `plan --tune FILE`: the plan deploys the chosen candidate of a `scalegate tune` artifact (its
 * metric, target, scale-in threshold, cooldowns, min/max instances, step scale-out and scheduled
 * actions) instead of the surge-safe operating point. The refusals (each names `--tune`, the file
 * and the fix), the values it deploys, how the policy records where they came from, and the
 * finding that still compares the tuned target with the surge analysis. Pure.
 */
import {
  type Deployable,
  type Finding,
  fingerprintDifferences,
  opt,
  type PolicyCandidate,
  type PolicyChosenBy,
  type QmaxArtifact,
  type TtotalArtifact,
  type TuneArtifact,
  type TunedPolicy,
  tunedPolicyLabel,
  usage,
} from '../model/index.js';

const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;

export interface TuneRequest {
  modelName: string;
  qmax: QmaxArtifact;
  qmaxFile: string;
  ttotal: TtotalArtifact | null;
  ttotalFile: string | null;
  tune: TuneArtifact;
  tuneFile: string;
}

/** A `scalegate tune` command line that tunes again on the plan's own measurements. */
const retune = (r: TuneRequest): string =>
  `\`scalegate tune --model ${r.modelName} --qmax ${r.qmaxFile}${r.ttotalFile ? ` --ttotal ${r.ttotalFile}` : ''} --trace ${r.tune.trace.source}\``;

/**
 * The tune's chosen policy, when it may be deployed on this plan: the same model, the qmax's
 * fingerprint, the plan's own qmax and ttotal runs, a chosen candidate that reached the required
 * attainment. Throws a usage error (exit 2) naming `--tune`, the file and the fix otherwise.
 */
export function checkTune(r: TuneRequest): TunedPolicy {
  const { tune, tuneFile: file } = r;
  if (tune.model_name !== r.modelName) {
    throw usage`${opt('tune', file)} tuned model ${tune.model_name}, not ${r.modelName}: pass this model's tune artifact, or tune it with ${retune(r)}.`;
  }
  const differences = fingerprintDifferences(r.qmax.fingerprint, tune.fingerprint);
  if (differences.length > 0) {
    const what = differences.map((d) => `${d.field} ${d.left} vs ${d.right}`).join('; ');
    throw usage`${opt('tune', file)} was tuned on measurements of another configuration than ${r.qmaxFile} (${what}): a policy simulated on another container or instance type does not hold on this one. Tune again on this qmax with ${retune(r)}.`;
  }
  if (tune.inputs.qmax.run_id !== r.qmax.run_id) {
    throw usage`${opt('tune', file)} simulated qmax run ${tune.inputs.qmax.run_id} (${tune.inputs.qmax.file}), the plan reads run ${r.qmax.run_id} (${r.qmaxFile}): plan with ${opt('qmax', tune.inputs.qmax.file)}, or tune again on this qmax with ${retune(r)}.`;
  }
  const ttotalRun = r.ttotal?.run_id ?? null;
  if (tune.inputs.ttotal.run_id !== ttotalRun) {
    throw usage`${opt('tune', file)} simulated ttotal run ${tune.inputs.ttotal.run_id} (${tune.inputs.ttotal.file}), the plan ${ttotalRun === null ? 'states T_total instead of measuring it' : `reads run ${ttotalRun} (${r.ttotalFile})`}: plan with ${opt('ttotal', tune.inputs.ttotal.file)}, or tune again on this plan's ttotal with ${retune(r)}.`;
  }
  const chosen = tune.chosen.policy;
  if (!tune.chosen_holds || chosen === null) {
    throw usage`${opt('tune', file)}: no candidate reached the required window SLO attainment ${pct(tune.settings.required_slo_attainment)} on trace ${tune.trace.sha256.slice(0, 12)} (the best, ${tune.chosen.label}, reached ${pct(tune.chosen.score.slo_attainment)}, computed), so there is nothing proven to deploy. Widen the candidates (higher max instances, lower targets, a step scale-out, scheduled pre-scaling) and tune again with ${retune(r)}, or plan without ${opt('tune')}.`;
  }
  return chosen;
}

/** Where a tuned plan's policy came from, as the plan records it. */
export function chosenByOf(tune: TuneArtifact, tuneFile: string): PolicyChosenBy {
  return {
    method: 'simulation',
    tune_file: tuneFile,
    tune_run_id: tune.run_id,
    trace_sha256: tune.trace.sha256,
    trace_source: tune.trace.source,
    label: tunedPolicyLabel(tune.trace.sha256),
  };
}

/** The plan's deployable values with the tuned policy's in place of the operating point's. */
export function tunedDeployable(deployable: Deployable, policy: TunedPolicy): Deployable {
  // The tune sized its fleet for the trace's peak; the deployed maximum stays at least the plan's
  // (the config's stated peak), so a day busier than the trace still scales, and no scheduled
  // action caps the fleet below it.
  const max = Math.max(policy.max_instances, deployable.max_instances);
  const scheduled = policy.scheduled_actions.map((a) => ({
    ...a,
    max_capacity: Math.max(a.max_capacity, max),
  }));
  return {
    ...deployable,
    scaling_metric: policy.scaling_metric,
    min_instances: policy.min_instances,
    max_instances: max,
    scaling_target_value: policy.target_value,
    scale_in_threshold: policy.scale_in_threshold,
    scale_out_cooldown_s: policy.scale_out_cooldown_s,
    scale_in_cooldown_s: policy.scale_in_cooldown_s,
    ...(scheduled.length > 0 ? { scheduled_actions: scheduled } : {}),
    ...(policy.step_scale_out ? { step_scale_out: policy.step_scale_out } : {}),
  };
}

/**
 * `tuned_policy`: what the tune's chosen candidate scored (computed by simulation on the trace),
 * and the tuned target against the surge analysis of the same metric: above the surge-safe
 * target, a k x surge overflows within T_plan with a probability above the tolerance (warn: the
 * simulation on the trace does not show the surge the plan is sized for).
 */
export function tunedPolicyFinding(
  tune: TuneArtifact,
  tuneFile: string,
  candidates: readonly PolicyCandidate[],
  surgeRatio: number,
  maxOverflowProbability: number,
): Finding {
  const chosen = tune.chosen;
  const policy = chosen.policy as TunedPolicy;
  const s = chosen.score;
  const base = `deployed: ${chosen.label} from ${tuneFile} (tune run ${tune.run_id}), ${tunedPolicyLabel(tune.trace.sha256)} (${tune.trace.source}): window SLO attainment ${pct(s.slo_attainment)} (computed, required ${pct(tune.settings.required_slo_attainment)}), ${s.instance_hours.toFixed(2)} instance-hours on the trace (computed), peak ${s.peak_instances} instances; ${policy.scaling_metric} target ${policy.target_value}, scale-in threshold ${policy.scale_in_threshold}, ${policy.min_instances} to ${policy.max_instances} instances, ${policy.scheduled_actions.length} scheduled action(s), ${policy.step_scale_out ? `a step scale-out above ${policy.step_scale_out.threshold}` : 'no step scale-out'}`;
  const surgeSafe = candidates.find((c) => c.metric === policy.scaling_metric);
  if (!surgeSafe) {
    return {
      name: 'tuned_policy',
      verdict: 'warn',
      detail: `${base}; the surge analysis has no ${policy.scaling_metric} candidate to compare the target with`,
      fix: 'measure Q_max with a usable rung so that the surge analysis can judge the tuned target, then re-plan',
    };
  }
  if (policy.target_value > surgeSafe.target_value) {
    return {
      name: 'tuned_policy',
      verdict: 'warn',
      detail: `${base}; the target ${policy.target_value} is above the surge-safe target ${surgeSafe.target_value} of the surge analysis (lambda_safe ${surgeSafe.lambda_safe_rps.toFixed(2)} requests/s per instance, computed): at it a ${surgeRatio}x surge overflows Q_max within T_plan ${surgeSafe.t_plan_s.toFixed(0)} s with probability above ${pct(maxOverflowProbability)} (computed); the trace did not show that surge`,
      fix: `tune with targets at or below ${surgeSafe.target_value}, or deploy it knowingly and drill it (\`scalegate drill\`) to prove it holds a ${surgeRatio}x surge`,
    };
  }
  return {
    name: 'tuned_policy',
    verdict: 'ok',
    detail: `${base}; the target ${policy.target_value} is at or below the surge-safe target ${surgeSafe.target_value} of the surge analysis (a ${surgeRatio}x surge overflows within T_plan with probability at most ${pct(surgeSafe.surge_overflow_probability)}, computed)`,
    fix: null,
  };
}
