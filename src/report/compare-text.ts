/**
 * The texts of `scalegate compare`: its findings, the terminal report (the candidates' table, the
 * prices they were costed with, the choice and why) and the Markdown for the PR comment and the job
 * summary. Every figure says where it comes from: Q_max and lambda_max are measured (lambda_max a
 * lower bound when no breach bracketed it), lambda_safe, the fleet at peak, the costs and the SLO
 * margin are computed, a price is fetched (Price List API), from the dated fallback table, or stated.
 */
import type { CompareArtifact, CompareCandidate, ModelConfig } from '../model/index.js';
import { renderFrontierMermaid } from './compare-chart-md.js';

type Finding = CompareArtifact['findings'][number];

const num = (n: number | null, digits = 2): string =>
  n === null ? '-' : Number(n.toFixed(digits)).toString();
const usd = (n: number | null): string => (n === null ? '-' : `$${n >= 100 ? n.toFixed(0) : n.toFixed(2)}`);
const pct = (n: number | null): string => (n === null ? '-' : `${(n * 100).toFixed(1)} %`);

/** What the config must say for the release to deploy what compare chose, and every quota that cannot hold. */
export function compareFindings(
  a: Omit<CompareArtifact, 'findings'>,
  model: Pick<ModelConfig, 'instance_type'>,
): Finding[] {
  const findings: Finding[] = [];
  for (const c of a.candidates) {
    if (c.quota.holds === false) {
      const need = c.quota.needed + (c.quota.instances_elsewhere ?? 0);
      findings.push({
        name: `quota: ${c.instance_type}`,
        detail: `${c.label} (${c.instance_type}) needs ${c.quota.needed} instances at peak (computed by its plan), and ${c.quota.instances_elsewhere ?? 0} are in use on other endpoints; the quota "${c.quota.quota_name}" is ${c.quota.quota_value} (${c.quota.source}). Ranked, but not choosable.`,
        fix: `Request an increase of "${c.quota.quota_name}" to at least ${need} in Service Quotas, then compare again.`,
      });
    }
  }
  const chosen = a.candidates.find((c) => a.chosen !== null && c.file === a.chosen.file) ?? null;
  if (chosen && chosen.instance_type !== model.instance_type) {
    findings.push({
      name: 'config: instance type',
      detail: `the chosen ${chosen.label} runs on ${chosen.instance_type}, the model's instance_type is ${model.instance_type}: the release deploys the config's instance type, and the gate requires the plan's fingerprint.`,
      fix: `Set instance_type to ${chosen.instance_type} (with that candidate's container_env) in the model's config entry, and list ${model.instance_type} under candidates if it stays one.`,
    });
  }
  if (a.chosen === null) {
    const holding = a.candidates.filter((c) => c.holds).length;
    findings.push({
      name: 'no candidate',
      detail:
        holding === 0
          ? `none of the ${a.candidates.length} candidates holds both SLOs`
          : `${holding} of the ${a.candidates.length} candidates hold both SLOs, but none can be chosen (quota, cost or config: see each one's reasons)`,
      fix: 'Measure a larger instance type (add it to candidates), relax the SLO, or raise the quota; then compare again.',
    });
  }
  return findings;
}

