/**
 * The seams between the parts of the local SageMaker: the fleet and metrics (endpoint side) and
 * Application Auto Scaling with CloudWatch alarms (policy side). Each side depends only on these
 * interfaces, so either can be tested alone.
 */

/** One JSON-protocol service operation: `operation` is the X-Amz-Target suffix, `input` the parsed body. */
export type OperationHandler = (operation: string, input: Record<string, unknown>) => Promise<unknown>;

export interface MetricQuery {
  namespace: string;
  metricName: string;
  /** Exact dimension set, as CloudWatch matches it. */
  dimensions: Record<string, string>;
  /** 'Average' | 'Maximum' | 'Minimum' | 'Sum' | 'SampleCount' | 'pNN' | 'pNN.N' */
  stat: string;
  periodS: number;
  startMs: number;
  endMs: number;
}

export interface MetricPoint {
  /** Start of the period, aligned to a multiple of the period since the epoch. */
  timestampMs: number;
  value: number;
}

export interface MetricReader {
  /** Datapoints in ascending time order; periods without data are absent (as in CloudWatch). */
  query(q: MetricQuery): MetricPoint[];
}

/** What Application Auto Scaling scales: `sagemaker:variant:DesiredInstanceCount`. */
export interface CapacityTarget {
  /** `resourceId` is `endpoint/<endpoint>/variant/<variant>`; undefined when no such variant exists. */
  describe(resourceId: string): { desired: number; current: number; status: string } | undefined;
  /** Starts a capacity change and returns once it is accepted (instances come and go later, as on AWS). */
  setDesired(resourceId: string, desired: number): Promise<void>;
}

export interface AlarmStateChange {
  alarmName: string;
  alarmArn: string;
  previous: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  state: 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';
  reason: string;
  atMs: number;
}
