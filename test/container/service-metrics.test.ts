// The reference container publishes its own service time (FirstChunkLatency: dequeue to first
// audio byte) as CloudWatch embedded metric format on stdout, per window, on the host CPU and on an
// emulated device alike; the local SageMaker's EMF reader (what CloudWatch Logs does) reads it
// back. The service-time alarm depends on both ends agreeing.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { mulberry32 } from '../../infra/container/src/device.js';
import {
  bucketOf,
  bucketValue,
  emfLines,
  SERVICE_METRIC,
  ServiceTimeMetrics,
} from '../../infra/container/src/service-metrics.js';
import { type EmfDatum, extractEmf } from '../../src/local/emf.js';
import { SERVICE_METRICS } from '../../src/plan/policy-shape.js';
import { ensureContainerBuilt, invoke, killAll, newAgent, startContainer } from './harness.js';

const SENTENCE = 'The quick brown fox jumps over the lazy dog while the band plays on.';
const QUICK = { WARMUP_RUNS: '1' };
const TARGET = { endpointName: 'speech-test', variantName: 'AllTraffic' };
const NAMES = { SCALEGATE_ENDPOINT_NAME: 'speech-test', SCALEGATE_VARIANT_NAME: 'AllTraffic' };

/** Every value an EMF datum carries, each repeated by its count. */
const expand = (d: EmfDatum): number[] =>
  d.values
    ? d.values.flatMap((v, i) => Array.from({ length: Math.round(d.counts?.[i] ?? 1) }, () => v))
    : [d.value as number];

const nearestRank = (values: number[], p: number): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] as number;
};

describe('the EMF documents (pure)', () => {
  test('is the metric the service-time alarm watches (namespace, name, unit, dimensions)', () => {
    expect(SERVICE_METRIC.namespace).toBe(SERVICE_METRICS.namespace);
    expect(SERVICE_METRIC.name).toBe(SERVICE_METRICS.metricName);
    const [line] = emfLines(
      TARGET,
      1_000,
      new Map([[bucketOf(12), { count: 1, sum: 12, min: 12, max: 12 }]]),
    );
    const [datum] = extractEmf(line as string, 0);
    expect(datum).toMatchObject({
      namespace: SERVICE_METRICS.namespace,
      metricName: SERVICE_METRICS.metricName,
      unit: 'Milliseconds',
      dimensions: { EndpointName: 'speech-test', VariantName: 'AllTraffic' },
      timestampMs: 1_000,
    });
  });

  test('keeps every value within 1 % and a p95 read back within 1 % of the exact one, at 10 000 values in one window (one line per 100 buckets)', () => {
    const random = mulberry32(7);
    // Log-normal service times around 60 ms, as a loaded TTS container shows them.
    const values = Array.from({ length: 10_000 }, () => {
      const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
      return 60 * Math.exp(0.35 * z);
    });
    for (const v of values) expect(Math.abs(bucketValue(bucketOf(v)) / v - 1)).toBeLessThan(0.0101);
    const printed: string[] = [];
    let now = 10_000;
    const metrics = new ServiceTimeMetrics(
      TARGET,
      10_000,
      (l) => printed.push(l),
      () => now,
    );
    for (const v of values) metrics.record(v);
    now = 20_000;
    metrics.flush();
    // A histogram of 10 000 values is a few lines, not 10 000.
    expect(printed.length).toBeGreaterThan(0);
    expect(printed.length).toBeLessThanOrEqual(3);
    const data = printed.flatMap((l) => extractEmf(l, 0));
    for (const d of data) expect(d.values?.length).toBeLessThanOrEqual(100);
    const readBack = data.flatMap(expand);
    expect(readBack).toHaveLength(values.length);
    const exact = nearestRank(values, 95);
    expect(Math.abs(nearestRank(readBack, 95) / exact - 1)).toBeLessThan(0.0101);
    // Exact extremes and sum travel beside the buckets.
    const parsed = printed.map((l) => JSON.parse(l)[SERVICE_METRIC.name]);
    expect(Math.max(...parsed.map((h) => h.Max))).toBeCloseTo(Math.max(...values), 6);
    expect(parsed.reduce((s, h) => s + h.Count, 0)).toBe(values.length);
  });

  test('prints a window only once it has ended, under its start time, and everything left at close', () => {
    const printed: string[] = [];
    let now = 10_500;
    const metrics = new ServiceTimeMetrics(
      TARGET,
      10_000,
      (l) => printed.push(l),
      () => now,
    );
    metrics.record(5);
    now = 19_999;
    metrics.flush();
    expect(printed).toEqual([]);
    now = 20_001;
    metrics.record(7);
    metrics.flush();
    expect(printed.map((l) => JSON.parse(l)._aws.Timestamp)).toEqual([10_000]);
    metrics.close();
    expect(printed.map((l) => JSON.parse(l)._aws.Timestamp)).toEqual([10_000, 20_000]);
  });
});

