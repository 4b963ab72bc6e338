/**
 * The release gate's checks of the plan against the model's config. Pure.
 *
 * - `plan_config`: every value the plan chose (src/plan/plan-request.ts `PlanChoices`, filled from
 *   the config by `scalegate plan`) equals what the config says today: the SLO, the surge ratio,
 *   the peak and trough load, the instance floor, the invocation ceiling, the price and quota, the
 *   overflow tolerance, and the surge-safe policy rule. A plan made with other values (a flag on
 *   the command line, or a config changed since) is a plan of another requirement.
 * - `config_mismatch`: a plan made with `--allow-config-mismatch` (its qmax and ttotal measured
 *   different configurations) is refused at release; the calibration deploy, which produces the
 *   proofs, still takes it.
 */
import type { ModelConfig, PlanArtifact } from '../model/index.js';
import { failCheck, type GateCheckOf, passCheck } from './gate-check.js';
import { icChoiceLabel, icConfigOfBlock } from './inference-component.js';
import type { Load } from './plan-request.js';

export type ConfigCheck = GateCheckOf<'plan_config' | 'config_mismatch'>;

/** The rule `scalegate plan` deploys unless told `--policy-rule seed` (a comparison). */
export const RELEASE_POLICY_RULE = 'surge-safe';

/** The load the config states for one side (requests/s first, else streams), null when none. */
export function configStatedLoad(model: ModelConfig, which: 'peak' | 'trough'): Load | null {
  const rps = model[`${which}_rps`];
  const streams = model[`${which}_streams`];
  if (rps !== undefined) return { unit: 'rps', value: rps };
  if (streams !== undefined) return { unit: 'streams', value: streams };
  return null;
}

/** The config's load of one side, as `scalegate plan` takes it (a missing trough is 0 in the peak's unit). */
export function configLoad(model: ModelConfig, which: 'peak' | 'trough'): Load | null {
  const stated = configStatedLoad(model, which);
  if (stated !== null) return stated;
  if (which === 'trough') {
    const peak = configLoad(model, 'peak');
    return peak ? { unit: peak.unit, value: 0 } : null;
  }
  return null;
}

const showLoad = (l: Load | null): string => (l === null ? 'none' : `${l.value} ${l.unit}`);

/** One line per chosen value that differs from the config: `slo_ms 60000 (plan) vs 3000 (config)`. */
export function planConfigDifferences(plan: PlanArtifact, model: ModelConfig): string[] {
  const c = plan.chosen;
  const pairs: Array<[string, string | number | null, string | number | null]> = [
    ['slo_ms', c.slo_ms, model.slo_ms],
    ['surge_ratio', c.surge_ratio, model.surge_ratio],
    ['peak', showLoad(c.peak), showLoad(configLoad(model, 'peak'))],
    ['trough', showLoad(c.trough), showLoad(configLoad(model, 'trough'))],
    ['min_instances_floor', c.min_instances_floor, model.min_instances_floor],
    ['invocation_ceiling_s', c.invocation_ceiling_s, model.invocation_ceiling_s],
    ['instance_hourly_usd', c.instance_hourly_usd, model.instance_hourly_usd ?? null],
    ['instance_quota', c.instance_quota, model.instance_quota ?? null],
    ['max_overflow_probability', c.max_overflow_probability, model.max_overflow_probability],
    ['policy_rule', c.policy_rule, RELEASE_POLICY_RULE],
    [
      'inference_component',
      plan.inference_component
        ? icChoiceLabel(icConfigOfBlock(plan.inference_component), plan.inference_component.endpoint)
        : icChoiceLabel(undefined, model.endpoint),
      icChoiceLabel(
        model.kind === 'inference-component' ? model.inference_component : undefined,
        model.endpoint,
      ),
    ],
  ];
  return pairs
    .filter(([, planned, configured]) => planned !== configured)
    .map(
      ([field, planned, configured]) =>
        `${field} ${planned ?? 'none'} (plan) vs ${configured ?? 'none'} (config)`,
    );
}

export function planConfigCheck(
  modelName: string,
  plan: PlanArtifact,
  model: ModelConfig,
  replan: string,
): ConfigCheck {
  const differences = planConfigDifferences(plan, model);
  if (differences.length === 0)
    return passCheck(
      'plan_config',
      `the plan's choices are the config's (SLO ${model.slo_ms} ms, surge ratio ${model.surge_ratio}, peak ${showLoad(plan.chosen.peak)}, floor ${model.min_instances_floor}, ${RELEASE_POLICY_RULE})`,
    );
  return failCheck(
    'plan_config',
    `the plan was made for other requirements than ${modelName}'s config states: ${differences.join('; ')}`,
    `re-plan from the config as it is, without overriding flags: ${replan}; or, if the config is what changed, commit the config the plan was made for`,
  );
}

/** Release only: a plan whose measurements disagreed on the configuration is no proof of either. */
export function configMismatchCheck(plan: PlanArtifact, measure: string): ConfigCheck {
  if (!plan.inputs.config_mismatch_allowed)
    return passCheck('config_mismatch', 'the plan was made without --allow-config-mismatch');
  const what =
    plan.inputs.mismatch_warnings.join('; ') || 'its measurements were of different configurations';
  return failCheck(
    'config_mismatch',
    `the plan was made with --allow-config-mismatch (${what}): its Q_max and T_total do not describe one endpoint, so a release does not take it (a calibration deploy still does)`,
    `measure qmax and ttotal on the same image, instance type, environment and region, then re-plan without --allow-config-mismatch: ${measure}`,
  );
}
