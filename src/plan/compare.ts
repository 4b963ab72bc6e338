/**
 * `scalegate compare`, the pure part: one candidate plan's figures (Q_max, lambda_safe, instances
 * and $/h at peak, $ per 1M characters at the target and at the surge-safe load, the SLO margin),
 * whether it holds both SLOs, the Pareto frontier of cost vs margin, and the choice: the cheapest
 * per 1M characters at the surge-safe load (where the deployed fleet runs) among those that hold,
 * whose quota holds their peak, and that the config declares. No I/O.
 */
import type { CompareCandidate, CompareQuota, PlanArtifact } from '../model/index.js';

export interface CandidatePlan {
  file: string;
  plan: PlanArtifact;
  /** The config's candidate the plan's fingerprint matches (0: the model's own type), or null. */
  index: number | null;
  quota: CompareQuota;
}

/**
 * What candidates are ranked and charted by: $ per 1M characters at the surge-safe load. The
 * deployed policy runs each instance at lambda_safe, not at the target's throughput, and how far
 * below it that is depends on the candidate (its T_total, its Q_max): the cost at the target is
 * what the hardware could do, the surge-safe cost what the fleet will pay.
 */
export const rankingCost = (c: CompareCandidate): number | null =>
  c.usd_per_million_characters_surge_safe.value;

/** The chosen policy's candidate row of the plan (absent in older plans). */
function chosenPolicy(plan: PlanArtifact) {
  const policy = plan.policy;
  if (!policy) return null;
  return policy.candidates.find((c) => c.metric === policy.chosen_metric) ?? null;
}

/** The SLO margin and how it was computed (docs/commands.md, compare). */
export function sloMargin(plan: PlanArtifact): { value: number | null; method: string } {
  const lambdaSafe = plan.derived.lambda_safe_rps ?? null;
  if (lambdaSafe === null) {
    return { value: null, method: 'not available: the plan records no surge-safe rate (lambda_safe)' };
  }
  const lambdaMax = plan.measured.lambda_max_rps ?? null;
  if (lambdaMax !== null && lambdaMax > 0) {
    return {
      value: round(1 - lambdaSafe / lambdaMax, 4),
      method: `1 - lambda_safe / lambda_max (${round(lambdaSafe, 3)} / ${round(lambdaMax, 3)} requests/s per instance; lambda_max ${plan.measured.lambda_max_bracketed === false ? 'a lower bound, so the margin is too' : 'measured by goodput'})`,
    };
  }
  const share = chosenPolicy(plan)?.throughput_share ?? null;
  if (share !== null && share > 0) {
    const capacity = lambdaSafe / share;
    return {
      value: round(1 - share, 4),
      method: `1 - lambda_safe / the highest throughput the qmax ladder measured inside the SLO (${round(lambdaSafe, 3)} / ${round(capacity, 3)} requests/s per instance; no goodput lambda_max in the plan)`,
    };
  }
  return { value: null, method: 'not available: the plan records neither lambda_max nor a throughput share' };
}