describe('the container publishes it', () => {
  beforeAll(() => {
    ensureContainerBuilt();
  });
  afterEach(async () => {
    await killAll();
  });
  afterAll(async () => {
    await killAll();
  });

  const emfData = (lines: string[]): EmfDatum[] => lines.flatMap((l) => extractEmf(l, 0));
  const published = (lines: string[]): number[] => emfData(lines).flatMap(expand);

  test('on an emulated device, the device service time of each request, without its queueing (four requests queued on one lane)', async () => {
    const device = await startContainer({
      ...QUICK,
      ...NAMES,
      SERVICE_METRICS_INTERVAL_S: '1',
      DEVICE_PROFILE: JSON.stringify({
        source: 'test',
        lanes: 1,
        service_mean_ms: 200,
        service_sigma: 0,
        first_audio_fraction: 1,
      }),
    });
    expect(device.lines.join('\n')).toMatch(
      /service metrics: Scalegate\/Container FirstChunkLatency .* EndpointName=speech-test VariantName=AllTraffic, EMF every 1 s/,
    );
    const agent = newAgent();
    await invoke(device.port, { text: SENTENCE }, { agent }); // synthesised once, then replayed
    const results = await Promise.all(
      Array.from({ length: 4 }, () => invoke(device.port, { text: SENTENCE }, { agent })),
    );
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    await device.waitForLine(() => published(device.lines).length >= 5);
    const values = published(device.lines);
    expect(values).toHaveLength(5);
    for (const d of emfData(device.lines)) {
      expect(d).toMatchObject({ namespace: 'Scalegate/Container', metricName: 'FirstChunkLatency' });
      expect(d.timestampMs % 1000).toBe(0);
    }
    // Each request holds the lane for its 200 ms; the last three waited for it, the metric did not.
    const ttfabs = results.map((r) => r.ttfabMs as number).sort((a, b) => a - b);
    expect(Math.min(...values)).toBeGreaterThan(200 * 0.98);
    expect(Math.max(...values)).toBeLessThan(ttfabs[1] as number);
    expect(ttfabs[3]).toBeGreaterThan(3 * 200);
    agent.destroy();
  });

  test('on the host CPU, one value per request, and the last window at shutdown', async () => {
    const cpu = await startContainer({ ...QUICK, ...NAMES });
    await invoke(cpu.port, { text: SENTENCE });
    await invoke(cpu.port, { text: SENTENCE });
    cpu.child.kill('SIGTERM');
    await cpu.exited;
    // Drained before exit: the 10 s window had not ended, it was printed anyway.
    expect(published(cpu.lines)).toHaveLength(2);
  });

  test('publishes nothing without the endpoint names, and refuses one name without the other (exit 2)', async () => {
    const off = await startContainer(QUICK);
    await invoke(off.port, { text: SENTENCE });
    expect(off.lines.join('\n')).toMatch(/service metrics: off/);
    off.child.kill('SIGTERM');
    await off.exited;
    expect(off.lines.some((l) => l.includes('"_aws"'))).toBe(false);
    const half = await startContainer({ SCALEGATE_ENDPOINT_NAME: 'x' }, { waitReady: false });
    expect((await half.exited).code).toBe(2);
    expect(half.stderr()).toMatch(/set both or neither/);
  });
});
