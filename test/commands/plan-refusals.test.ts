import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import { anchorQmaxFile, anchorTtotalFile, configFile } from '../helpers/anchor.js';
import { runCli, runCliIn } from '../helpers/cli.js';

function workspace(): { dir: string; out: string } {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-refusal-'));
  return { dir, out: join(dir, 'plan.json') };
}

const planArgs = (out: string, ...extra: string[]): string[] => [
  'plan',
  '--config',
  configFile,
  '--model',
  'kokoro-82m',
  '--qmax',
  anchorQmaxFile,
  '--ttotal',
  anchorTtotalFile,
  '--out',
  out,
  ...extra,
];

async function expectRefused(
  args: string[],
  out: string,
  ...messageParts: (string | RegExp)[]
): Promise<string> {
  const run = await runCli(args);
  expect(run.exitCode).toBe(2);
  for (const part of messageParts) expect(run.stderr).toMatch(part);
  expect(run.stderr).not.toMatch(/\n\s+at /); // no stack trace for a user mistake
  expect(existsSync(out)).toBe(false);
  return run.stderr;
}

function editedJson(
  source: string,
  dir: string,
  name: string,
  edit: (json: Record<string, unknown>) => void,
): string {
  const json = JSON.parse(readFileSync(source, 'utf8')) as Record<string, unknown>;
  edit(json);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(json));
  return file;
}

