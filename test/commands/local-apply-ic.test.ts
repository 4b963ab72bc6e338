// `local apply` and `validate` of an inference-component plan against the local SageMaker, real
// SDK clients over loopback: an endpoint hosting one component (managed instance scaling, min 0),
// the plan applied (new copy specification, copy target tracking, wake and idle rules) and read
// back clean; a changed copy target is named by validate.
import { join } from 'node:path';
import { DescribeScalingPoliciesCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import {
  CreateInferenceComponentCommand,
  DescribeInferenceComponentCommand,
  DescribeModelCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDrift } from '../../src/commands/drift.js';
import { runLocalApply } from '../../src/commands/local-apply.js';
import { runPlan } from '../../src/commands/plan.js';
import { runValidate } from '../../src/commands/validate.js';
import { inferenceComponentConfigSchema, readConfigFile } from '../../src/model/index.js';
import { differingRows } from '../../src/plan/policy-diff.js';
import { anchorQmaxFile, anchorTtotalFile } from '../helpers/anchor.js';
import { createIcHostingEndpoint } from '../helpers/ic-endpoint.js';
import { eventually, fakeContainer } from '../local/helpers.js';
import {
  configFile,
  type Emulator,
  editedCopy,
  MODEL,
  modelConfig,
  startEmulator,
  workspace,
} from './local-apply-fixtures.js';

const ENDPOINT = 'speech-ic';
const COMPONENT = 'speech-ic-ic';
let emulator: Emulator;
let dir: string;
let planFile: string;

const icBlock = inferenceComponentConfigSchema.parse({
  copies_per_instance: 2,
  cpu_cores: 2,
  memory_mb: 4096,
  min_copies: 0,
  max_copies: 4,
  instance_bounds: { min: 0, max: 2 },
});

beforeAll(async () => {
  emulator = await startEmulator({
    container: fakeContainer({ READY_DELAY_MS: '20' }),
    endpointName: 'plain-endpoint',
    alarmEvaluationIntervalMs: 200,
  });
  const { sagemaker } = emulator.clients;
  const role = `arn:aws:iam::${emulator.handle.accountId}:role/r`;
  // What a CDK deploy of the component creates: a model, an endpoint with managed instance
  // scaling and no model on its variant, the component (1 vCPU, MAX_QUEUE_DEPTH 8: both unplanned).
  await createIcHostingEndpoint(sagemaker, {
    endpoint: ENDPOINT,
    modelName: 'speech-ic-model',
    image: emulator.handle.imageUri,
    roleArn: role,
    environment: { MAX_QUEUE_DEPTH: '8' },
    minInstances: 0,
    maxInstances: 2,
  });
  await sagemaker.send(
    new CreateInferenceComponentCommand({
      InferenceComponentName: COMPONENT,
      EndpointName: ENDPOINT,
      VariantName: 'AllTraffic',
      Specification: {
        ModelName: 'speech-ic-model',
        ComputeResourceRequirements: { NumberOfCpuCoresRequired: 1, MinMemoryRequiredInMb: 4096 },
      },
      RuntimeConfig: { CopyCount: 1 },
    }),
  );
  dir = workspace('local-apply-ic');
  planFile = join(dir, 'plan.json');
  const plan = runPlan(
    {
      modelName: MODEL,
      model: {
        ...modelConfig(),
        endpoint: ENDPOINT,
        kind: 'inference-component',
        inference_component: icBlock,
      },
      qmaxFile: anchorQmaxFile,
      ttotalFile: anchorTtotalFile,
      allowConfigMismatch: true,
      outFile: planFile,
      failOn: 'stop',
      priceSource: 'config',
    },
    { version: 'test' },
  );
  if (plan.exitCode !== 0) throw new Error(plan.report);
}, 120_000);

afterAll(async () => {
  await emulator?.close();
});

/** The artifact of a command that produced one. */
function must<T>(value: T | null | undefined): T {
  if (value === null || value === undefined) throw new Error('no artifact');
  return value;
}

const deps = () => ({ clients: emulator.clients });
const common = {
  modelName: MODEL,
  endpoint: ENDPOINT,
  variant: 'AllTraffic',
};

describe('local apply + validate of an inference-component plan', () => {
  it('validate names the undeployed copy scaling before apply, so a missing deploy is never clean', async () => {
    const r = await runValidate(
      { ...common, region: emulator.handle.region, planFile, outFile: join(dir, 'v0.json') },
      deps(),
    );
    expect(r.exitCode).toBe(1);
    const differing = differingRows(must(r.artifact).rows).map((row) => row.parameter);
    expect(differing).toEqual(
      expect.arrayContaining([
        'inference_component.copy.cpu_cores',
        'inference_component.container.environment.MAX_QUEUE_DEPTH',
        'inference_component.scalable_target.min_copies',
        'inference_component.copy_target.value',
        'inference_component.wake.alarm.threshold',
      ]),
    );
    // What is already as planned: the endpoint's managed instance scaling, the component's memory.
    expect(differing).not.toContain('inference_component.managed_instance_scaling.max_instances');
    expect(differing).not.toContain('inference_component.copy.memory_mb');
  });

  it('applies the plan through the AWS APIs and reads it back clean, then validate is clean too', async () => {
    const applied = await runLocalApply(
      { ...common, region: emulator.handle.region, planFile, pollIntervalMs: 100, updateTimeoutS: 20 },
      deps(),
    );
    expect(differingRows(must(applied.artifact).rows)).toEqual([]);
    expect(applied.exitCode).toBe(0);
    expect(applied.report).toMatch(/UpdateInferenceComponent speech-ic-ic -> model /);

    // Over the wire: the component's new specification and model environment.
    const { sagemaker, autoscaling, cloudwatch } = emulator.clients;
    const d = await sagemaker.send(
      new DescribeInferenceComponentCommand({ InferenceComponentName: COMPONENT }),
    );
    expect(d.Specification?.ComputeResourceRequirements).toEqual({
      NumberOfCpuCoresRequired: 2,
      MinMemoryRequiredInMb: 4096,
    });
    const model = await sagemaker.send(new DescribeModelCommand({ ModelName: d.Specification?.ModelName }));
    const plan = must(applied.artifact).plan;
    expect(plan.fingerprint?.inference_component?.copies_per_instance).toBe(2);
    expect(model.PrimaryContainer?.Environment?.MAX_QUEUE_DEPTH).not.toBe('8');
    const policies = await autoscaling.send(
      new DescribeScalingPoliciesCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: `inference-component/${COMPONENT}`,
      }),
    );
    const tracking = policies.ScalingPolicies?.find((p) => p.PolicyType === 'TargetTrackingScaling');
    expect(tracking?.TargetTrackingScalingPolicyConfiguration?.PredefinedMetricSpecification).toEqual({
      PredefinedMetricType: 'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution',
    });
    // Scale to zero: the tracking is scale-out only; copies go by the copy scale-in rule.
    expect(tracking?.TargetTrackingScalingPolicyConfiguration?.DisableScaleIn).toBe(true);
    const scaleIn = policies.ScalingPolicies?.find((p) => p.PolicyName?.endsWith('-copy-scale-in'));
    expect(scaleIn?.StepScalingPolicyConfiguration?.StepAdjustments?.map((a) => a.ScalingAdjustment)).toEqual(
      [-1, 0],
    );
    const scaleInAlarm = await cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNames: [`scalegate-${ENDPOINT}-${COMPONENT}-copy-scale-in`] }),
    );
    expect(scaleInAlarm.MetricAlarms?.[0]).toMatchObject({
      MetricName: 'ConcurrentRequestsPerCopy',
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: 15,
      TreatMissingData: 'notBreaching',
      AlarmActions: [scaleIn?.PolicyARN],
    });
    const wake = await cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNames: [`scalegate-${ENDPOINT}-${COMPONENT}-wake`] }),
    );
    expect(wake.MetricAlarms?.[0]).toMatchObject({
      MetricName: 'NoCapacityInvocationFailures',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
      Period: 60,
    });

    const v = await runValidate(
      { ...common, region: emulator.handle.region, planFile, outFile: join(dir, 'v1.json') },
      deps(),
    );
    expect(must(v.artifact).verdict).toBe('clean');
    expect(v.exitCode).toBe(0);
  }, 90_000);

  it('validate names a changed copy target, so a plan edited after deploy is caught', async () => {
    const edited = editedCopy(planFile, dir, 'plan-edited.json', (json) => {
      const ic = json.inference_component as { copy_target: { value: number } };
      ic.copy_target.value = ic.copy_target.value + 1;
    });
    const v = await runValidate(
      { ...common, region: emulator.handle.region, planFile: edited, outFile: join(dir, 'v2.json') },
      deps(),
    );
    expect(v.exitCode).toBe(1);
    expect(differingRows(must(v.artifact).rows).map((r) => [r.parameter, r.verdict])).toEqual([
      ['inference_component.copy_target.value', 'mismatch'],
    ]);
    expect(v.report).toContain('inference_component.copy_target.value');
  });

  it('validate names copy tracking whose scale-in was turned back on, which would undo a wake', async () => {
    const edited = editedCopy(planFile, dir, 'plan-scale-in.json', (json) => {
      const ic = json.inference_component as { copy_target: { disable_scale_in: boolean } };
      ic.copy_target.disable_scale_in = false;
    });
    const v = await runValidate(
      { ...common, region: emulator.handle.region, planFile: edited, outFile: join(dir, 'v-scale-in.json') },
      deps(),
    );
    expect(v.exitCode).toBe(1);
    expect(differingRows(must(v.artifact).rows).map((r) => [r.parameter, r.verdict])).toEqual([
      ['inference_component.copy_target.disable_scale_in', 'mismatch'],
    ]);
  });

  it('drift with the plan is clean after apply and names the changed copy target as drift', async () => {
    const run = (plan: string, name: string) =>
      runDrift(
        {
          config: readConfigFile(configFile),
          ...common,
          region: emulator.handle.region,
          planFile: plan,
          outFile: join(dir, name),
        },
        deps(),
      );
    // No traffic since the apply: the idle rule (no invocation in its minutes, missing data
    // counting as idle) takes the component to zero copies; drift is read once that change ended.
    const settled = await eventually(async () => {
      const d = await emulator.clients.sagemaker.send(
        new DescribeInferenceComponentCommand({ InferenceComponentName: COMPONENT }),
      );
      return d.InferenceComponentStatus === 'InService' && d.RuntimeConfig?.CurrentCopyCount === 0
        ? d
        : undefined;
    }, 90_000);
    expect(settled.RuntimeConfig).toEqual({ DesiredCopyCount: 0, CurrentCopyCount: 0 });
    const clean = await run(planFile, 'drift-0.json');
    expect(must(clean.artifact).findings.filter((f) => f.verdict !== 'ok')).toEqual([]);
    expect(must(clean.artifact).verdict).toBe('preflight-ok');
    const edited = editedCopy(planFile, dir, 'plan-edited-drift.json', (json) => {
      const ic = json.inference_component as { copy_target: { value: number } };
      ic.copy_target.value = ic.copy_target.value + 1;
    });
    const drifted = await run(edited, 'drift-1.json');
    expect(drifted.exitCode).toBe(1);
    expect(must(drifted.artifact).findings.find((f) => f.check === 'plan_parameters')?.detail).toBe(
      '1 parameter(s) differ from the plan: inference_component.copy_target.value',
    );
  });

  it('drift without a plan says an inference-component model is checked against its plan, never a variant check that cannot apply', async () => {
    const config = readConfigFile(configFile);
    const r = await runDrift(
      {
        config: {
          ...config,
          models: {
            [MODEL]: {
              ...modelConfig(),
              endpoint: ENDPOINT,
              kind: 'inference-component',
              inference_component: icBlock,
            },
          },
        },
        ...common,
        region: emulator.handle.region,
        outFile: join(dir, 'drift-noplan.json'),
      },
      deps(),
    );
    expect(r.exitCode).toBe(0);
    expect(must(r.artifact).findings.map((f) => [f.check, f.verdict])).toEqual([
      ['inference_component', 'warn'],
    ]);
  });
});
