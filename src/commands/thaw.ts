/**
 * `scalegate thaw`: undo a freeze. With a thaw journal, restore exactly what it captured (desired
 * count, suspension flags) and delete it; without one, clear every suspension flag of the
 * variant's scalable target. Idempotent and safe at any time: running it twice, or on an endpoint
 * that was never frozen, changes nothing that is already right.
 */
import { hostname } from 'node:os';
import type { AwsClients } from '../aws/clients.js';
import { variantResourceId } from '../aws/scaling.js';
import { opt, usage } from '../model/errors.js';
import { NOT_SUSPENDED, readThawJournal, thawJournalPath } from '../model/journal.js';
import type { ThawReport } from '../model/reports.js';
import { renderThawReport } from '../report/thaw-text.js';
import { waitUntil } from '../wait.js';
import { awsFreezeAdapters, type FreezeAdapters, restoreFromJournal } from './freeze.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';

export type { ThawReport } from '../model/reports.js';

export interface ThawInput {
  endpoint: string;
  variant: string;
  /** @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** Thaw even though the journal's process seems to be alive (it restores on exit by itself). @default false */
  force?: boolean;
  /** Longest wait for an Updating endpoint to become InService before setting its capacity, s. @default 600 */
  waitS?: number;
  /** @default 2000 */
  pollIntervalMs?: number;
  /** Per-call deadline for the restore calls, ms. @default 15000 */
  callTimeoutMs?: number;
}

export interface ThawDeps extends CommandDeps {
  /** The clients the restore calls go through. @default none: then `adapters` must be given */
  clients?: Pick<AwsClients, 'sagemaker' | 'autoscaling'>;
  /** The calls a restore makes, bound to the variant. @default the AWS ones over `clients` */
  adapters?: FreezeAdapters;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function runThaw(input: ThawInput, deps: ThawDeps): Promise<CommandResult<ThawReport>> {
  const { endpoint, variant } = input;
  const { log, signal } = resolveDeps(deps);
  const adapters =
    deps.adapters ?? (deps.clients ? awsFreezeAdapters(deps.clients, endpoint, variant) : null);
  if (!adapters) throw new Error('thaw needs AWS clients (or freeze adapters)');
  const journal = readThawJournal(endpoint, input.stateDir);
  const journalFile = journal ? thawJournalPath(endpoint, input.stateDir) : null;
  const actions: string[] = [];
  const errors: string[] = [];
  let journalDeleted = false;

  if (journal) {
    if (journal.variant !== variant) {
      throw usage`${journalFile}: the journal is for variant ${journal.variant}, not ${variant}; pass the model or endpoint it names.`;
    }
    const sameHost = journal.hostname === null || journal.hostname === hostname();
    if (!input.force && sameHost && journal.pid !== process.pid && processAlive(journal.pid)) {
      throw usage`${journalFile}: process ${journal.pid} (\`${journal.command}\`) is still running and restores the endpoint when it ends. Stop it (SIGINT/SIGTERM), or thaw under it with ${opt('force')}.`;
    }
    // The endpoint may still be Updating from the freeze (e.g. killed while waiting): capacity
    // cannot change until it is InService.
    await waitUntil(
      `endpoint ${endpoint} to finish updating before its capacity is restored`,
      async () => {
        const capacity = await adapters.describeVariantCapacity();
        return capacity.endpointStatus === 'Updating' && capacity.desired !== journal.desired_instance_count
          ? undefined
          : capacity;
      },
      {
        deadline: Date.now() + (input.waitS ?? 600) * 1000,
        interval: input.pollIntervalMs ?? 2000,
        signal,
        log: (line) => log(`thaw: ${line}`),
      },
    );
    const result = await restoreFromJournal(journal, adapters, {
      stateDir: input.stateDir,
      deadlineMs: input.callTimeoutMs ?? 15_000,
    });
    actions.push(
      `journal ${journalFile} (pid ${journal.pid}, started ${journal.started_at}, \`${journal.command}\`)`,
    );
    actions.push(...result.actions);
    errors.push(...result.errors);
    journalDeleted = result.journalDeleted;
    if (journalDeleted) actions.push('journal deleted');
  } else {
    const resourceId = variantResourceId(endpoint, variant);
    const target = await adapters.describeScalableTarget(resourceId);
    if (!target) {
      actions.push(`no thaw journal and no scalable target for ${resourceId}: nothing to restore`);
    } else {
      const s = target.suspended;
      if (
        s.dynamic_scaling_in_suspended ||
        s.dynamic_scaling_out_suspended ||
        s.scheduled_scaling_suspended
      ) {
        await adapters.registerSuspendedState(resourceId, NOT_SUSPENDED);
        actions.push(
          `no thaw journal: cleared suspension flags on ${resourceId} (were in=${s.dynamic_scaling_in_suspended}, ` +
            `out=${s.dynamic_scaling_out_suspended}, scheduled=${s.scheduled_scaling_suspended})`,
        );
      } else {
        actions.push(`no thaw journal; ${resourceId} is not suspended: nothing to do`);
      }
    }
  }

  const artifact: ThawReport = {
    kind: 'thaw',
    endpoint,
    variant,
    journal_file: journalFile,
    journal,
    actions,
    errors,
    journal_deleted: journalDeleted,
  };
  return {
    artifact,
    report: renderThawReport(artifact),
    exitCode: errors.length > 0 ? 1 : 0,
    written: [],
  };
}
