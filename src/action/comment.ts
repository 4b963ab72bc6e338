/**
 * The PR comment: one per model per pull request, updated in place.
 *
 * Identity. A comment is ours when (1) its first line is the hidden marker
 * `<!-- scalegate:model=<name> -->` and (2) its author is the login the token authenticates as.
 * The login comes from GraphQL `viewer { login }`, which answers for the Actions GITHUB_TOKEN
 * (`github-actions[bot]`), GitHub App installation tokens (`<slug>[bot]`) and personal tokens
 * alike; REST `GET /user` is the fallback (it refuses installation tokens with 403). Without an
 * identity we do not comment: we never guess whose comment to overwrite.
 *
 * Ordering. The comment carries `<!-- scalegate:run id=… attempt=… at=… -->`. A run replaces
 * the comment only when its stamp is not older: higher run id wins (GitHub run ids grow with
 * time), then the higher attempt, then the later time (steps of one job update it in order).
 *
 * Every page of comments is read (100 per page, following the Link header to the end). Should
 * two runs race and both create a comment, the one that notices keeps the oldest comment,
 * gives it the newest body and deletes the other: the PR converges to one comment per model.
 */
import type { getOctokit } from '@actions/github';
import { hasModelMarker, parseRunMarker, type RunStamp } from '../report/markdown.js';

export type Octokit = ReturnType<typeof getOctokit>;

export interface CommentTarget {
  owner: string;
  repo: string;
  issueNumber: number;
}

export interface IssueComment {
  id: number;
  body: string;
  login: string | null;
  url: string;
}

export type UpsertAction = 'created' | 'updated' | 'unchanged' | 'kept-newer';

export interface UpsertResult {
  action: UpsertAction;
  id: number;
  url: string;
  /** Duplicates of ours that were removed (a race between two runs). */
  deleted: number[];
}

export interface Logger {
  info(message: string): void;
  warning(message: string): void;
}

/** Who the token posts as. */
export async function resolveIdentity(octokit: Octokit, log: Logger): Promise<string> {
  try {
    const data = await octokit.graphql<{ viewer?: { login?: string } }>('query { viewer { login } }');
    const login = data.viewer?.login;
    if (login) return login;
  } catch (e) {
    log.info(`GraphQL viewer query failed (${(e as Error).message}); trying GET /user`);
  }
  try {
    const { data } = await octokit.rest.users.getAuthenticated();
    if (data.login) return data.login;
  } catch (e) {
    throw new Error(
      `cannot tell which account the github-token posts as (GraphQL viewer and GET /user both failed: ${(e as Error).message})`,
    );
  }
  throw new Error('cannot tell which account the github-token posts as (no login in the answer)');
}

export async function listIssueComments(octokit: Octokit, target: CommentTarget): Promise<IssueComment[]> {
  const comments: IssueComment[] = [];
  for await (const page of octokit.paginate.iterator(octokit.rest.issues.listComments, {
    owner: target.owner,
    repo: target.repo,
    issue_number: target.issueNumber,
    per_page: 100,
  })) {
    for (const c of page.data) {
      comments.push({ id: c.id, body: c.body ?? '', login: c.user?.login ?? null, url: c.html_url });
    }
  }
  return comments;
}

const isDecimal = (s: string): boolean => /^\d+$/.test(s);

/** <0: a is older than b; 0: same; >0: a is newer. */
export function compareStamps(a: RunStamp, b: RunStamp): number {
  if (a.runId !== b.runId) {
    if (isDecimal(a.runId) && isDecimal(b.runId)) return BigInt(a.runId) < BigInt(b.runId) ? -1 : 1;
    return a.runId < b.runId ? -1 : 1;
  }
  if (a.attempt !== b.attempt) return a.attempt - b.attempt;
  const ta = Date.parse(a.at);
  const tb = Date.parse(b.at);
  if (Number.isFinite(ta) && Number.isFinite(tb) && ta !== tb) return ta - tb;
  return 0;
}

/** Ours: our marker for this model on the first line, and written by our login. */
export function ourComments(comments: readonly IssueComment[], login: string, model: string): IssueComment[] {
  return comments
    .filter((c) => c.login !== null && c.login.toLowerCase() === login.toLowerCase())
    .filter((c) => hasModelMarker(c.body, model))
    .sort((a, b) => a.id - b.id);
}

