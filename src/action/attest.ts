/**
 * Attesting what a step wrote: each artifact file signed with Sigstore through @actions/attest
 * (SLSA build provenance of this workflow run; subject = the file's name and the sha256 of its
 * exact bytes; the signing certificate carries this workflow's identity), its bundle written to
 * `<dir>/attestations/<file>.sigstore.json` beside it (src/model/attestation.ts), which the release
 * gate verifies (src/plan/attestation.ts). Needs `permissions: id-token: write, attestations: write`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { attestProvenance } from '@actions/attest';
import { bundleFileFor, opt, usage, writeFileAtomic } from '../model/index.js';
import type { AttestWhen } from '../options/attest.js';
import type { ActionCommand, Env } from './inputs.js';

/** The steps whose artifacts are proofs the gate reads. */
export const ATTESTED_COMMANDS: ReadonlySet<ActionCommand> = new Set([
  'qmax',
  'goodput',
  'ttotal',
  'plan',
  'tune',
  'validate',
  'drill',
]);

export interface AttestSubject {
  name: string;
  digest: { sha256: string };
}

/** Signs one subject; resolves to the Sigstore bundle (JSON). */
export type AttestFn = (subject: AttestSubject, token: string | undefined) => Promise<unknown>;

/** @actions/attest: Fulcio certificate from the job's OIDC token, Rekor (or GitHub's TSA), stored with GitHub's attestations API. */
export const githubAttest: AttestFn = async (subject, token) => {
  const attestation = await attestProvenance({
    subjects: [subject],
    token: token ?? '',
    // Without a token the bundle is still made (and committed); only GitHub's copy is skipped.
    skipWrite: !token,
  });
  return attestation.bundle;
};

/** The job may request an OIDC token (`permissions: id-token: write`). */
export const canRequestIdToken = (env: Env): boolean =>
  Boolean(env.ACTIONS_ID_TOKEN_REQUEST_URL && env.ACTIONS_ID_TOKEN_REQUEST_TOKEN);

/**
 * Whether this step attests: refused (exit 2, before anything is measured) when `attest: true`
 * and the job cannot get an OIDC token.
 */
export function shouldAttest(when: AttestWhen, command: ActionCommand, env: Env): boolean {
  if (when === 'false' || !ATTESTED_COMMANDS.has(command)) return false;
  const able = canRequestIdToken(env);
  if (when === 'true' && !able) {
    throw usage`${opt('attest', 'true')}: this job cannot request an OIDC token (no ACTIONS_ID_TOKEN_REQUEST_URL / ACTIONS_ID_TOKEN_REQUEST_TOKEN), so nothing can be attested; give the job \`permissions: id-token: write, attestations: write\` (and \`contents: read\`), or set attest to auto or false.`;
  }
  return able;
}

/** Attests each file; returns the bundle files written, in the same order. */
export async function attestFiles(
  files: readonly string[],
  attest: AttestFn,
  token: string | undefined,
): Promise<string[]> {
  const bundles: string[] = [];
  for (const file of files) {
    const bytes = readFileSync(file);
    const subject = {
      name: basename(file),
      digest: { sha256: createHash('sha256').update(bytes).digest('hex') },
    };
    const bundle = await attest(subject, token);
    const bundleFile = bundleFileFor(file);
    writeFileAtomic(bundleFile, `${JSON.stringify(bundle, null, 2)}\n`);
    bundles.push(bundleFile);
  }
  return bundles;
}
