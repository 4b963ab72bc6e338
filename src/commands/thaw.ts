/**
 * `scalegate thaw`: undo a freeze. With a thaw journal, restore exactly what it captured (desired
 * count, suspension flags) and delete it; without one, clear every suspension flag of the
 * variant's scalable target. Idempotent and safe at any time: running it twice, or on an endpoint
 * that was never frozen, changes nothing that is already right.
 */
import { hostname } from 'node:os';
import { variantResourceId } from '../aws/scaling.js';
import { UsageError } from '../model/errors.js';
import { NOT_SUSPENDED, readThawJournal, type ThawJournal, thawJournalPath } from '../model/journal.js';
import { type FreezeAdapters, restoreFromJournal } from './freeze.js';
import type { CommandResult } from './result.js';

export interface ThawOptions {
  endpoint: string;
  variant: string;
  stateDir?: string;
  /** Thaw even though the journal's process seems to be alive (it restores on exit by itself). */
  force?: boolean;
  /** Longest wait for an Updating endpoint to become InService before setting its capacity (default 600 s). */
  waitS?: number;
  pollIntervalMs?: number;
  /** Per-call deadline for the restore calls (default 15000 ms). */
  callTimeoutMs?: number;
}

export interface ThawArtifact {
  kind: 'thaw';
  endpoint: string;
  variant: string;
  journal_file: string | null;
  journal: ThawJournal | null;
  actions: string[];
  errors: string[];
  journal_deleted: boolean;
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export async function runThaw(
  options: ThawOptions,
  adapters: FreezeAdapters,
): Promise<CommandResult<ThawArtifact>> {
  const { endpoint, variant } = options;
  const journal = readThawJournal(endpoint, options.stateDir);
  const journalFile = journal ? thawJournalPath(endpoint, options.stateDir) : null;
  const actions: string[] = [];
  const errors: string[] = [];
  let journalDeleted = false;

  if (journal) {
    if (journal.variant !== variant) {
      throw new UsageError(
        `${journalFile}: the journal is for variant ${journal.variant}, not ${variant}; pass the model or endpoint it names.`,
      );
    }
    const sameHost = journal.hostname === null || journal.hostname === hostname();
    if (!options.force && sameHost && journal.pid !== process.pid && processAlive(journal.pid)) {
      throw new UsageError(
        `${journalFile}: process ${journal.pid} (\`${journal.command}\`) is still running and restores the endpoint when it ends. ` +
          'Stop it (SIGINT/SIGTERM), or pass --force to thaw under it.',
      );
    }
    // The endpoint may still be Updating from the freeze (e.g. killed while waiting): capacity
    // cannot change until it is InService.
    const deadline = Date.now() + (options.waitS ?? 600) * 1000;
    let capacity = await adapters.describeVariantCapacity();
    while (capacity.endpointStatus === 'Updating' && capacity.desired !== journal.desired_instance_count) {
      if (Date.now() > deadline) break;
      await sleep(options.pollIntervalMs ?? 2000);
      capacity = await adapters.describeVariantCapacity();
    }
    const result = await restoreFromJournal(journal, adapters, {
      stateDir: options.stateDir,
      deadlineMs: options.callTimeoutMs ?? 15_000,
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

  const artifact: ThawArtifact = {
    kind: 'thaw',
    endpoint,
    variant,
    journal_file: journalFile,
    journal,
    actions,
    errors,
    journal_deleted: journalDeleted,
  };
  const lines = [`thaw ${endpoint}/${variant}:`, ...actions.map((a) => `  ${a}`)];
  for (const e of errors) lines.push(`  FAILED: ${e}`);
  if (errors.length > 0 && journalFile)
    lines.push(`  the journal ${journalFile} was kept; run thaw again once the endpoint is InService`);
  return {
    artifact,
    report: lines.join('\n'),
    exitCode: errors.length > 0 ? 1 : 0,
    written: [],
  };
}
