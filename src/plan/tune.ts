/**
 * `scalegate tune`'s pure side: the candidate policies a plan is tuned among, the Pareto frontier
 * of their scores and the choice. Scoring itself runs the fleet simulator (src/commands/tune-sim.ts).
 *
 * The grid (docs/design.md, "Tuning on a trace"): the plan's own surge-safe policy; targets around
 * it on both tracked metrics (ConcurrentRequestsPerModel: integer levels from the one at
 * 0.6 x lambda_safe up to the one at the device's throughput; InvocationsPerInstance likewise in
 * invocations per minute), each with its scale-in threshold derived as the plan derives it;
 * min_instances {plan's, +1, +2}; scale-in cooldown {plan's, 2x}; with and without a step
 * scale-out (+50 % capacity when the metric exceeds 1.5 x target for one period). Every
 * combination is ranked by how far it lies from the plan's policy (how many of those choices
 * differ, then how far the target moved) and the first `maxCandidates` are kept: deterministic,
 * bounded, and the neighbourhood of the plan first.
 */
import { deriveDeviceProfile } from '../analysis/device-profile.js';
import type {
  PlanArtifact,
  PolicyCandidate,
  QmaxArtifact,
  ScalingMetric,
  StepScaleOut,
  TunedPolicy,
  TuneEntry,
  TuneScore,
} from '../model/index.js';
import { round } from './formulas.js';
import {
  concurrencyLevel,
  METRIC_SPECS,
  poissonQuantile,
  SCALE_IN_PERIOD_S,
  SCALE_IN_QUANTILE,
} from './operating-point.js';

/** The default bound on the grid (`--max-candidates`). */
export const DEFAULT_MAX_CANDIDATES = 40;
/** The default attainment a candidate must reach to be chosen (`--required-attainment`). */
export const DEFAULT_REQUIRED_ATTAINMENT = 0.995;
/** Target levels tried per metric (the plan's own among them). */
export const TARGETS_PER_METRIC = 7;
/** The lowest rate whose level is tried, as a share of lambda_safe. */
export const LOW_RATE_SHARE = 0.6;
/** The step scale-out: +50 % capacity when the metric exceeds 1.5 x target for one period. */
export const STEP_FACTOR = 1.5;
export const STEP_PERCENT = 50;

/** A policy to score, with the label the report prints and how it was formed. */
export interface GridCandidate {
  label: string;
  policy: TunedPolicy;
  note: string;
}

const SHORT: Record<ScalingMetric, string> = {
  ConcurrentRequestsPerModel: 'concurrency',
  InvocationsPerInstance: 'invocations/min',
};

/** A short, unique label: metric, target, scale-in threshold, minimum, scale-in cooldown, step, pre-scaling. */
export function policyLabel(p: TunedPolicy): string {
  const step = p.step_scale_out ? ' +step' : '';
  const pre = p.scheduled_actions.length > 0 ? ` +${p.scheduled_actions.length} scheduled` : '';
  return `${SHORT[p.scaling_metric]} ${p.target_value} (in ${p.scale_in_threshold}), min ${p.min_instances}, in-cooldown ${p.scale_in_cooldown_s} s${step}${pre}`;
}

/** The plan's deployed policy, as a tune candidate. */
export function planPolicy(plan: PlanArtifact): TunedPolicy {
  const d = plan.deployable;
  return {
    scaling_metric: d.scaling_metric,
    target_value: d.scaling_target_value ?? 1,
    scale_in_threshold: d.scale_in_threshold ?? 0,
    scale_out_cooldown_s: d.scale_out_cooldown_s,
    scale_in_cooldown_s: d.scale_in_cooldown_s,
    min_instances: d.min_instances,
    max_instances: d.max_instances,
    step_scale_out: null,
    scheduled_actions: [],
  };
}

/**
 * The seed's closed-loop rule: target (1 - h) Q_max (0.75 Q_max at k = 1.25) on
 * ConcurrentRequestsPerModel, in the metric's units through the ladder's CloudWatch ratio as the
 * plan records it (`policy.seed_rule`), scale-in at (1 - 2h) Q_max the same way; the plan's
 * fleet bounds and cooldowns.
 */
export function seedRulePolicy(plan: PlanArtifact): TunedPolicy {
  const seed = plan.policy?.seed_rule;
  const target = seed?.target_value ?? seed?.c_scale_max ?? plan.derived.c_scale_max;
  const scaleIn = seed?.scale_in_threshold ?? plan.derived.c_scale_min;
  return {
    ...planPolicy(plan),
    scaling_metric: 'ConcurrentRequestsPerModel',
    target_value: Math.max(1, round(target, 3)),
    scale_in_threshold: Math.max(0, round(scaleIn, 3)),
  };
}

/** The step scale-out of a policy: +50 % capacity above 1.5 x target for one period of its metric. */
export function stepScaleOutFor(metric: ScalingMetric, target: number, cooldownS: number): StepScaleOut {
  return {
    threshold: round(STEP_FACTOR * target, 3),
    period_s: METRIC_SPECS[metric].periodS,
    evaluation_periods: 1,
    cooldown_s: cooldownS,
    adjustment_type: 'PercentChangeInCapacity',
    steps: [{ lower_bound: 0, upper_bound: null, adjustment: STEP_PERCENT }],
  };
}

