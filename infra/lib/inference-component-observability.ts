/**
 * InferenceComponentObservability: the alarms and the dashboard of an inference component, from
 * `icObservabilityAlarms` (src/plan/inference-component-alarms.ts): no capacity beyond the plan's
 * wake, concurrent requests per copy above the copy target for longer than the cold path's
 * T_plan, the container's rejections, and its own service time. The wake and idle alarms that
 * drive scale to zero are the component's scaling (InferenceComponentEndpoint), not these.
 */
import { Duration, Token } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { Construct } from 'constructs';
import type { PlanArtifact } from '../../src/model/index.js';
import { icObservabilityAlarms } from '../../src/plan/inference-component-alarms.js';
import { IC_DIMENSION, IC_NAMESPACE } from '../../src/plan/inference-component-rows.js';
import { alarmFromShape, metricOf } from './alarm.js';

export interface InferenceComponentObservabilityProps {
  /** The model's name in the scalegate config (in the alarm descriptions). */
  readonly modelName: string;
  /** A plan with its `inference_component` block, as the gate accepted it. */
  readonly plan: PlanArtifact;
  /** Dashboards are global to the account: the region goes into the name (when it is known). */
  readonly region: string;
}

export class InferenceComponentObservability extends Construct {
  readonly alarms: cloudwatch.Alarm[];
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: InferenceComponentObservabilityProps) {
    super(scope, id);
    const ic = props.plan.inference_component;
    if (!ic) throw new Error(`${id}: the plan for ${props.modelName} has no inference_component block`);
    const a = icObservabilityAlarms(props.modelName, props.plan);
    const noCapacity = alarmFromShape(this, 'NoCapacity', a.noCapacity);
    const above = alarmFromShape(this, 'CopiesAboveTarget', a.copiesAboveTarget);
    const errors = alarmFromShape(this, 'ModelErrors', a.modelErrors);
    const service = a.serviceTime ? alarmFromShape(this, 'ServiceTime', a.serviceTime) : null;
    this.alarms = [noCapacity, above, errors, ...(service ? [service] : [])];

    const perIc = (metricName: string, statistic: string, label: string) =>
      new cloudwatch.Metric({
        namespace: IC_NAMESPACE,
        metricName,
        dimensionsMap: { [IC_DIMENSION]: ic.component_name },
        statistic,
        period: Duration.minutes(1),
        label,
      });
    this.dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: Token.isUnresolved(props.region)
        ? undefined
        : `scalegate-${ic.endpoint}-${ic.component_name}-${props.region}`,
      defaultInterval: Duration.hours(3),
    });
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Concurrent requests per copy (Maximum) vs the copy target',
        left: [metricOf(a.copiesAboveTarget).with({ label: 'ConcurrentRequestsPerCopy (max)' })],
        leftAnnotations: [{ value: ic.copy_target.value, label: 'copy target', color: '#d62728' }],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Invocations and refusals (Sum per minute)',
        left: [perIc('Invocations', 'Sum', 'Invocations')],
        right: [
          perIc('NoCapacityInvocationFailures', 'Sum', 'no capacity (a wake from zero, or none placed)'),
          perIc('InvocationModelErrors', 'Sum', 'model errors (incl. 503 queue_saturated)'),
        ],
        width: 12,
      }),
    );
    this.dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Service time: FirstChunkLatency p95 (ms, no queueing); ModelLatency p95 (us, with queueing)',
        left: a.serviceTime ? [metricOf(a.serviceTime).with({ label: 'FirstChunkLatency p95 (ms)' })] : [],
        right: [perIc('ModelLatency', 'p95', 'ModelLatency p95 (us)')],
        leftAnnotations: a.serviceTime
          ? [{ value: a.serviceTime.threshold, label: 'alarm: TTFAB p95 at concurrency 1 (ms)' }]
          : [],
        width: 12,
      }),
      new cloudwatch.AlarmStatusWidget({ title: 'scalegate alarms', alarms: this.alarms, width: 12 }),
    );
  }
}
