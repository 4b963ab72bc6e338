/**
 * The composite actions' repository steps (actions/_lib/*.sh), run with bash against real git
 * repositories on disk: artifacts land on the PR branch as one fast-forward commit on its tip
 * (whatever the job checked out), nothing is pushed for forks or when nothing changed, a branch
 * that moved meanwhile is handled by rebuilding on its new tip once, never by force; never onto a
 * default or protected head branch, nor over a head that moved past the measured commit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/anchor.js';
import { parseFileCommands } from './run-action.js';

const lib = join(repoRoot, 'actions', '_lib');

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
}

const ident = ['-c', 'user.name=dana', '-c', 'user.email=dana@example.com'];

/** origin (bare) with main and a PR branch; a clone checked out detached at a "merge" commit. */
function setup() {
  const root = mkdtempSync(join(tmpdir(), 'scalegate-commit-'));
  const origin = join(root, 'origin.git');
  const seed = join(root, 'seed');
  const work = join(root, 'work');
  git(root, 'init', '--quiet', '--bare', '-b', 'main', origin);
  git(root, 'clone', '--quiet', origin, seed);
  mkdirSync(join(seed, 'artifacts'));
  writeFileSync(join(seed, 'artifacts', 'plan-kokoro-82m.json'), '{"v":1}\n');
  git(seed, 'add', '.');
  git(seed, ...ident, 'commit', '--quiet', '-m', 'base');
  git(seed, 'push', '--quiet', 'origin', 'HEAD:main');
  git(seed, 'checkout', '--quiet', '-b', 'kokoro-vocoder');
  writeFileSync(join(seed, 'Dockerfile'), 'FROM scratch\n');
  git(seed, 'add', '.');
  git(seed, ...ident, 'commit', '--quiet', '-m', 'new vocoder');
  git(seed, 'push', '--quiet', 'origin', 'kokoro-vocoder');
  git(root, 'clone', '--quiet', origin, work);
  // Like actions/checkout on pull_request: a detached merge of the PR into main.
  git(work, 'fetch', '--quiet', 'origin', 'kokoro-vocoder');
  git(work, 'checkout', '--quiet', '--detach', 'origin/main');
  git(work, ...ident, 'merge', '--quiet', '--no-ff', '-m', 'Merge PR', 'FETCH_HEAD');
  return { root, origin, seed, work };
}

