/** The terminal report of a plan: measured / chosen / derived, findings with fixes, deployables. */

import type { Finding, PlanArtifact } from '../model/index.js';
import { costTextLines } from './cost-text.js';
import { renderDrillComparison } from './drill-markdown.js';
import { inferenceComponentTextLines } from './inference-component-text.js';
import {
  planHoldText,
  planPolicyLagLabel,
  planQmaxProvenance,
  planTtotalLabel,
  tTotalValue,
} from './labels.js';
import {
  renderPolicyText,
  SCALE_IN_UNITS,
  scalingActionLines,
  sensitivityLines,
  targetUnits,
} from './policy-text.js';
import { rttFloorText, vantageLabel } from './vantage-text.js';

const n = (value: number | null | undefined, digits = 3): string =>
  value === null || value === undefined ? 'n/a' : Number(value.toFixed(digits)).toString();

function table(rows: ReadonlyArray<readonly [string, string]>, indent = '  '): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`).join('\n');
}

/** Thresholds read as measurements: always at least one decimal (25.0, not 25). */
const threshold = (value: number): string => (Number.isInteger(value) ? value.toFixed(1) : `${value}`);

const VERDICT_MARK: Record<Finding['verdict'], string> = {
  ok: 'ok  ',
  warn: 'WARN',
  stop: 'STOP',
  suppressed: '--  ',
};

/** `us-east-1 (measured)`, `us-east-1 (config (the legacy artifact records none))`, `not recorded`. */
export function regionText(plan: Pick<PlanArtifact, 'fingerprint' | 'region_source'>): string {
  return plan.fingerprint.region === null
    ? 'not recorded'
    : `${plan.fingerprint.region} (${plan.region_source})`;
}

/** lambda_max with its provenance: measured and bracketed, or only a lower bound. */
export function lambdaMaxText(rps: number, bracketed: boolean): string {
  if (rps === 0) return '0 requests/s (no Poisson rate held the SLO; measured)';
  return `${n(rps, 2)} requests/s per instance (${bracketed ? 'measured, bracketed by a breach' : 'lower bound: not bracketed'})`;
}

export function verdictLine(plan: PlanArtifact): string {
  return plan.verdict === 'warn' ? `warn (${plan.warn_count})` : plan.verdict;
}

/** The surge probability beside its no-surge baseline; "at least" when either is only a lower bound. */
function surgeText(plan: PlanArtifact): string {
  const d = plan.derived;
  if (d.surge_overflow_probability === null) return 'n/a';
  const atLeast =
    d.surge_method === 'uniformization-lower-bound' || plan.measured.t_total_origin === 'lower-bound'
      ? 'at least '
      : '';
  const pct = (p: number) => `${atLeast}${(p * 100).toFixed(1)} %`;
  const baseline =
    d.surge_baseline_overflow_probability == null
      ? ''
      : `; no surge (k = 1): ${pct(d.surge_baseline_overflow_probability)}`;
  const fluid =
    d.surge_fluid_overflow_s === null ? '' : `; fluid: ${n(d.surge_fluid_overflow_s, 1)} s to fill`;
  return `${pct(d.surge_overflow_probability)} with a ${plan.chosen.surge_ratio}x surge${baseline}${fluid}`;
}

/** `; observed 250.1 s, 262.3 s, 258.0 s` for a repeated ttotal. */
const observationsText = (values: readonly number[] | undefined): string =>
  values && values.length > 1 ? ` (observed ${values.map((v) => `${n(v, 1)} s`).join(', ')})` : '';

/** The surge probability's sensitivity band as rows under the surge line. */
const sensitivityRows = (plan: PlanArtifact): Array<readonly [string, string]> =>
  sensitivityLines(plan).map(([label, value], i) => [`${i === 0 ? '  ' : '    '}${label}`, value] as const);

export function renderPlanReport(
  plan: PlanArtifact,
  writtenTo: string | null,
  /** The plan equals the one already there: its run id and time were kept. */
  unchanged = false,
): string {
  const { measured: m, chosen: c, derived: d, deployable: x } = plan;
  const lowerBound = m.t_total_origin === 'lower-bound';
  const lines: string[] = [];
  lines.push(
    `scalegate plan ${plan.model_name}: ${verdictLine(plan)}${lowerBound ? ` (T_total is a LOWER BOUND: ${n(m.t_total_s, 1)} s or more)` : ''}`,
  );
  lines.push(`  qmax   ${plan.inputs.qmax.file} (run ${plan.inputs.qmax.run_id}, ${plan.inputs.qmax.slug})`);
  lines.push(
    plan.inputs.ttotal
      ? `  ttotal ${plan.inputs.ttotal.file} (run ${plan.inputs.ttotal.run_id}, ${plan.inputs.ttotal.slug})`
      : `  ttotal none: T_total stated as ${n(plan.inputs.t_total_stated_s, 1)} s`,
  );
  lines.push(`  region ${regionText(plan)}`);
  if (plan.inputs.drill) {
    lines.push(
      `  drill  ${plan.inputs.drill.file} (run ${plan.inputs.drill.run_id}, ${plan.inputs.drill.slug})`,
    );
  }
  const goodputInput = plan.inputs.goodput;
  if (goodputInput) {
    lines.push(`  goodput ${goodputInput.file} (run ${goodputInput.run_id}, ${goodputInput.slug})`);
  }
  for (const warning of plan.inputs.mismatch_warnings) lines.push(`  WARNING: ${warning}`);
  lines.push('', 'measured');
  lines.push(
    table([
      ['Q_max', `${m.q_max} in flight (${planQmaxProvenance(m)})`],
      ...(m.lambda_max_rps === null || m.lambda_max_rps === undefined
        ? []
        : [
            [
              'lambda_max (open loop)',
              lambdaMaxText(m.lambda_max_rps, m.lambda_max_bracketed ?? false),
            ] as const,
          ]),
      ...(planHoldText(m) === null ? [] : [['rung holds', planHoldText(m) as string] as const]),
      ['S_mean / S_p95', `${n(m.s_mean_s, 4)} s / ${n(m.s_p95_s, 4)} s`],
      ['TTFAB p95 at concurrency 1', `${n(m.ttfab_p95_at_c1_ms, 1)} ms`],
      ['RTT floor (network leg)', rttFloorText(m.vantage)],
      ['vantage', vantageLabel(m.vantage)],
      [
        planTtotalLabel(m),
        `${tTotalValue(m.t_total_origin, `${n(m.t_total_s, 2)} s`)}${observationsText(m.t_total_observations_s)}`,
      ],
      [planPolicyLagLabel(m), `${n(m.policy_lag_s, 1)} s`],
      [
        'CloudWatch/client ratio R',
        m.cw_ratio === null ? 'not measured' : `${m.cw_ratio.toFixed(3)} (rung ${m.cw_ratio_rung})`,
      ],
    ]),
  );
  lines.push('', 'chosen');
  lines.push(
    table([
      ['SLO (p95 TTFAB)', `${c.slo_ms} ms`],
      ['surge ratio k', `${c.surge_ratio}`],
      [
        'peak / trough load',
        `${c.peak.value} / ${c.trough.value} ${c.peak.unit === 'rps' ? 'requests/s' : 'streams'}`,
      ],
      ['minimum fleet floor', `${c.min_instances_floor}`],
      ['invocation ceiling', `${c.invocation_ceiling_s} s`],
    ]),
  );
  lines.push('', 'derived');
  lines.push(
    table([
      [
        'T_plan = T_total + lag',
        lowerBound
          ? `≥ ${n(d.t_plan_s, 2)} s (lower bound: from a LOWER-BOUND T_total)`
          : `${n(d.t_plan_s, 2)} s`,
      ],
      ['C_scale_max = (1-h) Q_max', `${n(d.c_scale_max)} (h = ${n(d.h)})`],
      ['C_scale_min = (1-2h) Q_max', `${n(d.c_scale_min)}`],
      ['W_max = SLO - S_p95', `${n(d.w_max_s)} s`],
      [
        'smallest safe minimum',
        d.min_safe_instances === null ? 'none (degenerate band)' : `${d.min_safe_instances}`,
      ],
      [
        'throughput at target X_target',
        `${n(d.x_target_rps, 2)} requests/s per instance (${d.x_target_origin ?? 'interpolated'} on the measured curve)`,
      ],
      ...(d.lambda_safe_rps == null
        ? []
        : [['per-instance rate lambda_safe', `${n(d.lambda_safe_rps, 2)} requests/s (computed)`] as const]),
      ...(d.open_loop_headroom === null || d.open_loop_headroom === undefined
        ? []
        : [
            [
              'open-loop headroom lambda_max/X_target-1',
              `${(d.open_loop_headroom * 100).toFixed(1)} %${d.open_loop_concurrency_target == null ? '' : ` (X(C) = lambda_max at C = ${n(d.open_loop_concurrency_target, 2)})`}`,
            ] as const,
          ]),
      ['instances at peak / trough', `${d.peak_instances} / ${d.trough_instances}`],
      [
        'naive rps x S_mean / C_scale_max',
        d.naive_peak_instances === null
          ? 'n/a'
          : `${d.naive_peak_instances} (wrong for a serial server; shown for contrast)`,
      ],
      ['surge overflow within T_plan', surgeText(plan)],
      ...sensitivityRows(plan),
    ]),
  );
  if (plan.cost) lines.push('', ...costTextLines(plan.cost));
  if (plan.inference_component) lines.push('', ...inferenceComponentTextLines(plan.inference_component));
  const policyLines = renderPolicyText(plan);
  if (policyLines.length > 0) lines.push('', ...policyLines);
  if (plan.drill_comparison) lines.push('', ...renderDrillComparison(plan.drill_comparison, 'text'));
  lines.push('', 'findings');
  for (const finding of plan.findings) {
    lines.push(`  ${VERDICT_MARK[finding.verdict]}  ${finding.name}: ${finding.detail}`);
    if (finding.fix && finding.verdict !== 'ok') lines.push(`        fix: ${finding.fix}`);
  }
  lines.push('', 'deployable');
  lines.push(
    table([
      ['scaling_metric', targetUnits(plan)],
      ['min_instances', `${x.min_instances}`],
      ['max_instances', `${x.max_instances}`],
      [
        'scaling_target_value',
        x.scaling_target_value === null
          ? 'none (no R measured: not deployable)'
          : `${x.scaling_target_value}`,
      ],
      [
        'scale_in_threshold',
        x.scale_in_threshold === null
          ? 'none'
          : `${threshold(x.scale_in_threshold)} (${SCALE_IN_UNITS[x.scaling_metric]})`,
      ],
      ['queue_max_depth', `${x.queue_max_depth}`],
      ['scale_out_cooldown_s', `${x.scale_out_cooldown_s}`],
      ['scale_in_cooldown_s', `${x.scale_in_cooldown_s}`],
      ['slo_ms', `${x.slo_ms}`],
      ['service_time_alarm_ms', x.service_time_alarm_ms === null ? 'n/a' : `${x.service_time_alarm_ms}`],
      ...scalingActionLines(plan),
    ]),
  );
  if (writtenTo) {
    lines.push(
      '',
      unchanged
        ? `wrote ${writtenTo} (unchanged: same inputs and values, run ${plan.run_id} of ${plan.created_at} kept)`
        : `wrote ${writtenTo}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
