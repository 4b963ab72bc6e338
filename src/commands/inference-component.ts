/**
 * `scalegate validate` and `scalegate local apply` for a plan with an inference-component block:
 * the component's specification, the endpoint's managed instance scaling, the copy-count scalable
 * target, the copy target tracking and (min copies 0) the wake and idle rules, compared row by row
 * with the plan; `local apply` makes the same calls a CDK deploy makes, then reads everything back.
 */
import { randomBytes } from 'node:crypto';
import {
  applyInferenceComponentScaling,
  readDeployedInferenceComponent,
  updateComponentSpecification,
} from '../aws/inference-component.js';
import type { PolicyClients } from '../aws/policy.js';
import {
  type DriftArtifact,
  type InferenceComponentPlan,
  newRunId,
  type PlanArtifact,
  type ValidateArtifact,
} from '../model/index.js';
import { deployedIcRows, expectedIcRows, type IcDeployedState } from '../plan/inference-component-rows.js';
import { differingRows, diffPolicyRows } from '../plan/policy-diff.js';
import { renderLocalApplyIcReport } from '../report/inference-component-text.js';
import { waitUntil } from '../wait.js';
import { type AwsCommandDeps, type CommandResult, resolveDeps } from './result.js';

export interface IcCompareInput {
  modelName: string;
  region: string;
  planFile: string;
  runId?: string;
}

export interface IcValidateOutcome {
  artifact: ValidateArtifact;
  state: IcDeployedState;
}

/** Compares the deployed component with the plan's block, without writing. */
export async function compareInferenceComponentWithPlan(
  input: IcCompareInput,
  plan: PlanArtifact & { inference_component: InferenceComponentPlan },
  deps: AwsCommandDeps<PolicyClients>,
): Promise<IcValidateOutcome> {
  const ic = plan.inference_component;
  const state = await readDeployedInferenceComponent(deps.clients, ic);
  const rows = diffPolicyRows(expectedIcRows(ic), deployedIcRows(state, ic));
  const artifact: ValidateArtifact = {
    schema_version: 1,
    kind: 'validate',
    model_name: input.modelName,
    endpoint: ic.endpoint,
    region: input.region,
    run_id: input.runId ?? newRunId(),
    checked_at: resolveDeps(deps).clock().toISOString(),
    verdict: differingRows(rows).length === 0 ? 'clean' : 'mismatch',
    plan: { file: input.planFile, run_id: plan.run_id, fingerprint: plan.fingerprint },
    rows,
  };
  return { artifact, state };
}

export interface LocalApplyIcInput extends IcCompareInput {
  /** Longest wait for the component to serve a new specification. @default 600 */
  updateTimeoutS?: number;
  /** @default 500 */
  pollIntervalMs?: number;
}

/** Applies the plan's component block (the component itself must exist: a CDK deploy creates it). */
export async function runLocalApplyInferenceComponent(
  input: LocalApplyIcInput,
  plan: PlanArtifact & { inference_component: InferenceComponentPlan },
  deps: AwsCommandDeps<PolicyClients>,
): Promise<CommandResult<ValidateArtifact>> {
  const ic = plan.inference_component;
  const { clock, signal, log } = resolveDeps(deps);
  const call = signal ? { abortSignal: signal } : {};
  const warnings: string[] = [];
  const before = await readDeployedInferenceComponent(deps.clients, ic, call);
  if (!before.component) {
    warnings.push(
      `no inference component ${ic.component_name} on ${ic.endpoint}: deploy it first (the CDK construct creates it); only its scaling was applied`,
    );
  }
  const mis = before.managedInstanceScaling;
  if (mis && (mis.min !== ic.instances.min || mis.max !== ic.instances.max || mis.status !== 'ENABLED')) {
    warnings.push(
      `managed instance scaling is ${mis.status ?? 'unset'} ${mis.min ?? '?'}..${mis.max ?? '?'}, the plan wants ENABLED ${ic.instances.min}..${ic.instances.max}: it lives in the endpoint config (redeploy the endpoint)`,
    );
  }
  const timeoutS = input.updateTimeoutS ?? 600;
  // One change at a time, as on AWS: a creation or copy change under way is let finish first.
  const settled = (what: string) =>
    waitUntil(
      `inference component ${ic.component_name} to ${what}`,
      async () => {
        const s = await readDeployedInferenceComponent(deps.clients, ic, call);
        const status = s.component?.status;
        return status === 'Creating' || status === 'Updating' ? undefined : s;
      },
      {
        interval: input.pollIntervalMs ?? 500,
        deadline: Date.now() + timeoutS * 1000,
        ...(signal ? { signal } : {}),
        log,
      },
    );
  let specModelName: string | null = null;
  if (before.component) {
    await settled('finish its current change');
    const stamp = `${clock().getTime().toString(36)}${randomBytes(2).toString('hex')}`;
    specModelName = await updateComponentSpecification(deps.clients, ic, stamp, call);
    if (specModelName !== null) {
      log(`UpdateInferenceComponent ${ic.component_name} -> ${specModelName}`);
      await settled('serve its new specification');
    }
  }
  const applied = await applyInferenceComponentScaling(deps.clients, ic, call);
  const { artifact } = await compareInferenceComponentWithPlan(input, plan, deps);
  const failed = differingRows(artifact.rows);
  return {
    artifact,
    report: renderLocalApplyIcReport({
      modelName: input.modelName,
      componentName: ic.component_name,
      endpoint: ic.endpoint,
      planFile: input.planFile,
      specModelName,
      policyNames: applied.policyNames,
      alarmNames: applied.alarmNames,
      warnings,
      failed,
      compared: artifact.rows.length,
    }),
    exitCode: failed.length === 0 ? 0 : 1,
    written: [],
  };
}

