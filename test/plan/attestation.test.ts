/**
 * The attestation verifier on the committed fixtures (scripts/attestation-fixtures.ts): the good
 * bundle verifies with the production thresholds, and each forged or foreign one is refused with
 * what did not match. Offline: the trust root is the fixtures' test CA, Rekor and CT log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bundleFileFor, readAttestedFile } from '../../src/model/index.js';
import {
  type AttestationProblem,
  attestedCheck,
  type ExpectedSigner,
  parseTrustedRoots,
  verifyAttestation,
} from '../../src/plan/attestation.js';

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'attestation');
const PLAN = join(FIXTURES, 'artifacts', 'plan-kokoro-82m.json');
const rootFile = join(FIXTURES, 'trusted_root.json');
const trust = parseTrustedRoots(readFileSync(rootFile, 'utf8'), rootFile);
const expected: ExpectedSigner = {
  repository: 'acme/speech',
  signerWorkflow: '.github/workflows/calibrate.yml',
  ref: 'refs/heads/main',
};
const bundleOf = (file: string) => JSON.parse(readFileSync(file, 'utf8'));
const verify = (bundleFile: string, overrides: { expected?: ExpectedSigner; file?: string } = {}) =>
  verifyAttestation({
    file: overrides.file ?? PLAN,
    bytes: readFileSync(PLAN),
    bundle: bundleOf(bundleFile),
    trust,
    expected: overrides.expected ?? expected,
  });

describe('verifyAttestation', () => {
  it('accepts the plan signed by calibrate.yml at refs/heads/main of acme/speech (a wrong verifier would refuse a genuine proof)', () => {
    expect(verify(bundleFileFor(PLAN))).toEqual({
      ok: true,
      signer: 'https://github.com/acme/speech/.github/workflows/calibrate.yml@refs/heads/main',
    });
  });

  const cases: Array<[string, AttestationProblem, RegExp]> = [
    ['forged-signature', 'bad-signature', /not what the transparency log recorded/],
    ['untrusted-ca', 'untrusted-ca', /does not verify against a certificate authority of the trust root/],
    [
      'other-digest',
      'other-digest',
      /is not this file's sha256:[0-9a-f]{12}… \(the file changed after it was attested\)/,
    ],
    [
      'other-workflow',
      'other-workflow',
      /another workflow \(\.github\/workflows\/evil\.yml\), not \.github\/workflows\/calibrate\.yml/,
    ],
    ['other-ref', 'other-ref', /a run from refs\/pull\/7\/merge, not from refs\/heads\/main/],
    [
      'other-repository',
      'other-repository',
      /a run of another repository \(evil\/speech\), not acme\/speech/,
    ],
  ];
  for (const [name, problem, detail] of cases) {
    it(`refuses the ${name} bundle as ${problem} (a proof that is not the calibrate workflow's must never pass)`, () => {
      const verdict = verify(join(FIXTURES, 'bad', `${name}.sigstore.json`));
      expect(verdict.ok).toBe(false);
      if (verdict.ok) return;
      expect(verdict.problem).toBe(problem);
      expect(verdict.detail).toMatch(detail);
    });
  }

  it('refuses a good bundle presented for another file name (an attestation is of one file)', () => {
    const verdict = verify(bundleFileFor(PLAN), { file: join(FIXTURES, 'artifacts', 'plan-other.json') });
    expect(verdict).toMatchObject({ ok: false, problem: 'other-name' });
  });

  it('refuses the good bundle when another default branch or workflow is expected (the identity is the configured one)', () => {
    expect(
      verify(bundleFileFor(PLAN), { expected: { ...expected, ref: 'refs/heads/release' } }),
    ).toMatchObject({
      ok: false,
      problem: 'other-ref',
    });
    expect(
      verify(bundleFileFor(PLAN), {
        expected: { ...expected, signerWorkflow: '.github/workflows/measure.yml' },
      }),
    ).toMatchObject({ ok: false, problem: 'other-workflow' });
  });

  it('reads the JSON lines of `gh attestation trusted-root` (several roots) and still refuses a CA in none of them', () => {
    const jsonl = join(FIXTURES, 'trusted_root.jsonl');
    const roots = parseTrustedRoots(readFileSync(jsonl, 'utf8'), jsonl);
    expect(roots.roots).toHaveLength(2);
    const good = verifyAttestation({
      file: PLAN,
      bytes: readFileSync(PLAN),
      bundle: bundleOf(bundleFileFor(PLAN)),
      trust: roots,
      expected,
    });
    expect(good.ok).toBe(true);
    const untrusted = verifyAttestation({
      file: PLAN,
      bytes: readFileSync(PLAN),
      bundle: bundleOf(join(FIXTURES, 'bad', 'untrusted-ca.sigstore.json')),
      trust: roots,
      expected,
    });
    expect(untrusted).toMatchObject({ ok: false, problem: 'untrusted-ca' });
  });

  it('refuses a trust root file that is not one, naming --trusted-root and how to get one (exit 2)', () => {
    expect(() => parseTrustedRoots('{"mediaType": "something else"}', 'x.json')).toThrow(
      /--trusted-root x\.json: not a Sigstore TrustedRoot .*gh attestation trusted-root > trusted_root\.jsonl/,
    );
    expect(() => parseTrustedRoots('not json\n', 'x.jsonl')).toThrow(
      /neither a TrustedRoot JSON nor JSON lines \(line 1/,
    );
  });
});

describe('attestedCheck', () => {
  it('passes when every file has its good bundle, naming the signer and each file', () => {
    const files = ['plan-kokoro-82m.json', 'validate-kokoro-82m.json'].map((n) =>
      readAttestedFile(join(FIXTURES, 'artifacts', n)),
    );
    const check = attestedCheck({ trust, expected, files });
    expect(check.ok).toBe(true);
    expect(check.detail).toMatch(
      /^2 files attested by https:\/\/github\.com\/acme\/speech\/\.github\/workflows\/calibrate\.yml@refs\/heads\/main/,
    );
  });

  it('refuses a file without a bundle, naming the bundle path it looked for and the workflow that fixes it', () => {
    const missing = { ...readAttestedFile(PLAN), bundle: null, bundleError: 'no such file' };
    const check = attestedCheck({ trust, expected, files: [missing] });
    expect(check.ok).toBe(false);
    expect(check.detail).toContain(`${PLAN}: no attestation (${bundleFileFor(PLAN)}: no such file)`);
    expect(check.fix).toMatch(
      /re-run the calibrate workflow \(\.github\/workflows\/calibrate\.yml\) from refs\/heads\/main of acme\/speech/,
    );
  });
});
