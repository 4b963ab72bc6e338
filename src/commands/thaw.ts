/**
 * `scalegate thaw`: undo a freeze, restoring only what a thaw journal recorded.
 *
 * The journal a freeze writes travels with the endpoint (its tags) as well as on the machine that
 * froze it, and the tags are written before anything changes and removed only after everything is
 * restored. So the endpoint's journal is the one that counts: restored exactly (desired count,
 * suspension flags), then removed. A local journal the endpoint does not carry recorded a freeze
 * that changed nothing (it stopped before tagging) or that was already restored elsewhere: it is
 * removed and nothing changes. With no journal at all, thaw reports the target's suspension flags
 * and changes nothing: flags an operator set on purpose stay set, unless `clearSuspension`.
 * Running it again changes nothing.
 */
import { hostname } from 'node:os';
import type { AwsClients } from '../aws/clients.js';
import { variantResourceId } from '../aws/scaling.js';
import { opt, usage } from '../model/errors.js';
import {
  claimIsFresh,
  claimsFromTags,
  claimTagKey,
  describeClaim,
  staleAfterMs,
} from '../model/freeze-claim.js';
import {
  deleteThawJournal,
  journalFromTags,
  NOT_SUSPENDED,
  readThawJournal,
  type ThawJournal,
  thawJournalPath,
} from '../model/journal.js';
import type { ThawReport } from '../model/reports.js';
import { checkAwsName } from '../model/safe.js';
import { renderThawReport } from '../report/thaw-text.js';
import {
  anySuspended,
  awsFreezeAdapters,
  describeJournalOwner,
  type FreezeAdapters,
  icFreezeAdapters,
  journalComponent,
  restoreFromJournal,
} from './freeze.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';

export type { ThawReport } from '../model/reports.js';

export interface ThawInput {
  endpoint: string;
  variant: string;
  /** @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** Thaw even though the journal's run is still measuring (fresh heartbeat, or its process alive here). @default false */
  force?: boolean;
  /** Without any journal, clear the target's suspension flags (otherwise nothing changes). @default false */
  clearSuspension?: boolean;
  /** Restore only the journal of this run (the action's post step: the run it froze). @default any run */
  runId?: string;
  /** Read the local journal file (false: the endpoint's journal only, e.g. the file is tracked by git). @default true */
  localJournal?: boolean;
  /** Longest wait for an Updating endpoint to become InService before setting its capacity, s. @default 600 */
  waitS?: number;
  /** @default 2000 */
  pollIntervalMs?: number;
  /** Per-call deadline for the restore calls, ms. @default 15000 */
  callTimeoutMs?: number;
  /** Read the journals and the endpoint, say what a thaw would restore, change nothing. @default false */
  dryRun?: boolean;
  /** The freezes' heartbeat period, ms (a claim is live while its beat is younger than three). @default HEARTBEAT_DEFAULTS.everyMs */
  heartbeatMs?: number;
  /** @default Date.now */
  clock?: () => number;
}

