/**
 * Reads the deployed policy shape back out of a synthesized EndpointStack template, under the
 * parameter names of `flattenPolicyShape`, finding each resource by what it is (type, metric,
 * alarm action), never by the names the shape gives it. The parity test compares the two.
 */
import type { Template } from 'aws-cdk-lib/assertions';
import type { ShapeRow } from '../../src/plan/policy-shape.js';
import { resourcesOf } from './helpers.js';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON, read back loosely in a test
type Props = Record<string, any>;

const one = (
  template: Template,
  type: string,
  where: (p: Props) => boolean = () => true,
): [string, Props] => {
  const found = resourcesOf(template, type).filter(([, p]) => where(p));
  if (found.length !== 1) throw new Error(`expected one ${type}, found ${found.length}`);
  return found[0] as [string, Props];
};

/** The literal text of a string, an Fn::Join or an Fn::Sub (tokens rendered as `<token>`). */
export function flatString(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Props;
  if (v?.['Fn::Join']) return (v['Fn::Join'][1] as unknown[]).map(flatString).join(v['Fn::Join'][0]);
  if (v?.['Fn::Sub']) return String(v['Fn::Sub']);
  return '<token>';
}

function alarmRows(prefix: string, p: Props): ShapeRow[] {
  const dims = (p.Dimensions as { Name: string; Value: string }[])
    .map((d) => `${d.Name}=${d.Value}`)
    .join(',');
  return [
    { parameter: `${prefix}.name`, value: p.AlarmName },
    { parameter: `${prefix}.namespace`, value: p.Namespace },
    { parameter: `${prefix}.metric`, value: p.MetricName },
    { parameter: `${prefix}.dimensions`, value: dims },
    { parameter: `${prefix}.statistic`, value: p.Statistic ?? p.ExtendedStatistic },
    { parameter: `${prefix}.period_s`, value: p.Period },
    { parameter: `${prefix}.evaluation_periods`, value: p.EvaluationPeriods },
    { parameter: `${prefix}.datapoints_to_alarm`, value: p.DatapointsToAlarm },
    { parameter: `${prefix}.threshold`, value: p.Threshold },
    { parameter: `${prefix}.comparison`, value: p.ComparisonOperator },
    { parameter: `${prefix}.missing_data`, value: p.TreatMissingData },
  ];
}

export function shapeRowsFromTemplate(template: Template): ShapeRow[] {
  const [, target] = one(template, 'AWS::ApplicationAutoScaling::ScalableTarget');
  const [, out] = one(
    template,
    'AWS::ApplicationAutoScaling::ScalingPolicy',
    (p) => p.PolicyType === 'TargetTrackingScaling',
  );
  const [stepId, step] = one(
    template,
    'AWS::ApplicationAutoScaling::ScalingPolicy',
    (p) => p.PolicyType === 'StepScaling',
  );
  const alarm = (where: (p: Props) => boolean) => one(template, 'AWS::CloudWatch::Alarm', where)[1];
  const scaleInAlarm = alarm((p) => JSON.stringify(p.AlarmActions ?? []).includes(stepId));
  const [, model] = one(template, 'AWS::SageMaker::Model');
  const [, config] = one(template, 'AWS::SageMaker::EndpointConfig');
  const variant = (config.ProductionVariants as Props[])[0] as Props;
  const image = flatString(model.PrimaryContainer.Image);
  const digest = image.includes('@sha256:')
    ? image.split('@sha256:')[1]
    : image.slice(image.lastIndexOf(':') + 1);
  const tt = out.TargetTrackingScalingPolicyConfiguration;
  const sc = step.StepScalingPolicyConfiguration;
  const adjustment = sc.StepAdjustments[0];

  const rows: ShapeRow[] = [
    { parameter: 'scalable_target.resource_id', value: target.ResourceId },
    { parameter: 'scalable_target.scalable_dimension', value: target.ScalableDimension },
    { parameter: 'scalable_target.min_capacity', value: target.MinCapacity },
    { parameter: 'scalable_target.max_capacity', value: target.MaxCapacity },
    {
      parameter: 'scalable_target.suspended.dynamic_scaling_in',
      value: target.SuspendedState.DynamicScalingInSuspended,
    },
    {
      parameter: 'scalable_target.suspended.dynamic_scaling_out',
      value: target.SuspendedState.DynamicScalingOutSuspended,
    },
    {
      parameter: 'scalable_target.suspended.scheduled_scaling',
      value: target.SuspendedState.ScheduledScalingSuspended,
    },
    { parameter: 'scale_out.policy_name', value: out.PolicyName },
    { parameter: 'scale_out.policy_type', value: out.PolicyType },
    { parameter: 'scale_out.metric', value: tt.PredefinedMetricSpecification.PredefinedMetricType },
    { parameter: 'scale_out.target_value', value: tt.TargetValue },
    { parameter: 'scale_out.cooldown_s', value: tt.ScaleOutCooldown },
    { parameter: 'scale_out.disable_scale_in', value: tt.DisableScaleIn },
    { parameter: 'scale_in.policy_name', value: step.PolicyName },
    { parameter: 'scale_in.policy_type', value: step.PolicyType },
    { parameter: 'scale_in.adjustment_type', value: sc.AdjustmentType },
    { parameter: 'scale_in.adjustment', value: adjustment.ScalingAdjustment },
    { parameter: 'scale_in.metric_interval_upper_bound', value: adjustment.MetricIntervalUpperBound },
    { parameter: 'scale_in.cooldown_s', value: sc.Cooldown },
    { parameter: 'scale_in.metric_aggregation', value: sc.MetricAggregationType },
    ...alarmRows('scale_in.alarm', scaleInAlarm),
    {
      parameter: 'container.max_queue_depth',
      value: Number(model.PrimaryContainer.Environment.MAX_QUEUE_DEPTH),
    },
    { parameter: 'deployment.instance_type', value: variant.InstanceType },
    { parameter: 'deployment.image_digest', value: digest as string },
    { parameter: 'deployment.routing_strategy', value: variant.RoutingConfig.RoutingStrategy },
    ...alarmRows(
      'alarms.errors_5xx',
      alarm((p) => p.MetricName === 'Invocation5XXErrors'),
    ),
    ...alarmRows(
      'alarms.queue_saturation',
      alarm((p) => p.MetricName === 'InvocationModelErrors'),
    ),
    ...alarmRows(
      'alarms.concurrency_above_target',
      alarm(
        (p) =>
          (p.MetricName === 'ConcurrentRequestsPerModel' || p.MetricName === 'InvocationsPerInstance') &&
          p.ComparisonOperator === 'GreaterThanThreshold',
      ),
    ),
  ];
  const serviceTime = resourcesOf(template, 'AWS::CloudWatch::Alarm').filter(
    ([, p]) => p.MetricName === 'FirstChunkLatency',
  );
  if (serviceTime.length > 0)
    rows.push(...alarmRows('alarms.service_time', (serviceTime[0] as [string, Props])[1]));
  return rows;
}
