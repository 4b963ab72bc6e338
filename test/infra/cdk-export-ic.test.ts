/**
 * `ScalegateInferenceComponent` (`scalegate/cdk`): a team's own CDK stack deploys an
 * inference-component model through the same gate as this repository's app. A refused plan must
 * stop the synth (nothing unscaled deployed), every number must be the plan's component block,
 * the model's container must carry the plan's MAX_QUEUE_DEPTH over the team's environment, and the
 * variant construct must never deploy a component plan as a variant's scaling (nor the reverse).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  isScalegateRefusal,
  ScalegateInferenceComponent,
  type ScalegateInferenceComponentProps,
  ScalegateScaling,
} from '../../infra/lib/scalegate-scaling.js';
import type { InferenceComponentPlan, ModelConfig } from '../../src/model/index.js';
import { KOKORO_DIGEST, KOKORO_REGION, kokoroModel, kokoroPlan } from './fixtures.js';
import { TEST_ACCOUNT } from './helpers.js';
import { icArtifactsDir, icModel, icPlan } from './ic-fixtures.js';

const plan = icPlan();
const ic = plan.inference_component as InferenceComponentPlan;
const artifactsDir = icArtifactsDir(plan);

function configOf(model: ModelConfig): string {
  const file = join(mkdtempSync(join(tmpdir(), 'scalegate-cdk-ic-')), 'scalegate.config.json');
  writeFileSync(file, JSON.stringify({ models: { 'kokoro-82m': model } }));
  return file;
}
const icConfig = configOf(icModel());
const image = `${TEST_ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/speech-kokoro-82m@sha256:${KOKORO_DIGEST}`;

function teamStack(props: Partial<ScalegateInferenceComponentProps> = {}) {
  const stack = new Stack(new App(), 'TeamTts', { env: { account: TEST_ACCOUNT, region: KOKORO_REGION } });
  const construct = new ScalegateInferenceComponent(stack, 'Tts', {
    model: 'kokoro-82m',
    configFile: icConfig,
    artifactsDir,
    offline: true,
    image,
    executionRoleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/tts`,
    ...props,
  });
  return { stack, construct };
}

describe('ScalegateInferenceComponent in a team CDK app (scalegate/cdk)', () => {
  it("deploys the component block's numbers: compute per copy, copy bounds, copy target, instance bounds", () => {
    const { stack, construct } = teamStack();
    const t = Template.fromStack(stack);
    t.hasResourceProperties('AWS::SageMaker::InferenceComponent', {
      InferenceComponentName: 'speech-kokoro-82m-ic',
      EndpointName: { 'Fn::GetAtt': [Match.anyValue(), 'EndpointName'] },
      Specification: Match.objectLike({
        ComputeResourceRequirements: { NumberOfAcceleratorDevicesRequired: 1, MinMemoryRequiredInMb: 8192 },
      }),
    });
    t.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ExecutionRoleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/tts`,
      ProductionVariants: [
        Match.objectLike({
          ModelName: Match.absent(),
          ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 0, MaxInstanceCount: 400 },
        }),
      ],
    });
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ResourceId: 'inference-component/speech-kokoro-82m-ic',
      ScalableDimension: 'sagemaker:inference-component:DesiredCopyCount',
      MinCapacity: 0,
      MaxCapacity: 400,
    });
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      TargetTrackingScalingPolicyConfiguration: Match.objectLike({ TargetValue: ic.copy_target.value }),
    });
    expect(construct.deployable).toMatchObject({
      componentName: 'speech-kokoro-82m-ic',
      copyTargetValue: ic.copy_target.value,
      minCopies: 0,
      maxCopies: 400,
      idleMinutes: 15,
      wakeS: ic.scale_to_zero?.wake_s,
      planRunId: plan.run_id,
    });
    expect(construct.wakeAlarm).not.toBeNull();
    expect(construct.alarms.length).toBeGreaterThanOrEqual(3);
  });

  it("gives the model the plan's MAX_QUEUE_DEPTH over the team's own environment", () => {
    const { stack } = teamStack({ environment: { MAX_QUEUE_DEPTH: '1', VOICE: 'af_heart' } });
    Template.fromStack(stack).hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({
        Image: image,
        Environment: Match.objectLike({
          MAX_QUEUE_DEPTH: ic.container_environment.MAX_QUEUE_DEPTH,
          VOICE: 'af_heart',
          SCALEGATE_ENDPOINT_NAME: 'speech-kokoro-82m',
        }),
      }),
    });
  });

  it('leaves the alarms out with observability: false, keeping the wake, idle and copy scale-in rules (they scale; a user turning observability off must not lose them)', () => {
    const { stack, construct } = teamStack({ observability: false });
    expect(construct.alarms).toEqual([]);
    Template.fromStack(stack).resourceCountIs('AWS::CloudWatch::Alarm', 3);
  });

  it('refuses at synth a plan for another packing than the config declares (nothing deployed)', () => {
    let refused: unknown;
    try {
      teamStack({ configFile: configOf(icModel({ memory_mb: 16384 })) });
    } catch (e) {
      refused = e;
    }
    expect(isScalegateRefusal(refused)).toBe(true);
    expect((refused as Error).message).toContain('✗ plan_config');
  });

  it('refuses at synth a plan measured on another image', () => {
    expect(() => teamStack({ imageDigest: 'aa'.repeat(32) })).toThrow(/✗ image_digest/);
  });

  it('refuses a variant plan (use ScalegateScaling), and ScalegateScaling refuses a component plan', () => {
    const variantDir = icArtifactsDir(kokoroPlan());
    expect(() => teamStack({ configFile: configOf(kokoroModel()), artifactsDir: variantDir })).toThrow(
      /use ScalegateScaling/,
    );
    const stack = new Stack(new App(), 'TeamVariant', {
      env: { account: TEST_ACCOUNT, region: KOKORO_REGION },
    });
    expect(
      () =>
        new ScalegateScaling(stack, 'Scaling', {
          model: 'kokoro-82m',
          configFile: icConfig,
          artifactsDir,
          offline: true,
        }),
    ).toThrow(/use ScalegateInferenceComponent/);
  });
});
