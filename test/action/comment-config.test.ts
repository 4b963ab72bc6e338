/**
 * The plan step's PR comment calls out the config changes that weaken the release gate, comparing
 * the pull request's entry with the base branch's config read through the contents API. Run from
 * src (the bundle in dist/ is rebuilt from it) against a loopback GitHub.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/anchor.js';
import { FakeGitHub } from './fake-github.js';
import { makeWorkspace, runStep } from './run-action.js';

const MARKER = '<!-- scalegate:model=kokoro-82m -->';

let github: FakeGitHub;
beforeEach(async () => {
  github = new FakeGitHub();
  await github.start();
});
afterEach(async () => {
  await github.stop();
});

const planStep = (runId: number) =>
  runStep({
    entry: 'main',
    fromSource: true,
    workspace: makeWorkspace(),
    runId,
    apiUrl: github.url,
    inputs: { command: 'plan', model: 'kokoro-82m', 'github-token': 'ghs-actions-token' },
  });

const ours = () => github.commentsOn(42).filter((c) => c.body.startsWith(MARKER));

describe('the PR comment: config changes that weaken the gate', () => {
  it('lists require_drill turned off and the SLO raised against the base branch (prevents a PR loosening the gate unseen)', async () => {
    const config = JSON.parse(readFileSync(join(repoRoot, 'scalegate.config.json'), 'utf8'));
    const base = structuredClone(config);
    base.models['kokoro-82m'].require_drill = true;
    base.models['kokoro-82m'].slo_ms = 2000;
    github.setFile('main', 'scalegate.config.json', JSON.stringify(base));
    const run = await planStep(9000001000);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    const contents = github.requestsMatching('GET', /\/contents\/scalegate\.config\.json$/);
    expect(contents).toHaveLength(1);
    expect(contents[0]?.query.ref).toBe('main');
    const body = ours()[0]?.body ?? '';
    expect(body).toContain('### ⚠️ Config changes that weaken the gate');
    expect(body).toContain(
      '| `require_drill` | true | false | a release no longer needs a drill whose SLO held |',
    );
    expect(body).toContain('| `slo_ms` | 2000 | 3000 | a slower answer counts as within the SLO |');
  });

  it('adds no section when the base config is the same (or absent)', async () => {
    github.setFile(
      'main',
      'scalegate.config.json',
      readFileSync(join(repoRoot, 'scalegate.config.json'), 'utf8'),
    );
    const run = await planStep(9000001100);
    expect(run.status, run.stdout + run.stderr).toBe(0);
    expect(ours()[0]?.body ?? '').not.toContain('Config changes');
  });
});
