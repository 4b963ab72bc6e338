/**
 * CloudWatch metrics of the local SageMaker: a store fed by real traffic (the runtime router) and
 * by PutMetricData, read by GetMetricData / GetMetricStatistics / ListMetrics and, through the
 * `MetricReader` seam, by the alarms of Application Auto Scaling.
 *
 * Two kinds of series:
 * - event series (Invocations, InvocationsPerInstance, Invocation4XXErrors, Invocation5XXErrors,
 *   ModelLatency and every PutMetricData metric): one sample per event; a period's statistics are over the samples whose
 *   timestamp falls in it. Percentiles are exact nearest-rank over the raw values.
 * - gauge series (ConcurrentRequestsPerModel): the router records every change of its in-flight
 *   count with its time, so the series is a step function. For a period: Maximum / Minimum are the
 *   extreme values the count held in it (so a closed loop of N outstanding requests has Maximum
 *   exactly N, never N+1 from an off-by-one sample, never less from a missed one; changes within
 *   one millisecond collapse to the last value); Average is the
 *   time-weighted mean over the period (up to now for the current one); pNN is time-weighted;
 *   SampleCount is the number of values the count held in the period and Sum = Average x
 *   SampleCount (so Sum/SampleCount = Average, as in CloudWatch). A period in which nothing was in
 *   flight and nothing changed has no datapoint, like an idle SageMaker endpoint, which publishes
 *   nothing.
 * Periods are aligned to multiples of the period since the epoch.
 */
import { AwsError } from './aws-error.js';
import type { MetricPoint, MetricQuery, MetricReader, OperationHandler } from './contracts.js';
import { dimensionKey, epochSeconds, type Input, memberReader, unknownOperation } from './wire.js';

export const SAGEMAKER_NAMESPACE = 'AWS/SageMaker';

interface Sample {
  t: number;
  count: number;
  sum: number;
  min: number;
  max: number;
  /** Raw values (absent for PutMetricData StatisticValues, which carry no distribution). */
  values?: number[];
}

interface Change {
  t: number;
  v: number;
}

interface SeriesBase {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  unit: string;
}

interface EventSeries extends SeriesBase {
  kind: 'event';
  samples: Sample[];
}

interface GaugeSeries extends SeriesBase {
  kind: 'gauge';
  changes: Change[];
}

type Series = EventSeries | GaugeSeries;

/** What one period of one series holds, from which any statistic is computed. */
interface PeriodData {
  count: number;
  sum: number;
  min: number;
  max: number;
  /** Event series: raw values; undefined when some sample had none. */
  values?: number[];
  /** Gauge series: (value, duration ms) segments for time-weighted statistics. */
  segments?: Array<[number, number]>;
}

const invalidParameter = (message: string): AwsError =>
  new AwsError('InvalidParameterValueException', message, 400);

const STAT_RE = /^p(\d{1,2}(\.\d+)?|100(\.0+)?)$/;
const BASIC_STATS = new Set(['Average', 'Maximum', 'Minimum', 'Sum', 'SampleCount']);

export function isSupportedStat(stat: string): boolean {
  return BASIC_STATS.has(stat) || STAT_RE.test(stat);
}

/** Periods CloudWatch accepts: high resolution 1, 5, 10, 30 s; here any multiple of 10 s too. */
export function isSupportedPeriod(periodS: number): boolean {
  return Number.isInteger(periodS) && periodS > 0 && (periodS === 1 || periodS === 5 || periodS % 10 === 0);
}

