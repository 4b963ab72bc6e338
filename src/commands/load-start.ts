/**
 * What every load command does before its load: resolve the request shape (flags over the
 * model's config), note where the load comes from (the vantage: runner, region, host, and the RTT
 * floor to the endpoint's host), and send one request of that shape to see whether the container
 * takes it. A container that refuses the body (4xx) is a mistake in the request shape, not a
 * measurement: the run stops there (exit 2) with what the container said and the option that
 * fixes it, instead of recording a ladder of failures.
 */
import { hostname } from 'node:os';
import { encodePrompts, type PromptSet, promptsFor } from '../load/prompts.js';
import { measureRttFloor } from '../load/rtt.js';
import type { InvokeResult, Transport } from '../load/types.js';
import { CONFIG_FILE, type ModelConfig } from '../model/config.js';
import { type MessagePart, opt, UsageError, usage } from '../model/errors.js';
import {
  JSONL_BODY,
  type RequestShape,
  type RequestShapeInput,
  requestShapeLabel,
  resolveRequestShape,
} from '../model/request-shape.js';
import { detectVantage, type Vantage } from '../model/vantage.js';

/** What the vantage is read from (tests inject both). */
export interface VantageDeps {
  /** @default process.env */
  env?: Record<string, string | undefined>;
  /** @default os.hostname() */
  host?: string;
  /** Handshakes of the RTT floor. @default 5 */
  rttAttempts?: number;
}

/** The request shape and the bodies of a run, checked before anything is sent. */
export interface RequestPlan {
  shape: RequestShape;
  prompts: PromptSet;
  bodies: Uint8Array[];
}

/** The shape (flags over config), the prompts it needs and the bodies; a mistake is exit 2. */
export function planRequests(
  input: RequestShapeInput & { promptsFile?: string; modelName: string; configFile: string },
  model: Pick<ModelConfig, 'request'>,
): RequestPlan {
  const shape = resolveRequestShape(input, model.request, {
    configFile: input.configFile,
    modelName: input.modelName,
  });
  const prompts = promptsFor(input.promptsFile, shape);
  return { shape, prompts, bodies: encodePrompts(prompts, shape) };
}

/** The continuity settings of a run: flags over the model's config. */
export interface ContinuitySettings {
  /** p95 of per-stream stall time, ms; null: first audio only. */
  underrunSloMs: number | null;
  clientBufferMs: number;
}

/** `--underrun-slo-ms` / `--client-buffer-ms` over the config's `underrun_slo_ms` / `client_buffer_ms`. */
export function resolveContinuity(
  input: { underrunSloMs?: number; clientBufferMs?: number },
  model: Pick<ModelConfig, 'underrun_slo_ms' | 'client_buffer_ms'>,
): ContinuitySettings {
  const underrunSloMs = input.underrunSloMs ?? model.underrun_slo_ms ?? null;
  if (underrunSloMs !== null && !(underrunSloMs > 0))
    throw usage`${opt('underrun-slo-ms')} must be positive.`;
  const clientBufferMs = input.clientBufferMs ?? model.client_buffer_ms ?? 0;
  if (!(clientBufferMs >= 0)) throw usage`${opt('client-buffer-ms')} must be >= 0.`;
  return { underrunSloMs, clientBufferMs };
}

/** What a load engine accounts audio with: each body's characters, the raw PCM format, the buffer. */
export const audioAccounting = (
  run: { request: RequestPlan; clientBufferMs: number },
  model: Pick<ModelConfig, 'audio_format'>,
) => ({
  characters: run.request.prompts.texts.map((text) => [...text].length),
  audio: { format: model.audio_format ?? null, clientBufferMs: run.clientBufferMs },
});

/** Content-Type and Accept of the transport setup. */
export const transportRequest = (shape: RequestShape) => ({
  contentType: shape.content_type,
  accept: shape.accept,
});

/** The vantage of this run: detected from the environment, with the RTT floor to the transport's host. */
export async function measureVantage(
  transport: Transport,
  deps: VantageDeps,
  signal: AbortSignal | undefined,
  log: (line: string) => void,
): Promise<Vantage> {
  const base = detectVantage(deps.env ?? process.env, deps.host ?? hostname());
  if (!transport.endpointUrl) return { ...base, rtt_floor: null };
  const attempts = deps.rttAttempts ?? 5;
  let url: URL;
  try {
    url = await transport.endpointUrl();
  } catch (e) {
    const error = `the endpoint's URL did not resolve: ${(e as Error).message}`.slice(0, 500);
    return {
      ...base,
      rtt_floor: {
        provenance: 'measured',
        target: 'unresolved',
        tcp_ms: null,
        tls_ms: null,
        completed: 0,
        attempts,
        error,
      },
    };
  }
  const rtt = await measureRttFloor(url, { attempts, ...(signal ? { signal } : {}) });
  const vantage: Vantage = {
    ...base,
    rtt_floor: {
      provenance: 'measured',
      target: rtt.target,
      tcp_ms: rtt.tcpMs === null ? null : round(rtt.tcpMs),
      tls_ms: rtt.tlsMs === null ? null : round(rtt.tlsMs),
      completed: rtt.completed,
      attempts: rtt.attempts,
      error: rtt.error === null ? null : rtt.error.replace(/[^\x20-\x7e]/g, ' ').slice(0, 500),
    },
  };
  log(
    `vantage: ${vantage.runner}, region ${vantage.region ?? 'unknown'}, RTT floor to ${rtt.target} ${rtt.tcpMs === null ? `not measured (${rtt.error})` : `${rtt.tcpMs.toFixed(1)} ms (fastest TCP connect of ${rtt.completed})`}`,
  );
  return vantage;
}

