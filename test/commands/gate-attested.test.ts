/**
 * `scalegate gate` trusts only attested proofs: through the real CLI, on the committed fixtures
 * (scripts/attestation-fixtures.ts: a plan that passes every other check, its measurements and
 * validate, each with a bundle signed by the test CA as acme/speech's calibrate.yml at
 * refs/heads/main). Each forged or foreign bundle is refused (exit 1) with what did not match,
 * the good ones pass, `--offline` passes labelled, and no trust root is a usage error (exit 2).
 * The CDK synth gate judges the same with `-c scalegate:trustedRoot` / `-c scalegate:offline`.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateRefusedError } from '../../infra/lib/synth-gate.js';
import { bundleFileFor } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import { kokoroModel } from '../infra/fixtures.js';
import { buildTestApp } from '../infra/helpers.js';

const REPO = join(import.meta.dirname, '..', '..');
const FIXTURES = join(REPO, 'test', 'fixtures', 'attestation');
const ROOT = join(FIXTURES, 'trusted_root.json');
const ROOTS_JSONL = join(FIXTURES, 'trusted_root.jsonl');
const PLAN = 'plan-kokoro-82m.json';
const SIGNER = 'https://github.com/acme/speech/.github/workflows/calibrate.yml@refs/heads/main';

/** The fixture artifacts and bundles in a fresh directory, with a config naming acme/speech (or none). */
function workspace(attestation: Record<string, string> | null = { repository: 'acme/speech' }) {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-attested-'));
  cpSync(join(FIXTURES, 'artifacts'), join(dir, 'artifacts'), { recursive: true });
  const config = JSON.parse(readFileSync(join(REPO, 'scalegate.config.json'), 'utf8'));
  if (attestation) config.attestation = attestation;
  writeFileSync(join(dir, 'scalegate.config.json'), JSON.stringify(config));
  const plan = join(dir, 'artifacts', PLAN);
  const gate = (...extra: string[]) =>
    runCli([
      'gate',
      '--model',
      'kokoro-82m',
      '--config',
      join(dir, 'scalegate.config.json'),
      '--plan',
      plan,
      ...extra,
    ]);
  return { dir, plan, gate };
}

let savedRepository: string | undefined;
beforeEach(() => {
  savedRepository = process.env.GITHUB_REPOSITORY;
  delete process.env.GITHUB_REPOSITORY;
});
afterEach(() => {
  if (savedRepository === undefined) delete process.env.GITHUB_REPOSITORY;
  else process.env.GITHUB_REPOSITORY = savedRepository;
});

