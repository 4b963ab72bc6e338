import {
  DeleteScalingPolicyCommand,
  DeregisterScalableTargetCommand,
  DescribeScalableTargetsCommand,
  DescribeScalingActivitiesCommand,
  DescribeScalingPoliciesCommand,
  PutScalingPolicyCommand,
  type PutScalingPolicyCommandInput,
  RegisterScalableTargetCommand,
  type RegisterScalableTargetCommandInput,
  type ScalingActivity,
} from '@aws-sdk/client-application-auto-scaling';
import {
  DescribeAlarmsCommand,
  type MetricAlarm,
  PutMetricAlarmCommand,
  SetAlarmStateCommand,
} from '@aws-sdk/client-cloudwatch';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Harness, startHarness, T0, waitFor } from './harness.js';

const EP = 'speech-kokoro-82m';
const RID = `endpoint/${EP}/variant/AllTraffic`;
const KEY = {
  ServiceNamespace: 'sagemaker',
  ResourceId: RID,
  ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
} as const;
const CONCURRENCY = {
  namespace: 'AWS/SageMaker',
  metricName: 'ConcurrentRequestsPerModel',
  dimensions: { EndpointName: EP, VariantName: 'AllTraffic' },
};

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
  h.capacity.add(RID, 1);
});
afterEach(async () => {
  await h.close();
});

const register = (extra: Partial<RegisterScalableTargetCommandInput> = {}) =>
  h.aas.send(new RegisterScalableTargetCommand({ ...KEY, ...extra }));

async function putTargetTracking(
  config: Record<string, unknown> = {},
  name = 'concurrency-target',
): Promise<{ PolicyARN?: string; Alarms?: { AlarmName?: string }[] }> {
  return h.aas.send(
    new PutScalingPolicyCommand({
      ...KEY,
      PolicyName: name,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: 2,
        PredefinedMetricSpecification: {
          PredefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
        },
        ScaleOutCooldown: 60,
        DisableScaleIn: true,
        ...config,
      },
    } as PutScalingPolicyCommandInput),
  );
}

/** Concurrency samples for the `periods` 10 s periods that end at the clock's current period start. */
function pushConcurrency(value: number, periods = 3): void {
  const end = Math.floor(h.clock.t / 10_000) * 10_000;
  for (let i = 1; i <= periods; i++) h.metrics.push(CONCURRENCY, end - i * 10_000 + 1_000, value);
}

async function activities(): Promise<ScalingActivity[]> {
  return (
    await h.aas.send(new DescribeScalingActivitiesCommand({ ServiceNamespace: 'sagemaker', ResourceId: RID }))
  ).ScalingActivities as ScalingActivity[];
}

async function waitActivities(n: number, status?: string): Promise<ScalingActivity[]> {
  return waitFor(async () => {
    const list = await activities();
    return list.length === n && (!status || list[0]?.StatusCode === status) ? list : undefined;
  });
}

async function alarmsNamed(prefix: string): Promise<MetricAlarm[]> {
  return (await h.cw.send(new DescribeAlarmsCommand({ AlarmNamePrefix: prefix })))
    .MetricAlarms as MetricAlarm[];
}

