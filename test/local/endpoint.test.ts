// The local SageMaker with the reference TTS container, driven only through the real SDK v3
// clients over loopback. Tests run in order and share one emulator (starting containers is the
// slow part); each says which failure it prevents.
import {
  DeleteScalingPolicyCommand,
  DescribeScalableTargetsCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import {
  DescribeAlarmsCommand,
  DescribeAnomalyDetectorsCommand,
  GetMetricDataCommand,
  GetMetricStatisticsCommand,
  ListMetricsCommand,
  PutMetricDataCommand,
} from '@aws-sdk/client-cloudwatch';
import {
  DescribeLogStreamsCommand,
  FilterLogEventsCommand,
  GetLogEventsCommand,
  PutLogEventsCommand,
} from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  DescribeTrainingJobCommand,
  ListEndpointsCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import {
  InvokeEndpointCommand,
  InvokeEndpointWithResponseStreamCommand,
} from '@aws-sdk/client-sagemaker-runtime';
import { GetServiceQuotaCommand, ListServiceQuotasCommand } from '@aws-sdk/client-service-quotas';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { localImageUri } from '../../src/commands/rehearse.js';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, eventually, isAlive, rejectionOf } from './helpers.js';

const STAGES = ['container_start', 'framework_init', 'weights_ready', 'warmup_done', 'ready'];
const LONG_TEXT =
  'The admission gate holds at most four requests in flight. Every request beyond that is refused at once, ' +
  'so that a queue can never grow without bound while the fleet is still scaling out to meet the load. ' +
  'This sentence is long on purpose so that synthesis takes a while, and the requests that arrive together ' +
  'are still all in flight when the last of them reaches the container, even on a slow and busy machine. ' +
  'Serial synthesis on one worker makes the fourth request wait for the first three to finish before it starts.';

let h: LocalSageMakerHandle;
let c: ReturnType<typeof clientsFor>;
const pidsSeen = new Set<number>();
const remember = () => {
  for (const i of h.instances()) if (i.pid) pidsSeen.add(i.pid);
};

const emulatorLog: string[] = [];
beforeAll(async () => {
  h = await startLocalSageMaker({
    // The image scalegate gives the local SageMaker (rehearse, local up): infra/container's CDK asset URI.
    imageUri: localImageUri(),
    provisionDelayS: 1,
    maxQueueDepth: 4,
    quota: 4,
    log: (line) => emulatorLog.push(`${new Date().toISOString()} ${line}`),
  });
  c = clientsFor(h);
  remember();
});

// On a failure, show what the fleet did: the cause is usually there (an instance that died...).
afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail') console.error(`emulator log:\n${emulatorLog.slice(-40).join('\n')}`);
});

afterAll(async () => {
  c?.destroy();
  await h?.close();
  // close() waited for every container it started: none may outlive it.
  for (const pid of pidsSeen) expect(isAlive(pid)).toBe(false);
});

const describeEndpoint = () =>
  c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: h.endpointName }));
const invokeStream = (text: string) =>
  c.runtime.send(
    new InvokeEndpointWithResponseStreamCommand({
      EndpointName: h.endpointName,
      Body: JSON.stringify({ text }),
      ContentType: 'application/json',
    }),
  );
const invoke = (text: string) =>
  c.runtime.send(
    new InvokeEndpointCommand({
      EndpointName: h.endpointName,
      Body: JSON.stringify({ text }),
      ContentType: 'application/json',
    }),
  );
const dims = () => [
  { Name: 'EndpointName', Value: h.endpointName },
  { Name: 'VariantName', Value: h.variantName },
];

