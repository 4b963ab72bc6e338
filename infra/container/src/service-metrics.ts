// The container's own service time, published as CloudWatch embedded metric format (EMF) on
// stdout: FirstChunkLatency, from the moment a worker (or a device lane) takes a request off the
// queue to the moment its first audio byte is handed to the socket. Queueing is excluded by
// construction, so an alarm on it watches the service itself, not the load.
//
// Aggregated per window (10 s by default, aligned to the clock) into one EMF document whose metric
// member is a histogram `{"Values", "Counts", "Max", "Min", "Count", "Sum"}`, the format AWS's own
// EMF libraries write for distributions. Why not one line per request: at 1000 requests/s that is
// 1000 log lines a second per instance (~300 KB/s of CloudWatch Logs ingestion), while a window's
// histogram is one line whatever the rate. Values fall into log-spaced buckets 2 % wide, reported
// at the bucket's geometric middle: every value is within 1 % of the truth, so a p95 read back is
// too, and a window holds at most a few hundred buckets (1 ms..2 min spans 590), split into
// documents of at most 100 values each as the format requires. Max, Min and Sum are exact.
import { writeLine } from './stages.js';

/** What the metric is and where it goes. */
export const SERVICE_METRIC = {
  namespace: 'Scalegate/Container',
  name: 'FirstChunkLatency',
  unit: 'Milliseconds',
} as const;

/** CloudWatch high-resolution periods: a window is one of them, so it maps onto whole periods. */
export const WINDOW_SECONDS = [1, 5, 10, 30, 60] as const;

const RATIO = 1.02;
const LOG_RATIO = Math.log(RATIO);
/** Values below this are reported in its bucket (a log bucket needs a positive value). */
const MIN_MS = 0.001;
/** EMF: a metric member holds at most 100 values. */
const MAX_VALUES = 100;

export const bucketOf = (ms: number): number => Math.floor(Math.log(Math.max(ms, MIN_MS)) / LOG_RATIO);
/** The geometric middle of bucket `i`: within 1 % of every value in it. */
export const bucketValue = (i: number): number => Math.exp((i + 0.5) * LOG_RATIO);

interface Bucket {
  count: number;
  sum: number;
  min: number;
  max: number;
}

export interface ServiceMetricsTarget {
  endpointName: string;
  variantName: string;
}

const round = (v: number, digits: number): number => Number(v.toPrecision(digits));

/** The EMF documents (one JSON line each) of one window's buckets. */
export function emfLines(
  target: ServiceMetricsTarget,
  windowStartMs: number,
  buckets: Map<number, Bucket>,
): string[] {
  const ordered = [...buckets.entries()].sort((a, b) => a[0] - b[0]);
  const lines: string[] = [];
  for (let i = 0; i < ordered.length; i += MAX_VALUES) {
    const part = ordered.slice(i, i + MAX_VALUES);
    const histogram = {
      Values: part.map(([index]) => round(bucketValue(index), 6)),
      Counts: part.map(([, b]) => b.count),
      Max: round(Math.max(...part.map(([, b]) => b.max)), 9),
      Min: round(Math.min(...part.map(([, b]) => b.min)), 9),
      Count: part.reduce((n, [, b]) => n + b.count, 0),
      Sum: round(
        part.reduce((s, [, b]) => s + b.sum, 0),
        12,
      ),
    };
    lines.push(
      JSON.stringify({
        _aws: {
          Timestamp: windowStartMs,
          CloudWatchMetrics: [
            {
              Namespace: SERVICE_METRIC.namespace,
              Dimensions: [['EndpointName', 'VariantName']],
              Metrics: [{ Name: SERVICE_METRIC.name, Unit: SERVICE_METRIC.unit, StorageResolution: 1 }],
            },
          ],
        },
        EndpointName: target.endpointName,
        VariantName: target.variantName,
        [SERVICE_METRIC.name]: histogram,
      }),
    );
  }
  return lines;
}

/** Collects service times per window and prints each window's EMF once it has ended. */
export class ServiceTimeMetrics {
  private readonly windows = new Map<number, Map<number, Bucket>>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly target: ServiceMetricsTarget,
    private readonly windowMs: number,
    private readonly write: (line: string) => void = writeLine,
    private readonly now: () => number = Date.now,
  ) {}

  /** Flushes at every window boundary from now on (the timer never keeps the process alive). */
  start(): void {
    const schedule = () => {
      const t = this.now();
      // A little after the boundary, so that a value recorded at its last instant is in.
      const next = Math.floor(t / this.windowMs) * this.windowMs + this.windowMs + 20;
      this.timer = setTimeout(() => {
        this.flush();
        schedule();
      }, next - t);
      this.timer.unref();
    };
    schedule();
  }

  record(ms: number): void {
    if (!Number.isFinite(ms) || ms < 0) return;
    const window = Math.floor(this.now() / this.windowMs) * this.windowMs;
    let buckets = this.windows.get(window);
    if (!buckets) {
      buckets = new Map();
      this.windows.set(window, buckets);
    }
    const index = bucketOf(ms);
    const b = buckets.get(index);
    if (b) {
      b.count += 1;
      b.sum += ms;
      b.min = Math.min(b.min, ms);
      b.max = Math.max(b.max, ms);
    } else {
      buckets.set(index, { count: 1, sum: ms, min: ms, max: ms });
    }
  }

  /** Prints every window that has ended (every window, with `all`: at shutdown). */
  flush(all = false): void {
    const t = this.now();
    for (const [window, buckets] of [...this.windows.entries()].sort((a, b) => a[0] - b[0])) {
      if (!all && window + this.windowMs > t) continue;
      this.windows.delete(window);
      for (const line of emfLines(this.target, window, buckets)) this.write(line);
    }
  }

  /** Stops the timer and prints what is left (the drain before exit). */
  close(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.flush(true);
  }
}
