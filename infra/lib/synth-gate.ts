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
import {
  findPlanMeasurements,
  findPlanProofs,
  isUsageError,
  type ModelConfig,
  type PlanArtifact,
  planFileName,
  readArtifact,
} from '../../src/model/index.js';
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
}

export interface SynthGateOutcome {
  planFile: string;
  plan: PlanArtifact | null;
  result: GateResult;
  message: string | null;
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
  const result = evaluateGate({
    modelName: input.modelName,
    model: input.model,
    planFile,
    plan,
    planError,
    measurements: plan ? findPlanMeasurements(plan, input.artifactsDir) : null,
    deployImageDigest: input.deployImageDigest,
    deployRegion: input.deployRegion,
    proofs: plan && input.requireProofs ? findPlanProofs(plan, input.artifactsDir) : null,
    allowLowerBound: input.allowLowerBound === true,
  });
  return {
    planFile,
    plan: result.passed ? result.rederived : null,
    result,
    message: result.passed ? null : gateFailureMessage(input.modelName, planFile, result),
  };
}
