/** `scalegate gate` through the real CLI: flags, exit codes, --json. */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { artifactsDirWith, kokoroPlan, measuredPlan, stopPlan } from '../infra/fixtures.js';

const REPO = join(import.meta.dirname, '..', '..');
const config = join(REPO, 'scalegate.config.json');
const plan = (p: Parameters<typeof artifactsDirWith>[0][string]) =>
  join(artifactsDirWith({ 'kokoro-82m': p }), 'plan-kokoro-82m.json');

describe('scalegate gate (CLI)', () => {
  it('judges the committed Kokoro plan for us-east-1 on its proof alone (legacy measurements take the config region, labelled) and refuses it for any other region', async () => {
    const committed = join(REPO, 'artifacts', 'plan-kokoro-82m.json');
    const judged = await runCli([
      'gate',
      '--offline',
      '--model',
      'kokoro-82m',
      '--config',
      config,
      '--plan',
      committed,
    ]);
    expect(judged.stdout).toMatch(/✓ region +us-east-1 \(config \(the legacy artifact records none\)\)/);
    // No endpoint has run this plan yet: its only missing piece is the committed clean validate
    // (test/commands/gate-proofs.test.ts shows it passing once that is there).
    expect(judged.exitCode, judged.stdout).toBe(1);
    expect(judged.stdout.match(/^ {2}✗ \S+/gm)).toEqual(['  ✗ validated']);
    for (const region of ['eu-west-1', 'us-west-2']) {
      const refused = await runCli([
        'gate',
        '--offline',
        '--model',
        'kokoro-82m',
        '--config',
        config,
        '--plan',
        committed,
        '--region',
        region,
      ]);
      expect(refused.exitCode).toBe(1);
      expect(refused.stdout).toMatch(
        new RegExp(`✗ region +plan's region us-east-1 .*deploying to ${region}`),
      );
    }
  });

  it('exits 0 for kokoro-82m with its plan and prints each check', async () => {
    const r = await runCli([
      'gate',
      '--offline',
      '--model',
      'kokoro-82m',
      '--config',
      config,
      '--plan',
      plan(kokoroPlan()),
    ]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('scalegate gate kokoro-82m: PASS');
    expect(r.stdout).toContain('✓ image_digest');
  });

  it('exits 1 with the reason for a stop plan; --json carries every check', async () => {
    const r = await runCli([
      'gate',
      '--offline',
      '--model',
      'kokoro-82m',
      '--config',
      config,
      '--plan',
      plan(stopPlan()),
      '--json',
    ]);
    expect(r.exitCode).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.passed).toBe(false);
    expect(report.checks.find((c: { check: string }) => c.check === 'verdict')).toMatchObject({ ok: false });
  });

  it('refuses (exit 1) a plan built on a lower-bound T_total and says how to allow it; --allow-lower-bound passes it and says so', async () => {
    const lowerBound = plan(measuredPlan({ lowerBoundTtotal: true }));
    const args = ['gate', '--offline', '--model', 'kokoro-82m', '--config', config, '--plan', lowerBound];
    const refused = await runCli(args);
    expect(refused.exitCode).toBe(1);
    expect(refused.stdout).toContain('scalegate gate kokoro-82m: REFUSED');
    expect(refused.stdout).toMatch(/✗ t_total_complete +T_total 260\.248496 s is a LOWER BOUND/);
    expect(refused.stdout).toContain('scalegate gate --allow-lower-bound');
    expect(refused.stdout).toContain('-c scalegate:allowLowerBound=kokoro-82m');
    // Every other check passes: the lower bound alone refuses it.
    expect(refused.stdout.match(/✗/g)).toHaveLength(1);

    const allowed = await runCli([...args, '--allow-lower-bound']);
    expect(allowed.exitCode).toBe(0);
    expect(allowed.stdout).toContain('scalegate gate kokoro-82m: PASS');
    expect(allowed.stdout).toMatch(
      /✓ t_total_complete +T_total 260\.248496 s is a LOWER BOUND .*deployed anyway: a lower bound was explicitly allowed/,
    );
  });

  it('exits 1 when there is no plan at the default path', async () => {
    const r = await runCli([
      'gate',
      '--offline',
      '--model',
      'kokoro-82m',
      '--config',
      config,
      '--plan',
      plan(null),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain('✗ plan_readable');
  });

  it('exits 2 for a model the config does not declare', async () => {
    const r = await runCli(['gate', '--offline', '--model', 'nope', '--config', config]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain('--model nope: no such model');
  });

  it('deploy --allow-lower-bound hands the synth gate -c scalegate:allowLowerBound=<model>', async () => {
    const r = await runCli(['deploy', 'kokoro-82m', '--config', config, '--dry-run', '--allow-lower-bound']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('-c scalegate:allowLowerBound=kokoro-82m');
    const plain = await runCli(['deploy', 'kokoro-82m', '--config', config, '--dry-run']);
    expect(plain.stdout).not.toContain('allowLowerBound');
  });

  it('deploy --dry-run prints the cdk invocations and exits 0 without running cdk', async () => {
    const r = await runCli(['deploy', 'kokoro-82m', '--config', config, '--dry-run']);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain('dry run: nothing was run');
    expect(r.stdout).toContain(
      'deploy --app cdk.out/scalegate-kokoro-82m --exclusively --require-approval never scalegate-kokoro-82m-endpoint',
    );
  });
});
