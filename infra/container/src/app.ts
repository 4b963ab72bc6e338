// The reference TTS container: the HTTP side of the SageMaker real-time container contract
// (GET /ping, POST /invocations), the admission gate, start-up stages and SIGTERM drain.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { endianness } from 'node:os';
import { AdmissionGate } from './admission.js';
import { AudioCache } from './audio-cache.js';
import { type Config, ConfigError, readConfig } from './config.js';
import { DeviceExecutor, describeDevice } from './device.js';
import { type Executor, type Job, SynthesisPool } from './pool.js';
import { checkContentType, MAX_BODY_BYTES, parseInvocation } from './request.js';
import { SERVICE_METRIC, ServiceTimeMetrics } from './service-metrics.js';
import { markStage, writeLine } from './stages.js';
import { type StagePacer, stagePacer } from './startup-pacing.js';
import { StreamingDeviceExecutor } from './streaming.js';
import { wavHeader } from './wav.js';

type Phase = 'starting' | 'ready' | 'draining';

/** Replayed speech kept by an emulated device (device mode): ~12 min of 22.05 kHz audio. */
const AUDIO_CACHE_BYTES = 32 * 1024 * 1024;

function logError(line: string): void {
  process.stderr.write(`${line}\n`);
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(payload),
    'Cache-Control': 'no-store',
  });
  res.end(payload);
}

