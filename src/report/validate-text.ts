/** The terminal report of `scalegate validate`: every differing parameter, named, then a summary. */
import type { ComparisonRow, ValidateArtifact } from '../model/index.js';
import { describeRow, differingRows } from '../plan/policy-diff.js';

const MARK: Record<ComparisonRow['verdict'], string> = {
  match: 'ok      ',
  mismatch: 'MISMATCH',
  missing: 'MISSING ',
  extra: 'EXTRA   ',
  warn: 'warn    ',
};

export function renderComparisonRows(rows: readonly ComparisonRow[], indent = '  '): string[] {
  return rows.map((row) => `${indent}${MARK[row.verdict]} ${describeRow(row)}`);
}

export interface ValidateReportOptions {
  writtenTo: string | null;
  endpointError?: string | null;
  /** List matching rows too (default: only the differing ones). */
  verbose?: boolean;
}

export function renderValidateReport(artifact: ValidateArtifact, options: ValidateReportOptions): string {
  const differing = differingRows(artifact.rows);
  const lines: string[] = [];
  lines.push(
    `scalegate validate ${artifact.model_name}: ${artifact.verdict === 'clean' ? 'clean' : `mismatch (${differing.length} of ${artifact.rows.length} parameters)`}`,
  );
  lines.push(
    `  endpoint ${artifact.endpoint}, region ${artifact.region}, plan ${artifact.plan.file} (run ${artifact.plan.run_id})`,
  );
  if (options.endpointError) lines.push(`  endpoint unreadable: ${options.endpointError}`);
  const shown = options.verbose ? artifact.rows : differing;
  if (shown.length > 0) lines.push('', ...renderComparisonRows(shown));
  lines.push(
    '',
    `  ${artifact.rows.length} parameters compared, ${artifact.rows.length - differing.length} equal the plan`,
  );
  if (differing.length > 0) {
    lines.push(
      `  fix: deploy the plan (the release workflow's gated \`cdk deploy\`; on the local SageMaker \`scalegate local apply --model ${artifact.model_name} --plan ${artifact.plan.file}\`), or, if the deployed value is the intended one, re-measure and re-plan: a parameter nobody derived from a measurement is what this check exists to catch`,
    );
  }
  if (options.writtenTo) lines.push(`  written to ${options.writtenTo}`);
  return lines.join('\n');
}
