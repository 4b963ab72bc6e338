/**
 * `scalegate drift`: the read-only preflight. Is the deployed scaling state of the model's
 * endpoint what the repo declares, with nothing left behind by an aborted run?
 *
 * Without --plan the repo declares no numbers (the config has no min/max or thresholds: those
 * come from a plan), so only what needs no numbers is checked: the endpoint is InService with
 * desired = current, no suspension flag is set, no thaw journal is left, no scaling policy or
 * scalegate alarm on the variant is one the shape does not name, no scalable target belongs to an
 * endpoint no model declares. A missing scalable target is then a warning (nothing deployed yet).
 * With --plan, every deployed parameter is also compared with the plan, and a missing scalable
 * target is drift.
 */
import { join } from 'node:path';
import type { ScalableTarget } from '@aws-sdk/client-application-auto-scaling';
import {
  describeScalableTargets,
  describeScalingPolicies,
  type PolicyClients,
  readDeployedPolicy,
} from '../aws/policy.js';
import { SAGEMAKER_NAMESPACE, VARIANT_DIMENSION } from '../aws/scaling.js';
import { endpointArn, listResourceTags } from '../aws/tags.js';
import { claimIsFresh, claimsFromTags, describeClaim, staleAfterMs } from '../model/freeze-claim.js';
import {
  type ComparisonRow,
  DEFAULT_ARTIFACTS_DIR,
  type DriftArtifact,
  driftFileName,
  newRunId,
  readArtifact,
  type ScalegateConfig,
  writeArtifact,
} from '../model/index.js';
import {
  stateDir as defaultStateDir,
  JOURNAL_TAG,
  journalFromTags,
  readThawJournal,
  type ThawJournal,
  thawJournalPath,
} from '../model/journal.js';
import {
  type DeployedPolicyState,
  flattenDeployedPolicy,
  orphanAlarms,
  orphanPolicies,
} from '../plan/deployed-rows.js';
import { describeRow, differingRows, diffPolicyRows, expectedRows } from '../plan/policy-diff.js';
import { calibrationEndpointName, policyNames } from '../plan/policy-shape.js';
import { renderDriftReport } from '../report/drift-text.js';
import {
  checkInferenceComponentDrift,
  inferenceComponentDriftWithoutPlan,
  withInferenceComponent,
} from './inference-component.js';
import { type AwsCommandDeps, type CommandResult, resolveDeps } from './result.js';
import { checkModel, loadPlanShape, type PlanShape } from './validate.js';

export type DriftFinding = DriftArtifact['findings'][number];

export interface DriftInput {
  config: ScalegateConfig;
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  /** Also compare every deployed policy parameter with this plan. @default no plan: structural checks only */
  planFile?: string;
  /** @default `<artifactsDir>/drift-<model>.json` */
  outFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
  /** Where thaw journals live. @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** @default a new run id */
  runId?: string;
}

export type DriftDeps = AwsCommandDeps<PolicyClients>;

const RESOURCE_ID = /^endpoint\/([^/]+)\/variant\/([^/]+)$/;

/** Endpoints the config declares: each model's endpoint and its calibration copy. */
export function declaredEndpoints(config: ScalegateConfig, extra: string[] = []): Set<string> {
  const names = new Set(extra);
  for (const model of Object.values(config.models)) {
    names.add(model.endpoint);
    names.add(calibrationEndpointName(model.endpoint));
  }
  return names;
}

const ok = (check: string, detail: string): DriftFinding => ({
  check,
  verdict: 'ok',
  detail,
  remediation: null,
});
const warn = (check: string, detail: string, remediation: string | null = null): DriftFinding => ({
  check,
  verdict: 'warn',
  detail,
  remediation,
});
const drift = (check: string, detail: string, remediation: string): DriftFinding => ({
  check,
  verdict: 'drift',
  detail,
  remediation,
});

function thawCommand(modelName: string, endpoint: string, defaultEndpoint: string): string {
  return `scalegate thaw --model ${modelName}${endpoint === defaultEndpoint ? '' : ` --endpoint ${endpoint}`}`;
}

