/** The action's `attest` input: whether a step attests the artifacts it writes (action only). */
import { choice, type OptionTable } from './spec.js';

export const ATTEST_INPUTS = {
  attest: choice(
    'attest',
    '<when>',
    ['auto', 'true', 'false'] as const,
    'attest each artifact a measuring step (qmax, goodput, ttotal, plan, tune, validate, drill) writes with Sigstore (SLSA provenance of this run, the subject its file name and the sha256 of its bytes) and write the bundle beside it, <artifacts-dir>/attestations/<file>.sigstore.json, listed in written-files: what the release gate verifies. auto attests when the job may request an OIDC token (permissions: id-token: write, attestations: write), true refuses to run without one, false never attests',
    { default: 'auto', cli: false },
  ),
} as const satisfies OptionTable;

export type AttestWhen = 'auto' | 'true' | 'false';
