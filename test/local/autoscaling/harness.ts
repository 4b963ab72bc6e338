/**
 * Test-only stand-in for the local SageMaker's HTTP side: routes the JSON protocols to the
 * Application Auto Scaling and CloudWatch-alarm handlers, so the real SDK v3 clients can be used
 * without the endpoint engineer's server. Fakes: a CapacityTarget whose instances only arrive when
 * the test says so, a MetricReader over raw samples the test pushes, and a clock the test moves.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { CloudWatchClient, DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { createAutoScaling } from '../../../src/local/autoscaling/index.js';
import { AwsError } from '../../../src/local/aws-error.js';
import type { CapacityTarget, MetricPoint, MetricQuery, MetricReader } from '../../../src/local/contracts.js';

/** A round start: a multiple of every period used (10 s, 60 s). */
export const T0 = 1_800_000_000_000;

export class FakeClock {
  constructor(public t: number = T0) {}
  now = (): number => this.t;
  advance(ms: number): void {
    this.t += ms;
  }
}

interface Variant {
  desired: number;
  current: number;
  status: string;
}

export class FakeCapacity implements CapacityTarget {
  readonly variants = new Map<string, Variant>();
  readonly setDesiredCalls: { resourceId: string; desired: number }[] = [];
  failNext: Error | undefined;

  add(resourceId: string, instances: number): void {
    this.variants.set(resourceId, { desired: instances, current: instances, status: 'InService' });
  }

  describe(resourceId: string): Variant | undefined {
    const v = this.variants.get(resourceId);
    return v ? { ...v } : undefined;
  }

  async setDesired(resourceId: string, desired: number): Promise<void> {
    const v = this.variants.get(resourceId);
    if (!v) throw new Error(`no variant ${resourceId}`);
    if (this.failNext) {
      const e = this.failNext;
      this.failNext = undefined;
      throw e;
    }
    this.setDesiredCalls.push({ resourceId, desired });
    v.desired = desired;
    v.status = 'Updating';
  }

  /** The instances asked for are now serving. */
  catchUp(resourceId: string): void {
    const v = this.variants.get(resourceId) as Variant;
    v.current = v.desired;
    v.status = 'InService';
  }

  /** What UpdateEndpointWeightsAndCapacities does on the other side: not an AAS activity. */
  manualSet(resourceId: string, instances: number): void {
    this.variants.set(resourceId, { desired: instances, current: instances, status: 'InService' });
  }
}

interface Sample {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  timestampMs: number;
  value: number;
}

/**
 * Raw samples aggregated per period on query, as the metrics store does; or, given `backing`,
 * every query answered by that reader (the real MetricStore), still counted for `afterTicks`.
 */
export class FakeMetrics implements MetricReader {
  private readonly samples: Sample[] = [];
  queries = 0;
  readonly stats = new Set<string>();

  constructor(private readonly backing?: MetricReader) {}

  push(metric: Omit<Sample, 'timestampMs' | 'value'>, timestampMs: number, ...values: number[]): void {
    for (const value of values) this.samples.push({ ...metric, timestampMs, value });
  }

  query(q: MetricQuery): MetricPoint[] {
    this.queries++;
    this.stats.add(q.stat);
    if (this.backing) return this.backing.query(q);
    const periodMs = q.periodS * 1000;
    const buckets = new Map<number, number[]>();
    for (const s of this.samples) {
      if (s.namespace !== q.namespace || s.metricName !== q.metricName) continue;
      if (!sameDims(s.dimensions, q.dimensions)) continue;
      if (s.timestampMs < q.startMs || s.timestampMs >= q.endMs) continue;
      const start = Math.floor(s.timestampMs / periodMs) * periodMs;
      const list = buckets.get(start) ?? [];
      list.push(s.value);
      buckets.set(start, list);
    }
    return [...buckets.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([timestampMs, values]) => ({ timestampMs, value: aggregate(values, q.stat) }));
  }
}

