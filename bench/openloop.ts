// Benchmark of the open-loop engine (src/load/open/open-loop.ts): does the schedule hold? For each
// offered rate, a constant-rate schedule over the http transport against a loopback server in its
// own process (each response after a fixed delay): offered vs achieved send rate, send lag
// (actual minus intended send) p50/p99/max, completions/s and client_dropped; then autocannon's
// rate-limited mode (`overallRate`) against the same server at the same rate, in the same run.
//
//   npm run bench:openloop [-- --rates 1000,5000 --seconds 10 --warmup-s 2 --delay-ms 10 --only engine,autocannon]
//
// Target: achieved send rate = offered, send-lag p99 of a few ms, no client_dropped.
import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { constantProfile, shardArrivals } from '../src/load/open/arrivals.js';
import { OpenLoopEngine } from '../src/load/open/open-loop.js';
import { encodePrompts } from '../src/load/prompts.js';
import { createHttpTransport } from '../src/load/transport/http-transport.js';
import { quantileMs, sumWindows } from '../src/stats/histograms.js';

function option(name: string, fallback: number): number {
  const at = process.argv.indexOf(`--${name}`);
  const value = at >= 0 ? Number(process.argv[at + 1]) : fallback;
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`);
  return value;
}

async function serve(delayMs: number): Promise<void> {
  const audio = Buffer.alloc(44 + 512, 3);
  const server = createServer(
    { noDelay: true, keepAliveTimeout: 120_000 },
    (req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      req.on('end', () => {
        setTimeout(() => {
          res.writeHead(200, { 'Content-Type': 'audio/wav' });
          res.end(audio);
        }, delayMs);
      });
    },
  );
  server.maxConnections = 100_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
}

interface Row {
  tool: string;
  offered: number;
  sendRate: number | null;
  doneRate: number;
  lagP50: number | null;
  lagP99: number | null;
  lagMax: number | null;
  latencyP50: number | null;
  latencyP99: number | null;
  dropped: number | null;
  errors: number;
  /** Share of the run the client's event loop was busy (near 1: the client limits the schedule). */
  loopBusy: number | null;
  cpuUsPerRequest: number | null;
}

const fmt = (v: number | null, d = 2): string => (v === null ? '-' : v.toFixed(d));

async function engineRow(port: number, rate: number, seconds: number, warmupS: number): Promise<Row> {
  // The cap is a safety valve, not the bottleneck: half a second of arrivals may be outstanding.
  const maxOutstanding = Math.max(256, Math.ceil(rate * 0.5));
  const transport = createHttpTransport({ url: `http://127.0.0.1:${port}`, maxConcurrency: maxOutstanding });
  const engine = new OpenLoopEngine({
    transport,
    bodies: encodePrompts({ source: 'bench', texts: ['The quick brown fox jumps over the lazy dog.'] }),
    requestTimeoutMs: 30_000,
    maxOutstanding,
    windowMs: 1000,
  });
  const start = performance.now() + 50;
  const elu = performance.eventLoopUtilization();
  const cpu = process.cpuUsage();
  const summary = await engine.run(
    shardArrivals({ process: 'constant', profile: constantProfile(rate, warmupS + seconds), seed: 0 }),
    start,
  );
  const busy = performance.eventLoopUtilization(elu).utilization;
  const used = process.cpuUsage(cpu);
  await transport.close();
  // The measured part: windows after the warm-up (windows are whole seconds of intended time).
  const w = sumWindows(summary.windows, warmupS, warmupS + seconds);
  const errors = Object.entries(w.outcomes)
    .filter(([k]) => k !== 'ok' && k !== 'client_dropped')
    .reduce((n, [, v]) => n + (v as number), 0);
  return {
    tool: 'scalegate open loop, http transport',
    offered: w.offered / seconds,
    sendRate: w.sent / seconds,
    doneRate: (w.outcomes.ok ?? 0) / seconds,
    lagP50: quantileMs(w.series.send_lag, 0.5),
    lagP99: quantileMs(w.series.send_lag, 0.99),
    lagMax: quantileMs(w.series.send_lag, 1),
    latencyP50: quantileMs(w.series.latency_intended, 0.5),
    latencyP99: quantileMs(w.series.latency_intended, 0.99),
    dropped: w.outcomes.client_dropped ?? 0,
    errors,
    loopBusy: busy,
    cpuUsPerRequest: (used.user + used.system) / Math.max(1, summary.sent),
  };
}

interface AutocannonResult {
  latency: { p50: number; p99: number };
  requests: { average: number; total: number };
  duration: number;
  errors: number;
  non2xx: number;
}
type Autocannon = (options: Record<string, unknown>) => Promise<AutocannonResult>;

