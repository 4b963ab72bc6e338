/**
 * A tuned plan's scheduled actions and step scale-out in the one policy shape: names prefixed
 * per endpoint and variant, every number from the plan, rows validate and drift diff (a changed,
 * missing or extra scheduled action is named by its row), and none of it for a plan without them.
 */
import type { ScalingPolicy, ScheduledAction } from '@aws-sdk/client-application-auto-scaling';
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import type { PlanArtifact } from '../../src/model/index.js';
import { type DeployedPolicyState, flattenDeployedPolicy } from '../../src/plan/deployed-rows.js';
import { diffPolicyRows, expectedRows } from '../../src/plan/policy-diff.js';
import { expectedPolicyShape, flattenPolicyShape } from '../../src/plan/policy-shape.js';
import { TUNED_POLICY } from '../helpers/tune-data.js';
import { kokoroPlan } from '../infra/fixtures.js';

const target = { modelName: 'kokoro-82m', endpoint: 'speech-kokoro-82m', variant: 'AllTraffic' };
const prefix = 'scalegate-speech-kokoro-82m-AllTraffic-';

const PLAIN = kokoroPlan();

function tunedPlan(): PlanArtifact {
  const plan = PLAIN;
  return {
    ...plan,
    deployable: {
      ...plan.deployable,
      scheduled_actions: TUNED_POLICY.scheduled_actions,
      step_scale_out: TUNED_POLICY.step_scale_out,
    },
  };
}

const isTunedRow = (parameter: string) =>
  parameter.startsWith('scheduled_action.') || parameter.startsWith('step_scale_out.');