function pad(cells: string[][]): string[] {
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length))) ?? [];
  return cells.map((row) =>
    row
      .map((cell, i) => (i <= 1 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd(),
  );
}

const HEADER = [
  'candidate',
  'instance type',
  'Q_max',
  'lambda_safe/s',
  'at peak',
  '$/h at peak',
  '$/1M chars target',
  'surge-safe',
  'SLO margin',
  'holds',
];

/** The provenance of each column, printed under every table. */
export const COMPARE_PROVENANCE =
  'Q_max measured (qmax ladder; a lower bound where no breach above it was measured); lambda_safe, instances at peak, $/h at peak, $ per 1M characters and the SLO margin computed (from the measurements and the price); the price as each plan recorded it (below)';

function holdsCell(c: CompareCandidate): string {
  if (c.choosable) return c.rank === null ? 'yes' : `yes #${c.rank}`;
  if (c.holds) return 'yes, not choosable';
  return 'NO';
}

function rowOf(c: CompareCandidate, chosenFile: string | null): string[] {
  const mark = c.file === chosenFile ? '>' : c.pareto ? '*' : ' ';
  return [
    `${mark} ${c.label}`,
    c.instance_type,
    c.q_max.origin === 'measured' ? num(c.q_max.value, 0) : `>= ${num(c.q_max.value, 0)} (lower bound)`,
    num(c.lambda_safe_rps.value, 3),
    num(c.peak_instances.value, 0),
    usd(c.usd_per_hour_at_peak.value),
    usd(c.usd_per_million_characters_target.value),
    usd(c.usd_per_million_characters_surge_safe.value),
    pct(c.slo_margin.value),
    holdsCell(c),
  ];
}

function priceLine(c: CompareCandidate): string {
  const p = c.price;
  if (!p) return `${c.label}: no price recorded`;
  const origin =
    p.source === 'price-list-api'
      ? 'fetched from the AWS Price List API'
      : p.source === 'fallback-table'
        ? 'from the fallback price table'
        : 'stated in the config';
  return `${c.label}: ${p.instance_type} in ${p.region} at $${p.hourly_usd}/h (${origin}${p.as_of ? `, as of ${p.as_of}` : ''}${p.reference ? `, ${p.reference}` : ''})`;
}

function choiceLine(a: CompareArtifact): string {
  const chosen = a.candidates.find((c) => a.chosen !== null && c.file === a.chosen.file);
  if (!chosen) return 'NO CANDIDATE CAN BE CHOSEN: see the findings.';
  const others = a.candidates.filter((c) => c.choosable).length - 1;
  return `chosen: ${chosen.label} (${chosen.instance_type}): ${usd(chosen.usd_per_million_characters_surge_safe.value)} per 1M characters at the surge-safe load (computed; ${usd(chosen.usd_per_million_characters_target.value)} at the target), the cheapest of the ${others + 1} candidates that hold both SLOs and fit their quota; SLO margin ${pct(chosen.slo_margin.value)} (computed)`;
}

export function renderCompareReport(
  a: CompareArtifact,
  files: { file: string | null; svgFile: string | null },
): string {
  const chosenFile = a.chosen?.file ?? null;
  const lines = [
    `compare: ${a.model_name}, ${a.candidates.length} candidate plans (> chosen, * on the frontier of cost per 1M characters vs SLO margin)`,
    ...pad([
      HEADER.map((h, i) => (i === 0 ? `  ${h}` : h)),
      ...a.candidates.map((c) => rowOf(c, chosenFile)),
    ]),
    '',
    COMPARE_PROVENANCE,
    'SLO margin: 1 - lambda_safe / capacity, the share of the instance capacity inside the SLO that the operating point leaves unused (computed):',
  ];
  for (const c of a.candidates) lines.push(`  ${c.label}: ${c.slo_margin_method}`);
  lines.push('prices:');
  for (const c of a.candidates) lines.push(`  ${priceLine(c)}`);
  lines.push('quotas (checked before any deploy):');
  for (const c of a.candidates) {
    lines.push(
      `  ${c.label}: ${c.quota.holds === null ? 'not checked' : c.quota.holds ? 'holds' : 'CANNOT HOLD'} its peak of ${c.quota.needed}: ${c.quota.source}`,
    );
  }
  const notHolding = a.candidates.filter((c) => c.reasons.length > 0);
  if (notHolding.length > 0) {
    lines.push('not choosable:');
    for (const c of notHolding) lines.push(`  ${c.label}: ${c.reasons.join('; ')}`);
  }
  lines.push('', choiceLine(a));
  for (const f of a.findings) lines.push(`finding ${f.name}: ${f.detail}${f.fix ? ` Fix: ${f.fix}` : ''}`);
  if (a.chosen_plan_file) lines.push(`chosen plan: ${a.chosen?.file} -> ${a.chosen_plan_file}`);
  if (files.file) lines.push(`wrote ${files.file}${files.svgFile ? ` and ${files.svgFile}` : ''}`);
  return lines.join('\n');
}

/** The compare table for the PR comment and the job summary. */
export function renderCompareMarkdown(a: CompareArtifact): string {
  const chosenFile = a.chosen?.file ?? null;
  const cells = a.candidates.map((c) => {
    const row = rowOf(c, chosenFile);
    row[0] = c.file === chosenFile ? `**${c.label}** (chosen)` : c.label;
    return row;
  });
  const lines = [
    `### scalegate compare: ${a.model_name}`,
    '',
    `| ${HEADER.join(' | ')} |`,
    `|${HEADER.map((_, i) => (i <= 1 ? ' --- ' : ' ---: ')).join('|')}|`,
    ...cells.map((row) => `| ${row.join(' | ')} |`),
    '',
    `${COMPARE_PROVENANCE}. SLO margin: 1 - lambda_safe / capacity (computed).`,
    '',
    choiceLine(a),
  ];
  const chart = renderFrontierMermaid(a);
  if (chart) lines.push('', chart);
  for (const f of a.findings) lines.push('', `- **${f.name}**: ${f.detail}${f.fix ? ` Fix: ${f.fix}` : ''}`);
  return `${lines.join('\n')}\n`;
}
