/**
 * `scalegate/cdk` (infra/lib/scalegate-scaling.ts, built into dist/cdk.mjs): a team's own CDK
 * stack gets the measured policy with one construct, gated at synth exactly as this repository's
 * app is. A refused plan must stop the synth (not deploy unscaled), every number must be the
 * plan's, the scalable target must wait for the endpoint, and the package's `exports` must point
 * at files the build writes (a consumer's `import 'scalegate/cdk'` would fail otherwise).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as sagemaker from 'aws-cdk-lib/aws-sagemaker';
import { describe, expect, it } from 'vitest';
import { isScalegateRefusal, ScalegateScaling } from '../../infra/lib/scalegate-scaling.js';
// @ts-expect-error: a plain .mjs build script, without type declarations
import { BUILD_OUTPUTS, ENTRIES } from '../../scripts/build-inputs.mjs';
import { repoRoot } from '../helpers/anchor.js';
import { artifactsDirWith, KOKORO_REGION, kokoroModel, kokoroPlan, measurementsOf } from './fixtures.js';
import { TEST_ACCOUNT } from './helpers.js';

const plan = kokoroPlan();
const artifactsDir = artifactsDirWith({ 'kokoro-82m': plan });
const configDir = mkdtempSync(join(tmpdir(), 'scalegate-cdk-export-'));
const configFile = join(configDir, 'scalegate.config.json');
writeFileSync(configFile, JSON.stringify({ models: { 'kokoro-82m': kokoroModel() } }));

/** A consumer's stack: its own model, endpoint config and endpoint, plus the scalegate construct. */
function consumerStack(
  props: Partial<ConstructorParameters<typeof ScalegateScaling>[2]> = {},
  region?: string,
) {
  const app = new App();
  const stack = new Stack(app, 'TeamTts', {
    env: region === undefined ? undefined : { account: TEST_ACCOUNT, region },
  });
  const scaling = new ScalegateScaling(stack, 'Scaling', {
    model: 'kokoro-82m',
    configFile,
    artifactsDir,
    offline: true,
    ...props,
  });
  const model = new sagemaker.CfnModel(stack, 'Model', {
    executionRoleArn: `arn:aws:iam::${TEST_ACCOUNT}:role/tts`,
    primaryContainer: {
      image: `${TEST_ACCOUNT}.dkr.ecr.us-east-1.amazonaws.com/speech-kokoro-82m@sha256:${plan.fingerprint.image_digest}`,
      environment: { ...scaling.containerEnvironment },
    },
  });
  const config = new sagemaker.CfnEndpointConfig(stack, 'Config', {
    productionVariants: [
      {
        variantName: 'AllTraffic',
        modelName: model.attrModelName,
        instanceType: 'ml.g5.xlarge',
        initialInstanceCount: scaling.deployable.minCapacity,
      },
    ],
  });
  const endpoint = new sagemaker.CfnEndpoint(stack, 'Endpoint', {
    endpointName: 'speech-kokoro-82m',
    endpointConfigName: config.attrEndpointConfigName,
  });
  return { app, stack, scaling, endpoint };
}