describe('control plane (SageMaker JSON 1.1)', () => {
  it('describes the endpoint as deployed, so drift/validate read real counts, image and config', async () => {
    const d = await describeEndpoint();
    expect(d.EndpointStatus).toBe('InService');
    expect(d.EndpointConfigName).toBe(`${h.endpointName}-config`);
    expect(d.CreationTime).toBeInstanceOf(Date);
    expect(d.LastModifiedTime).toBeInstanceOf(Date);
    const v = d.ProductionVariants?.[0];
    expect(v?.VariantName).toBe('AllTraffic');
    expect(v?.CurrentInstanceCount).toBe(1);
    expect(v?.DesiredInstanceCount).toBe(1);
    expect(v?.CurrentWeight).toBe(1);
    expect(v?.DesiredWeight).toBe(1);
    const image = v?.DeployedImages?.[0];
    // The tag is the CDK content hash of infra/container; the digest carries the same hash.
    expect(image?.SpecifiedImage).toMatch(
      /^000000000000\.dkr\.ecr\.local\.amazonaws\.com\/cdk-hnb659fds-container-assets-000000000000-local:[0-9a-f]{64}$/,
    );
    expect(image?.ResolvedImage).toContain(`@sha256:${image?.SpecifiedImage?.split(':').pop()}`);
    expect(image?.ResolutionTime).toBeInstanceOf(Date);

    const cfg = await c.sagemaker.send(
      new DescribeEndpointConfigCommand({ EndpointConfigName: d.EndpointConfigName }),
    );
    const pv = cfg.ProductionVariants?.[0];
    expect(pv).toMatchObject({
      VariantName: 'AllTraffic',
      InstanceType: 'ml.g5.xlarge',
      InitialInstanceCount: 1,
      RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
    });

    const model = await c.sagemaker.send(new DescribeModelCommand({ ModelName: pv?.ModelName }));
    expect(model.PrimaryContainer?.Image).toBe(image?.SpecifiedImage);
    expect(model.PrimaryContainer?.Environment?.MAX_QUEUE_DEPTH).toBe('4');
    expect(model.ExecutionRoleArn).toMatch(/^arn:aws:iam::000000000000:role\//);

    const list = await c.sagemaker.send(new ListEndpointsCommand({}));
    expect(list.Endpoints?.map((e) => e.EndpointName)).toEqual([h.endpointName]);
  });

  it('answers an unknown endpoint with ValidationException, as AWS does, not an empty 200', async () => {
    const e = await rejectionOf(
      c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: 'no-such-endpoint' })),
    );
    expect(e.name).toBe('ValidationException');
    expect(e.message).toContain('no-such-endpoint');
  });

  it('refuses an operation it does not implement with an error naming it (never a silent 200)', async () => {
    const sm = await rejectionOf(c.sagemaker.send(new DescribeTrainingJobCommand({ TrainingJobName: 'x' })));
    expect(sm.name).toBe('UnknownOperationException');
    expect(sm.message).toContain('DescribeTrainingJob');
    const cw = await rejectionOf(c.cloudwatch.send(new DescribeAnomalyDetectorsCommand({})));
    expect(cw.name).toBe('UnknownOperationException');
    expect(cw.message).toContain('DescribeAnomalyDetectors');
    const logs = await rejectionOf(
      c.logs.send(new PutLogEventsCommand({ logGroupName: 'g', logStreamName: 's', logEvents: [] })),
    );
    expect(logs.name).toBe('UnknownOperationException');
    expect(logs.message).toContain('PutLogEvents');
  });
});

