/**
 * The Markdown report of one scalegate step: the PR comment body and the job summary. Pure:
 * artifacts in, Markdown out. Every string that comes from an artifact or a file name goes
 * through escape-md (artifacts are files anyone can edit in a pull request); numbers are
 * formatted here.
 */
import { isLowerBound } from '../analysis/ttotal.js';
import type { GoodputArtifact, PlanArtifact } from '../model/index.js';
import { modelMarker, type RunStamp, runMarker } from './comment-markers.js';
import { configWeakeningSection } from './config-weakening-text.js';
import { costSection } from './cost-text.js';
import { drillSection, renderDrillComparison } from './drill-markdown.js';
import { drillVerdictText } from './drill-verdict.js';
import { codeSpan, escapeMarkdown } from './escape-md.js';
import {
  changesSection,
  chartSection,
  deployableSection,
  driftSection,
  fencedText,
  findingsSection,
  fmt,
  gateSection,
  goodputSection,
  icon,
  planInputsSection,
  planSummary,
  planVerdictText,
  qmaxInputSection,
  type ReportInput,
  ttotalSection,
  validateSection,
} from './markdown-sections.js';
import { policySection } from './policy-text.js';

export {
  hasModelMarker,
  MODEL_MARKER_PREFIX,
  modelMarker,
  parseRunMarker,
  type RunStamp,
  runMarker,
} from './comment-markers.js';
export {
  fencedText,
  fmt,
  type GateOutcome,
  type Located,
  planChanges,
  planVerdictText,
  type ReportInput,
  type RunInfo,
} from './markdown-sections.js';

// ---------------------------------------------------------------------------------------------
// Headline

export interface Headline {
  /** ok | warn | stop | preflight-ok | drift | clean | mismatch | passed | refused | measured | … */
  verdict: string;
  text: string;
}

export function headline(input: ReportInput): Headline {
  const model = escapeMarkdown(input.modelName);
  const prefix = (verdict: string, what: string): Headline => ({
    verdict,
    text: `## ${icon(verdict)} scalegate ${escapeMarkdown(input.command)} · ${model}: ${what}`,
  });
  if (input.refused) return prefix('refused', `refused (exit ${input.exitCode})`);
  if (input.error && input.operational) {
    return prefix('operational-error', `**operational error** (exit ${input.exitCode}): not a finding`);
  }
  if (input.error) return prefix('failed', `**failed** (exit ${input.exitCode})`);
  switch (input.command) {
    case 'plan':
      if (input.plan)
        return prefix(
          input.plan.artifact.verdict,
          `**${planVerdictText(input.plan.artifact)}**${lowerBoundNote(input.plan.artifact)}`,
        );
      break;
    case 'qmax':
      if (input.qmax) {
        const q = input.qmax.artifact;
        const bracket = q.q_max_bracketed
          ? `bracketed by a breach at ${q.q_max_upper_bound ?? 'n/a'}`
          : 'a lower bound: no breach measured above it';
        return prefix(input.exitCode === 0 ? 'ok' : 'stop', `**Q_max = ${q.q_max}** (${bracket})`);
      }
      break;
    case 'goodput':
      if (input.goodput) {
        const g = input.goodput.artifact;
        return prefix(input.exitCode === 0 ? 'ok' : 'stop', `**${escapeMarkdown(lambdaMaxHeadline(g))}**`);
      }
      break;
    case 'ttotal':
      if (input.ttotal) {
        const t = input.ttotal.artifact;
        return prefix(
          input.exitCode === 0 ? 'ok' : 'stop',
          isLowerBound(t)
            ? `**T_total ≥ ${fmt(t.t_total_s, 1)} s** (LOWER BOUND: traffic never recovered)`
            : `**T_total = ${fmt(t.t_total_s, 1)} s**`,
        );
      }
      break;
    case 'drift':
      if (input.drift) return prefix(input.drift.artifact.verdict, `**${input.drift.artifact.verdict}**`);
      break;
    case 'validate':
      if (input.validate) {
        return prefix(input.validate.artifact.verdict, `**${input.validate.artifact.verdict}**`);
      }
      break;
    case 'drill':
      if (input.drill) {
        const d = input.drill.artifact;
        const v = drillVerdictText(d);
        return prefix(
          d.verdict,
          `**${d.verdict}** — ${escapeMarkdown(v.summary)}${v.explanation ? ` (${escapeMarkdown(v.explanation)})` : ''} · surge x${d.settings.surge_ratio}`,
        );
      }
      break;
    case 'gate':
      if (input.gate) {
        return prefix(
          input.gate.passed ? 'passed' : 'refused',
          `${input.gate.passed ? '**passed**' : '**refused**'}${input.gate.offline ? ' · **OFFLINE: attestations not verified**' : ''}`,
        );
      }
      break;
  }
  // A step that is not one command (a whole rehearsal) is judged by its plan when it has one.
  if (input.plan)
    return prefix(
      input.plan.artifact.verdict,
      `plan **${planVerdictText(input.plan.artifact)}**${lowerBoundNote(input.plan.artifact)}`,
    );
  const verdict = input.exitCode === 0 ? 'ok' : 'stop';
  return prefix(verdict, input.exitCode === 0 ? '**done**' : `**failed (exit ${input.exitCode})**`);
}

