/**
 * `scalegate trace show | shape | import`: traffic traces for `scalegate tune` (docs/traces.md).
 *
 * - show: what a trace file holds (duration, peak and mean rate, arrivals, digest, start);
 * - shape: a built-in shape (src/sim/shapes.ts) written as a rate CSV, to look at and edit;
 * - import: the endpoint's own history from CloudWatch (AWS/SageMaker Invocations Sum per 60 s ->
 *   a rate row per minute; a minute without a datapoint is rps 0), anchored with `# start=`;
 *   `--metric concurrency` writes ConcurrentRequestsPerModel Maximum per 10 s instead
 *   (informational: CloudWatch keeps 10 s data 3 hours).
 */
import type { AwsClients } from '../aws/clients.js';
import { getVariantMetricHistory } from '../aws/metric-history.js';
import { opt, usage } from '../model/errors.js';
import { checkOutputFile, writeFileAtomic } from '../model/io.js';
import {
  formatRateCsv,
  type RateRow,
  rateTrace,
  readTraceFile,
  TRACE_LIMITS,
  type TraceSummary,
} from '../model/trace.js';
import {
  renderTraceImport,
  renderTraceShape,
  renderTraceSummary,
  type TraceImportFacts,
  traceImportComments,
} from '../report/trace-text.js';
import { shapeTrace } from '../sim/shapes.js';
import { type AwsCommandDeps, type CommandDeps, type CommandResult, resolveDeps } from './result.js';

/** What `trace show` and `trace shape` return as their artifact (`--json`). */
export interface TraceShowArtifact {
  kind: 'trace';
  file: string | null;
  trace: TraceSummary;
  /** Arrivals the trace offers: a rate's integral, or the file's count of timestamps. */
  offered_requests: number;
}

export function runTraceShow(input: { file: string }): CommandResult<TraceShowArtifact> {
  const trace = readTraceFile(input.file);
  return {
    artifact: { kind: 'trace', file: input.file, trace: trace.ref, offered_requests: trace.offered },
    report: `${renderTraceSummary(trace.ref, trace.offered)}\n`,
    exitCode: 0,
    written: [],
  };
}

export function runTraceShape(input: { spec: string; outFile: string }): CommandResult<TraceShowArtifact> {
  checkOutputFile(input.outFile);
  const trace = shapeTrace(input.spec, 'the shape');
  const comments = [`source=${trace.ref.source}`, 'written by scalegate trace shape: edit the rows freely'];
  writeFileAtomic(input.outFile, formatRateCsv(trace, comments));
  return {
    artifact: { kind: 'trace', file: input.outFile, trace: trace.ref, offered_requests: trace.offered },
    report: renderTraceShape(input.outFile, trace.ref, trace.offered),
    exitCode: 0,
    written: [input.outFile],
  };
}

/** CloudWatch's retention of AWS/SageMaker datapoints, by period: the oldest data each period can be read at. */
export const CLOUDWATCH_RETENTION = [
  { periodS: 10, keptS: 3 * 3600 },
  { periodS: 60, keptS: 15 * 86_400 },
  { periodS: 300, keptS: 63 * 86_400 },
  { periodS: 3600, keptS: 455 * 86_400 },
] as const;

/** The finest period CloudWatch still holds for data from `fromMs` (null: older than 455 days). */
export function invocationsPeriodFor(fromMs: number, nowMs: number): number | null {
  const age = (nowMs - fromMs) / 1000;
  for (const r of CLOUDWATCH_RETENTION) if (r.periodS >= 60 && age <= r.keptS) return r.periodS;
  return null;
}

export interface TraceImportInput {
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  /** ISO times (offset included). */
  from: string;
  to: string;
  metric: 'invocations' | 'concurrency';
  outFile: string;
}

export interface TraceImportArtifact {
  kind: 'trace-import';
  file: string;
  model_name: string;
  endpoint: string;
  variant: string;
  region: string;
  metric: string;
  stat: string;
  period_s: number;
  from: string;
  to: string;
  periods: number;
  missing_periods: number;
  trace: TraceSummary | null;
  peak_concurrency: number | null;
}

const parseTime = (raw: string, flag: string): number => {
  const ms = /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(raw.trim())
    ? Date.parse(raw.trim())
    : Number.NaN;
  if (!Number.isFinite(ms)) {
    throw usage`${opt(flag, raw)}: not an ISO time with its offset. Write it as 2026-11-30T00:00:00Z.`;
  }
  return ms;
};

