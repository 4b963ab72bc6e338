/**
 * Traffic traces: what `scalegate tune` replays through the fleet simulator (docs/traces.md). Two
 * file formats, chosen by the header:
 *
 * - a rate (`t_s,rps`): rows ascending from t_s 0, rps >= 0; each rate holds until the next row.
 *   The trace ends at a final row `t_s,` (an empty rate) when there is one, else at the last row's
 *   t_s plus the median step between rows.
 * - request timestamps (`t_s`, or JSON lines `{"t_s": ...}` in a `.jsonl` file or one whose first
 *   line is an object): one arrival per row, seconds from the start, not decreasing. The trace
 *   ends at the whole second after the last arrival.
 *
 * Lines starting `#` are comments; `# start=<ISO time>` anchors the trace in time (scheduled
 * actions are placed by it), `# source=...` says where it came from (a CloudWatch import).
 *
 * The digest is the sha256 of the canonical form: every number printed by one rule (at most six
 * decimals, no trailing zeros), consecutive rows of equal rate merged, the end row always written,
 * the start as `# start=<toISOString>` first when there is one. The same traffic gives the same
 * digest whatever the file's formatting (spaces, CRLF, `1.50` or `1.5`, repeated rows, comments).
 *
 * Every refusal is a UsageError (exit 2) naming the file, the line and the fix; none quotes the
 * file's content.
 */
import { createHash } from 'node:crypto';
import { type MessagePart, UsageError } from './errors.js';
import { READ_LIMITS, readBoundedFile } from './read.js';
import { LIMITS, printable } from './safe.js';

export type TraceKind = 'rate' | 'timestamps' | 'shape' | 'cloudwatch';

export interface RateRow {
  t_s: number;
  rps: number;
}

/** What the simulator replays (structurally the simulator's SimArrivals). */
export type TraceArrivals =
  | { kind: 'rate'; rows: readonly RateRow[]; durationS: number }
  | { kind: 'timestamps'; times: Float64Array; durationS: number };

/** The tune artifact's trace reference, less what a simulation draws (`requests`). */
export interface TraceSummary {
  source: string;
  sha256: string;
  kind: TraceKind;
  duration_s: number;
  peak_rps: number;
  mean_rps: number;
  start: string | null;
}

export interface Trace {
  arrivals: TraceArrivals;
  ref: TraceSummary;
  /** Arrivals the trace offers: the integral of the rate (a rate) or the file's count (timestamps). */
  offered: number;
  /** The canonical CSV the digest is taken of (computed on demand: a timestamp trace can be large). */
  canonicalCsv(): string;
}

/** The largest trace read: a day (the tune artifact's bound on a duration), and these counts. */
export const TRACE_LIMITS = {
  durationS: LIMITS.seconds,
  rateRows: 1_000_000,
  timestamps: 20_000_000,
  rps: LIMITS.rps,
} as const;

/** Where the trace formats are written down, for every refusal's fix. */
const FORMATS =
  'A trace is `t_s,rps` rows (a rate) or `t_s` rows (request timestamps, or JSON lines {"t_s": ...}); see docs/traces.md';

/** A number as the canonical form prints it: at most six decimals, no trailing zeros, no -0. */
export function canonicalNumber(x: number): string {
  const rounded = Number(x.toFixed(6));
  return String(rounded === 0 ? 0 : rounded);
}

const round6 = (x: number): number => {
  const r = Number(x.toFixed(6));
  return r === 0 ? 0 : r;
};

const NUMBER = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

interface Meta {
  source: string;
  kind: TraceKind;
  /** Epoch ms of t = 0, or null. */
  startMs: number | null;
}

const isoOf = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** `# start=...` as the canonical form (and every written trace) carries it. */
const startLine = (ms: number | null): string => (ms === null ? '' : `# start=${isoOf(ms)}\n`);

/**
 * A rate trace from its rows: rounded to the canonical precision, equal consecutive rates merged,
 * its digest, peak and mean. Rows must already be valid (ascending from 0, rps >= 0, before the end).
 */
