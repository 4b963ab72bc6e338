/**
 * Thin adapter over CloudWatch GetMetricData for one SageMaker variant: the per-rung join of
 * qmax (ConcurrentRequestsPerModel Maximum/Average at 10 s, ModelLatency p95, Invocation5XXErrors).
 */
import {
  type CloudWatchClient,
  GetMetricDataCommand,
  type MetricDataQuery,
} from '@aws-sdk/client-cloudwatch';
import type { CallOptions } from './endpoint.js';

export interface VariantMetricQuery {
  id: string;
  metricName: string;
  stat: string;
  periodS: number;
}

export interface MetricSeries {
  id: string;
  /** Epoch ms of each period start, ascending. */
  timestamps: number[];
  values: number[];
  statusCode: string | null;
}

export async function getVariantMetricData(
  cloudwatch: CloudWatchClient,
  endpoint: string,
  variant: string,
  queries: readonly VariantMetricQuery[],
  startMs: number,
  endMs: number,
  options: CallOptions = {},
): Promise<MetricSeries[]> {
  const dimensions = [
    { Name: 'EndpointName', Value: endpoint },
    { Name: 'VariantName', Value: variant },
  ];
  return getMetricData(cloudwatch, dimensions, queries, startMs, endMs, options);
}

/**
 * The same for any dimensions of AWS/SageMaker, e.g. an inference component's
 * (`InferenceComponentName`: ConcurrentRequestsPerCopy).
 */
export async function getMetricData(
  cloudwatch: CloudWatchClient,
  dimensions: readonly { Name: string; Value: string }[],
  queries: readonly VariantMetricQuery[],
  startMs: number,
  endMs: number,
  options: CallOptions = {},
): Promise<MetricSeries[]> {
  const metricQueries: MetricDataQuery[] = queries.map((q) => ({
    Id: q.id,
    ReturnData: true,
    MetricStat: {
      Metric: { Namespace: 'AWS/SageMaker', MetricName: q.metricName, Dimensions: [...dimensions] },
      Period: q.periodS,
      Stat: q.stat,
    },
  }));
  const series = new Map<string, MetricSeries>(
    queries.map((q) => [q.id, { id: q.id, timestamps: [], values: [], statusCode: null }]),
  );
  let nextToken: string | undefined;
  do {
    const out = await cloudwatch.send(
      new GetMetricDataCommand({
        MetricDataQueries: metricQueries,
        StartTime: new Date(startMs),
        EndTime: new Date(endMs),
        ScanBy: 'TimestampAscending',
        NextToken: nextToken,
      }),
      options,
    );
    for (const result of out.MetricDataResults ?? []) {
      const target = result.Id ? series.get(result.Id) : undefined;
      if (!target) continue;
      const timestamps = result.Timestamps ?? [];
      const values = result.Values ?? [];
      for (let i = 0; i < Math.min(timestamps.length, values.length); i++) {
        target.timestamps.push((timestamps[i] as Date).getTime());
        target.values.push(values[i] as number);
      }
      target.statusCode = result.StatusCode ?? target.statusCode;
    }
    nextToken = out.NextToken;
  } while (nextToken);
  for (const s of series.values()) {
    const order = s.timestamps
      .map((_, i) => i)
      .sort((a, b) => (s.timestamps[a] as number) - (s.timestamps[b] as number));
    s.timestamps = order.map((i) => s.timestamps[i] as number);
    s.values = order.map((i) => s.values[i] as number);
  }
  return [...series.values()];
}
