/**
 * .github/scripts/pr-inputs.mjs: the calibrate job runs the default branch's code and takes from
 * the pull request's checkout only the measured model's config entry and its container directory.
 * These tests prevent a PR from getting its own code run with the calibration role (a container_dir
 * aimed at ./actions, node_modules or a symlink out of the tree, a PR `bin/scalegate.mjs`), from
 * changing other models through the merged config, and from a copy whose image digest differs from
 * the one the release computes after the merge.
 */
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { containerAssetHash } from '../../src/model/asset-hash.js';
import { repoRoot } from '../helpers/anchor.js';

const script = join(repoRoot, '.github', 'scripts', 'pr-inputs.mjs');

const defaultConfig = {
  models: {
    'kokoro-82m': {
      endpoint: 'speech-kokoro-82m',
      region: 'us-east-1',
      instance_type: 'ml.g5.xlarge',
      image_uri: `123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro@sha256:${'a'.repeat(64)}`,
      slo_ms: 3000,
      surge_ratio: 1.25,
      peak_rps: 50,
    },
    'reference-tts': {
      endpoint: 'speech-reference-tts',
      region: 'us-east-1',
      instance_type: 'ml.g5.xlarge',
      container_dir: 'infra/container',
      slo_ms: 300,
      surge_ratio: 1.25,
      peak_rps: 200,
    },
  },
};
type Config = typeof defaultConfig & { models: Record<string, Record<string, unknown>> };

const write = (path: string, text: string) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
};

/**
 * A workspace (the default branch's checkout) and, inside it, `pr-head` (the PR's checkout, as
 * the workflow lays them out). `change` edits the PR's config and files.
 */
function layout(change: (pr: string, config: Config) => void = () => {}) {
  const workspace = mkdtempSync(join(tmpdir(), 'scalegate-pr-inputs-'));
  const pr = join(workspace, 'pr-head');
  write(join(workspace, 'scalegate.config.json'), JSON.stringify(defaultConfig, null, 2));
  write(join(workspace, 'infra', 'container', 'Dockerfile'), 'FROM node:20\nCOPY old.js .\n');
  write(join(workspace, 'infra', 'container', 'old.js'), 'old\n');
  write(join(workspace, 'actions', 'qmax', 'action.yml'), 'trusted\n');
  write(join(workspace, 'docs', 'index.md'), 'docs\n');
  const config = structuredClone(defaultConfig) as Config;
  write(join(pr, 'infra', 'container', 'Dockerfile'), 'FROM node:20\nCOPY new.js .\n');
  write(join(pr, 'infra', 'container', 'new.js'), 'new\n');
  write(join(pr, 'infra', 'container', 'src', 'app.js'), 'app\n');
  symlinkSync('src/app.js', join(pr, 'infra', 'container', 'entry.js'));
  // What must never run: a PR's own CLI and package scripts leave a marker if they do.
  const marker = join(workspace, 'pr-code-ran');
  write(
    join(pr, 'bin', 'scalegate.mjs'),
    `import { writeFileSync } from 'node:fs'; writeFileSync(${JSON.stringify(marker)}, 'ran');\n`,
  );
  write(join(pr, 'package.json'), JSON.stringify({ scripts: { postinstall: `touch ${marker}` } }));
  change(pr, config);
  if (!existsSync(join(pr, 'scalegate.config.json')))
    write(join(pr, 'scalegate.config.json'), JSON.stringify(config, null, 2));
  return { workspace, pr, marker };
}

