/** The terminal report of `scalegate deploy|destroy`: the cdk invocations, each one's outcome, what stays. */
import type { DeployReport } from '../model/reports.js';

export function deployHeadline(
  r: DeployReport,
  target: string,
  region: string,
  account: string | null = null,
): string {
  const where = account ? `${region} (account ${account})` : region;
  const plan = r.with_plan ? ` --with-plan ${r.with_plan} (the plan's policy, autoscaling and alarms)` : '';
  return `scalegate ${r.kind} ${r.model_name}${r.calibration ? ' --calibration' : ''}${plan}: ${target} in ${where}, stacks ${r.stacks.join(' -> ')}`;
}

/** A dry run: the exact invocations, nothing run. */
export function renderDeployDryRun(r: DeployReport, headline: string): string {
  const lines = [`${headline} (dry run: nothing was run)`, '', ...r.invocations];
  if (r.left_in_place.length)
    lines.push('', 'Would leave in place:', ...r.left_in_place.map((s) => `  - ${s}`));
  return `${lines.join('\n')}\n`;
}

/** A run: each invocation done, the one that failed (with its exit code), what stays in place. */
export function renderDeployRun(r: DeployReport, headline: string, failedExitCode: number | null): string {
  const lines = [headline, ''];
  for (let i = 0; i < r.completed; i++) lines.push(`✓ ${r.invocations[i]}`);
  if (r.failed !== null) {
    const i = r.completed;
    lines.push(
      `✗ ${r.failed} exited ${failedExitCode}${i === 0 ? ' (the synth, where the measured-plan gate runs: see its message above)' : ''}; stopped before the remaining ${r.invocations.length - i - 1} step(s).`,
    );
    return `${lines.join('\n')}\n`;
  }
  if (r.left_in_place.length) lines.push('', 'Left in place:', ...r.left_in_place.map((s) => `  - ${s}`));
  return `${lines.join('\n')}\n`;
}
