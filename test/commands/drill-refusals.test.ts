/**
 * Bad input to `scalegate drill` is refused before any load is sent: exit 2, the cause named
 * (the flag or the file) and the fix, nothing written. Against the local SageMaker with real SDK
 * clients where the refusal needs the endpoint (its fingerprint, its deployed policy).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import {
  configFile,
  type Emulator,
  editedCopy,
  emulatorPlanFile,
  MODEL,
  startEmulator,
  withEmulatorEnv,
  workspace,
} from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let planFile: string;
let restoreEnv: () => void;

beforeAll(async () => {
  // No policy applied: the endpoint as a fresh deploy without the plan leaves it.
  emulator = await startEmulator();
  dir = workspace('drill-refusals');
  planFile = await emulatorPlanFile(emulator, dir);
  restoreEnv = withEmulatorEnv(emulator, join(dir, 'state'));
});

afterAll(async () => {
  restoreEnv?.();
  await emulator?.close();
});

const drill = (extra: string[]) =>
  runCli([
    'drill',
    '--config',
    configFile,
    '--model',
    MODEL,
    '--steady-s',
    '10',
    '--surge-s',
    '10',
    '--trough-s',
    '10',
    ...extra,
  ]);

/** Runs the CLI and checks the refusal: exit 2, nothing on stdout, nothing new in the workspace. */
async function refused(extra: string[]): Promise<string> {
  const before = readdirSync(dir).sort();
  const cli = await drill(extra);
  expect(cli.exitCode).toBe(2);
  expect(cli.stdout).toBe('');
  expect(readdirSync(dir).sort()).toEqual(before);
  return cli.stderr;
}

describe('scalegate drill refuses bad input (exit 2, the cause named)', () => {
  it('a surge ratio outside 1..2 (prevents a drill that is no surge, or an absurd one)', async () => {
    for (const k of ['0.8', '2.5']) {
      const stderr = await refused(['--plan', planFile, '--surge-ratio', k]);
      expect(stderr).toMatch(new RegExp(`--surge-ratio ${k}: a drill surges between 1 \\(no surge\\) and 2`));
    }
  });

  it('a plan of another fingerprint than the endpoint runs (prevents judging a policy by a measurement of something else)', async () => {
    const other = editedCopy(planFile, dir, 'other-image.json', (json) => {
      json.fingerprint.image_digest = 'f'.repeat(64);
    });
    const stderr = await refused(['--plan', other]);
    expect(stderr).toMatch(
      /--plan .*other-image\.json was measured on another configuration than endpoint speech-kokoro-82m runs \(image_digest: plan f{64}, endpoint /,
    );
    expect(stderr).toMatch(/scalegate qmax/);
  });

  it('an endpoint without the plan’s policy, naming the command that deploys it (prevents drilling a fleet nothing scales)', async () => {
    const stderr = await refused(['--plan', planFile]);
    expect(stderr).toMatch(/endpoint speech-kokoro-82m has no scaling policy/);
    expect(stderr).toMatch(/scalable_target\.min_capacity \(MinCapacity\): expected 1, not deployed/);
    expect(stderr).toMatch(
      /Deploy the plan's policy first: `scalegate local apply --model kokoro-82m --endpoint speech-kokoro-82m --plan /,
    );
  });

  it('a shard without a shared start, and a shard that is no shard (prevents shards that start apart)', async () => {
    expect(await refused(['--plan', planFile, '--shard', '1/2'])).toMatch(
      /--shard 1\/2 needs --start-at: every shard/,
    );
    expect(
      await refused(['--plan', planFile, '--shard', '2/2', '--start-at', '2099-01-01T00:00:00Z']),
    ).toMatch(/--shard 2\/2: use i\/n with 0 <= i < n/);
    expect(
      await refused(['--plan', planFile, '--shard', '0/2', '--start-at', '2020-01-01T00:00:00Z']),
    ).toMatch(/--start-at 2020-01-01T00:00:00Z: lies .* in the past/);
  });

  it('a plan for another model, and no plan at all (prevents drilling the wrong model’s promise)', async () => {
    const foreign = editedCopy(planFile, dir, 'foreign.json', (json) => {
      json.model_name = 'reference-tts';
    });
    expect(await refused(['--plan', foreign])).toMatch(
      /--plan .*foreign\.json: a plan for reference-tts, not kokoro-82m/,
    );
    expect(await refused([])).toMatch(/--plan <file> is required/);
  });
});

describe('scalegate drill --dry-run', () => {
  it('prints phases, duration, instance-minutes and cost, says it freezes nothing, and makes no AWS call (prevents a dry run that touches the endpoint)', async () => {
    const saved = process.env.AWS_ENDPOINT_URL;
    // Nothing listens here: any AWS call would fail the run.
    process.env.AWS_ENDPOINT_URL = 'http://127.0.0.1:9';
    try {
      const cli = await drill(['--plan', planFile, '--dry-run', '--start-instances', '2']);
      expect(cli.stderr).toBe('');
      expect(cli.exitCode).toBe(0);
      expect(cli.stdout).toMatch(
        /^drill dry run: kokoro-82m on endpoint speech-kokoro-82m, surge ratio 1.25, 2 instance\(s\)/,
      );
      expect(cli.stdout).toMatch(
        /steady {2}0-10 s .* computed: lambda_safe 12.306 requests\/s x 2 instance\(s\)/,
      );
      expect(cli.stdout).toMatch(/duration: 30 s \(0.5 min\)/);
      expect(cli.stdout).toMatch(
        /instance-minutes: 1.3 \(estimate: 2 instance\(s\) in the steady phase, 3 from the surge on\)/,
      );
      expect(cli.stdout).toMatch(/estimated cost: \$0.03 at \$1.41\/instance-hour/);
      expect(cli.stdout).toMatch(/the drill freezes nothing/);
      expect(cli.stdout).toMatch(/no AWS call was made/);
    } finally {
      process.env.AWS_ENDPOINT_URL = saved;
    }
  });

  it('--help says the drill freezes nothing and a killed run leaves the endpoint under its own policy (prevents operators expecting a restore)', async () => {
    const cli = await runCli(['drill', '--help']);
    expect(cli.stdout.replace(/\s+/g, ' ')).toMatch(
      /The drill freezes nothing: the endpoint scales under its own policy throughout, so a run killed mid-way leaves it under its own policy/,
    );
  });
});
