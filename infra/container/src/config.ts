// Environment of the reference TTS container. Invalid values are a start-up failure (exit 2),
// never a silent default.
import { type DeviceConfig, readDeviceConfig } from './device-config.js';
import { REQUEST_CONTRACTS, type RequestContract } from './request.js';
import { type ServiceMetricsTarget, WINDOW_SECONDS } from './service-metrics.js';
import { isStage, type Stage } from './stages.js';

export interface Config {
  /** TCP port; 0 picks a free one (announced on stdout as `[tts] listening ... port=N`). */
  port: number;
  /** Interface to bind; 0.0.0.0 by default (a container must be reachable from outside). */
  host: string;
  /** Admission bound: requests in flight (queued + executing) at or above it get 503. */
  maxQueueDepth: number;
  /** Synthesis worker threads (one eSpeak-NG engine each); 1 = serial, like a GPU TTS server. */
  workers: number;
  /** Default voice, loaded by every worker at start-up. */
  voice: string;
  /** Warm-up utterances per worker before `warmup_done` (see pool.ts for why more than one). */
  warmupRuns: number;
  /** Audio bytes gathered per streamed chunk after the first (0: every engine block). */
  streamChunkBytes: number;
  /** Test fault: exit 1 right after printing this stage's marker. */
  failAtStage: Stage | undefined;
  /** Longest a SIGTERM drain may take before the remaining requests are cut (exit 1). */
  drainTimeoutMs: number;
  /** Most audio one request may produce, seconds; past it the utterance is cut (bounds worker time and memory). */
  maxAudioS: number;
  /** Open TCP connections at most; more are closed at once (a flood cannot exhaust sockets). */
  maxConnections: number;
  /** A request's headers must arrive within this (then 408 and the connection closes). */
  headersTimeoutMs: number;
  /** A whole request (headers and body) must arrive within this (then 408). */
  requestTimeoutMs: number;
  /**
   * A connection that sends nothing for this long before its first request is closed, so silent
   * connections cannot hold MAX_CONNECTIONS (the headers timeout starts only at a first byte).
   */
  idleTimeoutMs: number;
  /** A kept-alive connection idle this long between requests is closed. */
  keepAliveTimeoutMs: number;
  /**
   * Longest a response may wait on a client that does not read. While the socket buffer is full,
   * synthesis pauses (memory stays bounded); past this the request is cut and its slot freed.
   */
  sendStallTimeoutMs: number;
  /** Which body /invocations reads (REQUEST_CONTRACT): `text` (default) or `input-voice`. */
  requestContract: RequestContract;
  /** The one Content-Type /invocations accepts (REQUEST_CONTENT_TYPE); undefined: any. */
  requestContentType: string | undefined;
  /** The emulated accelerator (DEVICE_* variables, device-config.ts); undefined: host CPU. */
  device: DeviceConfig | undefined;
  /**
   * Where FirstChunkLatency goes (SCALEGATE_ENDPOINT_NAME / SCALEGATE_VARIANT_NAME, set by the
   * deployment: SageMaker does not tell a container its endpoint) and its window; undefined: not
   * published (the names are unknown).
   */
  serviceMetrics: { target: ServiceMetricsTarget; windowMs: number } | undefined;
}