/** `count` values from `low` to `high` evenly, rounded to integers, `keep` among them, ascending, distinct. */
export function spreadTargets(low: number, high: number, keep: number, count: number): number[] {
  const lo = Math.max(1, Math.round(Math.min(low, high)));
  const hi = Math.max(lo, Math.round(Math.max(low, high)));
  const values = new Set<number>([keep]);
  const n = Math.max(1, count - 1);
  for (let i = 0; i < n && values.size < count; i++) {
    values.add(Math.round(lo + ((hi - lo) * i) / Math.max(1, n - 1)));
  }
  return [...values].sort((a, b) => a - b);
}

interface TargetChoice {
  metric: ScalingMetric;
  target: number;
  threshold: number;
  /** Position relative to the metric's own plan target (0: the plan's). */
  distance: number;
  planTarget: boolean;
}

/** The targets tried on one metric, each with its scale-in threshold as the plan derives it. */
function targetsFor(
  candidate: PolicyCandidate,
  qmax: QmaxArtifact,
  queueLimit: number,
  throughputRps: number,
): TargetChoice[] {
  const metric = candidate.metric;
  const lambda = candidate.lambda_safe_rps;
  const planTarget = candidate.target_value;
  const device = deriveDeviceProfile(qmax, 'qmax').profile;
  const sim = {
    lanes: device.lanes,
    serviceMeanS: device.service_mean_ms / 1000,
    serviceSigma: device.service_sigma,
  };
  let low: number;
  let high: number;
  let threshold: (target: number) => number;
  if (metric === 'ConcurrentRequestsPerModel') {
    low = concurrencyLevel(LOW_RATE_SHARE * lambda, sim, queueLimit, []).p50;
    high = Math.min(queueLimit, concurrencyLevel(throughputRps, sim, queueLimit, []).p50);
    // Same ratio as the plan's: its scale-in threshold over its target (both levels of one device).
    const ratio = planTarget > 0 ? candidate.scale_in_threshold / planTarget : 1;
    threshold = (t) => Math.max(1, Math.ceil(round(t * ratio, 9)));
  } else {
    low = SCALE_IN_PERIOD_S * LOW_RATE_SHARE * lambda;
    high = SCALE_IN_PERIOD_S * throughputRps;
    // Same method as the plan's: the 0.5^(1/15) quantile of Poisson counts at the scale-in rate.
    const inShare = lambda > 0 ? candidate.scale_in_rate_rps / lambda : 0;
    threshold = (t) => poissonQuantile(t * inShare, SCALE_IN_QUANTILE);
  }
  const targets = spreadTargets(low, high, planTarget, TARGETS_PER_METRIC);
  const planIndex = targets.indexOf(planTarget);
  return targets.map((target, i) => ({
    metric,
    target,
    threshold: target === planTarget ? candidate.scale_in_threshold : threshold(target),
    distance: Math.abs(i - planIndex),
    planTarget: target === planTarget,
  }));
}

interface Ranked {
  rank: number[];
  candidate: GridCandidate;
}

/**
 * The candidate grid of a plan (deterministic: the same plan and ladder give the same list in the
 * same order). The plan's own policy is first; at most `maxCandidates` entries.
 */
