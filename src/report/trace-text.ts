/**
 * The texts of `scalegate trace show | shape | import`: what a trace is (duration, peak and mean
 * rate, arrivals, digest, start), every figure with where it comes from.
 */
import type { TraceKind, TraceSummary } from '../model/trace.js';

/** Where a trace's figures come from, by its kind. */
const PROVENANCE: Record<TraceKind, string> = {
  rate: 'computed from the stated rate rows',
  timestamps: 'computed from the recorded arrivals',
  shape: 'computed from an assumed built-in shape',
  cloudwatch: 'computed from CloudWatch Invocations, measured',
};

const rate = (x: number): string => (x >= 100 ? x.toFixed(1) : x >= 1 ? x.toFixed(2) : x.toFixed(3));

function duration(s: number): string {
  if (s < 120) return `${Number(s.toFixed(3))} s`;
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = Number((s % 60).toFixed(3));
  return `${Number(s.toFixed(3))} s (${h > 0 ? `${h} h ` : ''}${m} min${rest > 0 ? ` ${rest} s` : ''})`;
}

/** The lines that describe one trace (`trace show`, and after `trace shape` / `trace import`). */
export function renderTraceSummary(ref: TraceSummary, offered: number): string {
  const origin = PROVENANCE[ref.kind];
  const arrivals =
    ref.kind === 'timestamps'
      ? `${offered} (counted)`
      : `${Math.round(offered)} expected (computed: the rate's integral; a replay draws Poisson arrivals around it)`;
  const peakNote = ref.kind === 'timestamps' ? 'the busiest whole second' : 'the highest rate row';
  return [
    `trace     ${ref.source}`,
    `  kind      ${ref.kind}`,
    `  duration  ${duration(ref.duration_s)} (${ref.kind === 'timestamps' ? 'to the second after the last arrival' : 'stated by the trace'})`,
    `  peak      ${rate(ref.peak_rps)} requests/s (${origin}: ${peakNote})`,
    `  mean      ${rate(ref.mean_rps)} requests/s (${origin})`,
    `  arrivals  ${arrivals}`,
    `  start     ${ref.start ?? 'not anchored (no `# start=`): t_s 0 is taken as 00:00 UTC by scheduled actions'}`,
    `  sha256    ${ref.sha256} (of the canonical form: docs/traces.md#the-digest)`,
  ].join('\n');
}

/** `trace shape`: the file written and the trace it holds. */
export function renderTraceShape(file: string, ref: TraceSummary, offered: number): string {
  return `wrote ${file}\n${renderTraceSummary(ref, offered)}\n`;
}

export interface TraceImportFacts {
  file: string;
  metric: 'invocations' | 'concurrency';
  metricName: string;
  stat: string;
  periodS: number;
  endpoint: string;
  variant: string;
  region: string;
  from: string;
  to: string;
  periods: number;
  /** Periods with no datapoint, written as 0. */
  missing: number;
  /** Invocations: the trace written; concurrency: null. */
  trace: { ref: TraceSummary; offered: number } | null;
  /** Concurrency: the highest Maximum, measured. */
  peakConcurrency: number | null;
}

/** The lines written at the top of an imported file (as `# ` comments; `# start=` is the trace's own). */
export function traceImportComments(
  f: Omit<TraceImportFacts, 'file' | 'trace' | 'peakConcurrency'>,
): string[] {
  const lines = [
    `source=cloudwatch AWS/SageMaker ${f.metricName} ${f.stat} per ${f.periodS} s, endpoint ${f.endpoint} variant ${f.variant}, region ${f.region}, ${f.from} to ${f.to}`,
    `written by scalegate trace import: ${f.periods} periods, ${f.missing} without a datapoint (written as 0)`,
  ];
  if (f.metric === 'invocations') {
    lines.push(`rps = the period's Invocations Sum / ${f.periodS} s (measured by CloudWatch)`);
  } else {
    lines.push(
      "informational: the busiest instance's requests in flight (measured by CloudWatch), not arrivals; tune replays the Invocations trace",
    );
  }
  return lines;
}

/** `trace import`: what was read from CloudWatch and written. */
export function renderTraceImport(f: TraceImportFacts): string {
  const lines = [
    `wrote ${f.file}`,
    `  read      AWS/SageMaker ${f.metricName} ${f.stat} per ${f.periodS} s, endpoint ${f.endpoint} variant ${f.variant} in ${f.region}`,
    `  range     ${f.from} to ${f.to}: ${f.periods} periods, ${f.missing} without a datapoint (written as ${f.metric === 'invocations' ? 'rps 0' : '0'})`,
  ];
  if (f.periodS > 60 && f.metric === 'invocations') {
    lines.push(
      `  note      CloudWatch keeps 1-minute data 15 days: this older range is read per ${f.periodS} s, so bursts inside a period are averaged away`,
    );
  }
  if (f.trace) lines.push(renderTraceSummary(f.trace.ref, f.trace.offered));
  if (f.peakConcurrency !== null) {
    lines.push(
      `  peak      ${f.peakConcurrency} requests in flight on the busiest instance (measured by CloudWatch; informational, not a trace)`,
    );
  }
  return `${lines.join('\n')}\n`;
}