describe('plan refuses input it cannot plan from (exit 2, nothing written)', () => {
  it('refuses a missing peak load instead of sizing a fleet for nothing', async () => {
    const { dir, out } = workspace();
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    delete config.models['kokoro-82m'].peak_rps;
    const noPeak = join(dir, 'scalegate.config.json');
    writeFileSync(noPeak, JSON.stringify(config));
    const args = planArgs(out);
    args[2] = noPeak;
    await expectRefused(args, out, 'no peak load', '--peak-rps');
  });

  it('refuses a trough above the peak', async () => {
    const { out } = workspace();
    await expectRefused(
      planArgs(out, '--peak-rps', '10', '--trough-rps', '20'),
      out,
      'trough load 20',
      'above peak',
    );
  });

  it.each(['1.5', '0.9'])(
    'refuses surge ratio %s outside [1, 1.5) (the scale band would vanish)',
    async (k) => {
      const { out } = workspace();
      await expectRefused(planArgs(out, '--surge-ratio', k), out, `surge ratio ${k}`, '--surge-ratio');
    },
  );

  it('refuses an SLO other than the one the ladder was judged against (Q_max is defined by it)', async () => {
    const { out } = workspace();
    await expectRefused(
      planArgs(out, '--slo-ms', '2500'),
      out,
      'SLO 2500 ms differs from the 3000 ms',
      'scalegate qmax --slo-ms 2500',
    );
  });

  it('refuses qmax and ttotal from different fingerprints, naming both slugs', async () => {
    const { dir, out } = workspace();
    const otherImage = editedJson(anchorTtotalFile, dir, 'ttotal-other.json', (json) => {
      (json.deployed_config as Record<string, string>).image_digest = `deadbeef${'0'.repeat(56)}`;
    });
    const args = planArgs(out);
    args[args.indexOf(anchorTtotalFile)] = otherImage;
    await expectRefused(
      args,
      out,
      'g5xlarge-8b1b96bc',
      'g5xlarge-deadbeef',
      'image_digest',
      '--allow-config-mismatch',
    );
  });

  it('plans across fingerprints only with --allow-config-mismatch, and records the warning', async () => {
    const { dir, out } = workspace();
    const otherImage = editedJson(anchorTtotalFile, dir, 'ttotal-other.json', (json) => {
      (json.deployed_config as Record<string, string>).image_digest = `deadbeef${'0'.repeat(56)}`;
    });
    const args = planArgs(out, '--allow-config-mismatch');
    args[args.indexOf(anchorTtotalFile)] = otherImage;
    const run = await runCli(args);
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('WARNING');
    const plan = readArtifact('plan', out);
    expect(plan.inputs.config_mismatch_allowed).toBe(true);
    expect(plan.inputs.mismatch_warnings[0]).toContain('g5xlarge-deadbeef');
  });

  it('refuses a missing artifact file, naming it and the command that produces one', async () => {
    const { dir, out } = workspace();
    const args = planArgs(out);
    args[args.indexOf(anchorQmaxFile)] = join(dir, 'nope.json');
    await expectRefused(args, out, 'nope.json', 'no such file', 'scalegate qmax');
  });

  it('refuses an artifact that is not JSON', async () => {
    const { dir, out } = workspace();
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{"q_max": 5');
    const args = planArgs(out);
    args[args.indexOf(anchorQmaxFile)] = broken;
    await expectRefused(args, out, 'broken.json', 'not valid JSON');
  });

  it('refuses an invalid artifact, naming the file and the field', async () => {
    const { dir, out } = workspace();
    const bad = editedJson(anchorQmaxFile, dir, 'bad-qmax.json', (json) => {
      json.q_max = 'fifty';
    });
    const args = planArgs(out);
    args[args.indexOf(anchorQmaxFile)] = bad;
    await expectRefused(args, out, 'bad-qmax.json', 'q_max', 'scalegate qmax');
  });

  it('refuses an artifact from a newer scalegate, saying to upgrade', async () => {
    const { dir, out } = workspace();
    const future = editedJson(anchorQmaxFile, dir, 'future.json', (json) => {
      json.schema_version = 99;
      json.kind = 'qmax';
    });
    const args = planArgs(out);
    args[args.indexOf(anchorQmaxFile)] = future;
    await expectRefused(args, out, 'future.json', 'schema_version 99', 'Upgrade scalegate');
  });

  it('refuses both --ttotal and --assume-t-total, and neither', async () => {
    const { dir, out } = workspace();
    await expectRefused(planArgs(out, '--assume-t-total', '100'), out, '--assume-t-total');
    const neither = planArgs(out);
    neither.splice(neither.indexOf('--ttotal'), 2);
    // Run where discovery finds no ttotal artifact (the repository's artifacts/ holds one).
    const run = await runCliIn(dir, neither);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('no T_total');
    expect(existsSync(out)).toBe(false);
  });

  it('refuses a malformed number flag with exit 2', async () => {
    const { out } = workspace();
    await expectRefused(planArgs(out, '--peak-rps', 'lots'), out, '--peak-rps needs a positive number');
  });
});

describe('plan exit codes follow the verdict', () => {
  it('exits 1 with --fail-on warn on a warn plan, and still writes it (the PR comment shows it)', async () => {
    const { out } = workspace();
    const run = await runCli(planArgs(out, '--fail-on', 'warn'));
    expect(run.exitCode).toBe(1);
    expect(readArtifact('plan', out).verdict).toBe('warn');
  });

  it('refuses a lower-bound T_total (traffic never recovered) unless --allow-lower-bound, so a lower bound never becomes a plan input silently', async () => {
    const { dir, out } = workspace();
    const unrecovered = editedJson(anchorTtotalFile, dir, 'ttotal-unrecovered.json', (json) => {
      json.missing_stages = ['traffic_recovered'];
    });
    const args = planArgs(out);
    args[args.indexOf(anchorTtotalFile)] = unrecovered;
    await expectRefused(
      args,
      out,
      /ttotal-unrecovered\.json: T_total 260\.248496 s is only a LOWER BOUND/,
      /--allow-lower-bound/,
    );
  });

  it('with --allow-lower-bound plans on it, labelled LOWER BOUND, and warns that cooldowns and the surge probability can only be too low', async () => {
    const { dir, out } = workspace();
    const unrecovered = editedJson(anchorTtotalFile, dir, 'ttotal-unrecovered.json', (json) => {
      json.missing_stages = ['traffic_recovered'];
    });
    const args = planArgs(out, '--allow-lower-bound');
    args[args.indexOf(anchorTtotalFile)] = unrecovered;
    const run = await runCli(args);
    expect(run.exitCode).toBe(0);
    const plan = readArtifact('plan', out);
    expect(plan.measured.t_total_origin).toBe('lower-bound');
    const finding = plan.findings.find((f) => f.name === 'provision_stage');
    expect(finding?.verdict).toBe('warn');
    expect(finding?.detail).toContain('is a LOWER BOUND');
    expect(finding?.detail).toContain('can only be too low');
    expect(run.stdout).toContain(
      'T_total (LOWER BOUND: traffic never recovered, the clock stopped at in_service)',
    );
    expect(run.stdout).not.toContain('T_total (measured)');
  });

  it('exits 1 on a stop plan (service time above the SLO)', async () => {
    const { dir, out } = workspace();
    const slow = editedJson(anchorQmaxFile, dir, 'slow.json', (json) => {
      json.s_p95_s = 3.5;
    });
    const args = planArgs(out);
    args[args.indexOf(anchorQmaxFile)] = slow;
    const run = await runCli(args);
    expect(run.exitCode).toBe(1);
    const plan = readArtifact('plan', out);
    expect(plan.verdict).toBe('stop');
    expect(plan.findings.find((f) => f.name === 'slo_budget')?.verdict).toBe('stop');
  });
});
