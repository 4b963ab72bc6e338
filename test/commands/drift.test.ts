/**
 * drift, the read-only preflight, against the local SageMaker through the CLI (exit codes and
 * printed remediation) with real SDK clients: preflight-ok after `local apply`, exit 1 for each
 * kind of drift the issue names.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  AddTagsCommand,
  DeleteTagsCommand,
  DescribeEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { runLocalApply } from '../../src/commands/local-apply.js';
import { claimTag } from '../../src/model/freeze-claim.js';
import { readArtifact } from '../../src/model/index.js';
import { ALL_SUSPENDED, journalTags, writeThawJournal } from '../../src/model/journal.js';
import { runCli } from '../helpers/cli.js';
import {
  configFile,
  type Emulator,
  emulatorPlanFile,
  MODEL,
  serialContainer,
  startEmulator,
  withEmulatorEnv,
  workspace,
} from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let stateDir: string;
let planFile: string;
let restoreEnv: () => void;

beforeAll(async () => {
  emulator = await startEmulator({ maxQueueDepth: 50, container: serialContainer });
  dir = workspace('drift');
  stateDir = join(dir, 'state');
  planFile = await emulatorPlanFile(emulator, dir);
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(async () => {
  emulator.handle.reset();
  rmSync(stateDir, { recursive: true, force: true });
  const applied = await runLocalApply(
    {
      modelName: MODEL,
      endpoint: emulator.handle.endpointName,
      variant: emulator.handle.variantName,
      region: emulator.handle.region,
      planFile,
    },
    { clients: emulator.clients },
  );
  expect(applied.exitCode, applied.report).toBe(0);
  restoreEnv = withEmulatorEnv(emulator, stateDir);
});

afterEach(() => restoreEnv());

const resourceId = () => `endpoint/${emulator.handle.endpointName}/variant/${emulator.handle.variantName}`;
const out = (name: string) => join(dir, `drift-${name}.json`);
const drift = (name: string, ...extra: string[]) =>
  runCli(['drift', '--config', configFile, '--model', MODEL, '--out', out(name), ...extra]);

describe('drift on the local SageMaker', () => {
  it('is preflight-ok after `local apply` (with and without the plan), INSUFFICIENT_DATA only warned', async () => {
    for (const [name, args] of [
      ['clean-plan', ['--plan', planFile]],
      ['clean', []],
    ] as const) {
      const run = await drift(name, ...args);
      expect(run.stderr).toBe('');
      expect(run.exitCode, run.stdout).toBe(0);
      expect(run.stdout.trimEnd().split('\n').at(-1)).toMatch(/^preflight-ok/);
      const artifact = readArtifact('drift', out(name));
      expect(artifact.verdict).toBe('preflight-ok');
      expect(artifact.findings.filter((f) => f.verdict === 'drift')).toEqual([]);
    }
    const withPlan = readArtifact('drift', out('clean-plan'));
    expect(withPlan.rows.find((r) => r.parameter === 'scale_out.target_value')).toMatchObject({
      verdict: 'match',
    });
    // The target-tracking alarm has no data on an idle endpoint: a warning, not drift.
    const warned = withPlan.findings.find((f) => f.check === 'alarm_states');
    expect(warned?.verdict).toBe('warn');
    expect(warned?.detail).toMatch(/INSUFFICIENT_DATA/);
  });

  it('reports a suspended scaling flag (exit 1) with the command that clears it', async () => {
    await emulator.clients.autoscaling.send(
      new RegisterScalableTargetCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId(),
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        SuspendedState: { DynamicScalingOutSuspended: true },
      }),
    );
    const run = await drift('suspended');
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(
      /DRIFT suspension +scaling is suspended on endpoint\/.*DynamicScalingOutSuspended/,
    );
    expect(run.stdout).toMatch(
      /fix: `aws application-autoscaling register-scalable-target .*DynamicScalingOutSuspended=false/,
    );
    expect(run.stdout).toMatch(/^drift: 1 finding \(suspension\)$/m);
  });

  it('reports a changed TargetValue against the plan (exit 1), naming the parameter and both values', async () => {
    await emulator.clients.autoscaling.send(
      new PutScalingPolicyCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId(),
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        PolicyName: `scalegate-${emulator.handle.endpointName}-${emulator.handle.variantName}-scale-out`,
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 45,
          PredefinedMetricSpecification: {
            PredefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
          },
          ScaleOutCooldown: 30,
          DisableScaleIn: true,
        },
      }),
    );
    const run = await drift('target-value', '--plan', planFile);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(
      /DRIFT policy_parameters .*scale_out\.target_value \(TargetValue\): expected 6, deployed 45/,
    );
    expect(run.stdout).toMatch(/fix: redeploy the plan/);
    const artifact = readArtifact('drift', out('target-value'));
    expect(artifact.rows.find((r) => r.parameter === 'scale_out.target_value')).toMatchObject({
      expected: 6,
      deployed: 45,
      verdict: 'mismatch',
    });
  });

  it('reports min/max capacity that differ from the plan (exit 1)', async () => {
    await emulator.clients.autoscaling.send(
      new RegisterScalableTargetCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId(),
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        MinCapacity: 1,
        MaxCapacity: 3,
      }),
    );
    const run = await drift('bounds', '--plan', planFile);
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(
      /DRIFT capacity_bounds +min\/max differ from the plan: scalable_target\.max_capacity \(MaxCapacity\): expected \d+, deployed 3/,
    );
    expect(run.stdout).toMatch(/^drift: 1 finding \(capacity_bounds\)$/m);
  });

  it('reports a policy that belongs to no declared model (exit 1) with the delete command', async () => {
    await emulator.clients.autoscaling.send(
      new PutScalingPolicyCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId(),
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        PolicyName: 'left-over-invocations-policy',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 70,
          PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        },
      }),
    );
    const run = await drift('orphan');
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(
      /DRIFT orphan_policies +scaling policies on endpoint\/.* that belong to no declared model: left-over-invocations-policy \(TargetTrackingScaling\)/,
    );
    expect(run.stdout).toMatch(/delete-scaling-policy .*--policy-name left-over-invocations-policy/);
  });

  it('reports a leftover thaw journal (exit 1) with `scalegate thaw --model`', async () => {
    writeThawJournal(
      {
        schema_version: 1,
        kind: 'thaw-journal',
        endpoint: emulator.handle.endpointName,
        variant: emulator.handle.variantName,
        region: emulator.handle.region,
        resource_id: resourceId(),
        scalable_target_registered: true,
        suspended_state: { ...ALL_SUSPENDED, scheduled_scaling_suspended: false },
        min_capacity: 1,
        max_capacity: 280,
        desired_instance_count: 1,
        started_at: new Date().toISOString(),
        pid: 4242,
        hostname: 'ci-runner',
        command: 'scalegate qmax --model kokoro-82m',
        run_id: 'abc123',
      },
      stateDir,
    );
    const run = await drift('journal');
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/DRIFT thaw_journal +a thaw journal is left behind .*pid 4242 on ci-runner/);
    expect(run.stdout).toMatch(/fix: `scalegate thaw --model kokoro-82m`/);
  });

  it('reports a thaw journal the endpoint carries in its tags (a lost runner froze it from another machine), exit 1', async () => {
    const { EndpointArn } = await emulator.clients.sagemaker.send(
      new DescribeEndpointCommand({ EndpointName: emulator.handle.endpointName }),
    );
    const tags = journalTags({
      schema_version: 1,
      kind: 'thaw-journal',
      endpoint: emulator.handle.endpointName,
      variant: emulator.handle.variantName,
      region: emulator.handle.region,
      resource_id: resourceId(),
      scalable_target_registered: true,
      suspended_state: { ...ALL_SUSPENDED, scheduled_scaling_suspended: false },
      min_capacity: 1,
      max_capacity: 280,
      desired_instance_count: 1,
      started_at: new Date().toISOString(),
      pid: 5151,
      hostname: 'lost-runner',
      command: 'scalegate qmax --model kokoro-82m',
      run_id: 'def456',
    });
    await emulator.clients.sagemaker.send(
      new AddTagsCommand({
        ResourceArn: EndpointArn,
        Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
      }),
    );
    try {
      const run = await drift('journal-tag');
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toMatch(
        /DRIFT thaw_journal +a thaw journal is left behind on the endpoint .*pid 5151 on lost-runner/,
      );
      expect(run.stdout).toMatch(/fix: `scalegate thaw --model kokoro-82m`/);
    } finally {
      await emulator.clients.sagemaker.send(
        new DeleteTagsCommand({ ResourceArn: EndpointArn, TagKeys: Object.keys(tags) }),
      );
    }
  });

  it('reports the freeze claim a gone run left on the endpoint (exit 1, thaw removes it) and warns, without drift, of a run measuring now', async () => {
    const { EndpointArn } = await emulator.clients.sagemaker.send(
      new DescribeEndpointCommand({ EndpointName: emulator.handle.endpointName }),
    );
    const now = Date.now();
    const goneClaim = claimTag({
      runId: 'gone-1',
      phase: 'claim',
      startMs: now - 900_000,
      beatMs: now - 600_000,
      host: 'lost-runner',
    });
    const put = (tags: Record<string, string>) =>
      emulator.clients.sagemaker.send(
        new AddTagsCommand({
          ResourceArn: EndpointArn,
          Tags: Object.entries(tags).map(([Key, Value]) => ({ Key, Value })),
        }),
      );
    const remove = (tags: Record<string, string>) =>
      emulator.clients.sagemaker.send(
        new DeleteTagsCommand({ ResourceArn: EndpointArn, TagKeys: Object.keys(tags) }),
      );
    await put(goneClaim);
    try {
      const run = await drift('claim-gone');
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toMatch(
        /DRIFT freeze_claims +the freeze claim of a run that is gone .*run gone-1 from host lost-runner/,
      );
      expect(run.stdout).toMatch(
        /fix: `scalegate thaw --model kokoro-82m` \(removes the claims of gone runs\)/,
      );
    } finally {
      await remove(goneClaim);
    }
    const liveClaim = claimTag({
      runId: 'live-1',
      phase: 'claim',
      startMs: now - 5_000,
      beatMs: Date.now(),
      host: 'runner-2',
    });
    await put(liveClaim);
    try {
      const run = await drift('claim-live');
      expect(run.stdout).toMatch(/WARN +freeze_claims +run live-1 from host runner-2 .* is measuring now/);
      expect(run.stdout).not.toMatch(/DRIFT freeze_claims/);
    } finally {
      await remove(liveClaim);
    }
    const clean = await drift('claim-none');
    expect(clean.stdout).not.toMatch(/freeze_claims/);
  });

  it('reports desired != current while a capacity change is in flight (exit 1), then preflight-ok once settled', async () => {
    await emulator.clients.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: emulator.handle.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: emulator.handle.variantName, DesiredInstanceCount: 2 }],
      }),
    );
    const run = await drift('updating');
    expect(run.exitCode).toBe(1);
    expect(run.stdout).toMatch(/DRIFT instance_count +desired instance count 2 != current 1/);
    expect(run.stdout).toMatch(/DRIFT endpoint_status +endpoint speech-kokoro-82m is Updating/);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    await emulator.clients.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: emulator.handle.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: emulator.handle.variantName, DesiredInstanceCount: 1 }],
      }),
    );
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 1);
    const settled = await drift('settled');
    expect(settled.exitCode, settled.stdout).toBe(0);
  });

  it('warns, without drift, when no scaling is deployed and no plan is given; with a plan that is drift', async () => {
    emulator.handle.reset();
    const run = await drift('nothing');
    expect(run.exitCode, run.stdout).toBe(0);
    expect(run.stdout).toMatch(/WARN {2}scalable_target/);
    const withPlan = await drift('nothing-plan', '--plan', planFile);
    expect(withPlan.exitCode).toBe(1);
    expect(withPlan.stdout).toMatch(/DRIFT scalable_target [\s\S]*scalegate local apply --model kokoro-82m/);
    expect(existsSync(out('nothing-plan'))).toBe(true);
  });
});
