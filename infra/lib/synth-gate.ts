/**
 * The measured-plan gate at synth: read `artifacts/plan-<model>.json` and the qmax/ttotal
 * artifacts it names through the artifact module, run the same `evaluateGate` as `scalegate
 * gate` (which derives the plan again from those measurements), and refuse (throw) with every
 * failed check and its fix. Never looks for "some plan": the file name is fixed by the model name.
 * What is deployed is the re-derived plan, never the file's numbers. A production deploy also
 * needs the plan's proofs beside it (its clean validate; a passing drill with require_drill); the
 * calibration deploy of a plan (`--with-plan`), which produces them, is gated without.
 */
import { join } from 'node:path';
import { attestationEvidence, attestationSetup } from '../../src/commands/gate-attestation.js';
import {
  type AttestationConfig,
  attestationRepository,
  findPlanMeasurements,
  findPlanProofs,
  isUsageError,
  LOCAL_REGION,
  type ModelConfig,
  type PlanArtifact,
  planFileName,
  readArtifact,
} from '../../src/model/index.js';
import type { AttestationEvidence } from '../../src/plan/attestation.js';
import { evaluateGate, type GateResult, gateFailureMessage } from '../../src/plan/gate.js';

/** Synth stops with this; bin/app.ts prints its message without a stack trace. */
export class GateRefusedError extends Error {
  constructor(
    message: string,
    readonly modelName: string,
    readonly result: GateResult,
  ) {
    super(message);
    this.name = 'GateRefusedError';
  }
}

export interface SynthGateInput {
  modelName: string;
  model: ModelConfig;
  artifactsDir: string;
  deployImageDigest: string;
  deployRegion: string;
  /** @default `<artifactsDir>/plan-<model>.json` */
  planFile?: string;
  /** Require the plan's validate (and drill) proofs: production yes, the calibration deploy of the plan no. */
  requireProofs: boolean;
  /** `-c scalegate:allowLowerBound=<model>`: pass a plan whose T_total is only a lower bound. @default false */
  allowLowerBound?: boolean;
  /**
   * With the proofs, their attestations: `-c scalegate:trustedRoot=FILE` verifies them,
   * `-c scalegate:offline=true` skips them (labelled); the local SageMaker is offline anyway.
   */
  attestation?: SynthAttestation;
}

export interface SynthAttestation {
  trustedRootFile?: string;
  offline?: boolean;
  /** The config's `attestation` block. */
  config?: AttestationConfig;
  /** @default process.env.GITHUB_REPOSITORY */
  githubRepository?: string;
}

export interface SynthGateOutcome {
  planFile: string;
  plan: PlanArtifact | null;
  result: GateResult;
  message: string | null;
  /** Why attestations were not verified (said in the synth output); null when they were or proofs were not required. */
  offline: 'requested' | 'local' | null;
}

/** What a synth without a trust root or a repository is refused with: the `attested` check fails. */
function synthAttestation(
  a: SynthAttestation,
  local: boolean,
): { offline: 'requested' | 'local' | null; unavailable: AttestationEvidence | null } {
  if (local || a.offline) return { offline: local ? 'local' : 'requested', unavailable: null };
  const offline = '-c scalegate:offline=true for a development synth (labelled; a release never passes it)';
  if (!a.trustedRootFile) {
    return {
      offline: null,
      unavailable: {
        unavailable:
          "no trust root to verify the proofs' attestations with (every proof the gate reads must be attested by the calibrate workflow)",
        fix: `synthesize with -c scalegate:trustedRoot=FILE (\`gh attestation trusted-root > trusted_root.jsonl\`); or ${offline}`,
      },
    };
  }
  if (attestationRepository(a.config, a.githubRepository ?? process.env.GITHUB_REPOSITORY) === null) {
    return {
      offline: null,
      unavailable: {
        unavailable: 'no repository whose calibrate workflow must have attested the proofs',
        fix: `set "attestation": {"repository": "<owner>/<repo>"} in scalegate.config.json (or GITHUB_REPOSITORY); or ${offline}`,
      },
    };
  }
  return { offline: null, unavailable: null };
}

export function runSynthGate(input: SynthGateInput): SynthGateOutcome {
  const planFile = input.planFile ?? join(input.artifactsDir, planFileName(input.modelName));
  let plan: PlanArtifact | null = null;
  let planError: string | null = null;
  try {
    plan = readArtifact('plan', planFile);
  } catch (e) {
    if (!isUsageError(e)) throw e;
    planError = e.message;
  }
  const measurements = plan ? findPlanMeasurements(plan, input.artifactsDir) : null;
  const proofs = plan && input.requireProofs ? findPlanProofs(plan, input.artifactsDir) : null;
  // Attestations are a release's proof, judged with the others (not for the calibration deploy of a plan).
  const a = input.attestation ?? {};
  const { offline, unavailable } = input.requireProofs
    ? synthAttestation(a, input.deployRegion === LOCAL_REGION)
    : { offline: null, unavailable: null };
  let attestation: AttestationEvidence | null = unavailable;
  if (plan && proofs && offline === null && unavailable === null) {
    const setup = attestationSetup({
      local: false,
      offline: false,
      trustedRootFile: a.trustedRootFile,
      config: a.config,
      githubRepository: a.githubRepository ?? process.env.GITHUB_REPOSITORY,
    });
    attestation = attestationEvidence(setup, planFile, measurements, proofs);
  }
  const result = evaluateGate({
    modelName: input.modelName,
    model: input.model,
    planFile,
    plan,
    planError,
    measurements,
    deployImageDigest: input.deployImageDigest,
    deployRegion: input.deployRegion,
    proofs,
    allowLowerBound: input.allowLowerBound === true,
    attestation: plan ? attestation : null,
  });
  return {
    planFile,
    plan: result.passed ? result.rederived : null,
    result,
    message: result.passed ? null : gateFailureMessage(input.modelName, planFile, result),
    offline,
  };
}