/** The plan's component block, when it has one. */
export const withInferenceComponent = (
  plan: PlanArtifact,
): (PlanArtifact & { inference_component: InferenceComponentPlan }) | null =>
  plan.inference_component ? (plan as PlanArtifact & { inference_component: InferenceComponentPlan }) : null;

type DriftFinding = DriftArtifact['findings'][number];

/**
 * `scalegate drift --plan` for a plan with a component block: the component in service, its
 * scalable target registered, no policy the plan does not declare, every parameter as planned.
 */
export async function checkInferenceComponentDrift(
  input: IcCompareInput,
  plan: PlanArtifact & { inference_component: InferenceComponentPlan },
  deps: AwsCommandDeps<PolicyClients>,
): Promise<DriftArtifact> {
  const ic = plan.inference_component;
  const { artifact, state } = await compareInferenceComponentWithPlan(input, plan, deps);
  const findings: DriftFinding[] = [];
  const finding = (check: string, bad: boolean, detail: string, remediation: string): DriftFinding =>
    bad
      ? { check, verdict: 'drift', detail, remediation }
      : { check, verdict: 'ok', detail, remediation: null };
  const apply = `deploy the plan (the gated \`cdk deploy\`; on the local SageMaker \`scalegate local apply --model ${input.modelName} --plan ${input.planFile}\`)`;
  const status = state.component?.status ?? null;
  findings.push(
    finding(
      'inference_component',
      status !== 'InService',
      status === null
        ? `no inference component ${ic.component_name} on ${ic.endpoint}${state.error ? ` (${state.error})` : ''}`
        : `${ic.component_name} is ${status}`,
      status === null ? apply : 'let the change under way finish, then re-run',
    ),
  );
  findings.push(
    finding(
      'scalable_target',
      state.scalableTarget === null,
      state.scalableTarget
        ? `inference-component/${ic.component_name} copies ${state.scalableTarget.min}..${state.scalableTarget.max}`
        : `no scalable target registered for inference-component/${ic.component_name}: the plan's copy scaling is not deployed`,
      apply,
    ),
  );
  const differing = differingRows(artifact.rows);
  findings.push(
    finding(
      'plan_parameters',
      differing.length > 0,
      differing.length === 0
        ? `every parameter equals the plan (${artifact.rows.length} compared)`
        : `${differing.length} parameter(s) differ from the plan: ${differing.map((r) => r.parameter).join(', ')}`,
      apply,
    ),
  );
  return {
    schema_version: 1,
    kind: 'drift',
    model_name: input.modelName,
    endpoint: ic.endpoint,
    region: input.region,
    run_id: newRunId(),
    checked_at: resolveDeps(deps).clock().toISOString(),
    verdict: findings.some((f) => f.verdict === 'drift') ? 'drift' : 'preflight-ok',
    plan: { file: input.planFile, run_id: plan.run_id },
    findings,
    rows: artifact.rows,
  };
}

/** `scalegate drift` without `--plan` for an inference-component model: nothing to compare without the plan's names. */
export function inferenceComponentDriftWithoutPlan(
  input: { modelName: string; endpoint: string; region: string },
  deps: AwsCommandDeps<PolicyClients>,
): DriftArtifact {
  return {
    schema_version: 1,
    kind: 'drift',
    model_name: input.modelName,
    endpoint: input.endpoint,
    region: input.region,
    run_id: newRunId(),
    checked_at: resolveDeps(deps).clock().toISOString(),
    verdict: 'preflight-ok',
    plan: null,
    findings: [
      {
        check: 'inference_component',
        verdict: 'warn',
        detail: `${input.modelName} is an inference-component model: its component, copy scaling and wake rules are checked against a plan`,
        remediation: `\`scalegate drift --model ${input.modelName} --plan artifacts/plan-${input.modelName}.json\``,
      },
    ],
    rows: [],
  };
}
