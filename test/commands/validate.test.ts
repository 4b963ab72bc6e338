/**
 * validate against the local SageMaker with real SDK clients: clean on a policy created from the
 * plan, and for each single-parameter change a mismatch naming exactly that parameter.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  PutScalingPolicyCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import { PutMetricAlarmCommand, type PutMetricAlarmCommandInput } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyScalingShape } from '../../src/aws/policy.js';
import { compareWithPlan, loadPlanShape, runValidate } from '../../src/commands/validate.js';
import { readArtifact } from '../../src/model/index.js';
import { differingRows } from '../../src/plan/policy-diff.js';
import type { AlarmShape, PolicyShape } from '../../src/plan/policy-shape.js';
import { runCli } from '../helpers/cli.js';
import {
  configFile,
  type EditablePlan,
  type Emulator,
  editedCopy,
  emulatorPlanFile,
  MODEL,
  serialContainer,
  startEmulator,
  withEmulatorEnv,
  workspace,
} from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let planFile: string;
let shape: PolicyShape;

beforeAll(async () => {
  // MAX_QUEUE_DEPTH already the plan's (Q_max 50): applying changes no instance.
  emulator = await startEmulator({ maxQueueDepth: 50, container: serialContainer });
  dir = workspace('validate');
  planFile = await emulatorPlanFile(emulator, dir);
  shape = loadPlanShape(MODEL, planFile, emulator.handle.endpointName, emulator.handle.variantName).shape;
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(async () => {
  emulator.handle.reset();
  await emulator.handle.updateModelEnvironment({ MAX_QUEUE_DEPTH: '50' });
  await applyScalingShape(emulator.clients, shape);
});

const deps = () => ({ clients: emulator.clients });
const input = (plan = planFile) => ({
  modelName: MODEL,
  endpoint: emulator.handle.endpointName,
  variant: emulator.handle.variantName,
  region: emulator.handle.region,
  planFile: plan,
});

const t = () => shape.scalableTarget;
const key = () => ({
  ServiceNamespace: 'sagemaker' as const,
  ResourceId: t().resourceId,
  ScalableDimension: t().scalableDimension,
});

async function registerTarget(change: Record<string, unknown>): Promise<void> {
  await emulator.clients.autoscaling.send(
    new RegisterScalableTargetCommand({
      ...key(),
      MinCapacity: t().minCapacity,
      MaxCapacity: t().maxCapacity,
      ...change,
    }),
  );
}

async function putScaleOut(change: Record<string, unknown>): Promise<void> {
  const o = shape.scaleOut;
  await emulator.clients.autoscaling.send(
    new PutScalingPolicyCommand({
      ...key(),
      PolicyName: o.policyName,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: o.targetValue,
        PredefinedMetricSpecification: { PredefinedMetricType: o.predefinedMetricType },
        ScaleOutCooldown: o.scaleOutCooldownS,
        DisableScaleIn: true,
        ...change,
      },
    }),
  );
}

async function putScaleIn(
  change: Record<string, unknown>,
  step: Record<string, unknown> = {},
): Promise<void> {
  const i = shape.scaleIn;
  await emulator.clients.autoscaling.send(
    new PutScalingPolicyCommand({
      ...key(),
      PolicyName: i.policyName,
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ChangeInCapacity',
        StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1, ...step }],
        Cooldown: i.cooldownS,
        MetricAggregationType: 'Maximum',
        ...change,
      },
    }),
  );
}

/** Re-puts an alarm of the shape with one field changed (actions kept as deployed). */
async function putAlarm(
  alarm: AlarmShape,
  change: Partial<PutMetricAlarmCommandInput>,
  actions: string[],
): Promise<void> {
  await emulator.clients.cloudwatch.send(
    new PutMetricAlarmCommand({
      AlarmName: alarm.alarmName,
      ActionsEnabled: true,
      AlarmActions: actions,
      Namespace: alarm.namespace,
      MetricName: alarm.metricName,
      Dimensions: Object.entries(alarm.dimensions).map(([Name, Value]) => ({ Name, Value })),
      ...(alarm.statistic
        ? { Statistic: alarm.statistic }
        : { ExtendedStatistic: alarm.extendedStatistic as string }),
      Period: alarm.periodS,
      EvaluationPeriods: alarm.evaluationPeriods,
      DatapointsToAlarm: alarm.datapointsToAlarm,
      Threshold: alarm.threshold,
      ComparisonOperator: alarm.comparisonOperator,
      TreatMissingData: alarm.treatMissingData,
      ...change,
    }),
  );
}

