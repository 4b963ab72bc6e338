/**
 * The post step: after the job (also when a step failed or the run was cancelled), put back what
 * this step's qmax, goodput or ttotal froze and did not restore. It restores only the journals this
 * step wrote, as the main step recorded them in its state before writing each (endpoint, variant,
 * region and run id): never a journal file found in the workspace, which a pull request can
 * commit. The resource id is rebuilt from the endpoint and variant; a journal file tracked by git
 * is not read (only the endpoint's own copy of this run's journal counts then). The restore
 * itself is `scalegate thaw`'s (runThaw), limited to this run's journal.
 */
import { execFileSync } from 'node:child_process';
import { dirname } from 'node:path';
import * as core from '@actions/core';
import { type AwsClients, withAwsClients } from '../aws/clients.js';
import { describeVariantCapacity } from '../aws/endpoint.js';
import { runThaw } from '../commands/thaw.js';
import { isUsageError } from '../model/index.js';
import { deleteThawJournal } from '../model/journal.js';
import type { Env } from './inputs.js';
import { info } from './log.js';
import {
  type JournalState,
  readJournalState,
  STATE_COMMAND,
  STATE_JOURNALS,
  stateVariable,
} from './state.js';

const FREEZING_COMMANDS: ReadonlySet<string> = new Set(['qmax', 'goodput', 'ttotal']);

/** True only when SageMaker says the endpoint does not exist (any other failure is not proof). */
async function endpointGone(
  clients: Pick<AwsClients, 'sagemaker'>,
  endpoint: string,
  variant: string,
): Promise<boolean> {
  try {
    await describeVariantCapacity(clients.sagemaker, endpoint, variant);
    return false;
  } catch (e) {
    const err = e as { name?: string; message?: string };
    return err.name === 'ValidationException' && /could not find endpoint/i.test(err.message ?? '');
  }
}

/** Whether git tracks `file` (committed or staged): such a file came with the checkout, not from this step. */
function trackedByGit(file: string): boolean {
  try {
    execFileSync('git', ['ls-files', '--error-unmatch', '--', file], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

async function restoreOne(entry: JournalState, command: string, dir: string): Promise<number> {
  const tracked = trackedByGit(entry.file);
  if (tracked) {
    info(
      `post: ${entry.file} is tracked by git (it came with the checkout, not from this step): not read; only the endpoint's copy of run ${entry.run_id}'s journal counts`,
    );
  }
  return withAwsClients({ region: entry.region }, async (clients) => {
    if (await endpointGone(clients, entry.endpoint, entry.variant)) {
      // e.g. the calibration endpoint, torn down by an earlier `if: always()` step of the job.
      if (!tracked) deleteThawJournal(entry.endpoint, dir, entry.run_id);
      core.notice(
        `scalegate: ${entry.endpoint} no longer exists (torn down): nothing to restore; its thaw journal was removed.`,
      );
      return 0;
    }
    // The main step's process has ended (the post runs after it): its pid in the journal is
    // stale, so `force` (thaw "under" a live run) cannot interfere with anything.
    const result = await runThaw(
      {
        endpoint: entry.endpoint,
        variant: entry.variant,
        stateDir: dir,
        force: true,
        runId: entry.run_id,
        localJournal: !tracked,
      },
      { clients },
    );
    info(result.report);
    if (result.exitCode !== 0) {
      core.error(
        `post: ${entry.endpoint} is not fully restored; its journal is kept (on the endpoint). Run \`scalegate thaw --endpoint ${entry.endpoint}\` with AWS credentials.`,
      );
      return 1;
    }
    if (result.artifact?.journal) {
      core.notice(`scalegate restored ${entry.endpoint}'s scaling after an interrupted ${command} step.`);
    }
    return 0;
  });
}

export async function runPost(env: Env): Promise<number> {
  const command = env[stateVariable(STATE_COMMAND)] ?? '';
  if (!FREEZING_COMMANDS.has(command)) {
    info(`post: the ${command || 'main'} step freezes nothing: nothing to thaw`);
    return 0;
  }
  const entries = readJournalState(env[stateVariable(STATE_JOURNALS)]);
  if (entries.length === 0) {
    info(`post: this ${command} step wrote no thaw journal: nothing to thaw`);
    return 0;
  }
  let failed = 0;
  for (const entry of entries) {
    const dir = dirname(entry.file);
    info(
      `post: ${entry.endpoint}/${entry.variant} (${entry.region}), run ${entry.run_id} of this ${command} step: restoring what its journal recorded, if anything is left`,
    );
    try {
      failed += await restoreOne(entry, command, dir);
    } catch (e) {
      failed++;
      core.error(
        `post: restoring ${entry.endpoint} failed: ${isUsageError(e) ? e.messageFor('action') : String(e)}`,
      );
    }
  }
  return failed > 0 ? 1 : 0;
}