function endpointFindings(state: DeployedPolicyState): DriftFinding[] {
  if (!state.capacity) {
    return [
      drift(
        'endpoint_status',
        `endpoint ${state.endpoint} variant ${state.variant} cannot be described: ${state.endpointError ?? 'unknown error'}`,
        `deploy the endpoint (the release workflow, or \`scalegate local up\` on the local SageMaker), or pass the right --endpoint/--region`,
      ),
    ];
  }
  const c = state.capacity;
  const findings: DriftFinding[] = [];
  if (c.endpointStatus === 'InService') {
    findings.push(ok('endpoint_status', 'InService'));
  } else {
    findings.push(
      drift(
        'endpoint_status',
        `endpoint ${state.endpoint} is ${c.endpointStatus}${c.failureReason ? ` (${c.failureReason})` : ''}, not InService`,
        /fail/i.test(c.endpointStatus)
          ? `inspect FailureReason (aws sagemaker describe-endpoint --endpoint-name ${state.endpoint}) and redeploy the endpoint`
          : 'wait for the change in progress to finish, then re-run `scalegate drift`',
      ),
    );
  }
  if (c.desired !== null && c.current !== null && c.desired !== c.current) {
    findings.push(
      drift(
        'instance_count',
        `desired instance count ${c.desired} != current ${c.current}: a capacity change is in progress or stuck`,
        'wait for the endpoint to reach its desired count and re-run; if it never does, check the endpoint status and the instance quota',
      ),
    );
  } else {
    findings.push(ok('instance_count', `desired = current = ${c.current ?? c.desired ?? 'n/a'}`));
  }
  return findings;
}

function suspensionFinding(
  state: DeployedPolicyState,
  journalExists: boolean,
  thaw: string,
): DriftFinding | null {
  const s = state.scalableTarget?.SuspendedState;
  if (!state.scalableTarget) return null;
  const set = [
    s?.DynamicScalingInSuspended ? 'DynamicScalingInSuspended' : null,
    s?.DynamicScalingOutSuspended ? 'DynamicScalingOutSuspended' : null,
    s?.ScheduledScalingSuspended ? 'ScheduledScalingSuspended' : null,
  ].filter((x): x is string => x !== null);
  if (set.length === 0) return ok('suspension', 'no suspension flag set');
  const reRegister = `aws application-autoscaling register-scalable-target --service-namespace ${SAGEMAKER_NAMESPACE} --resource-id ${state.resourceId} --scalable-dimension ${VARIANT_DIMENSION} --suspended-state DynamicScalingInSuspended=false,DynamicScalingOutSuspended=false,ScheduledScalingSuspended=false`;
  return drift(
    'suspension',
    `scaling is suspended on ${state.resourceId}: ${set.join(', ')} (the policy does not act; an aborted qmax, goodput or ttotal freeze leaves exactly this)`,
    journalExists
      ? `\`${thaw}\` (restores the flags and desired count the journal recorded)`
      : `\`${reRegister}\` (no thaw journal is left to restore from), or redeploy`,
  );
}

function orphanFindings(state: DeployedPolicyState): DriftFinding[] {
  const findings: DriftFinding[] = [];
  const policies = orphanPolicies(state);
  if (policies.length === 0) {
    findings.push(ok('orphan_policies', 'every scaling policy on the variant is one the shape declares'));
  } else {
    const names = policies.map((p) => `${p.PolicyName} (${p.PolicyType})`).join(', ');
    const commands = policies
      .map(
        (p) =>
          `aws application-autoscaling delete-scaling-policy --service-namespace ${SAGEMAKER_NAMESPACE} --resource-id ${state.resourceId} --scalable-dimension ${VARIANT_DIMENSION} --policy-name ${p.PolicyName}`,
      )
      .join('; ');
    const declared = policyNames(state.endpoint, state.variant);
    findings.push(
      drift(
        'orphan_policies',
        `scaling policies on ${state.resourceId} that belong to no declared model: ${names} (declared: ${declared.scaleOutPolicy}, ${declared.scaleInPolicy}); they act on the fleet next to the measured policy`,
        `delete them: ${commands}`,
      ),
    );
  }
  const alarms = orphanAlarms(state);
  if (alarms.length > 0) {
    findings.push(
      drift(
        'orphan_alarms',
        `scalegate alarms on ${state.endpoint}/${state.variant} that the shape does not declare: ${alarms.map((a) => a.AlarmName).join(', ')}`,
        `aws cloudwatch delete-alarms --alarm-names ${alarms.map((a) => a.AlarmName).join(' ')}`,
      ),
    );
  }
  return findings;
}