const round = (x: number): number => Math.round(x * 1000) / 1000;

/** Statuses a container answers a request it will never take with (not saturation, not a timeout). */
const refused = (status: number | null | undefined): status is number =>
  typeof status === 'number' && status >= 400 && status < 500 && status !== 408 && status !== 429;

/**
 * One request of the run's shape (the first body) before the load. Refused by the container
 * (4xx other than 408/429): a UsageError naming what was sent, what the container said and the
 * option that changes it. Anything else (ok, saturation, a network error) lets the run go on.
 */
export async function checkRequestShape(
  command: string,
  transport: Transport,
  plan: RequestPlan,
  where: { modelName: string; configFile: string },
  options: { timeoutMs: number; signal?: AbortSignal; log: (line: string) => void },
): Promise<InvokeResult> {
  const body = plan.bodies[0] as Uint8Array;
  const signal = options.signal
    ? AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)])
    : AbortSignal.timeout(options.timeoutMs);
  let bytes = 0;
  const result = await transport.invoke(
    body,
    { payload: (chunk) => (bytes += chunk.byteLength), connection: () => {} },
    signal,
  );
  const status = result.containerStatus ?? (transport.kind === 'http' ? result.status : null);
  if (refused(status)) throw shapeRefusal(command, plan.shape, body, status, result.error ?? '', where);
  options.log(
    result.outcome === 'ok'
      ? `request shape: ${requestShapeLabel(plan.shape)}: taken (${bytes} bytes back)`
      : `request shape: ${requestShapeLabel(plan.shape)}: first request ${result.outcome} (${result.error ?? 'no detail'}); measuring anyway`,
  );
  return result;
}

/**
 * What the container itself said: SageMaker wraps it as `Received client error (400) from primary
 * with message "<body>". See ...`; a JSON body's `message` (or `error`) is the sentence.
 */
export function containerMessage(said: string): string {
  const wrapped = /from primary with message "([\s\S]*)"\. See /.exec(said);
  const body = wrapped ? (wrapped[1] as string) : said.replace(/^HTTP \d+: /, '');
  try {
    const parsed = JSON.parse(body) as { message?: unknown; error?: unknown };
    if (typeof parsed.message === 'string') return parsed.message;
    if (typeof parsed.error === 'string') return parsed.error;
  } catch {
    // Not JSON: the text as it came.
  }
  return body;
}

function shapeRefusal(
  command: string,
  shape: RequestShape,
  body: Uint8Array,
  status: number,
  said: string,
  where: { modelName: string; configFile: string },
): UsageError {
  const sent = Buffer.from(body).toString('utf8').slice(0, 200);
  const key = (field: string) => `request.${field} of model ${where.modelName} in ${where.configFile}`;
  const fix: MessagePart[] =
    status === 415
      ? ['Send the media type it reads with ', opt('content-type'), ` (or ${key('content_type')}).`]
      : status === 406
        ? ['Ask for a type it serves with ', opt('accept'), ` (or ${key('accept')}).`]
        : [
            'Give the body it reads with ',
            opt('body-template'),
            ` (e.g. '{"input":"{{text}}","voice":"af_heart"}'; the prompt goes in JSON-escaped), or ${key('body_template')}`,
            shape.body === JSONL_BODY ? '; check the lines of the prompts file' : '',
            '.',
          ];
  return new UsageError([
    `${command}: the container refused the request shape (HTTP ${status} from the container: ${containerMessage(said).replace(/\s+/g, ' ').slice(0, 300)}). Sent ${sent} as ${shape.content_type}, accepting ${shape.accept}; nothing was measured. `,
    ...fix,
  ]);
}

/**
 * Before anything is frozen: where the load comes from (vantage, RTT floor) and whether the
 * container takes the request's shape (a refusal is exit 2). The transport is closed when either
 * fails, so a refused run leaves no sockets behind.
 */
export async function prepareLoad(
  command: string,
  transport: Transport,
  plan: RequestPlan,
  where: { modelName: string; configFile?: string | undefined },
  options: {
    timeoutMs: number;
    signal?: AbortSignal | undefined;
    log: (line: string) => void;
    vantage?: VantageDeps | undefined;
  },
): Promise<Vantage> {
  try {
    const vantage = await measureVantage(transport, options.vantage ?? {}, options.signal, options.log);
    await checkRequestShape(
      command,
      transport,
      plan,
      { modelName: where.modelName, configFile: where.configFile ?? CONFIG_FILE },
      {
        timeoutMs: options.timeoutMs,
        ...(options.signal ? { signal: options.signal } : {}),
        log: options.log,
      },
    );
    return vantage;
  } catch (e) {
    await transport.close().catch(() => {});
    throw e;
  }
}
