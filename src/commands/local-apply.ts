/**
 * `scalegate local apply`: deploy a plan onto the local SageMaker the way a CDK deploy does it on
 * AWS, through the same APIs: the container's MAX_QUEUE_DEPTH through a new model
 * (CreateModel with the deployed model's image and environment, MAX_QUEUE_DEPTH set),
 * CreateEndpointConfig (the deployed variant on that model) and UpdateEndpoint (blue/green,
 * keeping the variant's desired count), waiting until the endpoint is InService again; then
 * Application Auto Scaling (RegisterScalableTarget, PutScalingPolicy x2) and CloudWatch
 * (PutMetricAlarm: the scale-in alarm invoking the step policy, the observability alarms). Then
 * reads everything back and compares it with the plan (what `scalegate validate` does), so a
 * partial apply never looks like a success. Works against any SageMaker endpoint the clients
 * reach: a `scalegate local up` in another shell, or AWS itself.
 */
import { randomBytes } from 'node:crypto';
import {
  createEndpointConfig,
  createModel,
  type DeployedModel,
  describeDeployedModel,
  describeEndpointDeployment,
  updateEndpoint,
} from '../aws/endpoint.js';
import { type AppliedPolicy, applyScalingShape, type PolicyClients } from '../aws/policy.js';
import {
  fingerprintSlug,
  imageDigestOf,
  opt,
  readArtifact,
  usage,
  type ValidateArtifact,
} from '../model/index.js';
import { differingRows } from '../plan/policy-diff.js';
import { renderLocalApplyReport } from '../report/local-apply-text.js';
import { waitUntil } from '../wait.js';
import { runLocalApplyInferenceComponent, withInferenceComponent } from './inference-component.js';
import { type AwsCommandDeps, type CommandResult, resolveDeps } from './result.js';
import { checkModel, compareWithPlan, loadPlanShape } from './validate.js';

export interface LocalApplyInput {
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  planFile: string;
  /** Apply a plan measured on another image / instance type (warns; the gate would refuse it). @default false */
  allowConfigMismatch?: boolean;
  /** Longest wait for the endpoint to serve the new model (a blue/green update on AWS takes minutes). @default 1800 */
  updateTimeoutS?: number;
  /** Pause between two DescribeEndpoint calls while it updates. @default 1000 */
  pollIntervalMs?: number;
}

export type LocalApplyDeps = AwsCommandDeps<PolicyClients>;

/** How MAX_QUEUE_DEPTH reached the endpoint (or why it did not). */
export interface QueueDepthChange {
  expected: number;
  before: string | null;
  /** `set`: a new model served by the endpoint; `rolled-back`: UpdateEndpoint failed, the old model serves. */
  action: 'unchanged' | 'set' | 'rolled-back';
  /** The model and endpoint config created (null when unchanged). */
  modelName: string | null;
  endpointConfigName: string | null;
  /** SageMaker's FailureReason of a rolled-back update. */
  failureReason: string | null;
}

export interface LocalApplyOutcome {
  applied: AppliedPolicy;
  queueDepth: QueueDepthChange;
  verification: ValidateArtifact;
  warnings: string[];
}

/**
 * A new model (the deployed one's image and environment with `env` over it) and endpoint config
 * (the deployed variant on it), then UpdateEndpoint keeping the variant's desired count, and wait
 * until the endpoint is no longer Updating. Names carry the time and a random suffix (SageMaker
 * names are unique per account and region; a model is never changed in place).
 */
async function deployModelEnvironment(
  input: LocalApplyInput,
  deps: LocalApplyDeps,
  deployed: DeployedModel,
  env: Record<string, string>,
): Promise<Pick<QueueDepthChange, 'action' | 'modelName' | 'endpointConfigName' | 'failureReason'>> {
  const { clock, signal, log } = resolveDeps(deps);
  const sagemaker = deps.clients.sagemaker;
  const call = signal ? { abortSignal: signal } : {};
  const timeoutS = input.updateTimeoutS ?? 1800;
  const waitOptions = {
    interval: input.pollIntervalMs ?? 1000,
    deadline: Date.now() + timeoutS * 1000,
    ...(signal ? { signal } : {}),
    log,
  };
  // One change at a time, as on AWS: a capacity change still under way is let finish first.
  await waitUntil(
    `endpoint ${input.endpoint} to finish its current change`,
    async () => {
      const d = await describeEndpointDeployment(sagemaker, input.endpoint, call);
      return d.status === 'Updating' || d.status === 'Creating' ? undefined : d;
    },
    waitOptions,
  );
  const stamp = `${clock().getTime().toString(36)}${randomBytes(2).toString('hex')}`;
  const base = input.endpoint.slice(0, 40).replace(/-+$/, '');
  const modelName = `${base}-model-${stamp}`;
  const endpointConfigName = `${base}-config-${stamp}`;
  await createModel(
    sagemaker,
    {
      name: modelName,
      image: deployed.image,
      environment: { ...deployed.environment, ...env },
      executionRoleArn: deployed.executionRoleArn,
    },
    call,
  );
  await createEndpointConfig(
    sagemaker,
    endpointConfigName,
    { ...deployed.variant, ModelName: modelName },
    call,
  );
  log(`UpdateEndpoint ${input.endpoint} -> ${endpointConfigName} (model ${modelName}, blue/green)`);
  await updateEndpoint(sagemaker, input.endpoint, endpointConfigName, true, call);
  const settled = await waitUntil(
    `endpoint ${input.endpoint} to serve ${endpointConfigName}`,
    async () => {
      const d = await describeEndpointDeployment(sagemaker, input.endpoint, call);
      return d.status === 'Updating' ? undefined : d;
    },
    { ...waitOptions, deadline: Date.now() + timeoutS * 1000 },
  );
  if (!settled) {
    throw new Error(
      `endpoint ${input.endpoint} was still Updating to ${endpointConfigName} after ${timeoutS} s; see DescribeEndpoint`,
    );
  }
  if (settled.endpointConfigName === endpointConfigName && settled.status === 'InService') {
    return { action: 'set', modelName, endpointConfigName, failureReason: null };
  }
  return {
    action: 'rolled-back',
    modelName,
    endpointConfigName,
    failureReason:
      settled.failureReason ??
      `endpoint is ${settled.status} on ${settled.endpointConfigName ?? 'no endpoint config'}`,
  };
}

