/**
 * With a plan that passes the gate, the EndpointStack deploys exactly the plan's numbers. One app
 * for the Kokoro plan, one for a changed plan (synth is the slow part).
 */
import { Match, Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { expectedPolicyShape, flattenPolicyShape } from '../../src/plan/policy-shape.js';
import { artifactsDirWith, kokoroModel, kokoroPlan, measuredPlan } from './fixtures.js';
import { buildTestApp, resourcesOf } from './helpers.js';
import { shapeRowsFromTemplate } from './template-shape.js';

const target = { modelName: 'kokoro-82m', endpoint: 'speech-kokoro-82m', variant: 'AllTraffic' };
const plan = kokoroPlan();
// Other measurements and choices: every deployable number differs from the Kokoro plan's.
const changedPlan = measuredPlan({
  qMax: 31,
  ttfabAtC1Ms: 80.5,
  tTotalS: 20,
  policyLagS: 10,
  surgeRatio: 1.1,
  peakRps: 200,
  troughRps: 60,
  minInstancesFloor: 2,
});

/** The config the changed plan was made from (the gate requires the plan's choices to be the config's). */
const changedModel = kokoroModel({
  surge_ratio: 1.1,
  peak_rps: 200,
  trough_rps: 60,
  min_instances_floor: 2,
});

function endpointTemplate(p: typeof plan, model = kokoroModel()): Template {
  const { stacks } = buildTestApp({
    models: { 'kokoro-82m': model },
    artifactsDir: artifactsDirWith({ 'kokoro-82m': p }),
  });
  const endpoint = stacks[0]?.endpoint;
  if (!endpoint) throw new Error('no endpoint stack');
  expect(endpoint.scaling).toBe('measured');
  return Template.fromStack(endpoint);
}

let template: Template;
let changed: Template;
beforeAll(() => {
  template = endpointTemplate(plan);
  changed = endpointTemplate(changedPlan, changedModel);
});

describe('EndpointStack with a matching plan (kokoro-82m)', () => {
  it('registers the scalable target with the plan min/max (a hand-kept fleet size cannot slip in)', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ServiceNamespace: 'sagemaker',
      ResourceId: 'endpoint/speech-kokoro-82m/variant/AllTraffic',
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      MinCapacity: 1,
      MaxCapacity: 407,
      SuspendedState: {
        DynamicScalingInSuspended: false,
        DynamicScalingOutSuspended: false,
        ScheduledScalingSuspended: false,
      },
    });
  });

  it('scales out by target tracking on the high-resolution concurrency metric at the plan target, never scaling in', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        PredefinedMetricSpecification: {
          PredefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
        },
        TargetValue: 6,
        ScaleOutCooldown: 30,
        DisableScaleIn: true,
      },
    });
  });

  it('scales in by one instance per step with the plan cooldown (Maximum aggregation, like the target)', () => {
    template.hasResourceProperties('AWS::ApplicationAutoScaling::ScalingPolicy', {
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ChangeInCapacity',
        Cooldown: 960,
        MetricAggregationType: 'Maximum',
        StepAdjustments: [{ MetricIntervalUpperBound: 0, ScalingAdjustment: -1 }],
      },
    });
  });

  it('drives scale-in from an alarm at the plan threshold that treats an idle (silent) endpoint as low', () => {
    const [stepId] = resourcesOf(template, 'AWS::ApplicationAutoScaling::ScalingPolicy').find(
      ([, p]) => p.PolicyType === 'StepScaling',
    ) as [string, unknown];
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'AWS/SageMaker',
      MetricName: 'ConcurrentRequestsPerModel',
      Dimensions: Match.arrayWith([
        { Name: 'EndpointName', Value: 'speech-kokoro-82m' },
        { Name: 'VariantName', Value: 'AllTraffic' },
      ]),
      Statistic: 'Maximum',
      Threshold: 7,
      ComparisonOperator: 'LessThanOrEqualToThreshold',
      TreatMissingData: 'breaching',
      Period: 60,
      EvaluationPeriods: 15,
      DatapointsToAlarm: 15,
      AlarmActions: [{ Ref: stepId }],
    });
  });

  it('sets the container admission bound MAX_QUEUE_DEPTH to the plan queue_max_depth', () => {
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: { Environment: { MAX_QUEUE_DEPTH: '50' } },
    });
  });

  it('deploys the measured instance type and pinned image with least-outstanding-requests routing', () => {
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [
        Match.objectLike({
          InstanceType: 'ml.g5.xlarge',
          InitialInstanceCount: 1,
          RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
        }),
      ],
    });
    // {account} and {region} of the pinned image_uri become the stack's account and region.
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: {
        Image:
          '111122223333.dkr.ecr.us-east-1.amazonaws.com/speech-kokoro-82m@sha256:8b1b96bc4dc0b30ddd84d8fe37af7c490937333c44a9f8f7d77b918c3d7eaced',
      },
    });
  });

  it('keeps a scaled-out fleet size across endpoint updates (a deploy never resets it to min)', () => {
    template.hasResourceProperties('AWS::SageMaker::Endpoint', {
      EndpointName: 'speech-kokoro-82m',
      RetainAllVariantProperties: true,
    });
  });

  it('adds the observability alarms (5XX, queue saturation, above target, service time) and a dashboard', () => {
    const byMetric = (metric: string, extra: Record<string, unknown> = {}) =>
      template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: metric, ...extra });
    byMetric('Invocation5XXErrors', { Statistic: 'Sum', Threshold: 1 });
    byMetric('InvocationModelErrors', { Statistic: 'Sum', Threshold: 1 });
    byMetric('ConcurrentRequestsPerModel', { ComparisonOperator: 'GreaterThanThreshold', Threshold: 6 });
    template.resourceCountIs('AWS::CloudWatch::Alarm', 5);
    template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
  });

  it('alarms on the container service time (FirstChunkLatency p95, no queueing) at the plan service_time_alarm_ms, not on ModelLatency (which rises with the queue at the target)', () => {
    template.hasResourceProperties('AWS::CloudWatch::Alarm', {
      Namespace: 'Scalegate/Container',
      MetricName: 'FirstChunkLatency',
      Dimensions: Match.arrayWith([
        { Name: 'EndpointName', Value: 'speech-kokoro-82m' },
        { Name: 'VariantName', Value: 'AllTraffic' },
      ]),
      ExtendedStatistic: 'p95',
      Threshold: plan.deployable.service_time_alarm_ms,
      ComparisonOperator: 'GreaterThanThreshold',
      TreatMissingData: 'notBreaching',
      Period: 300,
      EvaluationPeriods: 3,
      DatapointsToAlarm: 3,
    });
    expect(plan.deployable.service_time_alarm_ms).toBe(65.372);
    const onModelLatency = resourcesOf(template, 'AWS::CloudWatch::Alarm').filter(
      ([, p]) => p.MetricName === 'ModelLatency',
    );
    expect(onModelLatency).toEqual([]);
    // The container names its metric's dimensions from the model environment.
    template.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: {
        Environment: { SCALEGATE_ENDPOINT_NAME: 'speech-kokoro-82m', SCALEGATE_VARIANT_NAME: 'AllTraffic' },
      },
    });
  });
});

describe('one definition: what infra synthesizes is what validate expects', () => {
  it('every flattened policy parameter read back from the template equals flattenPolicyShape(expectedPolicyShape)', () => {
    expect(shapeRowsFromTemplate(template)).toEqual(flattenPolicyShape(expectedPolicyShape(target, plan)));
  });

  it('changing the plan changes the synthesized template and the expected shape alike', () => {
    const before = flattenPolicyShape(expectedPolicyShape(target, plan));
    const after = flattenPolicyShape(expectedPolicyShape(target, changedPlan));
    expect(shapeRowsFromTemplate(changed)).toEqual(after);
    const moved = after.filter((row, i) => row.value !== before[i]?.value).map((row) => row.parameter);
    expect(moved).toEqual(
      expect.arrayContaining([
        'scalable_target.min_capacity',
        'scalable_target.max_capacity',
        'scale_out.target_value',
        'scale_out.cooldown_s',
        'scale_in.cooldown_s',
        'scale_in.alarm.threshold',
        'container.max_queue_depth',
        'alarms.concurrency_above_target.threshold',
        'alarms.concurrency_above_target.evaluation_periods',
        'alarms.service_time.threshold',
      ]),
    );
  });
});