/** The headline's warning for a plan built on a lower-bound T_total. */
const lowerBoundNote = (plan: PlanArtifact): string =>
  plan.measured.t_total_origin === 'lower-bound'
    ? ` · T_total **LOWER BOUND** (≥ ${fmt(plan.measured.t_total_s, 1)} s)`
    : '';

/** lambda_max as a headline, with what it is. */
export function lambdaMaxHeadline(g: GoodputArtifact): string {
  if (!g.decided || g.lambda_max_rps === null) return 'shard measured (decided after merge)';
  if (g.lambda_max_rps === 0) return 'lambda_max = 0 (no rate held the SLO)';
  return `lambda_max = ${fmt(g.lambda_max_rps, 2)} requests/s (${g.lambda_max_bracketed ? `bracketed by a breach at ${fmt(g.breach_rate_rps, 2)}` : 'a lower bound: no breach measured above it'})`;
}

// ---------------------------------------------------------------------------------------------

export function renderReport(input: ReportInput): string {
  const out: string[] = [headline(input).text, ''];
  if (input.refused) {
    out.push(`The step refused its input and wrote nothing:`, '', fencedText(input.refused), '');
  } else {
    // A failure still shows whatever the step produced before it failed.
    if (input.error) {
      const what = input.operational
        ? 'The step stopped on an operational error (an AWS call or the network; exit 3, not a finding):'
        : 'The step failed:';
      out.push(what, '', fencedText(input.error), '');
    }
    const plan = input.plan?.artifact;
    if (plan) {
      out.push(planSummary(plan), '');
      const changes = changesSection(input, plan);
      if (changes.length > 0) out.push(...changes, '');
      const weakened = configWeakeningSection(
        input.configWeakenings,
        input.configBaseRef,
        input.configBaseNote,
      );
      if (weakened.length > 0) out.push(...weakened, '');
      out.push(...policySection(plan), '');
      out.push(...findingsSection(plan.findings), '');
      out.push(...deployableSection(plan), '');
      if (plan.cost) out.push(...costSection(plan.cost), '');
      out.push(...planInputsSection(plan), '');
      if (plan.drill_comparison) out.push(...renderDrillComparison(plan.drill_comparison, 'md'), '');
    } else if (input.qmax) {
      out.push(...qmaxInputSection(input.qmax), '');
    }
    if (input.qmax) {
      const chart = chartSection(input.qmax.artifact);
      if (chart.length > 0) out.push(...chart, '');
    }
    if (input.goodput && !plan) out.push(...goodputSection(input.goodput), '');
    if (input.ttotal) out.push(...ttotalSection(input.ttotal), '');
    if (input.drift) out.push(...driftSection(input.drift), '');
    if (input.validate) out.push(...validateSection(input.validate), '');
    if (input.drill) out.push(...drillSection(input.drill), '');
    if (input.gate) out.push(...gateSection(input.gate), '');
    const rich =
      plan ||
      input.qmax ||
      input.ttotal ||
      input.goodput ||
      input.drift ||
      input.validate ||
      input.drill ||
      input.gate;
    if (!rich && input.textReport) out.push(fencedText(input.textReport), '');
  }
  out.push(footer(input));
  return `${out
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd()}\n`;
}

function footer(input: ReportInput): string {
  const bits = [`scalegate ${escapeMarkdown(input.version)}`, `exit ${input.exitCode}`];
  const run = input.run;
  if (run) {
    const label = `run ${escapeMarkdown(run.id)}${run.attempt > 1 ? ` (attempt ${run.attempt})` : ''}`;
    // Our own URL (built from GITHUB_SERVER_URL and the repository), never from an artifact.
    bits.push(run.url && /^https?:\/\/[^\s()<>]+$/.test(run.url) ? `[${label}](${run.url})` : label);
    if (run.sha) bits.push(`commit ${codeSpan(run.sha.slice(0, 12))}`);
    bits.push(escapeMarkdown(run.at));
  }
  return `<sub>${bits.join(' · ')}</sub>`;
}

/** The full comment: markers first (hidden), then the report. */
export function renderComment(input: ReportInput, stamp: RunStamp): string {
  return `${modelMarker(input.modelName)}\n${runMarker(stamp)}\n${renderReport(input)}`;
}

/**
 * The comment when the full report exceeds what GitHub accepts (65536 characters): the verdict
 * line, a pointer to the job summary (which holds the full report), the footer.
 */
export function renderCompactComment(input: ReportInput, stamp: RunStamp): string {
  const body = [
    headline(input).text,
    '',
    'The full report is longer than a pull request comment can hold: it is in the job summary of the run below.',
    '',
    footer(input),
  ].join('\n');
  return `${modelMarker(input.modelName)}\n${runMarker(stamp)}\n${body}\n`;
}
