/**
 * `scalegate deploy` / `destroy` drive the aws-cdk CLI of the checkout in infra/: one synth (the
 * gate), then one cdk call per stack in dependency order (reverse for destroy). No AWS here, so
 * the runner is a recorder: the test proves what would run, in which order, and that a failing
 * step stops the rest. `--dry-run` runs nothing.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type CdkInvocation, cdkInvocations, runDeploy } from '../../src/commands/deploy.js';
import { isUsageError } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import { artifactsDirWith, kokoroModel, kokoroPlan } from './fixtures.js';
import { REPO } from './helpers.js';

const configFile = join(REPO, 'scalegate.config.json');
const cdk = join(REPO, 'node_modules', '.bin', 'cdk');
const infra = join(REPO, 'infra');
const base = { modelName: 'kokoro-82m', model: kokoroModel(), configFile };

const recorder = (codes: number[] = []) => {
  const calls: CdkInvocation[] = [];
  return {
    calls,
    run: async (inv: CdkInvocation) => {
      calls.push(inv);
      return codes[calls.length - 1] ?? 0;
    },
  };
};

describe('scalegate deploy', () => {
  it('--dry-run prints the exact cdk invocations in dependency order and runs none of them', async () => {
    const r = recorder();
    const result = await runDeploy(
      {
        ...base,
        action: 'deploy',
        calibration: false,
        dryRun: true,
      },
      { run: r.run },
    );
    expect(r.calls).toEqual([]);
    expect(result.exitCode).toBe(0);
    const c = `-c scalegate:config=${configFile} -c scalegate:model=kokoro-82m`;
    expect(result.artifact?.invocations).toEqual([
      `(cd ${infra} && ${cdk} synth --quiet --output cdk.out/scalegate-kokoro-82m ${c})`,
      `(cd ${infra} && ${cdk} deploy --app cdk.out/scalegate-kokoro-82m --exclusively --require-approval never scalegate-kokoro-82m-foundation)`,
      `(cd ${infra} && ${cdk} deploy --app cdk.out/scalegate-kokoro-82m --exclusively --require-approval never scalegate-kokoro-82m-model-cache)`,
      `(cd ${infra} && ${cdk} deploy --app cdk.out/scalegate-kokoro-82m --exclusively --require-approval never scalegate-kokoro-82m-endpoint)`,
    ]);
    expect(result.report).toContain('dry run: nothing was run');
    for (const line of result.artifact?.invocations ?? []) expect(result.report).toContain(line);
  });

  it('runs synth then each stack in order, and stops at the first failure (a refused gate deploys nothing)', async () => {
    const ok = recorder();
    const done = await runDeploy(
      {
        ...base,
        action: 'deploy',
        calibration: false,
        dryRun: false,
      },
      { run: ok.run },
    );
    expect(done.exitCode).toBe(0);
    expect(ok.calls.map((c) => [c.args[0], c.args.at(-1)])).toEqual([
      ['synth', 'scalegate:model=kokoro-82m'],
      ['deploy', 'scalegate-kokoro-82m-foundation'],
      ['deploy', 'scalegate-kokoro-82m-model-cache'],
      ['deploy', 'scalegate-kokoro-82m-endpoint'],
    ]);
    expect(ok.calls.every((c) => c.cwd === infra && c.command === cdk)).toBe(true);

    const refused = recorder([1]);
    const failed = await runDeploy(
      {
        ...base,
        action: 'deploy',
        calibration: false,
        dryRun: false,
      },
      { run: refused.run },
    );
    expect(refused.calls).toHaveLength(1);
    expect(failed.exitCode).toBe(1);
    expect(failed.report).toContain('the measured-plan gate runs');
  });

  it('--calibration deploys only calibration-owned stacks, never production’s foundation or model cache', () => {
    const inv = cdkInvocations({ ...base, action: 'deploy', calibration: true });
    expect(inv[0]?.args).toContain('scalegate:calibration=kokoro-82m');
    expect(inv.slice(1).map((i) => i.args.at(-1))).toEqual(['scalegate-kokoro-82m-calibration']);
  });

  it('--calibration --dry-run lists only calibration-owned stacks (a pull request cannot deploy production’s)', async () => {
    const r = recorder();
    const result = await runDeploy(
      { ...base, action: 'deploy', calibration: true, dryRun: true },
      { run: r.run },
    );
    expect(r.calls).toEqual([]);
    expect(result.artifact?.stacks).toEqual(['scalegate-kokoro-82m-calibration']);
    expect(result.report).toContain(
      'speech-kokoro-82m-calibration in us-east-1, stacks scalegate-kokoro-82m-calibration',
    );
    for (const production of ['-foundation ', '-model-cache', '-endpoint']) {
      expect(result.report).not.toMatch(new RegExp(`scalegate-kokoro-82m${production}`));
    }
  });

  it('--calibration names the calibration account and region of the config', async () => {
    const result = await runDeploy(
      {
        ...base,
        model: kokoroModel({ calibration: { account: '444455556666', region: 'us-west-2' } }),
        action: 'deploy',
        calibration: true,
        dryRun: true,
      },
      { run: recorder().run },
    );
    expect(result.report).toContain('speech-kokoro-82m-calibration in us-west-2 (account 444455556666)');
  });

  it('passes --allow-unmeasured and --artifacts-dir to the synth as context', () => {
    const inv = cdkInvocations({
      ...base,
      action: 'deploy',
      calibration: false,
      allowUnmeasured: true,
      artifactsDir: '/tmp/a',
    });
    expect(inv[0]?.args).toEqual(
      expect.arrayContaining(['scalegate:allowUnmeasured=kokoro-82m', 'scalegate:artifactsDir=/tmp/a']),
    );
  });
});

describe('scalegate destroy', () => {
  it('removes the stacks in reverse order, never blocked by the gate, and says what it leaves', async () => {
    const r = recorder();
    const result = await runDeploy(
      {
        ...base,
        action: 'destroy',
        calibration: false,
        dryRun: false,
      },
      { run: r.run },
    );
    expect(result.exitCode).toBe(0);
    expect(r.calls[0]?.args).toContain('scalegate:allowUnmeasured=kokoro-82m');
    expect(r.calls.slice(1).map((c) => c.args.slice(0, 1).concat(c.args.slice(-2)))).toEqual([
      ['destroy', '--force', 'scalegate-kokoro-82m-endpoint'],
      ['destroy', '--force', 'scalegate-kokoro-82m-model-cache'],
      ['destroy', '--force', 'scalegate-kokoro-82m-foundation'],
    ]);
    expect(result.report).toContain('the weights bucket (retained on destroy');
    expect(result.report).toContain('the image repository of');
  });

  it('--calibration removes only the calibration-owned stack', () => {
    const inv = cdkInvocations({ ...base, action: 'destroy', calibration: true });
    expect(inv.slice(1).map((i) => i.args.at(-1))).toEqual(['scalegate-kokoro-82m-calibration']);
  });
});

describe('scalegate deploy --calibration --with-plan', () => {
  const planDir = artifactsDirWith({ 'kokoro-82m': kokoroPlan() });
  const planFile = join(planDir, 'plan-kokoro-82m.json');

  it('--dry-run synthesizes the calibration stacks with the plan as context and runs nothing', async () => {
    const r = recorder();
    const result = await runDeploy(
      { ...base, action: 'deploy', calibration: true, withPlan: planFile, dryRun: true },
      { run: r.run },
    );
    expect(r.calls).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(result.artifact?.with_plan).toBe(planFile);
    expect(result.artifact?.invocations[0]).toContain(
      `-c scalegate:calibration=kokoro-82m -c scalegate:withPlan=${planFile}`,
    );
    expect(result.artifact?.stacks).toEqual(['scalegate-kokoro-82m-calibration']);
    expect(result.report).toContain(
      `scalegate deploy kokoro-82m --calibration --with-plan ${planFile} (the plan's policy, autoscaling and alarms): speech-kokoro-82m-calibration in us-east-1`,
    );
  });

  it('takes <artifacts-dir>/plan-<model>.json when --with-plan names no file', () => {
    const inv = cdkInvocations({
      ...base,
      action: 'deploy',
      calibration: true,
      withPlan: true,
      artifactsDir: planDir,
    });
    expect(inv[0]?.args).toContain(`scalegate:withPlan=${planFile}`);
  });

  it('refuses (usage error, nothing run) --with-plan without --calibration, and a plan file that does not exist', async () => {
    const r = recorder();
    const production = await runDeploy(
      { ...base, action: 'deploy', calibration: false, withPlan: planFile },
      { run: r.run },
    ).catch((e: unknown) => e);
    expect(isUsageError(production)).toBe(true);
    expect((production as Error).message).toContain(
      'use it with `scalegate deploy kokoro-82m --calibration`',
    );
    const missing = await runDeploy(
      { ...base, action: 'deploy', calibration: true, withPlan: join(planDir, 'nope.json') },
      { run: r.run },
    ).catch((e: unknown) => e);
    expect(isUsageError(missing)).toBe(true);
    expect((missing as Error).message).toContain('nope.json: no such plan file');
    expect(r.calls).toEqual([]);
  });

  it('works from the CLI: `deploy <model> --calibration --with-plan F --dry-run` exits 0, without --calibration exits 2', async () => {
    const ok = await runCli([
      'deploy',
      'kokoro-82m',
      '--config',
      configFile,
      '--calibration',
      '--with-plan',
      planFile,
      '--dry-run',
    ]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toContain(`-c scalegate:withPlan=${planFile}`);
    const refused = await runCli([
      'deploy',
      'kokoro-82m',
      '--config',
      configFile,
      '--with-plan',
      planFile,
      '--dry-run',
    ]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--with-plan');
  });

  it('outside a checkout (an installed package, a team repository without infra/) refuses, naming the alternatives, and runs nothing', async () => {
    const teamRepo = mkdtempSync(join(tmpdir(), 'scalegate-team-'));
    const r = recorder();
    const refused = await runDeploy(
      { ...base, configFile: join(teamRepo, 'scalegate.config.json'), action: 'deploy' },
      { run: r.run },
    ).catch((e: unknown) => e);
    expect(isUsageError(refused)).toBe(true);
    expect((refused as Error).message).toContain(`${join(teamRepo, 'infra')}: no CDK app here`);
    expect((refused as Error).message).toContain('scalegate/cdk');
    expect((refused as Error).message).toContain('--format tfvars');
    expect(r.calls).toEqual([]);
  });
});