function run(workspace: string, model = 'reference-tts', env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [script, model, 'pr-head'], {
    cwd: workspace,
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const configIn = (workspace: string) =>
  JSON.parse(readFileSync(join(workspace, 'scalegate.config.json'), 'utf8')) as Config;

describe('pr-inputs.mjs: the PR brings one model entry and its container directory, nothing else', () => {
  it("replaces only that model's entry (the PR's edits to other models stay out) and copies its container, links as links", () => {
    const { workspace, pr, marker } = layout((_pr, c) => {
      c.models['reference-tts'].slo_ms = 250;
      c.models['kokoro-82m'].surge_ratio = 1.49; // not the measured model: must not be taken
    });
    const r = run(workspace);
    expect(r.status, r.stderr).toBe(0);
    const config = configIn(workspace);
    expect(config.models['reference-tts']).toMatchObject({ slo_ms: 250, container_dir: 'infra/container' });
    expect(config.models['kokoro-82m']).toEqual(defaultConfig.models['kokoro-82m']);
    const container = join(workspace, 'infra', 'container');
    expect(readFileSync(join(container, 'Dockerfile'), 'utf8')).toBe('FROM node:20\nCOPY new.js .\n');
    expect(existsSync(join(container, 'old.js'))).toBe(false);
    expect(lstatSync(join(container, 'entry.js')).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(container, 'entry.js'))).toBe('src/app.js');
    // The image digest measured is the one the PR's directory (and the merged default branch) gives.
    expect(containerAssetHash(container)).toBe(containerAssetHash(join(pr, 'infra', 'container')));
    expect(readFileSync(join(workspace, 'actions', 'qmax', 'action.yml'), 'utf8')).toBe('trusted\n');
    expect(existsSync(marker)).toBe(false);
  });

  it('takes an image_uri model from the PR with no directory copied', () => {
    const { workspace } = layout((_pr, c) => {
      c.models['kokoro-82m'].image_uri =
        `123456789012.dkr.ecr.us-east-1.amazonaws.com/kokoro@sha256:${'b'.repeat(64)}`;
    });
    const r = run(workspace, 'kokoro-82m');
    expect(r.status, r.stderr).toBe(0);
    expect(configIn(workspace).models['kokoro-82m']?.image_uri).toMatch(/sha256:b{64}$/);
    expect(readFileSync(join(workspace, 'infra', 'container', 'old.js'), 'utf8')).toBe('old\n');
  });

  it('takes a new model with a new container directory', () => {
    const { workspace } = layout((pr, c) => {
      c.models['new-voice'] = {
        ...c.models['reference-tts'],
        endpoint: 'speech-new-voice',
        container_dir: 'models/new-voice',
      };
      write(join(pr, 'models', 'new-voice', 'Dockerfile'), 'FROM scratch\n');
    });
    const r = run(workspace, 'new-voice');
    expect(r.status, r.stderr).toBe(0);
    expect(readFileSync(join(workspace, 'models', 'new-voice', 'Dockerfile'), 'utf8')).toBe('FROM scratch\n');
    expect(Object.keys(configIn(workspace).models).sort()).toEqual([
      'kokoro-82m',
      'new-voice',
      'reference-tts',
    ]);
  });
});

describe('pr-inputs.mjs refuses (exit 2, nothing in the workspace changed)', () => {
  const refuses = (
    change: (pr: string, config: Config) => void,
    message: RegExp,
    model = 'reference-tts',
    env: Record<string, string> = {},
  ) => {
    const { workspace, marker } = layout(change);
    const before = readFileSync(join(workspace, 'scalegate.config.json'), 'utf8');
    const r = run(workspace, model, env);
    expect(r.status, r.stdout + r.stderr).toBe(2);
    expect(r.stderr).toMatch(/^::error title=scalegate::/);
    expect(r.stderr).toMatch(message);
    expect(readFileSync(join(workspace, 'scalegate.config.json'), 'utf8')).toBe(before);
    expect(readFileSync(join(workspace, 'infra', 'container', 'old.js'), 'utf8')).toBe('old\n');
    expect(readFileSync(join(workspace, 'actions', 'qmax', 'action.yml'), 'utf8')).toBe('trusted\n');
    expect(existsSync(marker)).toBe(false);
  };

  it('a container_dir over scalegate’s own code (./actions, node_modules, .github, .git)', () => {
    for (const dir of ['actions/qmax', 'actions', 'infra/node_modules/x', '.github/scripts', 'models/.git']) {
      refuses((pr, c) => {
        c.models['reference-tts'].container_dir = dir;
        write(join(pr, dir, 'Dockerfile'), 'FROM scratch\n');
      }, /is where scalegate keeps its own code or state/);
    }
  });

  it('a container_dir outside the PR checkout, absolute, or the whole repository', () => {
    refuses((_pr, c) => {
      c.models['reference-tts'].container_dir = '../..';
    }, /is not a directory inside the repository/);
    refuses((_pr, c) => {
      c.models['reference-tts'].container_dir = '/etc';
    }, /relative to the repository root/);
    refuses((_pr, c) => {
      c.models['reference-tts'].container_dir = './';
    }, /is not a directory inside the repository/);
  });

  it('a container_dir reached through a symlink, or holding a link out of the directory', () => {
    refuses((pr, c) => {
      symlinkSync('/etc', join(pr, 'models'));
      c.models['reference-tts'].container_dir = 'models';
    }, /goes through a symlink in the pull request/);
    refuses((pr) => {
      symlinkSync('../../bin/scalegate.mjs', join(pr, 'infra', 'container', 'cli.mjs'));
    }, /infra\/container\/cli\.mjs is a symlink out of container_dir "infra\/container"/);
    refuses((pr) => {
      symlinkSync('/etc/passwd', join(pr, 'infra', 'container', 'src', 'passwd'));
    }, /src\/passwd is a symlink out of/);
  });

  it('a container_dir that exists on the default branch and is no model’s container there (never overwritten)', () => {
    refuses((pr, c) => {
      c.models['reference-tts'].container_dir = 'docs';
      write(join(pr, 'docs', 'Dockerfile'), 'FROM scratch\n');
    }, /already exists on the default branch and is no model's container_dir there/);
  });

  it('a PR config that is a symlink, too large, not JSON, or without the model', () => {
    refuses((pr) => {
      symlinkSync('/etc/hostname', join(pr, 'scalegate.config.json'));
    }, /the pull request's scalegate\.config\.json is a symlink/);
    refuses(
      () => {},
      /the pull request's scalegate\.config\.json is \d+ bytes, more than the 100 a config may have/,
      'reference-tts',
      { SCALEGATE_PR_CONFIG_LIMIT: '100' },
    );
    refuses((pr) => {
      write(join(pr, 'scalegate.config.json'), '{"models": ');
    }, /not a scalegate config/);
    refuses(
      () => {},
      /model "gamma" is not in the pull request's scalegate\.config\.json \(declared: kokoro-82m, reference-tts\)/,
      'gamma',
    );
  });

  it("an entry the default branch's schema refuses, named by the default branch's CLI", () => {
    refuses((_pr, c) => {
      c.models['reference-tts'].slo_ms = -5;
      (c.models['reference-tts'] as Record<string, unknown>).unknown_key = true;
    }, /the pull request's entry for reference-tts is not valid on the default branch: .*scalegate\.config\.json \(reference-tts from the pull request\): invalid scalegate config.*models\.reference-tts/);
  });
});

describe("pr-inputs.mjs: a PR's tune-<model>.json and its trace, as data outside the workspace", () => {
  const tuneJson = (source: string) => JSON.stringify({ kind: 'tune', trace: { source } });

  it('copies the tune and the trace file it names into RUNNER_TEMP/pr-tune (never the workspace), output tune-dir (prevents a proposed policy being lost or landing among the trusted files)', () => {
    const { workspace } = layout((pr) => {
      write(join(pr, 'artifacts', 'tune-reference-tts.json'), tuneJson('traces/weekday.csv'));
      write(join(pr, 'traces', 'weekday.csv'), 't_s,rps\n0,1\n');
    });
    const temp = mkdtempSync(join(tmpdir(), 'scalegate-runner-temp-'));
    const output = join(temp, 'output');
    const r = run(workspace, 'reference-tts', { RUNNER_TEMP: temp, GITHUB_OUTPUT: output });
    expect(r.status, r.stderr).toBe(0);
    const dir = join(temp, 'pr-tune');
    expect(readFileSync(join(dir, 'tune.json'), 'utf8')).toBe(tuneJson('traces/weekday.csv'));
    expect(readFileSync(join(dir, 'trace.csv'), 'utf8')).toBe('t_s,rps\n0,1\n');
    expect(readFileSync(output, 'utf8')).toContain(`tune-dir=${dir}\n`);
    expect(existsSync(join(workspace, 'artifacts', 'tune-reference-tts.json'))).toBe(false);
  });

  it('writes a built-in shape instead of a trace file, and tune-dir is empty without a tune (prevents a shape read as a path, or a stale tune reused)', () => {
    const { workspace } = layout((pr) => {
      write(join(pr, 'artifacts', 'tune-reference-tts.json'), tuneJson('shape:diurnal(peak=40)'));
    });
    const temp = mkdtempSync(join(tmpdir(), 'scalegate-runner-temp-'));
    expect(run(workspace, 'reference-tts', { RUNNER_TEMP: temp }).status).toBe(0);
    expect(readFileSync(join(temp, 'pr-tune', 'shape'), 'utf8')).toBe('diurnal(peak=40)');
    const plain = layout();
    const output = join(temp, 'plain-output');
    expect(run(plain.workspace, 'reference-tts', { RUNNER_TEMP: temp, GITHUB_OUTPUT: output }).status).toBe(
      0,
    );
    expect(readFileSync(output, 'utf8')).toContain('tune-dir=\n');
  });

  it.each([
    [
      'a trace outside the PR',
      (pr: string) => write(join(pr, 'artifacts', 'tune-reference-tts.json'), tuneJson('../../etc/passwd')),
      /not a path inside the pull request/,
    ],
    [
      'a trace reached through a symlink',
      (pr: string) => {
        write(join(pr, 'artifacts', 'tune-reference-tts.json'), tuneJson('traces/t.csv'));
        mkdirSync(join(pr, 'traces'), { recursive: true });
        symlinkSync('/etc/hostname', join(pr, 'traces', 't.csv'));
      },
      /reached through a symlink/,
    ],
    [
      'a tune that is a symlink',
      (pr: string) => {
        mkdirSync(join(pr, 'artifacts'), { recursive: true });
        write(join(pr, 'elsewhere.json'), tuneJson('shape:x'));
        symlinkSync('../elsewhere.json', join(pr, 'artifacts', 'tune-reference-tts.json'));
      },
      /reached through a symlink/,
    ],
    [
      'a tune without trace.source',
      (pr: string) => write(join(pr, 'artifacts', 'tune-reference-tts.json'), '{}'),
      /no trace\.source/,
    ],
  ])(
    'refuses %s, changing nothing (prevents a PR reading files of the runner through its tune)',
    (_what, change, message) => {
      const { workspace } = layout(change);
      const before = readFileSync(join(workspace, 'scalegate.config.json'), 'utf8');
      const temp = mkdtempSync(join(tmpdir(), 'scalegate-runner-temp-'));
      const r = run(workspace, 'reference-tts', { RUNNER_TEMP: temp });
      expect(r.status, r.stdout + r.stderr).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(readFileSync(join(workspace, 'scalegate.config.json'), 'utf8')).toBe(before);
      expect(existsSync(join(temp, 'pr-tune'))).toBe(false);
    },
  );
});
