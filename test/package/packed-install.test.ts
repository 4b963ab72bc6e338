/**
 * The package as a user gets it: `npm pack` of this repository, installed into a scratch
 * directory that is not the checkout, and its INSTALLED binary (node_modules/.bin/scalegate) run
 * from there against the local SageMaker: qmax -> plan -> local apply -> validate -> gate. A file
 * missing from `files`, a runtime dependency the bundle does not carry, or a path resolved
 * against the repository instead of the working directory fails here, and nowhere else.
 */
import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { readArtifact } from '../../src/model/index.js';
import { repoRoot } from '../helpers/anchor.js';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process without blocking this one (the local SageMaker serves from this event loop). */
function run(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const work = mkdtempSync(join(tmpdir(), 'scalegate-packed-'));
const scratch = join(work, 'team-repo');
const MODEL = 'team-tts';
/** The image the team's endpoint runs, pinned by digest (no CDK needed to know it). */
const DIGEST = 'c0ffee00'.repeat(8);

let tarball: string;
let tarballFiles: string[];
let handle: LocalSageMakerHandle | undefined;
let env: NodeJS.ProcessEnv;
const bin = () => join(scratch, 'node_modules', '.bin', 'scalegate');
const scalegate = (...args: string[]) => run(bin(), args, scratch, env);
const seconds: Record<string, number> = {};
let planTarget: number | null = null;

async function timed<T>(step: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  try {
    return await f();
  } finally {
    seconds[step] = (performance.now() - t0) / 1000;
  }
}

beforeAll(async () => {
  const pack = await timed('pack', () =>
    run(npm, ['pack', '--pack-destination', work, '--json', '--ignore-scripts'], repoRoot),
  );
  expect(pack.code, pack.stderr).toBe(0);
  const [packed] = JSON.parse(pack.stdout) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, (packed as { filename: string }).filename);
  tarballFiles = (packed as { files: { path: string }[] }).files.map((f) => f.path);

  // A team repository: its own package.json, config and prompts; no scalegate checkout anywhere near.
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'team-repo', private: true }));
  const install = await timed('install', () =>
    run(npm, ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], scratch),
  );
  expect(install.code, install.stderr).toBe(0);
  writeFileSync(
    join(scratch, 'scalegate.config.json'),
    JSON.stringify({
      models: {
        [MODEL]: {
          endpoint: 'speech-team-tts',
          region: 'local',
          instance_type: 'ml.g5.xlarge',
          image_uri: `{account}.dkr.ecr.{region}.amazonaws.com/team-tts@sha256:${DIGEST}`,
          // The local SageMaker's model environment (WORKERS of the reference container).
          container_env: { WORKERS: '1' },
          slo_ms: 1000,
          surge_ratio: 1.25,
          peak_rps: 20,
          trough_rps: 1,
        },
      },
    }),
  );
  writeFileSync(join(scratch, 'prompts.txt'), 'Hello.\nYes, thanks.\nGood morning.\n');

  // The team's endpoint: a freshly deployed calibration endpoint of the pinned image.
  handle = await timed('local-sagemaker', () =>
    startLocalSageMaker({
      endpointName: 'speech-team-tts',
      imageUri: `000000000000.dkr.ecr.local.amazonaws.com/team-tts@sha256:${DIGEST}`,
      provisionDelayS: 0.2,
      maxQueueDepth: 100_000,
      registerScalableTarget: true,
    }),
  );
  const local = clientConfigFor(handle);
  env = {
    ...process.env,
    AWS_ENDPOINT_URL: local.endpoint,
    AWS_REGION: local.region,
    AWS_ACCESS_KEY_ID: local.credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: local.credentials.secretAccessKey,
    AWS_PROFILE: '',
  };
}, 180_000);

afterAll(async () => {
  await handle?.close();
  rmSync(work, { recursive: true, force: true });
  // What the packed-install figures are: reported, never asserted.
  process.stderr.write(
    `packed install: ${tarballFiles?.length} files in the tarball; ${Object.entries(seconds)
      .map(([k, v]) => `${k} ${v.toFixed(1)} s`)
      .join(', ')}\n`,
  );
}, 60_000);