async function autocannonRow(
  port: number,
  rate: number,
  seconds: number,
  warmupS: number,
  delayMs: number,
): Promise<Row> {
  const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;
  const options = {
    url: `http://127.0.0.1:${port}/invocations`,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text: 'The quick brown fox jumps over the lazy dog.' }),
    // Enough connections for rate x delay in flight, twice over.
    connections: Math.max(16, Math.ceil(rate * (delayMs / 1000) * 2)),
    pipelining: 1,
    overallRate: rate,
  };
  await autocannon({ ...options, duration: warmupS });
  const result = await autocannon({ ...options, duration: seconds });
  return {
    tool: 'autocannon 9, overallRate (same server)',
    offered: rate,
    sendRate: null,
    doneRate: result.requests.total / seconds,
    lagP50: null,
    lagP99: null,
    lagMax: null,
    latencyP50: result.latency.p50,
    latencyP99: result.latency.p99,
    dropped: null,
    errors: result.errors + result.non2xx,
    loopBusy: null,
    cpuUsPerRequest: null,
  };
}

async function main(): Promise<void> {
  const delayMs = option('delay-ms', 10);
  if (process.argv.includes('--serve')) {
    await serve(delayMs);
    return;
  }
  const seconds = option('seconds', 10);
  const warmupS = option('warmup-s', 2);
  const ratesAt = process.argv.indexOf('--rates');
  const rates = (ratesAt >= 0 ? (process.argv[ratesAt + 1] ?? '') : '1000,5000').split(',').map(Number);
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve', '--delay-ms', String(delayMs)],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
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
      `bench:openloop  constant-rate schedules, server delay ${delayMs} ms (separate process), ${warmupS} s warm-up + ${seconds} s measured; ` +
        `${availableParallelism()} CPUs (${cpus()[0]?.model ?? '?'}), load ${loadavg()
          .map((l) => l.toFixed(2))
          .join(' ')}, Node ${process.version}`,
    );
    const rows: Array<Row & { rate: number }> = [];
    const onlyAt = process.argv.indexOf('--only');
    const only = new Set(
      onlyAt >= 0 ? (process.argv[onlyAt + 1] ?? '').split(',') : ['engine', 'autocannon'],
    );
    for (const rate of rates) {
      if (only.has('engine')) rows.push({ rate, ...(await engineRow(port, rate, seconds, warmupS)) });
      if (only.has('autocannon'))
        rows.push({ rate, ...(await autocannonRow(port, rate, seconds, warmupS, delayMs)) });
    }
    console.log('');
    console.log(
      `${'rate'.padStart(5)} ${'tool'.padEnd(40)} ${'offered/s'.padStart(9)} ${'sent/s'.padStart(8)} ${'done/s'.padStart(8)} ` +
        `${'lag p50'.padStart(8)} ${'lag p99'.padStart(8)} ${'lag max'.padStart(8)} ${'lat p50'.padStart(8)} ${'lat p99'.padStart(8)} ${'dropped'.padStart(7)} ${'errors'.padStart(6)} ${'loop busy'.padStart(9)} ${'CPU us/req'.padStart(10)}`,
    );
    for (const r of rows) {
      console.log(
        `${String(r.rate).padStart(5)} ${r.tool.padEnd(40)} ${fmt(r.offered, 0).padStart(9)} ${fmt(r.sendRate, 1).padStart(8)} ${fmt(r.doneRate, 1).padStart(8)} ` +
          `${fmt(r.lagP50).padStart(8)} ${fmt(r.lagP99).padStart(8)} ${fmt(r.lagMax).padStart(8)} ${fmt(r.latencyP50).padStart(8)} ${fmt(r.latencyP99).padStart(8)} ` +
          `${(r.dropped === null ? '-' : String(r.dropped)).padStart(7)} ${String(r.errors).padStart(6)} ` +
          `${(r.loopBusy === null ? '-' : `${(r.loopBusy * 100).toFixed(0)} %`).padStart(9)} ${fmt(r.cpuUsPerRequest, 0).padStart(10)}`,
      );
    }
    console.log('');
    for (const rate of rates) {
      const ours = rows.find((r) => r.rate === rate && r.sendRate !== null);
      const peer = rows.find((r) => r.rate === rate && r.sendRate === null);
      if (!ours || !peer) continue;
      console.log(
        `${rate}/s: scalegate completes ${fmt((ours.doneRate / rate) * 100, 1)} % of the offered rate (sends ${fmt(((ours.sendRate ?? 0) / rate) * 100, 1)} %), ` +
          `autocannon ${fmt((peer.doneRate / rate) * 100, 1)} % (ratio x${fmt(ours.doneRate / peer.doneRate, 3)}); send lag p99 ${fmt(ours.lagP99)} ms.`,
      );
    }
    console.log(
      'lag = actual minus intended send (ms, HDR); lat = whole response, scalegate from the INTENDED send (coordinated-omission correct), autocannon from its own send (ms). autocannon does not report send lag. ' +
        'loop busy = event-loop utilization of the client over the run; a busy loop under 100 % with a large lag p99 means the process was descheduled (machine load), not that the engine is too slow.',
    );
  } finally {
    child.kill('SIGTERM');
  }
}

await main();
