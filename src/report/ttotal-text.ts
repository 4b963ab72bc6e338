/** The terminal report of `scalegate ttotal`: the timeline, durations with shares, the verdicts. */

import { isLowerBound, type ScaleOutFailure } from '../analysis/ttotal.js';
import type { TtotalArtifact } from '../model/index.js';
import { POLICY_LAG_PROVENANCE, ttotalPolicyLagOrigin } from './labels.js';
import { loadOriginLines } from './vantage-text.js';

const time = (iso: string): string => iso.slice(11, 23);
const s = (seconds: number | null | undefined, digits = 1): string =>
  seconds === null || seconds === undefined ? 'n/a' : `${seconds.toFixed(digits)} s`;

export function renderTtotalReport(artifact: TtotalArtifact, writtenTo: string | null): string {
  const lines: string[] = [];
  const end = artifact.t_total_end_stage ?? 'traffic_recovered';
  const lowerBound = isLowerBound(artifact);
  lines.push(
    `scalegate ttotal ${artifact.model_name}: T_total ${s(artifact.t_total_s, 2)} (desired_set -> ${end}${lowerBound ? ', LOWER BOUND: traffic never recovered' : ''})`,
  );
  lines.push(
    `  endpoint ${artifact.endpoint}, ${artifact.from_instances} -> ${artifact.to_instances} instances (${artifact.trigger}), probe ${artifact.probe_concurrency} in flight, new instance ${artifact.instance_id ?? 'unknown'}`,
  );
  lines.push(...loadOriginLines(artifact.vantage, artifact.fingerprint.request).map((l) => `  ${l}`));
  lines.push(
    `  policy lag ${s(artifact.policy_lag_s)} (${artifact.policy_lag_bounded ? 'BOUND, not measured' : POLICY_LAG_PROVENANCE[ttotalPolicyLagOrigin(artifact)]}): ${artifact.policy_lag_source}`,
  );
  const upper = artifact.t_total_prediction?.upper_s ?? null;
  lines.push(
    upper !== null && !lowerBound
      ? `  planned T_plan = T_total's upper prediction bound + policy lag = ${s(upper + artifact.policy_lag_s, 2)}`
      : `  planned T_plan = T_total + policy lag = ${lowerBound ? '≥ ' : ''}${s(artifact.t_total_s + artifact.policy_lag_s, 2)}${lowerBound ? ' (a LOWER BOUND, as T_total is)' : ''}`,
  );
  const observations = artifact.observations ?? [];
  if (observations.length > 1) {
    lines.push(
      `  ${observations.length} scale-outs: T_total ${observations.map((o) => `${s(o.t_total_s, 2)}${o.t_total_end_stage === 'in_service' ? ' (lower bound)' : ''}`).join(', ')}`,
    );
  }
  if (artifact.t_total_prediction) {
    const p = artifact.t_total_prediction;
    lines.push(
      p.upper_s === null
        ? `  prediction bound for the next T_total: ${p.description}`
        : `  next T_total <= ${s(p.upper_s, 2)} (${p.description}); the plan takes it as T_total`,
    );
  }
  for (const w of artifact.mismatch_warnings ?? [])
    lines.push(`  WARNING: configuration mismatch allowed: ${w}`);
  lines.push('', 'timeline');
  const width = Math.max(...artifact.timeline.map((t) => t.stage.length));
  for (const t of artifact.timeline) {
    lines.push(
      `  ${time(t.at)}  ${t.stage.padEnd(width)}  ${t.bounded ? '(bound) ' : ''}${t.source}${t.note ? ` — ${t.note}` : ''}`,
    );
  }
  lines.push('', 'durations (share of T_total only inside it)');
  for (const d of artifact.durations) {
    const share = d.share === null ? '   --' : `${(d.share * 100).toFixed(1).padStart(5)}%`;
    const dominant =
      artifact.dominant_stage &&
      artifact.dominant_stage.from === d.from &&
      artifact.dominant_stage.to === d.to
        ? '  <- dominant'
        : '';
    lines.push(
      `  ${`${d.from} -> ${d.to}`.padEnd(2 * width + 4)} ${s(d.seconds, 3).padStart(10)} ${share}${d.bounded ? ' (bound)' : ''}${dominant}`,
    );
  }
  if (artifact.missing_stages.length > 0)
    lines.push('', `missing stages: ${artifact.missing_stages.join(', ')}`);
  lines.push(
    '',
    `probe p95 TTFAB: before ${artifact.p95_before_ms?.toFixed(1) ?? 'n/a'} ms (${artifact.requests_before ?? '?'} requests), target ${artifact.p95_recovered_target_ms?.toFixed(1) ?? 'n/a'} ms${artifact.settings ? ` (ladder p95 at N/2 x ${artifact.settings.recovery_target_factor}, --recovery-factor)` : ''}, after ${artifact.p95_after_ms?.toFixed(1) ?? 'n/a'} ms (${artifact.requests_after ?? '?'} requests)`,
  );
  if (artifact.quota) {
    lines.push(
      `quota: ${artifact.quota.quota_value ?? 'unknown'} (${artifact.quota.source}), ${artifact.quota.instances_in_use ?? '?'} in use before the run`,
    );
  }
  if (artifact.restore) {
    lines.push(
      `restored: ${artifact.restore.actions.join('; ')}${artifact.restore.errors.length > 0 ? `; FAILED: ${artifact.restore.errors.join('; ')}` : ''}`,
    );
  }
  for (const note of artifact.notes) lines.push(`note: ${note}`);
  if (writtenTo) lines.push(`written to ${writtenTo}`);
  if (lowerBound) {
    lines.push(
      `exit 1: the probe p95 never fell to the target within --max-wait-s, so T_total is only a lower bound; find out why the second instance does not take load (routing, a slow warm-up, the recovery target), then re-run \`scalegate ttotal --model ${artifact.model_name}\` (a longer --max-wait-s if it was still recovering)`,
    );
  }
  return lines.join('\n');
}

export interface TtotalFailureReport {
  modelName: string;
  endpoint: string;
  failure: ScaleOutFailure;
  restore: NonNullable<TtotalArtifact['restore']>;
  journalFile: string | null;
}

export function renderTtotalFailure(r: TtotalFailureReport): string {
  const c = r.failure.capacity;
  const lines = [
    `scalegate ttotal ${r.modelName}: the scale-out did not complete, no T_total measured`,
    `  ${r.failure.reason}`,
    c
      ? `  endpoint ${r.endpoint}: status ${c.endpointStatus}, desired ${c.desired ?? '?'}, current ${c.current ?? '?'}${c.failureReason ? `, FailureReason: ${c.failureReason}` : ''}`
      : `  endpoint ${r.endpoint}: not described`,
    r.failure.stream
      ? `  the new instance logged to ${r.failure.stream}; its last lines:`
      : '  no log stream appeared for a new instance (it was never provisioned: check the instance quota and the endpoint events)',
    ...r.failure.logTail.map((line) => `    | ${line}`),
    `  restored: ${r.restore.actions.join('; ')}${r.restore.errors.length > 0 ? `; FAILED: ${r.restore.errors.join('; ')}` : ''}`,
  ];
  if (r.journalFile)
    lines.push(`  the thaw journal ${r.journalFile} is kept: run \`scalegate thaw --model ${r.modelName}\``);
  lines.push(
    `  fix: read the container's log (a missing stage marker shows where it stopped), fix the container or the endpoint, then re-run \`scalegate ttotal --model ${r.modelName}\``,
  );
  return lines.join('\n');
}