function sameDims(a: Record<string, string>, b: Record<string, string>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

function aggregate(values: number[], stat: string): number {
  const sorted = [...values].sort((x, y) => x - y);
  switch (stat) {
    case 'Average':
      return values.reduce((s, v) => s + v, 0) / values.length;
    case 'Maximum':
      return sorted[sorted.length - 1] as number;
    case 'Minimum':
      return sorted[0] as number;
    case 'Sum':
      return values.reduce((s, v) => s + v, 0);
    case 'SampleCount':
      return values.length;
    default: {
      const p = /^p(\d+(\.\d+)?)$/.exec(stat);
      if (!p) throw new Error(`unsupported stat ${stat}`);
      const rank = Math.ceil((Number(p[1]) / 100) * sorted.length); // nearest rank
      return sorted[Math.max(0, rank - 1)] as number;
    }
  }
}

export interface Harness {
  url: string;
  clock: FakeClock;
  capacity: FakeCapacity;
  metrics: FakeMetrics;
  aas: ApplicationAutoScalingClient;
  cw: CloudWatchClient;
  autoScaling: ReturnType<typeof createAutoScaling>;
  /** Resolves once `n` further evaluation ticks have run over every alarm. */
  afterTicks(n?: number): Promise<void>;
  close(): Promise<void>;
}

export const REGION = 'us-east-1';
export const ACCOUNT = '123456789012';

export async function startHarness(
  opts: { evaluationIntervalMs?: number; clock?: FakeClock; metrics?: MetricReader } = {},
): Promise<Harness> {
  const clock = opts.clock ?? new FakeClock();
  const capacity = new FakeCapacity();
  const metrics = new FakeMetrics(opts.metrics);
  const autoScaling = createAutoScaling({
    capacity,
    metrics,
    accountId: ACCOUNT,
    region: REGION,
    evaluationIntervalMs: opts.evaluationIntervalMs ?? 20,
    now: clock.now,
  });
  const alarmOps = new Set(autoScaling.alarmOperations);

  const server = createServer((req, res) => {
    void route(req, res);
  });
  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const target = String(req.headers['x-amz-target'] ?? '');
    const [service, op = ''] = target.split('.');
    const contentType =
      service === 'GraniteServiceVersion20100801'
        ? 'application/x-amz-json-1.0'
        : 'application/x-amz-json-1.1';
    try {
      const input = text ? (JSON.parse(text) as Record<string, unknown>) : {};
      let out: unknown;
      if (service === 'AnyScaleFrontendService') out = await autoScaling.applicationAutoScaling(op, input);
      else if (service === 'GraniteServiceVersion20100801' && alarmOps.has(op)) {
        out = await autoScaling.cloudWatchAlarms(op, input);
      } else throw new AwsError('UnknownOperationException', `Unknown operation ${op || target}`);
      res.writeHead(200, { 'content-type': contentType });
      res.end(JSON.stringify(out ?? {}));
    } catch (e) {
      // The wire shape of the contract (src/local/aws-error.ts): status + {"__type","message"}.
      const err = e instanceof AwsError ? e : new AwsError('InternalFailure', String(e), 500);
      res.writeHead(err.status, { 'content-type': contentType });
      res.end(JSON.stringify({ __type: err.type, message: err.message }));
    }
  }
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const clientConfig = {
    endpoint: url,
    region: REGION,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  };
  const aas = new ApplicationAutoScalingClient(clientConfig);
  const cw = new CloudWatchClient(clientConfig);

  return {
    url,
    clock,
    capacity,
    metrics,
    aas,
    cw,
    autoScaling,
    async afterTicks(n = 2) {
      const alarms =
        (await cw.send(new DescribeAlarmsCommand({ MaxRecords: 100 }))).MetricAlarms?.length ?? 0;
      const mark = metrics.queries;
      // Each tick queries every alarm once; n + 1 rounds guarantee n whole ticks after the mark.
      await waitFor(() => metrics.queries >= mark + (n + 1) * Math.max(1, alarms), { timeoutMs: 5000 });
    },
    async close() {
      autoScaling.close();
      aas.destroy();
      cw.destroy();
      server.close();
      server.closeAllConnections();
      await once(server, 'close');
    },
  };
}

/** Polls `fn` until it returns a truthy value (returned) or throws past the deadline. */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  opts: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<Exclude<T, undefined | null | false>> {
  const deadline = Date.now() + (opts.timeoutMs ?? 5000);
  let lastError: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v as Exclude<T, undefined | null | false>;
      lastError = new Error('condition still false');
    } catch (e) {
      lastError = e;
    }
    if (Date.now() > deadline) {
      throw new Error(
        `waitFor timed out: ${lastError instanceof Error ? lastError.message : String(lastError)}`,
      );
    }
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 10));
  }
}
