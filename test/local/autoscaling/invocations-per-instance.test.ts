/**
 * An InvocationsPerInstance plan on the local SageMaker's Application Auto Scaling and CloudWatch
 * alarms, fed by the real metric store (VariantMetrics records 1/instances per invocation), on a
 * fake clock: the policy scalegate deploys (applyScalingShape of expectedPolicyShape, real SDK
 * clients) acts on AWS's evaluation rules for the 60 s Sum: target tracking's AlarmHigh on 3 of 3
 * one-minute datapoints above the target, scalegate's scale-in alarm on 15 of 15 at or below the
 * threshold.
 */
import {
  DescribeScalingActivitiesCommand,
  DescribeScalingPoliciesCommand,
  type ScalingActivity,
} from '@aws-sdk/client-application-auto-scaling';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyScalingShape } from '../../../src/aws/policy.js';
import { MetricStore, VariantMetrics } from '../../../src/local/metrics.js';
import { expectedPolicyShape } from '../../../src/plan/policy-shape.js';
import { kokoroPlan } from '../../infra/fixtures.js';
import { FakeClock, type Harness, startHarness, T0, waitFor } from './harness.js';

const EP = 'speech-kokoro-82m';
const VARIANT = 'AllTraffic';
const RID = `endpoint/${EP}/variant/${VARIANT}`;
const target = { modelName: 'kokoro-82m', endpoint: EP, variant: VARIANT };
// Target 700 and scale-in threshold 450 invocations per minute per instance.
const plan = kokoroPlan({
  deployable: {
    scaling_metric: 'InvocationsPerInstance',
    scaling_target_value: 700,
    scale_in_threshold: 450,
  },
});
const shape = expectedPolicyShape(target, plan);
const MINUTE = 60_000;

let h: Harness;
let clock: FakeClock;
let variant: VariantMetrics;
beforeEach(async () => {
  clock = new FakeClock(T0);
  const store = new MetricStore({ now: clock.now });
  h = await startHarness({ clock, metrics: store });
  h.capacity.add(RID, 2);
  variant = new VariantMetrics(store, EP, VARIANT, () => h.capacity.describe(RID)?.current ?? 0);
});
afterEach(async () => {
  await h.close();
});

/** One minute of traffic: `perInstance` invocations per instance (at 2 instances), then the minute ends. */
function minuteOf(perInstance: number): void {
  const instances = h.capacity.describe(RID)?.current ?? 0;
  clock.advance(1_000);
  for (let k = 0; k < perInstance * instances; k++) variant.invocation('ok', 1000);
  clock.advance(MINUTE - 1_000);
}

const activities = async (): Promise<ScalingActivity[]> =>
  (await h.aas.send(new DescribeScalingActivitiesCommand({ ServiceNamespace: 'sagemaker', ResourceId: RID })))
    .ScalingActivities ?? [];

/** 15 minutes between the thresholds (600 per instance), then the policy is deployed: nothing fires. */
async function deployAfterSteadyTraffic(): Promise<void> {
  for (let m = 0; m < 15; m++) minuteOf(600);
  await applyScalingShape({ autoscaling: h.aas, cloudwatch: h.cw }, shape);
  await h.afterTicks(3);
  expect(await activities()).toEqual([]);
}

describe('local Application Auto Scaling on InvocationsPerInstance (Sum per 60 s)', () => {
  it('creates target tracking managed alarms on InvocationsPerInstance Sum per 60 s, 3 high / 15 low (prevents tracking the metric at another period or statistic than AWS)', async () => {
    await applyScalingShape({ autoscaling: h.aas, cloudwatch: h.cw }, shape);
    const out = await h.aas.send(
      new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemaker', ResourceId: RID }),
    );
    const tracking = out.ScalingPolicies?.find((p) => p.PolicyType === 'TargetTrackingScaling');
    const high = tracking?.Alarms?.find((a) => a.AlarmName?.includes('-AlarmHigh-'))?.AlarmName as string;
    const [alarm] = (await h.cw.send(new DescribeAlarmsCommand({ AlarmNames: [high] }))).MetricAlarms ?? [];
    expect(alarm).toMatchObject({
      Namespace: 'AWS/SageMaker',
      MetricName: 'InvocationsPerInstance',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 3,
      Threshold: 700,
      ComparisonOperator: 'GreaterThanThreshold',
    });
    // DisableScaleIn: scalegate's own step policy scales in, so there is no AlarmLow.
    expect(tracking?.Alarms).toHaveLength(1);
  });

  it('scales out only after 3 of 3 one-minute Sums per instance above the target, to the proportional count (prevents reacting to one busy minute or missing a sustained one)', async () => {
    await deployAfterSteadyTraffic();
    minuteOf(750);
    await h.afterTicks(3);
    minuteOf(750);
    await h.afterTicks(3);
    expect(await activities()).toEqual([]);
    minuteOf(750);
    const [act] = await waitFor(async () => {
      const list = await activities();
      return list.length > 0 ? list : undefined;
    });
    // 750 invocations per minute per instance on 2 instances, target 700: ceil(2 x 750 / 700) = 3.
    expect(act?.Description).toBe('Setting desired instance count to 3.');
    expect(act?.Cause).toContain('TargetTracking-');
    expect(h.capacity.setDesiredCalls).toEqual([{ resourceId: RID, desired: 3 }]);
  });

  it('scales in one instance only after 15 of 15 one-minute Sums per instance at or below the threshold (prevents shrinking on 14 quiet minutes)', async () => {
    await deployAfterSteadyTraffic();
    for (let m = 0; m < 14; m++) minuteOf(400);
    await h.afterTicks(3);
    expect(await activities()).toEqual([]);
    minuteOf(400);
    const [act] = await waitFor(async () => {
      const list = await activities();
      return list.length > 0 ? list : undefined;
    });
    expect(act?.Description).toBe('Setting desired instance count to 1.');
    expect(act?.Cause).toBe(
      `monitor alarm ${shape.scaleIn.alarm.alarmName} in state ALARM triggered policy ${shape.scaleIn.policyName}`,
    );
  });
});