describe('runtime (REST-JSON and event stream)', () => {
  it('streams real WAV audio that the SDK decodes from PayloadPart events (no broken framing)', async () => {
    const out = await invokeStream('Hello from the local SageMaker.');
    expect(out.ContentType).toBe('audio/wav');
    expect(out.InvokedProductionVariant).toBe('AllTraffic');
    const parts: Uint8Array[] = [];
    for await (const event of out.Body ?? [])
      if (event.PayloadPart?.Bytes) parts.push(event.PayloadPart.Bytes);
    expect(parts.length).toBeGreaterThan(1); // streamed as produced, not one buffered blob
    const wav = Buffer.concat(parts);
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(wav.subarray(8, 12).toString('ascii')).toBe('WAVE');
    expect(wav.subarray(12, 16).toString('ascii')).toBe('fmt ');
    expect(wav.readUInt16LE(20)).toBe(1); // PCM
    expect(wav.readUInt16LE(22)).toBe(1); // mono
    const sampleRate = wav.readUInt32LE(24);
    expect(sampleRate).toBe(22050);
    expect(wav.readUInt16LE(34)).toBe(16);
    expect(wav.subarray(36, 40).toString('ascii')).toBe('data');
    const pcmBytes = wav.length - 44;
    expect(pcmBytes % 2).toBe(0);
    // A short sentence is well over half a second of speech at 22.05 kHz, 16 bit.
    expect(pcmBytes / 2 / sampleRate).toBeGreaterThan(0.5);
  });

  it('returns the whole WAV for a buffered InvokeEndpoint', async () => {
    const out = await invoke('Buffered audio.');
    const wav = Buffer.from(out.Body as Uint8Array);
    expect(out.ContentType).toBe('audio/wav');
    expect(out.InvokedProductionVariant).toBe('AllTraffic');
    expect(wav.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(wav.length).toBeGreaterThan(44);
  });

  it('answers an unknown endpoint like SageMaker Runtime (ValidationError, 400, "of account ... not found")', async () => {
    const e = await rejectionOf(
      c.runtime.send(
        new InvokeEndpointCommand({ EndpointName: 'missing', Body: '{}', ContentType: 'application/json' }),
      ),
    );
    expect(e.name).toBe('ValidationError');
    expect(e.message).toBe('Endpoint missing of account 000000000000 not found.');
    expect((e.$metadata as { httpStatusCode: number }).httpStatusCode).toBe(400);
  });

  it('lets exactly 2 of 6 concurrent requests fail with the container 503 queue_saturated (MAX_QUEUE_DEPTH=4)', async () => {
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => invoke(LONG_TEXT)));
    const refused = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    expect(refused).toHaveLength(2);
    for (const e of refused) {
      // SageMaker wraps a container's non-2xx in ModelError (424) with the original status and body.
      expect(e.name).toBe('ModelError');
      expect(e.OriginalStatusCode).toBe(503);
      expect(JSON.parse(e.OriginalMessage)).toMatchObject({ error: 'queue_saturated', max_queue_depth: 4 });
      expect(e.$metadata.httpStatusCode).toBe(424);
    }
  });

  it('surfaces queue_saturated through the response-stream API too (the load engine classifies it)', async () => {
    const streams = Array.from({ length: 6 }, () =>
      invokeStream(LONG_TEXT).then(async (out) => {
        for await (const _ of out.Body ?? []) {
          // drain
        }
      }),
    );
    const results = await Promise.allSettled(streams);
    const refused = results
      .filter((r) => r.status === 'rejected')
      .map((r) => (r as PromiseRejectedResult).reason);
    expect(refused).toHaveLength(2);
    for (const e of refused) {
      expect(e.name).toBe('ModelError');
      expect(e.OriginalStatusCode).toBe(503);
      expect(e.OriginalMessage).toContain('queue_saturated');
    }
  });

  it('answers 100 malformed requests with ModelError 400 and leaves nothing in flight (router and container gate)', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, k) =>
        c.runtime.send(
          new InvokeEndpointCommand({
            EndpointName: h.endpointName,
            Body: k % 2 ? '{"text": 42}' : 'not json',
            ContentType: 'application/json',
          }),
        ),
      ),
    );
    for (const r of results) {
      expect(r.status).toBe('rejected');
      const e = (r as PromiseRejectedResult).reason;
      expect(e.name).toBe('ModelError');
      expect(e.OriginalStatusCode).toBe(400);
    }
    const [instance] = h.instances();
    expect(instance?.inFlight).toBe(0);
    const ping = await fetch(`http://127.0.0.1:${instance?.port}/ping`);
    expect(((await ping.json()) as { in_flight: number }).in_flight).toBe(0);
    // The gate still admits: a good request succeeds right after.
    expect((await invoke('Still fine.')).Body?.length).toBeGreaterThan(44);
  });
});

