/**
 * What the release gate needs to judge attestations, shared by `scalegate gate` and the CDK synth
 * gate (infra/lib/synth-gate.ts): whether it verifies them at all (not offline, not the local
 * SageMaker), the trust root and the expected signer (refused, exit 2, when either is missing),
 * and every file it read with its bundle. Judging them is src/plan/attestation.ts's.
 */
import {
  type AttestationConfig,
  attestationRepository,
  DEFAULT_SIGNER_REF,
  DEFAULT_SIGNER_WORKFLOW,
  noAttestationRepository,
  opt,
  type PlanMeasurements,
  type PlanProofs,
  readAttestedFile,
  readTrustedRootFile,
  usage,
} from '../model/index.js';
import {
  type AttestationEvidence,
  type ExpectedSigner,
  parseTrustedRoots,
  type TrustRoots,
} from '../plan/attestation.js';

export interface AttestationSetup {
  /** Why nothing is verified; null when it is. */
  offline: 'requested' | 'local' | null;
  trust: TrustRoots | null;
  expected: ExpectedSigner | null;
}

export interface AttestationSetupInput {
  /** Deploying to the local SageMaker: nothing there is attested. */
  local: boolean;
  /** `--offline`. */
  offline: boolean;
  trustedRootFile: string | undefined;
  config: AttestationConfig | undefined;
  githubRepository: string | undefined;
}

/** The refusal without a trust root (exit 2): where to get one, and the development way out. */
export const noTrustedRoot = () =>
  usage`the release gate verifies that every proof it reads (plan, measurements, validate, drill) was attested by your calibrate workflow, and needs the Sigstore trust root for it: pass ${opt('trusted-root')} FILE, got with \`gh attestation trusted-root > trusted_root.jsonl\`; or skip the check for a development run with ${opt('offline')} (said in the report; a release never passes it).`;

export function attestationSetup(input: AttestationSetupInput): AttestationSetup {
  if (input.local) return { offline: 'local', trust: null, expected: null };
  if (input.offline) return { offline: 'requested', trust: null, expected: null };
  if (!input.trustedRootFile) throw noTrustedRoot();
  const repository = attestationRepository(input.config, input.githubRepository);
  if (repository === null) throw noAttestationRepository();
  const trust = parseTrustedRoots(readTrustedRootFile(input.trustedRootFile), input.trustedRootFile);
  return {
    offline: null,
    trust,
    expected: {
      repository,
      signerWorkflow: input.config?.signer_workflow ?? DEFAULT_SIGNER_WORKFLOW,
      ref: input.config?.ref ?? DEFAULT_SIGNER_REF,
    },
  };
}

/** Every file the gate read (the plan, the measurements it names, its proofs), once each. */
export function provenFiles(
  planFile: string,
  measurements: PlanMeasurements | null,
  proofs: PlanProofs | null,
): string[] {
  const m = measurements;
  const files = [
    planFile,
    m?.qmax ? m.qmaxFile : null,
    m?.ttotal ? m.ttotalFile : null,
    m?.drill ? m.drillFile : null,
    m?.goodput ? m.goodputFile : null,
    m?.tune ? m.tuneFile : null,
    proofs?.validate ? proofs.validateFile : null,
    ...(proofs?.drills ?? []).map((d) => d.file),
  ];
  return [...new Set(files.filter((f): f is string => typeof f === 'string'))];
}

/** The files with their bundles, read; null when attestations are not verified. */
export function attestationEvidence(
  setup: AttestationSetup,
  planFile: string,
  measurements: PlanMeasurements | null,
  proofs: PlanProofs | null,
): AttestationEvidence | null {
  if (setup.trust === null || setup.expected === null) return null;
  const files = provenFiles(planFile, measurements, proofs).map(readAttestedFile);
  return { trust: setup.trust, expected: setup.expected, files };
}
