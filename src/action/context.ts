/**
 * What the runner tells a step about where it runs: the event (and its payload), the repository,
 * the run. Read from an explicit environment so tests drive it exactly as the runner does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { type Env, PULL_REQUEST_EVENTS } from './inputs.js';

export interface PullRequestInfo {
  number: number;
  headRef: string | null;
  headSha: string | null;
  headRepo: string | null;
  baseRef: string | null;
  baseSha: string | null;
  /** The PR comes from another repository: its GITHUB_TOKEN is read-only, and we never push to it. */
  fromFork: boolean;
}

export interface RunContext {
  eventName: string | undefined;
  repository: { owner: string; repo: string } | null;
  pullRequest: PullRequestInfo | null;
  runId: string;
  runAttempt: number;
  sha: string | null;
  serverUrl: string;
  apiUrl: string;
  workspace: string;
  /** Link to the run's page, when the repository and run id are known. */
  runUrl: string | null;
}

type Json = Record<string, unknown>;
const obj = (v: unknown): Json | null =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : null;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

export function readEventPayload(env: Env): Json {
  const path = env.GITHUB_EVENT_PATH;
  if (!path || !existsSync(path)) return {};
  try {
    return obj(JSON.parse(readFileSync(path, 'utf8'))) ?? {};
  } catch {
    return {};
  }
}

export function pullRequestOf(payload: Json, repository: string | null): PullRequestInfo | null {
  const pr = obj(payload.pull_request);
  if (!pr || typeof pr.number !== 'number') return null;
  const head = obj(pr.head);
  const base = obj(pr.base);
  const headRepo = str(obj(head?.repo)?.full_name);
  const baseRepo = str(obj(base?.repo)?.full_name) ?? repository;
  return {
    number: pr.number,
    headRef: str(head?.ref),
    headSha: str(head?.sha),
    headRepo,
    baseRef: str(base?.ref),
    baseSha: str(base?.sha),
    // A deleted fork has no head repo: treat it as a fork (never push there).
    fromFork: headRepo === null || (baseRepo !== null && headRepo.toLowerCase() !== baseRepo.toLowerCase()),
  };
}

export function readRunContext(env: Env): RunContext {
  const payload = readEventPayload(env);
  const repoEnv = env.GITHUB_REPOSITORY ?? '';
  const [owner, repo] = repoEnv.split('/');
  const payloadRepo = obj(payload.repository);
  const repository =
    owner && repo
      ? { owner, repo }
      : payloadRepo && str(obj(payloadRepo.owner)?.login) && str(payloadRepo.name)
        ? { owner: str(obj(payloadRepo.owner)?.login) as string, repo: str(payloadRepo.name) as string }
        : null;
  const fullName = repository ? `${repository.owner}/${repository.repo}` : null;
  const serverUrl = (env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '');
  const runId = env.GITHUB_RUN_ID ?? '0';
  const attempt = Number.parseInt(env.GITHUB_RUN_ATTEMPT ?? '1', 10);
  // Only pull-request events are about a pull request (a push payload has none; others may embed one).
  const pullRequest =
    env.GITHUB_EVENT_NAME && PULL_REQUEST_EVENTS.has(env.GITHUB_EVENT_NAME)
      ? pullRequestOf(payload, fullName)
      : null;
  return {
    eventName: env.GITHUB_EVENT_NAME,
    repository,
    pullRequest,
    runId,
    runAttempt: Number.isFinite(attempt) && attempt > 0 ? attempt : 1,
    sha: pullRequest?.headSha ?? env.GITHUB_SHA ?? null,
    serverUrl,
    apiUrl: (env.GITHUB_API_URL ?? 'https://api.github.com').replace(/\/+$/, ''),
    workspace: env.GITHUB_WORKSPACE ?? process.cwd(),
    runUrl: fullName && /^\d+$/.test(runId) ? `${serverUrl}/${fullName}/actions/runs/${runId}` : null,
  };
}