describe('metrics (CloudWatch JSON 1.0, from real traffic)', () => {
  it('reports Maximum ConcurrentRequestsPerModel = N over 10 s periods for a closed loop of N', async () => {
    h.reset(); // earlier tests drove 6 at once; this measures only the loop
    const N = 3;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: N }, async () => {
        for (let k = 0; k < 4; k++) await invoke('One two three four five.');
      }),
    );
    const out = await c.cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(started - 20_000),
        EndTime: new Date(Date.now() + 10_000),
        MetricDataQueries: [
          {
            Id: 'mx',
            MetricStat: {
              Metric: {
                Namespace: 'AWS/SageMaker',
                MetricName: 'ConcurrentRequestsPerModel',
                Dimensions: dims(),
              },
              Period: 10,
              Stat: 'Maximum',
            },
          },
          {
            Id: 'avg',
            MetricStat: {
              Metric: {
                Namespace: 'AWS/SageMaker',
                MetricName: 'ConcurrentRequestsPerModel',
                Dimensions: dims(),
              },
              Period: 10,
              Stat: 'Average',
            },
          },
          {
            Id: 'inv',
            MetricStat: {
              Metric: { Namespace: 'AWS/SageMaker', MetricName: 'Invocations', Dimensions: dims() },
              Period: 60,
              Stat: 'Sum',
            },
          },
        ],
      }),
    );
    const [mx, avg, inv] = out.MetricDataResults ?? [];
    expect(mx?.StatusCode).toBe('Complete');
    expect(mx?.Label).toBe('ConcurrentRequestsPerModel');
    const values = mx?.Values ?? [];
    expect(Math.max(...values)).toBe(N);
    for (const v of values) expect(v).toBeLessThanOrEqual(N);
    // Default ScanBy is TimestampDescending; every timestamp is on a 10 s boundary.
    const ts = (mx?.Timestamps ?? []).map((t) => t.getTime());
    expect(ts).toEqual([...ts].sort((a, b) => b - a));
    for (const t of ts) expect(t % 10_000).toBe(0);
    // The oldest period is where the loop started with all N requests at once.
    expect(values[values.length - 1]).toBe(N);
    for (const v of avg?.Values ?? []) {
      expect(v).toBeGreaterThan(0);
      expect(v).toBeLessThanOrEqual(N);
    }
    expect((inv?.Values ?? []).reduce((a, b) => a + b, 0)).toBe(N * 4);
  });

  it('serves GetMetricStatistics with statistics, p-statistics and units (ModelLatency in microseconds)', async () => {
    const out = await c.cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/SageMaker',
        MetricName: 'ModelLatency',
        Dimensions: dims(),
        StartTime: new Date(Date.now() - 300_000),
        EndTime: new Date(Date.now() + 60_000),
        Period: 60,
        Statistics: ['SampleCount', 'Average', 'Maximum', 'Minimum'],
        ExtendedStatistics: ['p50', 'p99.9'],
      }),
    );
    const points = out.Datapoints ?? [];
    expect(points.length).toBeGreaterThan(0);
    expect(points.reduce((a, p) => a + (p.SampleCount ?? 0), 0)).toBe(12);
    for (const p of points) {
      expect(p.Unit).toBe('Microseconds');
      expect((p.Timestamp?.getTime() ?? 1) % 60_000).toBe(0);
      // Each request took at least a millisecond of synthesis: values are microseconds, not ms.
      expect(p.Minimum).toBeGreaterThan(1000);
      expect(p.ExtendedStatistics?.p50).toBeGreaterThanOrEqual(p.Minimum ?? 0);
      expect(p.ExtendedStatistics?.['p99.9']).toBe(p.Maximum);
    }
    const errors = await c.cloudwatch.send(
      new GetMetricStatisticsCommand({
        Namespace: 'AWS/SageMaker',
        MetricName: 'Invocation5XXErrors',
        Dimensions: dims(),
        StartTime: new Date(Date.now() - 300_000),
        EndTime: new Date(Date.now() + 60_000),
        Period: 60,
        Statistics: ['Sum'],
      }),
    );
    expect(errors.Datapoints?.reduce((a, p) => a + (p.Sum ?? 0), 0)).toBe(0);
  });

  it('stores PutMetricData in any namespace, lists metrics and refuses metric math clearly', async () => {
    const now = new Date();
    await c.cloudwatch.send(
      new PutMetricDataCommand({
        Namespace: 'Scalegate/Test',
        MetricData: [
          { MetricName: 'Depth', Dimensions: [{ Name: 'Model', Value: 'kokoro' }], Value: 7, Timestamp: now },
          {
            MetricName: 'Depth',
            Dimensions: [{ Name: 'Model', Value: 'kokoro' }],
            Values: [1, 2],
            Counts: [1, 3],
            Timestamp: now,
          },
        ],
      }),
    );
    const out = await c.cloudwatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(now.getTime() - 60_000),
        EndTime: new Date(now.getTime() + 60_000),
        ScanBy: 'TimestampAscending',
        MetricDataQueries: ['Sum', 'SampleCount', 'Maximum', 'p50'].map((Stat) => ({
          Id: Stat.toLowerCase(),
          MetricStat: {
            Metric: {
              Namespace: 'Scalegate/Test',
              MetricName: 'Depth',
              Dimensions: [{ Name: 'Model', Value: 'kokoro' }],
            },
            Period: 60,
            Stat,
          },
        })),
      }),
    );
    expect(out.MetricDataResults?.map((r) => r.Values)).toEqual([[14], [5], [7], [2]]);

    const listed = await c.cloudwatch.send(new ListMetricsCommand({ Namespace: 'AWS/SageMaker' }));
    const names = new Set(listed.Metrics?.map((m) => m.MetricName));
    for (const n of [
      'ConcurrentRequestsPerModel',
      'Invocations',
      'Invocation4XXErrors',
      'Invocation5XXErrors',
      'ModelLatency',
    ])
      expect(names.has(n)).toBe(true);

    const math = await rejectionOf(
      c.cloudwatch.send(
        new GetMetricDataCommand({
          StartTime: new Date(now.getTime() - 60_000),
          EndTime: now,
          MetricDataQueries: [{ Id: 'e', Expression: 'SUM(METRICS())' }],
        }),
      ),
    );
    expect(math.name).toBe('InvalidParameterValueException');
    expect(math.message).toContain('metric math');
  });
});

