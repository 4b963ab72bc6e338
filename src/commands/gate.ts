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
  DEFAULT_ARTIFACTS_DIR,
  findPlanMeasurements,
  findPlanProofs,
  isUsageError,
  type ModelConfig,
  type PlanArtifact,
  planFileName,
  readArtifact,
} from '../model/index.js';
import { evaluateGate, type GateReport } from '../plan/gate.js';
import { renderGateReport } from '../report/gate-text.js';
import type { CommandDeps, CommandResult } from './result.js';

export type { GateReport } from '../plan/gate.js';

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
  const result = evaluateGate({
    modelName,
    model,
    planFile,
    plan,
    planError,
    measurements: plan ? findPlanMeasurements(plan, artifactsDir) : null,
    deployImageDigest: digest,
    deployRegion: region,
    // A release needs the plan's proofs: its clean validate (and a drill whose SLO held, with require_drill).
    proofs: plan ? findPlanProofs(plan, artifactsDir) : null,
    allowLowerBound: input.allowLowerBound === true,
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
  };
  return { artifact: report, report: renderGateReport(report), exitCode: result.passed ? 0 : 1, written: [] };
}
