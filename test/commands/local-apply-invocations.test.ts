/**
 * A plan that tracks InvocationsPerInstance, end to end on the local SageMaker with real SDK
 * clients: `local apply` deploys target tracking on SageMakerVariantInvocationsPerInstance and the
 * InvocationsPerInstance Sum alarms, validate reads them back clean; and validate names the
 * metric when what is deployed tracks another one than the plan says, even at equal numbers.
 */

import { join } from 'node:path';
import { DescribeScalingPoliciesCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { applyScalingShape } from '../../src/aws/policy.js';
import { runLocalApply } from '../../src/commands/local-apply.js';
import { loadPlanShape, runValidate } from '../../src/commands/validate.js';
import { differingRows } from '../../src/plan/policy-diff.js';
import {
  type Emulator,
  editedCopy,
  emulatorPlanFile,
  MODEL,
  serialContainer,
  startEmulator,
  workspace,
} from './local-apply-fixtures.js';

let emulator: Emulator;
let dir: string;
let concurrencyPlan: string;
let invocationsPlan: string;
/** InvocationsPerInstance, with the concurrency plan's very numbers (only the metric differs). */
let sameNumbersPlan: string;

beforeAll(async () => {
  // MAX_QUEUE_DEPTH already the plan's (Q_max 50): applying changes no instance.
  emulator = await startEmulator({ maxQueueDepth: 50, container: serialContainer });
  dir = workspace('local-apply-invocations');
  concurrencyPlan = await emulatorPlanFile(emulator, dir);
  invocationsPlan = editedCopy(concurrencyPlan, dir, 'plan-invocations.json', (json) => {
    const d = json.deployable as Record<string, unknown>;
    d.scaling_metric = 'InvocationsPerInstance';
    d.scaling_target_value = 700; // invocations per minute per instance
    d.scale_in_threshold = 450;
  });
  sameNumbersPlan = editedCopy(concurrencyPlan, dir, 'plan-same-numbers.json', (json) => {
    (json.deployable as Record<string, unknown>).scaling_metric = 'InvocationsPerInstance';
  });
});

afterAll(async () => {
  await emulator?.close();
});

beforeEach(() => emulator.handle.reset());

const deps = () => ({ clients: emulator.clients });
const input = (planFile: string) => ({
  modelName: MODEL,
  endpoint: emulator.handle.endpointName,
  variant: emulator.handle.variantName,
  region: emulator.handle.region,
  planFile,
});
const shapeOf = (planFile: string) =>
  loadPlanShape(MODEL, planFile, emulator.handle.endpointName, emulator.handle.variantName).shape;

describe('an InvocationsPerInstance plan on the local SageMaker', () => {
  it('local apply deploys target tracking on SageMakerVariantInvocationsPerInstance and InvocationsPerInstance Sum alarms, and validate reads them back clean (prevents deploying the concurrency metric for a plan in invocations per minute)', async () => {
    const applied = await runLocalApply({ ...input(invocationsPlan), pollIntervalMs: 100 }, deps());
    expect(differingRows(applied.artifact?.rows ?? [])).toEqual([]);
    expect(applied.exitCode).toBe(0);

    const validated = await runValidate(
      { ...input(invocationsPlan), outFile: join(dir, 'validate-invocations.json') },
      deps(),
    );
    expect(validated.exitCode).toBe(0);
    expect(validated.artifact?.verdict).toBe('clean');
    const deployed = (parameter: string) =>
      validated.artifact?.rows.find((r) => r.parameter === parameter)?.deployed;
    expect(deployed('scale_out.metric')).toBe('SageMakerVariantInvocationsPerInstance');
    expect(deployed('scale_out.target_value')).toBe(700);
    expect(deployed('scale_in.alarm.metric')).toBe('InvocationsPerInstance');
    expect(deployed('scale_in.alarm.statistic')).toBe('Sum');
    expect(deployed('scale_in.alarm.period_s')).toBe(60);
    expect(deployed('scale_in.alarm.threshold')).toBe(450);
    expect(deployed('alarms.concurrency_above_target.metric')).toBe('InvocationsPerInstance');

    // The local SageMaker's target tracking created AWS's managed alarm on the 60 s Sum.
    const shape = shapeOf(invocationsPlan);
    const policies = await emulator.clients.autoscaling.send(
      new DescribeScalingPoliciesCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: shape.scalableTarget.resourceId,
      }),
    );
    const tracking = policies.ScalingPolicies?.find((p) => p.PolicyName === shape.scaleOut.policyName);
    const highName = tracking?.Alarms?.find((a) => a.AlarmName?.includes('AlarmHigh'))?.AlarmName as string;
    const [high] =
      (await emulator.clients.cloudwatch.send(new DescribeAlarmsCommand({ AlarmNames: [highName] })))
        .MetricAlarms ?? [];
    expect(high).toMatchObject({
      MetricName: 'InvocationsPerInstance',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 3,
      Threshold: 700,
    });
  });

  it('validate names the metric when the deployed policy tracks ConcurrentRequestsPerModel but the plan says InvocationsPerInstance, even at equal numbers (prevents a clean verdict for a target in the wrong units)', async () => {
    await applyScalingShape(emulator.clients, shapeOf(concurrencyPlan));
    const result = await runValidate(
      { ...input(sameNumbersPlan), outFile: join(dir, 'validate-changed-metric.json') },
      deps(),
    );
    expect(result.exitCode).toBe(1);
    expect(result.artifact?.verdict).toBe('mismatch');
    const differing = differingRows(result.artifact?.rows ?? []);
    expect(differing.map((r) => r.parameter)).toEqual([
      'scale_out.metric',
      'scale_in.alarm.metric',
      'scale_in.alarm.statistic',
      'alarms.concurrency_above_target.metric',
      'alarms.concurrency_above_target.statistic',
    ]);
    expect(differing[0]).toMatchObject({
      expected: 'SageMakerVariantInvocationsPerInstance',
      deployed: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
    });
    expect(result.report).toContain('scale_out.metric');
  });
});
