/**
 * The plan's policy choice as text: the candidate per tracked metric side by side, the seed's
 * closed-loop rule as a labelled comparison row, and the reason in one sentence. One set of rows,
 * rendered for the terminal and as Markdown (PR comment, job summary), with every figure's
 * provenance.
 */
import type { PlanArtifact, PolicyCandidate, ScalingMetric, SeedRule } from '../model/index.js';
import { escapeMarkdown, markdownTable } from './escape-md.js';

const pct = (value: number): string => `${(value * 100).toFixed(1)} %`;
const num = (value: number, digits = 2): string => value.toFixed(digits);

/** The tracked metric with its statistic and period, as every output names it. */
export const METRIC_UNITS: Record<ScalingMetric, string> = {
  ConcurrentRequestsPerModel: 'ConcurrentRequestsPerModel, Maximum per 10 s',
  InvocationsPerInstance: 'InvocationsPerInstance, Sum per 60 s (invocations per minute per instance)',
};

/** The scale-in alarm's statistic: every plan scales in on 60 s periods, 15 in a row. */
export const SCALE_IN_UNITS: Record<ScalingMetric, string> = {
  ConcurrentRequestsPerModel: 'ConcurrentRequestsPerModel, Maximum per 60 s, 15 minutes in a row',
  InvocationsPerInstance: 'InvocationsPerInstance, Sum per 60 s, 15 minutes in a row',
};

/** Units of a deployed target: the plan's metric (older plans: ConcurrentRequestsPerModel). */
export const targetUnits = (plan: Pick<PlanArtifact, 'deployable'>): string =>
  METRIC_UNITS[plan.deployable.scaling_metric];

export const POLICY_HEADER = [
  'policy',
  'target (tracked metric)',
  'T_plan',
  'per-instance rate',
  'overflow within T_plan (surge / none)',
  'instances at peak',
  'cost at peak',
  'holds',
] as const;

function candidateRow(c: PolicyCandidate, chosen: boolean, tolerance: number): string[] {
  return [
    `${chosen ? 'chosen: ' : ''}${c.metric}`,
    `${c.target_value} (${c.statistic} per ${c.period_s} s; ${c.target.origin})`,
    `${num(c.t_plan_s, 1)} s (lag ${num(c.policy_lag_s, 0)} s ${c.policy_lag_origin})`,
    `lambda_safe ${num(c.lambda_safe_rps)} requests/s, ${pct(c.throughput_share)} of throughput (computed)`,
    `${pct(c.surge_overflow_probability)} / ${pct(c.baseline_overflow_probability)} (computed)`,
    `${c.peak_instances}`,
    c.cost_per_hour_usd === null ? 'no price' : `$${num(c.cost_per_hour_usd)}/h`,
    c.holds ? `yes (<= ${pct(tolerance)})` : `no (> ${pct(tolerance)})`,
  ];
}

function seedRow(seed: SeedRule, tPlanS: number, tolerance: number): string[] {
  return [
    'closed-loop rule (seed)',
    seed.target_value === null
      ? `C_scale_max ${num(seed.c_scale_max, 1)} in flight (no R: not deployable)`
      : `${seed.target_value} (closed-loop concurrency (1 - h) Q_max x R)`,
    `${num(tPlanS, 1)} s`,
    `${num(seed.rate_rps)} requests/s, ${pct(seed.throughput_share)} of throughput (measured at C_scale_max)`,
    `${pct(seed.surge_overflow_probability)} / ${pct(seed.baseline_overflow_probability)} (computed)`,
    `${seed.peak_instances}`,
    seed.cost_per_hour_usd === null ? 'no price' : `$${num(seed.cost_per_hour_usd)}/h`,
    seed.holds ? `yes (<= ${pct(tolerance)})` : `no (> ${pct(tolerance)})`,
  ];
}

/** The rows of the comparison: candidates (chosen first), then the seed's rule. */
export function policyRows(plan: PlanArtifact): string[][] | null {
  const policy = plan.policy;
  if (!policy) return null;
  const chosen = policy.candidates.find((c) => c.metric === policy.chosen_metric);
  const others = policy.candidates.filter((c) => c !== chosen);
  const concurrency = policy.candidates.find((c) => c.metric === 'ConcurrentRequestsPerModel');
  const seedTPlan = concurrency?.t_plan_s ?? plan.derived.t_plan_s;
  const tolerance = policy.max_overflow_probability;
  return [
    ...(chosen ? [candidateRow(chosen, true, tolerance)] : []),
    ...others.map((c) => candidateRow(c, false, tolerance)),
    seedRow(policy.seed_rule, seedTPlan, tolerance),
  ];
}

