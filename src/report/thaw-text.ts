/** The terminal report of `scalegate thaw`: what was restored, what failed, whether the journal is kept. */
import type { ThawReport } from '../model/reports.js';

export function renderThawReport(r: ThawReport): string {
  const head = r.dry_run
    ? `thaw dry run ${r.endpoint}/${r.variant} (read only: nothing was changed):`
    : `thaw ${r.endpoint}/${r.variant}:`;
  const lines = [head, ...r.actions.map((a) => `  ${a}`)];
  for (const e of r.errors) lines.push(`  FAILED: ${e}`);
  if (r.errors.length > 0 && r.journal)
    lines.push(
      `  the journal was kept (on the endpoint${r.journal_file ? ` and in ${r.journal_file}` : ''}); run thaw again once the endpoint is InService`,
    );
  return lines.join('\n');
}
