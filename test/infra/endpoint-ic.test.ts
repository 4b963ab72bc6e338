/**
 * The repository's CDK app deploys an inference-component model through the synth-time gate:
 * a plan whose component block the gate derives again and whose packing is the config's becomes
 * the component endpoint (copy scaling, managed instance scaling, the wake and idle rules) with
 * its per-component alarms, and no variant scaling beside it; a plan for another packing, a
 * variant plan for a component model, or a block edited by hand stops the synth with the check
 * that failed.
 */
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { GateRefusedError } from '../../infra/lib/synth-gate.js';
import type { InferenceComponentPlan, ModelConfig, PlanArtifact } from '../../src/model/index.js';
import { measuredPlan } from './fixtures.js';
import { buildTestApp } from './helpers.js';
import { icArtifactsDir, icModel, icPlan, icReadBack } from './ic-fixtures.js';

function synth(model: ModelConfig, plan: PlanArtifact) {
  const { stacks } = buildTestApp({ models: { 'kokoro-82m': model }, artifactsDir: icArtifactsDir(plan) });
  const endpoint = stacks[0]?.endpoint;
  if (!endpoint) throw new Error('no endpoint stack');
  return endpoint;
}

function refusal(model: ModelConfig, plan: PlanArtifact): GateRefusedError {
  try {
    synth(model, plan);
  } catch (e) {
    if (e instanceof GateRefusedError) return e;
    throw e;
  }
  throw new Error('synth was not refused');
}

const failedChecks = (e: GateRefusedError): string[] =>
  e.result.checks.filter((c) => !c.ok).map((c) => c.check);

describe('the CDK app deploys an inference-component plan the gate accepted', () => {
  const plan = icPlan();
  const ic = plan.inference_component as InferenceComponentPlan;
  const stack = synth(icModel(), plan);
  const t = Template.fromStack(stack);

  it('deploys the component, never a variant with a model or its instance scaling', () => {
    expect(stack.scaling).toBe('measured');
    expect(stack.inferenceComponent).not.toBeNull();
    t.resourceCountIs('AWS::SageMaker::InferenceComponent', 1);
    t.resourceCountIs('AWS::SageMaker::Endpoint', 1);
    t.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [
        Match.objectLike({
          VariantName: 'AllTraffic',
          InstanceType: 'ml.g5.xlarge',
          ModelName: Match.absent(),
          ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 0, MaxInstanceCount: 400 },
        }),
      ],
    });
    t.hasResourceProperties('AWS::SageMaker::Endpoint', { EndpointName: 'speech-kokoro-82m' });
    const targets = t.findResources('AWS::ApplicationAutoScaling::ScalableTarget');
    expect(Object.values(targets).map((r) => r.Properties.ScalableDimension)).toEqual([
      'sagemaker:inference-component:DesiredCopyCount',
    ]);
  });

  it("runs every copy on the stack's model, whose container gets the block's MAX_QUEUE_DEPTH", () => {
    t.hasResourceProperties('AWS::SageMaker::InferenceComponent', {
      InferenceComponentName: 'speech-kokoro-82m-ic',
      Specification: {
        ModelName: { 'Fn::GetAtt': [Match.stringLikeRegexp('^Model'), 'ModelName'] },
        ComputeResourceRequirements: { NumberOfAcceleratorDevicesRequired: 1, MinMemoryRequiredInMb: 8192 },
      },
    });
    t.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({
        Environment: Match.objectLike({ MAX_QUEUE_DEPTH: ic.container_environment.MAX_QUEUE_DEPTH }),
      }),
    });
  });

  it("tracks the plan's copy target on ConcurrentRequestsPerCopy within the copy bounds", () => {
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ResourceId: 'inference-component/speech-kokoro-82m-ic',
      MinCapacity: 0,
      MaxCapacity: 400,
    });
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-copies',
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({
        PredefinedMetricSpecification: {
          PredefinedMetricType: 'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution',
        },
        TargetValue: ic.copy_target.value,
      }),
    });
  });

  it('wakes on one refused request and scales to zero after the idle minutes', () => {
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-wake',
      MetricName: 'NoCapacityInvocationFailures',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      EvaluationPeriods: 1,
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-idle',
      EvaluationPeriods: 15,
      TreatMissingData: 'breaching',
    });
  });

  it('watches the component on its own dimension: no capacity beyond the wake, copies above target, rejections', () => {
    const wakeMinutes = Math.ceil((ic.scale_to_zero?.wake_s ?? 0) / 60) + 1;
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-no-capacity',
      MetricName: 'NoCapacityInvocationFailures',
      Dimensions: [{ Name: 'InferenceComponentName', Value: 'speech-kokoro-82m-ic' }],
      EvaluationPeriods: wakeMinutes,
      DatapointsToAlarm: wakeMinutes,
      AlarmActions: Match.absent(),
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-copies-above-target',
      MetricName: 'ConcurrentRequestsPerCopy',
      Dimensions: [{ Name: 'InferenceComponentName', Value: 'speech-kokoro-82m-ic' }],
      Statistic: 'Maximum',
      Threshold: ic.copy_target.value,
      ComparisonOperator: 'GreaterThanThreshold',
      EvaluationPeriods: Math.ceil(ic.paths.cold.t_plan_s / 60) + 1,
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-model-errors',
      MetricName: 'InvocationModelErrors',
      Dimensions: [{ Name: 'InferenceComponentName', Value: 'speech-kokoro-82m-ic' }],
    });
    // No variant-level alarm: the variant hosts no model of its own.
    const names = Object.values(t.findResources('AWS::CloudWatch::Alarm')).map(
      (r) => r.Properties.AlarmName as string,
    );
    expect(names.filter((n) => n.includes('-AllTraffic-'))).toEqual([]);
  });

  it('says nothing of a fixed fleet: no allowUnmeasured warning', () => {
    Annotations.fromStack(stack).hasNoWarning('*', Match.stringLikeRegexp('allowUnmeasured'));
  });
});

