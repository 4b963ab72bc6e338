/**
 * EndpointObservability: the dashboard and the alarms of the deployed policy shape (src/plan/policy-shape.ts) (5XX, queue
 * saturation, concurrency above target, service time), all from the same PolicyShape the
 * autoscaling construct deploys. The service-time alarm watches the container's own
 * FirstChunkLatency (dequeue to first audio byte, published as embedded metric format), not
 * ModelLatency, which includes the container's queue and so rises with load at the target.
 */
import { Duration, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import { type PolicyShape, SCALING_METRIC_SHAPES, SERVICE_METRICS } from '../../src/plan/policy-shape.js';
import { alarmFromShape, metricOf } from './alarm.js';

export interface EndpointObservabilityProps {
  readonly shape: PolicyShape;
  /** Dashboards are global to the account: the region goes into the name (when it is known). */
  readonly region: string;
}

export class EndpointObservability extends Construct {
  readonly alarms: cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: EndpointObservabilityProps) {
    super(scope, id);
    const { shape } = props;
    const a = shape.alarms;
    const errors5xx = alarmFromShape(this, 'Errors5xx', a.errors5xx);
    const saturation = alarmFromShape(this, 'QueueSaturation', a.queueSaturation);
    const aboveTarget = alarmFromShape(this, 'ConcurrencyAboveTarget', a.concurrencyAboveTarget);
    const serviceTime = a.serviceTime ? alarmFromShape(this, 'ServiceTime', a.serviceTime) : null;
    this.alarms = [errors5xx, saturation, aboveTarget, ...(serviceTime ? [serviceTime] : [])];

    const dims = { EndpointName: shape.target.endpoint, VariantName: shape.target.variant };
    const sageMaker = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/SageMaker',
        metricName,
        dimensionsMap: dims,
        statistic,
        period: Duration.minutes(1),
        label,
      });

    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: Token.isUnresolved(props.region)
        ? undefined
        : `scalegate-${shape.target.endpoint}-${props.region}`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: SCALING_METRIC_SHAPES[shape.scalingMetric].graphTitle,
        left: [
          metricOf(shape.scaleIn.alarm).with({
            label: SCALING_METRIC_SHAPES[shape.scalingMetric].graphLabel,
          }),
        ],
        leftAnnotations: [
          { value: shape.scaleOut.targetValue, label: 'scale-out target', color: '#d62728' },
          { value: shape.scaleIn.alarm.threshold, label: 'scale-in threshold', color: '#2ca02c' },
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title:
          'Service time: FirstChunkLatency p95 (ms, no queueing) vs the alarm; ModelLatency p95 (us, with queueing)',
        left: [
          new cloudwatch.Metric({
            namespace: SERVICE_METRICS.namespace,
            metricName: SERVICE_METRICS.metricName,
            dimensionsMap: dims,
            statistic: 'p95',
            period: Duration.minutes(1),
            label: 'FirstChunkLatency p95 (ms)',
          }),
        ],
        right: [sageMaker('ModelLatency', 'p95', 'ModelLatency p95 (us)')],
        leftAnnotations: a.serviceTime
          ? [{ value: a.serviceTime.threshold, label: 'alarm: TTFAB p95 at concurrency 1 (ms)' }]
          : [],
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Invocations and errors (Sum per minute)',
        left: [sageMaker('Invocations', 'Sum', 'Invocations')],
        right: [
          sageMaker('InvocationModelErrors', 'Sum', 'model errors (incl. 503 queue_saturated)'),
          sageMaker('Invocation5XXErrors', 'Sum', '5XX'),
          sageMaker('Invocation4XXErrors', 'Sum', '4XX'),
        ],
        width: 12,
      }),
      new cloudwatch.AlarmStatusWidget({
        title: 'scalegate alarms',
        alarms: this.alarms,
        width: 12,
      }),
    );
  }
}
