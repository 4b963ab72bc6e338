// Benchmark of the closed-loop load engine (src/load): N = 1000 outstanding streaming requests
// against a loopback server that answers each after a fixed delay, in its own process (so client
// and server do not share an event loop). Reports the client-added TTFAB (measured minus the
// server's delay) p50/p99, requests/s and in-flight (engine and server side), for the http
// transport, for the SageMaker response-stream transport (lean: the SDK's signed wire request
// over node:http) and for the same call through the SDK v3 client (event-stream frames), side by
// side with autocannon against the same server in the same run.
//
//   npm run bench:loadgen [-- --concurrency 1000 --delay-ms 1000 --seconds 10 --warmup-s 3 --rounds 1 --only http,lean,sdk,autocannon]
//
// --rounds R runs every tool R times in rotating order and reports the median of each figure (the
// machine is shared: its load drifts between tools).
//
// Target: added p99 <= 10 ms and the ideal N / delay req/s with in-flight exactly N (1000 at 1 s).
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { ClosedLoopEngine, now } from '../src/load/closed/engine.js';
import { encodePrompts } from '../src/load/prompts.js';
import { createHttpTransport } from '../src/load/transport/http-transport.js';
import {
  createLoadRuntimeClient,
  createResponseStreamTransport,
  createSdkResponseStreamTransport,
} from '../src/load/transport/response-stream-transport.js';
import type { RequestRecord, Transport } from '../src/load/types.js';
import { quantileSorted, sortedAscending } from '../src/stats/quantiles.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

// ---------------------------------------------------------------------------------------------
// The server (child process): POST -> after delay, 200 with the first audio chunk, then end.
// `/endpoints/<name>/invocations-response-stream` answers with one PayloadPart event instead.
// GET /stats -> {in_flight, max_in_flight, received}; GET /stats?reset=1 resets the counters.
// ---------------------------------------------------------------------------------------------
async function serve(delayMs: number): Promise<void> {
  const codec = new EventStreamCodec(
    (b: Uint8Array) => Buffer.from(b).toString('utf8'),
    (s: string) => new Uint8Array(Buffer.from(s, 'utf8')),
  );
  const audio = Buffer.alloc(44 + 512, 3);
  const str = (value: string) => ({ type: 'string' as const, value });
  const frame = Buffer.from(
    codec.encode({
      headers: {
        ':message-type': str('event'),
        ':event-type': str('PayloadPart'),
        ':content-type': str('application/octet-stream'),
      },
      body: new Uint8Array(audio),
    }),
  );
  let inFlight = 0;
  let maxInFlight = 0;
  let received = 0;
  const server = createServer(
    { noDelay: true, keepAliveTimeout: 120_000 },
    (req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'GET') {
        if ((req.url ?? '').includes('reset=1')) {
          maxInFlight = inFlight;
          received = 0;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ in_flight: inFlight, max_in_flight: maxInFlight, received }));
        return;
      }
      const stream = (req.url ?? '').endsWith('/invocations-response-stream');
      req.resume();
      req.on('end', () => {
        received += 1;
        inFlight += 1;
        if (inFlight > maxInFlight) maxInFlight = inFlight;
        setTimeout(() => {
          inFlight -= 1;
          if (stream) {
            res.writeHead(200, {
              'Content-Type': 'application/vnd.amazon.eventstream',
              'X-Amzn-SageMaker-Content-Type': 'audio/wav',
            });
            res.end(frame);
          } else {
            res.writeHead(200, { 'Content-Type': 'audio/wav' });
            res.end(audio);
          }
        }, delayMs);
      });
    },
  );
  server.maxConnections = 100_000;
  server.headersTimeout = 130_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
}

// ---------------------------------------------------------------------------------------------
// The client side.
// ---------------------------------------------------------------------------------------------
interface ServerStats {
  in_flight: number;
  max_in_flight: number;
  received: number;
}

function stats(port: number, reset = false): Promise<ServerStats> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: `/stats${reset ? '?reset=1' : ''}`, agent: false },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          body += d;
        });
        res.on('end', () => resolve(JSON.parse(body) as ServerStats));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

