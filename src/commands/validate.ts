/**
 * `scalegate validate`: read-only check, after a deploy, that every deployed scaling parameter
 * equals the plan (src/plan/policy-shape.ts). The expected side is the one shape
 * definition (src/plan/policy-shape.ts); the deployed side is read through src/aws/policy.ts.
 */
import { join } from 'node:path';
import { type PolicyClients, readDeployedPolicy } from '../aws/policy.js';
import {
  DEFAULT_ARTIFACTS_DIR,
  newRunId,
  opt,
  type PlanArtifact,
  planFileName,
  readArtifact,
  usage,
  type ValidateArtifact,
  validateFileName,
  writeArtifact,
} from '../model/index.js';
import { type DeployedPolicyState, flattenDeployedPolicy } from '../plan/deployed-rows.js';
import { differingRows, diffPolicyRows, expectedRows } from '../plan/policy-diff.js';
import { expectedPolicyShape, type PolicyShape } from '../plan/policy-shape.js';
import { renderValidateReport } from '../report/validate-text.js';
import { compareInferenceComponentWithPlan, withInferenceComponent } from './inference-component.js';
import { type AwsCommandDeps, type CommandResult, resolveDeps } from './result.js';

export interface PlanShape {
  plan: PlanArtifact;
  planFile: string;
  shape: PolicyShape;
}

/**
 * Reads a plan for `modelName` and the shape it deploys onto `endpoint`/`variant`. Refuses (exit 2)
 * a plan for another model or one without a deployable threshold.
 */
export function loadPlanShape(
  modelName: string,
  planFile: string,
  endpoint: string,
  variant: string,
): PlanShape {
  const plan = checkModel(modelName, planFile, readArtifact('plan', planFile));
  return { plan, planFile, shape: expectedPolicyShape({ modelName, endpoint, variant }, plan) };
}

/** Refuses (exit 2) a plan for another model. */
export function checkModel<P extends PlanArtifact>(modelName: string, planFile: string, plan: P): P {
  if (plan.model_name !== modelName) {
    throw usage`${opt('plan', planFile)}: a plan for ${plan.model_name}, not ${modelName}. Pass artifacts/plan-${modelName}.json, or produce it with \`scalegate plan --model ${modelName}\`.`;
  }
  return plan;
}

export interface ValidateInput {
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  /** The plan that was deployed. @default `<artifactsDir>/plan-<model>.json` */
  planFile?: string;
  /** @default `<artifactsDir>/validate-<model>.json` */
  outFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
  /** @default a new run id */
  runId?: string;
}

export type ValidateDeps = AwsCommandDeps<PolicyClients>;

const planFileOf = (input: ValidateInput): string =>
  input.planFile ?? join(input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR, planFileName(input.modelName));

export interface ValidateOutcome {
  artifact: ValidateArtifact;
  state: DeployedPolicyState;
}

/** Compares without writing: what `runValidate` writes, and what tests inspect. */
export async function compareWithPlan(
  input: ValidateInput,
  deps: ValidateDeps,
  planShape?: PlanShape,
): Promise<ValidateOutcome> {
  const { plan, planFile, shape } =
    planShape ?? loadPlanShape(input.modelName, planFileOf(input), input.endpoint, input.variant);
  const state = await readDeployedPolicy(deps.clients, input.endpoint, input.variant);
  const rows = diffPolicyRows(expectedRows(shape), flattenDeployedPolicy(state));
  const artifact: ValidateArtifact = {
    schema_version: 1,
    kind: 'validate',
    model_name: input.modelName,
    endpoint: input.endpoint,
    region: input.region,
    run_id: input.runId ?? newRunId(),
    checked_at: resolveDeps(deps).clock().toISOString(),
    verdict: differingRows(rows).length === 0 ? 'clean' : 'mismatch',
    plan: { file: planFile, run_id: plan.run_id, fingerprint: plan.fingerprint },
    rows,
  };
  return { artifact, state };
}

export async function runValidate(
  input: ValidateInput,
  deps: ValidateDeps,
): Promise<CommandResult<ValidateArtifact>> {
  const outFile =
    input.outFile ?? join(input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR, validateFileName(input.modelName));
  const planFile = planFileOf(input);
  const icPlan = withInferenceComponent(readArtifact('plan', planFile));
  const { artifact, endpointError } = icPlan
    ? await compareInferenceComponentWithPlan(
        { ...input, planFile },
        checkModel(input.modelName, planFile, icPlan),
        deps,
      ).then(({ artifact, state }) => ({ artifact, endpointError: state.error }))
    : await compareWithPlan(input, deps).then(({ artifact, state }) => ({
        artifact,
        endpointError: state.endpointError,
      }));
  writeArtifact('validate', outFile, artifact);
  return {
    artifact,
    report: renderValidateReport(artifact, { writtenTo: outFile, endpointError }),
    exitCode: artifact.verdict === 'clean' ? 0 : 1,
    written: [outFile],
  };
}
