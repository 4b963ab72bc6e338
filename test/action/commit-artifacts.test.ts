/**
 * The composite actions' repository steps (actions/_lib/*.sh), run with bash against real git
 * repositories on disk: artifacts land on the PR branch as one fast-forward commit on its tip
 * (whatever the job checked out), nothing is pushed for forks or when nothing changed, a branch
 * that moved meanwhile is handled by rebuilding on its new tip once, never by force.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
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

function commitStep(work: string, env: Record<string, string>, path = process.env.PATH ?? '') {
  const output = join(mkdtempSync(join(tmpdir(), 'scalegate-out-')), 'output');
  writeFileSync(output, '');
  const r = spawnSync('bash', [join(lib, 'commit-artifacts.sh')], {
    cwd: work,
    encoding: 'utf8',
    env: {
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
      FILES: 'artifacts/plan-kokoro-82m.json\n',
      GITHUB_EVENT_NAME: 'pull_request',
      PUSH_BACKOFF_S: '0',
      ...env,
    },
  });
  return { ...r, outputs: parseFileCommands(readFileSync(output, 'utf8')) };
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
