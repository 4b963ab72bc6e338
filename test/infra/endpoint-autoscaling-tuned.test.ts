/**
 * The CDK constructs deploy a tuned plan's scheduled actions (on the scalable target) and its step
 * scale-out (a StepScaling policy invoked by its own alarm on the tracked metric), every value
 * from the policy shape; a plan without them synthesizes none.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EndpointAutoscaling } from '../../infra/lib/endpoint-autoscaling.js';
import type { PlanArtifact } from '../../src/model/index.js';
import { TUNED_POLICY } from '../helpers/tune-data.js';
import { kokoroPlan } from './fixtures.js';
import { resourcesOf } from './helpers.js';

const target = { modelName: 'kokoro-82m', endpoint: 'speech-kokoro-82m', variant: 'AllTraffic' };
const prefix = 'scalegate-speech-kokoro-82m-AllTraffic-';

function synth(plan: PlanArtifact): Template {
  const stack = new Stack(new App(), 'Scaling', { env: { account: '111122223333', region: 'us-east-1' } });
  const endpoint = new Construct(stack, 'Endpoint');
  new EndpointAutoscaling(stack, 'Autoscaling', { target, plan, endpoint });
  return Template.fromStack(stack);
}

let plain: Template;
let tuned: Template;
beforeAll(() => {
  const plan = kokoroPlan();
  plain = synth(plan);
  tuned = synth({
    ...plan,
    deployable: {
      ...plan.deployable,
      scheduled_actions: TUNED_POLICY.scheduled_actions,
      step_scale_out: TUNED_POLICY.step_scale_out,
    },
  });
});

describe('EndpointAutoscaling for a tuned plan', () => {
  it('synthesizes the scheduled actions on the scalable target, prefixed, in UTC (prevents a tuned pre-scaling never reaching AWS)', () => {
    tuned.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ScheduledActions: [
        {
          ScheduledActionName: `${prefix}morning-ramp`,
          Schedule: 'cron(30 7 * * ? *)',
          Timezone: 'UTC',
          ScalableTargetAction: { MinCapacity: 40, MaxCapacity: 500 },
        },
        {
          ScheduledActionName: `${prefix}night-floor`,
          Schedule: 'cron(0 22 * * ? *)',
          Timezone: 'UTC',
          ScalableTargetAction: { MinCapacity: 2, MaxCapacity: 500 },
        },
      ],
    });
  });

  it('synthesizes the step scale-out policy and an alarm on the tracked metric that invokes it (prevents a step policy no alarm ever triggers)', () => {
    tuned.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyName: `${prefix}step-scale-out`,
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ChangeInCapacity',
        Cooldown: 120,
        MetricAggregationType: 'Maximum',
        StepAdjustments: [
          { MetricIntervalLowerBound: 0, MetricIntervalUpperBound: 4, ScalingAdjustment: 2 },
          { MetricIntervalLowerBound: 4, ScalingAdjustment: 5 },
        ],
      },
    });
    const [policyId] = resourcesOf(tuned, 'AWS::ApplicationAutoScaling::ScalingPolicy').find(
      ([, p]) => p.PolicyName === `${prefix}step-scale-out`,
    ) as [string, unknown];
    tuned.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: `${prefix}step-scale-out`,
      Namespace: 'AWS/SageMaker',
      MetricName: 'ConcurrentRequestsPerModel',
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 1,
      Threshold: 8,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmActions: [{ Ref: policyId }],
    });
  });

  it('synthesizes no scheduled action and no step scale-out for a plan without them (prevents every existing stack changing)', () => {
    plain.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ScheduledActions: Match.absent(),
    });
    const policies = resourcesOf(plain, 'AWS::ApplicationAutoScaling::ScalingPolicy');
    expect(policies.map(([, p]) => p.PolicyName).sort()).toEqual([`${prefix}scale-in`, `${prefix}scale-out`]);
    expect(resourcesOf(plain, 'AWS::CloudWatch::Alarm')).toHaveLength(1);
  });
});
