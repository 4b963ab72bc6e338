/**
 * The InferenceComponentEndpoint construct deploys the plan's component block exactly: an endpoint
 * config with managed instance scaling and a variant without a model, the component's compute per
 * copy, copy-count scaling with target tracking on the per-copy high-resolution metric, and the
 * one-request wake alarm and idle rule for scale to zero; every number and name what validate reads.
 */
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, it } from 'vitest';
import { InferenceComponentEndpoint } from '../../infra/lib/inference-component.js';
import { inferenceComponentConfigSchema, readArtifact } from '../../src/model/index.js';
import { deriveInferenceComponentPlan } from '../../src/plan/inference-component.js';
import { anchorTtotalFile } from '../helpers/anchor.js';
import { kokoroPlan } from './fixtures.js';

const icPlan = (ic: Record<string, unknown> = {}) =>
  deriveInferenceComponentPlan({
    plan: kokoroPlan(),
    ttotal: readArtifact('ttotal', anchorTtotalFile),
    endpoint: 'speech-kokoro-82m',
    variant: 'AllTraffic',
    config: inferenceComponentConfigSchema.parse({
      copies_per_instance: 2,
      cpu_cores: 2,
      memory_mb: 8192,
      min_copies: 0,
      max_copies: 12,
      instance_bounds: { min: 0, max: 6 },
      ...ic,
    }),
  }).block;

function synth(plan = icPlan()): Template {
  const stack = new Stack(new App(), 'Ic', { env: { account: '111122223333', region: 'us-east-1' } });
  new InferenceComponentEndpoint(stack, 'Ic', {
    plan,
    instanceType: 'ml.g5.xlarge',
    modelName: 'speech-kokoro-82m-model',
    executionRoleArn: 'arn:aws:iam::111122223333:role/exec',
  });
  return Template.fromStack(stack);
}

describe('InferenceComponentEndpoint', () => {
  const plan = icPlan();
  const template = synth(plan);

  it('hosts components: a variant without a model, the execution role, managed instance scaling within the plan bounds', () => {
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ExecutionRoleArn: 'arn:aws:iam::111122223333:role/exec',
      ProductionVariants: [
        Match.objectLike({
          VariantName: 'AllTraffic',
          InstanceType: 'ml.g5.xlarge',
          InitialInstanceCount: 1,
          ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 0, MaxInstanceCount: 6 },
          ModelName: Match.absent(),
        }),
      ],
    });
  });

  it('creates the component with its compute per copy and at least one copy (SageMaker refuses 0)', () => {
    template.hasResourceProperties('AWS::SageMaker::InferenceComponent', {
      InferenceComponentName: 'speech-kokoro-82m-ic',
      VariantName: 'AllTraffic',
      Specification: {
        ModelName: 'speech-kokoro-82m-model',
        ComputeResourceRequirements: {
          NumberOfCpuCoresRequired: 2,
          MinMemoryRequiredInMb: 8192,
        },
      },
      RuntimeConfig: { CopyCount: 1 },
    });
  });

  it('scales copies on the per-copy high-resolution concurrency at the plan target', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ServiceNamespace: 'sagemaker',
      ResourceId: 'inference-component/speech-kokoro-82m-ic',
      ScalableDimension: 'sagemaker:inference-component:DesiredCopyCount',
      MinCapacity: 0,
      MaxCapacity: 12,
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-copies',
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: {
          PredefinedMetricType: 'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution',
        },
        TargetValue: plan.copy_target.value,
        ScaleOutCooldown: plan.copy_target.scale_out_cooldown_s,
        ScaleInCooldown: plan.copy_target.scale_in_cooldown_s,
      },
    });
  });

  it('wakes from zero on ONE failed request (Sum >= 1, 60 s, 1 of 1), never the > 1 that one request cannot trip', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-wake',
      MetricName: 'NoCapacityInvocationFailures',
      Namespace: 'AWS/SageMaker',
      Dimensions: [{ Name: 'InferenceComponentName', Value: 'speech-kokoro-82m-ic' }],
      Statistic: 'Sum',
      Period: 60,
      EvaluationPeriods: 1,
      DatapointsToAlarm: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      AlarmActions: [Match.objectLike({ Ref: Match.stringLikeRegexp('WakePolicy') })],
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: Match.objectLike({
        AdjustmentType: 'ChangeInCapacity',
        StepAdjustments: [{ MetricIntervalLowerBound: 0, ScalingAdjustment: 1 }],
      }),
    });
  });

  it('scales in to exactly 0 copies after the idle minutes without invocations', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'Invocations',
      EvaluationPeriods: 15,
      DatapointsToAlarm: 15,
      Threshold: 0,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
      AlarmActions: [Match.objectLike({ Ref: Match.stringLikeRegexp('IdlePolicy') })],
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      StepScalingPolicyConfiguration: Match.objectLike({
        AdjustmentType: 'ExactCapacity',
        StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: 0 }],
      }),
    });
  });

  it('turns the copy tracking scale-out only and removes copies by the 15-minute rule, so nothing undoes a wake', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ DisableScaleIn: true }),
    });
    const rule = plan.scale_to_zero?.copy_scale_in;
    if (!rule?.steps) throw new Error('the plan has no copy scale-in rule');
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      MetricName: 'ConcurrentRequestsPerCopy',
      Statistic: 'Maximum',
      EvaluationPeriods: 15,
      Threshold: rule.alarm.threshold,
      ComparisonOperator: 'LessThanThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [Match.objectLike({ Ref: Match.stringLikeRegexp('CopyScaleInPolicy') })],
    });
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      StepScalingPolicyConfiguration: Match.objectLike({
        AdjustmentType: 'ChangeInCapacity',
        StepAdjustments: [
          {
            MetricIntervalLowerBound: rule.steps[0]?.lower,
            MetricIntervalUpperBound: 0,
            ScalingAdjustment: -1,
          },
          { MetricIntervalUpperBound: rule.steps[0]?.lower, ScalingAdjustment: 0 },
        ],
      }),
    });
  });

  it('has no wake or idle rule when the plan keeps a copy, so nothing can scale it to zero', () => {
    const kept = synth(icPlan({ min_copies: 2, instance_bounds: { min: 1, max: 6 } }));
    kept.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    kept.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 1);
    kept.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ DisableScaleIn: false }),
    });
    kept.hasResourceProperties('AWS::SageMaker::InferenceComponent', { RuntimeConfig: { CopyCount: 2 } });
  });
});