async function undeclaredTargetFindings(
  clients: PolicyClients,
  declared: Set<string>,
): Promise<DriftFinding[]> {
  const targets: ScalableTarget[] = await describeScalableTargets(clients.autoscaling);
  const undeclared = targets.filter((t) => {
    const m = RESOURCE_ID.exec(t.ResourceId ?? '');
    return m !== null && !declared.has(m[1] as string);
  });
  if (undeclared.length === 0) {
    return [
      ok('undeclared_targets', 'no scalable target belongs to an endpoint the config does not declare'),
    ];
  }
  const withScalegate: string[] = [];
  const foreign: string[] = [];
  for (const t of undeclared) {
    const policies = await describeScalingPolicies(clients.autoscaling, t.ResourceId as string);
    if (policies.some((p) => p.PolicyName?.startsWith('scalegate-')))
      withScalegate.push(t.ResourceId as string);
    else foreign.push(t.ResourceId as string);
  }
  const findings: DriftFinding[] = [];
  if (withScalegate.length > 0) {
    findings.push(
      drift(
        'undeclared_targets',
        `scalable targets with scalegate policies on endpoints no model in the config declares: ${withScalegate.join(', ')} (a model removed from the config, or a renamed endpoint, left its scaling behind)`,
        `declare the model again in the config, or deregister: ${withScalegate
          .map(
            (id) =>
              `aws application-autoscaling deregister-scalable-target --service-namespace ${SAGEMAKER_NAMESPACE} --resource-id ${id} --scalable-dimension ${VARIANT_DIMENSION}`,
          )
          .join('; ')}`,
      ),
    );
  }
  if (foreign.length > 0) {
    findings.push(
      warn(
        'undeclared_targets',
        `scalable targets of SageMaker endpoints the config does not declare and scalegate never deployed: ${foreign.join(', ')} (not scalegate's; listed, not drift)`,
      ),
    );
  }
  return findings;
}

function alarmStateFindings(state: DeployedPolicyState): DriftFinding[] {
  const insufficient = [...state.alarms.values()]
    .filter((a) => a.StateValue === 'INSUFFICIENT_DATA')
    .map((a) => a.AlarmName as string)
    .sort();
  if (insufficient.length === 0) return [];
  return [
    warn(
      'alarm_states',
      `alarms in INSUFFICIENT_DATA (an idle endpoint publishes little; not drift): ${insufficient.join(', ')}`,
      'none needed; send traffic to see them evaluate, or check the metric names if they stay so under load',
    ),
  ];
}

/** Rows of a drift check: every plan parameter with a plan, else the structural ones. */
function driftRows(state: DeployedPolicyState, planShape: PlanShape | null): ComparisonRow[] {
  const deployed = flattenDeployedPolicy(state);
  const endpointRows: ComparisonRow[] = state.capacity
    ? [
        {
          parameter: 'endpoint.status',
          expected: 'InService',
          deployed: state.capacity.endpointStatus,
          verdict: state.capacity.endpointStatus === 'InService' ? 'match' : 'mismatch',
        },
        {
          parameter: 'endpoint.current_instance_count',
          expected: state.capacity.desired,
          deployed: state.capacity.current,
          verdict: state.capacity.desired === state.capacity.current ? 'match' : 'mismatch',
        },
      ]
    : [];
  if (planShape) return [...diffPolicyRows(expectedRows(planShape.shape), deployed), ...endpointRows];
  const structural = deployed.filter(
    (r) => r.parameter.startsWith('scalable_target.suspended.') || r.parameter.startsWith('orphan.'),
  );
  const rows: ComparisonRow[] = structural.map((r) =>
    r.parameter.startsWith('orphan.')
      ? { parameter: r.parameter, expected: null, deployed: r.value, verdict: 'extra' }
      : {
          parameter: r.parameter,
          expected: false,
          deployed: r.value,
          verdict: r.value === null ? 'warn' : r.value === false ? 'match' : 'mismatch',
        },
  );
  return [...rows, ...endpointRows];
}

const HANDLED_ELSEWHERE = /^(scalable_target\.suspended\.|orphan\.)/;
const BOUNDS = /^scalable_target\.(min|max)_capacity$/;

