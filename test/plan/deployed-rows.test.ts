/**
 * The deployed policy as rows, pure: what AWS leaves unset must read as AWS's documented default
 * (or a policy deployed without DisableScaleIn would compare as "missing"), orphans must be named,
 * and only the alarms that start a scale-out may set the detection lag.
 */
import type { ScalingPolicy } from '@aws-sdk/client-application-auto-scaling';
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import {
  type DeployedPolicyState,
  flattenDeployedPolicy,
  orphanAlarms,
  orphanPolicies,
  scaleOutAlarmTimings,
  scaleOutPolicies,
} from '../../src/plan/deployed-rows.js';
import { policyNames } from '../../src/plan/policy-shape.js';

const names = policyNames('speech-x', 'AllTraffic');

function state(overrides: Partial<DeployedPolicyState> = {}): DeployedPolicyState {
  return {
    endpoint: 'speech-x',
    variant: 'AllTraffic',
    resourceId: 'endpoint/speech-x/variant/AllTraffic',
    capacity: { endpointStatus: 'InService', desired: 1, current: 1, failureReason: null },
    deployment: {
      instanceType: 'ml.g5.xlarge',
      image: `r.dkr.ecr.us-east-1.amazonaws.com/x@sha256:${'a'.repeat(64)}`,
      environment: { MAX_QUEUE_DEPTH: '50' },
      routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
    },
    endpointError: null,
    scalableTarget: {
      ResourceId: 'endpoint/speech-x/variant/AllTraffic',
      MinCapacity: 1,
      MaxCapacity: 4,
    } as never,
    policies: [],
    alarms: new Map(),
    ...overrides,
  };
}

const row = (rows: { parameter: string; value: unknown }[], parameter: string) =>
  rows.find((r) => r.parameter === parameter)?.value;

describe('deployed rows', () => {
  it("reads fields AWS leaves unset as AWS's documented defaults, and a missing resource as null", () => {
    const scaleOut: ScalingPolicy = {
      PolicyName: names.scaleOutPolicy,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: { TargetValue: 37.5 },
    } as ScalingPolicy;
    const alarm: MetricAlarm = { AlarmName: names.errors5xxAlarm, EvaluationPeriods: 3 };
    const rows = flattenDeployedPolicy(
      state({ policies: [scaleOut], alarms: new Map([[names.errors5xxAlarm, alarm]]) }),
    );
    expect(row(rows, 'scale_out.disable_scale_in')).toBe(false);
    expect(row(rows, 'scale_out.target_value')).toBe(37.5);
    expect(row(rows, 'scalable_target.suspended.dynamic_scaling_in')).toBe(false);
    expect(row(rows, 'alarms.errors_5xx.datapoints_to_alarm')).toBe(3);
    expect(row(rows, 'alarms.errors_5xx.missing_data')).toBe('missing');
    expect(row(rows, 'container.max_queue_depth')).toBe(50);
    expect(row(rows, 'deployment.image_digest')).toBe('a'.repeat(64));
    expect(row(rows, 'scale_in.policy_name')).toBeNull();
    expect(row(rows, 'alarms.queue_saturation.name')).toBeNull();
    expect(
      row(flattenDeployedPolicy(state({ scalableTarget: null })), 'scalable_target.min_capacity'),
    ).toBeNull();
  });

  it('names every policy and scalegate alarm the shape does not declare, as extra rows', () => {
    const foreign = { PolicyName: 'left-over', PolicyType: 'StepScaling' } as ScalingPolicy;
    const declared = { PolicyName: names.scaleInPolicy, PolicyType: 'StepScaling' } as ScalingPolicy;
    const stray: MetricAlarm = { AlarmName: 'scalegate-speech-x-AllTraffic-old', MetricName: 'Invocations' };
    const other: MetricAlarm = { AlarmName: 'someone-elses-alarm' };
    const s = state({
      policies: [foreign, declared],
      alarms: new Map([
        [stray.AlarmName as string, stray],
        [other.AlarmName as string, other],
      ]),
    });
    expect(orphanPolicies(s).map((p) => p.PolicyName)).toEqual(['left-over']);
    expect(orphanAlarms(s).map((a) => a.AlarmName)).toEqual(['scalegate-speech-x-AllTraffic-old']);
    const rows = flattenDeployedPolicy(s);
    expect(row(rows, 'orphan.policy.left-over')).toBe('StepScaling');
    expect(row(rows, 'orphan.alarm.scalegate-speech-x-AllTraffic-old')).toBe('Invocations');
  });
});