describe('logs, quotas and the autoscaling wiring', () => {
  it('keeps one log stream per instance with the container stage markers, exactly and in order', async () => {
    const group = `/aws/sagemaker/Endpoints/${h.endpointName}`;
    const [instance] = h.instances();
    const streams = await c.logs.send(
      new DescribeLogStreamsCommand({ logGroupName: group, logStreamNamePrefix: 'AllTraffic/' }),
    );
    const s = streams.logStreams?.find((x) => x.logStreamName === `AllTraffic/${instance?.id}`);
    expect(s?.creationTime).toBeTypeOf('number');
    expect(s?.firstEventTimestamp).toBeLessThanOrEqual(s?.lastEventTimestamp ?? 0);
    expect(s?.lastIngestionTime).toBeTypeOf('number');

    // Read forward page by page: the token must come back unchanged at the end (or a reader loops forever).
    const messages: string[] = [];
    let token: string | undefined;
    for (let page = 0; page < 100; page++) {
      const out = await c.logs.send(
        new GetLogEventsCommand({
          logGroupName: group,
          logStreamName: s?.logStreamName,
          startFromHead: true,
          limit: 3,
          ...(token ? { nextToken: token } : {}),
        }),
      );
      for (const e of out.events ?? []) messages.push(e.message ?? '');
      if (out.nextForwardToken === token) break;
      token = out.nextForwardToken;
    }
    const markers = messages.filter((m) => m.startsWith('=== STAGE '));
    expect(markers.map((m) => m.split(' ')[2])).toEqual(STAGES);
    for (const m of markers)
      expect(m).toMatch(/^=== STAGE \w+ t=\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z elapsed_s=\d+\.\d{3} ===$/);

    const filtered = await c.logs.send(
      new FilterLogEventsCommand({
        logGroupName: group,
        logStreamNames: [s?.logStreamName ?? ''],
        filterPattern: '"=== STAGE"',
      }),
    );
    expect(filtered.events?.map((e) => e.message)).toEqual(markers);
    const ready = filtered.events?.find((e) => e.message?.includes('STAGE ready'));
    expect(ready?.timestamp).toBeGreaterThanOrEqual(filtered.events?.[0]?.timestamp ?? 0);

    const missing = await rejectionOf(
      c.logs.send(new DescribeLogStreamsCommand({ logGroupName: '/aws/sagemaker/Endpoints/nope' })),
    );
    expect(missing.name).toBe('ResourceNotFoundException');
  });

  it('reports the endpoint-usage quota of the instance type (L-1928E07B for ml.g5.xlarge)', async () => {
    const q = await c.quotas.send(
      new GetServiceQuotaCommand({ ServiceCode: 'sagemaker', QuotaCode: 'L-1928E07B' }),
    );
    expect(q.Quota).toMatchObject({
      QuotaName: 'ml.g5.xlarge for endpoint usage',
      Value: 4,
      QuotaCode: 'L-1928E07B',
    });
    const list = await c.quotas.send(new ListServiceQuotasCommand({ ServiceCode: 'sagemaker' }));
    expect(list.Quotas?.map((x) => x.QuotaCode)).toEqual(['L-1928E07B']);
    const none = await rejectionOf(
      c.quotas.send(new GetServiceQuotaCommand({ ServiceCode: 'sagemaker', QuotaCode: 'L-00000000' })),
    );
    expect(none.name).toBe('NoSuchResourceException');
  });

  it('routes Application Auto Scaling and CloudWatch alarm operations to the autoscaling side', async () => {
    const resourceId = `endpoint/${h.endpointName}/variant/${h.variantName}`;
    await c.autoscaling.send(
      new RegisterScalableTargetCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId,
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        MinCapacity: 1,
        MaxCapacity: 3,
      }),
    );
    const targets = await c.autoscaling.send(
      new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker', ResourceIds: [resourceId] }),
    );
    expect(targets.ScalableTargets?.[0]).toMatchObject({
      ResourceId: resourceId,
      MinCapacity: 1,
      MaxCapacity: 3,
    });
    const alarms = await c.cloudwatch.send(new DescribeAlarmsCommand({}));
    expect(alarms.MetricAlarms).toEqual([]);
    const gone = await rejectionOf(
      c.autoscaling.send(
        new DeleteScalingPolicyCommand({
          ServiceNamespace: 'sagemaker',
          ResourceId: resourceId,
          ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
          PolicyName: 'nope',
        }),
      ),
    );
    expect(gone.name).toBe('ObjectNotFoundException');
    h.reset(); // forget the scalable target: later tests change capacity by hand
  });
});

