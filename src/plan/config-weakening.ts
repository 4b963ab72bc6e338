/**
 * The changes to a model's config entry that weaken what the release gate holds a plan to, from
 * the base branch's entry to the pull request's: a pull request can change the requirement and
 * the plan together, and the gate then checks the plan against the weaker requirement. Each one is
 * called out in the PR comment (src/report/markdown-sections.ts) for a reviewer to see. Pure.
 */
import type { ModelConfig } from '../model/index.js';
import { configLoad } from './gate-config.js';

export interface ConfigWeakening {
  /** The config field, as written in scalegate.config.json. */
  field: string;
  from: string;
  to: string;
  /** Why this weakens the gate, in one clause. */
  why: string;
}

const text = (v: unknown): string => (v === undefined || v === null ? 'unset' : String(v));

/**
 * What the pull request's entry weakens against the base branch's (empty when nothing does, or
 * when the model is new: there is nothing to weaken).
 */
export function configWeakenings(base: ModelConfig | null, head: ModelConfig | null): ConfigWeakening[] {
  if (base === null || head === null) return [];
  const out: ConfigWeakening[] = [];
  const push = (field: string, from: unknown, to: unknown, why: string) =>
    out.push({ field, from: text(from), to: text(to), why });
  if (base.require_drill && !head.require_drill)
    push('require_drill', true, head.require_drill, 'a release no longer needs a drill whose SLO held');
  if (head.slo_ms > base.slo_ms)
    push('slo_ms', base.slo_ms, head.slo_ms, 'a slower answer counts as within the SLO');
  if (head.surge_ratio < base.surge_ratio)
    push('surge_ratio', base.surge_ratio, head.surge_ratio, 'the policy is sized for a smaller surge');
  if (head.min_instances_floor < base.min_instances_floor)
    push(
      'min_instances_floor',
      base.min_instances_floor,
      head.min_instances_floor,
      'fewer instances stay up at the trough',
    );
  if (head.max_overflow_probability > base.max_overflow_probability)
    push(
      'max_overflow_probability',
      base.max_overflow_probability,
      head.max_overflow_probability,
      'the policy may overflow (503) more often within T_plan',
    );
  for (const which of ['peak', 'trough'] as const) {
    const before = configLoad(base, which);
    const after = configLoad(head, which);
    if (before === null || after === null) continue;
    if (before.unit !== after.unit)
      push(
        `${which}_${after.unit}`,
        `${before.value} ${before.unit}`,
        `${after.value} ${after.unit}`,
        `the ${which} load is stated in another unit: compare the fleet sizes in the plan`,
      );
    else if (after.value < before.value)
      push(
        `${which}_${after.unit}`,
        before.value,
        after.value,
        which === 'peak'
          ? 'the fleet may scale to fewer instances'
          : 'fewer instances are kept for the trough',
      );
  }
  if (head.invocation_ceiling_s > base.invocation_ceiling_s)
    push(
      'invocation_ceiling_s',
      base.invocation_ceiling_s,
      head.invocation_ceiling_s,
      'a longer invocation is judged acceptable',
    );
  if (
    base.instance_quota !== undefined &&
    (head.instance_quota ?? Number.POSITIVE_INFINITY) > base.instance_quota
  )
    push(
      'instance_quota',
      base.instance_quota,
      head.instance_quota,
      'the plan is checked against a larger quota than before',
    );
  return out;
}
