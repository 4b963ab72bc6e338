// Embedded metric format: what CloudWatch Logs extracts from a log event (pure), and, end to end,
// the reference container's FirstChunkLatency lines in its log stream becoming a metric the real
// CloudWatch client reads back with percentile statistics from the local SageMaker.
import {
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  ListMetricsCommand,
} from '@aws-sdk/client-cloudwatch';
import { FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import { InvokeEndpointWithResponseStreamCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { extractEmf } from '../../src/local/emf.js';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, eventually } from './helpers.js';

const doc = (body: Record<string, unknown>, directive: Record<string, unknown> = {}) =>
  JSON.stringify({
    _aws: {
      Timestamp: 1_700_000_000_000,
      CloudWatchMetrics: [
        {
          Namespace: 'App',
          Dimensions: [['Service']],
          Metrics: [{ Name: 'Latency', Unit: 'Milliseconds' }],
          ...directive,
        },
      ],
    },
    Service: 'api',
    ...body,
  });

describe('extractEmf (what CloudWatch Logs extracts)', () => {
  it('reads a number, an array and a histogram target, at _aws.Timestamp, one metric per dimension set', () => {
    expect(extractEmf(doc({ Latency: 12 }), 0)).toEqual([
      {
        namespace: 'App',
        metricName: 'Latency',
        dimensions: { Service: 'api' },
        timestampMs: 1_700_000_000_000,
        unit: 'Milliseconds',
        value: 12,
      },
    ]);
    expect(extractEmf(doc({ Latency: [1, 2, 3] }), 0)[0]?.values).toEqual([1, 2, 3]);
    const histogram = { Values: [10, 20], Counts: [3, 1], Max: 21, Min: 9, Count: 4, Sum: 50 };
    expect(extractEmf(doc({ Latency: histogram }), 0)[0]).toMatchObject({ values: [10, 20], counts: [3, 1] });
    const twoSets = extractEmf(
      doc({ Latency: 5, Region: 'eu' }, { Dimensions: [['Service'], ['Service', 'Region']] }),
      0,
    );
    expect(twoSets.map((d) => d.dimensions)).toEqual([{ Service: 'api' }, { Service: 'api', Region: 'eu' }]);
  });

  it('takes the event time when _aws has no Timestamp, and None as the default unit', () => {
    const line = JSON.stringify({
      _aws: { CloudWatchMetrics: [{ Namespace: 'App', Dimensions: [[]], Metrics: [{ Name: 'N' }] }] },
      N: 1,
    });
    expect(extractEmf(line, 42)).toEqual([
      { namespace: 'App', metricName: 'N', dimensions: {}, timestampMs: 42, unit: 'None', value: 1 },
    ]);
  });

  it('extracts nothing from what breaks the specification (CloudWatch drops such a document whole)', () => {
    expect(extractEmf('[tts] listening port=1', 0)).toEqual([]);
    expect(extractEmf('{"_aws": nope', 0)).toEqual([]);
    expect(extractEmf(doc({ Latency: 'fast' }), 0)).toEqual([]);
    expect(extractEmf(doc({ Latency: Array.from({ length: 101 }, () => 1) }), 0)).toEqual([]);
    expect(
      extractEmf(doc({ Latency: { Values: [1, 2], Counts: [1], Max: 2, Min: 1, Count: 2, Sum: 3 } }), 0),
    ).toEqual([]);
    expect(extractEmf(doc({ Latency: 1, Service: 7 }), 0)).toEqual([]); // a dimension must be a string
    expect(extractEmf(doc({ Latency: 1 }, { Namespace: 'AWS/SageMaker' }), 0)).toEqual([]);
  });
});

describe('the container service time through the local SageMaker (logs -> metrics)', () => {
  let h: LocalSageMakerHandle;
  let c: ReturnType<typeof clientsFor>;
  beforeAll(async () => {
    h = await startLocalSageMaker({
      provisionDelayS: 0,
      environment: { SERVICE_METRICS_INTERVAL_S: '1', WARMUP_RUNS: '1' },
    });
    c = clientsFor(h);
  });
  afterAll(async () => {
    c?.destroy();
    await h?.close();
  });

  it('turns the FirstChunkLatency EMF lines of the log stream into a metric with p95, by endpoint and variant', async () => {
    const started = Date.now();
    const n = 6;
    for (let i = 0; i < n; i++) {
      const out = await c.runtime.send(
        new InvokeEndpointWithResponseStreamCommand({
          EndpointName: h.endpointName,
          Body: JSON.stringify({ text: `Sentence number ${i} for the service-time metric.` }),
          ContentType: 'application/json',
        }),
      );
      for await (const _ of out.Body ?? []) {
        // drain the stream
      }
    }
    const dimensions = [
      { Name: 'EndpointName', Value: h.endpointName },
      { Name: 'VariantName', Value: h.variantName },
    ];
    const query = {
      Namespace: 'Scalegate/Container',
      MetricName: 'FirstChunkLatency',
      Dimensions: dimensions,
      StartTime: new Date(started - 60_000),
      EndTime: new Date(Date.now() + 60_000),
      Period: 60,
    };
    // The container prints each 1 s window once it has ended: wait for all n values.
    const stats = await eventually(async () => {
      const out = await c.cloudwatch.send(
        new GetMetricStatisticsCommand({
          ...query,
          Statistics: ['SampleCount', 'Maximum'],
          ExtendedStatistics: ['p95'],
        }),
      );
      const total = (out.Datapoints ?? []).reduce((s, d) => s + (d.SampleCount ?? 0), 0);
      return total >= n ? out.Datapoints : undefined;
    });
    expect(stats?.reduce((s, d) => s + (d.SampleCount ?? 0), 0)).toBe(n);
    for (const d of stats ?? []) {
      expect(d.Unit).toBe('Milliseconds');
      expect(d.ExtendedStatistics?.p95).toBeGreaterThan(0);
      expect(d.ExtendedStatistics?.p95).toBeLessThanOrEqual((d.Maximum ?? 0) * 1.011);
    }
    // The same numbers through GetMetricData (what dashboards and the drill read).
    const data = await c.cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: query.StartTime,
        EndTime: query.EndTime,
        MetricDataQueries: [
          {
            Id: 'service',
            MetricStat: {
              Metric: { Namespace: query.Namespace, MetricName: query.MetricName, Dimensions: dimensions },
              Period: 60,
              Stat: 'p95',
            },
          },
        ],
      }),
    );
    expect(data.MetricDataResults?.[0]?.Values?.length).toBeGreaterThan(0);
    const listed = await c.cloudwatch.send(new ListMetricsCommand({ Namespace: 'Scalegate/Container' }));
    expect(listed.Metrics?.map((m) => m.MetricName)).toEqual(['FirstChunkLatency']);
    // The lines are in the instance's log stream as they were printed.
    const logs = await c.logs.send(
      new FilterLogEventsCommand({
        logGroupName: `/aws/sagemaker/Endpoints/${h.endpointName}`,
        filterPattern: '"FirstChunkLatency"',
      }),
    );
    expect(logs.events?.length).toBeGreaterThan(0);
  });
});