describe('the gate refuses an inference-component plan that is not what is being deployed', () => {
  it('refuses a plan made for another packing than the config declares, naming plan_config', () => {
    const e = refusal(icModel({ copies_per_instance: 2 }), icPlan());
    expect(failedChecks(e)).toEqual(['plan_config']);
    expect(e.message).toMatch(
      /inference_component speech-kokoro-82m-ic: 1 copies\/instance.* \(plan\) vs speech-kokoro-82m-ic: 2 copies\/instance/,
    );
  });

  it('refuses a variant plan for a model declared as a component (and nothing unscaled is deployed)', () => {
    const variantPlan = measuredPlan();
    const e = refusal(icModel(), variantPlan);
    expect(failedChecks(e)).toContain('plan_config');
    expect(e.message).toContain('variant (no inference component) (plan)');
  });

  it('refuses a component block edited by hand (a copy target the measurements do not give)', () => {
    const plan = icPlan();
    const ic = plan.inference_component as InferenceComponentPlan;
    const edited: PlanArtifact = {
      ...plan,
      inference_component: { ...ic, copy_target: { ...ic.copy_target, value: ic.copy_target.value * 2 } },
    };
    const e = refusal(icModel(), edited);
    expect(failedChecks(e)).toContain('rederived');
    expect(e.message).toContain('inference_component');
  });

  it('refuses a component plan whose validate read back another copy target', () => {
    const plan = icPlan();
    const rows = icReadBack(plan, (read) => {
      const row = read.find((r) => r.parameter === 'inference_component.copy_target.value');
      if (row) Object.assign(row, { deployed: 99, verdict: 'mismatch' });
    });
    const dir = icArtifactsDir(plan, rows);
    let refused: unknown;
    try {
      buildTestApp({ models: { 'kokoro-82m': icModel() }, artifactsDir: dir });
    } catch (e) {
      refused = e;
    }
    expect(refused).toBeInstanceOf(GateRefusedError);
    expect(failedChecks(refused as GateRefusedError)).toEqual(['validated']);
  });
});

describe('the calibration endpoint with an inference-component plan', () => {
  it('is refused with the way round, never deployed as a variant with the component plan ignored', () => {
    const plan = icPlan();
    expect(() =>
      buildTestApp({
        models: { 'kokoro-82m': icModel() },
        artifactsDir: icArtifactsDir(plan),
        context: {
          'scalegate:calibration': 'kokoro-82m',
          'scalegate:withPlan': join(icArtifactsDir(plan), 'plan-kokoro-82m.json'),
        },
      }),
    ).toThrow(/not deployed with an inference-component plan by the CDK app yet/);
  });
});