function round(n: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Both SLOs' side of a plan: its policy, its continuity, its verdict. */
export function sloVerdict(plan: PlanArtifact): {
  policyHolds: boolean;
  continuity: CompareCandidate['continuity'];
  reasons: string[];
} {
  const reasons: string[] = [];
  const policy = chosenPolicy(plan);
  const p = plan.derived.surge_overflow_probability;
  const policyHolds = policy ? policy.holds : p !== null && p <= plan.chosen.max_overflow_probability;
  if (plan.verdict === 'stop') {
    const stops = plan.findings.filter((f) => f.verdict === 'stop').map((f) => f.name);
    reasons.push(`the plan's verdict is stop (${stops.join(', ') || 'no finding named'})`);
  }
  if (!policyHolds) {
    reasons.push(
      `the policy does not hold: its surge overflow probability ${p === null ? 'is not computed' : `${round(p, 4)}`} against the allowed ${plan.chosen.max_overflow_probability}`,
    );
  }
  const continuityStops = plan.findings.filter((f) => /continuity/i.test(f.name) && f.verdict === 'stop');
  const continuity: CompareCandidate['continuity'] =
    continuityStops.length > 0 ? 'failed' : plan.continuity ? 'ok' : 'not judged';
  if (continuity === 'failed') {
    reasons.push(`playback continuity failed (${continuityStops.map((f) => f.name).join(', ')})`);
  }
  return { policyHolds, continuity, reasons };
}

/** Every figure of one candidate, before ranking. */
export function candidateFigures(c: CandidatePlan): CompareCandidate {
  const { plan } = c;
  const cost = plan.cost ?? null;
  const at = (which: 'target' | 'surge_safe') =>
    cost?.points.find((point) => point.at === which)?.usd_per_million_characters ?? null;
  const peak = plan.derived.peak_instances;
  const hourly = cost?.price?.hourly_usd ?? plan.chosen.instance_hourly_usd ?? null;
  const margin = sloMargin(plan);
  const slo = sloVerdict(plan);
  const holds = plan.verdict !== 'stop' && slo.policyHolds && slo.continuity !== 'failed';
  const reasons = [...slo.reasons];
  if (c.quota.holds === false) {
    reasons.push(
      `the quota "${c.quota.quota_name}" (${c.quota.quota_value} instances, ${c.quota.instances_elsewhere ?? 0} in use on other endpoints) cannot hold its peak of ${peak}`,
    );
  }
  const target = at('target');
  const surgeSafe = at('surge_safe');
  if (surgeSafe === null) {
    reasons.push(`no cost per 1M characters at the surge-safe load${cost?.note ? ` (${cost.note})` : ''}`);
  }
  if (c.index === null) {
    reasons.push(
      `its fingerprint (${plan.fingerprint.instance_type}) matches neither the model's instance_type nor any of its candidates[]`,
    );
  }
  const lambdaMax = plan.measured.lambda_max_rps ?? null;
  return {
    label: c.index === null ? 'unlisted' : `candidate ${c.index}`,
    index: c.index,
    file: c.file,
    run_id: plan.run_id,
    fingerprint: plan.fingerprint,
    instance_type: plan.fingerprint.instance_type,
    plan_verdict: plan.verdict,
    // Without a measured breach above it, Q_max is only a lower bound (the plan says so too).
    q_max: { value: plan.measured.q_max, origin: plan.measured.q_max_bracketed ? 'measured' : 'lower bound' },
    lambda_safe_rps: { value: plan.derived.lambda_safe_rps ?? null, origin: 'computed' },
    lambda_max_rps: {
      value: lambdaMax,
      origin: plan.measured.lambda_max_bracketed === false ? 'lower bound' : 'measured',
    },
    peak_instances: { value: peak, origin: 'computed' },
    usd_per_hour_at_peak: { value: hourly === null ? null : round(hourly * peak, 4), origin: 'computed' },
    usd_per_million_characters_target: { value: target, origin: 'computed' },
    usd_per_million_characters_surge_safe: { value: surgeSafe, origin: 'computed' },
    price: cost?.price ?? null,
    slo_margin: { value: margin.value, origin: 'computed' },
    slo_margin_method: margin.method,
    policy_holds: slo.policyHolds,
    continuity: slo.continuity,
    holds,
    quota: c.quota,
    choosable: holds && c.quota.holds !== false && surgeSafe !== null && c.index !== null,
    pareto: false,
    rank: null,
    reasons,
  };
}

/**
 * The frontier among those that hold: a candidate is on it when no other holding candidate is at
 * most as expensive per 1M characters at the surge-safe load and at least as far from the SLO, and
 * strictly better on one of the two.
 */
export function withFrontier(candidates: CompareCandidate[]): CompareCandidate[] {
  const scored = candidates.filter((c) => c.holds && rankingCost(c) !== null && c.slo_margin.value !== null);
  const cost = (c: CompareCandidate) => rankingCost(c) as number;
  const margin = (c: CompareCandidate) => c.slo_margin.value as number;
  return candidates.map((c) => {
    if (!scored.includes(c)) return { ...c, pareto: false };
    const dominated = scored.some(
      (o) =>
        o !== c &&
        cost(o) <= cost(c) &&
        margin(o) >= margin(c) &&
        (cost(o) < cost(c) || margin(o) > margin(c)),
    );
    return { ...c, pareto: !dominated };
  });
}

/** Ranks the choosable by cost per 1M characters at the surge-safe load (ties: the larger margin, then the config's order). */
export function rankCandidates(candidates: CompareCandidate[]): {
  candidates: CompareCandidate[];
  chosen: CompareCandidate | null;
} {
  const framed = withFrontier(candidates);
  const order = framed
    .filter((c) => c.choosable)
    .sort(
      (a, b) =>
        (rankingCost(a) as number) - (rankingCost(b) as number) ||
        (b.slo_margin.value ?? -1) - (a.slo_margin.value ?? -1) ||
        (a.index ?? 99) - (b.index ?? 99),
    );
  const ranked = framed.map((c) => {
    const at = order.indexOf(c);
    return at < 0 ? c : { ...c, rank: at + 1 };
  });
  const first = order[0];
  return { candidates: ranked, chosen: first ? (ranked[framed.indexOf(first)] ?? null) : null };
}
