/**
 * The drill of an inference-component (IC) endpoint, pure: what the plan's component block
 * promises (the copy target, T_plan of the path a new copy takes) and the judgement of the
 * from-zero phase. No I/O.
 *
 * The copy count is what scales: the prediction's scaling target is the copy target in
 * ConcurrentRequestsPerCopy units, the steady load is lambda_safe per copy x the start copies, and
 * T_plan is the cold path's (a copy that needs a new instance: with one copy per instance every
 * new copy does; with more it is the longer path, so the promise is not overstated).
 *
 * The from-zero phase holds when the wake (first request to first success, measured with the
 * plan's client retry budget applied) took no longer than the model's wake_tolerance_s and no
 * client request failed once its every retry had: failures the retries absorbed are counted
 * apart (the no-capacity failures the endpoint returned) but are not failures of a client.
 */

import type { IcPathMeasurement } from '../model/artifacts/ttotal.js';
import type { DrillFromZero, DrillPrediction, InferenceComponentPlan, PlanArtifact } from '../model/index.js';
import { opt, usage } from '../model/index.js';
import { drillPrediction } from './drill-phases.js';

/** The drill's prediction for a plan with a component block: copies scale, on the copy target. */
export function icDrillPrediction(
  plan: PlanArtifact & { inference_component: InferenceComponentPlan },
  planFile: string,
): DrillPrediction {
  const base = drillPrediction(plan, planFile);
  const ic = plan.inference_component;
  const perCopy = ic.copy_target.lambda_safe_per_copy_rps;
  return {
    ...base,
    scaling_target_value: ic.copy_target.value,
    t_plan_s: ic.paths.cold.t_plan_s,
    scale_in_cooldown_s: ic.copy_target.scale_in_cooldown_s,
    ...(perCopy !== null && perCopy > 0 ? { lambda_safe_rps: perCopy } : {}),
  };
}

/** The copies a drill starts from: --start-copies, else the plan's fewest (at least one: the steady load needs a copy). */
export function icStartCopies(
  ic: InferenceComponentPlan,
  startCopies: number | undefined,
  planFile: string,
): number {
  const copies = startCopies ?? Math.max(1, ic.copies.min);
  if (copies < 1 || copies < ic.copies.min || copies > ic.copies.max) {
    throw usage`${opt('start-copies', copies)}: outside the plan's ${Math.max(1, ic.copies.min)}..${ic.copies.max} copies of ${ic.component_name} (${planFile}); the copy policy would move it at once. Give a count in that range.`;
  }
  return copies;
}

export interface FromZeroPlan {
  wakeToleranceS: number;
  attempts: number;
  backoffS: number;
  coversS: number;
  plannedWakeS: number;
  plannedWakeOrigin: string;
  maxWaitS: number;
}

const round3 = (x: number): number => Math.round(x * 1000) / 1000;

/** What the from-zero phase is judged against, from the plan (refused when it has no wake rule). */
export function fromZeroPlan(ic: InferenceComponentPlan, planFile: string): FromZeroPlan {
  const zero = ic.scale_to_zero;
  const path = ic.paths.zero;
  if (zero === null || path === null) {
    throw usage`${opt('from-zero')}: the plan's component ${ic.component_name} has min copies ${ic.copies.min}, so no wake rule is deployed and nothing would wake it (${planFile}). Plan the model with inference_component.min_copies 0 (and instance_bounds.min 0), apply it, then drill from zero.`;
  }
  // Long enough to see a wake the plan did not promise: twice the longest of what it states.
  const stated = Math.max(zero.wake_tolerance_s, zero.retry.covers_s, path.t_plan_s);
  return {
    wakeToleranceS: zero.wake_tolerance_s,
    attempts: zero.retry.attempts,
    backoffS: zero.retry.backoff_s,
    coversS: zero.retry.covers_s,
    plannedWakeS: path.t_plan_s,
    plannedWakeOrigin: path.origin,
    maxWaitS: Math.min(3600, Math.max(30, 2 * stated)),
  };
}

/** Judges a measured wake (null: no success within maxWaitS) against the plan. */
export function judgeFromZero(
  plan: FromZeroPlan,
  wake: IcPathMeasurement | null,
  timeline: DrillFromZero['timeline'],
): DrillFromZero {
  const reasons: string[] = [];
  const wakeS = wake?.wake_s ?? null;
  const withinTolerance = wakeS !== null && wakeS <= plan.wakeToleranceS;
  const visible = wake?.retry?.client_visible_failures ?? null;
  const withinBudget = wake !== null && visible === 0;
  if (wake === null || wakeS === null) {
    reasons.push(
      `no request succeeded within ${plan.maxWaitS} s of the first: the component did not wake (is the wake rule deployed?)`,
    );
  } else {
    reasons.push(
      withinTolerance
        ? `the wake took ${wakeS} s (measured), within the stated wake tolerance ${plan.wakeToleranceS} s`
        : `the wake took ${wakeS} s (measured), more than the stated wake tolerance ${plan.wakeToleranceS} s`,
    );
    const retries = wake.retry?.retries ?? 0;
    reasons.push(
      withinBudget
        ? `no client request failed: the retry budget ${plan.attempts} x ${plan.backoffS} s (covers ${plan.coversS} s) absorbed the ${wake.no_capacity_failures} no-capacity failure(s) in ${retries} retries`
        : `${visible ?? 'every'} client request(s) failed after ${plan.attempts} retries x ${plan.backoffS} s (covers ${plan.coversS} s): the budget does not cover a ${wakeS} s wake; the plan would need at least ${Math.ceil(wakeS / Math.max(plan.backoffS, 1e-9))} attempts at that backoff`,
    );
    if (wake.other_failures > 0)
      reasons.push(
        `${wake.other_failures} request(s) failed otherwise than with no capacity during the wake`,
      );
  }
  return {
    wake,
    timeline,
    max_wait_s: plan.maxWaitS,
    wake_tolerance_s: plan.wakeToleranceS,
    retry_budget: { attempts: plan.attempts, backoff_s: plan.backoffS, covers_s: round3(plan.coversS) },
    planned_wake_s: plan.plannedWakeS,
    planned_wake_origin: plan.plannedWakeOrigin,
    within_tolerance: withinTolerance,
    within_retry_budget: withinBudget,
    held: withinTolerance && withinBudget && (wake?.other_failures ?? 0) === 0,
    reasons,
  };
}