export class ConfigError extends Error {}

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+$/.test(raw.trim()))
    throw new ConfigError(`${name}=${raw}: expected an integer in ${min}..${max}`);
  const value = Number(raw.trim());
  if (value < min || value > max)
    throw new ConfigError(`${name}=${raw}: expected an integer in ${min}..${max}`);
  return value;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const failAtStage = env.FAIL_AT_STAGE?.trim() || undefined;
  if (failAtStage !== undefined && !isStage(failAtStage)) {
    throw new ConfigError(
      `FAIL_AT_STAGE=${failAtStage}: expected one of container_start, framework_init, weights_ready, warmup_done, ready`,
    );
  }
  const voice = env.VOICE?.trim() || 'en-us';
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_S', 10, 1, 3600) * 1000;
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_S', 30, 1, 3600) * 1000;
  if (requestTimeoutMs < headersTimeoutMs) {
    throw new ConfigError(
      `REQUEST_TIMEOUT_S=${requestTimeoutMs / 1000} is shorter than HEADERS_TIMEOUT_S=${headersTimeoutMs / 1000}: a whole request cannot arrive faster than its headers`,
    );
  }
  const contract = env.REQUEST_CONTRACT?.trim() || 'text';
  if (!(REQUEST_CONTRACTS as readonly string[]).includes(contract)) {
    throw new ConfigError(`REQUEST_CONTRACT=${contract}: expected one of ${REQUEST_CONTRACTS.join(', ')}`);
  }
  const contentType = env.REQUEST_CONTENT_TYPE?.trim() || undefined;
  if (contentType !== undefined && !/^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+$/.test(contentType)) {
    throw new ConfigError(
      `REQUEST_CONTENT_TYPE=${contentType}: expected a media type such as application/json`,
    );
  }
  return {
    requestContract: contract as RequestContract,
    requestContentType: contentType,
    port: integer(env, 'PORT', 8080, 0, 65535),
    host: env.HOST?.trim() || '0.0.0.0',
    maxQueueDepth: integer(env, 'MAX_QUEUE_DEPTH', 64, 1, 1_000_000),
    workers: integer(env, 'WORKERS', 1, 1, 64),
    voice,
    warmupRuns: integer(env, 'WARMUP_RUNS', 6, 1, 1000),
    // 8 KiB is ~0.19 s of 22.05 kHz 16-bit audio: streaming granularity of a neural TTS server,
    // and a few messages per request instead of dozens of ~4 KiB engine blocks.
    streamChunkBytes: integer(env, 'STREAM_CHUNK_BYTES', 8192, 0, 16 * 1024 * 1024),
    failAtStage,
    drainTimeoutMs: integer(env, 'DRAIN_TIMEOUT_S', 120, 1, 86_400) * 1000,
    // 1000 characters of ordinary speech are ~60 s of audio; plain text with many paragraph
    // breaks can reach minutes (measured: 265 s), SSML (now off) reached hours.
    maxAudioS: integer(env, 'MAX_AUDIO_S', 120, 1, 3600),
    maxConnections: integer(env, 'MAX_CONNECTIONS', 1024, 1, 1_000_000),
    headersTimeoutMs,
    requestTimeoutMs,
    idleTimeoutMs: integer(env, 'IDLE_TIMEOUT_S', 10, 1, 3600) * 1000,
    // Above the 60 s idle timeout of the SageMaker front end and typical load balancers, so the
    // server never closes a kept-alive connection the client is about to reuse.
    keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_S', 65, 1, 3600) * 1000,
    sendStallTimeoutMs: integer(env, 'SEND_STALL_TIMEOUT_S', 30, 1, 3600) * 1000,
    device: readDeviceConfig(env, (message) => new ConfigError(message)),
    serviceMetrics: readServiceMetrics(env),
  };
}

function readServiceMetrics(env: NodeJS.ProcessEnv): Config['serviceMetrics'] {
  const endpointName = env.SCALEGATE_ENDPOINT_NAME?.trim() ?? '';
  const variantName = env.SCALEGATE_VARIANT_NAME?.trim() ?? '';
  const windowS = integer(env, 'SERVICE_METRICS_INTERVAL_S', 10, 1, 60);
  if (!(WINDOW_SECONDS as readonly number[]).includes(windowS)) {
    throw new ConfigError(
      `SERVICE_METRICS_INTERVAL_S=${windowS}: expected one of ${WINDOW_SECONDS.join(', ')} (a CloudWatch high-resolution period)`,
    );
  }
  if (endpointName === '' && variantName === '') return undefined;
  if (endpointName === '' || variantName === '') {
    throw new ConfigError(
      'SCALEGATE_ENDPOINT_NAME and SCALEGATE_VARIANT_NAME name the metric dimensions together: set both or neither',
    );
  }
  return { target: { endpointName, variantName }, windowMs: windowS * 1000 };
}
