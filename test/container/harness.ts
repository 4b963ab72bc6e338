// Spawns the real reference TTS container (infra/container/dist/server.js) as a child process and
// talks HTTP to it. Shared by test/container/*.test.ts and bench/container.ts; imports no test
// framework. Everything here waits on events (stdout lines, 'exit', responses), never on sleeps;
// timeouts are only a safety net that turns a hang into a readable failure.
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CONTAINER_DIR = join(ROOT, 'infra', 'container');
export const SERVER_JS = join(CONTAINER_DIR, 'dist', 'server.js');

export const STAGE_NAMES = [
  'container_start',
  'framework_init',
  'weights_ready',
  'warmup_done',
  'ready',
] as const;
export const STAGE_LINE =
  /^=== STAGE ([a-z_]+) t=(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z) elapsed_s=(\d+\.\d{3}) ===$/;

export interface StageMarker {
  stage: string;
  t: string;
  elapsedS: number;
  line: string;
}

export function parseStageLine(line: string): StageMarker | undefined {
  const match = STAGE_LINE.exec(line);
  if (!match) return undefined;
  return { stage: match[1] as string, t: match[2] as string, elapsedS: Number(match[3]), line };
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * `npm ci` in infra/container builds dist/ (its `prepare` script). If dist/ is missing or older
 * than src/ (someone edited the container without rebuilding), rebuild it with the container's
 * own TypeScript so the tests never exercise stale code.
 */
export function ensureContainerBuilt(): void {
  const tsc = join(CONTAINER_DIR, 'node_modules', 'typescript', 'bin', 'tsc');
  if (!existsSync(tsc)) {
    throw new Error(`infra/container is not installed: run \`npm ci\` at the root (or in ${CONTAINER_DIR})`);
  }
  const sources = Math.max(
    newestMtime(join(CONTAINER_DIR, 'src')),
    statSync(join(CONTAINER_DIR, 'tsconfig.json')).mtimeMs,
  );
  if (existsSync(SERVER_JS) && statSync(SERVER_JS).mtimeMs >= sources) return;
  const result = spawnSync(process.execPath, [tsc, '-p', CONTAINER_DIR], { encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`building infra/container failed:\n${result.stdout}${result.stderr}`);
}

/** A TCP port that was free a moment ago (listen on 0, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Container {
  readonly port: number;
  readonly child: ChildProcess;
  /** Every stdout line so far. */
  readonly lines: string[];
  /** Stage markers so far, in order of appearance. */
  readonly stages: StageMarker[];
  /** stderr so far. */
  stderr(): string;
  /** Resolves when the process has exited. */
  readonly exited: Promise<Exit>;
  /** The first stdout line (already seen or still to come) matching `match`. */
  waitForLine(match: RegExp | ((line: string) => boolean), timeoutMs?: number): Promise<string>;
  waitForStage(stage: (typeof STAGE_NAMES)[number], timeoutMs?: number): Promise<StageMarker>;
  /** SIGKILL unless already exited; resolves on exit. */
  kill(): Promise<Exit>;
}

const running = new Set<Container>();

export interface StartOptions {
  /** Wait for the `ready` marker before resolving (default true). */
  waitReady?: boolean;
  /** Extra argv for server.js (e.g. `serve`, as SageMaker passes it). */
  args?: string[];
}

/** Starts `node infra/container/dist/server.js` on a free port with `env` on top of this env. */
export async function startContainer(
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Container> {
  const port = env.PORT !== undefined ? Number(env.PORT) : await freePort();
  const child = spawn(process.execPath, [SERVER_JS, ...(options.args ?? [])], {
    cwd: CONTAINER_DIR,
    env: { ...process.env, HOST: '127.0.0.1', ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const stages: StageMarker[] = [];
  let stderr = '';
  let exitInfo: Exit | undefined;
  const watchers = new Set<() => void>();
  const notify = () => {
    for (const watcher of [...watchers]) watcher();
  };

  let partial = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (data: string) => {
    partial += data;
    let newline = partial.indexOf('\n');
    while (newline >= 0) {
      const line = partial.slice(0, newline);
      partial = partial.slice(newline + 1);
      lines.push(line);
      const marker = parseStageLine(line);
      if (marker) stages.push(marker);
      newline = partial.indexOf('\n');
    }
    notify();
  });
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (data: string) => {
    stderr += data;
  });
  const exited = new Promise<Exit>((resolveExit) => {
    child.once('exit', (code, signal) => {
      exitInfo = { code, signal };
      running.delete(container);
      resolveExit(exitInfo);
    });
  });
  // stdout may still hold lines when 'exit' fires: notify once it has closed too.
  child.stdout?.once('close', () => notify());
  void exited.then(notify);

  const waitForLine = (match: RegExp | ((line: string) => boolean), timeoutMs = 30_000): Promise<string> => {
    const test = typeof match === 'function' ? match : (line: string) => match.test(line);
    return new Promise((resolveLine, reject) => {
      const check = () => {
        const found = lines.find(test);
        if (found !== undefined) {
          done();
          resolveLine(found);
        } else if (exitInfo && (child.stdout?.readableEnded ?? true)) {
          done();
          reject(
            new Error(
              `container exited (code ${exitInfo.code}, signal ${exitInfo.signal}) before a line matching ${match}\n` +
                `stdout:\n${lines.join('\n')}\nstderr:\n${stderr}`,
            ),
          );
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(
          new Error(
            `no stdout line matching ${match} within ${timeoutMs} ms\nstdout:\n${lines.join('\n')}\nstderr:\n${stderr}`,
          ),
        );
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        watchers.delete(check);
      };
      watchers.add(check);
      check();
    });
  };

  const container: Container = {
    port,
    child,
    lines,
    stages,
    stderr: () => stderr,
    exited,
    waitForLine,
    waitForStage: async (stage, timeoutMs) => {
      const line = await waitForLine((candidate) => parseStageLine(candidate)?.stage === stage, timeoutMs);
      return parseStageLine(line) as StageMarker;
    },
    kill: async () => {
      if (!exitInfo) child.kill('SIGKILL');
      return exited;
    },
  };
  running.add(container);
  if (options.waitReady ?? true) await container.waitForStage('ready');
  return container;
}

/** Kills every container this process started and has not seen exit (afterEach / afterAll). */
export async function killAll(): Promise<void> {
  await Promise.all([...running].map((container) => container.kill()));
}

export interface InvokeResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The first body chunk as the client received it (header + first audio for a 200). */
  firstChunk: Buffer | undefined;
  /** Number of body 'data' events. */
  chunks: number;
  /** ms from sending the request to the first body byte (time to first audio byte). */
  ttfabMs: number | undefined;
  /** ms from sending the request to the end of the response. */
  totalMs: number;
  /** performance.now() at the first body byte and at the end. */
  firstByteAt: number | undefined;
  endAt: number;
}

/** A keep-alive agent without a socket cap (each concurrent request gets its own connection). */
export function newAgent(): Agent {
  return new Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
}

const defaultAgent = newAgent();

export interface InvokeOptions {
  agent?: Agent;
  method?: string;
  path?: string;
  timeoutMs?: number;
  /** Called with each body chunk as it arrives (e.g. to act once streaming has begun). */
  onChunk?: (chunk: Buffer) => void;
}

/** POST /invocations (by default) with `body` (an object is sent as JSON, a string as is). */
export function invoke(port: number, body: unknown, options: InvokeOptions = {}): Promise<InvokeResult> {
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  return new Promise((resolveResult, reject) => {
    const started = performance.now();
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: options.method ?? 'POST',
        path: options.path ?? '/invocations',
        agent: options.agent ?? defaultAgent,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) },
      },
      (res) => {
        const parts: Buffer[] = [];
        let firstByteAt: number | undefined;
        res.on('data', (chunk: Buffer) => {
          if (chunk.length === 0) return;
          if (firstByteAt === undefined) firstByteAt = performance.now();
          parts.push(chunk);
          options.onChunk?.(chunk);
        });
        res.on('end', () => {
          const endAt = performance.now();
          resolveResult({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(parts),
            firstChunk: parts[0],
            chunks: parts.length,
            ttfabMs: firstByteAt === undefined ? undefined : firstByteAt - started,
            totalMs: endAt - started,
            firstByteAt,
            endAt,
          });
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('response aborted mid-stream')));
      },
    );
    req.setTimeout(options.timeoutMs ?? 30_000, () => req.destroy(new Error('request timed out')));
    req.on('error', reject);
    req.end(payload);
  });
}