describe('the packed package, installed into a team repository', () => {
  it('ships the CLI, its bundle, the CDK export named by `exports`, and nothing of the sources or tests', () => {
    const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
    for (const file of ['bin/scalegate.mjs', 'dist/cli.mjs', 'LICENSE', 'README.md', 'package.json'])
      expect(tarballFiles).toContain(file);
    for (const target of [pkg.exports['./cdk'].import, pkg.exports['./cdk'].types] as string[])
      expect(tarballFiles, `${target} (package.json exports) is not in the tarball`).toContain(
        target.replace('./', ''),
      );
    // What `scalegate local up` / `rehearse` run: the prebuilt reference container and the anchor ladder.
    expect(tarballFiles).toContain('infra/container/dist/server.js');
    expect(tarballFiles).toContain('artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
    expect(tarballFiles.filter((f) => /^(src|test|bench)\//.test(f) || f.includes('node_modules/'))).toEqual(
      [],
    );
  });

  it('installs no runtime dependency (the bundles are self-contained)', () => {
    expect(readdirSync(join(scratch, 'node_modules')).sort()).toEqual([
      '.bin',
      '.package-lock.json',
      'scalegate',
    ]);
  });

  it('runs qmax -> plan -> local apply -> validate -> gate with the installed binary, writing the artifacts in the working directory', async () => {
    const qmax = await timed('qmax', () =>
      scalegate(
        'qmax',
        '--model',
        MODEL,
        '--prompts',
        'prompts.txt',
        '--max-concurrency',
        '2',
        '--resolution',
        '2',
        '--hold-s',
        '20',
        '--measure-s',
        '5',
        '--settle-s',
        '0.5',
        '--min-samples',
        '80',
        '--cloudwatch-wait-s',
        '10',
        // Runs against a local SageMaker default to artifacts/local/; this stands in for the team's
        // real endpoint, whose artifacts the gate reads from artifacts/.
        '--out',
        `artifacts/qmax-${MODEL}-team.json`,
      ),
    );
    expect(qmax.code, qmax.stderr).toBe(0);
    const artifacts = join(scratch, 'artifacts');
    const qmaxFile = readdirSync(artifacts).find((f) => f.startsWith(`qmax-${MODEL}-`)) as string;
    expect(qmaxFile).toBeDefined();
    expect(readArtifact('qmax', join(artifacts, qmaxFile)).fingerprint.image_digest).toBe(DIGEST);

    const planRun = await timed('plan', () =>
      scalegate(
        'plan',
        '--model',
        MODEL,
        '--qmax',
        `artifacts/${qmaxFile}`,
        '--assume-t-total',
        '60',
        '--out',
        `artifacts/plan-${MODEL}.json`,
      ),
    );
    expect(planRun.code, planRun.stdout + planRun.stderr).toBe(0);
    expect(existsSync(join(artifacts, `plan-${MODEL}.json`))).toBe(true);

    const apply = await timed('local-apply', () =>
      scalegate('local', 'apply', '--model', MODEL, '--plan', `artifacts/plan-${MODEL}.json`),
    );
    expect(apply.code, apply.stdout + apply.stderr).toBe(0);
    const validate = await timed('validate', () =>
      scalegate(
        'validate',
        '--model',
        MODEL,
        '--plan',
        `artifacts/plan-${MODEL}.json`,
        '--out',
        `artifacts/validate-${MODEL}.json`,
      ),
    );
    expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    expect(existsSync(join(artifacts, `validate-${MODEL}.json`))).toBe(true);

    const gate = await timed('gate', () => scalegate('gate', '--model', MODEL));
    expect(gate.code, gate.stdout + gate.stderr).toBe(0);
    const plan = readArtifact('plan', join(artifacts, `plan-${MODEL}.json`));
    planTarget = plan.deployable.scaling_target_value;
    // Nothing was written into the installed package or anywhere but the working directory.
    expect(existsSync(join(scratch, 'node_modules', 'scalegate', 'artifacts', `plan-${MODEL}.json`))).toBe(
      false,
    );
  }, 300_000);

  it("synthesizes a team's stack through `import ... from 'scalegate/cdk'`, gated on the plan just proven", async () => {
    // The app's own aws-cdk-lib and constructs (scalegate's optional peers), as `npm install` would put them.
    for (const dep of ['aws-cdk-lib', 'constructs', '@types/node']) {
      mkdirSync(dirname(join(scratch, 'node_modules', dep)), { recursive: true });
      symlinkSync(join(repoRoot, 'node_modules', dep), join(scratch, 'node_modules', dep));
    }
    writeFileSync(
      join(scratch, 'synth.mjs'),
      [
        "import { App, Stack } from 'aws-cdk-lib';",
        "import { Template } from 'aws-cdk-lib/assertions';",
        "import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';",
        "import { ScalegateScaling } from 'scalegate/cdk';",
        'const app = new App();',
        "const stack = new Stack(app, 'Team', { env: { account: '000000000000', region: 'local' } });",
        `const scaling = new ScalegateScaling(stack, 'Scaling', { model: '${MODEL}' });`,
        "const endpoint = new sagemaker.CfnEndpoint(stack, 'Endpoint', { endpointConfigName: 'team' });",
        'scaling.dependOn(endpoint);',
        'const resources = Object.values(Template.fromStack(stack).toJSON().Resources);',
        'const policy = resources.find((r) => r.Properties?.PolicyType === "TargetTrackingScaling");',
        'console.log(JSON.stringify({ types: resources.map((r) => r.Type).sort(), target: policy.Properties.TargetTrackingScalingPolicyConfiguration.TargetValue, env: scaling.containerEnvironment }));',
      ].join('\n'),
    );
    const synth = await timed('cdk-synth', () => run(process.execPath, ['synth.mjs'], scratch, env));
    expect(synth.code, synth.stderr).toBe(0);
    const out = JSON.parse(synth.stdout) as { types: string[]; target: number; env: Record<string, string> };
    expect(out.target).toBe(planTarget);
    expect(out.types).toEqual(
      expect.arrayContaining([
        'AWS::ApplicationAutoScaling::ScalableTarget',
        'AWS::ApplicationAutoScaling::ScalingPolicy',
        'AWS::CloudWatch::Alarm',
      ]),
    );
    expect(Object.keys(out.env)).toEqual(['MAX_QUEUE_DEPTH']);
  }, 120_000);

  it('type-checks examples/cdk-app against the shipped declarations (dist/cdk.d.ts)', async () => {
    const app = join(scratch, 'cdk-app');
    mkdirSync(join(app, 'bin'), { recursive: true });
    cpSync(join(repoRoot, 'examples', 'cdk-app', 'tsconfig.json'), join(app, 'tsconfig.json'));
    cpSync(join(repoRoot, 'examples', 'cdk-app', 'bin', 'app.ts'), join(app, 'bin', 'app.ts'));
    symlinkSync(join(scratch, 'node_modules'), join(app, 'node_modules'));
    const tsc = join(repoRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    const check = await timed('tsc-example', () => run(process.execPath, [tsc, '-p', 'tsconfig.json'], app));
    expect(check.code, check.stdout + check.stderr).toBe(0);
  }, 120_000);
});
