/**
 * `scalegate gate` needs the plan proven, not only matched: a committed clean validate of that
 * very plan (same run id and fingerprint), and with `require_drill` a passing drill of it. Each
 * missing proof is refused (exit 1) with the command that produces it; the gate passes once the
 * proof is committed. Files in temp directories, read by the gate as the release workflow does.
 */
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/commands/gate.js';
import {
  drillFileName,
  readArtifact,
  readConfigFile,
  validateFileName,
  writeArtifact,
} from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import {
  artifactsDirWith,
  cleanValidate,
  drillOf,
  kokoroModel,
  kokoroPlan,
  measurementsOf,
} from '../infra/fixtures.js';

const REPO = join(import.meta.dirname, '..', '..');
const COMMITTED = join(REPO, 'artifacts');
const noHashing = () => {
  throw new Error('an image_uri model must not hash a directory');
};

/** The committed Kokoro plan and the measurements it names, copied into a fresh directory. */
function committedKokoro(): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-committed-'));
  for (const name of [
    'plan-kokoro-82m.json',
    'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
    'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
  ])
    copyFileSync(join(COMMITTED, name), join(dir, name));
  return dir;
}

const gate = (
  dir: string,
  model = readConfigFile(join(REPO, 'scalegate.config.json')).models['kokoro-82m'],
) =>
  runGate(
    {
      modelName: 'kokoro-82m',
      model: model as NonNullable<typeof model>,
      configFile: join(REPO, 'scalegate.config.json'),
      planFile: join(dir, 'plan-kokoro-82m.json'),
      region: 'us-east-1',
      offline: true,
    },
    { assetHash: noHashing },
  );

const checkOf = (result: Awaited<ReturnType<typeof gate>>, name: string) =>
  result.artifact?.checks.find((c) => c.check === name);

describe('scalegate gate: the committed Kokoro plan needs a clean validate of its run id', () => {
  it('refuses it without a committed validate, naming the commands that produce one, and accepts the validate once it is there', async () => {
    const dir = committedKokoro();
    const plan = readArtifact('plan', join(dir, 'plan-kokoro-82m.json'));
    const before = await gate(dir);
    expect(before.exitCode).toBe(1);
    const refused = checkOf(before, 'validated');
    expect(refused?.ok).toBe(false);
    expect(refused?.detail).toContain('no validate of this plan is committed');
    expect(before.report).toContain(
      `\`scalegate deploy kokoro-82m --calibration --with-plan ${join(dir, 'plan-kokoro-82m.json')}\``,
    );
    expect(before.report).toContain(
      `\`scalegate validate --model kokoro-82m --endpoint speech-kokoro-82m-calibration --plan ${join(dir, 'plan-kokoro-82m.json')}\``,
    );

    // A validate of another run of the plan is no proof of this one.
    writeArtifact(
      'validate',
      join(dir, validateFileName('kokoro-82m')),
      cleanValidate(plan, {
        plan: {
          file: 'artifacts/plan-kokoro-82m.json',
          run_id: 'an0therrun00',
          fingerprint: plan.fingerprint,
        },
      }),
    );
    expect(checkOf(await gate(dir), 'validated')?.detail).toContain(`not this plan (run ${plan.run_id})`);

    writeArtifact('validate', join(dir, validateFileName('kokoro-82m')), cleanValidate(plan));
    const after = await gate(dir);
    expect(checkOf(after, 'validated')).toMatchObject({ ok: true, fix: null });
    expect(checkOf(after, 'validated')?.detail).toContain(`plan run ${plan.run_id}`);
    // With its proof committed, the committed plan passes (its legacy measurements take the
    // config's region, labelled so).
    expect(after.artifact?.checks.filter((c) => !c.ok).map((c) => c.check)).toEqual([]);
    expect(after.exitCode).toBe(0);
  });

  it('passes a measured plan (region recorded) once its clean validate is committed: exit 1 before, 0 after', async () => {
    const plan = kokoroPlan();
    const dir = artifactsDirWith({
      'kokoro-82m': { plan, measurements: measurementsOf(plan), validate: null },
    });
    const before = await gate(dir, kokoroModel());
    expect(before.exitCode).toBe(1);
    expect(before.artifact?.checks.filter((c) => !c.ok).map((c) => c.check)).toEqual(['validated']);
    writeArtifact('validate', join(dir, validateFileName('kokoro-82m')), cleanValidate(plan));
    const after = await gate(dir, kokoroModel());
    expect(after.report).toContain('PASS');
    expect(after.exitCode).toBe(0);
  });

  it('with require_drill, refuses until a drill of the plan whose SLO held is committed, naming `scalegate drill`', async () => {
    const plan = kokoroPlan();
    const dir = artifactsDirWith({ 'kokoro-82m': plan });
    const model = kokoroModel({ require_drill: true });
    const none = await gate(dir, model);
    expect(none.exitCode).toBe(1);
    expect(none.report).toMatch(/✗ drilled +require_drill is set and no drill of this plan/);
    expect(none.report).toContain(
      `\`scalegate drill --model kokoro-82m --plan ${join(dir, 'plan-kokoro-82m.json')} --endpoint speech-kokoro-82m-calibration\``,
    );
    const file = join(dir, drillFileName('kokoro-82m', plan.fingerprint));
    writeArtifact('drill', file, drillOf(plan, { sloBroken: true }));
    expect((await gate(dir, model)).report).toMatch(/✗ drilled +.*the drill of this plan broke the SLO/);
    // A drill from before slo_held was recorded is no proof, and the gate says how to get one.
    writeArtifact('drill', file, drillOf(plan, { older: true }));
    const older = await gate(dir, model);
    expect(older.exitCode).toBe(1);
    expect(older.report).toMatch(
      /✗ drilled +.*recorded by an older scalegate that did not judge whether the SLO held/,
    );
    // A drill of another plan run does not count.
    writeArtifact('drill', file, drillOf(plan, { plan_run_id: 'an0therrun00' }));
    expect((await gate(dir, model)).exitCode).toBe(1);
    writeArtifact('drill', file, drillOf(plan));
    const passed = await gate(dir, model);
    expect(passed.report).toMatch(/✓ drilled +.*passed on speech-kokoro-82m-calibration/);
    expect(passed.exitCode).toBe(0);
  });

  it('refuses (exit 1) through the CLI too, reading the proofs beside the plan', async () => {
    const plan = kokoroPlan();
    const dir = artifactsDirWith({
      'kokoro-82m': { plan, measurements: measurementsOf(plan), validate: null },
    });
    const config = join(dir, 'scalegate.config.json');
    writeFileSync(config, JSON.stringify({ models: { 'kokoro-82m': kokoroModel() } }));
    const args = [
      'gate',
      '--offline',
      '--model',
      'kokoro-82m',
      '--config',
      config,
      '--plan',
      join(dir, 'plan-kokoro-82m.json'),
    ];
    const refused = await runCli(args);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toMatch(/✗ validated +no validate of this plan is committed/);
    writeArtifact('validate', join(dir, validateFileName('kokoro-82m')), cleanValidate(plan));
    const passed = await runCli(args);
    expect(passed.stdout).toContain('✓ validated');
    expect(passed.exitCode).toBe(0);
  });
});
