/**
 * goodput's per-rate CloudWatch join against a stand-in CloudWatch client: every rate's level from
 * its own window, a rate without datapoints left null with the reason, and no call at all on the
 * http transport or with --no-cloudwatch (the reason recorded instead).
 */
import type { CloudWatchClient } from '@aws-sdk/client-cloudwatch';
import { describe, expect, it } from 'vitest';
import { joinGoodputCloudWatch } from '../../src/commands/goodput-cloudwatch.js';
import type { GoodputRung } from '../../src/model/index.js';

const T0 = Date.parse('2026-01-01T00:00:03.000Z');
const rung = (rate: number, startMs: number) =>
  ({
    rate_rps: rate,
    started_at: new Date(startMs).toISOString(),
    settle_s: 7,
    hold_s: 37,
    mean_in_system: rate / 40,
  }) as GoodputRung;

/** Per-period Maxima: 5, 6, 7 in the first rate's window, nothing in the second's. */
function fakeCloudWatch(calls: Array<{ start: number; end: number }>): CloudWatchClient {
  return {
    send: async (command: { input: { StartTime: Date; EndTime: Date } }) => {
      const start = command.input.StartTime.getTime();
      const end = command.input.EndTime.getTime();
      calls.push({ start, end });
      const timestamps: Date[] = [];
      const values: number[] = [];
      for (let t = start, v = 5; t < end && start < T0 + 40_000; t += 10_000, v++) {
        timestamps.push(new Date(t));
        values.push(v);
      }
      return {
        MetricDataResults: [{ Id: 'cmax', Timestamps: timestamps, Values: values, StatusCode: 'Complete' }],
      };
    },
  } as unknown as CloudWatchClient;
}

const spec = (
  cloudwatch: CloudWatchClient | undefined,
  extra: { live?: boolean; enabled?: boolean } = {},
) => ({
  live: extra.live ?? true,
  enabled: extra.enabled ?? true,
  cloudwatch,
  endpoint: 'e',
  variant: 'AllTraffic',
  waitS: 0,
  signal: new AbortController().signal,
  log: () => {},
});

describe('joinGoodputCloudWatch', () => {
  it("reads each rate's whole periods and records its level; a rate without datapoints stays null with the reason", async () => {
    const calls: Array<{ start: number; end: number }> = [];
    const rungs = [rung(40, T0), rung(60, T0 + 40_000)];
    const join = await joinGoodputCloudWatch(rungs, spec(fakeCloudWatch(calls)));
    expect(calls[0]).toEqual({ start: T0 + 7000, end: T0 + 37_000 });
    expect(rungs[0]?.metric_level).toMatchObject({
      periods: 3,
      p10: 5.2,
      p50: 6,
      p90: 6.8,
      mean_in_flight: 1,
      open_loop_r: 6,
    });
    expect(rungs[1]?.metric_level).toBeNull();
    expect(join).toEqual({
      joined: true,
      error: '60/s: no ConcurrentRequestsPerModel datapoint inside the window',
    });
  });

  it('makes no call on the http transport or with --no-cloudwatch, and says why', async () => {
    const calls: Array<{ start: number; end: number }> = [];
    const rungs = [rung(40, T0)];
    expect(await joinGoodputCloudWatch(rungs, spec(fakeCloudWatch(calls), { live: false }))).toEqual({
      joined: false,
      error: 'http transport: a container measured directly has no CloudWatch metrics',
    });
    expect(await joinGoodputCloudWatch(rungs, spec(fakeCloudWatch(calls), { enabled: false }))).toEqual({
      joined: false,
      error: 'disabled with --no-cloudwatch',
    });
    expect(calls).toEqual([]);
    expect(rungs[0]?.metric_level).toBeNull();
  });

  it('a window shorter than one whole period is not joined, and says so', async () => {
    const short = { ...rung(40, T0), hold_s: 12 } as GoodputRung;
    const join = await joinGoodputCloudWatch([short], spec(fakeCloudWatch([])));
    expect(join).toEqual({ joined: false, error: '40/s: measure window shorter than one whole 10 s period' });
  });
});
