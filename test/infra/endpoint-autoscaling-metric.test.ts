/**
 * The CDK constructs deploy whichever metric the plan chose (deployable.scaling_metric): target
 * tracking on its predefined metric at the plan's target, and the scale-in and above-target
 * alarms on the same metric with the statistic and period its values are in. Synthesized from the
 * constructs alone (EndpointAutoscaling + EndpointObservability in a bare stack), per metric.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Construct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { EndpointAutoscaling } from '../../infra/lib/endpoint-autoscaling.js';
import { EndpointObservability } from '../../infra/lib/endpoint-observability.js';
import type { PlanArtifact } from '../../src/model/index.js';
import { expectedPolicyShape } from '../../src/plan/policy-shape.js';
import { kokoroPlan } from './fixtures.js';
import { resourcesOf } from './helpers.js';

const target = { modelName: 'kokoro-82m', endpoint: 'speech-kokoro-82m', variant: 'AllTraffic' };
const dimensions = [
  { Name: 'EndpointName', Value: 'speech-kokoro-82m' },
  { Name: 'VariantName', Value: 'AllTraffic' },
];

function synth(plan: PlanArtifact): Template {
  const stack = new Stack(new App(), 'Scaling', { env: { account: '111122223333', region: 'us-east-1' } });
  const endpoint = new Construct(stack, 'Endpoint');
  const scaling = new EndpointAutoscaling(stack, 'Autoscaling', { target, plan, endpoint });
  new EndpointObservability(stack, 'Observability', { shape: scaling.shape, region: 'us-east-1' });
  return Template.fromStack(stack);
}

const stepPolicyId = (template: Template): string =>
  (
    resourcesOf(template, 'AWS::ApplicationAutoScaling::ScalingPolicy').find(
      ([, p]) => p.PolicyType === 'StepScaling',
    ) as [string, unknown]
  )[0];

const concurrencyPlan = kokoroPlan();
const invocationsPlan = kokoroPlan({
  deployable: {
    scaling_metric: 'InvocationsPerInstance',
    scaling_target_value: 700,
    scale_in_threshold: 450,
  },
});

let concurrency: Template;
let invocations: Template;
beforeAll(() => {
  concurrency = synth(concurrencyPlan);
  invocations = synth(invocationsPlan);
});

describe('EndpointAutoscaling for a ConcurrentRequestsPerModel plan', () => {
  it('tracks the high-resolution concurrency predefined metric at the plan target (a plan in concurrency units never deploys an invocations target)', () => {
    concurrency.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: {
          PredefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
        },
        TargetValue: 6,
        DisableScaleIn: true,
      },
    });
  });

  it('scales in from a ConcurrentRequestsPerModel Maximum 60 s x 15 alarm at the plan threshold', () => {
    concurrency.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SageMaker',
      MetricName: 'ConcurrentRequestsPerModel',
      Dimensions: Match.arrayWith(dimensions),
      Statistic: 'Maximum',
      Period: 60,
      EvaluationPeriods: 15,
      DatapointsToAlarm: 15,
      Threshold: 7,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: stepPolicyId(concurrency) }],
    });
  });
});

describe('EndpointAutoscaling for an InvocationsPerInstance plan', () => {
  it('tracks SageMakerVariantInvocationsPerInstance at the plan target in invocations per minute per instance (not the concurrency metric)', () => {
    invocations.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: { PredefinedMetricType: 'SageMakerVariantInvocationsPerInstance' },
        TargetValue: 700,
        ScaleOutCooldown: invocationsPlan.deployable.scale_out_cooldown_s,
        DisableScaleIn: true,
      },
    });
    const tracked = JSON.stringify(resourcesOf(invocations, 'AWS::ApplicationAutoScaling::ScalingPolicy'));
    expect(tracked).toContain('SageMakerVariantInvocationsPerInstance');
    expect(tracked).not.toContain('SageMakerVariantConcurrentRequestsPerModelHighResolution');
  });

  it('scales in one instance per step from an InvocationsPerInstance Sum 60 s x 15 of 15 alarm at the plan threshold, idle counting as low', () => {
    invocations.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ChangeInCapacity',
        MetricAggregationType: 'Maximum',
        StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }],
      },
    });
    invocations.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SageMaker',
      MetricName: 'InvocationsPerInstance',
      Dimensions: Match.arrayWith(dimensions),
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 15,
      DatapointsToAlarm: 15,
      Threshold: 450,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [{ Ref: stepPolicyId(invocations) }],
    });
  });

  it('alarms above target on InvocationsPerInstance Sum per minute > target under the stable alarm name, and no alarm is left on ConcurrentRequestsPerModel', () => {
    const shape = expectedPolicyShape(target, invocationsPlan);
    invocations.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-AllTraffic-concurrency-above-target',
      MetricName: 'InvocationsPerInstance',
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: shape.alarms.concurrencyAboveTarget.evaluationPeriods,
      Threshold: 700,
      ComparisonOperator: 'GreaterThanThreshold',
      AlarmDescription: Match.stringLikeRegexp('InvocationsPerInstance \\(Sum per minute'),
    });
    const metrics = resourcesOf(invocations, 'AWS::CloudWatch::Alarm').map(([, p]) => p.MetricName);
    expect(metrics).not.toContain('ConcurrentRequestsPerModel');
  });

  it('graphs InvocationsPerInstance (Sum per minute) against the thresholds on the dashboard, not ConcurrentRequestsPerModel', () => {
    const body = JSON.stringify(resourcesOf(invocations, 'AWS::CloudWatch::Dashboard'));
    expect(body).toContain('Invocations per instance (Sum per minute) vs the measured thresholds');
    expect(body).toContain('InvocationsPerInstance');
    expect(body).not.toContain('ConcurrentRequestsPerModel');
    const concurrencyBody = JSON.stringify(resourcesOf(concurrency, 'AWS::CloudWatch::Dashboard'));
    expect(concurrencyBody).toContain('Concurrent requests per model (Maximum) vs the measured thresholds');
  });
});
