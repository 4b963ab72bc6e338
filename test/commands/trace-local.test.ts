/**
 * `scalegate trace import | shape | show`: the CloudWatch importer against the local SageMaker
 * (invocations sent through the runtime with the real SDK client, read back per minute through
 * GetMetricData), and the exit codes of the three subcommands through the CLI: 0 written or shown,
 * 2 bad input (naming the file, line or flag), 3 an unreachable CloudWatch (naming the operation,
 * the endpoint and the region).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runTraceImport } from '../../src/commands/trace.js';
import { readTraceFile } from '../../src/model/trace.js';
import { repoRoot } from '../helpers/anchor.js';
import { runCli, runCliIn } from '../helpers/cli.js';
import { type Emulator, MODEL, serialContainer, startEmulator, workspace } from './local-apply-fixtures.js';

const CONFIG = join(repoRoot, 'scalegate.config.json');
const MINUTE = 60_000;

let emulator: Emulator;
let dir: string;

beforeAll(async () => {
  emulator = await startEmulator({ container: serialContainer });
  dir = workspace('trace');
});

afterAll(async () => {
  await emulator?.close();
});

const importInput = (from: number, to: number, outFile: string, metric: 'invocations' | 'concurrency') => ({
  modelName: MODEL,
  endpoint: emulator.handle.endpointName,
  variant: emulator.handle.variantName,
  region: emulator.handle.region,
  from: new Date(from).toISOString(),
  to: new Date(to).toISOString(),
  metric,
  outFile,
});

describe('trace import against the local SageMaker', () => {
  it('writes one row per minute whose rate times 60 is the invocations sent in that minute, a minute without traffic as 0, anchored at --from (prevents a trace that is not the traffic the endpoint served)', async () => {
    // Each invocation is recorded once, between its send and its answer: a minute is certain
    // when both fall in it, and may be either of the two when they straddle a boundary.
    const sent: { first: number; last: number }[] = [];
    for (let i = 0; i < 12; i++) {
      const first = Date.now();
      await emulator.clients.runtime.send(
        new InvokeEndpointCommand({
          EndpointName: emulator.handle.endpointName,
          Body: JSON.stringify({ text: `trace ${i}` }),
          ContentType: 'application/json',
        }),
      );
      sent.push({ first, last: Date.now() });
    }
    const minuteOf = (ms: number) => Math.floor(ms / MINUTE) * MINUTE;
    const from = minuteOf((sent[0] as { first: number }).first) - MINUTE;
    const to = minuteOf((sent.at(-1) as { last: number }).last) + 2 * MINUTE;
    const outFile = join(dir, 'invocations.csv');
    // The clock at --to: the minutes after the invocations are complete (empty) ones.
    const result = await runTraceImport(importInput(from, to, outFile, 'invocations'), {
      clients: emulator.clients,
      clock: () => new Date(to),
    });
    expect(result.exitCode).toBe(0);
    expect(result.written).toEqual([outFile]);

    const trace = readTraceFile(outFile);
    expect(trace.ref.kind).toBe('cloudwatch');
    expect(trace.ref.start).toBe(new Date(from).toISOString());
    expect(trace.ref.duration_s).toBe((to - from) / 1000);
    expect(trace.ref.sha256).toBe(result.artifact?.trace?.sha256);
    expect(trace.offered).toBeCloseTo(12, 6);
    if (trace.arrivals.kind !== 'rate') throw new Error('a rate trace expected');
    const { rows, durationS } = trace.arrivals;
    const perMinute = new Map<number, number>();
    for (let i = 0; i < rows.length; i++) {
      const row = rows[i] as { t_s: number; rps: number };
      const end = rows[i + 1]?.t_s ?? durationS;
      for (let t = row.t_s; t < end; t += 60) perMinute.set(t, Math.round(row.rps * 60));
    }
    let straddling = 0;
    for (let m = from; m < to; m += MINUTE) {
      const sure = sent.filter((s) => minuteOf(s.first) === m && minuteOf(s.last) === m).length;
      const maybe = sent.filter(
        (s) => minuteOf(s.first) !== minuteOf(s.last) && [s.first, s.last].some((t) => minuteOf(t) === m),
      ).length;
      straddling += maybe;
      const count = perMinute.get((m - from) / 1000) ?? -1;
      expect(count).toBeGreaterThanOrEqual(sure);
      expect(count).toBeLessThanOrEqual(sure + maybe);
    }
    expect(straddling).toBeLessThanOrEqual(2);
    expect(perMinute.get(0)).toBe(0);
    expect(result.artifact?.missing_periods).toBeGreaterThanOrEqual(2);
    expect(result.report).toContain('without a datapoint (written as rps 0)');
    expect(readFileSync(outFile, 'utf8')).toMatch(
      /^# source=cloudwatch AWS\/SageMaker Invocations Sum per 60 s.*\n(# .*\n)*# start=.*\nt_s,rps\n/,
    );
  });

  it('with --metric concurrency writes ConcurrentRequestsPerModel Maximum per 10 s as an informational record that `trace show` will not replay (prevents peak concurrency read as arrivals)', async () => {
    const to = Math.floor(Date.now() / 10_000) * 10_000 + 10_000;
    const from = to - 5 * MINUTE;
    const outFile = join(dir, 'concurrency.csv');
    const result = await runTraceImport(importInput(from, to, outFile, 'concurrency'), {
      clients: emulator.clients,
      clock: () => new Date(to),
    });
    expect(result.artifact?.period_s).toBe(10);
    expect(result.artifact?.periods).toBe(30);
    // The previous test's serial invocations: one at a time.
    expect(result.artifact?.peak_concurrency).toBe(1);
    expect(readFileSync(outFile, 'utf8')).toMatch(/\nt_s,concurrency\n0,\d/);
    const shown = await runCli(['trace', 'show', outFile]);
    expect(shown.exitCode).toBe(2);
    expect(shown.stderr).toMatch(/concurrency\.csv line 5: a concurrency record .* not arrivals/);
  });
});

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

describe('the trace commands through the CLI', () => {
  const recent = () => {
    const to = Math.floor(Date.now() / MINUTE) * MINUTE;
    return ['--from', new Date(to - 10 * MINUTE).toISOString(), '--to', new Date(to).toISOString()];
  };
  const common = [
    '--config',
    CONFIG,
    '--model',
    MODEL,
    '--endpoint',
    'trace-missing',
    '--region',
    'eu-west-3',
  ];

  it('exits 3 from `trace import` against an unreachable CloudWatch, naming GetMetricData, the endpoint and the region (prevents an outage read as an empty trace)', async () => {
    const keys = [
      'AWS_ENDPOINT_URL',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_MAX_ATTEMPTS',
    ] as const;
    const saved = Object.fromEntries(keys.map((k) => [k, process.env[k]]));
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: `http://127.0.0.1:${await closedPort()}`,
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
      AWS_MAX_ATTEMPTS: '1',
    });
    try {
      const run = await runCli([
        'trace',
        'import',
        ...common,
        ...recent(),
        '--out',
        join(dir, 'unreachable.csv'),
      ]);
      expect(run.exitCode, run.stderr).toBe(3);
      expect(run.stderr).toMatch(
        /^scalegate: operational error: GetMetricData endpoint trace-missing variant AllTraffic in eu-west-3: .*ECONNREFUSED/m,
      );
      expect(run.stderr).not.toMatch(/\n\s+at /);
    } finally {
      for (const k of keys) {
        if (saved[k] === undefined) delete process.env[k];
        else process.env[k] = saved[k];
      }
    }
  });

  it('exits 2 from `trace import` for a bad range before any AWS call, naming the flag (prevents a call for data CloudWatch no longer keeps)', async () => {
    const out = ['--out', join(dir, 'never.csv')];
    const cases: [string[], RegExp][] = [
      [
        ['--from', 'yesterday', '--to', '2026-01-01T00:00:00Z'],
        /--from yesterday: not an ISO time with its offset/,
      ],
      [
        ['--from', '2026-01-02T00:00:00Z', '--to', '2026-01-01T00:00:00Z'],
        /--to 2026-01-01T00:00:00Z is not after --from/,
      ],
      [
        ['--from', '2020-01-01T00:00:00Z', '--to', '2099-01-01T00:00:00Z'],
        /--to 2099-01-01T00:00:00Z is in the future/,
      ],
      [
        ['--from', '2020-01-01T00:00:00Z', '--to', '2020-01-01T06:00:00Z'],
        /--from 2020-01-01T00:00:00Z is more than 455 days ago/,
      ],
      [
        [...recent(), '--metric', 'concurrency', '--from', new Date(Date.now() - 4 * 3600_000).toISOString()],
        /more than 3 hours ago: CloudWatch keeps ConcurrentRequestsPerModel at 10 s \(high resolution\) only 3 hours/,
      ],
      [[...recent(), '--metric', 'latency'], /--metric/],
    ];
    for (const [args, expected] of cases) {
      const run = await runCli(['trace', 'import', ...common, ...args, ...out]);
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toMatch(expected);
    }
    const noOut = await runCli(['trace', 'import', ...common, ...recent()]);
    expect(noOut.exitCode).toBe(2);
    expect(noOut.stderr).toMatch(/--out/);
  });

  it('writes a shape and shows it (exit 0), and refuses a bad spec or a bad file naming it and the line (exit 2)', async () => {
    const shaped = await runCliIn(dir, [
      'trace',
      'shape',
      'step:base=5,x=4,at_s=60,duration_s=600',
      '--out',
      'step.csv',
    ]);
    expect(shaped.exitCode, shaped.stderr).toBe(0);
    expect(shaped.stdout).toContain('wrote step.csv');
    const shown = await runCliIn(dir, ['trace', 'show', 'step.csv', '--json']);
    expect(shown.exitCode).toBe(0);
    const json = JSON.parse(shown.stdout) as {
      trace: { peak_rps: number; mean_rps: number; sha256: string };
    };
    expect(json.trace.peak_rps).toBe(20);
    expect(json.trace.mean_rps).toBe((5 * 60 + 20 * 540) / 600);
    // The file written reads back as the very trace the shape reported.
    expect(shaped.stdout).toContain(`sha256    ${json.trace.sha256}`);

    const badSpec = await runCliIn(dir, ['trace', 'shape', 'step:base=5,x=4', '--out', 'never.csv']);
    expect(badSpec.exitCode).toBe(2);
    expect(badSpec.stderr).toMatch(/the shape: step needs at_s/);

    writeFileSync(join(dir, 'unsorted.csv'), 't_s,rps\n0,1\n60,2\n30,3\n');
    const bad = await runCliIn(dir, ['trace', 'show', 'unsorted.csv']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/^scalegate: unsorted\.csv line 4: t_s does not come after the row above/);
  });
});
