/**
 * .github/scripts/select-models.mjs decides which models the calibrate workflow measures (and the
 * release workflow deploys): a change to a model's container or to what fingerprints it must be
 * re-measured; a plan-only change (load, surge ratio) must not spend an hour of GPU on it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/anchor.js';

const script = join(repoRoot, '.github', 'scripts', 'select-models.mjs');

const base = {
  models: {
    alpha: {
      endpoint: 'speech-alpha',
      region: 'us-east-1',
      instance_type: 'ml.g5.xlarge',
      container_dir: 'models/alpha',
      slo_ms: 1000,
      surge_ratio: 1.25,
      peak_rps: 10,
    },
    beta: {
      endpoint: 'speech-beta',
      region: 'eu-west-1',
      instance_type: 'ml.g5.xlarge',
      image_uri: 'x.dkr.ecr.eu-west-1.amazonaws.com/beta@sha256:aa',
      slo_ms: 2000,
      surge_ratio: 1.25,
      peak_rps: 10,
    },
  },
};

function git(cwd: string, ...args: string[]): string {
  const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
    cwd,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(r.stderr);
  return r.stdout.trim();
}

function repoWith(change: (dir: string, config: typeof base) => void) {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-select-'));
  git(dir, 'init', '--quiet', '-b', 'main');
  mkdirSync(join(dir, 'models', 'alpha'), { recursive: true });
  writeFileSync(join(dir, 'models', 'alpha', 'Dockerfile'), 'FROM scratch\n');
  writeFileSync(join(dir, 'scalegate.config.json'), JSON.stringify(base, null, 2));
  git(dir, 'add', '.');
  git(dir, 'commit', '--quiet', '-m', 'base');
  const baseSha = git(dir, 'rev-parse', 'HEAD');
  const config = structuredClone(base);
  change(dir, config);
  writeFileSync(join(dir, 'scalegate.config.json'), JSON.stringify(config, null, 2));
  git(dir, 'add', '.');
  git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'change');
  return { dir, baseSha, headSha: git(dir, 'rev-parse', 'HEAD') };
}

function select(dir: string, ...args: string[]) {
  return selectWith({}, dir, ...args);
}

function selectWith(env: Record<string, string>, dir: string, ...args: string[]) {
  const r = spawnSync(process.execPath, [script, ...args], {
    cwd: dir,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, ...env },
  });
  return { status: r.status, models: r.status === 0 ? JSON.parse(r.stdout) : null, stderr: r.stderr };
}

describe('select-models.mjs', () => {
  it('selects a model whose container directory changed', () => {
    const { dir, baseSha, headSha } = repoWith((d) =>
      writeFileSync(join(d, 'models', 'alpha', 'app.py'), 'x'),
    );
    expect(select(dir, 'changed', baseSha, headSha).models).toEqual([
      { model: 'alpha', endpoint: 'speech-alpha', region: 'us-east-1' },
    ]);
  });

  it('selects a model whose fingerprint or SLO changed, not one whose plan-only choices did', () => {
    const { dir, baseSha, headSha } = repoWith((_d, c) => {
      c.models.alpha.peak_rps = 500;
      c.models.alpha.surge_ratio = 1.1;
      c.models.beta.instance_type = 'ml.g6.xlarge';
    });
    expect(select(dir, 'changed', baseSha, headSha).models).toEqual([
      { model: 'beta', endpoint: 'speech-beta', region: 'eu-west-1' },
    ]);
  });

  it('lists one model on request, refusing an unknown one; and all of them', () => {
    const { dir } = repoWith(() => {});
    expect(select(dir, 'one', 'beta').models).toEqual([
      { model: 'beta', endpoint: 'speech-beta', region: 'eu-west-1' },
    ]);
    const unknown = select(dir, 'one', 'gamma');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(
      /model "gamma" is not in scalegate\.config\.json \(declared: alpha, beta\)/,
    );
    expect(select(dir, 'all').models.map((m: { model: string }) => m.model)).toEqual(['alpha', 'beta']);
  });
});

describe('select-models.mjs candidates (the calibrate matrix over instance types, for scalegate compare)', () => {
  it("emits each model's own instance type on <endpoint>-calibration and each of its candidates[] on <endpoint>-cal-<n> (a wrong endpoint would measure one candidate twice)", () => {
    const { dir, baseSha, headSha } = repoWith((_, config) => {
      (config.models.alpha as Record<string, unknown>).candidates = [
        { instance_type: 'ml.g6.xlarge' },
        { instance_type: 'ml.g4dn.xlarge', container_env: { DEVICE_LANES: '2' } },
      ];
    });
    const output = join(dir, 'output');
    writeFileSync(output, '');
    // Adding a candidate is a measurement change: the model is calibrated.
    expect(selectWith({ GITHUB_OUTPUT: output }, dir, 'changed', baseSha, headSha).models).toEqual([
      { model: 'alpha', endpoint: 'speech-alpha', region: 'us-east-1' },
    ]);
    const line = readFileSync(output, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('candidates='));
    const at = { model: 'alpha', endpoint: 'speech-alpha', region: 'us-east-1' };
    expect(JSON.parse(line?.slice('candidates='.length) ?? 'null')).toEqual([
      {
        ...at,
        candidate: 0,
        instance_type: 'ml.g5.xlarge',
        calibration_endpoint: 'speech-alpha-calibration',
        suffix: '',
      },
      {
        ...at,
        candidate: 1,
        instance_type: 'ml.g6.xlarge',
        calibration_endpoint: 'speech-alpha-cal-1',
        suffix: '-cal-1',
      },
      {
        ...at,
        candidate: 2,
        instance_type: 'ml.g4dn.xlarge',
        calibration_endpoint: 'speech-alpha-cal-2',
        suffix: '-cal-2',
      },
    ]);
  });
});

/** A PR branch: base, then a commit that changes alpha's container (calibrated), then `next`. */
function pushedRepo(next: (dir: string) => void) {
  const { dir, baseSha } = repoWith((d) => writeFileSync(join(d, 'models', 'alpha', 'app.py'), 'v1'));
  const before = git(dir, 'rev-parse', 'HEAD');
  next(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '--quiet', '--allow-empty', '-m', 'next push');
  return { dir, baseSha, before, after: git(dir, 'rev-parse', 'HEAD') };
}

