/**
 * Thin adapters the surge drill reads the control plane with, calls only: alarm state changes
 * (DescribeAlarmHistory) and the scaling activities of one variant (DescribeScalingActivities).
 * Alarm configuration and states (DescribeAlarms), the tracked metric (GetMetricData) and the
 * instance counts (DescribeEndpoint) come through src/aws/policy.ts, metrics.ts and endpoint.ts.
 */
import {
  type ApplicationAutoScalingClient,
  DescribeScalingActivitiesCommand,
  type ScalableDimension,
} from '@aws-sdk/client-application-auto-scaling';
import { type CloudWatchClient, DescribeAlarmHistoryCommand } from '@aws-sdk/client-cloudwatch';
import type { CallOptions } from './endpoint.js';
import { SAGEMAKER_NAMESPACE, VARIANT_DIMENSION } from './scaling.js';

export type AlarmStateValue = 'OK' | 'ALARM' | 'INSUFFICIENT_DATA';

export interface AlarmTransition {
  alarm: string;
  atMs: number;
  from: AlarmStateValue;
  to: AlarmStateValue;
}

const STATES: readonly string[] = ['OK', 'ALARM', 'INSUFFICIENT_DATA'];
const asState = (v: unknown): AlarmStateValue | null =>
  typeof v === 'string' && STATES.includes(v) ? (v as AlarmStateValue) : null;

/** `from`/`to` of one StateUpdate item: its HistoryData, else its summary ("Alarm updated from OK to ALARM"). */
function statesOf(
  data: string | undefined,
  summary: string | undefined,
): [AlarmStateValue, AlarmStateValue] | null {
  try {
    const parsed = JSON.parse(data ?? '') as {
      oldState?: { stateValue?: unknown };
      newState?: { stateValue?: unknown };
    };
    const from = asState(parsed.oldState?.stateValue);
    const to = asState(parsed.newState?.stateValue);
    if (from && to) return [from, to];
  } catch {
    // fall back to the summary
  }
  const m = /from (\w+) to (\w+)/.exec(summary ?? '');
  const from = asState(m?.[1]);
  const to = asState(m?.[2]);
  return from && to ? [from, to] : null;
}

/** Every state change of `alarms` between `startMs` and `endMs`, oldest first. */
export async function describeAlarmTransitions(
  cloudwatch: CloudWatchClient,
  alarms: readonly string[],
  startMs: number,
  endMs: number,
  options: CallOptions = {},
): Promise<AlarmTransition[]> {
  const out: AlarmTransition[] = [];
  for (const alarm of new Set(alarms)) {
    let nextToken: string | undefined;
    do {
      const page = await cloudwatch.send(
        new DescribeAlarmHistoryCommand({
          AlarmName: alarm,
          HistoryItemType: 'StateUpdate',
          StartDate: new Date(startMs),
          EndDate: new Date(endMs),
          ScanBy: 'TimestampAscending',
          MaxRecords: 100,
          NextToken: nextToken,
        }),
        options,
      );
      for (const item of page.AlarmHistoryItems ?? []) {
        const states = statesOf(item.HistoryData, item.HistorySummary);
        if (!states || !item.Timestamp) continue;
        out.push({ alarm, atMs: item.Timestamp.getTime(), from: states[0], to: states[1] });
      }
      nextToken = page.NextToken;
    } while (nextToken);
  }
  return out.sort((a, b) => a.atMs - b.atMs);
}

export interface ScalingActivityRecord {
  id: string;
  startMs: number;
  endMs: number | null;
  status: string;
  description: string;
  cause: string;
}

/**
 * The scaling activities of one scalable target (a variant's instance count, or an inference
 * component's copy count with `scalableDimension`) that started at or after `sinceMs`, oldest first.
 */
export async function describeScalingActivitiesSince(
  autoscaling: ApplicationAutoScalingClient,
  resourceId: string,
  sinceMs: number,
  options: CallOptions = {},
  scalableDimension: ScalableDimension = VARIANT_DIMENSION,
): Promise<ScalingActivityRecord[]> {
  const out: ScalingActivityRecord[] = [];
  let nextToken: string | undefined;
  // Newest first: stop paging once a page reaches activities older than the drill.
  for (;;) {
    const page = await autoscaling.send(
      new DescribeScalingActivitiesCommand({
        ServiceNamespace: SAGEMAKER_NAMESPACE,
        ResourceId: resourceId,
        ScalableDimension: scalableDimension,
        NextToken: nextToken,
      }),
      options,
    );
    let older = false;
    for (const a of page.ScalingActivities ?? []) {
      const startMs = a.StartTime?.getTime();
      if (startMs === undefined) continue;
      if (startMs < sinceMs) {
        older = true;
        continue;
      }
      out.push({
        id: a.ActivityId ?? '',
        startMs,
        endMs: a.EndTime?.getTime() ?? null,
        status: a.StatusCode ?? 'Unknown',
        description: a.Description ?? '',
        cause: a.Cause ?? '',
      });
    }
    nextToken = page.NextToken;
    if (!nextToken || older) break;
  }
  return out.sort((a, b) => a.startMs - b.startMs);
}
