/**
 * The one definition of the deployed policy shape: every number from the plan, names
 * deterministic, flattened parameter names stable (validate and drift diff them), and no shape
 * at all without a measured CloudWatch threshold.
 */
import { describe, expect, it } from 'vitest';
import { isUsageError } from '../../src/model/index.js';
import {
  aboveTargetPeriods,
  expectedPolicyShape,
  flattenPolicyShape,
  msToMicroseconds,
  policyNames,
  stackNames,
} from '../../src/plan/policy-shape.js';
import { kokoroPlan, noThresholdPlan } from '../infra/fixtures.js';

const target = { modelName: 'kokoro-82m', endpoint: 'speech-kokoro-82m', variant: 'AllTraffic' };

describe('expectedPolicyShape', () => {
  const shape = expectedPolicyShape(target, kokoroPlan());

  it('takes every scaling number from the plan (none hand-kept)', () => {
    expect(shape.scalableTarget).toMatchObject({
      resourceId: 'endpoint/speech-kokoro-82m/variant/AllTraffic',
      scalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      minCapacity: 1,
      maxCapacity: 407,
    });
    expect(shape.scaleOut).toMatchObject({
      predefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
      targetValue: 6,
      scaleOutCooldownS: 30,
      disableScaleIn: true,
    });
    expect(shape.scaleIn).toMatchObject({
      adjustmentType: 'ChangeInCapacity',
      scalingAdjustment: -1,
      cooldownS: 960,
      metricAggregationType: 'Maximum',
    });
    expect(shape.scaleIn.alarm).toMatchObject({
      namespace: 'AWS/SageMaker',
      metricName: 'ConcurrentRequestsPerModel',
      dimensions: { EndpointName: 'speech-kokoro-82m', VariantName: 'AllTraffic' },
      statistic: 'Maximum',
      threshold: 7,
      comparisonOperator: 'LessThanOrEqualToThreshold',
      treatMissingData: 'breaching',
    });
    expect(shape.container.environment).toEqual({ MAX_QUEUE_DEPTH: '50' });
    expect(shape.deployment).toEqual({
      instanceType: 'ml.g5.xlarge',
      imageDigest: '8b1b96bc4dc0b30ddd84d8fe37af7c490937333c44a9f8f7d77b918c3d7eaced',
      routingStrategy: 'LEAST_OUTSTANDING_REQUESTS',
    });
  });

  it('sets the service-time alarm on the container own service time (FirstChunkLatency, ms, no queueing) at the measured TTFAB p95 at concurrency 1, not at the SLO and not on ModelLatency', () => {
    expect(shape.alarms.serviceTime).toMatchObject({
      namespace: 'Scalegate/Container',
      metricName: 'FirstChunkLatency',
      dimensions: { EndpointName: 'speech-kokoro-82m', VariantName: 'AllTraffic' },
      extendedStatistic: 'p95',
      statistic: null,
      threshold: 65.372,
    });
    expect(msToMicroseconds(0.1)).toBe(100);
    expect(msToMicroseconds(3000)).toBe(3_000_000);
  });

  it('alarms on queue saturation through InvocationModelErrors (a container 503 is a model error, not a SageMaker 5XX)', () => {
    expect(shape.alarms.queueSaturation.metricName).toBe('InvocationModelErrors');
    expect(shape.alarms.errors5xx.metricName).toBe('Invocation5XXErrors');
  });

  it('alarms when concurrency stays above the target longer than one planned scale-out', () => {
    expect(shape.alarms.concurrencyAboveTarget).toMatchObject({
      threshold: 6,
      comparisonOperator: 'GreaterThanThreshold',
      evaluationPeriods: 7, // ceil(320.25 / 60) + 1
      datapointsToAlarm: 7,
    });
    expect(aboveTargetPeriods(60)).toBe(2);
    expect(aboveTargetPeriods(0)).toBe(1);
  });

  it('names everything deterministically from endpoint and variant', () => {
    const names = policyNames('speech-kokoro-82m', 'AllTraffic');
    expect(shape.scaleOut.policyName).toBe('scalegate-speech-kokoro-82m-AllTraffic-scale-out');
    expect(shape.scaleIn.policyName).toBe(names.scaleInPolicy);
    expect(shape.scaleIn.alarm.alarmName).toBe('scalegate-speech-kokoro-82m-AllTraffic-scale-in');
    expect(expectedPolicyShape(target, kokoroPlan())).toEqual(shape);
    expect(stackNames('kokoro-82m')).toEqual({
      foundation: 'scalegate-kokoro-82m-foundation',
      modelCache: 'scalegate-kokoro-82m-model-cache',
      endpoint: 'scalegate-kokoro-82m-endpoint',
      calibration: 'scalegate-kokoro-82m-calibration',
    });
  });

  it('refuses (UsageError) a plan without a deployable CloudWatch threshold', () => {
    let error: unknown;
    try {
      expectedPolicyShape(target, noThresholdPlan());
    } catch (e) {
      error = e;
    }
    expect(isUsageError(error)).toBe(true);
    expect((error as Error).message).toContain('no deployable CloudWatch threshold');
    expect((error as Error).message).toContain('scalegate qmax --model kokoro-82m');
  });

  it('leaves out the service-time alarm when the plan has no TTFAB p95 at concurrency 1', () => {
    const s = expectedPolicyShape(target, kokoroPlan({ deployable: { service_time_alarm_ms: null } }));
    expect(s.alarms.serviceTime).toBeNull();
    expect(flattenPolicyShape(s).some((r) => r.parameter.startsWith('alarms.service_time.'))).toBe(false);
  });
});