interface Row {
  tool: string;
  /** Client CPU (user + system) per completed request in the window, µs: the transport's cost, whatever the machine's load. */
  cpuUsPerRequest: number | null;
  /** Client event-loop delay p99 over the window, ms (stalls of the client itself). */
  loopDelayP99Ms: number | null;
  /** Client event-loop utilization over the window (0..1). */
  loopBusy: number | null;
  addedP50Ms: number;
  addedP99Ms: number;
  rps: number;
  inFlightMean: number | null;
  inFlightPeak: number | null;
  serverMaxInFlight: number;
  errors: number;
}

const fmt = (v: number | null, digits = 2): string => (v === null ? '-' : v.toFixed(digits));

async function engineRow(
  tool: string,
  transport: Transport,
  port: number,
  concurrency: number,
  delayMs: number,
  warmupS: number,
  seconds: number,
): Promise<Row> {
  const records: RequestRecord[] = [];
  let windowStart = Number.POSITIVE_INFINITY;
  let windowEnd = Number.POSITIVE_INFINITY;
  const engine = new ClosedLoopEngine({
    transport,
    bodies: encodePrompts({ source: 'bench', texts: ['The quick brown fox jumps over the lazy dog.'] }),
    requestTimeoutMs: 30_000,
    onRecord: (r) => {
      // Every request completed inside the window (all dispatched after the ramp and warm-up).
      const ended = r.endedAt as number;
      if (ended >= windowStart && ended <= windowEnd) records.push(r);
    },
  });
  // Ramp up over one server delay so the N requests are spread evenly over the cycle: otherwise all
  // N start together, the server answers them in one burst, and the burst (not the client) is
  // what the tail measures.
  const rampStart = now();
  for (let n = 1; n <= concurrency; n++) {
    const due = rampStart + (n / concurrency) * delayMs;
    if (due > now()) await new Promise((r) => setTimeout(r, due - now()));
    engine.setConcurrency(n);
  }
  await new Promise((r) => setTimeout(r, warmupS * 1000));
  await stats(port, true);
  windowStart = now();
  engine.resetLoopDelay();
  const cpuStart = process.cpuUsage();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  windowEnd = now();
  const cpu = process.cpuUsage(cpuStart);
  const loopDelayP99Ms = engine.loopDelayP99Ms();
  const loopBusy = engine.loopUtilization();
  const server = await stats(port);
  const inFlight = engine.inFlightStats(windowStart, windowEnd, concurrency);
  await engine.stop({ abort: false });
  await transport.close();
  const ok = records.filter((r) => r.outcome === 'ok');
  const added = sortedAscending(ok.map((r) => (r.ttfabMs as number) - delayMs));
  return {
    tool,
    cpuUsPerRequest: (cpu.user + cpu.system) / Math.max(1, records.length),
    loopDelayP99Ms,
    loopBusy,
    addedP50Ms: quantileSorted(added, 0.5) ?? Number.NaN,
    addedP99Ms: quantileSorted(added, 0.99) ?? Number.NaN,
    rps: ok.length / ((windowEnd - windowStart) / 1000),
    inFlightMean: inFlight.mean,
    inFlightPeak: inFlight.peak,
    serverMaxInFlight: server.max_in_flight,
    errors: records.length - ok.length,
  };
}

interface AutocannonResult {
  latency: { p50: number; p99: number; average: number };
  requests: { average: number; total: number };
  errors: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

async function autocannonRow(
  port: number,
  concurrency: number,
  delayMs: number,
  warmupS: number,
  seconds: number,
): Promise<Row> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const options = {
    url: `http://127.0.0.1:${port}/invocations`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'The quick brown fox jumps over the lazy dog.' }),
    connections: concurrency,
    pipelining: 1,
  };
  await autocannon({ ...options, duration: warmupS });
  await stats(port, true);
  const result = await autocannon({ ...options, duration: seconds });
  const server = await stats(port);
  return {
    tool: 'autocannon 9 (same server)',
    cpuUsPerRequest: null,
    loopDelayP99Ms: null,
    loopBusy: null,
    addedP50Ms: result.latency.p50 - delayMs,
    addedP99Ms: result.latency.p99 - delayMs,
    rps: result.requests.average,
    inFlightMean: null,
    inFlightPeak: null,
    serverMaxInFlight: server.max_in_flight,
    errors: result.errors + result.non2xx,
  };
}