async function scaleInPolicyArn(): Promise<string> {
  const { state } = await compareWithPlan(input(), deps());
  const policy = state.policies.find((p) => p.PolicyName === shape.scaleIn.policyName);
  return policy?.PolicyARN as string;
}

async function putScaleInAlarm(change: Partial<PutMetricAlarmCommandInput>): Promise<void> {
  await putAlarm(shape.scaleIn.alarm, change, [await scaleInPolicyArn()]);
}

describe('validate on the local SageMaker', () => {
  it('passes on a policy created from the plan: every parameter equal, exit 0, artifact written', async () => {
    const out = join(dir, 'validate-clean.json');
    const result = await runValidate({ ...input(), outFile: out }, deps());
    expect(differingRows(result.artifact?.rows ?? [])).toEqual([]);
    expect(result.exitCode).toBe(0);
    expect(result.artifact?.verdict).toBe('clean');
    expect(readArtifact('validate', out).verdict).toBe('clean');
    expect(result.report).toMatch(/clean/);
  });

  const cases: [string, () => Promise<void>][] = [
    ['scalable_target.min_capacity', () => registerTarget({ MinCapacity: 0 })],
    ['scalable_target.max_capacity', () => registerTarget({ MaxCapacity: 3 })],
    [
      'scalable_target.suspended.dynamic_scaling_in',
      () => registerTarget({ SuspendedState: { DynamicScalingInSuspended: true } }),
    ],
    [
      'scalable_target.suspended.dynamic_scaling_out',
      () => registerTarget({ SuspendedState: { DynamicScalingOutSuspended: true } }),
    ],
    [
      'scalable_target.suspended.scheduled_scaling',
      () => registerTarget({ SuspendedState: { ScheduledScalingSuspended: true } }),
    ],
    [
      'scale_out.metric',
      () =>
        putScaleOut({
          PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        }),
    ],
    ['scale_out.target_value', () => putScaleOut({ TargetValue: 40 })],
    ['scale_out.cooldown_s', () => putScaleOut({ ScaleOutCooldown: 300 })],
    ['scale_out.disable_scale_in', () => putScaleOut({ DisableScaleIn: false })],
    ['scale_in.adjustment_type', () => putScaleIn({ AdjustmentType: 'PercentChangeInCapacity' })],
    ['scale_in.adjustment', () => putScaleIn({}, { ScalingAdjustment: -2 })],
    ['scale_in.metric_interval_upper_bound', () => putScaleIn({}, { MetricIntervalUpperBound: -5 })],
    ['scale_in.cooldown_s', () => putScaleIn({ Cooldown: 300 })],
    ['scale_in.metric_aggregation', () => putScaleIn({ MetricAggregationType: 'Average' })],
    ['scale_in.alarm.metric', () => putScaleInAlarm({ MetricName: 'InvocationsPerInstance' })],
    ['scale_in.alarm.statistic', () => putScaleInAlarm({ Statistic: 'Average' })],
    ['scale_in.alarm.period_s', () => putScaleInAlarm({ Period: 300 })],
    ['scale_in.alarm.evaluation_periods', () => putScaleInAlarm({ EvaluationPeriods: 20 })],
    ['scale_in.alarm.datapoints_to_alarm', () => putScaleInAlarm({ DatapointsToAlarm: 10 })],
    ['scale_in.alarm.threshold', () => putScaleInAlarm({ Threshold: 30 })],
    ['scale_in.alarm.comparison', () => putScaleInAlarm({ ComparisonOperator: 'LessThanThreshold' })],
    ['scale_in.alarm.missing_data', () => putScaleInAlarm({ TreatMissingData: 'notBreaching' })],
    ['scale_in.alarm.invokes_policy', () => putAlarm(shape.scaleIn.alarm, {}, [])],
    ['container.max_queue_depth', () => emulator.handle.updateModelEnvironment({ MAX_QUEUE_DEPTH: '64' })],
    [
      'alarms.service_time.threshold',
      () => putAlarm(shape.alarms.serviceTime as AlarmShape, { Threshold: 3_000_000 }, []),
    ],
  ];

  it.each(cases)('fails naming %s when only that deployed parameter changes', async (parameter, change) => {
    await change();
    const out = join(dir, `validate-${parameter}.json`);
    const result = await runValidate({ ...input(), outFile: out }, deps());
    expect(result.exitCode).toBe(1);
    expect(result.artifact?.verdict).toBe('mismatch');
    expect(differingRows(result.artifact?.rows ?? []).map((r) => r.parameter)).toEqual([parameter]);
    expect(result.report).toContain(parameter);
    expect(existsSync(out)).toBe(true);
  });

  it.each([
    ['deployment.image_digest', (p: EditablePlan) => (p.fingerprint.image_digest = 'f'.repeat(64))],
    ['deployment.instance_type', (p: EditablePlan) => (p.fingerprint.instance_type = 'ml.g6.xlarge')],
  ])(
    'fails naming %s when the deployed image or instance type is not what the plan measured',
    async (parameter, edit) => {
      const other = editedCopy(planFile, dir, `plan-${parameter}.json`, edit);
      const result = await runValidate(
        { ...input(other), outFile: join(dir, `validate-${parameter}.json`) },
        deps(),
      );
      expect(result.exitCode).toBe(1);
      expect(differingRows(result.artifact?.rows ?? []).map((r) => r.parameter)).toEqual([parameter]);
    },
  );

  it('counts a policy the plan does not declare as a mismatch, naming it', async () => {
    await emulator.clients.autoscaling.send(
      new PutScalingPolicyCommand({
        ...key(),
        PolicyName: 'hand-made-scale-out',
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 5,
          PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        },
      }),
    );
    const result = await runValidate({ ...input(), outFile: join(dir, 'validate-orphan.json') }, deps());
    expect(result.exitCode).toBe(1);
    expect(differingRows(result.artifact?.rows ?? []).map((r) => r.parameter)).toEqual([
      'orphan.policy.hand-made-scale-out',
    ]);
  });

  it('reports every expected parameter missing when nothing is deployed', async () => {
    emulator.handle.reset();
    const result = await runValidate({ ...input(), outFile: join(dir, 'validate-empty.json') }, deps());
    expect(result.exitCode).toBe(1);
    const missing = differingRows(result.artifact?.rows ?? []).map((r) => r.parameter);
    expect(missing).toContain('scalable_target.min_capacity');
    expect(missing).toContain('scale_out.target_value');
    expect(missing).not.toContain('container.max_queue_depth');
  });

  it('refuses (exit 2) a plan for another model, naming the file and the fix', async () => {
    const restore = withEmulatorEnv(emulator, join(dir, 'state'));
    try {
      const other = editedCopy(planFile, dir, 'plan-other.json', (p) => (p.model_name = 'reference-tts'));
      const run = await runCli([
        'validate',
        '--config',
        configFile,
        '--model',
        MODEL,
        '--plan',
        other,
        '--out',
        join(dir, 'v.json'),
      ]);
      expect(run.exitCode).toBe(2);
      expect(run.stderr).toMatch(/plan-other\.json: a plan for reference-tts, not kokoro-82m/);
      expect(run.stderr).toMatch(/scalegate plan --model kokoro-82m/);
    } finally {
      restore();
    }
  });

  it('runs from the CLI against AWS_ENDPOINT_URL and exits 1 naming the mismatch', async () => {
    await putScaleOut({ TargetValue: 41 });
    const restore = withEmulatorEnv(emulator, join(dir, 'state'));
    try {
      const run = await runCli([
        'validate',
        '--config',
        configFile,
        '--model',
        MODEL,
        '--plan',
        planFile,
        '--out',
        join(dir, 'v-cli.json'),
      ]);
      expect(run.stderr).toBe('');
      expect(run.exitCode).toBe(1);
      expect(run.stdout).toMatch(/MISMATCH scale_out\.target_value \(TargetValue\): expected 6, deployed 41/);
    } finally {
      restore();
    }
  });
});
