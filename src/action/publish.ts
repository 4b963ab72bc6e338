/**
 * What a step publishes besides its artifacts: step outputs, the job summary, and (when asked)
 * the PR comment. Failures to publish are warnings: the command's exit code decides the step.
 */
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import * as core from '@actions/core';
import type { getOctokit } from '@actions/github';
import { isLowerBound } from '../analysis/ttotal.js';
import {
  isUsageError,
  type ModelConfig,
  type PlanArtifact,
  parseArtifact,
  parseConfig,
  planFileName,
} from '../model/index.js';
import { type ConfigWeakening, configWeakenings } from '../plan/config-weakening.js';
import type { ReportInput } from '../report/markdown.js';
import { readFileAtRef, resolveIdentity, type UpsertResult, upsertModelComment } from './comment.js';
import type { RunContext } from './context.js';
import { info } from './log.js';

export interface StepOutputs {
  verdict: string;
  exitCode: number;
  artifactPath: string;
  writtenFiles: string[];
  model: string;
  qMax: number | null;
  tTotalS: number | null;
  /** measured | stated | lower-bound: what t-total-s is (empty when there is none). */
  tTotalOrigin: string;
  scalingTargetValue: number | null;
  scaleInThreshold: number | null;
  commentUrl: string;
}

const text = (v: number | null): string => (v === null ? '' : `${v}`);

export function setStepOutputs(o: StepOutputs): void {
  core.setOutput('verdict', o.verdict);
  core.setOutput('exit-code', `${o.exitCode}`);
  core.setOutput('artifact-path', o.artifactPath);
  core.setOutput('written-files', o.writtenFiles.join('\n'));
  core.setOutput('model', o.model);
  core.setOutput('q-max', text(o.qMax));
  core.setOutput('t-total-s', text(o.tTotalS));
  core.setOutput('t-total-origin', o.tTotalOrigin);
  core.setOutput('scaling-target-value', text(o.scalingTargetValue));
  core.setOutput('scale-in-threshold', text(o.scaleInThreshold));
  core.setOutput('comment-url', o.commentUrl);
}

export function outputsFrom(
  input: ReportInput,
  verdict: string,
  written: string[],
): Omit<StepOutputs, 'commentUrl'> {
  const plan = input.plan?.artifact ?? null;
  return {
    verdict,
    exitCode: input.exitCode,
    artifactPath: written[0] ?? '',
    writtenFiles: written,
    model: input.modelName,
    qMax: plan?.measured.q_max ?? input.qmax?.artifact.q_max ?? null,
    tTotalS: plan?.measured.t_total_s ?? input.ttotal?.artifact.t_total_s ?? null,
    tTotalOrigin: plan
      ? plan.measured.t_total_origin
      : input.ttotal
        ? isLowerBound(input.ttotal.artifact)
          ? 'lower-bound'
          : 'measured'
        : '',
    scalingTargetValue: plan?.deployable.scaling_target_value ?? null,
    scaleInThreshold: plan?.deployable.scale_in_threshold ?? null,
  };
}

export async function writeJobSummary(
  markdown: string,
  env: Record<string, string | undefined>,
): Promise<void> {
  if (!env.GITHUB_STEP_SUMMARY) {
    info('no GITHUB_STEP_SUMMARY: job summary not written');
    return;
  }
  try {
    await core.summary.addRaw(markdown).write();
  } catch (e) {
    core.warning(`job summary not written: ${(e as Error).message}`);
  }
}

/** The plan file as a path inside the repository (posix), or null when it lies outside it. */
export function repoPath(file: string, workspace: string): string | null {
  const rel = relative(resolve(workspace), resolve(file));
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) return null;
  return rel.split(sep).join(posix.sep);
}

export interface BaseComparison {
  basePlan: { artifact: PlanArtifact; ref: string } | null;
  baseNote: string | null;
}