/**
 * The thaw journal the endpoint carries in its tags (a freeze from any machine), or why it could not
 * be read, and the tags themselves (the freeze claims are read from them too).
 */
async function endpointJournal(
  clients: DriftDeps['clients'],
  endpoint: string,
): Promise<{
  journal: ThawJournal | null;
  error: string | null;
  unreadable: boolean;
  tags: Record<string, string>;
}> {
  let tags: Record<string, string>;
  try {
    tags = await listResourceTags(clients.sagemaker, await endpointArn(clients.sagemaker, endpoint));
  } catch (e) {
    return {
      journal: null,
      error: `${(e as Error).name}: ${(e as Error).message}`,
      unreadable: false,
      tags: {},
    };
  }
  try {
    return { journal: journalFromTags(tags, `endpoint ${endpoint}`), error: null, unreadable: false, tags };
  } catch (e) {
    return { journal: null, error: (e as Error).message, unreadable: true, tags };
  }
}

/**
 * The freeze claims on the endpoint (only when there are any): a fresh one is a measurement running
 * now (the endpoint is frozen on purpose); a stale or unreadable one is a gone run's leftover.
 */
export function claimFindings(tags: Record<string, string>, nowMs: number, thaw: string): DriftFinding[] {
  const { claims, unreadable } = claimsFromTags(tags);
  const fresh = claims.filter((c) => claimIsFresh(c, nowMs));
  const gone = claims.filter((c) => !claimIsFresh(c, nowMs));
  const findings: DriftFinding[] = [];
  if (fresh.length > 0) {
    findings.push(
      warn(
        'freeze_claims',
        `${fresh.map((c) => describeClaim(c, nowMs)).join('; ')} is measuring now: the endpoint is frozen on purpose until that run restores it`,
        `wait for it to end; only if it is gone, \`${thaw} --force\``,
      ),
    );
  }
  if (gone.length > 0 || unreadable.length > 0) {
    const parts = [
      ...gone.map((c) => describeClaim(c, nowMs)),
      ...unreadable.map((key) => `an unreadable claim (${key})`),
    ];
    findings.push(
      drift(
        'freeze_claims',
        `the freeze claim of a run that is gone is left on the endpoint: ${parts.join('; ')} (heartbeat older than ${Math.round(staleAfterMs() / 1000)} s)`,
        `\`${thaw}\` (removes the claims of gone runs)`,
      ),
    );
  }
  return findings;
}

