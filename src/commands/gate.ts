/**
 * `scalegate gate`: the measured-plan gate from the CLI (what the release workflow runs before
 * `cdk deploy`), with the same `evaluateGate` the CDK app runs at synth. Reads the plan and the
 * proofs committed beside it (a clean validate of that very plan; a drill of it whose SLO held when the
 * model requires one) and works out the digest of the image that would be deployed; never
 * touches AWS.
 */
import { dirname, join } from 'node:path';
import { type AssetHash, modelImageDigest } from '../model/asset-hash.js';
import {
  type AttestationConfig,
  DEFAULT_ARTIFACTS_DIR,
  findPlanMeasurements,
  findPlanProofs,
  isUsageError,
  LOCAL_REGION,
  type ModelConfig,
  type PlanArtifact,
  planFileName,
  readArtifact,
} from '../model/index.js';
import { evaluateGate } from '../plan/gate.js';
import type { GateReport } from '../plan/gate-report.js';
import { renderGateReport } from '../report/gate-text.js';
import { attestationEvidence, attestationSetup } from './gate-attestation.js';
import type { CommandDeps, CommandResult } from './result.js';

export type { GateReport } from '../plan/gate-report.js';

export interface GateInput {
  modelName: string;
  model: ModelConfig;
  /** The config file: container_dir resolves against its directory (the repository root). */
  configFile: string;
  /** @default `<artifactsDir>/plan-<model>.json` */
  planFile?: string;
  /** Where the plan, its qmax/ttotal artifacts and its validate/drill proofs are looked for. @default the plan file's directory, else `artifacts` */
  artifactsDir?: string;
  /** Region the deploy goes to. @default the model's region (what the CDK stacks use) */
  region?: string;
  /** Pass a plan whose T_total is only a lower bound (said in the report). @default false */
  allowLowerBound?: boolean;
  /** `--trusted-root`: the Sigstore trust root the proofs' attestations are verified against. */
  trustedRootFile?: string;
  /** `--offline`: skip the attestation check (labelled in the report). @default false */
  offline?: boolean;
  /** The config's `attestation` block: who must have signed. */
  attestationConfig?: AttestationConfig;
  /** GITHUB_REPOSITORY: the repository when the config names none. */
  githubRepository?: string;
}

export interface GateDeps extends CommandDeps {
  /** The CDK asset hash of a container directory, computed without a synth. @default containerAssetHash */
  assetHash?: AssetHash;
}

export async function runGate(input: GateInput, deps: GateDeps = {}): Promise<CommandResult<GateReport>> {
  const { modelName, model } = input;
  const planFile =
    input.planFile ?? join(input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR, planFileName(modelName));
  const region = input.region ?? model.region;
  const source = model.container_dir ? 'container_dir' : 'image_uri';
  // Refused (exit 2) before anything is read: no trust root, or no repository to expect.
  const attestation = attestationSetup({
    local: region === LOCAL_REGION,
    offline: input.offline === true,
    trustedRootFile: input.trustedRootFile,
    config: input.attestationConfig,
    githubRepository: input.githubRepository,
  });
  const digest = modelImageDigest(model, input.configFile, deps.assetHash);

  let plan: PlanArtifact | null = null;
  let planError: string | null = null;
  try {
    plan = readArtifact('plan', planFile);
  } catch (e) {
    if (!isUsageError(e)) throw e;
    planError = e.message;
  }
  const artifactsDir = input.artifactsDir ?? dirname(planFile);
  const measurements = plan ? findPlanMeasurements(plan, artifactsDir) : null;
  const proofs = plan ? findPlanProofs(plan, artifactsDir) : null;
  const result = evaluateGate({
    modelName,
    model,
    planFile,
    plan,
    planError,
    measurements,
    deployImageDigest: digest,
    deployRegion: region,
    // A release needs the plan's proofs: its clean validate (and a drill whose SLO held, with require_drill).
    proofs,
    allowLowerBound: input.allowLowerBound === true,
    attestation: plan ? attestationEvidence(attestation, planFile, measurements, proofs) : null,
  });

  const report: GateReport = {
    kind: 'gate',
    model_name: modelName,
    plan_file: planFile,
    plan_run_id: plan?.run_id ?? null,
    image_source: source,
    image_digest: digest,
    instance_type: model.instance_type,
    region,
    passed: result.passed,
    checks: result.checks,
    offline: attestation.offline,
  };
  return { artifact: report, report: renderGateReport(report), exitCode: result.passed ? 0 : 1, written: [] };
}
