/**
 * Reading a traffic trace (src/model/trace.ts): the two formats, the end rule, the digest of the
 * canonical form, and every refusal naming the file, the line and the fix.
 */
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isUsageError } from '../../src/model/errors.js';
import { formatRateCsv, parseTraceText, rateAt, readTraceFile, TRACE_LIMITS } from '../../src/model/trace.js';

const FILE = 'traces/day.csv';

function refusal(text: string, file = FILE): string {
  try {
    parseTraceText(text, file);
  } catch (e) {
    if (isUsageError(e)) return e.message;
    throw e;
  }
  throw new Error('not refused');
}

describe('a rate trace (t_s,rps)', () => {
  it('holds each rate until the next row and ends at the last row plus the median step (prevents a trace losing or inventing its last step)', () => {
    const trace = parseTraceText('t_s,rps\n0,10\n60,20\n120,30\n150,40\n', FILE);
    expect(trace.arrivals).toEqual({
      kind: 'rate',
      rows: [
        { t_s: 0, rps: 10 },
        { t_s: 60, rps: 20 },
        { t_s: 120, rps: 30 },
        { t_s: 150, rps: 40 },
      ],
      // steps 60, 60, 30: median 60.
      durationS: 210,
    });
    expect(trace.ref.peak_rps).toBe(40);
    expect(trace.offered).toBe(10 * 60 + 20 * 60 + 30 * 30 + 40 * 60);
    expect(trace.ref.mean_rps).toBeCloseTo(trace.offered / 210, 12);
    expect(trace.ref.kind).toBe('rate');
    expect(trace.ref.source).toBe(FILE);
    expect(trace.ref.start).toBeNull();
  });

  it('ends at an explicit end row `t_s,` (prevents the median-step rule overriding a stated end)', () => {
    const trace = parseTraceText('t_s,rps\n0,10\n60,20\n90,\n', FILE);
    expect(trace.arrivals.durationS).toBe(90);
    expect(trace.offered).toBe(10 * 60 + 20 * 30);
  });

  it('anchors the trace at `# start=` and marks a CloudWatch import by `# source=cloudwatch` (prevents scheduled actions placed at the wrong hour)', () => {
    const trace = parseTraceText(
      '# start=2026-11-30T01:00:00+01:00\n# source=cloudwatch AWS/SageMaker Invocations\nt_s,rps\n0,1\n60,\n',
      FILE,
    );
    expect(trace.ref.start).toBe('2026-11-30T00:00:00.000Z');
    expect(trace.ref.kind).toBe('cloudwatch');
  });

  it('gives the same digest whatever the formatting, and another digest for other traffic (prevents a tune artifact naming a different trace as the same)', () => {
    const plain = parseTraceText('t_s,rps\n0,10\n60,20\n120,\n', 'a.csv');
    const noisy = parseTraceText(
      '# a comment\r\n\r\nt_s , rps\r\n0.000, 10.0\r\n30,10\r\n 60 ,2e1 \r\n120,\r\n',
      'b.csv',
    );
    expect(noisy.ref.sha256).toBe(plain.ref.sha256);
    expect(plain.canonicalCsv()).toBe('t_s,rps\n0,10\n60,20\n120,\n');
    // Without the end row the median step (60) gives the same end: the same traffic.
    expect(parseTraceText('t_s,rps\n0,10\n60,20\n', 'c.csv').ref.sha256).toBe(plain.ref.sha256);
    expect(parseTraceText('t_s,rps\n0,10\n60,20.001\n120,\n', 'd.csv').ref.sha256).not.toBe(plain.ref.sha256);
    expect(parseTraceText('t_s,rps\n0,10\n60,20\n121,\n', 'e.csv').ref.sha256).not.toBe(plain.ref.sha256);
    const anchored = parseTraceText('# start=2026-11-30T00:00:00Z\nt_s,rps\n0,10\n60,20\n120,\n', 'f.csv');
    expect(anchored.ref.sha256).not.toBe(plain.ref.sha256);
  });

  it('writes a file that reads back to the same digest (prevents `trace shape` or `trace import` writing a different trace than it reports)', () => {
    const trace = parseTraceText('# start=2026-11-30T00:00:00Z\nt_s,rps\n0,1.5\n10,0\n20,3\n30,\n', FILE);
    const text = formatRateCsv(trace, ['source=test', 'free text']);
    const back = parseTraceText(text, 'back.csv');
    expect(back.ref.sha256).toBe(trace.ref.sha256);
    expect(back.ref.start).toBe(trace.ref.start);
  });

  it('reads the rate in force at any time (prevents an off-by-one row at a boundary)', () => {
    const trace = parseTraceText('t_s,rps\n0,10\n60,20\n120,\n', FILE);
    if (trace.arrivals.kind !== 'rate') throw new Error('rate expected');
    const { rows, durationS } = trace.arrivals;
    expect([-1, 0, 59.9, 60, 119.9, 120].map((t) => rateAt(rows, durationS, t))).toEqual([
      0, 10, 10, 20, 20, 0,
    ]);
  });
});