describe('flattenPolicyShape', () => {
  const rows = flattenPolicyShape(expectedPolicyShape(target, kokoroPlan()));
  const value = (parameter: string) => rows.find((r) => r.parameter === parameter)?.value;

  it('has one row per parameter, each name unique (a diff can never match the wrong row)', () => {
    expect(new Set(rows.map((r) => r.parameter)).size).toBe(rows.length);
  });

  it('keeps the parameter names validate and drift compare (renaming one is a breaking change)', () => {
    expect(rows.map((r) => r.parameter)).toMatchInlineSnapshot(`
      [
        "scalable_target.resource_id",
        "scalable_target.scalable_dimension",
        "scalable_target.min_capacity",
        "scalable_target.max_capacity",
        "scalable_target.suspended.dynamic_scaling_in",
        "scalable_target.suspended.dynamic_scaling_out",
        "scalable_target.suspended.scheduled_scaling",
        "scale_out.policy_name",
        "scale_out.policy_type",
        "scale_out.metric",
        "scale_out.target_value",
        "scale_out.cooldown_s",
        "scale_out.disable_scale_in",
        "scale_in.policy_name",
        "scale_in.policy_type",
        "scale_in.adjustment_type",
        "scale_in.adjustment",
        "scale_in.metric_interval_upper_bound",
        "scale_in.cooldown_s",
        "scale_in.metric_aggregation",
        "scale_in.alarm.name",
        "scale_in.alarm.namespace",
        "scale_in.alarm.metric",
        "scale_in.alarm.dimensions",
        "scale_in.alarm.statistic",
        "scale_in.alarm.period_s",
        "scale_in.alarm.evaluation_periods",
        "scale_in.alarm.datapoints_to_alarm",
        "scale_in.alarm.threshold",
        "scale_in.alarm.comparison",
        "scale_in.alarm.missing_data",
        "container.max_queue_depth",
        "deployment.instance_type",
        "deployment.image_digest",
        "deployment.routing_strategy",
        "alarms.errors_5xx.name",
        "alarms.errors_5xx.namespace",
        "alarms.errors_5xx.metric",
        "alarms.errors_5xx.dimensions",
        "alarms.errors_5xx.statistic",
        "alarms.errors_5xx.period_s",
        "alarms.errors_5xx.evaluation_periods",
        "alarms.errors_5xx.datapoints_to_alarm",
        "alarms.errors_5xx.threshold",
        "alarms.errors_5xx.comparison",
        "alarms.errors_5xx.missing_data",
        "alarms.queue_saturation.name",
        "alarms.queue_saturation.namespace",
        "alarms.queue_saturation.metric",
        "alarms.queue_saturation.dimensions",
        "alarms.queue_saturation.statistic",
        "alarms.queue_saturation.period_s",
        "alarms.queue_saturation.evaluation_periods",
        "alarms.queue_saturation.datapoints_to_alarm",
        "alarms.queue_saturation.threshold",
        "alarms.queue_saturation.comparison",
        "alarms.queue_saturation.missing_data",
        "alarms.concurrency_above_target.name",
        "alarms.concurrency_above_target.namespace",
        "alarms.concurrency_above_target.metric",
        "alarms.concurrency_above_target.dimensions",
        "alarms.concurrency_above_target.statistic",
        "alarms.concurrency_above_target.period_s",
        "alarms.concurrency_above_target.evaluation_periods",
        "alarms.concurrency_above_target.datapoints_to_alarm",
        "alarms.concurrency_above_target.threshold",
        "alarms.concurrency_above_target.comparison",
        "alarms.concurrency_above_target.missing_data",
        "alarms.service_time.name",
        "alarms.service_time.namespace",
        "alarms.service_time.metric",
        "alarms.service_time.dimensions",
        "alarms.service_time.statistic",
        "alarms.service_time.period_s",
        "alarms.service_time.evaluation_periods",
        "alarms.service_time.datapoints_to_alarm",
        "alarms.service_time.threshold",
        "alarms.service_time.comparison",
        "alarms.service_time.missing_data",
      ]
    `);
  });

  it('carries the plan values in comparable form', () => {
    expect(value('scale_out.target_value')).toBe(6);
    expect(value('scale_in.alarm.threshold')).toBe(7);
    expect(value('scale_in.alarm.dimensions')).toBe('EndpointName=speech-kokoro-82m,VariantName=AllTraffic');
    expect(value('scale_in.alarm.missing_data')).toBe('breaching');
    expect(value('container.max_queue_depth')).toBe(50);
    expect(value('alarms.service_time.statistic')).toBe('p95');
    expect(value('alarms.service_time.namespace')).toBe('Scalegate/Container');
    expect(value('alarms.service_time.threshold')).toBe(65.372);
  });
});