/** The range, floored to whole periods, checked against now and CloudWatch's retention. */
function importRange(
  input: TraceImportInput,
  nowMs: number,
): { fromMs: number; toMs: number; periodS: number } {
  const fromGiven = parseTime(input.from, 'from');
  const toGiven = parseTime(input.to, 'to');
  if (toGiven <= fromGiven) throw usage`${opt('to', input.to)} is not after ${opt('from', input.from)}.`;
  if (toGiven > nowMs) {
    throw usage`${opt('to', input.to)} is in the future: CloudWatch has no datapoints there yet. Give a time up to now.`;
  }
  let periodS: number;
  if (input.metric === 'concurrency') {
    if ((nowMs - fromGiven) / 1000 > (CLOUDWATCH_RETENTION[0].keptS as number)) {
      throw usage`${opt('from', input.from)} is more than 3 hours ago: CloudWatch keeps ConcurrentRequestsPerModel at 10 s (high resolution) only 3 hours. Capture it while it exists (a scheduled job), or import Invocations (the default ${opt('metric')}).`;
    }
    periodS = 10;
  } else {
    const period = invocationsPeriodFor(fromGiven, nowMs);
    if (period === null) {
      throw usage`${opt('from', input.from)} is more than 455 days ago: CloudWatch keeps no datapoints that old.`;
    }
    periodS = period;
  }
  const p = periodS * 1000;
  const fromMs = Math.floor(fromGiven / p) * p;
  const toMs = Math.floor(toGiven / p) * p;
  if (toMs <= fromMs) {
    throw usage`${opt('from', input.from)} and ${opt('to', input.to)} hold no whole ${periodS} s period. Give a longer range.`;
  }
  if ((toMs - fromMs) / 1000 > TRACE_LIMITS.durationS) {
    throw usage`${opt('from', input.from)} to ${opt('to', input.to)} is longer than the one day a trace may cover. Import the busiest day.`;
  }
  return { fromMs, toMs, periodS };
}

/** One value per period of [fromMs, toMs): the datapoint's, or null where CloudWatch has none. */
export function perPeriod(
  timestamps: readonly number[],
  values: readonly number[],
  fromMs: number,
  toMs: number,
  periodS: number,
): (number | null)[] {
  const p = periodS * 1000;
  const out: (number | null)[] = Array.from({ length: Math.round((toMs - fromMs) / p) }, () => null);
  for (let i = 0; i < timestamps.length; i++) {
    const index = Math.floor(((timestamps[i] as number) - fromMs) / p);
    if (index < 0 || index >= out.length) continue;
    out[index] = (out[index] ?? 0) + (values[i] as number);
  }
  return out;
}

export async function runTraceImport(
  input: TraceImportInput,
  deps: AwsCommandDeps<Pick<AwsClients, 'cloudwatch'>>,
): Promise<CommandResult<TraceImportArtifact>> {
  const { clock, log } = resolveDeps(deps as CommandDeps);
  checkOutputFile(input.outFile);
  const { fromMs, toMs, periodS } = importRange(input, clock().getTime());
  const query =
    input.metric === 'invocations'
      ? { metricName: 'Invocations', stat: 'Sum', periodS }
      : { metricName: 'ConcurrentRequestsPerModel', stat: 'Maximum', periodS };
  const from = new Date(fromMs).toISOString();
  const to = new Date(toMs).toISOString();
  log(`reading AWS/SageMaker ${query.metricName} ${query.stat} per ${periodS} s, ${from} to ${to}`);
  const series = await getVariantMetricHistory(
    deps.clients.cloudwatch,
    input.endpoint,
    input.variant,
    query,
    fromMs,
    toMs,
    deps.signal ? { abortSignal: deps.signal } : {},
  );
  const values = perPeriod(series.timestamps, series.values, fromMs, toMs, periodS);
  const missing = values.filter((v) => v === null).length;
  const facts = {
    metric: input.metric,
    metricName: query.metricName,
    stat: query.stat,
    periodS,
    endpoint: input.endpoint,
    variant: input.variant,
    region: input.region,
    from,
    to,
    periods: values.length,
    missing,
  };
  const comments = traceImportComments(facts);
  let text: string;
  let trace: TraceImportFacts['trace'] = null;
  let peakConcurrency: number | null = null;
  if (input.metric === 'invocations') {
    if (values.every((v) => (v ?? 0) === 0)) {
      throw usage`no invocations of endpoint ${input.endpoint} variant ${input.variant} recorded from ${from} to ${to} (${values.length - missing} datapoints, all 0): nothing to replay. Check ${opt('endpoint')}, ${opt('from')} and ${opt('to')}.`;
    }
    const rows: RateRow[] = values.map((v, i) => ({ t_s: i * periodS, rps: (v ?? 0) / periodS }));
    const built = rateTrace(rows, values.length * periodS, {
      source: input.outFile,
      kind: 'cloudwatch',
      startMs: fromMs,
    });
    text = formatRateCsv(built, comments);
    trace = { ref: built.ref, offered: built.offered };
  } else {
    peakConcurrency = Math.max(0, ...values.map((v) => v ?? 0));
    const rows = values.map((v, i) => `${i * periodS},${v ?? 0}`);
    const head = [...comments, `start=${from}`].map((c) => `# ${c}\n`).join('');
    text = `${head}t_s,concurrency\n${rows.join('\n')}\n`;
  }
  writeFileAtomic(input.outFile, text);
  const all: TraceImportFacts = { ...facts, file: input.outFile, trace, peakConcurrency };
  return {
    artifact: {
      kind: 'trace-import',
      file: input.outFile,
      model_name: input.modelName,
      endpoint: input.endpoint,
      variant: input.variant,
      region: input.region,
      metric: query.metricName,
      stat: query.stat,
      period_s: periodS,
      from,
      to,
      periods: values.length,
      missing_periods: missing,
      trace: trace?.ref ?? null,
      peak_concurrency: peakConcurrency,
    },
    report: renderTraceImport(all),
    exitCode: 0,
    written: [input.outFile],
  };
}