describe('a timestamp trace (t_s or JSON lines)', () => {
  it('counts the arrivals, ends at the second after the last one and takes the busiest second as the peak (prevents a replay dropping its last arrivals)', () => {
    const trace = parseTraceText('t_s\n0\n0.5\n0.5\n1.2\n3.75\n', FILE);
    expect(trace.arrivals.kind).toBe('timestamps');
    if (trace.arrivals.kind !== 'timestamps') return;
    expect([...trace.arrivals.times]).toEqual([0, 0.5, 0.5, 1.2, 3.75]);
    expect(trace.arrivals.durationS).toBe(4);
    expect(trace.offered).toBe(5);
    expect(trace.ref.peak_rps).toBe(3);
    expect(trace.ref.mean_rps).toBe(5 / 4);
  });

  it('reads JSON lines by extension or by a first line that is an object, to the same digest as the CSV (prevents two spellings of one recording counting as two traces)', () => {
    const csv = parseTraceText('t_s\n0\n1.5\n2\n', 'a.csv');
    const jsonl = parseTraceText('{"t_s": 0}\n{"t_s": 1.50, "status": 200}\n{"t_s": 2}\n', 'a.jsonl');
    const sniffed = parseTraceText('{"t_s":0}\n{"t_s":1.5}\n{"t_s":2}\n', 'a.txt');
    expect(jsonl.ref.sha256).toBe(csv.ref.sha256);
    expect(sniffed.ref.sha256).toBe(csv.ref.sha256);
    expect(parseTraceText('t_s\n0\n1.5\n2.5\n', 'b.csv').ref.sha256).not.toBe(csv.ref.sha256);
  });
});

