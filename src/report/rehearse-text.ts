/** The one summary `scalegate rehearse` ends with: what was measured, derived, deployed, and where it is. */
import { isAbsolute, relative } from 'node:path';
import { isLowerBound } from '../analysis/ttotal.js';
import type { RehearsalResult } from '../model/reports.js';
import { ciLevelLabel, planPolicyLagLabel, planTtotalLabel, tTotalValue } from './labels.js';
import { verdictLine } from './plan-text.js';

const ms = (value: number | null | undefined): string => (value == null ? 'n/a' : `${Math.round(value)} ms`);
const s = (value: number): string => `${value.toFixed(1)} s`;

/** A file as the user can open it from where they ran the command: relative when below it. */
function shownPath(file: string, cwd: string): string {
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel;
}

export function renderRehearsalSummary(r: RehearsalResult, cwd: string = process.cwd()): string {
  const lines: string[] = [];
  const outcome = r.failed ? `FAILED at ${r.failed.step} (${r.failed.reason})` : 'ok';
  lines.push('', `scalegate rehearse ${r.model}: ${outcome} in ${s(r.totalSeconds)}`, '');
  lines.push(`  device    ${r.device}`);

  if (r.drift) lines.push(`  drift     ${r.drift.verdict}`);
  if (r.qmax) {
    const q = r.qmax;
    const atQmax = q.steps.filter((step) => step.concurrency === q.q_max && step.verdict === 'pass').at(-1);
    const above = q.steps.filter((step) => step.concurrency === q.q_max_upper_bound).at(-1);
    const ci = atQmax?.ttfab_p95_ci_ms
      ? ` (${ciLevelLabel(atQmax)} CI ${ms(atQmax.ttfab_p95_ci_ms.low)}-${ms(atQmax.ttfab_p95_ci_ms.high)})`
      : '';
    const bracket = q.q_max_bracketed
      ? `bracketed: p95 ${ms(atQmax?.ttfab_p95_ms)}${ci} at ${q.q_max} passes, ${ms(above?.ttfab_p95_ms)} at ${q.q_max_upper_bound} fails`
      : 'NOT bracketed: a lower bound';
    lines.push(`  qmax      Q_max ${q.q_max} at SLO ${q.slo_ms} ms, ${bracket}`);
    lines.push(
      `            S_mean ${ms(q.s_mean_s * 1000)}, ${q.steps.length} rungs, ${s(q.total_rung_seconds ?? 0)} of load`,
    );
  }
  if (r.ttotal) {
    const t = r.ttotal;
    const dominant = t.dominant_stage
      ? `, dominant stage ${t.dominant_stage.from} -> ${t.dominant_stage.to} ${s(t.dominant_stage.seconds)}`
      : '';
    // The cause of a probe that never recovers is not diagnosed here: say what was seen, no more.
    const bound = isLowerBound(t)
      ? ' (LOWER BOUND: the instance came into service, but the probe p95 never fell to the target)'
      : '';
    lines.push(`  ttotal    T_total ${bound ? '≥ ' : ''}${s(t.t_total_s)}${bound}${dominant}`);
  }
  if (r.plan) {
    const p = r.plan;
    const x = p.deployable;
    lines.push(
      `  plan      ${verdictLine(p)}: target ${x.scaling_target_value ?? 'none'} (${x.scaling_metric}${p.derived.lambda_safe_rps == null ? '' : `, lambda_safe ${p.derived.lambda_safe_rps.toFixed(2)} requests/s`}), scale-in ${x.scale_in_threshold ?? 'none'}, instances ${x.min_instances}-${x.max_instances}, queue ${x.queue_max_depth}, cooldowns ${x.scale_out_cooldown_s} s / ${x.scale_in_cooldown_s} s`,
    );
    const m = p.measured;
    lines.push(
      `            from ${planTtotalLabel(m)} ${tTotalValue(m.t_total_origin, s(m.t_total_s))}, ${planPolicyLagLabel(m)} ${s(m.policy_lag_s)}`,
    );
    for (const finding of p.findings.filter((f) => f.verdict === 'warn' || f.verdict === 'stop')) {
      lines.push(`            ${finding.verdict.toUpperCase()} ${finding.name}: ${finding.detail}`);
    }
  }
  if (r.validate) {
    const mismatches = r.validate.rows.filter((row) => row.verdict !== 'match').length;
    lines.push(
      `  validate  ${r.validate.verdict} (${r.validate.rows.length} parameters compared, ${mismatches} differ)`,
    );
  }
  lines.push('', 'steps');
  for (const step of r.steps)
    lines.push(`  ${step.step.padEnd(16)} ${s(step.seconds).padStart(8)}  exit ${step.exitCode}`);
  const files = [
    ...r.steps.flatMap((step) => step.files),
    ...(r.previews ? [r.previews.comment, r.previews.chart] : []),
  ];
  if (files.length > 0) {
    lines.push('', 'files');
    for (const file of files) lines.push(`  ${shownPath(file, cwd)}`);
  }
  return `${lines.join('\n')}\n`;
}
