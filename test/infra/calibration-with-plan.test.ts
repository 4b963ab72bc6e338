/**
 * `scalegate deploy <model> --calibration --with-plan [file]` (context scalegate:withPlan): the
 * calibration endpoint gets the plan exactly as production would, through the same constructs
 * (autoscaling, observability, MAX_QUEUE_DEPTH, fleet), after the gate's checks of the plan, so
 * that `validate` and the drill prove the plan there before a release. Its scalable target keeps
 * the logical id of the measuring calibration endpoint's, so the re-deploy updates it in place.
 */
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CALIBRATION_TAG_KEY } from '../../infra/lib/calibration.js';
import { GateRefusedError } from '../../infra/lib/synth-gate.js';
import { isUsageError } from '../../src/model/index.js';
import { GATE_CHECKS } from '../../src/plan/gate.js';
import { expectedPolicyShape, flattenPolicyShape } from '../../src/plan/policy-shape.js';
import { artifactsDirWith, kokoroModel, kokoroPlan, measuredPlan, stopPlan } from './fixtures.js';
import { buildTestApp, resourcesOf } from './helpers.js';
import { shapeRowsFromTemplate } from './template-shape.js';

const plan = kokoroPlan();

function calibrationStack(planEntry: Parameters<typeof artifactsDirWith>[0][string], withPlan = true) {
  const dir = artifactsDirWith({ 'kokoro-82m': planEntry });
  const { stacks } = buildTestApp({
    models: { 'kokoro-82m': kokoroModel() },
    artifactsDir: dir,
    context: {
      'scalegate:calibration': 'kokoro-82m',
      ...(withPlan ? { 'scalegate:withPlan': join(dir, 'plan-kokoro-82m.json') } : {}),
    },
  });
  const stack = stacks[0]?.calibration;
  if (!stack) throw new Error('no calibration stack');
  return stack;
}

const refusalOf = (fn: () => unknown): GateRefusedError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof GateRefusedError) return e;
    throw e;
  }
  throw new Error('synth was not refused');
};

describe('the calibration endpoint deployed with its plan', () => {
  const stack = calibrationStack(plan);
  const template = Template.fromStack(stack);
  const target = {
    modelName: 'kokoro-82m',
    endpoint: 'speech-kokoro-82m-calibration',
    variant: 'AllTraffic',
  };

  it('runs the gate checks that make sense for calibration (not the validate/drill it is there to produce, nor the release-only refusal of a mismatched plan)', () => {
    expect(stack.scaling).toBe('calibration-measured');
    expect(stack.gate?.passed).toBe(true);
    expect(stack.gate?.checks.map((c) => c.check)).toEqual(
      GATE_CHECKS.filter(
        (c) => c !== 'config_mismatch' && c !== 'validated' && c !== 'drilled' && c !== 'attested',
      ),
    );
  });

  it('deploys the plan policy shape on the calibration endpoint: what validate there compares equals the plan', () => {
    expect(shapeRowsFromTemplate(template)).toEqual(flattenPolicyShape(expectedPolicyShape(target, plan)));
  });

  it('gets the plan min/max, both policies, every alarm (service time on FirstChunkLatency), MAX_QUEUE_DEPTH and fleet, all tagged as calibration’s', () => {
    const tag = { Key: CALIBRATION_TAG_KEY, Value: 'kokoro-82m' };
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ResourceId: 'endpoint/speech-kokoro-82m-calibration/variant/AllTraffic',
      MinCapacity: plan.deployable.min_instances,
      MaxCapacity: plan.deployable.max_instances,
      Tags: Match.arrayWith([tag]),
    });
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 2);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 5);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: 'scalegate-speech-kokoro-82m-calibration-AllTraffic-service-time',
      Namespace: 'Scalegate/Container',
      MetricName: 'FirstChunkLatency',
      Threshold: plan.deployable.service_time_alarm_ms,
    });
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: {
        Environment: {
          MAX_QUEUE_DEPTH: String(plan.deployable.queue_max_depth),
          SCALEGATE_ENDPOINT_NAME: 'speech-kokoro-82m-calibration',
          SCALEGATE_VARIANT_NAME: 'AllTraffic',
        },
      },
      Tags: Match.arrayWith([tag]),
    });
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [Match.objectLike({ InitialInstanceCount: plan.deployable.min_instances })],
    });
    template.hasResourceProperties('AWS::SageMaker::Endpoint', {
      EndpointName: 'speech-kokoro-82m-calibration',
      RetainAllVariantProperties: true,
    });
    template.hasResourceProperties('AWS::CloudWatch::Dashboard', {
      DashboardName: 'scalegate-speech-kokoro-82m-calibration-us-east-1',
    });
  });

  it('updates the measuring endpoint scalable target in place (same logical id), never a second one beside it', () => {
    const measuring = Template.fromStack(calibrationStack(null, false));
    const idOf = (t: Template) =>
      resourcesOf(t, 'AWS::ApplicationAutoScaling::ScalableTarget').map(([id]) => id);
    expect(idOf(template)).toHaveLength(1);
    expect(idOf(template)).toEqual(idOf(measuring));
  });
});

describe('what the calibration deploy with a plan refuses', () => {
  it('refuses a stop plan (the verdict check), naming it', () => {
    const e = refusalOf(() => calibrationStack(stopPlan()));
    expect(e.result.checks.filter((c) => !c.ok).map((c) => c.check)).toEqual(['verdict']);
    expect(e.message).toContain('deploy it without --with-plan to measure');
  });

  it('refuses a plan measured on another image (what is deployed here is not what it measured)', () => {
    const e = refusalOf(() => calibrationStack(measuredPlan({ imageDigest: 'ab'.repeat(32) })));
    expect(e.result.checks.filter((c) => !c.ok).map((c) => c.check)).toEqual(['image_digest']);
  });

  it('refuses a missing plan file with the reader message', () => {
    const e = refusalOf(() => calibrationStack(null));
    expect(e.result.checks.map((c) => c.check)).toEqual(['plan_readable']);
    expect(e.message).toContain('no such file');
  });

  it('refuses scalegate:withPlan without scalegate:calibration (production always deploys its gated plan)', () => {
    const dir = artifactsDirWith({ 'kokoro-82m': plan });
    let error: unknown;
    try {
      buildTestApp({
        models: { 'kokoro-82m': kokoroModel() },
        artifactsDir: dir,
        context: { 'scalegate:withPlan': join(dir, 'plan-kokoro-82m.json') },
      });
    } catch (e) {
      error = e;
    }
    expect(isUsageError(error)).toBe(true);
    expect((error as Error).message).toContain('give -c scalegate:calibration=<model> too');
  });
});
