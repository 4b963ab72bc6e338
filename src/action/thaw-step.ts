/**
 * The post step: after the job (also when a step failed or the run was cancelled), put back
 * whatever a qmax, goodput or ttotal step of this action left frozen. The thaw journal, written before
 * anything was changed and deleted once everything was restored, says what; no journal, nothing
 * to do. Only steps that freeze (qmax, goodput, ttotal) thaw in their post: a plan step's post never
 * touches AWS. The restore itself is `scalegate thaw`'s (runThaw), journal by journal.
 */
import * as core from '@actions/core';
import { type AwsClients, withAwsClients } from '../aws/clients.js';
import { describeVariantCapacity } from '../aws/endpoint.js';
import { runThaw } from '../commands/thaw.js';
import { isUsageError } from '../model/index.js';
import { deleteThawJournal, listThawJournals, stateDir } from '../model/journal.js';
import type { Env } from './inputs.js';
import { STATE_COMMAND, STATE_DIR, stateVariable } from './state.js';

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

export async function runPost(env: Env): Promise<number> {
  const command = env[stateVariable(STATE_COMMAND)] ?? '';
  if (!FREEZING_COMMANDS.has(command)) {
    core.info(`post: the ${command || 'main'} step freezes nothing: nothing to thaw`);
    return 0;
  }
  const dir = env[stateVariable(STATE_DIR)] || stateDir(env as NodeJS.ProcessEnv);
  const journals = listThawJournals(dir);
  if (journals.length === 0) {
    core.info(`post: no thaw journal in ${dir}: nothing was left frozen`);
    return 0;
  }
  let failed = 0;
  for (const { file, journal } of journals) {
    core.info(
      `post: ${file}: ${journal.endpoint}/${journal.variant} (${journal.region}) was left frozen by \`${journal.command}\` (started ${journal.started_at}): restoring`,
    );
    try {
      failed += await withAwsClients({ region: journal.region }, async (clients) => {
        if (await endpointGone(clients, journal.endpoint, journal.variant)) {
          // e.g. the calibration endpoint, torn down by an earlier `if: always()` step of the job.
          deleteThawJournal(journal.endpoint, dir);
          core.notice(
            `scalegate: ${journal.endpoint} no longer exists (torn down): nothing to restore; its thaw journal was removed.`,
          );
          return 0;
        }
        // The main step's process has ended (the post runs after it): its pid in the journal is
        // stale, so `force` (thaw "under" a live run) cannot interfere with anything.
        const result = await runThaw(
          { endpoint: journal.endpoint, variant: journal.variant, stateDir: dir, force: true },
          { clients },
        );
        core.info(result.report);
        if (result.exitCode !== 0) {
          core.error(
            `post: ${journal.endpoint} is not fully restored; the journal ${file} is kept. Run \`scalegate thaw --endpoint ${journal.endpoint}\` with AWS credentials.`,
          );
          return 1;
        }
        core.notice(`scalegate restored ${journal.endpoint}'s scaling after an interrupted ${command} step.`);
        return 0;
      });
    } catch (e) {
      failed++;
      core.error(
        `post: restoring ${journal.endpoint} failed: ${isUsageError(e) ? e.messageFor('action') : String(e)}`,
      );
    }
  }
  return failed > 0 ? 1 : 0;
}
