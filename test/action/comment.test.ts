/**
 * The bundled action (dist/main.mjs), run as the runner runs it, against a loopback GitHub: the PR
 * comment is created once, updated in place, never duplicated, never overwritten by an older run,
 * never taken from someone else, and found however many pages of comments precede it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/anchor.js';
import { ACTIONS_BOT, FakeGitHub } from './fake-github.js';
import { fixturesDir, makeWorkspace, runStep } from './run-action.js';

const MARKER = '<!-- scalegate:model=kokoro-82m -->';
const TOKEN = 'ghs-actions-token';
const PR = 42;

let github: FakeGitHub;

beforeEach(async () => {
  github = new FakeGitHub();
  await github.start();
});
afterEach(async () => {
  await github.stop();
});

const planStep = (runId: number, extra: Record<string, string> = {}, workspace = makeWorkspace()) =>
  runStep({
    entry: 'main',
    workspace,
    runId,
    apiUrl: github.url,
    inputs: { command: 'plan', model: 'kokoro-82m', 'github-token': TOKEN, ...extra },
  });

const ours = () => github.commentsOn(PR).filter((c) => c.body.startsWith(MARKER));

describe('the PR comment (bundled entry against a fake GitHub)', () => {
  it('creates exactly one comment on the first plan run, and writes outputs and the job summary (a silent or duplicated verdict would go unnoticed)', async () => {
    const run = await planStep(9000000100);
    expect(run.status, run.stdout + run.stderr).toBe(0);

    expect(github.requestsMatching('POST', /\/issues\/42\/comments$/)).toHaveLength(1);
    expect(ours()).toHaveLength(1);
    const comment = ours()[0];
    expect(comment?.user.login).toBe('github-actions[bot]');
    expect(comment?.body).toContain('scalegate plan · kokoro-82m: **warn (3)**');
    expect(comment?.body).toContain('<!-- scalegate:run id=9000000100 attempt=1 at=');
    expect(comment?.body).toContain('xychart-beta');

    expect(run.outputs).toMatchObject({
      verdict: 'warn',
      'exit-code': '0',
      'artifact-path': 'artifacts/plan-kokoro-82m.json',
      'q-max': '50',
      't-total-s': '260.248496',
      'scaling-target-value': '6',
      'scale-in-threshold': '7',
      'comment-url': `https://github.com/acme/speech/pull/42#issuecomment-${comment?.id}`,
    });
    // The same Markdown as the comment, without the hidden markers.
    expect(run.summary).toContain('## ⚠️ scalegate plan · kokoro-82m: **warn (3)**');
    expect(run.summary).toContain('| ✅ ok | `surge_survival` |');
    expect(run.summary).toContain('| closed-loop rule (seed) |');
    expect(comment?.body.endsWith(run.summary)).toBe(true);
    // The step's state tells the post step what ran.
    expect(run.state.command).toBe('plan');
  });

  it('updates that comment on a second run instead of adding one (no comment pile-up per push)', async () => {
    await planStep(9000000100);
    const first = ours()[0];
    github.resetRequests();
    const second = await planStep(9000000200, { 'surge-ratio': '1.2' });
    expect(second.status, second.stdout + second.stderr).toBe(0);
    expect(github.requestsMatching('POST', /\/comments$/)).toHaveLength(0);
    expect(github.requestsMatching('PATCH', new RegExp(`/issues/comments/${first?.id}$`))).toHaveLength(1);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.id).toBe(first?.id);
    expect(ours()[0]?.body).toContain('run id=9000000200');
    expect(second.outputs['comment-url']).toContain(`#issuecomment-${first?.id}`);
  });

  it('leaves a newer run’s comment alone when an older run finishes last (a stale verdict never replaces a fresh one)', async () => {
    await planStep(9000000300);
    const newer = ours()[0]?.body;
    github.resetRequests();
    const older = await planStep(9000000250, { 'surge-ratio': '1.2' });
    expect(older.status, older.stdout + older.stderr).toBe(0);
    expect(github.requestsMatching('PATCH', /\/issues\/comments\//)).toHaveLength(0);
    expect(github.requestsMatching('POST', /\/comments$/)).toHaveLength(0);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.body).toBe(newer);
    expect(older.stdout).toMatch(/newer than this run 9000000250/);
    // A later attempt of the newer run does replace it.
    const retry = await planStep(9000000300, {}, makeWorkspace());
    expect(retry.status).toBe(0);
    expect(ours()[0]?.body).toContain('run id=9000000300 attempt=1');
  });

  it('ignores comments by other users that carry the same marker (nobody can hijack or suppress the verdict)', async () => {
    const human = { login: 'dana-dev', id: 5550101, type: 'User' as const };
    const otherBot = { login: 'other-app[bot]', id: 777, type: 'Bot' as const };
    const fake = `${MARKER}\n<!-- scalegate:run id=99999999999 attempt=9 at=2099-01-01T00:00:00.000Z -->\nall good, ship it`;
    const humanComment = github.seedComment(PR, human, fake);
    const botComment = github.seedComment(PR, otherBot, fake);

    const run = await planStep(9000000400);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(github.requestsMatching('PATCH', /./)).toHaveLength(0);
    expect(github.requestsMatching('DELETE', /./)).toHaveLength(0);
    expect(github.commentsOn(PR).find((c) => c.id === humanComment.id)?.body).toBe(fake);
    expect(github.commentsOn(PR).find((c) => c.id === botComment.id)?.body).toBe(fake);
    const mine = ours().filter((c) => c.user.login === ACTIONS_BOT.login);
    expect(mine).toHaveLength(1);
    expect(mine[0]?.body).toContain('run id=9000000400');
  });

  it('searches every page of a long comment list to the end (a busy PR must not get a second comment)', async () => {
    const reviewer = { login: 'rev-iewer', id: 5550303, type: 'User' as const };
    for (let i = 0; i < 230; i++) github.seedComment(PR, reviewer, `looks good ${i}`);
    await planStep(9000000500); // ours is comment 231: on page 3 of 100
    expect(ours()).toHaveLength(1);
    const id = ours()[0]?.id;
    github.resetRequests();

    const again = await planStep(9000000600);
    expect(again.status, again.stdout + again.stderr).toBe(0);
    const pages = github.requestsMatching('GET', /\/issues\/42\/comments$/).map((r) => r.query.page ?? '1');
    expect(pages).toEqual(['1', '2', '3']);
    expect(
      github.requestsMatching('GET', /\/issues\/42\/comments$/).every((r) => r.query.per_page === '100'),
    ).toBe(true);
    expect(github.requestsMatching('POST', /\/comments$/)).toHaveLength(0);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.id).toBe(id);
    expect(ours()[0]?.body).toContain('run id=9000000600');
  });

  it('converges to one comment when two of ours exist (a race between runs leaves no duplicate behind)', async () => {
    const old = github.seedComment(
      PR,
      ACTIONS_BOT,
      `${MARKER}\n<!-- scalegate:run id=9000000700 attempt=1 at=2026-11-29T10:00:00.000Z -->\nolder`,
    );
    github.seedComment(
      PR,
      ACTIONS_BOT,
      `${MARKER}\n<!-- scalegate:run id=9000000710 attempt=1 at=2026-11-29T10:05:00.000Z -->\nnewer`,
    );
    const run = await planStep(9000000720);
    expect(run.status).toBe(0);
    expect(ours()).toHaveLength(1);
    expect(ours()[0]?.id).toBe(old.id);
    expect(ours()[0]?.body).toContain('run id=9000000720');
  });

  it('shows what changed against the base branch’s plan, read through the contents API', async () => {
    const anchor = JSON.parse(readFileSync(join(repoRoot, 'artifacts', 'plan-kokoro-82m.json'), 'utf8'));
    const base = structuredClone(anchor);
    base.measured.q_max = 60;
    base.deployable.scaling_target_value = 45;
    base.deployable.queue_max_depth = 60;
    github.setFile('main', 'artifacts/plan-kokoro-82m.json', JSON.stringify(base));
    const run = await planStep(9000000800);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const contents = github.requestsMatching('GET', /\/contents\/artifacts\/plan-kokoro-82m\.json$/);
    expect(contents).toHaveLength(1);
    expect(contents[0]?.query.ref).toBe('main');
    const body = ours()[0]?.body ?? '';
    expect(body).toContain('### What changed against `main`');
    expect(body).toContain('Q\\_max 60 → 50, target 45.0 → 6.0, queue depth 60 → 50');
    expect(run.summary).toContain('### What changed against `main`');
  });

  it('finds the token’s identity through GET /user when GraphQL is unavailable (personal tokens)', async () => {
    github.graphql = false;
    github.tokens['ghp-personal'] = { login: 'release-robot', id: 4242, type: 'User' };
    github.seedComment(
      PR,
      ACTIONS_BOT,
      `${MARKER}\n<!-- scalegate:run id=1 attempt=1 at=2026-01-01T00:00:00.000Z -->\nnot mine`,
    );
    const run = await planStep(9000000900, { 'github-token': 'ghp-personal' });
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(github.requestsMatching('GET', /^\/user$/)).toHaveLength(1);
    expect(
      ours()
        .map((c) => c.user.login)
        .sort(),
    ).toEqual(['github-actions[bot]', 'release-robot']);
  });

  it('does not comment on push events unless asked, and a token that cannot comment only warns (the verdict, not the comment, decides the step)', async () => {
    const push = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      apiUrl: github.url,
      eventName: 'push',
      inputs: { command: 'plan', model: 'kokoro-82m', 'github-token': TOKEN },
    });
    expect(push.status).toBe(0);
    expect(github.requests).toHaveLength(0);
    expect(push.outputs['comment-url']).toBe('');

    const fork = await runStep({
      entry: 'main',
      workspace: makeWorkspace(),
      apiUrl: github.url,
      eventPayload: join(fixturesDir, 'pull_request.fork.json'),
      inputs: { command: 'plan', model: 'kokoro-82m', 'github-token': 'revoked-token' },
    });
    expect(fork.status).toBe(0);
    expect(fork.stdout).toMatch(/::warning::.*(not commenting|PR comment not written)/);
    expect(ours()).toHaveLength(0);
  });
});