export function candidateGrid(
  plan: PlanArtifact,
  qmax: QmaxArtifact,
  options: { maxCandidates?: number } = {},
): GridCandidate[] {
  const maxCandidates = Math.max(1, Math.floor(options.maxCandidates ?? DEFAULT_MAX_CANDIDATES));
  const base = planPolicy(plan);
  const policy = plan.policy;
  if (!policy) return [{ label: policyLabel(base), policy: base, note: "the plan's own policy" }];
  const queueLimit = Math.max(1, plan.deployable.queue_max_depth);
  const throughputRps = deriveDeviceProfile(qmax, 'qmax').x_plateau_rps;
  const choices = policy.candidates.flatMap((c) => targetsFor(c, qmax, queueLimit, throughputRps));
  const mins = [0, 1, 2];
  const cooldowns = [1, 2];
  const ranked: Ranked[] = [];
  const seen = new Set<string>();
  for (const choice of choices) {
    const otherMetric = choice.metric !== base.scaling_metric;
    const isPlan = !otherMetric && choice.target === base.target_value;
    for (const extraMin of mins) {
      for (const cooldown of cooldowns) {
        for (const step of [false, true]) {
          const minInstances = base.min_instances + extraMin;
          const candidate: TunedPolicy = {
            scaling_metric: choice.metric,
            target_value: choice.target,
            scale_in_threshold: isPlan ? base.scale_in_threshold : choice.threshold,
            scale_out_cooldown_s: base.scale_out_cooldown_s,
            scale_in_cooldown_s: base.scale_in_cooldown_s * cooldown,
            min_instances: minInstances,
            max_instances: Math.max(base.max_instances, minInstances),
            step_scale_out: step
              ? stepScaleOutFor(choice.metric, choice.target, base.scale_out_cooldown_s)
              : null,
            scheduled_actions: [],
          };
          const label = policyLabel(candidate);
          if (seen.has(label)) continue;
          seen.add(label);
          const changed = [otherMetric, !choice.planTarget, extraMin > 0, cooldown > 1, step];
          const changes = changed.filter(Boolean).length;
          const parts = [
            choice.planTarget
              ? null
              : `target ${choice.target} (scale-in ${candidate.scale_in_threshold}, derived as the plan derives it)`,
            extraMin > 0 ? `min_instances +${extraMin}` : null,
            cooldown > 1 ? 'scale-in cooldown doubled' : null,
            step ? `step scale-out +${STEP_PERCENT} % above ${STEP_FACTOR} x target` : null,
          ].filter((p): p is string => p !== null);
          const basis = otherMetric ? `the plan's ${choice.metric} candidate` : "the plan's policy";
          const note =
            parts.length > 0
              ? `${basis} with ${parts.join(', ')}`
              : otherMetric
                ? `${basis} (surge-safe, not the metric the plan chose)`
                : "the plan's own surge-safe policy";
          ranked.push({
            rank: [
              changes,
              choice.distance,
              extraMin,
              cooldown,
              step ? 1 : 0,
              otherMetric ? 1 : 0,
              choice.target,
            ],
            candidate: { label, policy: candidate, note },
          });
        }
      }
    }
  }
  const compare = (a: Ranked, b: Ranked): number => {
    for (let i = 0; i < a.rank.length; i++) {
      const d = (a.rank[i] as number) - (b.rank[i] as number);
      if (d !== 0) return d;
    }
    return 0;
  };
  return ranked
    .sort(compare)
    .slice(0, maxCandidates)
    .map((r) => r.candidate);
}

/**
 * The Pareto frontier over (window attainment up, instance-hours down): an entry is on it unless
 * another is at least as good in both and strictly better in one.
 */
export function paretoFlags(
  scores: readonly Pick<TuneScore, 'slo_attainment' | 'instance_hours'>[],
): boolean[] {
  return scores.map(
    (s, i) =>
      !scores.some(
        (o, j) =>
          j !== i &&
          o.slo_attainment >= s.slo_attainment &&
          o.instance_hours <= s.instance_hours &&
          (o.slo_attainment > s.slo_attainment || o.instance_hours < s.instance_hours),
      ),
  );
}

/** The entries with their frontier flags set (computed among the entries given). */
export function withPareto<E extends Pick<TuneEntry, 'score' | 'pareto'>>(entries: readonly E[]): E[] {
  const flags = paretoFlags(entries.map((e) => e.score));
  return entries.map((e, i) => ({ ...e, pareto: flags[i] as boolean }));
}

export interface TuneChoice<E> {
  chosen: E;
  holds: boolean;
}

/**
 * The choice: the lowest instance-hours among the entries whose window attainment reaches
 * `required` (ties: the higher attainment, then the earlier entry); when none does, the best
 * attainment (ties: the fewer instance-hours, then the earlier entry), with `holds` false.
 */
export function chooseTuned<E extends Pick<TuneEntry, 'score'>>(
  entries: readonly E[],
  required: number,
): TuneChoice<E> {
  if (entries.length === 0) throw new Error('chooseTuned: no entries');
  const indexed = entries.map((e, i) => ({ e, i }));
  const holding = indexed.filter(({ e }) => e.score.slo_attainment >= required);
  if (holding.length > 0) {
    holding.sort(
      (a, b) =>
        a.e.score.instance_hours - b.e.score.instance_hours ||
        b.e.score.slo_attainment - a.e.score.slo_attainment ||
        a.i - b.i,
    );
    return { chosen: (holding[0] as { e: E }).e, holds: true };
  }
  indexed.sort(
    (a, b) =>
      b.e.score.slo_attainment - a.e.score.slo_attainment ||
      a.e.score.instance_hours - b.e.score.instance_hours ||
      a.i - b.i,
  );
  return { chosen: (indexed[0] as { e: E }).e, holds: false };
}

/**
 * The policy-only entries worth pre-scaling: on the frontier, with windows outside the SLO, and
 * (when some entry already holds) cheaper than the chosen one; at most `limit`, best attainment first.
 */
export function prescaleBases<E extends Pick<TuneEntry, 'score' | 'pareto' | 'policy'>>(
  entries: readonly E[],
  chosen: TuneChoice<E>,
  limit: number,
): E[] {
  return entries
    .filter(
      (e) =>
        e.pareto &&
        e.policy !== null &&
        e.policy.scheduled_actions.length === 0 &&
        e.score.windows_outside_slo > 0 &&
        (!chosen.holds || e.score.instance_hours < chosen.chosen.score.instance_hours),
    )
    .sort(
      (a, b) =>
        b.score.slo_attainment - a.score.slo_attainment || a.score.instance_hours - b.score.instance_hours,
    )
    .slice(0, limit);
}