/** GET /ping; resolves with the status code. */
export async function ping(port: number, agent?: Agent): Promise<number> {
  return (await pingDetails(port, agent)).status;
}

export interface PingBody {
  status: 'starting' | 'ready' | 'draining';
  in_flight: number;
  queued: number;
  executing: number;
  max_queue_depth: number;
}

/** GET /ping with its body (the container reports its admission state there). */
export async function pingDetails(port: number, agent?: Agent): Promise<{ status: number; body: PingBody }> {
  const result = await invoke(port, '', { method: 'GET', path: '/ping', ...(agent ? { agent } : {}) });
  return { status: result.status, body: JSON.parse(result.body.toString('utf8')) as PingBody };
}

/** Asks /ping until `in_flight` reaches `count` (each ask awaits its answer; bounded). */
export async function waitForInFlight(port: number, count: number, attempts = 500): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt += 1) {
    if ((await pingDetails(port)).body.in_flight >= count) return;
  }
  throw new Error(`in_flight never reached ${count} after ${attempts} /ping requests`);
}

export interface WavHeader {
  riff: string;
  riffSize: number;
  wave: string;
  fmt: string;
  fmtSize: number;
  audioFormat: number;
  channels: number;
  sampleRate: number;
  byteRate: number;
  blockAlign: number;
  bitsPerSample: number;
  data: string;
  dataSize: number;
}

export function parseWavHeader(buffer: Buffer): WavHeader {
  if (buffer.length < 44) throw new Error(`a WAV header needs 44 bytes, got ${buffer.length}`);
  return {
    riff: buffer.toString('ascii', 0, 4),
    riffSize: buffer.readUInt32LE(4),
    wave: buffer.toString('ascii', 8, 12),
    fmt: buffer.toString('ascii', 12, 16),
    fmtSize: buffer.readUInt32LE(16),
    audioFormat: buffer.readUInt16LE(20),
    channels: buffer.readUInt16LE(22),
    sampleRate: buffer.readUInt32LE(24),
    byteRate: buffer.readUInt32LE(28),
    blockAlign: buffer.readUInt16LE(32),
    bitsPerSample: buffer.readUInt16LE(34),
    data: buffer.toString('ascii', 36, 40),
    dataSize: buffer.readUInt32LE(40),
  };
}

export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] as number;
}
