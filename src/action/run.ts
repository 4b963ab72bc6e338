/**
 * The action's main step: read the inputs, run the command (the same function the CLI runs),
 * then publish: the terminal report to the log, step outputs, the job summary and, when asked,
 * the PR comment. The step's exit code is the command's: 0 ok or warn, 1 the finding the
 * command exists to catch, 2 refused input, 3 an operational error (an AWS call or the network,
 * named with its operation, resource and region; verdict `operational-error`).
 */
import * as core from '@actions/core';
import { getOctokit } from '@actions/github';
import {
  CONFIG_FILE,
  DEFAULT_ARTIFACTS_DIR,
  isOperationalError,
  isUsageError,
  loadModelContext,
  type ModelConfig,
  OperationalError,
} from '../model/index.js';
import { stateDir } from '../model/journal.js';
import {
  headline,
  type ReportInput,
  renderComment,
  renderCompactComment,
  renderReport,
} from '../report/markdown.js';
import { VERSION } from '../version.js';
import { type AttestFn, attestFiles, githubAttest, shouldAttest } from './attest.js';
import { type CommandOutcome, runActionCommand } from './commands.js';
import { readRunContext } from './context.js';
import {
  type ActionCommand,
  commentEnabled,
  type Env,
  type PublishInputs,
  rawInput,
  readCommand,
  readPublishInputs,
} from './inputs.js';
import { info } from './log.js';
import {
  outputsFrom,
  publishComment,
  readBaseConfig,
  readBasePlan,
  setStepOutputs,
  writeJobSummary,
} from './publish.js';
import { STATE_COMMAND, STATE_DIR } from './state.js';

/** State the post step reads (`STATE_<name>`): which command ran, where journals live, which it wrote. */
export { STATE_COMMAND, STATE_DIR, STATE_JOURNALS } from './state.js';

/** Under GitHub's 65536-character limit for a comment body, with room to spare. */
const COMMENT_LIMIT = 60_000;

function modelNameFor(env: Env): string | null {
  const fromEnv = rawInput(env, 'model');
  if (fromEnv) return fromEnv;
  try {
    return loadModelContext({ configFile: rawInput(env, 'config') || undefined }).modelName;
  } catch {
    return null;
  }
}

/** This pull request's entry for the model (null when the config cannot be read: nothing to compare). */
function headModel(configFile: string, modelName: string): ModelConfig | null {
  try {
    return loadModelContext({ configFile, modelName }).model;
  } catch {
    return null;
  }
}

export interface MainDeps {
  /** Signs one artifact. @default githubAttest (@actions/attest: Fulcio, Rekor, GitHub's attestations API) */
  attest?: AttestFn;
}