describe('refusals: exit 2 naming the file, the line and the fix', () => {
  const cases: [string, string, RegExp][] = [
    ['an empty file', '', /day\.csv: empty: no header\. A trace is `t_s,rps` rows/],
    ['comments only', '# start=2026-11-30T00:00:00Z\n\n', /day\.csv: empty: no header/],
    ['a missing header', '0,10\n60,20\n', /day\.csv line 1: not the header `t_s,rps` or `t_s`/],
    [
      'a concurrency record',
      't_s,concurrency\n0,3\n',
      /line 1: a concurrency record .*not arrivals\. It is informational/,
    ],
    ['no rows', 't_s,rps\n', /day\.csv: no rate rows after the header/],
    [
      'a first row after 0',
      't_s,rps\n5,10\n60,1\n',
      /line 2: the first row is not at t_s 0\. The first row gives the rate at the start/,
    ],
    [
      'unsorted rows',
      't_s,rps\n0,1\n60,2\n30,3\n',
      /line 4: t_s does not come after the row above \(line 3\)\. Rows ascend/,
    ],
    ['a repeated time', 't_s,rps\n0,1\n0,2\n', /line 3: t_s does not come after the row above \(line 2\)/],
    ['a negative time', 't_s,rps\n-1,1\n', /line 2: t_s is negative/],
    ['a negative rate', 't_s,rps\n0,1\n60,-2\n', /line 3: rps is negative\. Rates are requests\/s >= 0/],
    ['NaN', 't_s,rps\n0,NaN\n', /line 2: rps is not a number/],
    ['Infinity', 't_s,rps\n0,1\n1e400,2\n', /line 3: t_s is not a finite number/],
    ['hex', 't_s,rps\n0,0x10\n', /line 2: rps is not a number/],
    ['three cells', 't_s,rps\n0,1,2\n', /line 2: 3 cells where a row has two \(t_s,rps\)/],
    ['a row after the end row', 't_s,rps\n0,1\n60,\n90,2\n', /line 4: a row after the end row \(line 3/],
    ['one row, no end', 't_s,rps\n0,1\n', /line 2: one rate row and no end row.*Add an end row/],
    ['all zero', 't_s,rps\n0,0\n60,0\n', /day\.csv: every rate is 0, so nothing arrives/],
    [
      'more than a day',
      't_s,rps\n0,1\n86401,\n',
      /line 3: the trace lasts 86401 s, above the 86400 s \(one day\)/,
    ],
    [
      'a bad start',
      '# start=yesterday\nt_s,rps\n0,1\n60,\n',
      /line 1: `# start=` is not an ISO time with its offset\. Write it as/,
    ],
    [
      'a start without offset',
      '# start=2026-11-30T00:00:00\nt_s,rps\n0,1\n60,\n',
      /line 1: `# start=` is not an ISO time/,
    ],
    [
      'two starts',
      '# start=2026-11-30T00:00:00Z\n# start=2026-12-01T00:00:00Z\nt_s\n0\n',
      /line 2: a second start \(the first is on line 1\)/,
    ],
    [
      'unsorted timestamps',
      't_s\n0\n2\n1\n',
      /line 4: t_s comes before the arrival on line 3\. Sort the arrivals/,
    ],
    ['a negative timestamp', 't_s\n-0.5\n', /line 2: t_s is negative/],
    ['a timestamp past a day', 't_s\n0\n86400\n', /line 3: the trace lasts 86401 s/],
    ['no timestamps', 't_s\n# nothing\n', /day\.csv: no arrivals after the header/],
    ['a JSON line without t_s', '{"t_s": 0}\n{"at": 1}\n', /line 2: no number "t_s"\. Each line is \{"t_s"/],
    ['a broken JSON line', '{"t_s": 0}\n{"t_s": \n', /line 2: not a JSON line/],
  ];
  for (const [what, text, expected] of cases) {
    it(`refuses ${what}`, () => {
      const message = refusal(text);
      expect(message).toMatch(expected);
      expect(message.startsWith(FILE)).toBe(true);
    });
  }

  it('never quotes the content of a line it refuses (prevents a trace echoing a secret pasted into it)', () => {
    expect(refusal('t_s,rps\n0,AKIASECRETSECRET\n')).not.toContain('AKIA');
    expect(refusal('AKIASECRET,x\n')).not.toContain('AKIA');
  });

  it('refuses more rows or arrivals than the limit, naming the line (prevents a hostile file exhausting memory)', () => {
    const limits = { rateRows: 100, timestamps: 100 };
    const rows = Array.from({ length: 101 }, (_, i) => `${i},1`).join('\n');
    expect(() => parseTraceText(`t_s,rps\n${rows}\n`, FILE, { limits })).toThrow(
      /day\.csv line 102: more than 100 rate rows\. Give the rate in coarser steps/,
    );
    expect(() => parseTraceText(`t_s\n${rows.replaceAll(',1', '')}\n`, FILE, { limits })).toThrow(
      /day\.csv line 102: more than 100 arrivals\. Give the traffic as a rate/,
    );
    // A caller may lower the limits, never raise them above what bounds memory.
    expect(() =>
      parseTraceText('t_s\n0\n', FILE, { limits: { timestamps: TRACE_LIMITS.timestamps * 2 } }),
    ).not.toThrow();
  });

  it('reads a file through the bounded reader: a missing file is refused naming it (prevents a stack trace for a typo)', () => {
    const missing = join(tmpdir(), 'scalegate-no-such-trace.csv');
    expect(() => readTraceFile(missing)).toThrow(
      /scalegate-no-such-trace\.csv: cannot read the trace \(no such file\)/,
    );
    const file = join(tmpdir(), `scalegate-trace-${process.pid}.csv`);
    writeFileSync(file, 't_s,rps\n0,2\n10,\n');
    expect(readTraceFile(file).offered).toBe(20);
  });
});
