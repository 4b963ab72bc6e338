/**
 * Attestations on disk: where an artifact's Sigstore bundle lives (`<dir>/attestations/<name>.sigstore.json`,
 * a subdirectory so that `<dir>/*.json` discovery never sees a bundle), the config's `attestation`
 * block (who must have signed), and reading the bundles, the artifacts' exact bytes and the trust
 * root, each with a size limit. Judging them is src/plan/attestation.ts's (pure).
 */
import { basename, dirname, join } from 'node:path';
import { z } from 'zod';
import { opt, type UsageError, usage } from './errors.js';
import { FileReadError, READ_LIMITS, readBoundedBytes } from './read.js';
import { safeString } from './safe.js';

/** The subdirectory of an artifacts directory that holds the bundles. */
export const ATTESTATIONS_DIR = 'attestations';
export const BUNDLE_SUFFIX = '.sigstore.json';

/** The bundle of `artifactFile`: `<its dir>/attestations/<its name>.sigstore.json`. */
export const bundleFileFor = (artifactFile: string): string =>
  join(dirname(artifactFile), ATTESTATIONS_DIR, `${basename(artifactFile)}${BUNDLE_SUFFIX}`);

export const DEFAULT_SIGNER_WORKFLOW = '.github/workflows/calibrate.yml';
export const DEFAULT_SIGNER_REF = 'refs/heads/main';

/**
 * Who must have attested the proofs the release gate reads: the calibrate workflow of this
 * repository, run from its default branch. `repository` falls back to GITHUB_REPOSITORY.
 */
export const attestationConfigSchema = z
  .object({
    repository: safeString
      .regex(/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/, 'owner/repo, as GitHub spells it')
      .optional(),
    signer_workflow: safeString
      .regex(/^\.github\/workflows\/[A-Za-z0-9_.-]+\.ya?ml$/, 'a workflow file: .github/workflows/<name>.yml')
      .default(DEFAULT_SIGNER_WORKFLOW),
    ref: safeString
      .regex(/^refs\/heads\/[A-Za-z0-9_./-]+$/, 'a branch ref: refs/heads/<default branch>')
      .default(DEFAULT_SIGNER_REF),
  })
  .strict();

export type AttestationConfig = z.infer<typeof attestationConfigSchema>;

/** The largest artifact any reader accepts (goodput and drill artifacts): a larger one is refused as a proof anyway. */
export const MAX_ATTESTED_FILE_BYTES = READ_LIMITS.histogramArtifact;
/** A Sigstore bundle is a few KiB (a certificate, a signature, a log entry, the statement). */
export const MAX_BUNDLE_BYTES = 1024 * 1024;
/** `gh attestation trusted-root` prints a few tens of KiB. */
export const MAX_TRUSTED_ROOT_BYTES = 4 * 1024 * 1024;

/**
 * The bytes through the one bounded reader (src/model/read.ts: regular files only, no link out of
 * the tree, at most `limit` bytes), its refusal as a reason the attestation check reports.
 */
function readBounded(file: string, limit: number, label: string): { bytes: Buffer } | { error: string } {
  try {
    return { bytes: readBoundedBytes(file, { maxBytes: limit, label }) };
  } catch (e) {
    if (e instanceof FileReadError) return { error: e.missing ? 'no such file' : e.message };
    throw e;
  }
}

/** One file the gate read, with its bundle: what src/plan/attestation.ts verifies. */
export interface AttestedFile {
  file: string;
  /** Its exact bytes; null when unreadable (`error` says why). */
  bytes: Buffer | null;
  error: string | null;
  bundleFile: string;
  /** The bundle's text; null when there is none or it is unreadable (`bundleError`). */
  bundle: string | null;
  bundleError: string | null;
}

export function readAttestedFile(file: string): AttestedFile {
  const artifact = readBounded(file, MAX_ATTESTED_FILE_BYTES, 'an attested file');
  const bundleFile = bundleFileFor(file);
  const bundle = readBounded(bundleFile, MAX_BUNDLE_BYTES, 'a Sigstore bundle');
  return {
    file,
    bytes: 'bytes' in artifact ? artifact.bytes : null,
    error: 'error' in artifact ? artifact.error : null,
    bundleFile,
    bundle: 'bytes' in bundle ? bundle.bytes.toString('utf8') : null,
    bundleError: 'error' in bundle ? bundle.error : null,
  };
}

/** The trust root file's text (`--trusted-root`); a missing or oversized file is refused (exit 2). */
export function readTrustedRootFile(file: string): string {
  const read = readBounded(file, MAX_TRUSTED_ROOT_BYTES, 'the trusted root');
  if ('error' in read) {
    throw usage`${opt('trusted-root', file)}: cannot read the trust root (${read.error}). Get one with \`gh attestation trusted-root > trusted_root.jsonl\`.`;
  }
  return read.bytes.toString('utf8');
}

/** The repository whose calibrate workflow must have signed: the config's, else GITHUB_REPOSITORY. */
export function attestationRepository(
  config: AttestationConfig | undefined,
  githubRepository: string | undefined,
): string | null {
  if (config?.repository) return config.repository;
  const env = (githubRepository ?? '').trim();
  if (!/^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/.test(env)) return null;
  return env;
}

/** The refusal when no repository is known (exit 2). */
export const noAttestationRepository = (): UsageError =>
  usage`the gate verifies that the calibrate workflow of your repository attested every proof, and does not know which repository: set "attestation": {"repository": "<owner>/<repo>"} in scalegate.config.json (GITHUB_REPOSITORY is used when set), or skip the check for a development run with ${opt('offline')}.`;
