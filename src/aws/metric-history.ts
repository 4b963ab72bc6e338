/**
 * A variant's CloudWatch history (`scalegate trace import`): one AWS/SageMaker metric of one
 * endpoint variant over a time range, in calls of at most 100,800 datapoints each (GetMetricData's
 * limit per call), each paged through its NextToken (getVariantMetricData).
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import type { CallOptions } from './endpoint.js';
import { getVariantMetricData, type MetricSeries } from './metrics.js';

/** Datapoints GetMetricData returns per call, at most. */
export const MAX_DATAPOINTS_PER_CALL = 100_800;

/** [start, end) ranges of at most `maxPoints` periods each, covering [startMs, endMs). */
export function metricWindows(
  startMs: number,
  endMs: number,
  periodS: number,
  maxPoints = MAX_DATAPOINTS_PER_CALL,
): [number, number][] {
  const span = periodS * 1000 * maxPoints;
  const out: [number, number][] = [];
  for (let a = startMs; a < endMs; a += span) out.push([a, Math.min(endMs, a + span)]);
  return out;
}

export interface MetricHistoryQuery {
  metricName: string;
  stat: string;
  periodS: number;
}

/** The datapoints of one metric of `endpoint`/`variant` in [startMs, endMs), ascending by period start. */
export async function getVariantMetricHistory(
  cloudwatch: CloudWatchClient,
  endpoint: string,
  variant: string,
  query: MetricHistoryQuery,
  startMs: number,
  endMs: number,
  options: CallOptions = {},
): Promise<MetricSeries> {
  const out: MetricSeries = { id: 'm', timestamps: [], values: [], statusCode: null };
  for (const [a, b] of metricWindows(startMs, endMs, query.periodS)) {
    const [series] = await getVariantMetricData(
      cloudwatch,
      endpoint,
      variant,
      [{ id: 'm', ...query }],
      a,
      b,
      options,
    );
    if (!series) continue;
    // One by one: a spread of 100,800 arguments can exceed the call stack.
    for (let i = 0; i < series.timestamps.length; i++) {
      out.timestamps.push(series.timestamps[i] as number);
      out.values.push(series.values[i] as number);
    }
    out.statusCode = series.statusCode;
  }
  return out;
}