async function main(): Promise<void> {
  if (process.argv.includes('--serve')) {
    await serve(option('delay-ms', 1000));
    return;
  }
  const concurrency = option('concurrency', 1000);
  const delayMs = option('delay-ms', 1000);
  const seconds = option('seconds', 10);
  const warmupS = option('warmup-s', 3);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', '--delay-ms', String(delayMs)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let buffer = '';
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      buffer += d;
      const match = /listening (\d+)/.exec(buffer);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  try {
    console.log(
      `bench:loadgen  N=${concurrency} outstanding, server delay ${delayMs} ms (separate process), ` +
        `${warmupS} s warm-up + ${seconds} s measured per tool; ${availableParallelism()} CPUs (${cpus()[0]?.model ?? '?'}), ` +
        `load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}, Node ${process.version}`,
    );
    const onlyAt = process.argv.indexOf('--only');
    const only = new Set(
      onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? '').split(',') : ['http', 'lean', 'sdk', 'autocannon'],
    );
    const runtime = () =>
      createLoadRuntimeClient({
        region: 'local',
        endpoint: `http://127.0.0.1:${port}`,
        credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
        maxConcurrency: concurrency,
      });
    const tools: Array<[string, () => Promise<Row>]> = [];
    const engineTool = (key: string, name: string, make: () => Transport) => {
      if (only.has(key))
        tools.push([key, () => engineRow(name, make(), port, concurrency, delayMs, warmupS, seconds)]);
    };
    engineTool('http', 'scalegate engine, http transport', () =>
      createHttpTransport({ url: `http://127.0.0.1:${port}`, maxConcurrency: concurrency }),
    );
    engineTool('lean', 'scalegate engine, response-stream (lean)', () =>
      createResponseStreamTransport({ runtime: runtime(), endpoint: 'bench', ownsClient: true }),
    );
    engineTool('sdk', 'scalegate engine, sdk (SDK v3 client)', () =>
      createSdkResponseStreamTransport({ runtime: runtime(), endpoint: 'bench', ownsClient: true }),
    );
    if (only.has('autocannon'))
      tools.push(['autocannon', () => autocannonRow(port, concurrency, delayMs, warmupS, seconds)]);
    // Rounds rotate the order, so no tool always runs first (or last) on a machine whose load drifts.
    const rounds = option('rounds', 1);
    const byRound: Row[][] = [];
    for (let round = 0; round < rounds; round++) {
      const order = tools.map((_, i) => tools[(i + round) % tools.length] as [string, () => Promise<Row>]);
      const done: Row[] = [];
      for (const [, run] of order) done.push(await run());
      byRound.push(tools.map(([, run]) => done[order.findIndex(([, r]) => r === run)] as Row));
    }
    const median = (values: number[]): number => {
      const sorted = [...values].sort((a, b) => a - b);
      const mid = Math.floor(sorted.length / 2);
      return sorted.length % 2
        ? (sorted[mid] as number)
        : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
    };
    const medianOf = (k: keyof Row, i: number): number | null => {
      const values = byRound.map((r) => r[i]?.[k]).filter((v): v is number => typeof v === 'number');
      return values.length === 0 ? null : median(values);
    };
    if (rounds > 1) {
      for (let round = 0; round < rounds; round++) {
        console.log(`\nround ${round + 1}:`);
        for (const r of byRound[round] as Row[])
          console.log(
            `  ${r.tool}: added p50/p99 ${fmt(r.addedP50Ms)}/${fmt(r.addedP99Ms)} ms, ${fmt(r.rps, 0)} req/s, CPU ${fmt(r.cpuUsPerRequest, 0)} us/req`,
          );
      }
    }
    // One row per tool: the median over the rounds of each figure (the round itself when there is one).
    const rows: Row[] = tools.map((_, i) => {
      const first = (byRound[0] as Row[])[i] as Row;
      return {
        ...first,
        tool: rounds > 1 ? `${first.tool} (median of ${rounds})` : first.tool,
        cpuUsPerRequest: medianOf('cpuUsPerRequest', i),
        loopDelayP99Ms: medianOf('loopDelayP99Ms', i),
        loopBusy: medianOf('loopBusy', i),
        addedP50Ms: medianOf('addedP50Ms', i) as number,
        addedP99Ms: medianOf('addedP99Ms', i) as number,
        rps: medianOf('rps', i) as number,
        inFlightMean: medianOf('inFlightMean', i),
        inFlightPeak: medianOf('inFlightPeak', i),
        serverMaxInFlight: medianOf('serverMaxInFlight', i) as number,
        errors: byRound.reduce((n, r) => n + ((r[i] as Row).errors ?? 0), 0),
      };
    });
    console.log('');
    console.log(
      `${'tool'.padEnd(58)} ${'added p50 ms'.padStart(12)} ${'added p99 ms'.padStart(12)} ${'req/s'.padStart(9)} ` +
        `${'in-flight mean'.padStart(14)} ${'peak'.padStart(5)} ${'server max'.padStart(10)} ${'errors'.padStart(6)} ${'CPU us/req'.padStart(10)} ${'loop busy'.padStart(9)} ${'loop p99'.padStart(8)}`,
    );
    for (const r of rows) {
      console.log(
        `${r.tool.padEnd(58)} ${fmt(r.addedP50Ms).padStart(12)} ${fmt(r.addedP99Ms).padStart(12)} ${fmt(r.rps, 0).padStart(9)} ` +
          `${fmt(r.inFlightMean, 3).padStart(14)} ${fmt(r.inFlightPeak, 0).padStart(5)} ${String(r.serverMaxInFlight).padStart(10)} ${String(r.errors).padStart(6)} ${fmt(r.cpuUsPerRequest, 0).padStart(10)} ` +
          `${(r.loopBusy === null ? '-' : `${(r.loopBusy * 100).toFixed(0)} %`).padStart(9)} ${fmt(r.loopDelayP99Ms).padStart(8)}`,
      );
    }
    console.log('');
    console.log(
      'added = measured TTFAB - server delay (the engine excludes connection setup, recorded apart; autocannon: whole-response latency, which equals TTFAB here). CPU = client user+system per request; loop busy = client event-loop utilization; loop p99 = client event-loop delay p99 (its own stalls).',
    );
    const ideal = (concurrency / delayMs) * 1000;
    console.log(
      `ideal req/s = N / delay = ${ideal.toFixed(0)}; target: added p99 <= 10 ms, req/s = ideal, in-flight exactly ${concurrency}.`,
    );
    const byTool = (prefix: string) => rows.find((r) => r.tool.includes(prefix));
    const lean = byTool('(lean)');
    if (lean) {
      const verdict = lean.addedP99Ms <= 10 && lean.rps >= ideal * 0.99 ? 'meets' : 'MISSES';
      console.log(
        `lean response-stream: added p99 ${fmt(lean.addedP99Ms)} ms, ${fmt(lean.rps, 0)} req/s (${fmt((lean.rps / ideal) * 100, 1)} % of ideal): ${verdict} the target.`,
      );
      for (const peer of [byTool('sdk ('), byTool('http transport'), byTool('autocannon')]) {
        if (!peer) continue;
        console.log(
          `  vs ${peer.tool}: added p99 ${fmt(lean.addedP99Ms)} / ${fmt(peer.addedP99Ms)} ms (x${fmt(lean.addedP99Ms / peer.addedP99Ms)}), req/s x${fmt(lean.rps / peer.rps, 3)}`,
        );
      }
    }
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
