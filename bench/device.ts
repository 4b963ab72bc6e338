// Benchmark of the emulated accelerator (`--device`) against the real measurement it is derived
// from: the committed Kokoro-82M ladder on one ml.g5.xlarge.
//
//   npm run bench:device [-- --time-scale 1 --hold-s 85 --measure-s 75 --settle-s 10
//                            --instances 8 --per-instance 50 --warmup-s 20 --isolation-s 30 --skip fidelity|isolation]
//
// 1. Fidelity: `scalegate local up --device <artifact>` (one instance), then the real ladder's fixed
//    rungs 1,5,...,60 at its SLO over InvokeEndpointWithResponseStream, printed beside the real
//    table (emulated p95 / time scale, throughput x time scale). Target: p95 within +-10 % per rung,
//    throughput within +-5 % from rung 5 up, the same Q_max and bracket.
// 2. Isolation: the same device on --instances instances, each driven at --per-instance requests
//    in flight through the endpoint (least-outstanding routing), for --isolation-s after a warm-up.
//    Target: aggregate throughput within 5 % of instances x the real plateau throughput; the host
//    CPU of the emulator process and of the containers (from /proc) is printed beside it.
//
// The emulator runs as its own process (`local up`), so its CPU is told apart from this load
// generator's.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { deriveDeviceProfile } from '../src/analysis/device-profile.js';
import { createAwsClients, destroyAwsClients } from '../src/aws/clients.js';
import { KOKORO_G5_QMAX } from '../src/commands/device.js';
import { runQmax } from '../src/commands/qmax.js';
import { ClosedLoopEngine, now } from '../src/load/closed/engine.js';
import { createProgressRenderer } from '../src/load/progress.js';
import { defaultPromptSet, encodePrompts } from '../src/load/prompts.js';
import {
  createLoadRuntimeClient,
  createResponseStreamTransport,
} from '../src/load/transport/response-stream-transport.js';
import { readConfigFile } from '../src/model/config.js';
import { type QmaxArtifact, readArtifact } from '../src/model/index.js';
import { fidelityRows, formatFidelityTable } from '../test/helpers/device-fidelity.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const timeScale = Number(option('time-scale', '1'));
// A valid decision at 60 in flight needs 5 batches of 4 x 60 requests: 1200, 67 s at 17.9
// requests/s. Shorter holds leave the top rungs undecided (never a pass), so no bracket.
const holdS = Number(option('hold-s', '85'));
const measureS = Number(option('measure-s', '75'));
const settleS = Number(option('settle-s', '10'));
const instances = Number(option('instances', '8'));
const perInstance = Number(option('per-instance', '50'));
const isolationS = Number(option('isolation-s', '30'));
const warmupS = Number(option('warmup-s', '20'));
const skip = option('skip', '');
if (!(timeScale > 0)) throw new Error('--time-scale must be > 0');

const artifactFile = join(ROOT, KOKORO_G5_QMAX);
const real = readArtifact('qmax', artifactFile);
const derivation = deriveDeviceProfile(real, artifactFile);
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

console.log(
  `bench:device  ${availableParallelism()} CPUs, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Node ${process.version}, time scale ${timeScale}`,
);
const p = derivation.profile;
console.log(
  `device from ${KOKORO_G5_QMAX}: ${p.lanes} lane(s) (X_sat ${derivation.x_plateau_rps.toFixed(3)} / X(1) ${derivation.x_lowest_rps.toFixed(3)} = ${derivation.lanes_ratio.toFixed(3)}), ` +
    `service mean ${p.service_mean_ms.toFixed(2)} ms, sigma ${p.service_sigma.toFixed(4)}, client share ${derivation.client_share_ms?.toFixed(2) ?? '-'} ms, ` +
    `first audio ${derivation.emits === 'after_utterance' ? 'with the whole utterance' : `at ${p.first_audio_fraction.toFixed(3)} of S`}`,
);

interface LocalUp {
  url: string;
  child: ChildProcess;
  containerPids: number[];
  stop(): Promise<void>;
}