describe('scalable targets', () => {
  it('register then describe returns min, max, role and the SuspendedState given (prevents thaw reading wrong flags)', async () => {
    const { ScalableTargetARN } = await register({
      MinCapacity: 1,
      MaxCapacity: 4,
      SuspendedState: { DynamicScalingInSuspended: true },
    });
    const out = await h.aas.send(
      new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker', ResourceIds: [RID] }),
    );
    expect(out.ScalableTargets).toHaveLength(1);
    expect(out.ScalableTargets?.[0]).toMatchObject({
      ...KEY,
      MinCapacity: 1,
      MaxCapacity: 4,
      ScalableTargetARN,
      SuspendedState: {
        DynamicScalingInSuspended: true,
        DynamicScalingOutSuspended: false,
        ScheduledScalingSuspended: false,
      },
    });
    expect(out.ScalableTargets?.[0]?.CreationTime?.getTime()).toBe(T0);
    expect(out.ScalableTargets?.[0]?.RoleARN).toMatch(
      /AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint$/,
    );
  });

  it('an update keeps min, max and suspension flags it does not mention (prevents a thaw clobbering other settings)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 4, SuspendedState: { DynamicScalingInSuspended: true } });
    await register({ MaxCapacity: 6, SuspendedState: { DynamicScalingOutSuspended: true } });
    const t = (await h.aas.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker' })))
      .ScalableTargets?.[0];
    expect(t).toMatchObject({
      MinCapacity: 1,
      MaxCapacity: 6,
      SuspendedState: {
        DynamicScalingInSuspended: true,
        DynamicScalingOutSuspended: true,
        ScheduledScalingSuspended: false,
      },
    });
  });

  it('a new target needs min and max, and the variant must exist (prevents registering nothing)', async () => {
    await expect(register({ MinCapacity: 1 })).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(
      h.aas.send(
        new RegisterScalableTargetCommand({
          ...KEY,
          ResourceId: 'endpoint/nope/variant/AllTraffic',
          MinCapacity: 1,
          MaxCapacity: 2,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    await expect(register({ MinCapacity: 3, MaxCapacity: 2 })).rejects.toMatchObject({
      name: 'ValidationException',
    });
    await expect(
      h.aas.send(
        new RegisterScalableTargetCommand({
          ...KEY,
          ServiceNamespace: 'ecs',
          MinCapacity: 1,
          MaxCapacity: 2,
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('raising MinCapacity above the desired count scales into range as an activity (prevents a target left below its minimum)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 4 });
    await register({ MinCapacity: 2 });
    const [act] = await waitActivities(1, 'InProgress');
    expect(act).toMatchObject({ Description: 'Setting desired instance count to 2.' });
    expect(act?.Cause).toMatch(/minimum capacity was set to 2/);
    h.capacity.catchUp(RID);
    await waitActivities(1, 'Successful');
  });

  it('operations on an unregistered target are ObjectNotFoundException (prevents drift treating absence as success)', async () => {
    await expect(h.aas.send(new DeregisterScalableTargetCommand(KEY))).rejects.toMatchObject({
      name: 'ObjectNotFoundException',
    });
    await expect(putTargetTracking()).rejects.toMatchObject({
      name: 'ObjectNotFoundException',
      message: `No scalable target registered for service namespace: sagemaker, resource ID: ${RID}, scalable dimension: sagemaker:variant:DesiredInstanceCount`,
    });
    await register({ MinCapacity: 1, MaxCapacity: 4 });
    await expect(
      h.aas.send(new DeleteScalingPolicyCommand({ ...KEY, PolicyName: 'nope' })),
    ).rejects.toMatchObject({
      name: 'ObjectNotFoundException',
    });
  });

  it('an unknown operation is refused naming it (prevents a silent 200)', async () => {
    await expect(h.autoScaling.applicationAutoScaling('TagResource', {})).rejects.toMatchObject({
      type: 'UnknownOperationException',
      message: 'Unknown operation TagResource',
    });
  });
});

describe('target tracking', () => {
  it('creates the managed alarms AWS creates and DescribeScalingPolicies returns them (prevents validate reading no alarms)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 4 });
    const put = await putTargetTracking({ DisableScaleIn: false, TargetValue: 4 });
    expect(put.Alarms).toHaveLength(2);
    const out = await h.aas.send(
      new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemaker', ResourceId: RID }),
    );
    const policy = out.ScalingPolicies?.[0];
    expect(policy).toMatchObject({
      PolicyName: 'concurrency-target',
      PolicyType: 'TargetTrackingScaling',
      PolicyARN: put.PolicyARN,
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: 4,
        ScaleOutCooldown: 60,
        DisableScaleIn: false,
      },
    });
    expect(put.PolicyARN).toMatch(
      new RegExp(
        `^arn:aws:autoscaling:us-east-1:123456789012:scalingPolicy:[0-9a-f-]{36}:resource/sagemaker/${RID}:policyName/concurrency-target$`,
      ),
    );
    const names = policy?.Alarms?.map((a) => a.AlarmName as string) ?? [];
    expect(names).toEqual(put.Alarms?.map((a) => a.AlarmName));
    const high = names.find((n) => n.includes('-AlarmHigh-')) as string;
    const low = names.find((n) => n.includes('-AlarmLow-')) as string;
    expect(high).toMatch(new RegExp(`^TargetTracking-${RID}-AlarmHigh-[0-9a-f-]{36}$`));
    const [highAlarm] = await alarmsNamed(high);
    const [lowAlarm] = await alarmsNamed(low);
    expect(highAlarm).toMatchObject({
      Namespace: 'AWS/SageMaker',
      MetricName: 'ConcurrentRequestsPerModel',
      Statistic: 'Maximum',
      Period: 10,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
      Threshold: 4,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [put.PolicyARN],
    });
    expect(highAlarm?.Dimensions).toEqual([
      { Name: 'EndpointName', Value: EP },
      { Name: 'VariantName', Value: 'AllTraffic' },
    ]);
    expect(lowAlarm).toMatchObject({
      Period: 10,
      EvaluationPeriods: 90,
      Threshold: 3.6,
      ComparisonOperator: 'LessThanThreshold',
    });
  });

  it('metric above target for 3 datapoints -> one scale-out to the proportional count, with AWS cause, then Successful (prevents wrong or missing activities)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    const put = await putTargetTracking();
    const high = put.Alarms?.[0]?.AlarmName as string;
    pushConcurrency(5); // 5 in flight on 1 instance, target 2 -> ceil(1 * 5 / 2) = 3
    const [act] = await waitActivities(1, 'InProgress');
    expect(act).toMatchObject({
      ...KEY,
      Description: 'Setting desired instance count to 3.',
      Cause: `monitor alarm ${high} in state ALARM triggered policy concurrency-target`,
    });
    expect(act?.StartTime?.getTime()).toBe(T0);
    expect(h.capacity.setDesiredCalls).toEqual([{ resourceId: RID, desired: 3 }]);
    h.capacity.catchUp(RID);
    const [done] = await waitActivities(1, 'Successful');
    expect(done?.StatusMessage).toBe(
      'Successfully set desired instance count to 3. Change successfully fulfilled by sagemaker.',
    );
    expect(done?.EndTime).toBeInstanceOf(Date);
  });

  it('2 of the 3 datapoints AlarmHigh needs above target -> no scale-out (prevents reacting to a short spike)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    await putTargetTracking();
    pushConcurrency(5, 2);
    h.metrics.push(CONCURRENCY, Math.floor(h.clock.t / 10_000) * 10_000 - 30_000 + 1_000, 1);
    await h.afterTicks(3);
    expect(await activities()).toEqual([]);
  });

  it('ScaleOutCooldown: no second scale-out within it, the next one after it (prevents scaling out again before capacity lands)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    await putTargetTracking({ ScaleOutCooldown: 60 });
    pushConcurrency(5);
    await waitActivities(1, 'InProgress');
    h.capacity.catchUp(RID);
    await waitActivities(1, 'Successful');
    // Load persists: AlarmHigh stays in ALARM and re-invokes the policy each new period.
    for (let i = 0; i < 3; i++) {
      h.clock.advance(10_000);
      pushConcurrency(5);
      await h.afterTicks(2);
    }
    expect(await activities()).toHaveLength(1);
    h.clock.advance(40_000); // 70 s after the activity ended
    pushConcurrency(5);
    const [second] = await waitActivities(2);
    // ceil(3 * 5 / 2) = 8
    expect(second?.Description).toBe('Setting desired instance count to 8.');
  });

  it('a larger scale-out during the cooldown adds only the difference (prevents ignoring a surge, as AWS does not)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    await putTargetTracking({ ScaleOutCooldown: 300 });
    pushConcurrency(5);
    await waitActivities(1, 'InProgress');
    h.capacity.catchUp(RID);
    await waitActivities(1, 'Successful');
    h.clock.advance(10_000);
    pushConcurrency(9); // from the pre-cooldown capacity 1: ceil(1 * 9 / 2) = 5 > 3
    const [second] = await waitActivities(2);
    expect(second?.Description).toBe('Setting desired instance count to 5.');
  });

  it('never exceeds MaxCapacity (prevents runaway fleets)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 2 });
    await putTargetTracking();
    pushConcurrency(40);
    const [act] = await waitActivities(1);
    expect(act?.Description).toBe('Setting desired instance count to 2.');
    h.capacity.catchUp(RID);
    await waitActivities(1, 'Successful');
    h.clock.advance(400_000);
    pushConcurrency(40);
    await h.afterTicks(3);
    expect(await activities()).toHaveLength(1);
  });

  it('DynamicScalingOutSuspended: no scale-out while suspended, resumes after (prevents a measurement freeze leaking capacity changes)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10, SuspendedState: { DynamicScalingOutSuspended: true } });
    const put = await putTargetTracking();
    pushConcurrency(5);
    await waitFor(
      async () => (await alarmsNamed(put.Alarms?.[0]?.AlarmName as string))[0]?.StateValue === 'ALARM',
    );
    h.clock.advance(10_000);
    pushConcurrency(5);
    await h.afterTicks(3);
    expect(await activities()).toEqual([]);
    await register({ SuspendedState: { DynamicScalingOutSuspended: false } });
    h.clock.advance(10_000);
    pushConcurrency(5);
    const [act] = await waitActivities(1);
    expect(act?.Description).toBe('Setting desired instance count to 3.');
  });

  it('DisableScaleIn: no AlarmLow and never scales in, even idle (prevents the scale-out policy removing capacity)', async () => {
    h.capacity.manualSet(RID, 3);
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    const put = await putTargetTracking({ DisableScaleIn: true });
    expect(put.Alarms?.map((a) => a.AlarmName)).toEqual([expect.stringContaining('-AlarmHigh-')]);
    expect(await alarmsNamed(`TargetTracking-${RID}-AlarmLow-`)).toEqual([]);
    for (let i = 0; i < 5; i++) {
      pushConcurrency(0);
      h.clock.advance(60_000);
    }
    await h.afterTicks(3);
    expect(await activities()).toEqual([]);
  });

  it('with scale-in enabled, AlarmLow scales in below 90 % of the target (prevents a one-way target tracking policy)', async () => {
    h.capacity.manualSet(RID, 4);
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    const put = await putTargetTracking({ DisableScaleIn: false, TargetValue: 4, ScaleInCooldown: 300 });
    const low = put.Alarms?.map((a) => a.AlarmName).find((n) => n?.includes('-AlarmLow-')) as string;
    pushConcurrency(2, 90); // 2 < 3.6 for the 90 periods AlarmLow needs
    const [act] = await waitActivities(1);
    // ceil(4 * 2 / 4) = 2
    expect(act).toMatchObject({
      Description: 'Setting desired instance count to 2.',
      Cause: `monitor alarm ${low} in state ALARM triggered policy concurrency-target`,
    });
  });

  it('DeleteScalingPolicy removes its managed alarms (prevents orphan alarms flagged by drift)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 4 });
    await putTargetTracking({ DisableScaleIn: false });
    expect(await alarmsNamed('TargetTracking-')).toHaveLength(2);
    await h.aas.send(new DeleteScalingPolicyCommand({ ...KEY, PolicyName: 'concurrency-target' }));
    expect(await alarmsNamed('TargetTracking-')).toEqual([]);
    const out = await h.aas.send(new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemaker' }));
    expect(out.ScalingPolicies).toEqual([]);
  });

  it('updating a policy keeps its ARN and alarm names and drops AlarmLow when scale-in gets disabled (prevents alarm churn)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 4 });
    const first = await putTargetTracking({ DisableScaleIn: false });
    const second = await putTargetTracking({ DisableScaleIn: true, TargetValue: 3 });
    expect(second.PolicyARN).toBe(first.PolicyARN);
    expect(second.Alarms?.map((a) => a.AlarmName)).toEqual([first.Alarms?.[0]?.AlarmName]);
    const [high] = await alarmsNamed('TargetTracking-');
    expect(high?.Threshold).toBe(3);
    expect(await alarmsNamed('TargetTracking-')).toHaveLength(1);
  });

  it('DeregisterScalableTarget deletes its policies and their alarms (prevents policies outliving their target)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 4 });
    await putTargetTracking({ DisableScaleIn: false });
    await h.aas.send(new DeregisterScalableTargetCommand(KEY));
    expect(await alarmsNamed('TargetTracking-')).toEqual([]);
    expect(
      (await h.aas.send(new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemaker' })))
        .ScalingPolicies,
    ).toEqual([]);
    expect(
      (await h.aas.send(new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker' })))
        .ScalableTargets,
    ).toEqual([]);
  });

  it('rejects metric math and unknown predefined metrics clearly (prevents policies that can never act)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 4 });
    await expect(
      putTargetTracking({
        PredefinedMetricSpecification: undefined,
        CustomizedMetricSpecification: { Metrics: [{ Id: 'm1', Expression: 'a+b' }] },
      }),
    ).rejects.toMatchObject({ name: 'ValidationException', message: expect.stringMatching(/Metric math/) });
    await expect(
      putTargetTracking({
        PredefinedMetricSpecification: { PredefinedMetricType: 'ECSServiceAverageCPUUtilization' },
      }),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });
});

describe('step scaling', () => {
  async function putStepScaleIn(cooldown: number): Promise<string> {
    const out = await h.aas.send(
      new PutScalingPolicyCommand({
        ...KEY,
        PolicyName: 'scale-in',
        PolicyType: 'StepScaling',
        StepScalingPolicyConfiguration: {
          AdjustmentType: 'ChangeInCapacity',
          StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }],
          Cooldown: cooldown,
          MetricAggregationType: 'Maximum',
        },
      }),
    );
    return out.PolicyARN as string;
  }

  async function putScaleInAlarm(policyArn: string): Promise<void> {
    await h.cw.send(
      new PutMetricAlarmCommand({
        AlarmName: 'concurrency-low',
        Namespace: 'AWS/SageMaker',
        MetricName: 'ConcurrentRequestsPerModel',
        Dimensions: [
          { Name: 'EndpointName', Value: EP },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 2,
        Threshold: 1,
        ComparisonOperator: 'LessThanOrEqualToThreshold',
        TreatMissingData: 'breaching',
        AlarmActions: [policyArn],
      }),
    );
  }

  it('an idle endpoint (no data, missing = breaching) scales in by 1 per Cooldown down to MinCapacity (prevents a fleet that never shrinks)', async () => {
    h.capacity.manualSet(RID, 3);
    await register({ MinCapacity: 1, MaxCapacity: 5 });
    const arn = await putStepScaleIn(120);
    await putScaleInAlarm(arn);
    const [first] = await waitActivities(1, 'InProgress');
    expect(first).toMatchObject({
      Description: 'Setting desired instance count to 2.',
      Cause: 'monitor alarm concurrency-low in state ALARM triggered policy scale-in',
    });
    h.capacity.catchUp(RID);
    await waitActivities(1, 'Successful');

    h.clock.advance(60_000); // next period: the alarm re-invokes the policy, still in cooldown
    await h.afterTicks(3);
    expect(await activities()).toHaveLength(1);

    h.clock.advance(60_000); // 120 s after the activity ended
    const [second] = await waitActivities(2, 'InProgress');
    expect(second?.Description).toBe('Setting desired instance count to 1.');
    h.capacity.catchUp(RID);
    await waitActivities(2, 'Successful');

    h.clock.advance(300_000); // at MinCapacity: nothing more to remove
    await h.afterTicks(3);
    expect(await activities()).toHaveLength(2);
  });

  it('DescribeScalingPolicies lists the alarm that invokes a step policy; deleting the policy leaves the alarm without the action (prevents dangling actions)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 5 });
    const arn = await putStepScaleIn(300);
    await putScaleInAlarm(arn);
    const out = await h.aas.send(
      new DescribeScalingPoliciesCommand({ ServiceNamespace: 'sagemaker', PolicyNames: ['scale-in'] }),
    );
    expect(out.ScalingPolicies?.[0]?.Alarms?.map((a) => a.AlarmName)).toEqual(['concurrency-low']);
    expect(out.ScalingPolicies?.[0]?.StepScalingPolicyConfiguration).toMatchObject({
      AdjustmentType: 'ChangeInCapacity',
      StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }],
      Cooldown: 300,
    });
    await h.aas.send(new DeleteScalingPolicyCommand({ ...KEY, PolicyName: 'scale-in' }));
    const [alarm] = await alarmsNamed('concurrency-low');
    expect(alarm?.AlarmActions).toEqual([]);
  });

  it('step intervals are relative to the threshold and pick the matching step (prevents applying the wrong adjustment)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    const out = await h.aas.send(
      new PutScalingPolicyCommand({
        ...KEY,
        PolicyName: 'steps-out',
        PolicyType: 'StepScaling',
        StepScalingPolicyConfiguration: {
          AdjustmentType: 'ChangeInCapacity',
          StepAdjustments: [
            { MetricIntervalLowerBound: 0, MetricIntervalUpperBound: 10, ScalingAdjustment: 1 },
            { MetricIntervalLowerBound: 10, ScalingAdjustment: 3 },
          ],
          Cooldown: 60,
        },
      }),
    );
    await h.cw.send(
      new PutMetricAlarmCommand({
        AlarmName: 'concurrency-high',
        Namespace: 'AWS/SageMaker',
        MetricName: 'ConcurrentRequestsPerModel',
        Dimensions: [
          { Name: 'EndpointName', Value: EP },
          { Name: 'VariantName', Value: 'AllTraffic' },
        ],
        Statistic: 'Maximum',
        Period: 10,
        EvaluationPeriods: 1,
        Threshold: 5,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        AlarmActions: [out.PolicyARN as string],
      }),
    );
    pushConcurrency(15, 1); // 15 - 5 = 10: the second step (lower bound inclusive above the threshold)
    const [act] = await waitActivities(1);
    expect(act?.Description).toBe('Setting desired instance count to 4.');
  });

  it('rejects step adjustments with a gap (prevents ambiguous policies)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    await expect(
      h.aas.send(
        new PutScalingPolicyCommand({
          ...KEY,
          PolicyName: 'gappy',
          PolicyType: 'StepScaling',
          StepScalingPolicyConfiguration: {
            AdjustmentType: 'ChangeInCapacity',
            StepAdjustments: [
              { MetricIntervalLowerBound: 0, MetricIntervalUpperBound: 5, ScalingAdjustment: 1 },
              { MetricIntervalLowerBound: 6, ScalingAdjustment: 2 },
            ],
          },
        }),
      ),
    ).rejects.toMatchObject({ name: 'ValidationException' });
  });

  it('SetAlarmState to ALARM invokes the step policy as a real transition does (prevents a test hook that does nothing)', async () => {
    h.capacity.manualSet(RID, 2);
    await register({ MinCapacity: 1, MaxCapacity: 5 });
    const arn = await putStepScaleIn(300);
    await h.cw.send(
      new PutMetricAlarmCommand({
        AlarmName: 'manual-low',
        Namespace: 'AWS/SageMaker',
        MetricName: 'ConcurrentRequestsPerModel',
        Statistic: 'Maximum',
        Period: 60,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'LessThanOrEqualToThreshold',
        AlarmActions: [arn],
      }),
    );
    await h.cw.send(
      new SetAlarmStateCommand({ AlarmName: 'manual-low', StateValue: 'ALARM', StateReason: 'test' }),
    );
    const [act] = await waitActivities(1);
    expect(act?.Description).toBe('Setting desired instance count to 1.');
  });
});

