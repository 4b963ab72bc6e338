/** The options every command that acts on a model shares. */
import { parseTransportKind } from '../load/transport/transports.js';
import { subject, usage } from '../model/errors.js';
import { CONFIG_FILE, DEFAULT_ARTIFACTS_DIR } from '../model/index.js';
import { checkBodyTemplate, isMediaType } from '../model/request-shape.js';
import { flag, number, parsed, text } from './spec.js';

/** Which model, from which config; where its artifacts are (the action's; the CLI names files). */
export const MODEL_OPTIONS = {
  modelName: text(
    'model',
    '<name>',
    `model name from ${CONFIG_FILE} (needed when it declares more than one)`,
  ),
  configFile: text('config', '<file>', 'the scalegate config file', { default: CONFIG_FILE }),
  artifactsDir: text(
    'artifacts-dir',
    '<dir>',
    'where artifacts are read and written; a step finds the measurements it needs there by model and fingerprint (the newest by its own measured_at, never by file time)',
    { default: DEFAULT_ARTIFACTS_DIR, cli: false },
  ),
} as const;

/** Which endpoint of the model, in which region. */
export const ENDPOINT_OPTIONS = {
  endpoint: text(
    'endpoint',
    '<name>',
    'act on another endpoint of the model (e.g. its `<endpoint>-calibration` copy, where pull requests are measured)',
    { defaultText: "the model's endpoint" },
  ),
  region: text('region', '<region>', 'AWS region', { defaultText: "AWS_REGION, then the model config's" }),
} as const;

/** Where a command writes its artifact: `--out FILE` / `out:`. */
export const outFile = (what: string, file: string) =>
  text('out', '<file>', `where to write the ${what}`, {
    defaultText: `artifacts/${file}`,
    action: { defaultText: `\`<artifacts-dir>/${file}\`` },
  });

/** How long a freeze waits, and how often it looks (qmax, goodput; ttotal waits its --max-wait-s). */
export const FREEZE_DEFAULTS = {
  /** Longest wait for the frozen endpoint to have one InService instance, s. */
  timeoutS: 1200,
  /** DescribeEndpoint polling while freezing, ms. */
  pollIntervalMs: 2000,
} as const;

/** The freeze's wait, for the load commands that freeze (qmax, goodput). */
export const FREEZE_WAIT_OPTIONS = {
  freezeTimeoutS: number(
    'freeze-timeout-s',
    '<s>',
    'positive',
    'longest wait for one InService instance after freezing',
    {
      defaultText: `${FREEZE_DEFAULTS.timeoutS}`,
    },
  ),
} as const;

/** What a freezing command (qmax, goodput, ttotal) may be allowed to freeze. */
export const FREEZE_OPTIONS = {
  allowProduction: flag(
    'allow-production',
    "freeze the model's own (production) endpoint; refused without it, except through the local SageMaker (AWS_ENDPOINT_URL on loopback)",
  ),
  force: flag(
    'force',
    "freeze although the scalable target is already suspended (the flags as they are are recorded and restored) or another run's thaw journal is on the endpoint (its recorded original state is kept)",
    { action: false },
  ),
} as const;

/** What a load command sends (command line only): the texts, and where every request is recorded. */
export const LOAD_BODY_OPTIONS = {
  promptsFile: text('prompts', '<file>', 'texts to synthesise: JSONL {"text": ...} or plain lines', {
    defaultText: 'the built-in set',
    action: false,
  }),
  /** `--events FILE`: every request, one JSON line each. */
  eventsFile: text('events', '<file>', 'write one JSON line per request', { action: false }),
} as const;

/**
 * Playback continuity (qmax, goodput, drill): the second SLO on per-stream stall time and the
 * client buffer the stall is computed with. Each overrides the model's config for one run.
 */
export const CONTINUITY_OPTIONS = {
  underrunSloMs: number(
    'underrun-slo-ms',
    '<ms>',
    'positive',
    'second SLO: p95 of per-stream playback stall time, ms (decided beside first audio)',
    { defaultText: "the config's underrun_slo_ms, else first audio only" },
  ),
  clientBufferMs: number(
    'client-buffer-ms',
    '<ms>',
    'nonNegative',
    'audio the player buffers before playback starts, ms (the stall is computed with it)',
    { defaultText: "the config's client_buffer_ms (0)" },
  ),
} as const;

/** The client's timeout per request (command line only). */
export const requestTimeoutOption = () =>
  number('request-timeout-s', '<s>', 'positive', 'client timeout per request', {
    defaultText: 'invocation_ceiling_s',
    action: false,
  });

/** What a load-driving command (qmax, goodput) sends its requests to, and how. */
export const LOAD_TARGET_OPTIONS = {
  target: text('target', '<url>', 'measure a container directly: http://HOST:PORT (http transport, no AWS)', {
    action: false,
  }),
  transport: parsed(
    'transport',
    '<kind>',
    (raw) => parseTransportKind(raw),
    'load transport: response-stream (through the endpoint, lean client), sdk (the same through the AWS SDK v3 client, for reference) or http (a container directly)',
    {
      defaultText: 'http with a target, else response-stream',
      action: { defaultText: 'response-stream (through the endpoint)' },
    },
  ),
} as const;

const mediaType = (name: string) => (raw: string) => {
  if (!isMediaType(raw)) {
    throw usage`${subject(name)} needs a media type such as application/json or audio/wav, got "${raw}".`;
  }
  return raw.trim();
};

/**
 * What a request looks like (every command that sends requests): the body template, its
 * Content-Type and its Accept. Each overrides the model's `request` in the config for one run;
 * the template is checked when parsed (exit 2 naming the option).
 */
export const REQUEST_SHAPE_OPTIONS = {
  bodyTemplate: parsed(
    'body-template',
    '<json>',
    (raw) => {
      const checked = checkBodyTemplate(raw);
      if (!checked.ok) throw usage`${subject('body-template')} ${checked.problem}.`;
      return raw;
    },
    'request body: JSON with {{text}} where the prompt goes, inserted JSON-escaped (e.g. {"input":"{{text}}","voice":"af_heart"}); or jsonl: each line of the prompts file sent as it is',
    { defaultText: 'the config\'s request.body_template, else {"text":"{{text}}"}' },
  ),
  contentType: parsed('content-type', '<type>', mediaType('content-type'), 'Content-Type of every request', {
    defaultText: "the config's request.content_type, else application/json",
  }),
  accept: parsed('accept', '<type>', mediaType('accept'), 'Accept of every request', {
    defaultText: "the config's request.accept, else audio/wav",
  }),
} as const;
