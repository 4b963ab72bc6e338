// The metric store's arithmetic, on a fake clock (the end-to-end path is in endpoint.test.ts).
import { describe, expect, it } from 'vitest';
import { createMetricOperations, MetricStore, VariantMetrics } from '../../src/local/metrics.js';

const T0 = 1_800_000_000_000; // a multiple of 60 s
const dims = { EndpointName: 'e', VariantName: 'v' };

function clock(start = T0) {
  let t = start;
  return { now: () => t, set: (ms: number) => (t = ms), add: (ms: number) => (t += ms) };
}

const q = (
  store: MetricStore,
  metricName: string,
  stat: string,
  periodS = 10,
  from = T0 - 60_000,
  to = T0 + 120_000,
) =>
  store.query({
    namespace: 'AWS/SageMaker',
    metricName,
    dimensions: dims,
    stat,
    periodS,
    startMs: from,
    endMs: to,
  });

describe('ConcurrentRequestsPerModel (sampled at every change of in-flight)', () => {
  it('has Maximum exactly N for a closed loop of N, even when a request ends and the next starts in the same ms', () => {
    const c = clock();
    const store = new MetricStore({ now: c.now });
    const m = new VariantMetrics(store, 'e', 'v');
    for (let k = 0; k < 3; k++) m.begin();
    for (let step = 0; step < 50; step++) {
      c.add(300);
      m.end(); // 3 -> 2 and back to 3 at the same instant
      m.begin();
    }
    for (let k = 0; k < 3; k++) m.end();
    c.add(1000);
    const max = q(store, 'ConcurrentRequestsPerModel', 'Maximum');
    expect(max.map((p) => p.value)).toEqual([3, 3]);
    expect(max.map((p) => p.timestampMs)).toEqual([T0, T0 + 10_000]);
  });

  it('is per model container: two instances with 4 in flight each publish Maximum 4, not 8 (prevents target tracking scaling a fleet on its total)', () => {
    const c = clock();
    const store = new MetricStore({ now: c.now });
    const m = new VariantMetrics(store, 'e', 'v');
    for (let k = 0; k < 4; k++) {
      m.begin('i-a');
      c.add(10);
      m.begin('i-b');
      c.add(10);
    }
    c.add(1_000);
    m.begin('i-a'); // the busiest container now holds 5
    c.add(1_000);
    for (let k = 0; k < 5; k++) m.end('i-a');
    for (let k = 0; k < 4; k++) m.end('i-b');
    c.add(20_000);
    expect(q(store, 'ConcurrentRequestsPerModel', 'Maximum')[0]?.value).toBe(5);
    expect(m.concurrent).toBe(0);
  });

  it('averages over time, not over samples (a long 1 and a brief 5 average near 1)', () => {
    const c = clock();
    const store = new MetricStore({ now: c.now });
    const m = new VariantMetrics(store, 'e', 'v');
    m.begin(); // 1 from T0
    c.add(9_000);
    for (let k = 0; k < 4; k++) m.begin(); // 5 for 1 s
    c.add(1_000);
    for (let k = 0; k < 5; k++) m.end(); // 0 from T0+10s
    c.add(20_000);
    const avg = q(store, 'ConcurrentRequestsPerModel', 'Average');
    expect(avg).toHaveLength(2);
    expect(avg[0]?.value).toBeCloseTo((1 * 9 + 5 * 1) / 10, 9);
    expect(q(store, 'ConcurrentRequestsPerModel', 'Maximum')[0]?.value).toBe(5);
    // The period with only the drop to 0 has data (a change happened), all later ones are absent.
    expect(q(store, 'ConcurrentRequestsPerModel', 'Maximum')[1]).toEqual({
      timestampMs: T0 + 10_000,
      value: 0,
    });
    expect(q(store, 'ConcurrentRequestsPerModel', 'p50')[0]?.value).toBe(1);
  });

  it('carries a held value into later periods where nothing changed', () => {
    const c = clock(T0 + 5_000);
    const store = new MetricStore({ now: c.now });
    const m = new VariantMetrics(store, 'e', 'v');
    m.begin();
    m.begin();
    c.set(T0 + 35_000);
    const max = q(store, 'ConcurrentRequestsPerModel', 'Maximum');
    expect(max.map((p) => [p.timestampMs - T0, p.value])).toEqual([
      [0, 2],
      [10_000, 2],
      [20_000, 2],
      [30_000, 2],
    ]);
    // The first period: 0 for 5 s then 2 for 5 s.
    expect(q(store, 'ConcurrentRequestsPerModel', 'Average')[0]?.value).toBeCloseTo(1, 9);
  });
});