export async function runMain(env: Env = process.env, deps: MainDeps = {}): Promise<number> {
  // First, so that even a step cancelled mid-command leaves the post step what it needs.
  core.saveState(STATE_COMMAND, rawInput(env, 'command'));
  core.saveState(STATE_DIR, stateDir(env as NodeJS.ProcessEnv));

  const ctx = readRunContext(env);
  let command: ActionCommand | null = null;
  let publish: PublishInputs | null = null;
  let outcome: CommandOutcome | null = null;
  let refused: string | null = null;
  let failure: string | null = null;
  let operational = false;
  let bundles: string[] = [];
  try {
    command = readCommand(env);
    publish = readPublishInputs(env);
    // Refused before anything is measured when attest is true and the job cannot be attested.
    const attesting = shouldAttest(publish.attest, command, env);
    outcome = await runActionCommand(command, env);
    if (attesting && outcome.result.written.length > 0) {
      bundles = await attestWritten(outcome.result.written, publish, deps.attest ?? githubAttest);
    }
  } catch (e) {
    if (isUsageError(e)) refused = e.messageFor('action');
    else {
      // Not the user's input: an AWS error, an outage, an interrupted measurement. Still publish.
      failure = (e as Error).message ?? String(e);
      operational = isOperationalError(e);
      core.debug(String((e as Error).stack));
    }
  }
  const exitCode: number =
    refused !== null ? 2 : failure !== null ? (operational ? 3 : 1) : (outcome?.result.exitCode ?? 1);
  // Reports and notes quote files a pull request can write: printed inert (src/action/log.ts).
  for (const note of outcome?.notes ?? []) info(note);
  if (outcome) info(outcome.result.report.trimEnd());

  const modelName = outcome?.modelName ?? modelNameFor(env);
  const commandName = command ?? (rawInput(env, 'command') || 'unknown');
  const artifactsDir = rawInput(env, 'artifacts-dir') || DEFAULT_ARTIFACTS_DIR;
  const at = new Date().toISOString();
  const token = publish?.githubToken ?? (rawInput(env, 'github-token') || undefined);
  const octokit = token && ctx.repository ? getOctokit(token, { baseUrl: ctx.apiUrl }) : null;

  const input: ReportInput = {
    modelName: modelName ?? 'unknown model',
    command: commandName,
    exitCode,
    version: VERSION,
    refused,
    error: failure,
    operational,
    ...(outcome?.report ?? {}),
    run: { id: ctx.runId, attempt: ctx.runAttempt, at, url: ctx.runUrl, sha: ctx.sha },
  };
  if (octokit && outcome && modelName && input.plan && ctx.pullRequest) {
    Object.assign(input, await readBasePlan(octokit, ctx, artifactsDir, modelName));
    const configFile = rawInput(env, 'config') || CONFIG_FILE;
    const head = headModel(configFile, modelName);
    if (head) Object.assign(input, await readBaseConfig(octokit, ctx, configFile, modelName, head));
  }

  const markdown = renderReport(input);
  const verdict = headline(input).verdict;
  let commentUrl = '';
  const wantComment = commentEnabled(publish ?? { comment: 'auto' }, ctx.eventName);
  if (wantComment) {
    if (!octokit) {
      core.warning('comment: no github-token (or no repository): not commenting');
    } else if (!modelName) {
      core.warning('comment: no model could be determined: not commenting');
    } else {
      const stamp = { runId: ctx.runId, attempt: ctx.runAttempt, at };
      let body = renderComment(input, stamp);
      if (body.length > COMMENT_LIMIT) {
        // GitHub refuses comments over 65536 characters: keep the verdict, point at the summary.
        body = renderCompactComment(input, stamp);
        if (body.length > COMMENT_LIMIT)
          body = `${body.slice(0, COMMENT_LIMIT - 200)}\n\n(truncated: see the job summary)\n`;
      }
      const result = await publishComment(octokit, ctx, { model: modelName, body, stamp });
      commentUrl = result?.url ?? '';
    }
  }

  const written = [...(outcome?.result.written ?? []), ...bundles];
  setStepOutputs({ ...outputsFrom(input, verdict, written), commentUrl });
  await writeJobSummary(markdown, env);

  if (exitCode !== 0) {
    core.setFailed(
      refused ??
        (failure !== null
          ? `scalegate ${commandName}: ${operational ? 'operational error: ' : ''}${failure}`
          : `scalegate ${commandName} ${modelName ?? ''}: ${verdict} (exit ${exitCode}); see the report above and the job summary`),
    );
  }
  return exitCode;
}

/**
 * Attests the step's files. A failure is a warning with `attest: auto` (the artifacts stay, the
 * release gate will refuse them unattested) and an operational error (exit 3) with `attest: true`.
 */
async function attestWritten(written: string[], publish: PublishInputs, attest: AttestFn): Promise<string[]> {
  try {
    const bundles = await attestFiles(written, attest, publish.githubToken);
    for (const b of bundles) info(`attested: ${b}`);
    return bundles;
  } catch (e) {
    const failure = new OperationalError(
      { operation: 'attest (Sigstore)', resource: written.join(', '), region: null },
      e,
    );
    if (publish.attest === 'true') throw failure;
    core.warning(`${failure.message}: the artifacts are not attested, and the release gate will refuse them`);
    return [];
  }
}
