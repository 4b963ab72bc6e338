/**
 * `scalegate local apply`: deploy a plan's policy shape onto the local SageMaker the way the CDK
 * construct deploys it on AWS: Application Auto Scaling (RegisterScalableTarget, PutScalingPolicy
 * x2), CloudWatch (PutMetricAlarm: the scale-in alarm invoking the step policy, the observability
 * alarms), and the container's MAX_QUEUE_DEPTH. Then reads everything back and compares it with
 * the plan (what `scalegate validate` does), so a partial apply never looks like a success.
 *
 * MAX_QUEUE_DEPTH is part of the model (container environment), not of scaling. On AWS it changes
 * through a new model + endpoint config + UpdateEndpoint (the CDK deploy). The local SageMaker
 * implements none of CreateModel / CreateEndpointConfig / UpdateEndpoint, so the caller passes
 * `setModelEnvironment` (in process: the emulator handle's blue/green `updateModelEnvironment`);
 * without it a differing MAX_QUEUE_DEPTH is reported, not faked.
 */
import { describeDeployedVariant } from '../aws/endpoint.js';
import { type AppliedPolicy, applyScalingShape, type PolicyClients } from '../aws/policy.js';
import { fingerprintSlug, imageDigestOf, opt, usage, type ValidateArtifact } from '../model/index.js';
import { differingRows } from '../plan/policy-diff.js';
import { renderLocalApplyReport } from '../report/local-apply-text.js';
import type { AwsCommandDeps, CommandResult } from './result.js';
import { compareWithPlan, loadPlanShape } from './validate.js';

export interface LocalApplyInput {
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  planFile: string;
  /** Apply a plan measured on another image / instance type (warns; the gate would refuse it). @default false */
  allowConfigMismatch?: boolean;
}

export interface LocalApplyDeps extends AwsCommandDeps<PolicyClients> {
  /**
   * Replaces the model environment (blue/green) and resolves once the endpoint serves it (the
   * emulator handle's `updateModelEnvironment`). @default none: a differing MAX_QUEUE_DEPTH is reported
   */
  setModelEnvironment?: (env: Record<string, string>) => Promise<void>;
}

export interface LocalApplyOutcome {
  applied: AppliedPolicy;
  queueDepth: { expected: number; before: string | null; action: 'unchanged' | 'set' | 'not-settable' };
  verification: ValidateArtifact;
  warnings: string[];
}

export async function applyLocalPlan(
  input: LocalApplyInput,
  deps: LocalApplyDeps,
): Promise<LocalApplyOutcome> {
  const planShape = loadPlanShape(input.modelName, input.planFile, input.endpoint, input.variant);
  const { plan, shape } = planShape;
  const deployed = await describeDeployedVariant(deps.clients.sagemaker, input.endpoint, input.variant);
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

  const applied = await applyScalingShape(deps.clients, shape);

  const expectedDepth = Number(shape.container.environment.MAX_QUEUE_DEPTH);
  const before = deployed.environment.MAX_QUEUE_DEPTH ?? null;
  let action: LocalApplyOutcome['queueDepth']['action'] = 'unchanged';
  if (before !== String(expectedDepth)) {
    if (deps.setModelEnvironment) {
      await deps.setModelEnvironment({ MAX_QUEUE_DEPTH: String(expectedDepth) });
      action = 'set';
    } else {
      action = 'not-settable';
      warnings.push(
        `MAX_QUEUE_DEPTH is ${before ?? 'unset'} on the model, the plan says ${expectedDepth}: the local SageMaker has no wire API to change a model's environment (no CreateModel/CreateEndpointConfig/UpdateEndpoint); restart it with \`scalegate local up --max-queue-depth ${expectedDepth}\``,
      );
    }
  }

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
  return { applied, queueDepth: { expected: expectedDepth, before, action }, verification, warnings };
}

export async function runLocalApply(
  input: LocalApplyInput,
  deps: LocalApplyDeps,
): Promise<CommandResult<ValidateArtifact>> {
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
