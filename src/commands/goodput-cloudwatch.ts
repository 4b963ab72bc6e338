/**
 * goodput's per-rate CloudWatch join (as qmax joins per rung): once the rates are measured, read
 * AWS/SageMaker ConcurrentRequestsPerModel (Maximum, 10 s) for the variant over each rate's
 * measure window and record its level on the rung (src/analysis/goodput-metric.ts). Waits up to
 * `waitS` for late datapoints (CloudWatch publishes with a delay on AWS). Never throws for a
 * failed join: the returned error says what is missing, and the rungs keep `metric_level: null`.
 */

import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import {
  METRIC_LEVEL_PERIOD_S,
  METRIC_LEVEL_QUERY,
  metricLevelOf,
  metricQueryRange,
  rungMeasureWindow,
  wholeMetricPeriods,
} from '../analysis/goodput-metric.js';
import { getVariantMetricData } from '../aws/metrics.js';
import type { GoodputRung } from '../model/artifacts.js';
import { GOODPUT_DEFAULTS } from '../options/goodput.js';
import { waitUntil } from '../wait.js';

/** Longest wait for late CloudWatch datapoints after the last rate, s (as qmax). */
export const GOODPUT_CLOUDWATCH_WAIT_S = GOODPUT_DEFAULTS.cloudwatchWaitS;

export interface GoodputCloudWatchJoin {
  joined: boolean;
  error: string | null;
}

export interface GoodputCloudWatchSpec {
  /** SageMaker transport (false: http, a container measured directly). */
  live: boolean;
  /** --no-cloudwatch gives false. */
  enabled: boolean;
  cloudwatch: CloudWatchClient | undefined;
  endpoint: string;
  variant: string;
  waitS: number;
  signal: AbortSignal;
  log: (line: string) => void;
  /** Poll interval while waiting for datapoints, ms. @default 15000 */
  intervalMs?: number;
}

/** Whether goodput joins CloudWatch at all, and why not (the reason the artifact records). */
export function cloudWatchRefusal(
  spec: Pick<GoodputCloudWatchSpec, 'live' | 'enabled' | 'cloudwatch'>,
): string | null {
  if (!spec.live) return 'http transport: a container measured directly has no CloudWatch metrics';
  if (!spec.enabled) return 'disabled with --no-cloudwatch';
  if (!spec.cloudwatch) return 'no CloudWatch client was given';
  return null;
}

/** Fills `metric_level` on every rung (null where nothing could be joined). */
export async function joinGoodputCloudWatch(
  rungs: GoodputRung[],
  spec: GoodputCloudWatchSpec,
): Promise<GoodputCloudWatchJoin> {
  for (const rung of rungs) rung.metric_level = null;
  const refusal = cloudWatchRefusal(spec);
  if (refusal !== null) return { joined: false, error: refusal };
  const cloudwatch = spec.cloudwatch as CloudWatchClient;
  const pending = new Set(rungs.map((_, i) => i));
  const problems = new Map<number, string>();
  const joinPending = async (): Promise<true | undefined> => {
    for (const i of [...pending]) {
      const rung = rungs[i] as GoodputRung;
      const window = rungMeasureWindow(rung);
      if (wholeMetricPeriods(window) < 1) {
        pending.delete(i);
        problems.set(
          i,
          `${rung.rate_rps}/s: measure window shorter than one whole ${METRIC_LEVEL_PERIOD_S} s period`,
        );
        continue;
      }
      try {
        const range = metricQueryRange(window);
        const [series] = await getVariantMetricData(
          cloudwatch,
          spec.endpoint,
          spec.variant,
          [METRIC_LEVEL_QUERY],
          range.startMs,
          range.endMs,
          { abortSignal: spec.signal },
        );
        const level = series ? metricLevelOf(rung, series) : null;
        if (level === null) {
          problems.set(i, `${rung.rate_rps}/s: no ConcurrentRequestsPerModel datapoint inside the window`);
          continue;
        }
        rung.metric_level = level;
        problems.delete(i);
        pending.delete(i);
      } catch (e) {
        if (spec.signal.aborted) throw e;
        problems.set(i, `${rung.rate_rps}/s: ${(e as Error).name}: ${(e as Error).message}`);
      }
    }
    return pending.size === 0 ? true : undefined;
  };
  try {
    await waitUntil(`CloudWatch datapoints of every rate (up to ${spec.waitS} s)`, joinPending, {
      deadline: Date.now() + spec.waitS * 1000,
      interval: spec.intervalMs ?? 15_000,
      signal: spec.signal,
      log: (line) => spec.log(`cloudwatch: ${line}`),
    });
  } catch (e) {
    if (!spec.signal.aborted) {
      const messages = [...problems.values()];
      return {
        joined: rungs.some((r) => r.metric_level),
        error: messages.join('; ') || (e as Error).message,
      };
    }
  }
  const messages = [...problems.values()];
  if (spec.signal.aborted && pending.size > 0) messages.unshift('interrupted before every rate was joined');
  return {
    joined: rungs.some((r) => r.metric_level),
    error: messages.length > 0 ? messages.join('; ') : null,
  };
}
