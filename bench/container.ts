// Benchmark of the reference TTS container (infra/container): TTFAB at concurrency 1 and
// closed-loop throughput, at WORKERS=1 and WORKERS=4. Loopback only; bounded request counts.
//
//   npm run bench:container [-- --workers 1,2,4 --requests 100 --load-requests 200 --concurrency 8]
import { availableParallelism, loadavg } from 'node:os';
import {
  ensureContainerBuilt,
  type InvokeResult,
  invoke,
  newAgent,
  quantile,
  startContainer,
} from '../test/container/harness.js';

// Ten varied English sentences, 20-120 characters.
const SENTENCES = [
  'Hello, how are you today?',
  'The weather will be sunny with a light breeze.',
  'Please hold while I connect you to the next available agent.',
  'Your package was delivered at the front door at 3:45 in the afternoon.',
  'Turn left in two hundred meters, then continue straight for one kilometer.',
  'The quick brown fox jumps over the lazy dog.',
  'Your account balance is one thousand two hundred and thirty-four dollars.',
  'Remember to drink water and take a short walk every hour or so, it really helps.',
  'The meeting has been moved to Thursday at ten, in the large conference room upstairs.',
  'Thank you for calling. Our office hours are Monday to Friday, nine in the morning to five pm.',
];

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 && process.argv[at + 1] !== undefined ? (process.argv[at + 1] as string) : fallback;
}

const workerCounts = option('workers', '1,4')
  .split(',')
  .map((value) => Number(value.trim()));
const sequentialRequests = Number(option('requests', '100'));
const loadRequests = Number(option('load-requests', '200'));
const concurrency = Number(option('concurrency', '8'));
const WARMUP_REQUESTS = 20;

interface Row {
  workers: number;
  readyS: number;
  ttfabP50: number;
  ttfabP95: number;
  totalP50: number;
  totalP95: number;
  rps: number;
  loadTtfabP50: number;
  loadTtfabP95: number;
  errors: number;
}

function check(result: InvokeResult): InvokeResult {
  if (result.status !== 200) throw new Error(`unexpected status ${result.status}: ${result.body.toString()}`);
  return result;
}

async function measure(workers: number): Promise<Row> {
  const container = await startContainer({ WORKERS: String(workers), MAX_QUEUE_DEPTH: '64' });
  try {
    const readyS = container.stages.find((marker) => marker.stage === 'ready')?.elapsedS ?? Number.NaN;
    const agent = newAgent();
    // Warm every worker (each thread JIT-compiles eSpeak-NG on its own), not just the first.
    let warmed = 0;
    await Promise.all(
      Array.from({ length: workers }, async () => {
        while (warmed < WARMUP_REQUESTS * workers) {
          warmed += 1;
          check(await invoke(container.port, { text: SENTENCES[warmed % SENTENCES.length] }, { agent }));
        }
      }),
    );

    // Concurrency 1: uncontended time to first audio byte and whole-response latency.
    const ttfab: number[] = [];
    const total: number[] = [];
    for (let i = 0; i < sequentialRequests; i += 1) {
      const result = check(
        await invoke(container.port, { text: SENTENCES[i % SENTENCES.length] }, { agent }),
      );
      ttfab.push(result.ttfabMs as number);
      total.push(result.totalMs);
    }

    // Closed loop: `concurrency` clients, each sending its next request when the last ends.
    let next = 0;
    let errors = 0;
    const loadTtfab: number[] = [];
    const started = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < loadRequests) {
          const index = next;
          next += 1;
          const result = await invoke(
            container.port,
            { text: SENTENCES[index % SENTENCES.length] },
            { agent },
          );
          if (result.status === 200) loadTtfab.push(result.ttfabMs as number);
          else errors += 1;
        }
      }),
    );
    const elapsedS = (performance.now() - started) / 1000;
    agent.destroy();

    // Stop it the way SageMaker does: SIGTERM, drain, exit 0.
    container.child.kill('SIGTERM');
    const exit = await container.exited;
    if (exit.code !== 0) throw new Error(`container exited ${exit.code} after SIGTERM`);

    return {
      workers,
      readyS,
      ttfabP50: quantile(ttfab, 0.5),
      ttfabP95: quantile(ttfab, 0.95),
      totalP50: quantile(total, 0.5),
      totalP95: quantile(total, 0.95),
      rps: (loadRequests - errors) / elapsedS,
      loadTtfabP50: quantile(loadTtfab, 0.5),
      loadTtfabP95: quantile(loadTtfab, 0.95),
      errors,
    };
  } finally {
    await container.kill();
  }
}

function table(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells.map((cell, column) => cell.padStart(widths[column] ?? 0)).join('  ');
  return [line(headers), widths.map((width) => '-'.repeat(width)).join('  '), ...rows.map(line)].join('\n');
}

const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

ensureContainerBuilt();
console.log(
  `reference TTS container bench: node ${process.version}, ${availableParallelism()} cores, load average ${load()}; ` +
    `${sequentialRequests} requests at concurrency 1, then ${loadRequests} in a closed loop of ${concurrency} ` +
    `(${SENTENCES.length} sentences, ${Math.min(...SENTENCES.map((s) => s.length))}-` +
    `${Math.max(...SENTENCES.map((s) => s.length))} chars)\n`,
);
const rows: Row[] = [];
for (const workers of workerCounts) {
  process.stdout.write(`WORKERS=${workers} ...\n`);
  rows.push(await measure(workers));
}
const ms = (value: number) => value.toFixed(1);
console.log(
  `\n${table(
    [
      'WORKERS',
      'ready s',
      'c=1 TTFAB p50 ms',
      'p95 ms',
      'c=1 total p50 ms',
      'p95 ms',
      `c=${concurrency} req/s`,
      `c=${concurrency} TTFAB p50 ms`,
      'p95 ms',
      'non-200',
    ],
    rows.map((row) => [
      String(row.workers),
      row.readyS.toFixed(3),
      ms(row.ttfabP50),
      ms(row.ttfabP95),
      ms(row.totalP50),
      ms(row.totalP95),
      row.rps.toFixed(1),
      ms(row.loadTtfabP50),
      ms(row.loadTtfabP95),
      String(row.errors),
    ]),
  )}`,
);
console.log(`load average at the end: ${load()} (other processes on this machine share its cores)`);
const base = rows.find((row) => row.workers === 1);
if (base) {
  for (const row of rows.filter((candidate) => candidate.workers !== 1)) {
    console.log(
      `throughput WORKERS=${row.workers} / WORKERS=1: ${(row.rps / base.rps).toFixed(2)}x ` +
        `(${availableParallelism()} cores on this machine bound it)`,
    );
  }
}