describe('expectedPolicyShape follows deployable.scaling_metric', () => {
  const invocationsPlan = () =>
    kokoroPlan({
      deployable: {
        scaling_metric: 'InvocationsPerInstance',
        scaling_target_value: 700,
        scale_in_threshold: 450,
      },
    });
  const concurrency = expectedPolicyShape(target, kokoroPlan());
  const invocations = expectedPolicyShape(target, invocationsPlan());

  it('an InvocationsPerInstance plan tracks SageMakerVariantInvocationsPerInstance at its target in invocations per minute per instance (not the concurrency metric)', () => {
    expect(invocations.scalingMetric).toBe('InvocationsPerInstance');
    expect(invocations.scaleOut).toMatchObject({
      policyType: 'TargetTrackingScaling',
      predefinedMetricType: 'SageMakerVariantInvocationsPerInstance',
      targetValue: 700,
      disableScaleIn: true,
    });
  });

  it('an InvocationsPerInstance plan scales in on InvocationsPerInstance Sum per 60 s, 15 of 15 at or below the threshold, idle counting as low (the units of its threshold)', () => {
    expect(invocations.scaleIn).toMatchObject({
      policyType: 'StepScaling',
      adjustmentType: 'ChangeInCapacity',
      scalingAdjustment: -1,
      metricIntervalUpperBound: 0,
      metricAggregationType: 'Maximum',
    });
    expect(invocations.scaleIn.alarm).toMatchObject({
      alarmName: 'scalegate-speech-kokoro-82m-AllTraffic-scale-in',
      namespace: 'AWS/SageMaker',
      metricName: 'InvocationsPerInstance',
      dimensions: { EndpointName: 'speech-kokoro-82m', VariantName: 'AllTraffic' },
      statistic: 'Sum',
      extendedStatistic: null,
      periodS: 60,
      evaluationPeriods: 15,
      datapointsToAlarm: 15,
      threshold: 450,
      comparisonOperator: 'LessThanOrEqualToThreshold',
      treatMissingData: 'breaching',
    });
    expect(invocations.scaleIn.alarm.description).toContain('InvocationsPerInstance (Sum per minute');
    expect(invocations.scaleIn.alarm.description).toContain('invocations per minute per instance');
    expect(invocations.scaleIn.alarm.description).not.toContain('ConcurrentRequestsPerModel');
  });

  it('an InvocationsPerInstance plan keeps the above-target alarm name but alarms on InvocationsPerInstance Sum per 60 s > target for the same periods', () => {
    expect(invocations.alarms.concurrencyAboveTarget).toMatchObject({
      alarmName: concurrency.alarms.concurrencyAboveTarget.alarmName,
      metricName: 'InvocationsPerInstance',
      statistic: 'Sum',
      periodS: 60,
      evaluationPeriods: concurrency.alarms.concurrencyAboveTarget.evaluationPeriods,
      datapointsToAlarm: concurrency.alarms.concurrencyAboveTarget.datapointsToAlarm,
      threshold: 700,
      comparisonOperator: 'GreaterThanThreshold',
      treatMissingData: 'notBreaching',
    });
    expect(invocations.alarms.concurrencyAboveTarget.description).toContain(
      'InvocationsPerInstance (Sum per minute: invocations per minute per instance) above the scaling target 700',
    );
  });

  it('an InvocationsPerInstance plan changes only the tracked-metric rows (the other alarms and the target stay put)', () => {
    const a = flattenPolicyShape(concurrency);
    const b = flattenPolicyShape(invocations);
    expect(b.map((r) => r.parameter)).toEqual(a.map((r) => r.parameter));
    const changed = b.filter((r, i) => r.value !== a[i]?.value).map((r) => r.parameter);
    expect(changed).toEqual([
      'scale_out.metric',
      'scale_out.target_value',
      'scale_in.alarm.metric',
      'scale_in.alarm.statistic',
      'scale_in.alarm.threshold',
      'alarms.concurrency_above_target.metric',
      'alarms.concurrency_above_target.statistic',
      'alarms.concurrency_above_target.threshold',
    ]);
    const value = (parameter: string) => b.find((r) => r.parameter === parameter)?.value;
    expect(value('scale_out.metric')).toBe('SageMakerVariantInvocationsPerInstance');
    expect(value('scale_in.alarm.metric')).toBe('InvocationsPerInstance');
    expect(value('scale_in.alarm.statistic')).toBe('Sum');
  });

  it('a ConcurrentRequestsPerModel plan (and an older plan without scaling_metric) deploys exactly the high-resolution concurrency shape, descriptions word for word', () => {
    expect(concurrency.scalingMetric).toBe('ConcurrentRequestsPerModel');
    const explicit = expectedPolicyShape(
      target,
      kokoroPlan({ deployable: { scaling_metric: 'ConcurrentRequestsPerModel' } }),
    );
    expect(explicit).toEqual(concurrency);
    expect(concurrency.scaleIn.alarm.description).toBe(
      'scalegate kokoro-82m: scale in by one instance when ConcurrentRequestsPerModel (Maximum) stays at or below 7 (plan scale_in_threshold) for 15 minutes; missing data (idle) counts as low.',
    );
    expect(concurrency.alarms.concurrencyAboveTarget.description).toBe(
      `scalegate kokoro-82m: ConcurrentRequestsPerModel (Maximum) above the scaling target 6 for longer than T_plan (${kokoroPlan().derived.t_plan_s} s) + 1 min: scale-out is not keeping up or the fleet is at max_instances (407).`,
    );
  });
});
