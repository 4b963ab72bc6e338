/**
 * Thin adapters over CloudWatch Logs for a SageMaker endpoint's log group
 * (`/aws/sagemaker/Endpoints/<endpoint>`, one stream `<variant>/<instance-id>` per instance): list
 * a variant's streams, and read one stream's events from the start.
 */
import {
  type CloudWatchLogsClient,
  DescribeLogStreamsCommand,
  GetLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import type { CallOptions } from './endpoint.js';

export const endpointLogGroup = (endpoint: string): string => `/aws/sagemaker/Endpoints/${endpoint}`;

export interface LogStreamInfo {
  name: string;
  /** The part after `<variant>/`: the instance id. */
  instanceId: string;
  creationTimeMs: number | null;
  firstEventMs: number | null;
  lastEventMs: number | null;
}

export interface LogEventRecord {
  timestampMs: number;
  message: string;
}

const isNotFound = (e: unknown): boolean => (e as { name?: string }).name === 'ResourceNotFoundException';

/** Streams `<variant>/...` of the endpoint's log group; empty when the group does not exist yet. */
export async function listVariantLogStreams(
  logs: CloudWatchLogsClient,
  endpoint: string,
  variant: string,
  options: CallOptions = {},
): Promise<LogStreamInfo[]> {
  const prefix = `${variant}/`;
  const streams: LogStreamInfo[] = [];
  let nextToken: string | undefined;
  try {
    do {
      const out = await logs.send(
        new DescribeLogStreamsCommand({
          logGroupName: endpointLogGroup(endpoint),
          logStreamNamePrefix: prefix,
          nextToken,
        }),
        options,
      );
      for (const s of out.logStreams ?? []) {
        if (!s.logStreamName) continue;
        streams.push({
          name: s.logStreamName,
          instanceId: s.logStreamName.slice(prefix.length),
          creationTimeMs: s.creationTime ?? null,
          firstEventMs: s.firstEventTimestamp ?? null,
          lastEventMs: s.lastEventTimestamp ?? null,
        });
      }
      nextToken = out.nextToken;
    } while (nextToken);
  } catch (e) {
    if (isNotFound(e)) return [];
    throw e;
  }
  return streams;
}

/** Every event of one stream, oldest first (GetLogEvents from the head until the token repeats). */
export async function readLogStream(
  logs: CloudWatchLogsClient,
  endpoint: string,
  stream: string,
  options: CallOptions & { maxEvents?: number } = {},
): Promise<LogEventRecord[]> {
  const events: LogEventRecord[] = [];
  const maxEvents = options.maxEvents ?? 10_000;
  let token: string | undefined;
  for (;;) {
    const out = await logs.send(
      new GetLogEventsCommand({
        logGroupName: endpointLogGroup(endpoint),
        logStreamName: stream,
        startFromHead: true,
        nextToken: token,
      }),
      options,
    );
    for (const e of out.events ?? []) {
      if (e.timestamp !== undefined) events.push({ timestampMs: e.timestamp, message: e.message ?? '' });
    }
    const next = out.nextForwardToken;
    if (!next || next === token || (out.events ?? []).length === 0 || events.length >= maxEvents) break;
    token = next;
  }
  return events;
}