const stampOf = (c: IssueComment): RunStamp => parseRunMarker(c.body) ?? { runId: '0', attempt: 0, at: '' };

function newestOf(comments: readonly IssueComment[]): IssueComment {
  return comments.reduce((best, c) => (compareStamps(stampOf(c), stampOf(best)) > 0 ? c : best));
}

/** Several of ours (a race): keep the oldest comment, give it the newest body, delete the rest. */
async function converge(
  octokit: Octokit,
  target: CommentTarget,
  ours: IssueComment[],
  log: Logger,
): Promise<{ keep: IssueComment; deleted: number[] }> {
  const keep = ours[0] as IssueComment;
  const newest = newestOf(ours);
  if (newest.id !== keep.id && newest.body !== keep.body) {
    const { data } = await octokit.rest.issues.updateComment({
      owner: target.owner,
      repo: target.repo,
      comment_id: keep.id,
      body: newest.body,
    });
    keep.body = data.body ?? newest.body;
  }
  const deleted: number[] = [];
  for (const c of ours.slice(1)) {
    await octokit.rest.issues.deleteComment({ owner: target.owner, repo: target.repo, comment_id: c.id });
    deleted.push(c.id);
  }
  if (deleted.length > 0)
    log.info(`removed ${deleted.length} duplicate scalegate comment(s): ${deleted.join(', ')}`);
  return { keep, deleted };
}

export async function upsertModelComment(
  octokit: Octokit,
  target: CommentTarget,
  options: { model: string; body: string; stamp: RunStamp; login: string },
  log: Logger,
): Promise<UpsertResult> {
  const { model, body, stamp, login } = options;
  const ours = ourComments(await listIssueComments(octokit, target), login, model);

  if (ours.length === 0) {
    const { data } = await octokit.rest.issues.createComment({
      owner: target.owner,
      repo: target.repo,
      issue_number: target.issueNumber,
      body,
    });
    // Another run may have created its own meanwhile: look again and converge.
    const again = ourComments(await listIssueComments(octokit, target), login, model);
    if (again.length > 1) {
      const { keep, deleted } = await converge(octokit, target, again, log);
      return { action: keep.id === data.id ? 'created' : 'updated', id: keep.id, url: keep.url, deleted };
    }
    return { action: 'created', id: data.id, url: data.html_url, deleted: [] };
  }

  const { keep, deleted } =
    ours.length > 1
      ? await converge(octokit, target, ours, log)
      : { keep: ours[0] as IssueComment, deleted: [] };
  const existing = parseRunMarker(keep.body);
  if (existing && compareStamps(stamp, existing) < 0) {
    log.info(
      `comment ${keep.url} is from run ${existing.runId} (attempt ${existing.attempt}, ${existing.at}), newer than this run ${stamp.runId} (attempt ${stamp.attempt}): left as it is`,
    );
    return { action: 'kept-newer', id: keep.id, url: keep.url, deleted };
  }
  if (keep.body === body) return { action: 'unchanged', id: keep.id, url: keep.url, deleted };
  const { data } = await octokit.rest.issues.updateComment({
    owner: target.owner,
    repo: target.repo,
    comment_id: keep.id,
    body,
  });
  return { action: 'updated', id: data.id, url: data.html_url, deleted };
}

/** The base branch's file at `path`, or null when it does not exist there. */
export async function readFileAtRef(
  octokit: Octokit,
  repo: { owner: string; repo: string },
  path: string,
  ref: string,
): Promise<string | null> {
  try {
    const { data } = await octokit.rest.repos.getContent({ owner: repo.owner, repo: repo.repo, path, ref });
    if (typeof data === 'string') return data;
    if (Array.isArray(data) || data.type !== 'file') return null;
    if ('content' in data && typeof data.content === 'string') {
      return Buffer.from(
        data.content,
        (data.encoding as BufferEncoding) === 'base64' ? 'base64' : 'utf8',
      ).toString('utf8');
    }
    return null;
  } catch (e) {
    if ((e as { status?: number }).status === 404) return null;
    throw e;
  }
}