/** The base branch's plan for the model, through the contents API (no checkout of the base). */
export async function readBasePlan(
  octokit: ReturnType<typeof getOctokit>,
  ctx: RunContext,
  artifactsDir: string,
  modelName: string,
): Promise<BaseComparison> {
  const pr = ctx.pullRequest;
  if (!pr || !ctx.repository) return { basePlan: null, baseNote: null };
  const ref = pr.baseRef ?? pr.baseSha;
  if (!ref) return { basePlan: null, baseNote: null };
  const path = repoPath(`${artifactsDir}/${planFileName(modelName)}`, ctx.workspace);
  if (!path) return { basePlan: null, baseNote: null };
  try {
    const raw = await readFileAtRef(octokit, ctx.repository, path, ref);
    if (raw === null) {
      return { basePlan: null, baseNote: `${ref} has no ${path}: this is the model's first plan.` };
    }
    const artifact = parseArtifact('plan', JSON.parse(raw), `${path}@${ref}`);
    return { basePlan: { artifact, ref }, baseNote: null };
  } catch (e) {
    const why =
      isUsageError(e) || e instanceof SyntaxError
        ? (e as Error).message.split('\n')[0]
        : (e as Error).message;
    core.warning(`base plan ${path} at ${ref} not compared: ${why}`);
    return {
      basePlan: null,
      baseNote: `The plan on ${ref} could not be read, so nothing is compared: ${why}`,
    };
  }
}

export interface BaseConfigComparison {
  configWeakenings: ConfigWeakening[] | null;
  configBaseRef: string | null;
  configBaseNote: string | null;
}

/**
 * The model's config entry on the base branch against this pull request's (through the contents
 * API, no checkout of the base): the changes that weaken the release gate.
 */
export async function readBaseConfig(
  octokit: ReturnType<typeof getOctokit>,
  ctx: RunContext,
  configFile: string,
  modelName: string,
  head: ModelConfig,
): Promise<BaseConfigComparison> {
  const none = { configWeakenings: null, configBaseRef: null, configBaseNote: null };
  const pr = ctx.pullRequest;
  if (!pr || !ctx.repository) return none;
  const ref = pr.baseRef ?? pr.baseSha;
  const path = repoPath(configFile, ctx.workspace);
  if (!ref || !path) return none;
  try {
    const raw = await readFileAtRef(octokit, ctx.repository, path, ref);
    if (raw === null) return { ...none, configBaseRef: ref };
    const base = parseConfig(raw, `${path}@${ref}`).models[modelName] ?? null;
    return { configWeakenings: configWeakenings(base, head), configBaseRef: ref, configBaseNote: null };
  } catch (e) {
    const why = isUsageError(e) ? (e as Error).message.split('\n')[0] : (e as Error).message;
    core.warning(`base config ${path} at ${ref} not compared: ${why}`);
    return {
      ...none,
      configBaseRef: ref,
      configBaseNote: `The config on ${ref} could not be read, so no weakening of the gate is looked for: ${why}`,
    };
  }
}

export async function publishComment(
  octokit: ReturnType<typeof getOctokit>,
  ctx: RunContext,
  options: { model: string; body: string; stamp: { runId: string; attempt: number; at: string } },
): Promise<UpsertResult | null> {
  const pr = ctx.pullRequest;
  if (!pr || !ctx.repository) {
    info('comment: not a pull request event, no comment');
    return null;
  }
  const log = { info, warning: core.warning };
  try {
    const login = await resolveIdentity(octokit, log);
    const result = await upsertModelComment(
      octokit,
      { owner: ctx.repository.owner, repo: ctx.repository.repo, issueNumber: pr.number },
      { ...options, login },
      log,
    );
    info(`comment ${result.action} as ${login}: ${result.url}`);
    return result;
  } catch (e) {
    const status = (e as { status?: number }).status;
    const hint =
      status === 403 && pr.fromFork
        ? ' (pull requests from forks get a read-only token: the job summary has the report)'
        : status === 403
          ? ' (give the job `pull-requests: write`)'
          : '';
    core.warning(`PR comment not written: ${(e as Error).message}${hint}`);
    return null;
  }
}
