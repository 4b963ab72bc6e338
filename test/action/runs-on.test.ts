/**
 * .github/scripts/runs-on.mjs: the runner of the measuring jobs (calibrate, the drill example's
 * shards), so that calibration can run in the endpoint's region. A label, JSON labels or a group,
 * a CodeBuild-hosted runner's label completed with the run id and attempt; a malformed value is
 * refused before anything runs; and both workflows take it through fromJSON.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoRoot } from '../helpers/anchor.js';

/** A GitHub expression as written in YAML: `${{ body }}`. */
const expr = (body: string) => `$${'{{'} ${body} }}`;
const script = join(repoRoot, '.github', 'scripts', 'runs-on.mjs');

function run(env: Record<string, string>) {
  const out = join(mkdtempSync(join(tmpdir(), 'scalegate-runs-on-')), 'output');
  const r = spawnSync(process.execPath, [script], {
    env: { PATH: process.env.PATH ?? '', GITHUB_OUTPUT: out, ...env },
    encoding: 'utf8',
  });
  let output = '';
  try {
    output = readFileSync(out, 'utf8');
  } catch {
    // Nothing written (refused).
  }
  return { status: r.status, stdout: r.stdout.trim(), stderr: r.stderr, output };
}

describe('runs-on of the measuring jobs', () => {
  const cases: [string, Record<string, string>, unknown][] = [
    ['nothing configured: a GitHub-hosted runner', {}, 'ubuntu-latest'],
    [
      'the repository variable when the input is empty (pull requests)',
      { RUNS_ON: '', SCALEGATE_RUNS_ON: 'my-runner' },
      'my-runner',
    ],
    [
      'the input over the repository variable',
      { RUNS_ON: 'in-region', SCALEGATE_RUNS_ON: 'my-runner' },
      'in-region',
    ],
    ['JSON labels', { RUNS_ON: '["self-hosted","us-east-1"]' }, ['self-hosted', 'us-east-1']],
    [
      'a runner group',
      { RUNS_ON: '{"group":"calibration","labels":["gpu"]}' },
      { group: 'calibration', labels: ['gpu'] },
    ],
    [
      'a CodeBuild-hosted runner: the label CodeBuild expects, with run id and attempt',
      { RUNS_ON: 'codebuild-scalegate-runner', GITHUB_RUN_ID: '4242', GITHUB_RUN_ATTEMPT: '2' },
      'codebuild-scalegate-runner-4242-2',
    ],
  ];
  for (const [name, env, want] of cases) {
    it(name, () => {
      const r = run(env);
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toEqual(want);
      expect(r.output).toBe(`runs-on=${JSON.stringify(want)}\n`);
    });
  }

  it('refuses a malformed value (exit 2, an error annotation), so no job runs on a guess', () => {
    for (const bad of ['["x",', '[]', '{"labels":[""]}', 'two words']) {
      const r = run({ RUNS_ON: bad });
      expect(r.status, bad).toBe(2);
      expect(r.stderr).toMatch(/::error title=scalegate::runs-on /);
      expect(r.output).toBe('');
    }
  });

  it('calibrate and the drill example run their measuring jobs on it, through fromJSON', () => {
    const calibrate = parse(readFileSync(join(repoRoot, '.github/workflows/calibrate.yml'), 'utf8'));
    expect(calibrate.on.workflow_dispatch.inputs['runs-on']).toMatchObject({
      type: 'string',
      required: false,
    });
    expect(calibrate.jobs.calibrate['runs-on']).toBe(expr('fromJSON(needs.select.outputs.runs-on)'));
    expect(calibrate.jobs.select.outputs['runs-on']).toBe(expr('steps.runner.outputs.runs-on'));
    const drill = parse(readFileSync(join(repoRoot, '.github/workflows/drill-example.yml'), 'utf8'));
    expect(drill.on.workflow_dispatch.inputs['runs-on']).toMatchObject({ type: 'string', required: false });
    expect(drill.jobs.shard['runs-on']).toBe(expr('fromJSON(needs.prepare.outputs.runs-on)'));
  });
});
