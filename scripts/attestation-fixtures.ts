/**
 * Writes the attestation fixtures under test/fixtures/attestation/, offline, with fresh test keys
 * that are never written anywhere (run by hand: `npx tsx scripts/attestation-fixtures.ts`; commit
 * the result):
 *
 *   trusted_root.json        the test CA (Fulcio-like root + intermediate), test Rekor and CT log
 *   trusted_root.jsonl       that root and an unrelated one, one per line (`gh attestation trusted-root`'s shape)
 *   artifacts/               a plan that passes every other gate check (kokoro-82m, us-east-1), its
 *                            qmax/ttotal measurements and its clean validate, each with its bundle in
 *                            artifacts/attestations/<file>.sigstore.json, signed as
 *                            https://github.com/acme/speech/.github/workflows/calibrate.yml@refs/heads/main
 *   bad/<case>.sigstore.json bundles for the plan file the gate must refuse:
 *     forged-signature       the plan's statement with a signature made over other bytes
 *     untrusted-ca           signed by a CA that is not in the trust root
 *     other-digest           a good signature over a statement naming the plan with another digest
 *     other-workflow         signed by .github/workflows/evil.yml@refs/heads/main
 *     other-ref              signed by calibrate.yml from refs/pull/7/merge
 *     other-repository       signed by evil/speech's calibrate.yml@refs/heads/main
 *
 * The verifier's thresholds stay the production ones (one SCT, one log entry, one timestamp).
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestCa, type SignerClaims, statementFor, subjectOf } from '../test/helpers/sigstore-ca.js';
import { artifactsDirWith, kokoroPlan } from '../test/infra/fixtures.js';

const OUT = join(import.meta.dirname, '..', 'test', 'fixtures', 'attestation');
const GOOD: SignerClaims = {
  repository: 'acme/speech',
  workflow: '.github/workflows/calibrate.yml',
  ref: 'refs/heads/main',
};
const PLAN = 'plan-kokoro-82m.json';

const json = (v: unknown) => `${JSON.stringify(v, null, 2)}\n`;

async function main(): Promise<void> {
  rmSync(OUT, { recursive: true, force: true });
  const artifacts = join(OUT, 'artifacts');
  const bundles = join(artifacts, 'attestations');
  const bad = join(OUT, 'bad');
  for (const d of [bundles, bad]) mkdirSync(d, { recursive: true });

  const ca = await createTestCa();
  const untrusted = await createTestCa({ name: 'untrusted' });
  const unrelated = await createTestCa({ name: 'unrelated instance' });
  writeFileSync(join(OUT, 'trusted_root.json'), json(ca.trustedRoot));
  writeFileSync(
    join(OUT, 'trusted_root.jsonl'),
    `${JSON.stringify(unrelated.trustedRoot)}\n${JSON.stringify(ca.trustedRoot)}\n`,
  );

  const made = artifactsDirWith({ 'kokoro-82m': kokoroPlan() });
  for (const name of readdirSync(made)) cpSync(join(made, name), join(artifacts, name));
  for (const name of readdirSync(artifacts).filter((n) => n.endsWith('.json'))) {
    const bytes = readFileSync(join(artifacts, name));
    writeFileSync(
      join(bundles, `${name}.sigstore.json`),
      json(await ca.attest([subjectOf(name, bytes)], GOOD)),
    );
  }

  const plan = readFileSync(join(artifacts, PLAN));
  const planSubject = subjectOf(PLAN, plan);
  const otherBytes = Buffer.concat([plan, Buffer.from(' ')]);
  // A signature over another statement, with this plan's statement put in its place.
  const forged = await ca.attest([subjectOf(PLAN, otherBytes)], GOOD);
  (forged.dsseEnvelope as { payload: string }).payload = statementFor([planSubject], GOOD).toString('base64');
  const cases: Record<string, Record<string, unknown>> = {
    'forged-signature': forged,
    'untrusted-ca': await untrusted.attest([planSubject], GOOD),
    'other-digest': await ca.attest([subjectOf(PLAN, otherBytes)], GOOD),
    'other-workflow': await ca.attest([planSubject], { ...GOOD, workflow: '.github/workflows/evil.yml' }),
    'other-ref': await ca.attest([planSubject], { ...GOOD, ref: 'refs/pull/7/merge' }),
    'other-repository': await ca.attest([planSubject], { ...GOOD, repository: 'evil/speech' }),
  };
  for (const [name, bundle] of Object.entries(cases))
    writeFileSync(join(bad, `${name}.sigstore.json`), json(bundle));
  process.stdout.write(`wrote ${OUT}\n`);
}

await main();