describe('scalegate gate --trusted-root (CLI)', () => {
  it('passes (exit 0) when the plan, its qmax, ttotal and validate are all attested by the calibrate workflow at the default branch', async () => {
    const { gate } = workspace();
    const r = await gate('--trusted-root', ROOT);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain('scalegate gate kokoro-82m: PASS\n');
    expect(r.stdout).toMatch(
      new RegExp(`✓ attested +4 files attested by ${SIGNER.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
    );
    for (const name of [
      'plan-kokoro-82m.json',
      'validate-kokoro-82m.json',
      'qmax-kokoro-82m-',
      'ttotal-kokoro-82m-',
    ]) {
      expect(r.stdout).toContain(name);
    }
  });

  it('passes with the JSON lines `gh attestation trusted-root` prints (several roots)', async () => {
    const { gate } = workspace();
    const r = await gate('--trusted-root', ROOTS_JSONL);
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
  });

  it('takes the repository from GITHUB_REPOSITORY when the config names none', async () => {
    const { gate } = workspace(null);
    process.env.GITHUB_REPOSITORY = 'acme/speech';
    expect((await gate('--trusted-root', ROOT)).exitCode).toBe(0);
    process.env.GITHUB_REPOSITORY = 'evil/speech';
    const other = await gate('--trusted-root', ROOT);
    expect(other.exitCode).toBe(1);
    expect(other.stdout).toContain('a run of another repository (acme/speech), not evil/speech');
  });

  const cases: Array<[string, RegExp]> = [
    ['forged-signature', /not what the transparency log recorded/],
    ['untrusted-ca', /does not verify against a certificate authority of the trust root/],
    ['other-digest', /the file changed after it was attested/],
    [
      'other-workflow',
      /another workflow \(\.github\/workflows\/evil\.yml\), not \.github\/workflows\/calibrate\.yml/,
    ],
    ['other-ref', /a run from refs\/pull\/7\/merge, not from refs\/heads\/main \(the default branch\)/],
    ['other-repository', /a run of another repository \(evil\/speech\), not acme\/speech/],
  ];
  for (const [name, why] of cases) {
    it(`refuses (exit 1) the plan with the ${name} bundle, naming the file, what did not match and the workflow to re-run`, async () => {
      const { plan, gate } = workspace();
      cpSync(join(FIXTURES, 'bad', `${name}.sigstore.json`), bundleFileFor(plan));
      const r = await gate('--trusted-root', ROOT);
      expect(r.exitCode, r.stdout + r.stderr).toBe(1);
      expect(r.stdout).toContain('scalegate gate kokoro-82m: REFUSED');
      // Only the attestation refuses it: every other check still passes.
      expect(r.stdout.match(/^ {2}✗ \S+/gm)).toEqual(['  ✗ attested']);
      expect(r.stdout).toMatch(new RegExp(`1 of 4 proofs not attested by .*${PLAN.replace(/\./g, '\\.')}: `));
      expect(r.stdout).toMatch(why);
      expect(r.stdout).toContain(
        'fix: re-run the calibrate workflow (.github/workflows/calibrate.yml) from refs/heads/main of acme/speech',
      );
    });
  }

  it('refuses a plan edited after it was attested, and a proof whose bundle is missing', async () => {
    const { dir, plan, gate } = workspace();
    writeFileSync(plan, `${readFileSync(plan, 'utf8')}\n`);
    const validate = join(dir, 'artifacts', 'validate-kokoro-82m.json');
    rmSync(bundleFileFor(validate));
    const r = await gate('--trusted-root', ROOT);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/2 of 4 proofs not attested/);
    expect(r.stdout).toContain(`${plan}: attested digest sha256:`);
    expect(r.stdout).toContain(`${validate}: no attestation (${bundleFileFor(validate)}: no such file)`);
  });

  it('passes --offline without verifying, saying OFFLINE in capitals beside the verdict', async () => {
    const { plan, gate } = workspace();
    cpSync(join(FIXTURES, 'bad', 'other-workflow.sigstore.json'), bundleFileFor(plan));
    const r = await gate('--offline');
    expect(r.exitCode, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toContain(
      'scalegate gate kokoro-82m: PASS — OFFLINE: ATTESTATIONS NOT VERIFIED (--offline: a development run; a release never passes it)',
    );
    expect(r.stdout).not.toMatch(/[✓✗] attested/);
    const json = JSON.parse((await gate('--offline', '--json')).stdout);
    expect(json.offline).toBe('requested');
  });

  it('refuses (exit 2) without a trust root, naming --trusted-root, how to get one and --offline', async () => {
    const { gate } = workspace();
    const r = await gate();
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      'pass --trusted-root FILE, got with `gh attestation trusted-root > trusted_root.jsonl`',
    );
    expect(r.stderr).toContain('--offline');
    expect(r.stdout).toBe('');
  });

  it('refuses (exit 2) when no repository is known, and a trust root file that is missing', async () => {
    const { gate } = workspace(null);
    const noRepo = await gate('--trusted-root', ROOT);
    expect(noRepo.exitCode).toBe(2);
    expect(noRepo.stderr).toContain('"attestation": {"repository": "<owner>/<repo>"}');
    const { gate: gate2, dir } = workspace();
    const missing = await gate2('--trusted-root', join(dir, 'nope.jsonl'));
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toContain(
      `--trusted-root ${join(dir, 'nope.jsonl')}: cannot read the trust root (no such file)`,
    );
  });

  it('runs offline against the local SageMaker (nothing is attested there), without a trust root', async () => {
    const { gate } = workspace();
    const r = await gate('--region', 'local');
    // A us-east-1 plan never deploys to `local`: refused by its region, not by a missing trust root.
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      'OFFLINE: ATTESTATIONS NOT VERIFIED (the local SageMaker: nothing is attested locally)',
    );
    expect(r.stdout).toMatch(/✗ region/);
  });
});

describe('the CDK synth gate with scalegate:trustedRoot', () => {
  const synth = (dir: string, context: Record<string, string>) =>
    buildTestApp({
      models: { 'kokoro-82m': kokoroModel() },
      artifactsDir: join(dir, 'artifacts'),
      context: { 'scalegate:model': 'kokoro-82m', 'scalegate:offline': 'false', ...context },
    });

  it('deploys the attested plan, and refuses it when a bundle is foreign (the same check as scalegate gate)', () => {
    process.env.GITHUB_REPOSITORY = 'acme/speech';
    const { dir, plan } = workspace(null);
    const { stacks } = synth(dir, { 'scalegate:trustedRoot': ROOT });
    const attested = stacks[0]?.endpoint?.gate?.checks.find((c) => c.check === 'attested');
    expect(attested?.ok, attested?.detail).toBe(true);

    cpSync(join(FIXTURES, 'bad', 'other-ref.sigstore.json'), bundleFileFor(plan));
    expect(() => synth(dir, { 'scalegate:trustedRoot': ROOT })).toThrow(GateRefusedError);
    expect(() => synth(dir, { 'scalegate:trustedRoot': ROOT })).toThrow(
      /✗ attested: .*a run from refs\/pull\/7\/merge/,
    );
  });

  it('refuses without a trust root, naming the context keys that fix it', () => {
    process.env.GITHUB_REPOSITORY = 'acme/speech';
    const { dir } = workspace(null);
    expect(() => synth(dir, {})).toThrow(
      /✗ attested: no trust root .*\n {4}fix: synthesize with -c scalegate:trustedRoot=FILE .*-c scalegate:offline=true for a development synth/,
    );
  });
});
