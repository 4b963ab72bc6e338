/**
 * Where `scalegate tune` gets its traffic: a trace file (`--trace`) or a built-in shape
 * (`--shape`), as the simulator's arrivals plus the reference the tune artifact records. The one
 * place the command reads a trace.
 *
 * A trace file here is a CSV of `t_s,rps` rows (a header line first; ascending t_s from 0; each
 * rate holds until the next row's t_s; the last row, whose rate is ignored, marks the end).
 */
import { createHash } from 'node:crypto';
import { opt, READ_LIMITS, readBoundedBytes, type TraceRef, usage } from '../model/index.js';
import type { SimArrivals } from '../sim/types.js';

export type TraceSource = { kind: 'file'; file: string } | { kind: 'shape'; spec: string };

export interface LoadedTrace {
  arrivals: SimArrivals;
  /** The trace's reference; `requests` is filled in from the simulation. */
  ref: TraceRef;
}

export type TraceLoader = (source: TraceSource) => LoadedTrace;

/** The canonical CSV of a rate trace (what its digest is of): `t_s,rps` rows as replayed, then the end. */
export function canonicalRateCsv(rows: readonly { t_s: number; rps: number }[], durationS: number): string {
  return `t_s,rps\n${rows.map((r) => `${r.t_s},${r.rps}\n`).join('')}${durationS},0\n`;
}

/** The reference of a rate trace: digest, duration, peak and mean rate. */
export function rateTraceRef(
  source: string,
  kind: TraceRef['kind'],
  rows: readonly { t_s: number; rps: number }[],
  durationS: number,
  start: string | null,
): TraceRef {
  let area = 0;
  let peak = 0;
  rows.forEach((r, i) => {
    const end = i + 1 < rows.length ? (rows[i + 1] as { t_s: number }).t_s : durationS;
    area += r.rps * Math.max(0, end - r.t_s);
    peak = Math.max(peak, r.rps);
  });
  return {
    source,
    sha256: createHash('sha256').update(canonicalRateCsv(rows, durationS)).digest('hex'),
    kind,
    duration_s: durationS,
    requests: 0,
    peak_rps: peak,
    mean_rps: durationS > 0 ? Number((area / durationS).toFixed(6)) : 0,
    start,
  };
}

function readRateCsv(file: string): LoadedTrace {
  const text = readBoundedBytes(file, { maxBytes: READ_LIMITS.loadInput, label: 'the trace' }).toString(
    'utf8',
  );
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.startsWith('#'));
  const [header, ...body] = lines;
  if (header?.replace(/\s/g, '') !== 't_s,rps') {
    throw usage`${opt('trace', file)}: the first line must be the header t_s,rps (got "${(header ?? '').slice(0, 80)}").`;
  }
  const rows = body.map((line, i) => {
    const [t, r] = line.split(',').map((v) => Number(v.trim()));
    if (t === undefined || r === undefined || !Number.isFinite(t) || !Number.isFinite(r) || t < 0 || r < 0) {
      throw usage`${opt('trace', file)}: line ${i + 2} is not "t_s,rps" with two numbers >= 0: "${line.slice(0, 80)}".`;
    }
    return { t_s: t, rps: r };
  });
  if (rows.length < 2 || rows[0]?.t_s !== 0) {
    throw usage`${opt('trace', file)}: needs at least two rows, the first at t_s 0 (the last row marks the end).`;
  }
  for (let i = 1; i < rows.length; i++) {
    if ((rows[i] as { t_s: number }).t_s <= (rows[i - 1] as { t_s: number }).t_s) {
      throw usage`${opt('trace', file)}: t_s must rise from row to row (line ${i + 2}).`;
    }
  }
  const durationS = (rows[rows.length - 1] as { t_s: number }).t_s;
  const held = rows.slice(0, -1);
  return {
    arrivals: { kind: 'rate', rows: held, durationS },
    ref: rateTraceRef(file, 'rate', held, durationS, null),
  };
}

/** The default loader: trace files as above; built-in shapes are not part of this build. */
export const loadTuneTrace: TraceLoader = (source) => {
  if (source.kind === 'file') return readRateCsv(source.file);
  throw usage`${opt('shape', source.spec)}: no built-in traffic shapes in this build; give a trace file with ${opt('trace')}.`;
};