describe('the alarms that start a scale-out', () => {
  it('keeps target tracking and positive step policies, and only their GreaterThan alarms', () => {
    const tracking = {
      PolicyName: 'tt',
      PolicyType: 'TargetTrackingScaling',
      Alarms: [{ AlarmName: 'tt-high' }, { AlarmName: 'tt-low' }],
    } as ScalingPolicy;
    const stepIn = {
      PolicyName: 'in',
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: { StepAdjustments: [{ ScalingAdjustment: -1 }] },
      Alarms: [{ AlarmName: 'in-alarm' }],
    } as ScalingPolicy;
    const stepOut = {
      PolicyName: 'out',
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: { StepAdjustments: [{ ScalingAdjustment: 2 }] },
      Alarms: [{ AlarmName: 'out-alarm' }],
    } as ScalingPolicy;
    const scaleOut = scaleOutPolicies([tracking, stepIn, stepOut]);
    expect(scaleOut.map((p) => p.PolicyName)).toEqual(['tt', 'out']);
    const timings = scaleOutAlarmTimings(scaleOut, [
      { AlarmName: 'tt-high', ComparisonOperator: 'GreaterThanThreshold', Period: 60, EvaluationPeriods: 3 },
      { AlarmName: 'tt-low', ComparisonOperator: 'LessThanThreshold', Period: 60, EvaluationPeriods: 15 },
      {
        AlarmName: 'out-alarm',
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        Period: 10,
        EvaluationPeriods: 5,
        DatapointsToAlarm: 2,
      },
      { AlarmName: 'in-alarm', ComparisonOperator: 'GreaterThanThreshold', Period: 10, EvaluationPeriods: 1 },
    ]);
    expect(timings).toEqual([
      { policyName: 'tt', alarmName: 'tt-high', periodS: 60, datapointsToAlarm: 3 },
      { policyName: 'out', alarmName: 'out-alarm', periodS: 10, datapointsToAlarm: 2 },
    ]);
  });
});

describe('deployed rows of an InvocationsPerInstance policy', () => {
  it('reads target tracking on SageMakerVariantInvocationsPerInstance and a Sum scale-in alarm back under the same rows as the shape (prevents validate calling an invocations policy missing or concurrency)', () => {
    const scaleIn = {
      PolicyName: names.scaleInPolicy,
      PolicyType: 'StepScaling',
      PolicyARN: 'arn:scale-in',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ChangeInCapacity',
        StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }],
        Cooldown: 960,
        MetricAggregationType: 'Maximum',
      },
    } as ScalingPolicy;
    const scaleOut = {
      PolicyName: names.scaleOutPolicy,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: 700,
        PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        DisableScaleIn: true,
      },
    } as ScalingPolicy;
    const alarm: MetricAlarm = {
      AlarmName: names.scaleInAlarm,
      Namespace: 'AWS/SageMaker',
      MetricName: 'InvocationsPerInstance',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 15,
      Threshold: 450,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: ['arn:scale-in'],
    };
    const rows = flattenDeployedPolicy(
      state({ policies: [scaleOut, scaleIn], alarms: new Map([[names.scaleInAlarm, alarm]]) }),
    );
    expect(row(rows, 'scale_out.metric')).toBe('SageMakerVariantInvocationsPerInstance');
    expect(row(rows, 'scale_out.target_value')).toBe(700);
    expect(row(rows, 'scale_in.alarm.metric')).toBe('InvocationsPerInstance');
    expect(row(rows, 'scale_in.alarm.statistic')).toBe('Sum');
    expect(row(rows, 'scale_in.alarm.period_s')).toBe(60);
    expect(row(rows, 'scale_in.alarm.datapoints_to_alarm')).toBe(15);
    expect(row(rows, 'scale_in.alarm.invokes_policy')).toBe(true);
  });
});