/** `scalegate local up` as a child process; resolves once it prints its JSON line. */
function localUp(args: string[]): Promise<LocalUp> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'local', 'up', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const containerPids: number[] = [];
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (line) => {
    const m = /: started pid (\d+)/.exec(line);
    if (m) containerPids.push(Number(m[1]));
    if (/failed|error/i.test(line)) process.stderr.write(`${line}\n`);
  });
  return new Promise((resolveUp, reject) => {
    child.once('exit', (code) => reject(new Error(`local up exited ${code} before it was ready`)));
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (line) => {
      const { aws_endpoint_url: url } = JSON.parse(line) as { aws_endpoint_url: string };
      resolveUp({
        url,
        child,
        containerPids,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

/** utime + stime of a process, seconds (Linux /proc, USER_HZ 100). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return Number.NaN;
  }
}

const deviceArgs = ['--device', artifactFile, '--time-scale', String(timeScale)];

async function fidelity(): Promise<void> {
  const up = await localUp([...deviceArgs, '--instances', '1']);
  const clients = createAwsClients({ region: 'local', endpoint: up.url, credentials, maxConcurrency: 64 });
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-bench-device-'));
  const config = readConfigFile(join(ROOT, 'scalegate.config.json'));
  const model = config.models['kokoro-82m'];
  if (!model) throw new Error('scalegate.config.json has no kokoro-82m model');
  let emulated: QmaxArtifact;
  const started = now();
  try {
    const result = await runQmax(
      {
        modelName: 'kokoro-82m',
        model,
        configFile: join(ROOT, 'scalegate.config.json'),
        endpoint: model.endpoint,
        variant: model.variant,
        region: 'local',
        sloMs: real.slo_ms * timeScale,
        ladder: 'fixed',
        rungs: real.steps.map((s) => s.concurrency),
        holdS,
        measureS,
        settleS,
        cloudwatch: false,
        outFile: join(dir, 'qmax-emulated.json'),
        stateDir: join(dir, 'state'),
        pollIntervalMs: 250,
      },
      {
        clients,
        progress: createProgressRenderer(process.stderr),
        handleSignals: false,
        loadClient: { endpoint: up.url, credentials },
      },
    );
    emulated = result.artifact as QmaxArtifact;
  } finally {
    destroyAwsClients(clients);
    await up.stop();
  }
  const rows = fidelityRows(real, emulated, timeScale);
  console.log(
    `\nfidelity: fixed ladder ${rows.map((r) => r.concurrency).join(',')} at SLO ${real.slo_ms} ms, hold ${holdS} s (measure ${measureS} s, settle ${settleS} s), ` +
      `${((now() - started) / 1000).toFixed(0)} s; real = ${KOKORO_G5_QMAX} (hold ${real.ladder.hold_s} s), emulated = local SageMaker, 1 instance\n`,
  );
  console.log(formatFidelityTable(rows));
  const worstP95 = Math.max(...rows.map((r) => Math.abs(r.p95Ratio - 1)));
  const plateau = rows.filter((r) => r.concurrency >= 5);
  const worstRps = Math.max(...plateau.map((r) => Math.abs(r.emulatedRps / derivation.x_plateau_rps - 1)));
  console.log(
    `\nworst p95 difference ${(worstP95 * 100).toFixed(1)} % (target <= 10 %); worst throughput from rung 5 against ${derivation.x_plateau_rps.toFixed(1)} req/s ` +
      `${(worstRps * 100).toFixed(1)} % (target <= 5 %); Q_max real ${real.q_max} bracketed by ${real.q_max_upper_bound ?? '-'}, ` +
      `emulated ${emulated.q_max} bracketed by ${emulated.q_max_upper_bound ?? '-'}`,
  );
}

async function isolation(): Promise<void> {
  const up = await localUp([...deviceArgs, '--instances', String(instances), '--quota', String(instances)]);
  const concurrency = instances * perInstance;
  const runtime = createLoadRuntimeClient({
    region: 'local',
    endpoint: up.url,
    credentials,
    maxConcurrency: concurrency,
  });
  const transport = createResponseStreamTransport({
    runtime,
    endpoint: 'speech-kokoro-82m',
    ownsClient: true,
  });
  const engine = new ClosedLoopEngine({
    transport,
    bodies: encodePrompts(defaultPromptSet()),
    requestTimeoutMs: 60_000,
  });
  const expected = (instances * derivation.x_plateau_rps) / timeScale;
  try {
    const epoch = engine.setConcurrency(concurrency);
    await new Promise((r) => setTimeout(r, warmupS * 1000));
    const from = now();
    const cpuFrom = {
      emulator: cpuSeconds(up.child.pid as number),
      containers: up.containerPids.map(cpuSeconds),
      client: process.cpuUsage(),
    };
    await new Promise((r) => setTimeout(r, isolationS * 1000));
    const to = now();
    const wall = (to - from) / 1000;
    const emulatorCpu = cpuSeconds(up.child.pid as number) - cpuFrom.emulator;
    const containerCpu = up.containerPids.map(
      (pid, i) => cpuSeconds(pid) - (cpuFrom.containers[i] as number),
    );
    const clientUsage = process.cpuUsage(cpuFrom.client);
    const clientCpu = (clientUsage.user + clientUsage.system) / 1e6;
    const records = engine
      .finished(epoch)
      .filter((r) => r.endedAt !== null && r.endedAt >= from && r.endedAt < to);
    const ok = records.filter((r) => r.outcome === 'ok');
    const rps = ok.length / wall;
    // TTFAB of the requests dispatched inside the window (those dispatched earlier carry the warm-up).
    const ttfab = ok
      .filter((r) => r.dispatchedAt >= from)
      .map((r) => r.ttfabMs as number)
      .sort((a, b) => a - b);
    const q = (f: number) => ttfab[Math.min(ttfab.length - 1, Math.floor(f * ttfab.length))] ?? Number.NaN;
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    console.log(
      `\nisolation: ${instances} instances, ${concurrency} requests in flight (${perInstance} per instance) through the endpoint, ` +
        `${wall.toFixed(1)} s measured after ${warmupS} s\n`,
    );
    console.log(
      `aggregate throughput   ${rps.toFixed(2)} req/s (${ok.length} ok, ${records.length - ok.length} not ok)`,
    );
    console.log(
      `expected               ${expected.toFixed(2)} req/s = ${instances} x ${derivation.x_plateau_rps.toFixed(3)}${timeScale === 1 ? '' : ` / ${timeScale}`} (real plateau)`,
    );
    console.log(`ratio                  ${(rps / expected).toFixed(4)} (target 0.95..1.05)`);
    console.log(
      `TTFAB p50 / p95        ${q(0.5).toFixed(0)} / ${q(0.95).toFixed(0)} ms of ${ttfab.length} requests dispatched in the window (real ladder at ${perInstance}: ${real.steps.find((s) => s.concurrency === perInstance)?.ttfab_p95_ms?.toFixed(0) ?? '-'} ms p95)`,
    );
    console.log(
      `host CPU               emulator ${emulatorCpu.toFixed(2)} s, containers ${sum(containerCpu).toFixed(2)} s ` +
        `(${containerCpu.map((c) => c.toFixed(2)).join(' ')}), load generator ${clientCpu.toFixed(2)} s over ${wall.toFixed(1)} s`,
    );
    console.log(
      `                       = ${((emulatorCpu + sum(containerCpu)) / wall).toFixed(3)} cores for emulator + containers, ` +
        `${(clientCpu / wall).toFixed(3)} for the load generator, of ${availableParallelism()}; ` +
        `${(((emulatorCpu + sum(containerCpu)) / ok.length) * 1000).toFixed(2)} ms of emulator + container CPU per request`,
    );
  } finally {
    await engine.stop();
    await transport.close();
    await up.stop();
  }
}

if (!skip.split(',').includes('fidelity')) await fidelity();
if (!skip.split(',').includes('isolation')) await isolation();
