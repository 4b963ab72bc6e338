/** A CloudWatch alarm synthesized from an AlarmShape: every field comes from the shape. */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { Construct } from 'constructs';
import type { IcObservabilityAlarm } from '../../src/plan/inference-component-alarms.js';
import type { AlarmShape } from '../../src/plan/policy-shape.js';

/** A variant's alarm shape, or an inference component's (other dimensions). */
type AnyAlarmShape = AlarmShape | IcObservabilityAlarm;

export function metricOf(alarm: AnyAlarmShape): cloudwatch.Metric {
  return new cloudwatch.Metric({
    namespace: alarm.namespace,
    metricName: alarm.metricName,
    dimensionsMap: { ...alarm.dimensions },
    statistic: alarm.statistic ?? (alarm.extendedStatistic as string),
    period: Duration.seconds(alarm.periodS),
  });
}

export function alarmFromShape(scope: Construct, id: string, alarm: AnyAlarmShape): cloudwatch.Alarm {
  return new cloudwatch.Alarm(scope, id, {
    alarmName: alarm.alarmName,
    alarmDescription: alarm.description,
    metric: metricOf(alarm),
    threshold: alarm.threshold,
    evaluationPeriods: alarm.evaluationPeriods,
    datapointsToAlarm: alarm.datapointsToAlarm,
    comparisonOperator: alarm.comparisonOperator as cloudwatch.ComparisonOperator,
    treatMissingData: alarm.treatMissingData as cloudwatch.TreatMissingData,
  });
}