describe('faults', () => {
  it('throttles with ThrottlingException where told to, and reset() clears it', async () => {
    h.faults = { throttle: { 'SageMaker.DescribeEndpoint': 1, SageMakerRuntime: 1 } };
    const e = await rejectionOf(describeEndpoint());
    expect(e.name).toBe('ThrottlingException');
    const r = await rejectionOf(invoke('x'));
    expect(r.name).toBe('ThrottlingException');
    // Other operations are untouched.
    await c.sagemaker.send(new ListEndpointsCommand({}));
    h.reset();
    expect((await describeEndpoint()).EndpointStatus).toBe('InService');
  });

  it('injects service 5xx on invocations (InternalFailure) and counts them in Invocation5XXErrors', async () => {
    h.faults = { invocation5xxRate: 1, addedLatencyMs: 5 };
    const e = await rejectionOf(invoke('x'));
    expect(e.name).toBe('InternalFailure');
    expect((e.$metadata as { httpStatusCode: number }).httpStatusCode).toBe(500);
    h.faults = {};
    const errors = h.metrics.query({
      namespace: 'AWS/SageMaker',
      metricName: 'Invocation5XXErrors',
      dimensions: { EndpointName: h.endpointName, VariantName: h.variantName },
      stat: 'Sum',
      periodS: 60,
      startMs: Date.now() - 120_000,
      endMs: Date.now() + 60_000,
    });
    expect(errors.reduce((a, p) => a + p.value, 0)).toBe(1);
  });
});

