/** The terminal report of `scalegate gate`: every check with its fix, and whether the plan may be deployed. */
import type { GateReport } from '../plan/gate.js';

export function renderGateReport(r: GateReport): string {
  const origin = r.image_source === 'container_dir' ? 'CDK asset hash of container_dir' : 'image_uri digest';
  const lines = [
    `scalegate gate ${r.model_name}: ${r.passed ? 'PASS' : 'REFUSED'}`,
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