const realGit = spawnSync('bash', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();

/**
 * A `git` on PATH that, on each of the first `times` pushes, lets another committer push to the
 * branch first (the race of concurrent calibration jobs), and records the environment of every
 * fetch and push.
 */
function racingGit(root: string, seed: string, times: number) {
  const shim = mkdtempSync(join(root, 'shim-'));
  const counter = join(shim, 'moves');
  const envLog = join(shim, 'env.log');
  writeFileSync(counter, '');
  writeFileSync(envLog, '');
  writeFileSync(
    join(shim, 'git'),
    `#!/usr/bin/env bash
if [[ " $* " == *" push "* || " $* " == *" fetch "* ]]; then
  echo "$* | \${GIT_CONFIG_COUNT:-} \${GIT_CONFIG_KEY_0:-} \${GIT_CONFIG_VALUE_0:-}" >> ${JSON.stringify(envLog)}
fi
if [[ " $* " == *" push "* && $(wc -l < ${JSON.stringify(counter)}) -lt ${times} ]]; then
  echo moved >> ${JSON.stringify(counter)}
  (cd ${JSON.stringify(seed)} && echo "more $(wc -l < ${JSON.stringify(counter)})" >> Dockerfile && ${realGit} add Dockerfile \\
    && ${realGit} -c user.name=dana -c user.email=dana@example.com commit --quiet -m "review fix" \\
    && ${realGit} push --quiet origin HEAD:kokoro-vocoder) >&2
fi
exec ${realGit} "$@"
`,
  );
  chmodSync(join(shim, 'git'), 0o755);
  return {
    shim,
    moves: () => readFileSync(counter, 'utf8').split('\n').filter(Boolean).length,
    env: () => readFileSync(envLog, 'utf8'),
  };
}

/** The script's environment: a PR's commit step; `undefined` in `env` removes a variable. */
function stepEnv(work: string, output: string, env: Record<string, string | undefined>, path: string) {
  const all: Record<string, string | undefined> = {
    PATH: path,
    HOME: work,
    GITHUB_OUTPUT: output,
    GITHUB_REF: 'refs/pull/42/merge',
    GITHUB_RUN_ID: '9000000001',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_REPOSITORY: 'acme/speech',
    COMMAND: 'plan',
    MODEL: 'kokoro-82m',
    IS_FORK: 'false',
    HEAD_REF: 'kokoro-vocoder',
    // As the workflow may pass it; the tests of the GitHub API lookup remove it.
    HEAD_REF_PROTECTED: 'false',
    FILES: 'artifacts/plan-kokoro-82m.json\n',
    GITHUB_EVENT_NAME: 'pull_request',
    PUSH_BACKOFF_S: '0',
    ...env,
  };
  return Object.fromEntries(Object.entries(all).filter(([, v]) => v !== undefined)) as Record<string, string>;
}

function outputFile(): string {
  const output = join(mkdtempSync(join(tmpdir(), 'scalegate-out-')), 'output');
  writeFileSync(output, '');
  return output;
}

function commitStep(work: string, env: Record<string, string | undefined>, path = process.env.PATH ?? '') {
  const output = outputFile();
  const r = spawnSync('bash', [join(lib, 'commit-artifacts.sh')], {
    cwd: work,
    encoding: 'utf8',
    env: stepEnv(work, output, env, path),
  });
  return { ...r, outputs: parseFileCommands(readFileSync(output, 'utf8')) };
}

/** The same, without blocking the event loop (a loopback GitHub API answers in this process). */
async function commitStepAsync(work: string, env: Record<string, string | undefined>) {
  const output = outputFile();
  const child = spawn('bash', [join(lib, 'commit-artifacts.sh')], {
    cwd: work,
    env: stepEnv(work, output, env, process.env.PATH ?? ''),
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  const [status] = (await once(child, 'close')) as [number | null];
  return { status, stdout, stderr, outputs: parseFileCommands(readFileSync(output, 'utf8')) };
}

interface BranchRequest {
  path: string;
  authorization: string | undefined;
}

/** A loopback GET /repos/{owner}/{repo}/branches/{branch}: `answer` gives the status and body. */
async function branchApi(answer: (branch: string) => { status: number; body: unknown }) {
  const requests: BranchRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ path: req.url ?? '', authorization: req.headers.authorization });
    const m = /^\/repos\/acme\/speech\/branches\/(.+)$/.exec(req.url ?? '');
    const { status, body } = m ? answer(decodeURIComponent(m[1] as string)) : { status: 404, body: {} };
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
}

/** A GitHub branch answer: the commit message carries the word too, escaped as GitHub would. */
const branchBody = (name: string, isProtected: boolean) => ({
  name,
  commit: { sha: 'a'.repeat(40), commit: { message: `fix: "protected": ${!isProtected}` } },
  protected: isProtected,
  protection: { enabled: isProtected, required_status_checks: { enforcement_level: 'off', contexts: [] } },
  protection_url: `https://api.github.com/repos/acme/speech/branches/${name}/protection`,
});

/** Another commit on the PR branch, pushed from `seed` (a review fix, or another model's artifacts). */
function pushToPr(seed: string, file: string, text: string, subject: string): string {
  git(seed, 'pull', '--quiet', '--ff-only', 'origin', 'kokoro-vocoder');
  mkdirSync(join(seed, file, '..'), { recursive: true });
  writeFileSync(join(seed, file), text);
  git(seed, 'add', file);
  git(seed, ...ident, 'commit', '--quiet', '-m', subject);
  git(seed, 'push', '--quiet', 'origin', 'HEAD:kokoro-vocoder');
  return git(seed, 'rev-parse', 'HEAD');
}

const tipOf = (origin: string, branch: string) => git(origin, 'rev-parse', `refs/heads/${branch}`);

describe('committing artifacts to the PR branch (actions/_lib/commit-artifacts.sh)', () => {
  it('adds one commit on top of the PR branch tip, not the checked-out merge commit', () => {
    const { origin, work } = setup();
    const before = tipOf(origin, 'kokoro-vocoder');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":2}\n');
    const r = commitStep(work, {});
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const after = tipOf(origin, 'kokoro-vocoder');
    expect(r.outputs).toEqual({ committed: 'true', 'commit-sha': after, branch: 'kokoro-vocoder' });
    expect(git(origin, 'rev-parse', `${after}^`)).toBe(before);
    expect(git(origin, 'show', `${after}:artifacts/plan-kokoro-82m.json`)).toBe('{"v":2}');
    // Only the artifact changed; the PR's own files are untouched; main is untouched.
    expect(git(origin, 'diff', '--name-only', before, after)).toBe('artifacts/plan-kokoro-82m.json');
    expect(git(origin, 'log', '-1', '--format=%an <%ae>%n%s', after)).toBe(
      'github-actions[bot] <41898282+github-actions[bot]@users.noreply.github.com>\nscalegate kokoro-82m: plan artifacts',
    );
    expect(git(origin, 'log', '-1', '--format=%b', after)).toContain(
      'https://github.com/acme/speech/actions/runs/9000000001',
    );
  });

  it('skips with a notice when the branch already has these artifacts (no empty commits)', () => {
    const { origin, work } = setup();
    const before = tipOf(origin, 'kokoro-vocoder');
    const r = commitStep(work, {});
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/::notice title=scalegate::.*already on kokoro-vocoder: nothing to commit/);
    expect(r.outputs.committed).toBe('false');
    expect(tipOf(origin, 'kokoro-vocoder')).toBe(before);
  });

  it('skips with a notice on a fork PR, and when the step wrote nothing (never pushes to someone else’s repository)', () => {
    const { origin, work } = setup();
    const before = tipOf(origin, 'kokoro-vocoder');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":3}\n');
    const fork = commitStep(work, { IS_FORK: 'true' });
    expect(fork.status).toBe(0);
    expect(fork.stdout).toMatch(/::notice title=scalegate::pull request from a fork/);
    const none = commitStep(work, { FILES: '' });
    expect(none.status).toBe(0);
    expect(none.stdout).toMatch(/wrote no artifact/);
    const tag = commitStep(work, { HEAD_REF: '', GITHUB_REF: 'refs/tags/v1.2.0' });
    expect(tag.stdout).toMatch(/not on a branch \(refs\/tags\/v1\.2\.0\)/);
    expect(tipOf(origin, 'kokoro-vocoder')).toBe(before);
  });

  it('rebuilds on the new tip when the branch moved during the push, keeping the other commit (no force-push)', () => {
    const { root, origin, seed, work } = setup();
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":4}\n');
    const { shim, moves } = racingGit(root, seed, 1);
    const r = commitStep(work, {}, `${shim}:${process.env.PATH ?? ''}`);
    expect(moves()).toBe(1);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /::warning title=scalegate::push of the plan artifacts to kokoro-vocoder failed \(attempt 1 of 6; .*rebuilding the commit on its new tip/,
    );
    const tip = tipOf(origin, 'kokoro-vocoder');
    expect(git(origin, 'log', '-1', '--format=%s', `${tip}^`)).toBe('review fix');
    expect(git(origin, 'show', `${tip}:Dockerfile`)).toBe('FROM scratch\nmore 1');
    expect(git(origin, 'show', `${tip}:artifacts/plan-kokoro-82m.json`)).toBe('{"v":4}');
  });
  it('retries up to 6 times when 5 concurrent committers move the branch first (2 attempts failed 4 of 6 jobs)', () => {
    const { root, origin, seed, work } = setup();
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":5}\n');
    const { shim, moves } = racingGit(root, seed, 5);
    const r = commitStep(work, {}, `${shim}:${process.env.PATH ?? ''}`);
    expect(moves()).toBe(5);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout.match(/retrying in \d+ s \(attempt \d of 6\)/g)).toHaveLength(5);
    const tip = tipOf(origin, 'kokoro-vocoder');
    expect(r.outputs).toMatchObject({ committed: 'true', 'commit-sha': tip, branch: 'kokoro-vocoder' });
    expect(git(origin, 'show', `${tip}:artifacts/plan-kokoro-82m.json`)).toBe('{"v":5}');
    expect(git(origin, 'show', `${tip}:Dockerfile`)).toContain('more 5');
  });

  it('turns a push that keeps failing into a warning, not a failed step (the artifact is still uploaded)', () => {
    const { root, seed, work } = setup();
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":6}\n');
    const { shim, moves } = racingGit(root, seed, 100);
    const r = commitStep(work, { PUSH_ATTEMPTS: '5' }, `${shim}:${process.env.PATH ?? ''}`);
    expect(moves()).toBe(5);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /::warning title=scalegate::could not push the plan artifacts to kokoro-vocoder after 5 attempts .*still uploaded as a workflow artifact/,
    );
    expect(r.stdout).not.toContain('::error');
    expect(r.outputs.committed).toBe('false');
  });

  it('waits with jittered exponential backoff between attempts (capped at 60 s)', () => {
    const script = readFileSync(join(lib, 'commit-artifacts.sh'), 'utf8');
    const body = /wait_before_retry\(\) \{[\s\S]*?\n\}/.exec(script)?.[0];
    if (!body) throw new Error('no wait_before_retry in the script');
    // The function itself, run with sleep stubbed: the waits it would take for attempts 1..6.
    const r = spawnSync(
      'bash',
      [
        '-c',
        `sleep() { :; }; backoff=2; attempts=7; RANDOM=42; ${body}; for n in 1 2 3 4 5 6; do wait_before_retry $n; done`,
      ],
      { encoding: 'utf8' },
    );
    const waits = [...r.stdout.matchAll(/retrying in (\d+) s/g)].map((m) => Number(m[1]));
    const bases = [2, 4, 8, 16, 32, 60];
    expect(waits).toHaveLength(6);
    waits.forEach((w, i) => {
      expect(w).toBeGreaterThanOrEqual(bases[i] as number);
      expect(w).toBeLessThanOrEqual(2 * (bases[i] as number));
    });
    expect(waits.some((w, i) => w !== bases[i])).toBe(true); // jitter
  });

  it('never pushes straight onto the default branch on workflow_dispatch: a new branch, and says so', () => {
    const { origin, work } = setup();
    const main = tipOf(origin, 'main');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":7}\n');
    const r = commitStep(work, {
      HEAD_REF: '',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_EVENT_NAME: 'workflow_dispatch',
      DEFAULT_BRANCH: 'main',
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(tipOf(origin, 'main')).toBe(main);
    const branch = 'scalegate/artifacts/kokoro-82m-plan-9000000001-1';
    expect(r.stdout).toContain(
      `::notice title=scalegate::main is the default or a protected branch: the plan artifacts go to a new branch ${branch}`,
    );
    expect(r.outputs).toMatchObject({ committed: 'true', branch });
    expect(git(origin, 'rev-parse', `${branch}^`)).toBe(main);
    expect(git(origin, 'show', `${branch}:artifacts/plan-kokoro-82m.json`)).toBe('{"v":7}');
  });

  it('never pushes straight onto a protected branch either (github.ref_protected)', () => {
    const { origin, work } = setup();
    const before = tipOf(origin, 'kokoro-vocoder');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":8}\n');
    const r = commitStep(work, {
      HEAD_REF: '',
      GITHUB_REF: 'refs/heads/kokoro-vocoder',
      GITHUB_EVENT_NAME: 'workflow_dispatch',
      DEFAULT_BRANCH: 'main',
      REF_PROTECTED: 'true',
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(tipOf(origin, 'kokoro-vocoder')).toBe(before);
    expect(r.outputs.branch).toBe('scalegate/artifacts/kokoro-82m-plan-9000000001-1');
  });

  it('does not make a full clone shallow (a --depth fetch used to cut its history)', () => {
    const { work } = setup();
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":9}\n');
    expect(git(work, 'rev-parse', '--is-shallow-repository')).toBe('false');
    const r = commitStep(work, {});
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(git(work, 'rev-parse', '--is-shallow-repository')).toBe('false');
    expect(existsSync(join(work, '.git', 'shallow'))).toBe(false);
  });

  it('still commits from a shallow checkout (actions/checkout’s default depth 1)', () => {
    const { root, origin } = setup();
    const shallow = join(root, 'shallow');
    git(root, 'clone', '--quiet', '--depth=1', `file://${origin}`, shallow);
    mkdirSync(join(shallow, 'artifacts'), { recursive: true });
    writeFileSync(join(shallow, 'artifacts', 'plan-kokoro-82m.json'), '{"v":10}\n');
    const r = commitStep(shallow, {});
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(git(origin, 'show', 'kokoro-vocoder:artifacts/plan-kokoro-82m.json')).toBe('{"v":10}');
  });

  it('hands the write token to git only for its fetch and push, never to .git/config', () => {
    const { root, seed, work } = setup();
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":11}\n');
    const { shim, env } = racingGit(root, seed, 0);
    const r = commitStep(work, { PUSH_TOKEN: 's3cret-token' }, `${shim}:${process.env.PATH ?? ''}`);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const basic = Buffer.from('x-access-token:s3cret-token').toString('base64');
    const calls = env().split('\n').filter(Boolean);
    expect(calls.some((c) => c.includes(' push '))).toBe(true);
    for (const call of calls) {
      expect(call).toContain(`1 http.https://github.com/.extraheader AUTHORIZATION: basic ${basic}`);
    }
    expect(r.stdout).toContain(`::add-mask::${basic}`);
    const config = readFileSync(join(work, '.git', 'config'), 'utf8');
    expect(config).not.toContain('extraheader');
    expect(config).not.toContain(basic);
    expect(r.stdout + r.stderr).not.toContain('s3cret-token');
  });
});

describe('never where it must not: the default branch, a protected head, a head past the measured commit', () => {
  it('refuses a pull request whose head branch is the default branch (a PR from main): notice, committed=false, main untouched', () => {
    const { origin, work } = setup();
    const main = tipOf(origin, 'main');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":20}\n');
    const r = commitStep(work, { HEAD_REF: 'main', DEFAULT_BRANCH: 'main' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      "::notice title=scalegate::the pull request's head branch main is the default branch: the plan artifacts are not pushed onto it",
    );
    expect(r.stdout).not.toContain('::error');
    expect(r.outputs).toEqual({ committed: 'false', 'commit-sha': '', branch: '' });
    expect(tipOf(origin, 'main')).toBe(main);
  });

  it('refuses a protected head branch passed in by the workflow (HEAD_REF_PROTECTED=true)', () => {
    const { origin, work } = setup();
    const before = tipOf(origin, 'kokoro-vocoder');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":21}\n');
    const r = commitStep(work, { HEAD_REF_PROTECTED: 'true', DEFAULT_BRANCH: 'main' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain("the pull request's head branch kokoro-vocoder is protected");
    expect(r.outputs.committed).toBe('false');
    expect(tipOf(origin, 'kokoro-vocoder')).toBe(before);
  });

  it('asks the GitHub API whether the head branch is protected (with the token) and refuses a protected one', async () => {
    const api = await branchApi((b) => ({ status: 200, body: branchBody(b, b === 'release/kokoro') }));
    try {
      const { origin, seed, work } = setup();
      git(seed, 'push', '--quiet', 'origin', 'HEAD:release/kokoro');
      const before = tipOf(origin, 'release/kokoro');
      writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":22}\n');
      const base = { HEAD_REF_PROTECTED: undefined, GITHUB_API_URL: api.url, PUSH_TOKEN: 'ghs-token' };
      const refused = await commitStepAsync(work, { ...base, HEAD_REF: 'release/kokoro' });
      expect(refused.status, refused.stdout + refused.stderr).toBe(0);
      expect(refused.stdout).toContain("the pull request's head branch release/kokoro is protected");
      expect(refused.outputs.committed).toBe('false');
      expect(tipOf(origin, 'release/kokoro')).toBe(before);
      expect(api.requests[0]).toEqual({
        path: '/repos/acme/speech/branches/release/kokoro',
        authorization: 'Bearer ghs-token',
      });
      // The same lookup for an unprotected head lets the commit through.
      const allowed = await commitStepAsync(work, base);
      expect(allowed.status, allowed.stdout + allowed.stderr).toBe(0);
      expect(allowed.outputs).toMatchObject({ committed: 'true', branch: 'kokoro-vocoder' });
      expect(api.requests.map((q) => q.path)).toEqual([
        '/repos/acme/speech/branches/release/kokoro',
        '/repos/acme/speech/branches/kokoro-vocoder',
      ]);
      expect(refused.stdout + allowed.stdout).not.toContain('ghs-token');
    } finally {
      await api.close();
    }
  });

  it('treats a head branch whose protection cannot be read as protected (API error): nothing pushed', async () => {
    const api = await branchApi(() => ({ status: 403, body: { message: 'Resource not accessible' } }));
    try {
      const { origin, work } = setup();
      const before = tipOf(origin, 'kokoro-vocoder');
      writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":23}\n');
      const r = await commitStepAsync(work, { HEAD_REF_PROTECTED: undefined, GITHUB_API_URL: api.url });
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /::notice title=scalegate::could not tell whether the pull request's head branch kokoro-vocoder is protected \(GET \/repos\/acme\/speech\/branches\/kokoro-vocoder: .*403/,
      );
      expect(r.outputs.committed).toBe('false');
      expect(tipOf(origin, 'kokoro-vocoder')).toBe(before);
    } finally {
      await api.close();
    }
  });

  it('names the measured commit in a Measured-Sha trailer', () => {
    const { origin, work } = setup();
    const measured = tipOf(origin, 'kokoro-vocoder');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":24}\n');
    const r = commitStep(work, { MEASURED_SHA: measured });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const tip = tipOf(origin, 'kokoro-vocoder');
    expect(r.outputs).toMatchObject({ committed: 'true', 'commit-sha': tip });
    expect(git(origin, 'log', '-1', '--format=%(trailers:key=Measured-Sha,valueonly)', tip)).toBe(measured);
  });

  it('refuses to push when the head moved past the measured commit (a newer push changed the PR): the measurement is of an older head', () => {
    const { origin, seed, work } = setup();
    const measured = tipOf(origin, 'kokoro-vocoder');
    const moved = pushToPr(seed, 'Dockerfile', 'FROM scratch\nRUN true\n', 'review fix');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":25}\n');
    const r = commitStep(work, { MEASURED_SHA: measured });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      `::notice title=scalegate::kokoro-vocoder moved past the measured commit ${measured.slice(0, 12)} (its tip ${moved} differs outside artifacts/): the plan artifacts measure an older head and are not committed`,
    );
    expect(r.stdout).not.toContain('::error');
    expect(r.outputs.committed).toBe('false');
    expect(tipOf(origin, 'kokoro-vocoder')).toBe(moved);
  });

  it('refuses a head that moved during the push too (checked again on every rebuild)', () => {
    const { root, origin, seed, work } = setup();
    const measured = tipOf(origin, 'kokoro-vocoder');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":26}\n');
    const { shim, moves } = racingGit(root, seed, 1);
    const r = commitStep(work, { MEASURED_SHA: measured }, `${shim}:${process.env.PATH ?? ''}`);
    expect(moves()).toBe(1);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('kokoro-vocoder moved past the measured commit');
    expect(r.outputs.committed).toBe('false');
    expect(git(origin, 'log', '-1', '--format=%s', 'refs/heads/kokoro-vocoder')).toBe('review fix');
  });

  it('still commits over artifact-only commits on top of the measured one (another model of the same run)', () => {
    const { origin, seed, work } = setup();
    const measured = tipOf(origin, 'kokoro-vocoder');
    const other = pushToPr(seed, 'artifacts/plan-reference-tts.json', '{"v":1}\n', 'scalegate reference-tts');
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":27}\n');
    const r = commitStep(work, { MEASURED_SHA: measured });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const tip = tipOf(origin, 'kokoro-vocoder');
    expect(r.outputs).toMatchObject({ committed: 'true', 'commit-sha': tip });
    expect(git(origin, 'rev-parse', `${tip}^`)).toBe(other);
    expect(git(origin, 'show', `${tip}:artifacts/plan-reference-tts.json`)).toBe('{"v":1}');
  });

  it('compares with the measured commit from a shallow checkout too (fetches it by id): artifact-only tip passes, a code change does not', () => {
    const { root, origin, seed } = setup();
    const measured = tipOf(origin, 'kokoro-vocoder');
    pushToPr(seed, 'artifacts/plan-reference-tts.json', '{"v":1}\n', 'scalegate reference-tts');
    const shallow = join(root, 'shallow');
    git(root, 'clone', '--quiet', '--depth=1', `file://${origin}`, shallow);
    mkdirSync(join(shallow, 'artifacts'), { recursive: true });
    writeFileSync(join(shallow, 'artifacts', 'plan-kokoro-82m.json'), '{"v":28}\n');
    const first = commitStep(shallow, { MEASURED_SHA: measured });
    expect(first.status, first.stdout + first.stderr).toBe(0);
    expect(first.outputs.committed).toBe('true');
    pushToPr(seed, 'Dockerfile', 'FROM scratch\nRUN false\n', 'review fix');
    writeFileSync(join(shallow, 'artifacts', 'plan-kokoro-82m.json'), '{"v":29}\n');
    const second = commitStep(shallow, { MEASURED_SHA: measured });
    expect(second.stdout).toContain('kokoro-vocoder moved past the measured commit');
    expect(second.outputs.committed).toBe('false');
    expect(git(shallow, 'rev-parse', '--is-shallow-repository')).toBe('true');
  });
});

describe('staging the root action for the composite actions (actions/_lib/stage-action.sh)', () => {
  it('copies action.yml and the bundles from the composite’s own checkout into the workspace', () => {
    const workspace = mkdtempSync(join(tmpdir(), 'scalegate-ws-'));
    const r = spawnSync('bash', [join(lib, 'stage-action.sh')], {
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH ?? '',
        GITHUB_ACTION_PATH: join(repoRoot, 'actions', 'plan'),
        GITHUB_WORKSPACE: workspace,
      },
    });
    expect(r.status, r.stderr).toBe(0);
    const staged = join(workspace, '.scalegate', 'action');
    expect(readFileSync(join(staged, 'action.yml'), 'utf8')).toBe(
      readFileSync(join(repoRoot, 'action.yml'), 'utf8'),
    );
    expect(existsSync(join(staged, 'dist', 'main.mjs'))).toBe(true);
    expect(existsSync(join(staged, 'dist', 'post.mjs'))).toBe(true);
    expect(readFileSync(join(workspace, '.scalegate', '.gitignore'), 'utf8')).toBe('*\n');
  });
});