describe('event metrics', () => {
  it('aligns periods to the epoch and computes Sum, SampleCount, Average, extremes and nearest-rank percentiles', () => {
    const c = clock();
    const store = new MetricStore({ now: c.now });
    for (let v = 1; v <= 100; v++)
      store.record('AWS/SageMaker', 'ModelLatency', dims, v * 1000, 'Microseconds', T0 + 61_000 + v);
    const at = (stat: string) => q(store, 'ModelLatency', stat, 60);
    expect(at('SampleCount')).toEqual([{ timestampMs: T0 + 60_000, value: 100 }]);
    expect(at('Sum')[0]?.value).toBe(5050 * 1000);
    expect(at('Average')[0]?.value).toBe(50_500);
    expect(at('Minimum')[0]?.value).toBe(1000);
    expect(at('Maximum')[0]?.value).toBe(100_000);
    expect(at('p50')[0]?.value).toBe(50_000);
    expect(at('p99')[0]?.value).toBe(99_000);
    expect(at('p99.9')[0]?.value).toBe(100_000);
  });

  it('answers GetMetricData with epoch-second timestamps, newest first by default', async () => {
    const c = clock(T0 + 100_000);
    const store = new MetricStore({ now: c.now });
    const ops = createMetricOperations(store, c.now);
    await ops('PutMetricData', {
      Namespace: 'Custom',
      MetricData: [
        { MetricName: 'X', Value: 1, Timestamp: (T0 + 1_000) / 1000 },
        { MetricName: 'X', Value: 2, Timestamp: (T0 + 11_000) / 1000 },
        {
          MetricName: 'X',
          StatisticValues: { SampleCount: 2, Sum: 10, Minimum: 4, Maximum: 6 },
          Timestamp: (T0 + 12_000) / 1000,
        },
      ],
    });
    const query = (extra: Record<string, unknown>) =>
      ops('GetMetricData', {
        StartTime: T0 / 1000,
        EndTime: (T0 + 60_000) / 1000,
        MetricDataQueries: [
          {
            Id: 'x',
            MetricStat: { Metric: { Namespace: 'Custom', MetricName: 'X' }, Period: 10, Stat: 'Sum' },
          },
        ],
        ...extra,
      }) as Promise<{ MetricDataResults: Array<{ Timestamps: number[]; Values: number[] }> }>;
    const desc = (await query({})).MetricDataResults[0];
    expect(desc?.Timestamps).toEqual([(T0 + 10_000) / 1000, T0 / 1000]);
    expect(desc?.Values).toEqual([12, 1]);
    const asc = (await query({ ScanBy: 'TimestampAscending' })).MetricDataResults[0];
    expect(asc?.Values).toEqual([1, 12]);
  });

  it('refuses unsupported periods and statistics instead of answering something else', async () => {
    const store = new MetricStore();
    const ops = createMetricOperations(store);
    const base = { Namespace: 'AWS/SageMaker', MetricName: 'Invocations', StartTime: 0, EndTime: 60 };
    await expect(
      ops('GetMetricStatistics', { ...base, Period: 7, Statistics: ['Sum'] }),
    ).rejects.toMatchObject({
      type: 'InvalidParameterValueException',
    });
    await expect(
      ops('GetMetricStatistics', { ...base, Period: 60, Statistics: ['Median'] }),
    ).rejects.toMatchObject({
      type: 'InvalidParameterValueException',
    });
    await expect(ops('GetMetricStatistics', { ...base, Period: 60 })).rejects.toMatchObject({
      type: 'MissingRequiredParameterException',
    });
    await expect(
      ops('PutMetricData', { Namespace: 'AWS/SageMaker', MetricData: [{ MetricName: 'x', Value: 1 }] }),
    ).rejects.toMatchObject({
      type: 'InvalidParameterValueException',
    });
  });
});
