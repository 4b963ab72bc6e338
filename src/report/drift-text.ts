/** The terminal report of `scalegate drift`: each check, each finding's remediation, the verdict. */
import type { DriftArtifact } from '../model/index.js';

const MARK: Record<DriftArtifact['findings'][number]['verdict'], string> = {
  ok: 'ok   ',
  warn: 'WARN ',
  drift: 'DRIFT',
};

export function renderDriftReport(artifact: DriftArtifact, writtenTo: string | null): string {
  const lines: string[] = [];
  const drifted = artifact.findings.filter((f) => f.verdict === 'drift');
  const warned = artifact.findings.filter((f) => f.verdict === 'warn');
  lines.push(
    `scalegate drift ${artifact.model_name}: endpoint ${artifact.endpoint}, region ${artifact.region}${artifact.plan ? `, plan ${artifact.plan.file} (run ${artifact.plan.run_id})` : ', no plan (structural checks only)'}`,
  );
  const width = Math.max(...artifact.findings.map((f) => f.check.length));
  for (const f of artifact.findings) {
    lines.push(`  ${MARK[f.verdict]} ${f.check.padEnd(width)}  ${f.detail}`);
    if (f.verdict !== 'ok' && f.remediation)
      lines.push(`        ${' '.repeat(width)}  fix: ${f.remediation}`);
  }
  if (writtenTo) lines.push(`  written to ${writtenTo}`);
  lines.push('');
  lines.push(
    artifact.verdict === 'preflight-ok'
      ? `preflight-ok${warned.length > 0 ? ` (${warned.length} warning${warned.length === 1 ? '' : 's'})` : ''}`
      : `drift: ${drifted.length} finding${drifted.length === 1 ? '' : 's'} (${drifted.map((f) => f.check).join(', ')})`,
  );
  return lines.join('\n');
}
