/** The report of `scalegate ttotal --dry-run`: what a run would change, in order, and what would refuse it. */
import type { TtotalArtifact } from '../model/index.js';

export interface TtotalDryRun {
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  resourceId: string;
  journalFile: string;
  desired: number | null;
  current: number | null;
  suspended: {
    dynamic_scaling_in_suspended: boolean;
    dynamic_scaling_out_suspended: boolean;
    scheduled_scaling_suspended: boolean;
  } | null;
  probeConcurrency: number;
  settleS: number;
  maxWaitS: number;
  targetMs: number;
  quota: NonNullable<TtotalArtifact['quota']>;
  lag: { lagS: number; bounded: boolean; source: string };
  /** What --force would get past (a journal, suspended scaling). */
  refusals: string[];
  /** What nothing gets past (the endpoint not InService). */
  blockers: string[];
  existingJournal: string | null;
}

const flags = (s: NonNullable<TtotalDryRun['suspended']>): string =>
  `in=${s.dynamic_scaling_in_suspended}, out=${s.dynamic_scaling_out_suspended}, scheduled=${s.scheduled_scaling_suspended}`;

export function renderTtotalDryRun(d: TtotalDryRun): string {
  const desired = d.desired ?? '?';
  const lines = [
    `ttotal dry run: ${d.modelName} on endpoint ${d.endpoint} variant ${d.variant} (${d.region}); read only: nothing was changed`,
    `  now: desired ${desired}, current ${d.current ?? '?'} instance(s); scaling ${d.suspended ? flags(d.suspended) : 'no scalable target'}`,
    'a run would:',
    `  1. write the thaw journal (desired ${desired}, flags ${d.suspended ? flags(d.suspended) : 'none'}) to ${d.journalFile} and to the endpoint's tags (AddTags)`,
    d.suspended
      ? `  2. suspend scaling of ${d.resourceId}: in, out and scheduled (RegisterScalableTarget)`
      : '  2. suspend nothing (no scalable target is registered)',
    `  3. freeze the variant at one instance: desired ${desired} -> 1 (UpdateEndpointWeightsAndCapacities), and wait for one InService instance`,
    `  4. probe at ${d.probeConcurrency} in flight (InvokeEndpointWithResponseStream), ${d.settleS} s before the trigger`,
    `  5. request the scale-out 1 -> 2 (UpdateEndpointWeightsAndCapacities), then wait up to ${d.maxWaitS} s for InService and for p95 TTFAB <= ${d.targetMs.toFixed(1)} ms`,
    `  6. restore desired ${desired} and the suspension flags as recorded, then remove the journal (DeleteTags, the file)`,
    `  quota: ${d.quota.source}`,
    `  policy lag for the plan: ${d.lag.lagS} s (${d.lag.bounded ? 'bound, not measured' : 'computed'}: ${d.lag.source})`,
  ];
  if (d.blockers.length > 0) {
    lines.push('it would refuse to start (exit 2):', ...d.blockers.map((r) => `  - ${r}`));
  }
  if (d.refusals.length > 0) {
    lines.push('it would refuse to start (exit 2) unless --force:', ...d.refusals.map((r) => `  - ${r}`));
  }
  return lines.join('\n');
}
