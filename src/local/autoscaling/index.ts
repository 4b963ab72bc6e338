import { AwsError } from '../aws-error.js';
import type { CapacityTarget, MetricReader, OperationHandler } from '../contracts.js';

export interface AutoScalingOptions {
  capacity: CapacityTarget;
  metrics: MetricReader;
  accountId: string;
  region: string;
  evaluationIntervalMs?: number;
  /** Clock (epoch ms); injectable so tests need not wait for real periods. Default Date.now. */
  now?: () => number;
}

export interface AutoScaling {
  applicationAutoScaling: OperationHandler;
  cloudWatchAlarms: OperationHandler;
  alarmOperations: readonly string[];
  reset(): void;
  close(): void;
}

export const ALARM_OPERATIONS = [
  'PutMetricAlarm',
  'DescribeAlarms',
  'DeleteAlarms',
  'SetAlarmState',
  'DescribeAlarmsForMetric',
] as const;

// Placeholder being replaced by the real implementation.
export function createAutoScaling(_opts: AutoScalingOptions): AutoScaling {
  const unknown: OperationHandler = async (op) => {
    throw new AwsError('UnknownOperationException', `Unknown operation ${op}`);
  };
  return {
    applicationAutoScaling: unknown,
    cloudWatchAlarms: unknown,
    alarmOperations: ALARM_OPERATIONS,
    reset() {},
    close() {},
  };
}