/** The adapters with every change refused: a dry run reads, and nothing it calls can write. */
function readOnly(adapters: FreezeAdapters): FreezeAdapters {
  const refuse = (what: string) => async () => {
    throw new Error(`thaw --dry-run: ${what} would change the endpoint (refused)`);
  };
  return {
    ...adapters,
    registerSuspendedState: refuse('RegisterScalableTarget'),
    setDesiredInstanceCount: refuse('UpdateEndpointWeightsAndCapacities'),
    addEndpointTags: refuse('AddTags'),
    deleteEndpointTags: refuse('DeleteTags'),
  };
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

const flagsText = (s: ThawJournal['suspended_state'] & object): string =>
  `in=${s.dynamic_scaling_in_suspended}, out=${s.dynamic_scaling_out_suspended}, scheduled=${s.scheduled_scaling_suspended}`;

export async function runThaw(input: ThawInput, deps: ThawDeps): Promise<CommandResult<ThawReport>> {
  const endpoint = checkAwsName(input.endpoint, 'endpoint', '--endpoint');
  const variant = checkAwsName(input.variant, 'variant', '--variant');
  const { log, signal } = resolveDeps(deps);
  const given = deps.adapters ?? (deps.clients ? awsFreezeAdapters(deps.clients, endpoint, variant) : null);
  if (!given) throw new Error('thaw needs AWS clients (or freeze adapters)');
  const dryRun = input.dryRun === true;
  const adapters = dryRun ? readOnly(given) : given;
  const resourceId = variantResourceId(endpoint, variant);
  const file = thawJournalPath(endpoint, input.stateDir);
  const actions: string[] = [];
  const errors: string[] = [];
  const ours = (j: ThawJournal | null): j is ThawJournal =>
    j !== null && (input.runId === undefined || j.run_id === input.runId);

  let local = input.localJournal === false ? null : readThawJournal(endpoint, input.stateDir);
  if (local && !ours(local)) {
    actions.push(`local journal ${file} is ${describeJournalOwner(local)}, not run ${input.runId}: ignored`);
    local = null;
  }
  if (local && local.variant !== variant) {
    throw usage`${file}: the journal is for variant ${local.variant}, not ${variant}; pass the model or endpoint it names.`;
  }
  const tags = await adapters.readEndpointTags();
  const onEndpoint = journalFromTags(tags, `endpoint ${endpoint}`);
  const now = (input.clock ?? Date.now)();
  const { claims, unreadable } = claimsFromTags(tags);
  if (onEndpoint && (onEndpoint.endpoint !== endpoint || onEndpoint.variant !== variant)) {
    throw usage`endpoint ${endpoint}: the thaw journal in its tags is for ${onEndpoint.endpoint}/${onEndpoint.variant}, not ${endpoint}/${variant}: it is not restored. Inspect with \`scalegate drift\` and remove the tags (aws sagemaker delete-tags).`;
  }
  let journal: ThawJournal | null = null;
  let source: string | null = null;
  if (onEndpoint && ours(onEndpoint)) {
    journal = onEndpoint;
    source = `the journal on endpoint ${endpoint}`;
  } else if (onEndpoint) {
    actions.push(
      `endpoint ${endpoint} carries ${describeJournalOwner(onEndpoint)}'s journal, not run ${input.runId}'s: left alone`,
    );
  }
  if (local && (!journal || local.run_id !== journal.run_id)) {
    // Tags are written before anything changes and removed only once all is restored: a local
    // journal the endpoint does not carry has nothing left to restore.
    if (!dryRun) deleteThawJournal(endpoint, input.stateDir, local.run_id);
    actions.push(
      `local journal ${file} (${describeJournalOwner(local)}) ${dryRun ? 'would be removed' : 'removed'}: the endpoint does not carry it, so that freeze changed nothing or was already restored`,
    );
  }

  let journalDeleted = false;
  if (journal) {
    const sameHost = journal.hostname === null || journal.hostname === hostname();
    const live = claims.find((c) => c.runId === journal?.run_id && claimIsFresh(c, now, input.heartbeatMs));
    // On the host that froze it, a process that is gone is proof the run is gone (a SIGKILL leaves
    // its last heartbeat fresh for a while); from any other host only the heartbeat tells.
    const goneHere = sameHost && journal.pid !== process.pid && !processAlive(journal.pid);
    if (live && !goneHere && !input.force) {
      throw usage`${source}: ${describeClaim(live, now)} is still measuring (its heartbeat is fresh) and restores the endpoint when it ends; a thaw now would unfreeze a live measurement. Stop that run, or wait until its heartbeat is older than ${Math.round(staleAfterMs(input.heartbeatMs) / 1000)} s, or thaw under it with ${opt('force')}.`;
    }
    if (!input.force && sameHost && journal.pid !== process.pid && processAlive(journal.pid)) {
      throw usage`${source}: process ${journal.pid} (\`${journal.command}\`) is still running and restores the endpoint when it ends. Stop it (SIGINT/SIGTERM), or thaw under it with ${opt('force')}.`;
    }
    if (dryRun) {
      actions.push(
        `${source}: ${describeJournalOwner(journal)}`,
        ...(await wouldRestore(journal, adapters, file, local)),
      );
      return thawResult({ endpoint, variant, file, journal, local, actions, errors, deleted: false, dryRun });
    }
    // The endpoint may still be Updating from the freeze (e.g. killed while draining): the restore
    // waits that out (up to waitS) before putting the capacity back.
    // A component's journal restores its copy count and its scalable target, not the variant's.
    const component = journalComponent(journal.resource_id);
    const restoring =
      component && !deps.adapters && deps.clients
        ? icFreezeAdapters(deps.clients, endpoint, variant, component)
        : adapters;
    const result = await restoreFromJournal(journal, restoring, {
      stateDir: input.stateDir,
      budgetMs: (input.waitS ?? 600) * 1000,
      callTimeoutMs: input.callTimeoutMs ?? 15_000,
      pollIntervalMs: input.pollIntervalMs ?? 2000,
      signal,
      log: (line) => log(`thaw: ${line}`),
    });
    actions.push(`${source}: ${describeJournalOwner(journal)}`);
    actions.push(...result.actions);
    errors.push(...result.errors);
    journalDeleted = result.journalDeleted;
    if (journalDeleted) actions.push('journal deleted');
  } else {
    const target = await adapters.describeScalableTarget(resourceId);
    if (!target) {
      actions.push(`no thaw journal and no scalable target for ${resourceId}: nothing to restore`);
    } else if (!anySuspended(target.suspended)) {
      actions.push(`no thaw journal; ${resourceId} is not suspended: nothing to do`);
    } else if (input.clearSuspension) {
      // Suspended flags under another run's fresh claim are that run's freeze, not a leftover.
      const measuring = claims.find((c) => claimIsFresh(c, now, input.heartbeatMs));
      if (measuring && !input.force) {
        throw usage`endpoint ${endpoint}: ${describeClaim(measuring, now)} is still measuring (its heartbeat is fresh): its suspension flags are that run's freeze, and clearing them would unfreeze a live measurement. Stop that run, or wait until its heartbeat is older than ${Math.round(staleAfterMs(input.heartbeatMs) / 1000)} s, or clear them under it with ${opt('force')}.`;
      }
      if (!dryRun) await adapters.registerSuspendedState(resourceId, NOT_SUSPENDED);
      actions.push(
        dryRun
          ? `no thaw journal: would clear the suspension flags of ${resourceId} (now ${flagsText(target.suspended)}; RegisterScalableTarget), as --clear-suspension asked`
          : `no thaw journal: cleared the suspension flags of ${resourceId} (were ${flagsText(target.suspended)}), as --clear-suspension asked`,
      );
    } else {
      actions.push(
        `no thaw journal (on the endpoint or in ${file}): nothing recorded to restore, nothing changed. ${resourceId} has scaling suspended (${flagsText(target.suspended)}); if that is a leftover and not an operator's choice, clear it with --clear-suspension`,
      );
    }
  }

  // Claims of runs that are gone (stale heartbeat, unreadable), and the restored run's own: removed.
  const leftovers = [
    ...claims
      .filter(
        (c) =>
          !claimIsFresh(c, now, input.heartbeatMs) ||
          (journal !== null && journalDeleted && c.runId === journal.run_id),
      )
      .map((c) => claimTagKey(c.runId)),
    ...unreadable,
  ];
  const current = dryRun || leftovers.length === 0 ? tags : await adapters.readEndpointTags();
  const gone = leftovers.filter((key) => key in current);
  if (gone.length > 0) {
    if (!dryRun) await adapters.deleteEndpointTags(gone);
    actions.push(
      `${dryRun ? 'would remove' : 'removed'} the freeze claim${gone.length === 1 ? '' : 's'} of runs that are gone: ${gone.join(', ')}`,
    );
  }

  return thawResult({
    endpoint,
    variant,
    file,
    journal,
    local,
    actions,
    errors,
    deleted: journalDeleted,
    dryRun,
  });
}

function thawResult(r: {
  endpoint: string;
  variant: string;
  file: string;
  journal: ThawJournal | null;
  local: ThawJournal | null;
  actions: string[];
  errors: string[];
  deleted: boolean;
  dryRun: boolean;
}): CommandResult<ThawReport> {
  const artifact: ThawReport = {
    kind: 'thaw',
    endpoint: r.endpoint,
    variant: r.variant,
    journal_file: r.journal && r.local && r.local.run_id === r.journal.run_id ? r.file : null,
    journal: r.journal,
    actions: r.actions,
    errors: r.errors,
    journal_deleted: r.deleted,
    ...(r.dryRun ? { dry_run: true } : {}),
  };
  return {
    artifact,
    report: renderThawReport(artifact),
    exitCode: r.errors.length > 0 ? 1 : 0,
    written: [],
  };
}

/** What restoring `journal` would do, from what the endpoint reports now (reads only). */
async function wouldRestore(
  journal: ThawJournal,
  adapters: FreezeAdapters,
  file: string,
  local: ThawJournal | null,
): Promise<string[]> {
  const lines: string[] = [];
  const capacity = await adapters.describeVariantCapacity();
  lines.push(
    capacity.desired === journal.desired_instance_count
      ? `desired instance count already ${journal.desired_instance_count}: would stay`
      : `would set the desired instance count ${capacity.desired ?? '?'} -> ${journal.desired_instance_count} (UpdateEndpointWeightsAndCapacities${capacity.endpointStatus === 'InService' ? '' : `, once the endpoint, now ${capacity.endpointStatus}, is InService`})`,
  );
  if (journal.scalable_target_registered && journal.suspended_state) {
    const resourceId = variantResourceId(journal.endpoint, journal.variant);
    lines.push(
      `would restore the suspension flags of ${resourceId} to ${flagsText(journal.suspended_state)} (RegisterScalableTarget)`,
    );
  }
  lines.push(`would remove run ${journal.run_id}'s journal from the endpoint's tags (DeleteTags)`);
  if (local && local.run_id === journal.run_id) lines.push(`would delete the local journal ${file}`);
  return lines;
}