/** First index whose t >= t0 (arrays sorted by t). */
function lowerBound(a: ReadonlyArray<{ t: number }>, t0: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((a[mid] as { t: number }).t < t0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function nearestRank(sorted: number[], p: number): number {
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx] as number;
}

function computeStat(d: PeriodData, stat: string): number | undefined {
  if (d.segments) {
    const total = d.segments.reduce((acc, [, ms]) => acc + ms, 0);
    const mean =
      total > 0
        ? d.segments.reduce((acc, [v, ms]) => acc + v * ms, 0) / total
        : d.segments.reduce((acc, [v]) => acc + v, 0) / d.segments.length;
    switch (stat) {
      case 'Maximum':
        return d.max;
      case 'Minimum':
        return d.min;
      case 'Average':
        return mean;
      case 'SampleCount':
        return d.segments.length;
      case 'Sum':
        return mean * d.segments.length;
    }
    const p = Number(stat.slice(1));
    const sorted = [...d.segments].sort((a, b) => a[0] - b[0]);
    if (total <= 0)
      return nearestRank(
        sorted.map(([v]) => v),
        p,
      );
    let acc = 0;
    for (const [v, ms] of sorted) {
      acc += ms;
      if (acc >= (p / 100) * total - 1e-9) return v;
    }
    return (sorted[sorted.length - 1] as [number, number])[0];
  }
  switch (stat) {
    case 'Maximum':
      return d.max;
    case 'Minimum':
      return d.min;
    case 'Average':
      return d.sum / d.count;
    case 'SampleCount':
      return d.count;
    case 'Sum':
      return d.sum;
  }
  if (!d.values || d.values.length === 0) return undefined;
  return nearestRank(
    [...d.values].sort((a, b) => a - b),
    Number(stat.slice(1)),
  );
}

export interface MetricStoreOptions {
  now?: () => number;
  /** Samples older than this are dropped (default 6 h; CloudWatch keeps 10 s data for 3 h). */
  retentionMs?: number;
}

export class MetricStore implements MetricReader {
  private readonly series = new Map<string, Series>();
  private readonly now: () => number;
  private readonly retentionMs: number;
  private writes = 0;

  constructor(opts: MetricStoreOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.retentionMs = opts.retentionMs ?? 6 * 3600_000;
  }

  reset(): void {
    this.series.clear();
  }

  private key(namespace: string, metricName: string, dimensions: Record<string, string>): string {
    return `${namespace}\u0000${metricName}\u0000${dimensionKey(dimensions)}`;
  }

  private eventSeries(
    namespace: string,
    metricName: string,
    dimensions: Record<string, string>,
    unit: string,
  ): EventSeries {
    const k = this.key(namespace, metricName, dimensions);
    let s = this.series.get(k);
    if (!s) {
      s = { kind: 'event', namespace, metricName, dimensions: { ...dimensions }, unit, samples: [] };
      this.series.set(k, s);
    }
    if (s.kind !== 'event') throw new Error(`${namespace} ${metricName} is a gauge series`);
    return s;
  }

  /** Records one event sample (value in the series' unit) at time `t` (default now). */
  record(
    namespace: string,
    metricName: string,
    dimensions: Record<string, string>,
    value: number,
    unit = 'None',
    t = this.now(),
  ): void {
    this.addSample(this.eventSeries(namespace, metricName, dimensions, unit), {
      t,
      count: 1,
      sum: value,
      min: value,
      max: value,
      values: [value],
    });
  }

  private addSample(s: EventSeries, sample: Sample): void {
    const a = s.samples;
    const last = a[a.length - 1];
    if (!last || last.t <= sample.t) a.push(sample);
    else a.splice(lowerBound(a, sample.t + 1), 0, sample); // late PutMetricData: keep time order
    this.maybePrune();
  }

  /** A step-function series: `set(v)` at every change (ConcurrentRequestsPerModel). */
  gauge(namespace: string, metricName: string, dimensions: Record<string, string>): (v: number) => void {
    const k = this.key(namespace, metricName, dimensions);
    return (v: number) => {
      let s = this.series.get(k);
      if (!s) {
        // Created lazily (and again after reset()) so ListMetrics shows only metrics with data.
        s = {
          kind: 'gauge',
          namespace,
          metricName,
          dimensions: { ...dimensions },
          unit: 'None',
          changes: [],
        };
        this.series.set(k, s);
      }
      if (s.kind !== 'gauge') return;
      const last = s.changes[s.changes.length - 1];
      const t = Math.max(this.now(), last?.t ?? 0);
      // Several changes in one millisecond: only the last value is held; the others lasted no
      // time and are not samples (five requests ending at once do not leave a Maximum of 4).
      if (last && last.t === t) last.v = v;
      else {
        s.changes.push({ t, v });
        this.maybePrune();
      }
    };
  }

  private maybePrune(): void {
    if (++this.writes % 5000 !== 0) return;
    const cutoff = this.now() - this.retentionMs;
    for (const s of this.series.values()) {
      if (s.kind === 'event') {
        const i = lowerBound(s.samples, cutoff);
        if (i > 0) s.samples.splice(0, i);
      } else {
        // Keep the last change before the cutoff: it is the value in effect after it.
        const i = lowerBound(s.changes, cutoff) - 1;
        if (i > 0) s.changes.splice(0, i);
      }
    }
  }

  /** Every period (aligned start, ms) of [startMs, endMs) that has data, with its raw material. */
  private periods(s: Series, startMs: number, endMs: number, periodMs: number): Map<number, PeriodData> {
    const out = new Map<number, PeriodData>();
    const first = Math.floor(startMs / periodMs) * periodMs;
    const now = this.now();
    if (s.kind === 'event') {
      for (let i = lowerBound(s.samples, first); i < s.samples.length; i++) {
        const x = s.samples[i] as Sample;
        if (x.t >= endMs) break;
        const p = Math.floor(x.t / periodMs) * periodMs;
        let d = out.get(p);
        if (!d) {
          d = { count: 0, sum: 0, min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY, values: [] };
          out.set(p, d);
        }
        d.count += x.count;
        d.sum += x.sum;
        d.min = Math.min(d.min, x.min);
        d.max = Math.max(d.max, x.max);
        if (x.values && d.values) for (const v of x.values) d.values.push(v);
        else d.values = undefined;
      }
      return out;
    }
    const c = s.changes;
    if (c.length === 0) return out;
    // Only periods from the first change on can hold data; none after now.
    const from = Math.max(first, Math.floor((c[0] as Change).t / periodMs) * periodMs);
    for (let p = from; p < endMs && p <= now; p += periodMs) {
      const end = Math.min(p + periodMs, now);
      let i = lowerBound(c, p);
      const carried = i > 0 ? (c[i - 1] as Change).v : 0;
      if (i >= c.length && carried === 0) break; // idle from here on: no more data
      const segments: Array<[number, number]> = [];
      let cur = carried;
      let segStart = p;
      let changed = false;
      for (; i < c.length && (c[i] as Change).t < p + periodMs; i++) {
        const ch = c[i] as Change;
        // The carried-in value counts only if it was in effect for some time in this period.
        if (changed || ch.t > p) segments.push([cur, Math.max(0, ch.t - segStart)]);
        cur = ch.v;
        segStart = ch.t;
        changed = true;
      }
      segments.push([cur, Math.max(0, end - segStart)]);
      if (!changed && carried === 0) continue;
      const vals = segments.map(([v]) => v);
      out.set(p, {
        count: segments.length,
        sum: 0,
        min: Math.min(...vals),
        max: Math.max(...vals),
        segments,
      });
    }
    return out;
  }

  private find(
    namespace: string,
    metricName: string,
    dimensions: Record<string, string>,
  ): Series | undefined {
    return this.series.get(this.key(namespace, metricName, dimensions));
  }

  /** The `MetricReader` seam: datapoints in ascending time order, periods without data absent. */
  query(q: MetricQuery): MetricPoint[] {
    const s = this.find(q.namespace, q.metricName, q.dimensions);
    if (!s) return [];
    const out: MetricPoint[] = [];
    const periods = this.periods(s, q.startMs, q.endMs, q.periodS * 1000);
    for (const [p, d] of [...periods.entries()].sort((a, b) => a[0] - b[0])) {
      const value = computeStat(d, q.stat);
      if (value !== undefined) out.push({ timestampMs: p, value });
    }
    return out;
  }

  /** Every statistic of every period, for GetMetricStatistics. */
  statistics(
    namespace: string,
    metricName: string,
    dimensions: Record<string, string>,
    startMs: number,
    endMs: number,
    periodS: number,
  ): { unit: string; periods: Array<[number, PeriodData]> } | undefined {
    const s = this.find(namespace, metricName, dimensions);
    if (!s) return undefined;
    const periods = this.periods(s, startMs, endMs, periodS * 1000);
    return { unit: s.unit, periods: [...periods.entries()].sort((a, b) => a[0] - b[0]) };
  }

  list(): SeriesBase[] {
    return [...this.series.values()].map(({ namespace, metricName, dimensions, unit }) => ({
      namespace,
      metricName,
      dimensions,
      unit,
    }));
  }

  unitOf(namespace: string, metricName: string, dimensions: Record<string, string>): string | undefined {
    return this.find(namespace, metricName, dimensions)?.unit;
  }

  /** PutMetricData of one datum (already validated). */
  put(
    namespace: string,
    metricName: string,
    dimensions: Record<string, string>,
    t: number,
    unit: string,
    datum: { value?: number; values?: number[]; counts?: number[]; stats?: Omit<Sample, 't' | 'values'> },
  ): void {
    const s = this.eventSeries(namespace, metricName, dimensions, unit);
    if (datum.stats) {
      this.addSample(s, { t, ...datum.stats });
    } else if (datum.values) {
      const values: number[] = [];
      datum.values.forEach((v, i) => {
        const n = Math.max(0, Math.round(datum.counts?.[i] ?? 1));
        for (let k = 0; k < n; k++) values.push(v);
      });
      if (values.length === 0) return;
      this.addSample(s, {
        t,
        count: values.length,
        sum: values.reduce((a, b) => a + b, 0),
        min: Math.min(...values),
        max: Math.max(...values),
        values,
      });
    } else if (datum.value !== undefined) {
      this.addSample(s, {
        t,
        count: 1,
        sum: datum.value,
        min: datum.value,
        max: datum.value,
        values: [datum.value],
      });
    }
  }
}

/**
 * The per-variant metrics SageMaker publishes, recorded by the runtime router.
 *
 * ConcurrentRequestsPerModel is "the number of concurrent requests being received by a model
 * container" (SageMaker Developer Guide, high-resolution metrics): each instance's container
 * reports its own count under the variant's dimensions, so the Maximum a policy tracks is the
 * busiest container's, not the variant's total. The gauge therefore holds the largest per-container
 * count at every change (with one instance, simply its count).
 *
 * InvocationsPerInstance is "the number of invocations sent to a model, normalized by
 * InstanceCount in each ProductionVariant. 1/numberOfInstances is sent as the value on each
 * request, where numberOfInstances is the number of active instances for the ProductionVariant
 * behind the endpoint at the time of the request" (SageMaker API Reference, ScalingPolicyMetric):
 * one sample of 1/n per invocation, beside Invocations, so a period's Sum is the invocations per
 * instance in it (the predefined SageMakerVariantInvocationsPerInstance tracks the 60 s Sum).
 */
export class VariantMetrics {
  /** In flight per model container (instance id). */
  private readonly perContainer = new Map<string, number>();
  private published = 0;
  private readonly setConcurrency: (v: number) => void;
  private readonly dims: Record<string, string>;

  /**
   * `instances`: the variant's active (InService, routed) instance count now, what
   * InvocationsPerInstance divides by.
   */
  private readonly perInstanceMetric: string;

  constructor(
    private readonly store: MetricStore,
    endpointName: string,
    variantName: string,
    private readonly instances: () => number = () => 1,
    /**
     * An inference component's metrics instead of the variant's: dimension
     * `InferenceComponentName` only, `ConcurrentRequestsPerCopy` (the busiest copy, as
     * ConcurrentRequestsPerModel is the busiest container) and `InvocationsPerCopy` (1 / copies
     * serving); `instances` then counts its copies.
     */
    inferenceComponent?: string,
  ) {
    this.dims =
      inferenceComponent === undefined
        ? { EndpointName: endpointName, VariantName: variantName }
        : { InferenceComponentName: inferenceComponent };
    this.perInstanceMetric =
      inferenceComponent === undefined ? 'InvocationsPerInstance' : 'InvocationsPerCopy';
    this.setConcurrency = store.gauge(
      SAGEMAKER_NAMESPACE,
      inferenceComponent === undefined ? 'ConcurrentRequestsPerModel' : 'ConcurrentRequestsPerCopy',
      this.dims,
    );
  }

  /** A request that found no copy to serve it (an inference component at zero copies, or all starting). */
  noCapacity(): void {
    this.store.record(SAGEMAKER_NAMESPACE, 'NoCapacityInvocationFailures', this.dims, 1);
  }

  /** Requests in flight on the busiest container (what ConcurrentRequestsPerModel publishes). */
  get concurrent(): number {
    return this.published;
  }

  /** A request was handed to the container of `instance`. */
  begin(instance = 'instance'): void {
    this.perContainer.set(instance, (this.perContainer.get(instance) ?? 0) + 1);
    this.publish();
  }

  /** That request is over (answered, failed or abandoned). Call exactly once per begin(). */
  end(instance = 'instance'): void {
    const left = Math.max(0, (this.perContainer.get(instance) ?? 0) - 1);
    if (left === 0) this.perContainer.delete(instance);
    else this.perContainer.set(instance, left);
    this.publish();
  }

  private publish(): void {
    let busiest = 0;
    for (const n of this.perContainer.values()) if (n > busiest) busiest = n;
    // A change on a container that is not the busiest changes nothing CloudWatch would show.
    if (busiest === this.published && this.perContainer.size > 1) return;
    this.published = busiest;
    this.setConcurrency(busiest);
  }

  /**
   * One invocation's outcome: 4xx/5xx are the model's (or the injected fault's) error classes;
   * ModelLatency in microseconds when a container answered. `instancesAtRequest`: the active
   * instance count when the request arrived (default: now); InvocationsPerInstance records
   * 1/that (at least one instance: a request nothing serves still counts whole).
   */
  invocation(
    outcome: 'ok' | '4xx' | '5xx',
    modelLatencyUs?: number,
    instancesAtRequest: number = this.instances(),
  ): void {
    const ns = SAGEMAKER_NAMESPACE;
    this.store.record(ns, 'Invocations', this.dims, 1);
    this.store.record(ns, this.perInstanceMetric, this.dims, 1 / Math.max(1, instancesAtRequest));
    // Published as 0/1 per invocation, so Sum counts errors and Average is the error rate.
    this.store.record(ns, 'Invocation4XXErrors', this.dims, outcome === '4xx' ? 1 : 0);
    this.store.record(ns, 'Invocation5XXErrors', this.dims, outcome === '5xx' ? 1 : 0);
    if (modelLatencyUs !== undefined)
      this.store.record(ns, 'ModelLatency', this.dims, Math.round(modelLatencyUs), 'Microseconds');
  }
}

// ---- the CloudWatch metric operations (JSON 1.0, GraniteServiceVersion20100801.*) ----------

function readDimensions(raw: unknown, what: string): Record<string, string> {
  if (raw === undefined || raw === null) return {};
  if (!Array.isArray(raw)) throw invalidParameter(`${what} must be a list.`);
  const out: Record<string, string> = {};
  for (const d of raw) {
    const { Name, Value } = (d ?? {}) as { Name?: unknown; Value?: unknown };
    if (typeof Name !== 'string' || typeof Value !== 'string')
      throw invalidParameter(`Each of ${what} needs a Name and a Value.`);
    out[Name] = Value;
  }
  return out;
}

const renderDimensions = (dims: Record<string, string>) =>
  Object.keys(dims)
    .sort()
    .map((Name) => ({ Name, Value: dims[Name] as string }));

export function createMetricOperations(store: MetricStore, now: () => number = Date.now): OperationHandler {
  const getMetricData = (input: Input) => {
    const r = memberReader(input, invalidParameter);
    const startMs = r.time('StartTime');
    const endMs = r.time('EndTime');
    if (endMs <= startMs)
      throw invalidParameter('The parameter StartTime must be less than the parameter EndTime.');
    const scanBy = r.str('ScanBy', true) ?? 'TimestampDescending';
    if (scanBy !== 'TimestampDescending' && scanBy !== 'TimestampAscending')
      throw invalidParameter(`The value ${scanBy} for parameter ScanBy is not valid.`);
    const maxDatapoints = r.num('MaxDatapoints', true) ?? 100_800;
    const queries = r.list('MetricDataQueries');
    if (queries.length === 0 || queries.length > 500)
      throw invalidParameter('MetricDataQueries must hold between 1 and 500 queries.');
    const results = [];
    for (const raw of queries) {
      const q = memberReader((raw ?? {}) as Input, invalidParameter);
      const id = q.str('Id');
      if (q.str('Expression', true) !== undefined) {
        // Metric math is refused clearly rather than answered wrongly.
        throw invalidParameter(
          `The local SageMaker does not evaluate metric math (query ${id}: Expression); use MetricStat queries.`,
        );
      }
      const stat = q.obj('MetricStat');
      if (!stat) throw invalidParameter(`Query ${id} needs a MetricStat (or an Expression).`);
      const sr = memberReader(stat, invalidParameter);
      const metric = memberReader(sr.obj('Metric') ?? {}, invalidParameter);
      const namespace = metric.str('Namespace');
      const metricName = metric.str('MetricName');
      const dimensions = readDimensions(metric.list('Dimensions', true), 'Dimensions');
      const periodS = sr.num('Period');
      const statName = sr.str('Stat');
      const unit = sr.str('Unit', true);
      if (!isSupportedPeriod(periodS))
        throw invalidParameter(
          `The value ${periodS} for parameter Period is not valid (1, 5 or a multiple of 10).`,
        );
      if (!isSupportedStat(statName))
        throw invalidParameter(
          `The value ${statName} for parameter Stat is not supported by the local SageMaker.`,
        );
      const returnData = q.bool('ReturnData') ?? true;
      if (!returnData) continue;
      const unitMatches = unit === undefined || store.unitOf(namespace, metricName, dimensions) === unit;
      let points = unitMatches
        ? store.query({ namespace, metricName, dimensions, stat: statName, periodS, startMs, endMs })
        : [];
      if (scanBy === 'TimestampDescending') points = points.reverse();
      points = points.slice(0, maxDatapoints);
      results.push({
        Id: id,
        Label: q.str('Label', true) ?? metricName,
        Timestamps: points.map((p) => epochSeconds(p.timestampMs)),
        Values: points.map((p) => p.value),
        StatusCode: 'Complete',
        Messages: [],
      });
    }
    return { MetricDataResults: results, Messages: [] };
  };

  const getMetricStatistics = (input: Input) => {
    const r = memberReader(input, invalidParameter);
    const namespace = r.str('Namespace');
    const metricName = r.str('MetricName');
    const dimensions = readDimensions(r.list('Dimensions', true), 'Dimensions');
    const startMs = r.time('StartTime');
    const endMs = r.time('EndTime');
    const periodS = r.num('Period');
    const unit = r.str('Unit', true);
    const statistics = (r.list('Statistics', true) ?? []) as string[];
    const extended = (r.list('ExtendedStatistics', true) ?? []) as string[];
    if (!isSupportedPeriod(periodS))
      throw invalidParameter(
        `The value ${periodS} for parameter Period is not valid (1, 5 or a multiple of 10).`,
      );
    if (statistics.length === 0 && extended.length === 0)
      throw new AwsError(
        'MissingRequiredParameterException',
        'Must specify either Statistics or ExtendedStatistics.',
        400,
      );
    for (const s of statistics)
      if (!BASIC_STATS.has(s))
        throw invalidParameter(`The value ${s} for parameter Statistics is not valid.`);
    for (const s of extended)
      if (!STAT_RE.test(s))
        throw invalidParameter(`The value ${s} for parameter ExtendedStatistics is not valid.`);
    if (endMs <= startMs)
      throw invalidParameter('The parameter StartTime must be less than the parameter EndTime.');
    const data = store.statistics(namespace, metricName, dimensions, startMs, endMs, periodS);
    if (!data || (unit !== undefined && unit !== data.unit)) return { Label: metricName, Datapoints: [] };
    const datapoints = data.periods.map(([p, d]) => {
      const dp: Record<string, unknown> = { Timestamp: epochSeconds(p), Unit: data.unit };
      for (const s of statistics) dp[s] = computeStat(d, s);
      if (extended.length > 0) {
        const ext: Record<string, number> = {};
        for (const s of extended) {
          const v = computeStat(d, s);
          if (v !== undefined) ext[s] = v;
        }
        dp.ExtendedStatistics = ext;
      }
      return dp;
    });
    return { Label: metricName, Datapoints: datapoints };
  };

  const putMetricData = (input: Input) => {
    const r = memberReader(input, invalidParameter);
    const namespace = r.str('Namespace');
    // As on AWS: the AWS/ namespaces belong to the services.
    if (namespace.startsWith('AWS/'))
      throw invalidParameter(`The value ${namespace} for parameter Namespace is invalid.`);
    const data = r.list('MetricData');
    for (const raw of data) {
      const m = memberReader((raw ?? {}) as Input, invalidParameter);
      const name = m.str('MetricName');
      const dims = readDimensions(m.list('Dimensions', true), 'Dimensions');
      const t = m.time('Timestamp', true) ?? now();
      const unit = m.str('Unit', true) ?? 'None';
      const value = m.num('Value', true);
      const values = m.list('Values', true) as number[] | undefined;
      const counts = m.list('Counts', true) as number[] | undefined;
      const sv = m.obj('StatisticValues');
      const given = [value !== undefined, values !== undefined, sv !== undefined].filter(Boolean).length;
      if (given !== 1)
        throw new AwsError(
          'InvalidParameterCombinationException',
          `MetricData ${name}: give exactly one of Value, Values or StatisticValues.`,
          400,
        );
      if (counts && values && counts.length !== values.length)
        throw invalidParameter(`MetricData ${name}: Values and Counts must have the same length.`);
      if (sv) {
        const s = memberReader(sv, invalidParameter);
        store.put(namespace, name, dims, t, unit, {
          stats: {
            count: s.num('SampleCount'),
            sum: s.num('Sum'),
            min: s.num('Minimum'),
            max: s.num('Maximum'),
          },
        });
      } else {
        store.put(namespace, name, dims, t, unit, {
          ...(value !== undefined ? { value } : {}),
          ...(values ? { values } : {}),
          ...(counts ? { counts } : {}),
        });
      }
    }
    return {};
  };

  const listMetrics = (input: Input) => {
    const r = memberReader(input, invalidParameter);
    const namespace = r.str('Namespace', true);
    const metricName = r.str('MetricName', true);
    const filters = (r.list('Dimensions', true) ?? []) as Array<{ Name?: string; Value?: string }>;
    const metrics = store
      .list()
      .filter((s) => namespace === undefined || s.namespace === namespace)
      .filter((s) => metricName === undefined || s.metricName === metricName)
      .filter((s) =>
        filters.every(
          (f) =>
            f.Name !== undefined &&
            f.Name in s.dimensions &&
            (f.Value === undefined || s.dimensions[f.Name] === f.Value),
        ),
      )
      .map((s) => ({
        Namespace: s.namespace,
        MetricName: s.metricName,
        Dimensions: renderDimensions(s.dimensions),
      }));
    return { Metrics: metrics };
  };

  return async (operation, input) => {
    switch (operation) {
      case 'GetMetricData':
        return getMetricData(input);
      case 'GetMetricStatistics':
        return getMetricStatistics(input);
      case 'PutMetricData':
        return putMetricData(input);
      case 'ListMetrics':
        return listMetrics(input);
      default:
        throw unknownOperation(operation);
    }
  };
}