export async function applyLocalPlan(
  input: LocalApplyInput,
  deps: LocalApplyDeps,
): Promise<LocalApplyOutcome> {
  const planShape = loadPlanShape(input.modelName, input.planFile, input.endpoint, input.variant);
  const { plan, shape } = planShape;
  const deployed = await describeDeployedModel(deps.clients.sagemaker, input.endpoint, input.variant);
  const warnings: string[] = [];
  const digest = imageDigestOf(deployed.image);
  const mismatches = [
    plan.fingerprint.instance_type !== deployed.instanceType
      ? `instance type: plan measured ${plan.fingerprint.instance_type}, endpoint runs ${deployed.instanceType}`
      : null,
    plan.fingerprint.image_digest !== digest
      ? `image: plan measured ${fingerprintSlug(plan.fingerprint)}, endpoint runs ${fingerprintSlug({ instance_type: deployed.instanceType, image_digest: digest })}`
      : null,
  ].filter((m): m is string => m !== null);
  if (mismatches.length > 0) {
    if (!input.allowConfigMismatch) {
      throw usage`${opt('plan', input.planFile)} was not measured on what endpoint ${input.endpoint} runs (${mismatches.join('; ')}); the deploy gate refuses such a plan. Measure this endpoint (\`scalegate qmax --model ${input.modelName}\`, \`scalegate ttotal\`, \`scalegate plan\`) and apply that plan, or allow the mismatch with ${opt('allow-config-mismatch')} for a rehearsal (warns).`;
    }
    warnings.push(...mismatches.map((m) => `configuration mismatch allowed: ${m}`));
  }

  // The model first, then its scaling: the order a CDK deploy creates them in.
  const expectedDepth = Number(shape.container.environment.MAX_QUEUE_DEPTH);
  const before = deployed.environment.MAX_QUEUE_DEPTH ?? null;
  const queueDepth: QueueDepthChange =
    before === String(expectedDepth)
      ? {
          expected: expectedDepth,
          before,
          action: 'unchanged',
          modelName: null,
          endpointConfigName: null,
          failureReason: null,
        }
      : {
          expected: expectedDepth,
          before,
          ...(await deployModelEnvironment(input, deps, deployed, shape.container.environment)),
        };

  const applied = await applyScalingShape(deps.clients, shape);

  const { artifact: verification } = await compareWithPlan(
    {
      modelName: input.modelName,
      endpoint: input.endpoint,
      variant: input.variant,
      region: input.region,
      planFile: input.planFile,
    },
    deps,
    planShape,
  );
  return { applied, queueDepth, verification, warnings };
}

export async function runLocalApply(
  input: LocalApplyInput,
  deps: LocalApplyDeps,
): Promise<CommandResult<ValidateArtifact>> {
  const icPlan = withInferenceComponent(readArtifact('plan', input.planFile));
  if (icPlan) {
    return runLocalApplyInferenceComponent(
      {
        modelName: input.modelName,
        region: input.region,
        planFile: input.planFile,
        ...(input.pollIntervalMs !== undefined ? { pollIntervalMs: input.pollIntervalMs } : {}),
        ...(input.updateTimeoutS !== undefined ? { updateTimeoutS: input.updateTimeoutS } : {}),
      },
      checkModel(input.modelName, input.planFile, icPlan),
      deps,
    );
  }
  const outcome = await applyLocalPlan(input, deps);
  const differing = differingRows(outcome.verification.rows);
  // A mismatch the user allowed (image / instance type) is expected to differ; anything else is a failed apply.
  const tolerated = new Set(
    input.allowConfigMismatch ? ['deployment.image_digest', 'deployment.instance_type'] : [],
  );
  const failed = differing.filter((r) => !tolerated.has(r.parameter));
  return {
    artifact: outcome.verification,
    report: renderLocalApplyReport({
      modelName: input.modelName,
      endpoint: input.endpoint,
      planFile: input.planFile,
      applied: outcome.applied,
      queueDepth: outcome.queueDepth,
      warnings: outcome.warnings,
      failed,
      compared: outcome.verification.rows.length,
    }),
    exitCode: failed.length === 0 ? 0 : 1,
    written: [],
  };
}