export function rateTrace(rows: readonly RateRow[], durationS: number, meta: Meta): Trace {
  const duration = round6(durationS);
  const merged: RateRow[] = [];
  for (const row of rows) {
    const r = { t_s: round6(row.t_s), rps: round6(row.rps) };
    if (r.t_s >= duration) break;
    const last = merged.at(-1);
    if (last && last.rps === r.rps) continue;
    merged.push(r);
  }
  let peak = 0;
  let area = 0;
  for (let i = 0; i < merged.length; i++) {
    const row = merged[i] as RateRow;
    const end = i + 1 < merged.length ? (merged[i + 1] as RateRow).t_s : duration;
    peak = Math.max(peak, row.rps);
    area += row.rps * (end - row.t_s);
  }
  const canonical = (): string => {
    const lines = [`${startLine(meta.startMs)}t_s,rps`];
    for (const r of merged) lines.push(`${canonicalNumber(r.t_s)},${canonicalNumber(r.rps)}`);
    lines.push(`${canonicalNumber(duration)},`);
    return `${lines.join('\n')}\n`;
  };
  const text = canonical();
  return {
    arrivals: { kind: 'rate', rows: merged, durationS: duration },
    ref: {
      source: meta.source,
      sha256: createHash('sha256').update(text).digest('hex'),
      kind: meta.kind,
      duration_s: duration,
      peak_rps: peak,
      mean_rps: duration > 0 ? area / duration : 0,
      start: isoOf(meta.startMs),
    },
    offered: area,
    canonicalCsv: () => text,
  };
}

/** A timestamp trace: times rounded to the canonical precision (ascending), digest, peak (busiest second) and mean. */
export function timestampTrace(times: Float64Array, meta: Meta): Trace {
  for (let i = 0; i < times.length; i++) times[i] = round6(times[i] as number);
  const last = times.length > 0 ? (times[times.length - 1] as number) : 0;
  const duration = Math.floor(last) + 1;
  let peak = 0;
  let second = -1;
  let inSecond = 0;
  for (const t of times) {
    const s = Math.floor(t);
    if (s !== second) {
      second = s;
      inSecond = 0;
    }
    inSecond++;
    peak = Math.max(peak, inSecond);
  }
  const chunks = function* (): Generator<string> {
    yield `${startLine(meta.startMs)}t_s\n`;
    const batch: string[] = [];
    for (const t of times) {
      batch.push(canonicalNumber(t));
      if (batch.length === 65_536) {
        yield `${batch.join('\n')}\n`;
        batch.length = 0;
      }
    }
    if (batch.length > 0) yield `${batch.join('\n')}\n`;
  };
  const hash = createHash('sha256');
  for (const chunk of chunks()) hash.update(chunk);
  return {
    arrivals: { kind: 'timestamps', times, durationS: duration },
    ref: {
      source: meta.source,
      sha256: hash.digest('hex'),
      kind: meta.kind,
      duration_s: duration,
      peak_rps: peak,
      mean_rps: times.length / duration,
      start: isoOf(meta.startMs),
    },
    offered: times.length,
    canonicalCsv: () => [...chunks()].join(''),
  };
}

/** The rate at `t` (seconds from the start): the row in force then, 0 outside the trace. */
export function rateAt(rows: readonly RateRow[], durationS: number, t: number): number {
  if (t < 0 || t >= durationS || rows.length === 0) return 0;
  let lo = 0;
  let hi = rows.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((rows[mid] as RateRow).t_s <= t) lo = mid;
    else hi = mid - 1;
  }
  return (rows[lo] as RateRow).rps;
}

/**
 * A rate trace as a file: its comments (`source=...`, free text), then the canonical form (with
 * the trace's own `# start=`, its rows and the end row), so reading it back gives the same digest.
 */
export function formatRateCsv(trace: Trace, comments: readonly string[] = []): string {
  if (trace.arrivals.kind !== 'rate') throw new Error('formatRateCsv: not a rate trace');
  if (comments.some((c) => /^start\s*=/.test(c)))
    throw new Error("formatRateCsv: the start is the trace's own");
  const head = comments.map((c) => `# ${c}\n`).join('');
  return `${head}${trace.canonicalCsv()}`;
}

interface Where {
  file: string;
  source?: MessagePart;
  limits: { rateRows: number; timestamps: number };
}

const refuse = (where: Where, at: number | null, why: string, fix = FORMATS): UsageError => {
  const parts: MessagePart[] = [];
  if (where.source !== undefined) parts.push(where.source, ' ');
  parts.push(`${printable(where.file)}${at === null ? '' : ` line ${at}`}: ${why}. ${fix}.`);
  return new UsageError(parts);
};

/** One line of the file (1-based number), comments and blanks already told apart. */
interface Line {
  n: number;
  text: string;
}