/** Which rule the deployable values follow, in one line. */
export function deployedRuleLine(plan: PlanArtifact): string | null {
  const policy = plan.policy;
  if (!policy) return null;
  if (plan.chosen.policy_rule === 'seed') {
    return `deployed: the closed-loop rule (seed), asked for with --policy-rule seed${policy.seed_rule.holds ? '' : ' — it does not hold the SLO (verdict stop)'}`;
  }
  const by = policy.chosen_by;
  if (by) {
    const x = plan.deployable;
    return `deployed: ${x.scaling_metric} target ${x.scaling_target_value} (${by.label}: the tune's chosen candidate, ${by.tune_file}, tune run ${by.tune_run_id}, trace ${by.trace_source}; computed by simulation, not measured)`;
  }
  return `deployed: ${policy.chosen_metric} — ${policy.reason}`;
}

/** The scheduled actions and step scale-out a tuned plan deploys, one `[name, value]` line each (none: empty). */
export function scalingActionLines(plan: PlanArtifact): Array<[string, string]> {
  const x = plan.deployable;
  const lines: Array<[string, string]> = (x.scheduled_actions ?? []).map((a) => [
    `scheduled action ${a.name}`,
    `${a.schedule} UTC: min ${a.min_capacity}, max ${a.max_capacity} instances`,
  ]);
  const step = x.step_scale_out;
  if (step) {
    const steps = step.steps
      .map(
        (s) =>
          `+${s.lower_bound}${s.upper_bound === null ? ' and above' : ` to +${s.upper_bound}`}: +${s.adjustment}${step.adjustment_type === 'PercentChangeInCapacity' ? ' %' : ''}`,
      )
      .join('; ');
    lines.push([
      'step scale-out',
      `above ${step.threshold} (${x.scaling_metric}, ${step.evaluation_periods} x ${step.period_s} s): ${steps} (${step.adjustment_type}, cooldown ${step.cooldown_s} s)`,
    ]);
  }
  return lines;
}

/** The terminal section: the reason, then one block per row. */
export function renderPolicyText(plan: PlanArtifact): string[] {
  const rows = policyRows(plan);
  if (!rows) return [];
  const lines = ['policy', `  ${deployedRuleLine(plan)}`];
  const labels = POLICY_HEADER.slice(1);
  const width = Math.max(...labels.map((l) => l.length));
  for (const row of rows) {
    lines.push(`  ${row[0]}`);
    labels.forEach((label, i) => {
      lines.push(`    ${label.padEnd(width)}  ${row[i + 1]}`);
    });
  }
  return lines;
}

/** The Markdown section (PR comment, job summary): the reason, the comparison table. */
export function policySection(plan: PlanArtifact): string[] {
  const rows = policyRows(plan);
  if (!rows) return [];
  return [
    '### Policy',
    '',
    escapeMarkdown(deployedRuleLine(plan) ?? '', { lineStart: true }),
    '',
    ...scalingActionMarkdown(plan),
    markdownTable(
      POLICY_HEADER.map((h) => escapeMarkdown(h)),
      rows.map((row) => row.map((cell) => escapeMarkdown(cell))),
    ),
    ...sensitivityMarkdown(plan),
  ];
}

/** A tuned plan's scheduled actions and step scale-out as a list (none: nothing). */
function scalingActionMarkdown(plan: PlanArtifact): string[] {
  const lines = scalingActionLines(plan);
  if (lines.length === 0) return [];
  return [...lines.map(([name, value]) => `- ${escapeMarkdown(name)}: ${escapeMarkdown(value)}`), ''];
}

/** The deployed policy's surge probability with its sensitivity band, as a Markdown table. */
function sensitivityMarkdown(plan: PlanArtifact): string[] {
  const lines = sensitivityLines(plan);
  if (lines.length === 0) return [];
  return [
    '',
    markdownTable(
      [escapeMarkdown('surge overflow within T_plan'), 'probability'],
      lines.map(([label, value]) => [escapeMarkdown(label), escapeMarkdown(value)]),
    ),
  ];
}

const SENSITIVITY_LABEL: Record<
  NonNullable<PlanArtifact['derived']['surge_sensitivity']>['items'][number]['vary'],
  string
> = {
  throughput_low: 'throughput at its lower bound',
  q_max_low: 'Q_max minus its resolution',
  t_plan_high: 'T_plan at its upper bound',
  all: 'all together',
};

/**
 * The surge overflow probability's sensitivity band (computed): the band, then one line per input
 * moved to its unfavourable bound. Empty for plans without one (older plans, the seed's rule).
 */
export function sensitivityLines(plan: PlanArtifact): Array<[string, string]> {
  const band = plan.derived.surge_sensitivity;
  if (!band) return [];
  const p = (v: number | null, exact: boolean) =>
    v === null ? 'n/a' : `${exact ? '' : 'at most '}${pct(v)}`;
  return [
    [
      'sensitivity band (computed)',
      `${pct(band.low)} to ${pct(band.high)} at ${num(band.rate_rps)} requests/s per instance (${band.method})`,
    ],
    ...band.items.map((i): [string, string] => [
      SENSITIVITY_LABEL[i.vary],
      i.probability === null ? i.used : `${p(i.probability, i.exact)}: ${i.used}`,
    ]),
  ];
}
