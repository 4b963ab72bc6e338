/** The terminal report of `scalegate gate`: every check with its fix, and whether the plan may be deployed. */
import type { GateReport } from '../plan/gate-report.js';

/** Beside the verdict when the proofs' attestations were not verified: never silent. */
export function offlineLabel(offline: GateReport['offline']): string {
  if (offline === 'local')
    return 'OFFLINE: ATTESTATIONS NOT VERIFIED (the local SageMaker: nothing is attested locally)';
  if (offline === 'requested')
    return 'OFFLINE: ATTESTATIONS NOT VERIFIED (--offline: a development run; a release never passes it)';
  return '';
}

export function renderGateReport(r: GateReport): string {
  const origin = r.image_source === 'container_dir' ? 'CDK asset hash of container_dir' : 'image_uri digest';
  const lines = [
    `scalegate gate ${r.model_name}: ${r.passed ? 'PASS' : 'REFUSED'}${r.offline ? ` — ${offlineLabel(r.offline)}` : ''}`,
    `  plan ${r.plan_file}; deploying image ${r.image_digest} (${origin}) on ${r.instance_type} in ${r.region}`,
    '',
  ];
  const width = Math.max(...r.checks.map((c) => c.check.length));
  for (const c of r.checks) {
    lines.push(`  ${c.ok ? '✓' : '✗'} ${c.check.padEnd(width)}  ${c.detail}`);
    if (!c.ok && c.fix) lines.push(`    ${' '.repeat(width)}  fix: ${c.fix}`);
  }
  lines.push('');
  lines.push(
    r.passed
      ? `The plan's scaling may be deployed: \`scalegate deploy ${r.model_name}\`.`
      : 'No scaling that was not measured on this image and instance type is deployed: fix the checks above.',
  );
  return `${lines.join('\n')}\n`;
}
