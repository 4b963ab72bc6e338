/**
 * `scalegate ttotal --dry-run`: the preflight's reads (the qmax, the live fingerprint, capacity,
 * quota, the deployed alarms) plus the freeze's (the scalable target's flags, the thaw journals on
 * the endpoint and on disk), then what a run would do, step by step, and what would refuse it. No
 * call that changes anything is made: the freeze adapters are only read from.
 */
import type { AwsClients } from '../aws/clients.js';
import type { VariantCapacity } from '../aws/endpoint.js';
import { variantResourceId } from '../aws/scaling.js';
import { journalFromTags, readThawJournal, thawJournalPath } from '../model/journal.js';
import { renderTtotalDryRun, type TtotalDryRun } from '../report/ttotal-dry-run-text.js';
import { anySuspended, awsFreezeAdapters, describeJournalOwner } from './freeze.js';
import type { CommandResult } from './result.js';

/** What the dry run needs of ttotal's input (src/commands/ttotal.ts). */
interface DryRunTarget {
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  stateDir?: string;
  force?: boolean;
}

/** What it needs of ttotal's preflight. */
interface DryRunPreflight {
  capacity: VariantCapacity;
  probeConcurrency: number;
  quota: TtotalDryRun['quota'];
  lag: TtotalDryRun['lag'];
}

export async function ttotalDryRun(
  input: DryRunTarget,
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
  pre: DryRunPreflight,
  params: { settleS: number; maxWaitS: number; targetMs: number },
): Promise<CommandResult<never>> {
  const adapters = awsFreezeAdapters(clients, input.endpoint, input.variant);
  const resourceId = variantResourceId(input.endpoint, input.variant);
  const target = await adapters.describeScalableTarget(resourceId);
  const onEndpoint = journalFromTags(await adapters.readEndpointTags(), `endpoint ${input.endpoint}`);
  const local = readThawJournal(input.endpoint, input.stateDir);
  const force = input.force === true;
  const refusals: string[] = [];
  if (local && !force)
    refusals.push(`a thaw journal from an earlier run is on disk (${describeJournalOwner(local)})`);
  if (onEndpoint && !force) {
    refusals.push(`the endpoint is already frozen by another run (${describeJournalOwner(onEndpoint)})`);
  }
  if (target && anySuspended(target.suspended) && !onEndpoint && !force) {
    refusals.push(`${resourceId} already has scaling suspended and carries no thaw journal`);
  }
  const blockers =
    pre.capacity.endpointStatus === 'InService' || pre.capacity.endpointStatus === 'Updating'
      ? []
      : [`the endpoint is ${pre.capacity.endpointStatus}: only an InService endpoint can be measured`];
  const plan: TtotalDryRun = {
    modelName: input.modelName,
    endpoint: input.endpoint,
    variant: input.variant,
    region: input.region,
    resourceId,
    journalFile: thawJournalPath(input.endpoint, input.stateDir),
    desired: pre.capacity.desired,
    current: pre.capacity.current,
    suspended: target ? target.suspended : null,
    probeConcurrency: pre.probeConcurrency,
    settleS: params.settleS,
    maxWaitS: params.maxWaitS,
    targetMs: params.targetMs,
    quota: pre.quota,
    lag: pre.lag,
    refusals,
    blockers,
    existingJournal: onEndpoint ? describeJournalOwner(onEndpoint) : null,
  };
  return { artifact: null, report: renderTtotalDryRun(plan), exitCode: 0, written: [] };
}