describe('activities', () => {
  it('a manual capacity change is not an activity (prevents inventing activities AWS never records)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    await putTargetTracking();
    h.capacity.manualSet(RID, 4);
    await h.afterTicks(3);
    h.capacity.manualSet(RID, 2);
    await h.afterTicks(3);
    expect(await activities()).toEqual([]);
  });

  it('a capacity change the endpoint refuses is a Failed activity with the reason (prevents reporting success that did not happen)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    await putTargetTracking();
    h.capacity.failNext = new Error('Cannot update in-progress endpoint');
    pushConcurrency(5);
    const [act] = await waitActivities(1, 'Failed');
    expect(act?.StatusMessage).toBe(
      'Failed to set desired instance count to 3. Reason: Cannot update in-progress endpoint',
    );
  });

  it('are listed newest first and paginate (prevents ttotal reading a stale activity)', async () => {
    await register({ MinCapacity: 1, MaxCapacity: 10 });
    for (const min of [2, 3, 4]) {
      await register({ MinCapacity: min });
      await waitActivities(min - 1, 'InProgress');
      h.capacity.catchUp(RID);
      await waitActivities(min - 1, 'Successful');
    }
    const firstPage = await h.aas.send(
      new DescribeScalingActivitiesCommand({ ServiceNamespace: 'sagemaker', ResourceId: RID, MaxResults: 2 }),
    );
    expect(firstPage.ScalingActivities?.map((a) => a.Description)).toEqual([
      'Setting desired instance count to 4.',
      'Setting desired instance count to 3.',
    ]);
    const rest = await h.aas.send(
      new DescribeScalingActivitiesCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: RID,
        NextToken: firstPage.NextToken,
      }),
    );
    expect(rest.ScalingActivities?.map((a) => a.Description)).toEqual([
      'Setting desired instance count to 2.',
    ]);
    expect(rest.NextToken).toBeUndefined();
  });
});
