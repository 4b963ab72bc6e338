/**
 * What a scaling policy does when one of its alarms invokes it: the scale-out and scale-in
 * decisions against the target's activity history, cooldowns and suspension flags.
 *
 * AWS behaviour relied on (Application Auto Scaling User Guide, cooldowns of target tracking and
 * step scaling):
 * - Cooldowns run from the end of the scaling activity. During a scale-out cooldown the capacity
 *   that activity added counts as already there: the result is computed from the capacity before
 *   it, and only a larger result adds (the difference).
 * - Scale-in waits while any activity of the target is pending or in progress, and during a
 *   scale-in cooldown, unless a later scale-out cut that cooldown short.
 * - DynamicScalingOutSuspended / DynamicScalingInSuspended stop the respective direction;
 *   MaxCapacity bounds a scale-out, MinCapacity a scale-in.
 */
import type { AlarmState, Comparison, Evaluation } from './alarm-evaluation.js';
import { type StepRules, stepDesired } from './step-scaling.js';
import { latestEvaluatedValue, trackingScaleIn, trackingScaleOut } from './target-tracking.js';

/** out/in: a policy's; range: a registration moved min/max past desired; scheduled: a scheduled action. */
export type ActivityDirection = 'out' | 'in' | 'range' | 'scheduled';
export type ActivityStatus = 'Pending' | 'InProgress' | 'Successful' | 'Failed';

/** One scaling activity of the target, as far as the decisions read it. */
export interface ActivityRecord {
  direction: ActivityDirection;
  status: ActivityStatus;
  startMs: number;
  /** Undefined while it runs. */
  endMs: number | undefined;
  /** For scale-outs: the capacity before the scale-out that opened the current cooldown. */
  cooldownBase: number;
}

export interface ScaleOutRequest {
  /** The target's activities, newest first. */
  history: readonly ActivityRecord[];
  nowMs: number;
  cooldownS: number;
  /** The desired count now. */
  current: number;
  maxCapacity: number;
  suspended: boolean;
  /** The capacity the policy asks for from a base capacity. */
  compute: (base: number) => number;
}

/** A scale-out to `desired` (cooldownBase: `base`), or undefined when nothing is added. */
export function scaleOutDecision(r: ScaleOutRequest): { desired: number; base: number } | undefined {
  if (r.suspended) return undefined;
  const last = r.history.find((a) => a.direction === 'out' && a.status !== 'Failed');
  const inCooldown =
    last !== undefined && (last.endMs === undefined || r.nowMs < last.endMs + r.cooldownS * 1000);
  const base = inCooldown ? (last as ActivityRecord).cooldownBase : r.current;
  const desired = Math.min(r.maxCapacity, r.compute(base));
  if (desired <= r.current) return undefined;
  return { desired, base };
}

export interface ScaleInRequest {
  /** The target's activities, newest first. */
  history: readonly ActivityRecord[];
  nowMs: number;
  cooldownS: number;
  current: number;
  minCapacity: number;
  suspended: boolean;
  /** The capacity the policy asks for. */
  proposed: number;
}

/** The desired count of a scale-in, or undefined when it waits or removes nothing. */
export function scaleInDecision(r: ScaleInRequest): number | undefined {
  if (r.suspended) return undefined;
  if (r.history.some((a) => a.status === 'Pending' || a.status === 'InProgress')) return undefined;
  const lastIn = r.history.find((a) => a.direction === 'in' && a.status !== 'Failed');
  const lastOut = r.history.find((a) => a.direction === 'out' && a.status !== 'Failed');
  const cutShort = lastIn !== undefined && lastOut !== undefined && lastOut.startMs >= lastIn.startMs;
  if (lastIn && !cutShort && r.nowMs < (lastIn.endMs ?? r.nowMs) + r.cooldownS * 1000) return undefined;
  const desired = Math.max(r.minCapacity, r.proposed);
  if (desired >= r.current) return undefined;
  return desired;
}

/** A policy's rules, as configured. */
export type PolicyRules =
  | {
      kind: 'tracking';
      targetValue: number;
      scaleOutCooldownS: number;
      scaleInCooldownS: number;
      disableScaleIn: boolean;
    }
  | { kind: 'step'; rules: StepRules; cooldownS: number };

/** The alarm that invoked the policy: which one, its state, and the evaluation behind it. */
export interface PolicyTrigger {
  /** For target tracking: its AlarmHigh or AlarmLow. A step policy's alarm: 'step'. */
  role: 'high' | 'low' | 'step';
  state: AlarmState;
  threshold: number;
  comparison: Comparison;
  /** Undefined when the state was set by SetAlarmState. */
  evaluation: Evaluation | undefined;
}

/** The scalable target at the moment of the decision. */
export interface TargetState {
  current: number;
  minCapacity: number;
  maxCapacity: number;
  scaleOutSuspended: boolean;
  scaleInSuspended: boolean;
  /** Its activities, newest first. */
  history: readonly ActivityRecord[];
}

export interface PolicyDecision {
  direction: 'out' | 'in';
  desired: number;
  /** Recorded on the activity (ActivityRecord.cooldownBase). */
  cooldownBase: number;
}

/** What a policy does when its alarm invokes it; undefined: nothing. */
export function policyDecision(
  policy: PolicyRules,
  trigger: PolicyTrigger,
  target: TargetState,
  nowMs: number,
): PolicyDecision | undefined {
  const { current } = target;
  const out = (cooldownS: number, compute: (base: number) => number): PolicyDecision | undefined => {
    const d = scaleOutDecision({
      history: target.history,
      nowMs,
      cooldownS,
      current,
      maxCapacity: target.maxCapacity,
      suspended: target.scaleOutSuspended,
      compute,
    });
    return d && { direction: 'out', desired: d.desired, cooldownBase: d.base };
  };
  const scaleIn = (cooldownS: number, proposed: number): PolicyDecision | undefined => {
    const desired = scaleInDecision({
      history: target.history,
      nowMs,
      cooldownS,
      current,
      minCapacity: target.minCapacity,
      suspended: target.scaleInSuspended,
      proposed,
    });
    return desired === undefined ? undefined : { direction: 'in', desired, cooldownBase: desired };
  };

  if (policy.kind === 'tracking') {
    if (trigger.state !== 'ALARM') return undefined;
    const metric = latestEvaluatedValue(trigger.evaluation);
    if (trigger.role === 'high') {
      return out(policy.scaleOutCooldownS, (base) => trackingScaleOut(base, metric, policy.targetValue));
    }
    if (trigger.role === 'low' && !policy.disableScaleIn) {
      return scaleIn(policy.scaleInCooldownS, trackingScaleIn(current, metric, policy.targetValue));
    }
    return undefined;
  }

  const adjust = (base: number) => stepDesired(policy.rules, trigger, trigger.evaluation, base);
  const proposed = adjust(current);
  if (proposed === undefined || proposed === current) return undefined;
  if (proposed > current) return out(policy.cooldownS, (base) => adjust(base) ?? base);
  return scaleIn(policy.cooldownS, proposed);
}