describe('select-models.mjs pushed (one push to a pull request: before..after)', () => {
  it('re-runs no calibration for a push that touches no model (the whole-PR diff re-ran hours of it)', () => {
    const { dir, baseSha, before, after } = pushedRepo((d) => writeFileSync(join(d, 'README.md'), 'docs'));
    expect(select(dir, 'changed', baseSha, after).models).toHaveLength(1); // the old rule
    expect(select(dir, 'pushed', baseSha, before, after).models).toEqual([]);
  });

  it('calibrates a model whose container the push changes', () => {
    const { dir, baseSha, before, after } = pushedRepo((d) =>
      writeFileSync(join(d, 'models', 'alpha', 'app.py'), 'v2'),
    );
    expect(select(dir, 'pushed', baseSha, before, after).models).toEqual([
      { model: 'alpha', endpoint: 'speech-alpha', region: 'us-east-1' },
    ]);
  });

  it('skips a push that changes only artifacts (the artifact commit of the calibration itself)', () => {
    const { dir, baseSha, before, after } = pushedRepo((d) => {
      mkdirSync(join(d, 'artifacts'), { recursive: true });
      writeFileSync(join(d, 'artifacts', 'plan-alpha.json'), '{}');
    });
    const r = select(dir, 'pushed', baseSha, before, after);
    expect(r.models).toEqual([]);
    expect(r.stderr).toContain('::notice title=scalegate::the push changes only artifacts/: not calibrated');
  });

  it('skips a push by a bot (an App token’s artifact commit does start workflows), even one touching a model', () => {
    const { dir, baseSha, before, after } = pushedRepo((d) =>
      writeFileSync(join(d, 'models', 'alpha', 'app.py'), 'v3'),
    );
    expect(selectWith({ ACTOR: 'scalegate-app[bot]' }, dir, 'pushed', baseSha, before, after).models).toEqual(
      [],
    );
    expect(selectWith({ SENDER_TYPE: 'Bot' }, dir, 'pushed', baseSha, before, after).models).toEqual([]);
    expect(selectWith({ ACTOR: 'dana' }, dir, 'pushed', baseSha, before, after).models).toHaveLength(1);
  });

  it('judges a force-push (before not an ancestor of after) on the whole pull request', () => {
    const { dir, baseSha } = repoWith((d) => writeFileSync(join(d, 'models', 'alpha', 'app.py'), 'v1'));
    const before = git(dir, 'rev-parse', 'HEAD');
    git(dir, 'reset', '--quiet', '--hard', baseSha);
    writeFileSync(join(dir, 'models', 'alpha', 'app.py'), 'rewritten');
    git(dir, 'add', '-A');
    git(dir, 'commit', '--quiet', '-m', 'rewritten');
    const after = git(dir, 'rev-parse', 'HEAD');
    const r = select(dir, 'pushed', baseSha, before, after);
    expect(r.models.map((m: { model: string }) => m.model)).toEqual(['alpha']);
    expect(r.stderr).toContain('a force-push');
  });

  it('refuses arguments that are not commit ids (usage error)', () => {
    const { dir } = repoWith(() => {});
    expect(select(dir, 'pushed', 'main', 'x', 'y').status).toBe(2);
  });
});