/** Every drift check, without writing anything. */
export async function checkDrift(input: DriftInput, deps: DriftDeps): Promise<DriftArtifact> {
  const { clock } = resolveDeps(deps);
  const icPlan = input.planFile ? withInferenceComponent(readArtifact('plan', input.planFile)) : null;
  if (icPlan && input.planFile) {
    return checkInferenceComponentDrift(
      { modelName: input.modelName, region: input.region, planFile: input.planFile },
      checkModel(input.modelName, input.planFile, icPlan),
      deps,
    );
  }
  if (!input.planFile && input.config.models[input.modelName]?.kind === 'inference-component') {
    return inferenceComponentDriftWithoutPlan(input, deps);
  }
  const planShape = input.planFile
    ? loadPlanShape(input.modelName, input.planFile, input.endpoint, input.variant)
    : null;
  const state = await readDeployedPolicy(deps.clients, input.endpoint, input.variant);
  const defaultEndpoint = input.config.models[input.modelName]?.endpoint ?? input.endpoint;
  const thaw = thawCommand(input.modelName, input.endpoint, defaultEndpoint);
  const dir = input.stateDir ?? defaultStateDir();
  const local = readThawJournal(input.endpoint, dir);
  const carried = await endpointJournal(deps.clients, input.endpoint);
  const journal = carried.journal ?? local;

  const findings: DriftFinding[] = [...endpointFindings(state)];
  if (!state.scalableTarget) {
    findings.push(
      planShape
        ? drift(
            'scalable_target',
            `no scalable target registered for ${state.resourceId}: the plan's scaling is not deployed`,
            `deploy the plan (the release workflow's gated \`cdk deploy\`; on the local SageMaker \`scalegate local apply --model ${input.modelName} --plan ${planShape.planFile}\`)`,
          )
        : warn(
            'scalable_target',
            `no scalable target registered for ${state.resourceId}: no scaling deployed (nothing to compare without --plan)`,
            'deploy a measured plan, then run `scalegate validate`',
          ),
    );
  } else {
    const t = state.scalableTarget;
    findings.push(ok('scalable_target', `${state.resourceId} min ${t.MinCapacity} max ${t.MaxCapacity}`));
    const s = suspensionFinding(state, journal !== null, thaw);
    if (s) findings.push(s);
  }
  if (journal) {
    const where = carried.journal
      ? `on the endpoint (its ${JOURNAL_TAG} tags)`
      : `in ${thawJournalPath(input.endpoint, dir)}`;
    findings.push(
      drift(
        'thaw_journal',
        `a thaw journal is left behind ${where}: a qmax, goodput or ttotal run (pid ${journal.pid}${journal.hostname ? ` on ${journal.hostname}` : ''}, started ${journal.started_at}, \`${journal.command}\`) froze the endpoint and never restored it`,
        `\`${thaw}\``,
      ),
    );
  } else if (carried.unreadable) {
    findings.push(
      drift(
        'thaw_journal',
        carried.error as string,
        'restore the endpoint by hand, then remove the tags (aws sagemaker delete-tags)',
      ),
    );
  } else if (carried.error) {
    findings.push(
      warn(
        'thaw_journal',
        `no thaw journal in ${dir}; the endpoint's tags (where a journal travels with it) could not be read: ${carried.error}`,
        'grant sagemaker:ListTags on the endpoint, then re-run',
      ),
    );
  } else {
    findings.push(ok('thaw_journal', `no thaw journal for ${input.endpoint}, on the endpoint or in ${dir}`));
  }
  findings.push(...claimFindings(carried.tags, clock().getTime(), thaw));
  findings.push(...orphanFindings(state));
  findings.push(
    ...(await undeclaredTargetFindings(deps.clients, declaredEndpoints(input.config, [input.endpoint]))),
  );

  const rows = driftRows(state, planShape);
  if (planShape && state.scalableTarget) {
    const redeploy = `redeploy the plan (gated \`cdk deploy\`; locally \`scalegate local apply --model ${input.modelName} --plan ${planShape.planFile}\`), or re-measure and re-plan if the deployed values are intended`;
    const differing = differingRows(rows).filter(
      (r) => !HANDLED_ELSEWHERE.test(r.parameter) && !r.parameter.startsWith('endpoint.'),
    );
    const bounds = differing.filter((r) => BOUNDS.test(r.parameter));
    const others = differing.filter((r) => !BOUNDS.test(r.parameter));
    findings.push(
      bounds.length === 0
        ? ok(
            'capacity_bounds',
            `min ${state.scalableTarget.MinCapacity} / max ${state.scalableTarget.MaxCapacity} as planned`,
          )
        : drift(
            'capacity_bounds',
            `min/max differ from the plan: ${bounds.map(describeRow).join('; ')}`,
            redeploy,
          ),
    );
    findings.push(
      others.length === 0
        ? ok(
            'policy_parameters',
            `every other deployed parameter equals the plan (${rows.length} rows compared)`,
          )
        : drift(
            'policy_parameters',
            `${others.length} deployed parameter(s) differ from the plan: ${others.map(describeRow).join('; ')}`,
            redeploy,
          ),
    );
  }
  findings.push(...alarmStateFindings(state));

  const drifted = findings.some((f) => f.verdict === 'drift');
  return {
    schema_version: 1,
    kind: 'drift',
    model_name: input.modelName,
    endpoint: input.endpoint,
    region: input.region,
    run_id: input.runId ?? newRunId(),
    checked_at: clock().toISOString(),
    verdict: drifted ? 'drift' : 'preflight-ok',
    plan: planShape ? { file: planShape.planFile, run_id: planShape.plan.run_id } : null,
    findings,
    rows,
  };
}

export async function runDrift(input: DriftInput, deps: DriftDeps): Promise<CommandResult<DriftArtifact>> {
  const artifact = await checkDrift(input, deps);
  const outFile =
    input.outFile ?? join(input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR, driftFileName(input.modelName));
  writeArtifact('drift', outFile, artifact);
  return {
    artifact,
    report: renderDriftReport(artifact, outFile),
    exitCode: artifact.verdict === 'drift' ? 1 : 0,
    written: [outFile],
  };
}