/** Reads the whole body; past `limit` bytes keeps reading but stops storing (then 400s). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (part: Buffer) => {
      size += part.length;
      if (size <= limit) parts.push(part);
    });
    req.on('end', () => resolve(size > limit ? Buffer.alloc(limit + 1) : Buffer.concat(parts)));
    req.on('error', () => resolve(undefined));
    req.on('close', () => {
      if (!req.complete) resolve(undefined);
    });
  });
}

class ContainerServer {
  private phase: Phase = 'starting';
  private readonly gate: AdmissionGate;
  private readonly pool: Executor;
  private readonly pace: StagePacer;
  private readonly server: Server;
  /** FirstChunkLatency per window, as EMF on stdout; undefined when the deployment named no endpoint. */
  private readonly serviceMetrics: ServiceTimeMetrics | undefined;
  private voices: ReadonlySet<string> | undefined;
  private header: Buffer | undefined;
  private readonly swapBytes = endianness() !== 'LE';

  constructor(private readonly config: Config) {
    this.gate = new AdmissionGate(config.maxQueueDepth);
    const synthesis = new SynthesisPool(
      config.workers,
      config.voice,
      config.warmupRuns,
      config.streamChunkBytes,
      new URL('./worker.js', import.meta.url),
      {
        log: writeLine,
        fatal: (error) => {
          logError(`[tts] fatal: ${error.message}`);
          process.exit(1);
        },
      },
      { maxAudioS: config.maxAudioS },
    );
    this.server = createServer(
      {
        noDelay: true,
        // A slow or half-sent request is answered 408 and closed (checked every second), so it
        // cannot hold a connection for minutes.
        headersTimeout: config.headersTimeoutMs,
        requestTimeout: config.requestTimeoutMs,
        connectionsCheckingInterval: 1000,
      },
      (req, res) => this.route(req, res),
    );
    // Device mode (DEVICE_PROFILE): an emulated accelerator times the requests and replays
    // speech the pool synthesised once per text; otherwise the pool synthesises every request.
    const device = config.device;
    this.pool = device?.profile?.streaming
      ? new StreamingDeviceExecutor(
          device.profile,
          device.timeScale,
          device.seed,
          synthesis,
          new AudioCache(synthesis, AUDIO_CACHE_BYTES),
        )
      : device?.profile
        ? new DeviceExecutor(
            device.profile,
            device.timeScale,
            device.seed,
            synthesis,
            new AudioCache(synthesis, AUDIO_CACHE_BYTES),
            config.streamChunkBytes,
          )
        : synthesis;
    this.pace = stagePacer(device);
    const metrics = config.serviceMetrics;
    this.serviceMetrics = metrics ? new ServiceTimeMetrics(metrics.target, metrics.windowMs) : undefined;
    // KEEP_ALIVE_TIMEOUT_S (65 s): above the 60 s idle timeout of typical load balancers and the
    // SageMaker front end, so the server never closes a kept-alive connection the client is about
    // to reuse.
    this.server.keepAliveTimeout = config.keepAliveTimeoutMs;
    // Connections beyond this are closed as they arrive.
    this.server.maxConnections = config.maxConnections;
    // The headers timeout counts from a request's first byte, not from the silence before it: a
    // connection that never sends a byte would hold one of MAX_CONNECTIONS forever, and enough of
    // them would lock every client out. Until its first request arrives a connection may stay
    // silent IDLE_TIMEOUT_S; then the socket times out and the server destroys it (no 'timeout'
    // listener on the server). Admission slots are taken by requests (invoke), never by sockets.
    this.server.on('connection', (socket) => socket.setTimeout(config.idleTimeoutMs));
    this.server.on('request', (req: IncomingMessage) => req.socket.setTimeout(0));
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(this.config.port, this.config.host, () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    const { port } = this.server.address() as AddressInfo;
    writeLine(
      `[tts] listening host=${this.config.host} port=${port} workers=${this.config.workers} ` +
        `max_queue_depth=${this.config.maxQueueDepth} voice=${this.config.voice} ` +
        `max_audio_s=${this.config.maxAudioS} max_connections=${this.config.maxConnections} ` +
        `idle_timeout_s=${this.config.idleTimeoutMs / 1000} keep_alive_timeout_s=${this.config.keepAliveTimeoutMs / 1000}`,
    );
    const device = this.config.device;
    if (device) writeLine(`[tts] ${describeDevice(device)}`);
    const metrics = this.config.serviceMetrics;
    writeLine(
      metrics
        ? `[tts] service metrics: ${SERVICE_METRIC.namespace} ${SERVICE_METRIC.name} (ms, dequeue to first audio byte) for EndpointName=${metrics.target.endpointName} VariantName=${metrics.target.variantName}, EMF every ${metrics.windowMs / 1000} s`
        : '[tts] service metrics: off (SCALEGATE_ENDPOINT_NAME and SCALEGATE_VARIANT_NAME unset)',
    );
    this.serviceMetrics?.start();
    await this.pace('framework_init');
    markStage('framework_init');

    const info = await this.pool.load();
    this.voices = new Set(info.voices);
    this.header = wavHeader(info.sampleRate);
    await this.pace('weights_ready');
    if (this.phase !== 'starting') return;
    markStage('weights_ready');

    const warmup = await this.pool.warmup();
    await this.pace('warmup_done');
    if (this.phase !== 'starting') return;
    markStage('warmup_done');
    warmup.forEach((times, worker) => {
      writeLine(`[tts] worker ${worker} warm-up ms: ${times.map((ms) => ms.toFixed(0)).join(' ')}`);
    });

    await this.pace('ready');
    if (this.phase !== 'starting') return;
    this.phase = 'ready';
    markStage('ready');
  }

  /** SIGTERM / SIGINT: refuse new work, finish everything admitted, then end workers and exit 0. */
  async drain(signal: string): Promise<void> {
    if (this.phase === 'draining') {
      writeLine(`[tts] ${signal} again: still draining ${this.gate.depth} request(s)`);
      return;
    }
    const wasStarting = this.phase === 'starting';
    this.phase = 'draining';
    writeLine(`[tts] ${signal}: draining in_flight=${this.gate.depth}`);
    const timeout = setTimeout(() => {
      logError(
        `[tts] drain timed out after ${this.config.drainTimeoutMs} ms; ${this.gate.depth} request(s) cut`,
      );
      process.exit(1);
    }, this.config.drainTimeoutMs);
    await this.gate.idle();
    clearTimeout(timeout);
    // The last window's service times are published before the process goes.
    this.serviceMetrics?.close();
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve());
      this.server.closeAllConnections();
    });
    await this.pool.close();
    writeLine(`[tts] drained${wasStarting ? ' (during start-up)' : ''}; exiting 0`);
    process.exit(0);
  }

  get draining(): boolean {
    return this.phase === 'draining';
  }

  private route(req: IncomingMessage, res: ServerResponse): void {
    if (this.phase === 'draining') res.setHeader('Connection', 'close');
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path === '/ping') {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.setHeader('Allow', 'GET, HEAD');
        sendJson(res, 405, { error: 'method_not_allowed', message: 'use GET /ping' });
        return;
      }
      // SageMaker reads only the status; the body helps people and tests see the queue.
      sendJson(res, this.phase === 'ready' ? 200 : 503, {
        status: this.phase,
        in_flight: this.gate.depth,
        queued: this.pool.queued,
        executing: this.pool.executing,
        max_queue_depth: this.gate.maxDepth,
      });
      return;
    }
    if (path === '/invocations') {
      if (req.method !== 'POST') {
        res.setHeader('Allow', 'POST');
        sendJson(res, 405, { error: 'method_not_allowed', message: 'use POST /invocations' });
        return;
      }
      void this.invoke(req, res);
      return;
    }
    sendJson(res, 404, { error: 'not_found', message: `no route for ${req.method} ${path}` });
  }

  private async invoke(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readBody(req, MAX_BODY_BYTES);
    if (body === undefined || res.destroyed) return; // the client went away mid-body
    // 1. Validate: a malformed request never reaches the gate.
    const unsupported = checkContentType(req.headers['content-type'], this.config.requestContentType);
    if (unsupported !== null) {
      sendJson(res, 415, { error: 'unsupported_media_type', message: unsupported });
      return;
    }
    const parsed = parseInvocation(body, this.config.voice, this.voices, this.config.requestContract);
    if (!parsed.ok) {
      sendJson(res, 400, { error: 'bad_request', message: parsed.message });
      return;
    }
    if (this.phase === 'starting') {
      sendJson(res, 503, {
        error: 'not_ready',
        message: 'the container is starting; GET /ping is 200 once ready',
      });
      return;
    }
    if (this.phase === 'draining') {
      sendJson(res, 503, {
        error: 'shutting_down',
        message: 'the container is draining after a stop signal',
      });
      return;
    }
    // 2. Admission: queued + executing must stay below MAX_QUEUE_DEPTH.
    const admission = this.gate.tryAdmit();
    if (!admission.admitted) {
      sendJson(res, 503, {
        error: 'queue_saturated',
        queue_depth: admission.depth,
        max_queue_depth: this.gate.maxDepth,
      });
      return;
    }
    // 3. Queue for a worker; stream the audio as it is synthesised.
    const header = this.header as Buffer;
    const headers: Record<string, string | number> = {
      'Content-Type': 'audio/wav',
      'Cache-Control': 'no-store',
      'X-Queue-Depth-At-Admission': admission.depthAtAdmission,
    };
    const writeHead = () => {
      if (this.phase === 'draining') headers.Connection = 'close';
      res.writeHead(200, headers);
    };
    // Backpressure: when the socket buffer is full (the client does not read), synthesis pauses
    // until it drains; a client that stays stalled past SEND_STALL_TIMEOUT_S is cut.
    let stall: NodeJS.Timeout | undefined;
    const send = (chunk: Buffer) => {
      if (res.write(chunk) || stall !== undefined) return;
      this.pool.pause(job);
      stall = setTimeout(() => {
        writeLine(
          `[tts] client not reading for ${this.config.sendStallTimeoutMs / 1000} s: job ${job.id} cut, slot released (buffered=${res.writableLength} bytes)`,
        );
        this.pool.cancel(job);
        res.destroy();
      }, this.config.sendStallTimeoutMs);
      res.once('drain', () => {
        clearTimeout(stall);
        stall = undefined;
        this.pool.resume(job);
      });
    };
    // Service time runs from leaving the queue (the executor's own start instant: a device lane may
    // have started before its timer ran) to the first audio byte handed to the socket.
    const submittedAt = performance.now();
    let dequeuedAt: number | undefined;
    const job: Job = this.pool.submit(parsed.text, parsed.voice, {
      onStart: ({ queueWaitMs }) => {
        headers['X-Queue-Wait-Ms'] = Math.round(queueWaitMs);
        dequeuedAt = submittedAt + queueWaitMs;
      },
      onChunk: (pcm) => {
        if (res.destroyed) return;
        if (this.swapBytes) pcm.swap16();
        if (!res.headersSent) {
          // The header travels with the first audio: time to first byte = time to first audio.
          writeHead();
          send(Buffer.concat([header, pcm]));
          if (dequeuedAt !== undefined) this.serviceMetrics?.record(performance.now() - dequeuedAt);
        } else {
          send(pcm);
        }
      },
      onEnd: ({ cancelled }) => {
        clearTimeout(stall);
        admission.release();
        if (cancelled) writeLine(`[tts] client went away: job ${job.id} aborted, slot released`);
        if (res.destroyed) return;
        if (!res.headersSent) {
          // The text produced no audio at all (e.g. only punctuation): an empty WAV stream.
          writeHead();
          res.end(header);
        } else {
          res.end();
        }
      },
      onError: (error) => {
        clearTimeout(stall);
        admission.release();
        logError(`[tts] synthesis failed: ${error.message}`);
        if (res.destroyed) return;
        if (!res.headersSent) sendJson(res, 500, { error: 'synthesis_failed', message: error.message });
        else res.destroy(error); // mid-stream: the client sees a truncated chunked response
      },
    });
    res.on('close', () => {
      if (!res.writableFinished) this.pool.cancel(job);
    });
  }
}

export async function main(): Promise<void> {
  let config: Config;
  try {
    config = readConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    logError(`[tts] configuration error: ${error.message}`);
    process.exit(2);
  }
  const container = new ContainerServer(config);
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      void container.drain(signal);
    });
  }
  try {
    await container.start();
  } catch (error) {
    if (container.draining) return;
    logError(`[tts] start-up failed: ${(error as Error).message}`);
    process.exit(1);
  }
}
