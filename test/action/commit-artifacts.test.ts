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
    expect(r.outputs).toEqual({ committed: 'true', 'commit-sha': after });
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

  it('rebuilds on the new tip once when the branch moved during the push, keeping the other commit (no force-push)', () => {
    const { root, origin, seed, work } = setup();
    writeFileSync(join(work, 'artifacts', 'plan-kokoro-82m.json'), '{"v":4}\n');
    // A `git` on PATH that, on the first push, lets someone else push to the branch first.
    const shim = join(root, 'shim');
    mkdirSync(shim);
    const realGit = spawnSync('bash', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
    const marker = join(root, 'moved');
    writeFileSync(
      join(shim, 'git'),
      `#!/usr/bin/env bash
if [[ " $* " == *" push "* && ! -e ${JSON.stringify(marker)} ]]; then
  touch ${JSON.stringify(marker)}
  (cd ${JSON.stringify(seed)} && echo more >> Dockerfile && ${realGit} add Dockerfile \\
    && ${realGit} -c user.name=dana -c user.email=dana@example.com commit --quiet -m "review fix" \\
    && ${realGit} push --quiet origin kokoro-vocoder) >&2
fi
exec ${realGit} "$@"
`,
    );
    chmodSync(join(shim, 'git'), 0o755);
    const r = commitStep(work, {}, `${shim}:${process.env.PATH ?? ''}`);
    expect(existsSync(marker)).toBe(true);
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /::warning title=scalegate::kokoro-vocoder moved .*rebuilding the commit on its new tip once/,
    );
    const tip = tipOf(origin, 'kokoro-vocoder');
    expect(git(origin, 'log', '-1', '--format=%s', `${tip}^`)).toBe('review fix');
    expect(git(origin, 'show', `${tip}:Dockerfile`)).toBe('FROM scratch\nmore');
    expect(git(origin, 'show', `${tip}:artifacts/plan-kokoro-82m.json`)).toBe('{"v":4}');
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