describe('capacity changes (real processes, real delays)', () => {
  it('scales 1 -> 2: Updating, then InService with a new log stream carrying all five stage markers', async () => {
    const before = new Set(h.instances().map((i) => i.id));
    await c.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: h.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: h.variantName, DesiredInstanceCount: 2 }],
      }),
    );
    const updating = await describeEndpoint();
    expect(updating.EndpointStatus).toBe('Updating');
    expect(updating.ProductionVariants?.[0]).toMatchObject({
      CurrentInstanceCount: 1,
      DesiredInstanceCount: 2,
    });

    // A second change while one is in progress is refused, as on AWS.
    const busy = await rejectionOf(
      c.sagemaker.send(
        new UpdateEndpointWeightsAndCapacitiesCommand({
          EndpointName: h.endpointName,
          DesiredWeightsAndCapacities: [{ VariantName: h.variantName, DesiredInstanceCount: 3 }],
        }),
      ),
    );
    expect(busy.name).toBe('ValidationException');

    const settled = await eventually(async () => {
      const d = await describeEndpoint();
      return d.EndpointStatus === 'InService' ? d : undefined;
    });
    expect(settled.ProductionVariants?.[0]).toMatchObject({
      CurrentInstanceCount: 2,
      DesiredInstanceCount: 2,
    });
    expect(settled.LastModifiedTime?.getTime()).toBeGreaterThan(updating.LastModifiedTime?.getTime() ?? 0);
    remember();

    const added = h.instances().find((i) => !before.has(i.id));
    expect(added?.state).toBe('InService');
    const events = await c.logs.send(
      new GetLogEventsCommand({
        logGroupName: `/aws/sagemaker/Endpoints/${h.endpointName}`,
        logStreamName: `AllTraffic/${added?.id}`,
        startFromHead: true,
      }),
    );
    const markers = (events.events ?? []).filter((e) => e.message?.startsWith('=== STAGE '));
    expect(markers.map((e) => e.message?.split(' ')[2])).toEqual(STAGES);
    const times = markers.map((e) => e.timestamp ?? 0);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    // The instance id looks like an EC2-style id.
    expect(added?.id).toMatch(/^i-[0-9a-f]{17}$/);

    const newest = await c.logs.send(
      new DescribeLogStreamsCommand({
        logGroupName: `/aws/sagemaker/Endpoints/${h.endpointName}`,
        orderBy: 'LastEventTime',
        descending: true,
      }),
    );
    expect(newest.logStreams).toHaveLength(2);
  });

  it('routes by least outstanding requests: two concurrent requests land on two instances', async () => {
    const pending = [invoke(LONG_TEXT), invoke(LONG_TEXT)];
    await eventually(() => (h.instances().every((i) => i.inFlight === 1) ? true : undefined));
    await Promise.all(pending);
  });

  it('refuses a capacity beyond the quota with ResourceLimitExceeded', async () => {
    const e = await rejectionOf(
      c.sagemaker.send(
        new UpdateEndpointWeightsAndCapacitiesCommand({
          EndpointName: h.endpointName,
          DesiredWeightsAndCapacities: [{ VariantName: h.variantName, DesiredInstanceCount: 5 }],
        }),
      ),
    );
    expect(e.name).toBe('ResourceLimitExceeded');
    expect(e.message).toContain("'ml.g5.xlarge for endpoint usage' is 4 Instances");
  });

  it('scales 2 -> 1: the removed instance drains and its process is gone', async () => {
    const before = h.instances();
    await c.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: h.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: h.variantName, DesiredInstanceCount: 1 }],
      }),
    );
    await eventually(async () =>
      (await describeEndpoint()).EndpointStatus === 'InService' ? true : undefined,
    );
    const d = await describeEndpoint();
    expect(d.ProductionVariants?.[0]).toMatchObject({ CurrentInstanceCount: 1, DesiredInstanceCount: 1 });
    const remaining = new Set(h.instances().map((i) => i.id));
    const removed = before.filter((i) => !remaining.has(i.id));
    expect(removed).toHaveLength(1);
    expect(isAlive(removed[0]?.pid ?? 0)).toBe(false);
  });

  it('updates the model environment through a new model and endpoint config; replaced instances run with it', async () => {
    const old = h.instances()[0];
    await h.updateModelEnvironment({ MAX_QUEUE_DEPTH: '8' }, { replaceInstances: true });
    const { EndpointConfigName } = await describeEndpoint();
    expect(EndpointConfigName).not.toBe(`${h.endpointName}-config`);
    const config = await c.sagemaker.send(new DescribeEndpointConfigCommand({ EndpointConfigName }));
    const model = await c.sagemaker.send(
      new DescribeModelCommand({ ModelName: config.ProductionVariants?.[0]?.ModelName }),
    );
    expect(model.PrimaryContainer?.Environment?.MAX_QUEUE_DEPTH).toBe('8');
    // Models are immutable: the one the endpoint was created with still says 4.
    const first = await c.sagemaker.send(new DescribeModelCommand({ ModelName: `${h.endpointName}-model` }));
    expect(first.PrimaryContainer?.Environment?.MAX_QUEUE_DEPTH).toBe('4');
    const now = h.instances();
    expect(now).toHaveLength(1);
    expect(now[0]?.id).not.toBe(old?.id);
    expect(now[0]?.environment.MAX_QUEUE_DEPTH).toBe('8');
    expect(isAlive(old?.pid ?? 0)).toBe(false);
    remember();
    expect((await describeEndpoint()).EndpointStatus).toBe('InService');
  });
});