function* linesOf(text: string): Generator<Line> {
  let pos = 0;
  let n = 0;
  while (pos <= text.length) {
    let end = text.indexOf('\n', pos);
    if (end === -1) end = text.length;
    n++;
    let line = text.slice(pos, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    yield { n, text: line.trim() };
    pos = end + 1;
  }
}

/** The number in a cell, or a refusal naming what it should be. */
function cellNumber(where: Where, n: number, cell: string, what: string): number {
  if (!NUMBER.test(cell)) throw refuse(where, n, `${what} is not a number`);
  const v = Number(cell);
  if (!Number.isFinite(v)) throw refuse(where, n, `${what} is not a finite number`);
  return v;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

const tooLong = (where: Where, at: number | null, duration: number): UsageError =>
  refuse(
    where,
    at,
    `the trace lasts ${canonicalNumber(duration)} s, above the ${TRACE_LIMITS.durationS} s (one day) a trace may cover`,
    'Cut it to one day (the busiest one)',
  );

function parseRate(lines: Generator<Line>, where: Where): { rows: RateRow[]; durationS: number } {
  const rows: RateRow[] = [];
  const lineOf: number[] = [];
  let end: { t: number; n: number } | null = null;
  for (const { n, text } of lines) {
    if (text === '' || text.startsWith('#')) continue;
    if (end !== null) {
      throw refuse(
        where,
        n,
        `a row after the end row (line ${end.n}, \`t_s,\` with no rate)`,
        'The end row is the last one',
      );
    }
    const cells = text.split(',').map((c) => c.trim());
    if (cells.length !== 2) throw refuse(where, n, `${cells.length} cells where a row has two (t_s,rps)`);
    const t = cellNumber(where, n, cells[0] as string, 't_s');
    if (t < 0) throw refuse(where, n, 't_s is negative', 'Times are seconds from the start (0, 10, 20, ...)');
    const previous = rows.at(-1);
    if (previous === undefined && cells[1] !== '' && t !== 0) {
      throw refuse(
        where,
        n,
        'the first row is not at t_s 0',
        'The first row gives the rate at the start, t_s 0',
      );
    }
    if (previous !== undefined && t <= previous.t_s) {
      throw refuse(
        where,
        n,
        `t_s does not come after the row above (line ${lineOf.at(-1)})`,
        'Rows ascend in t_s, each time once',
      );
    }
    if (t > TRACE_LIMITS.durationS) throw tooLong(where, n, t);
    if (cells[1] === '') {
      if (previous === undefined) {
        throw refuse(
          where,
          n,
          'the end row (`t_s,` with no rate) comes before any rate',
          'Give the rates first',
        );
      }
      end = { t, n };
      continue;
    }
    const rps = cellNumber(where, n, cells[1] as string, 'rps');
    if (rps < 0) throw refuse(where, n, 'rps is negative', 'Rates are requests/s >= 0 (0 is a quiet spell)');
    if (rps > TRACE_LIMITS.rps) {
      throw refuse(where, n, `rps is above ${TRACE_LIMITS.rps}`, 'Rates are requests/s of one endpoint');
    }
    if (rows.length === where.limits.rateRows) {
      throw refuse(
        where,
        n,
        `more than ${where.limits.rateRows} rate rows`,
        'Give the rate in coarser steps (10 s rows cover a day in 8,640)',
      );
    }
    rows.push({ t_s: t, rps });
    lineOf.push(n);
  }
  if (rows.length === 0) throw refuse(where, null, 'no rate rows after the header');
  let durationS: number;
  if (end !== null) {
    durationS = end.t;
  } else {
    if (rows.length < 2) {
      throw refuse(
        where,
        lineOf[0] ?? null,
        'one rate row and no end row, so the trace has no length',
        'Add an end row `<t_s>,` (t_s with no rate) after it',
      );
    }
    const steps = rows.slice(1).map((r, i) => r.t_s - (rows[i] as RateRow).t_s);
    durationS = (rows.at(-1) as RateRow).t_s + median(steps);
    if (durationS > TRACE_LIMITS.durationS) throw tooLong(where, lineOf.at(-1) ?? null, durationS);
  }
  if (rows.every((r) => r.rps === 0)) {
    throw refuse(where, null, 'every rate is 0, so nothing arrives', 'Give at least one rate above 0');
  }
  return { rows, durationS };
}

function timestampOf(where: Where, n: number, text: string, jsonl: boolean): number {
  if (!jsonl) return cellNumber(where, n, text, 't_s');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw refuse(where, n, 'not a JSON line', 'Each line is {"t_s": <seconds from the start>}');
  }
  const t = (value as { t_s?: unknown } | null)?.t_s;
  if (typeof t !== 'number' || !Number.isFinite(t)) {
    throw refuse(where, n, 'no number "t_s"', 'Each line is {"t_s": <seconds from the start>}');
  }
  return t;
}

function parseTimestamps(lines: Generator<Line>, where: Where, jsonl: boolean): Float64Array {
  let times = new Float64Array(1024);
  let count = 0;
  let previousLine = 0;
  for (const { n, text } of lines) {
    if (text === '' || text.startsWith('#')) continue;
    const t = timestampOf(where, n, text, jsonl);
    if (t < 0) throw refuse(where, n, 't_s is negative', 'Times are seconds from the start');
    if (count > 0 && t < (times[count - 1] as number)) {
      throw refuse(
        where,
        n,
        `t_s comes before the arrival on line ${previousLine}`,
        'Sort the arrivals by time (sort -n)',
      );
    }
    if (t >= TRACE_LIMITS.durationS) throw tooLong(where, n, Math.floor(t) + 1);
    if (count === where.limits.timestamps) {
      throw refuse(
        where,
        n,
        `more than ${where.limits.timestamps} arrivals`,
        'Give the traffic as a rate (`t_s,rps` rows) instead',
      );
    }
    if (count === times.length) {
      const grown = new Float64Array(Math.min(times.length * 2, where.limits.timestamps));
      grown.set(times);
      times = grown;
    }
    times[count++] = t;
    previousLine = n;
  }
  if (count === 0) throw refuse(where, null, 'no arrivals after the header');
  return times.slice(0, count);
}

export interface ParseTraceOptions {
  /** What the trace is called in its reference (`source`). @default the file name */
  source?: string;
  /** The flag that named the file, put before it in messages (`--trace`). */
  flag?: MessagePart;
  /** Lower counts than TRACE_LIMITS (never higher: those bound memory). @default TRACE_LIMITS */
  limits?: { rateRows?: number; timestamps?: number };
}

/** A trace from a file's text; `file` names it in every refusal (and `.jsonl` selects JSON lines). */
export function parseTraceText(text: string, file: string, options: ParseTraceOptions = {}): Trace {
  const limits = {
    rateRows: Math.min(TRACE_LIMITS.rateRows, options.limits?.rateRows ?? TRACE_LIMITS.rateRows),
    timestamps: Math.min(TRACE_LIMITS.timestamps, options.limits?.timestamps ?? TRACE_LIMITS.timestamps),
  };
  const where: Where = { file, limits, ...(options.flag !== undefined ? { source: options.flag } : {}) };
  const lines = linesOf(text);
  let startMs: number | null = null;
  let startLineNo = 0;
  let cloudwatch = false;
  let header: Line | null = null;
  // Comments before the header: the start anchor and the source.
  // (next() by hand: a for-of that breaks would close the generator the rows are read from.)
  for (let next = lines.next(); !next.done; next = lines.next()) {
    const line = next.value;
    if (line.text === '') continue;
    if (!line.text.startsWith('#')) {
      header = line;
      break;
    }
    const comment = line.text.slice(1).trim();
    const start = /^start\s*=\s*(.*)$/.exec(comment);
    if (start) {
      if (startLineNo !== 0) {
        throw refuse(
          where,
          line.n,
          `a second start (the first is on line ${startLineNo})`,
          'Keep one `# start=`',
        );
      }
      const value = (start[1] as string).trim();
      const ms =
        /^\d{4}-\d{2}-\d{2}T/.test(value) && /(Z|[+-]\d{2}:?\d{2})$/.test(value) ? Date.parse(value) : NaN;
      if (!Number.isFinite(ms)) {
        throw refuse(
          where,
          line.n,
          '`# start=` is not an ISO time with its offset',
          'Write it as # start=2026-11-30T00:00:00Z',
        );
      }
      startMs = ms;
      startLineNo = line.n;
    }
    if (/^source\s*=\s*cloudwatch\b/.test(comment)) cloudwatch = true;
  }
  if (header === null) throw refuse(where, null, 'empty: no header');
  const columns = header.text.replace(/\s+/g, '');
  const jsonl = file.toLowerCase().endsWith('.jsonl') || header.text.startsWith('{');
  const meta = (kind: TraceKind): Meta => ({
    source: options.source ?? file,
    kind: cloudwatch ? 'cloudwatch' : kind,
    startMs,
  });
  if (jsonl) {
    // JSON lines have no header: the first line is an arrival.
    const all = (function* () {
      yield header as Line;
      yield* lines;
    })();
    return timestampTrace(parseTimestamps(all, where, true), meta('timestamps'));
  }
  if (columns === 't_s,rps') {
    const { rows, durationS } = parseRate(lines, where);
    return rateTrace(rows, durationS, meta('rate'));
  }
  if (columns === 't_s') return timestampTrace(parseTimestamps(lines, where, false), meta('timestamps'));
  if (columns === 't_s,concurrency') {
    throw refuse(
      where,
      header.n,
      'a concurrency record (`scalegate trace import --metric concurrency`), not arrivals',
      'It is informational; replay the Invocations trace (`scalegate trace import`, the default metric)',
    );
  }
  throw refuse(where, header.n, 'not the header `t_s,rps` or `t_s`');
}

/** Reads a trace file through the bounded reader (exit 2 naming the file for anything refused). */
export function readTraceFile(file: string, options: ParseTraceOptions = {}): Trace {
  const text = readBoundedFile(file, {
    maxBytes: READ_LIMITS.trace,
    label: 'the trace',
    fix: 'Give a trace file (docs/traces.md).',
    ...(options.flag !== undefined ? { source: options.flag } : {}),
  });
  return parseTraceText(text, file, options);
}