describe('ScalegateScaling in a team CDK app (scalegate/cdk)', () => {
  it("deploys the plan's numbers: scalable target, target tracking, scale-in step policy and its alarm", () => {
    const { stack, scaling, endpoint } = consumerStack({}, KOKORO_REGION);
    scaling.dependOn(endpoint);
    const t = Template.fromStack(stack);
    const d = plan.deployable;
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ResourceId: 'endpoint/speech-kokoro-82m/variant/AllTraffic',
      MinCapacity: d.min_instances,
      MaxCapacity: d.max_instances,
    });
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: {
          PredefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
        },
        TargetValue: d.scaling_target_value,
        ScaleOutCooldown: d.scale_out_cooldown_s,
        DisableScaleIn: true,
      },
    });
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: Match.objectLike({ Cooldown: d.scale_in_cooldown_s }),
    });
    t.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-AllTraffic-scale-in',
      Threshold: d.scale_in_threshold,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
    });
    // The container gets the plan's queue depth (validate compares it).
    t.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: Match.objectLike({ Environment: { MAX_QUEUE_DEPTH: String(d.queue_max_depth) } }),
    });
    expect(scaling.deployable).toMatchObject({
      targetValue: d.scaling_target_value,
      scaleInThreshold: d.scale_in_threshold,
      maxCapacity: d.max_instances,
      planRunId: plan.run_id,
    });
  });

  it('registers the scalable target only after the endpoint exists (DependsOn)', () => {
    const { stack, scaling, endpoint } = consumerStack({}, KOKORO_REGION);
    scaling.dependOn(endpoint);
    // Given as a prop this time: the construct is created after the endpoint.
    const late = new ScalegateScaling(stack, 'Scaling2', {
      model: 'kokoro-82m',
      configFile,
      artifactsDir,
      endpoint,
      endpointName: 'speech-kokoro-82m-b',
      observability: false,
      offline: true,
    });
    const t = Template.fromStack(stack);
    const targetId = stack.getLogicalId(late.scalableTarget);
    const endpointId = stack.getLogicalId(endpoint);
    expect(t.toJSON().Resources[targetId].DependsOn).toContain(endpointId);
    expect(late.alarms).toEqual([]);
    expect(() => Template.fromStack(stack)).not.toThrow();
  });

  it('fails the synth when the scalable target was never tied to the endpoint', () => {
    const { app } = consumerStack({}, KOKORO_REGION);
    expect(() => app.synth()).toThrow(/pass `endpoint` or call `dependOn\(endpoint\)`/);
  });

  it('refuses at synth a plan measured on another image, naming the check (nothing unscaled is deployed)', () => {
    let refused: unknown;
    try {
      consumerStack({ imageDigest: 'aa'.repeat(32) }, KOKORO_REGION);
    } catch (e) {
      refused = e;
    }
    expect(isScalegateRefusal(refused)).toBe(true);
    expect((refused as Error).message).toContain('✗ image_digest');
  });

  it('refuses at synth a plan for another region than the stack deploys to', () => {
    expect(() => consumerStack({}, 'eu-west-1')).toThrow(/✗ region: .*eu-west-1/);
  });

  it('refuses an environment-agnostic stack without `region`, naming the fix', () => {
    expect(() => consumerStack({})).toThrow(/pass `region`/);
  });

  it("refuses without the plan's proof (no clean validate beside it) unless requireProofs is off", () => {
    const unproven = artifactsDirWith({
      'kokoro-82m': { plan, measurements: measurementsOf(plan), validate: null },
    });
    expect(() => consumerStack({ artifactsDir: unproven }, KOKORO_REGION)).toThrow(/✗ validated/);
    expect(() =>
      consumerStack({ artifactsDir: unproven, requireProofs: false }, KOKORO_REGION),
    ).not.toThrow();
  });
});

describe('the package export scalegate/cdk', () => {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const entries = ENTRIES as { name: string; source: string; declarations?: boolean }[];

  it('is built from the module these tests synthesize with, with its declarations', () => {
    expect(entries.find((e) => e.name === 'cdk')).toEqual({
      name: 'cdk',
      source: 'infra/lib/scalegate-scaling.ts',
      declarations: true,
    });
  });

  it('points `exports` at files the build writes, and ships them (`files`)', () => {
    const targets = [pkg.exports['./cdk'].import, pkg.exports['./cdk'].types] as string[];
    expect(targets).toEqual(['./dist/cdk.mjs', './dist/cdk.d.ts']);
    for (const target of targets) {
      expect(BUILD_OUTPUTS).toContain(target.replace('./dist/', ''));
      expect(pkg.files).toContain(target.replace('./', ''));
    }
  });

  it('leaves aws-cdk-lib and constructs to the consuming app (optional peers, never bundled)', () => {
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(Object.keys(pkg.peerDependencies).sort()).toEqual(['aws-cdk-lib', 'constructs']);
    expect(pkg.peerDependenciesMeta['aws-cdk-lib'].optional).toBe(true);
    expect(readFileSync(join(repoRoot, 'scripts', 'build.mjs'), 'utf8')).toContain(
      "const externals = ['aws-cdk-lib', 'constructs'];",
    );
  });
});