describe('policy shape of a tuned plan', () => {
  const shape = expectedPolicyShape(target, tunedPlan());

  it('prefixes each scheduled action with scalegate-<endpoint>-<variant>- in UTC, min and max from the plan (prevents two variants overwriting each other or a local-time schedule)', () => {
    expect(shape.scheduledActions).toEqual([
      {
        scheduledActionName: `${prefix}morning-ramp`,
        schedule: 'cron(30 7 * * ? *)',
        timezone: 'UTC',
        minCapacity: 40,
        maxCapacity: 500,
      },
      {
        scheduledActionName: `${prefix}night-floor`,
        schedule: 'cron(0 22 * * ? *)',
        timezone: 'UTC',
        minCapacity: 2,
        maxCapacity: 500,
      },
    ]);
  });

  it('makes the step scale-out a StepScaling policy with Maximum aggregation and an alarm on the tracked metric > threshold (prevents a step policy on another metric or statistic than its threshold)', () => {
    expect(shape.stepScaleOut).toMatchObject({
      policyName: `${prefix}step-scale-out`,
      policyType: 'StepScaling',
      adjustmentType: 'ChangeInCapacity',
      cooldownS: 120,
      metricAggregationType: 'Maximum',
      steps: [
        { metricIntervalLowerBound: 0, metricIntervalUpperBound: 4, scalingAdjustment: 2 },
        { metricIntervalLowerBound: 4, metricIntervalUpperBound: null, scalingAdjustment: 5 },
      ],
    });
    expect(shape.stepScaleOut?.alarm).toMatchObject({
      alarmName: `${prefix}step-scale-out`,
      namespace: 'AWS/SageMaker',
      metricName: 'ConcurrentRequestsPerModel',
      statistic: 'Maximum',
      periodS: 60,
      evaluationPeriods: 1,
      datapointsToAlarm: 1,
      threshold: 8,
      comparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('flattens them into rows after the plain ones, each name unique (prevents validate missing a changed scheduled action)', () => {
    const rows = flattenPolicyShape(shape);
    const plain = flattenPolicyShape(expectedPolicyShape(target, PLAIN));
    expect(new Set(rows.map((r) => r.parameter)).size).toBe(rows.length);
    expect(rows.slice(0, plain.length)).toEqual(plain);
    const tuned = rows.slice(plain.length);
    // 4 per scheduled action, 6 for the step policy, 11 for its alarm.
    expect(tuned).toHaveLength(2 * 4 + 6 + 11);
    expect(tuned.every((r) => isTunedRow(r.parameter))).toBe(true);
    expect(tuned).toContainEqual({
      parameter: `scheduled_action.${prefix}morning-ramp.min_capacity`,
      value: 40,
    });
    expect(tuned).toContainEqual({ parameter: 'step_scale_out.steps', value: '0..4:+2; 4..:+5' });
  });

  it('has no such rows for a plan without them (prevents every untuned plan failing validate)', () => {
    const rows = flattenPolicyShape(expectedPolicyShape(target, PLAIN));
    expect(rows.some((r) => isTunedRow(r.parameter))).toBe(false);
    expect(expectedPolicyShape(target, PLAIN).stepScaleOut).toBeNull();
  });
});

/** What Application Auto Scaling and CloudWatch report for the tuned shape, as deployed. */
function deployedState(
  edit: (actions: ScheduledAction[]) => ScheduledAction[] = (a) => a,
): DeployedPolicyState {
  const shape = expectedPolicyShape(target, tunedPlan());
  const step = shape.stepScaleOut as NonNullable<typeof shape.stepScaleOut>;
  const arn = 'arn:aws:autoscaling:us-east-1:1:scalingPolicy:step';
  const policy: ScalingPolicy = {
    PolicyName: step.policyName,
    PolicyType: 'StepScaling',
    PolicyARN: arn,
    StepScalingPolicyConfiguration: {
      AdjustmentType: 'ChangeInCapacity',
      Cooldown: 120,
      MetricAggregationType: 'Maximum',
      StepAdjustments: [
        { MetricIntervalLowerBound: 0, MetricIntervalUpperBound: 4, ScalingAdjustment: 2 },
        { MetricIntervalLowerBound: 4, ScalingAdjustment: 5 },
      ],
    },
    Alarms: [{ AlarmName: step.alarm.alarmName, AlarmARN: 'arn:alarm' }],
  } as ScalingPolicy;
  const alarm: MetricAlarm = {
    AlarmName: step.alarm.alarmName,
    AlarmActions: [arn],
    Namespace: 'AWS/SageMaker',
    MetricName: 'ConcurrentRequestsPerModel',
    Dimensions: [
      { Name: 'EndpointName', Value: 'speech-kokoro-82m' },
      { Name: 'VariantName', Value: 'AllTraffic' },
    ],
    Statistic: 'Maximum',
    Period: 60,
    EvaluationPeriods: 1,
    DatapointsToAlarm: 1,
    Threshold: 8,
    ComparisonOperator: 'GreaterThanThreshold',
    TreatMissingData: 'notBreaching',
  };
  const actions: ScheduledAction[] = shape.scheduledActions.map(
    (a) =>
      ({
        ScheduledActionName: a.scheduledActionName,
        Schedule: a.schedule,
        ScalableTargetAction: { MinCapacity: a.minCapacity, MaxCapacity: a.maxCapacity },
      }) as ScheduledAction,
  );
  return {
    endpoint: 'speech-kokoro-82m',
    variant: 'AllTraffic',
    resourceId: 'endpoint/speech-kokoro-82m/variant/AllTraffic',
    capacity: null,
    deployment: null,
    endpointError: null,
    scalableTarget: null,
    policies: [policy],
    alarms: new Map([[step.alarm.alarmName, alarm]]),
    scheduledActions: edit(actions),
  };
}

const tunedDiff = (state: DeployedPolicyState) =>
  diffPolicyRows(expectedRows(expectedPolicyShape(target, tunedPlan())), flattenDeployedPolicy(state)).filter(
    (r) => isTunedRow(r.parameter) || r.parameter.startsWith('orphan.'),
  );

describe('deployed scheduled actions and step scale-out against the plan', () => {
  it('match row for row when deployed as planned (an unset Timezone is UTC) (prevents a correct deployment reported as drift)', () => {
    const rows = tunedDiff(deployedState());
    expect(rows.length).toBe(25);
    expect(rows.filter((r) => r.verdict !== 'match')).toEqual([]);
  });

  it('names a changed, a missing and an extra scheduled action by its row (prevents validate passing a schedule that is not the plan)', () => {
    const rows = tunedDiff(
      deployedState((actions) => [
        { ...actions[0], ScalableTargetAction: { MinCapacity: 10, MaxCapacity: 500 } } as ScheduledAction,
        {
          ScheduledActionName: `${prefix}left-over`,
          Schedule: 'cron(0 3 * * ? *)',
          ScalableTargetAction: { MinCapacity: 1, MaxCapacity: 1 },
        } as ScheduledAction,
        // Not scalegate's: never compared.
        { ScheduledActionName: 'team-own', Schedule: 'cron(0 1 * * ? *)' } as ScheduledAction,
      ]),
    );
    const off = rows.filter((r) => r.verdict !== 'match');
    expect(off).toContainEqual({
      parameter: `scheduled_action.${prefix}morning-ramp.min_capacity`,
      expected: 40,
      deployed: 10,
      verdict: 'mismatch',
    });
    expect(off).toContainEqual({
      parameter: `scheduled_action.${prefix}night-floor.schedule`,
      expected: 'cron(0 22 * * ? *)',
      deployed: null,
      verdict: 'missing',
    });
    expect(off).toContainEqual({
      parameter: `scheduled_action.${prefix}left-over.schedule`,
      expected: null,
      deployed: 'cron(0 3 * * ? *)',
      verdict: 'extra',
    });
    expect(off.some((r) => r.parameter.includes('team-own'))).toBe(false);
  });

  it('reports a missing step scale-out as missing rows, not an orphan (prevents a plan with a step policy validating without it)', () => {
    const state = { ...deployedState(), policies: [], alarms: new Map() };
    const rows = tunedDiff(state);
    expect(rows.find((r) => r.parameter === 'step_scale_out.policy_name')?.verdict).toBe('missing');
    expect(rows.find((r) => r.parameter === 'step_scale_out.steps')?.verdict).toBe('missing');
  });
});
