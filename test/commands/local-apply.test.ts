/**
 * `local apply` deploys the plan onto the local SageMaker through the AWS APIs with real SDK
 * clients: MAX_QUEUE_DEPTH through CreateModel + CreateEndpointConfig + UpdateEndpoint
 * (blue/green), the scaling shape through Application Auto Scaling and CloudWatch, and verifies by
 * reading everything back.
 */
import { join } from 'node:path';
import { DescribeScalingActivitiesCommand } from '@aws-sdk/client-application-auto-scaling';
import { SetAlarmStateCommand } from '@aws-sdk/client-cloudwatch';
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyLocalPlan, runLocalApply } from '../../src/commands/local-apply.js';
import { isUsageError } from '../../src/model/index.js';
import { differingRows } from '../../src/plan/policy-diff.js';
import { runCli } from '../helpers/cli.js';
import {
  configFile,
  type Emulator,
  editedCopy,
  emulatorPlanFile,
  MODEL,
  startEmulator,
  withEmulatorEnv,
  workspace,
} from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let planFile: string;

beforeAll(async () => {
  // The reference container's default MAX_QUEUE_DEPTH (64), not the plan's (Q_max 50).
  emulator = await startEmulator();
  dir = workspace('local-apply');
  planFile = await emulatorPlanFile(emulator, dir);
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(() => emulator.handle.reset());

const deps = () => ({ clients: emulator.clients });
const input = (plan = planFile) => ({
  modelName: MODEL,
  endpoint: emulator.handle.endpointName,
  variant: emulator.handle.variantName,
  region: emulator.handle.region,
  planFile: plan,
  pollIntervalMs: 100,
});

/** The model the endpoint serves, read over the wire (endpoint -> endpoint config -> model). */
async function servedModel() {
  const sm = emulator.clients.sagemaker;
  const ep = await sm.send(new DescribeEndpointCommand({ EndpointName: emulator.handle.endpointName }));
  const config = await sm.send(
    new DescribeEndpointConfigCommand({ EndpointConfigName: ep.EndpointConfigName }),
  );
  const model = await sm.send(
    new DescribeModelCommand({ ModelName: config.ProductionVariants?.[0]?.ModelName }),
  );
  return { endpoint: ep, config, model };
}

describe('scalegate local apply', () => {
  it('sets MAX_QUEUE_DEPTH through CreateModel, CreateEndpointConfig and UpdateEndpoint (the serving instance replaced), deploys every parameter and reads back clean', async () => {
    const before = await servedModel();
    const [oldInstance] = emulator.handle.instances();
    const result = await runLocalApply(input(), deps());
    expect(result.report).toMatch(
      /MAX_QUEUE_DEPTH 64 -> 50 \(CreateModel speech-kokoro-82m-model-\w+, CreateEndpointConfig speech-kokoro-82m-config-\w+, UpdateEndpoint blue\/green: instances replaced\)/,
    );
    expect(differingRows(result.artifact?.rows ?? [])).toEqual([]);
    expect(result.exitCode).toBe(0);
    const after = await servedModel();
    expect(after.model.PrimaryContainer?.Environment?.MAX_QUEUE_DEPTH).toBe('50');
    // Everything else of the model and the variant is carried over.
    expect({ ...after.model.PrimaryContainer?.Environment, MAX_QUEUE_DEPTH: '64' }).toEqual(
      before.model.PrimaryContainer?.Environment,
    );
    expect(after.model.PrimaryContainer?.Image).toBe(before.model.PrimaryContainer?.Image);
    expect(after.model.ExecutionRoleArn).toBe(before.model.ExecutionRoleArn);
    expect({ ...after.config.ProductionVariants?.[0], ModelName: 'x' }).toEqual({
      ...before.config.ProductionVariants?.[0],
      ModelName: 'x',
    });
    expect(after.endpoint.EndpointConfigName).not.toBe(before.endpoint.EndpointConfigName);
    // The instance that serves now was started with the plan's MAX_QUEUE_DEPTH.
    const now = emulator.handle.instances();
    expect(now.map((i) => i.environment.MAX_QUEUE_DEPTH)).toEqual(['50']);
    expect(now[0]?.id).not.toBe(oldInstance?.id);
    expect(emulator.handle.status()).toMatchObject({ status: 'InService', current: 1 });
  });

  it('is idempotent: a second apply changes nothing and keeps the policies', async () => {
    const first = await applyLocalPlan(input(), deps());
    const second = await applyLocalPlan(input(), deps());
    expect(second.applied.scaleOutPolicyArn).toBe(first.applied.scaleOutPolicyArn);
    expect(second.applied.scaleInPolicyArn).toBe(first.applied.scaleInPolicyArn);
    expect(differingRows(second.verification.rows)).toEqual([]);
    expect(second.queueDepth.action).toBe('unchanged');
  });

  it('deploys a scale-in policy that acts: an idle fleet of two is scaled in by its alarm', async () => {
    await applyLocalPlan(input(), deps());
    await emulator.clients.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: emulator.handle.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: emulator.handle.variantName, DesiredInstanceCount: 2 }],
      }),
    );
    await emulator.handle.waitFor((s) => s.current === 2 && s.status === 'InService');
    // Idle, the alarm is in ALARM (missing data is breaching); re-enter ALARM now rather than wait
    // for the next 60 s period to complete, so its action (the step policy, -1) runs at once.
    const alarmName = `scalegate-${emulator.handle.endpointName}-${emulator.handle.variantName}-scale-in`;
    for (const StateValue of ['OK', 'ALARM'] as const) {
      await emulator.clients.cloudwatch.send(
        new SetAlarmStateCommand({ AlarmName: alarmName, StateValue, StateReason: 'test' }),
      );
    }
    await emulator.handle.waitFor((s) => s.desired === 1 && s.current === 1 && s.status === 'InService');
    const activities = await emulator.clients.autoscaling.send(
      new DescribeScalingActivitiesCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: `endpoint/${emulator.handle.endpointName}/variant/${emulator.handle.variantName}`,
      }),
    );
    expect(activities.ScalingActivities?.[0]?.Cause).toMatch(
      /scalegate-speech-kokoro-82m-AllTraffic-scale-in/,
    );
  });

  it('reports an update that rolled back (the old model keeps serving) as NOT SET with its FailureReason, exit 1', async () => {
    await emulator.handle.updateModelEnvironment({ MAX_QUEUE_DEPTH: '64' });
    const [serving] = emulator.handle.instances();
    emulator.handle.faults = { failNextInstances: 1, failAtStage: 'weights_ready' };
    const result = await runLocalApply(input(), deps());
    expect(result.exitCode).toBe(1);
    expect(result.report).toMatch(
      /MAX_QUEUE_DEPTH NOT SET \(still 64\): UpdateEndpoint to speech-kokoro-82m-config-\w+ rolled back: Failed to update endpoint: .*did not pass the ping health check/,
    );
    expect(result.report).toMatch(
      /MISMATCH container\.max_queue_depth \(Environment\.MAX_QUEUE_DEPTH\): expected 50, deployed 64/,
    );
    // Everything else was applied; the old instance still serves.
    expect(differingRows(result.artifact?.rows ?? []).map((r) => r.parameter)).toEqual([
      'container.max_queue_depth',
    ]);
    expect(emulator.handle.instances().map((i) => i.id)).toEqual([serving?.id]);
    expect((await servedModel()).endpoint.FailureReason).toMatch(/did not pass the ping health check/);
  });

  it('refuses (exit 2) a plan measured on another image, as the deploy gate would, unless the mismatch is allowed', async () => {
    const other = editedCopy(
      planFile,
      dir,
      'plan-other-image.json',
      (p) => (p.fingerprint.image_digest = 'a'.repeat(64)),
    );
    const refused = await runLocalApply(input(other), deps()).catch((e: unknown) => e);
    expect(isUsageError(refused)).toBe(true);
    expect((refused as Error).message).toMatch(
      /plan-other-image\.json was not measured on what endpoint speech-kokoro-82m runs/,
    );
    expect((refused as Error).message).toMatch(/--allow-config-mismatch/);
    const allowed = await runLocalApply({ ...input(other), allowConfigMismatch: true }, deps());
    expect(allowed.report).toMatch(/WARNING: configuration mismatch allowed: image/);
    expect(allowed.exitCode).toBe(0);
  });

  it('runs from the CLI as `scalegate local apply` against AWS_ENDPOINT_URL', async () => {
    await emulator.handle.updateModelEnvironment({ MAX_QUEUE_DEPTH: '50' });
    const restore = withEmulatorEnv(emulator, join(dir, 'state'));
    try {
      const run = await runCli([
        'local',
        'apply',
        '--config',
        configFile,
        '--model',
        MODEL,
        '--plan',
        planFile,
      ]);
      expect(run.stderr).toBe('');
      expect(run.exitCode, run.stdout).toBe(0);
      expect(run.stdout).toMatch(/MAX_QUEUE_DEPTH already 50/);
      expect(run.stdout).toMatch(/read back: every parameter equals the plan/);
    } finally {
      restore();
      await emulator.handle.updateModelEnvironment({ MAX_QUEUE_DEPTH: '64' });
    }
  });
});
