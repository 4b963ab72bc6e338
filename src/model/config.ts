import { z } from 'zod';
import { attestationConfigSchema } from './attestation.js';
import { opt, usage } from './errors.js';
import { checkInferenceComponent, inferenceComponentConfigSchema } from './inference-component.js';
import { formatZodIssues } from './issues.js';
import { FileReadError, parseJsonText, READ_LIMITS, readBoundedFile } from './read.js';
import { requestConfigSchema } from './request-shape.js';
import {
  boundedNumber,
  endpointNameSchema,
  LIMITS,
  printable,
  regionSchema,
  safeString,
  variantNameSchema,
} from './safe.js';

export const CONFIG_FILE = 'scalegate.config.json';

/** Load is stated either as requests per second or as concurrent streams, never both. */
const loadFields = {
  peak_rps: boundedNumber(0, LIMITS.rps, 'peak_rps').positive().optional(),
  peak_streams: boundedNumber(0, LIMITS.rps, 'peak_streams').positive().optional(),
  trough_rps: boundedNumber(0, LIMITS.rps, 'trough_rps').optional(),
  trough_streams: boundedNumber(0, LIMITS.rps, 'trough_streams').optional(),
};

/**
 * Where the model's calibration copy lives, when not beside production: another account (the
 * strongest separation: a pull request's deploy role there reaches nothing of production) and/or
 * another region. Omitted fields mean "the same as production". A measurement records its region,
 * so a calibration region other than the model's gives plans the gate refuses for production:
 * move the account, keep the region, unless you mean to re-measure in production's region.
 */
export const calibrationPlacementSchema = z
  .object({
    account: z
      .string()
      .regex(/^[0-9]{12}$/, 'a 12-digit AWS account id')
      .optional(),
    region: regionSchema.optional(),
  })
  .strict();

export const modelConfigSchema = z
  .object({
    // `<endpoint>-calibration` must also be a valid name: 63 - 12 characters at most.
    endpoint: endpointNameSchema.max(
      51,
      'at most 51 characters, so that <endpoint>-calibration is a valid name',
    ),
    variant: variantNameSchema.default('AllTraffic'),
    region: regionSchema,
    instance_type: z.string().regex(/^ml\.[a-z0-9]+\.[a-z0-9]+$/, 'an instance type such as ml.g5.xlarge'),
    /** Directory with the model's Dockerfile; its CDK asset hash is the image digest. */
    container_dir: safeString.min(1).optional(),
    /** An image built elsewhere, pinned by digest (`...@sha256:<hex>`). */
    image_uri: safeString.min(1).optional(),
    container_env: z.record(safeString, safeString).default({}),
    /**
     * What a request to the container looks like (default: `{"text": ...}` as application/json,
     * accepting audio/wav): `body_template` is JSON with `{{text}}` where the prompt goes (inserted
     * JSON-escaped) or `jsonl` (each line of the prompts file sent as it is). The load flags
     * `--body-template`, `--content-type`, `--accept` override it for one run.
     */
    request: requestConfigSchema.optional(),
    slo_ms: boundedNumber(0, LIMITS.ms, 'slo_ms').positive(),
    surge_ratio: z.number().min(1).lt(1.5),
    ...loadFields,
    min_instances_floor: boundedNumber(1, LIMITS.instances, 'min_instances_floor').int().default(1),
    /** Hard limit of one invocation, seconds (SageMaker real-time: 60). */
    invocation_ceiling_s: boundedNumber(0, LIMITS.seconds, 'invocation_ceiling_s').positive().default(60),
    /** Optional: on-demand price of one instance-hour, for the fleet_cost finding. */
    instance_hourly_usd: boundedNumber(0, LIMITS.usd, 'instance_hourly_usd').positive().optional(),
    /** Optional: the account's endpoint-usage quota for the instance type, for quota_headroom. */
    instance_quota: boundedNumber(1, LIMITS.instances, 'instance_quota').int().optional(),
    /** Optional: where the calibration copy lives (default: production's account and region). */
    calibration: calibrationPlacementSchema.optional(),
    /**
     * The overflow probability within T_plan the deployed policy may carry, with the configured
     * surge and without one: the plan's operating point is the highest per-instance rate within
     * it, and a policy above it is a stop.
     */
    max_overflow_probability: z.number().gt(0).lt(0.5).default(0.05),
    /** The release gate also requires a drill of the plan whose SLO held (`scalegate drill`, slo_held). */
    require_drill: z.boolean().default(false),
    /**
     * Optional second SLO: the p95 of per-stream stall time (playback paused waiting for audio),
     * ms. Set: qmax and goodput decide every rung on both SLOs. `--underrun-slo-ms` overrides it.
     */
    underrun_slo_ms: boundedNumber(0, LIMITS.ms, 'underrun_slo_ms').optional(),
    /** Audio the player buffers before it starts playing, ms (`--client-buffer-ms`). @default 0 */
    client_buffer_ms: boundedNumber(0, LIMITS.ms, 'client_buffer_ms').default(0),
    /**
     * The format of raw PCM responses (no WAV header), for audio accounting. Omitted: each
     * response's WAV header is read.
     */
    audio_format: z
      .object({
        sample_rate_hz: boundedNumber(1, 1_000_000, 'sample_rate_hz').int(),
        channels: boundedNumber(1, 64, 'channels').int().default(1),
        bits_per_sample: z.union([z.literal(8), z.literal(16), z.literal(24), z.literal(32)]).default(16),
      })
      .strict()
      .optional(),
    /** Managed TTS prices to compare against, $ per 1M characters (stated by you, never fetched). */
    reference_prices: z
      .array(
        z
          .object({
            name: safeString.min(1).max(100),
            usd_per_million_characters: boundedNumber(0, 1e9, 'usd_per_million_characters').positive(),
          })
          .strict(),
      )
      .max(20)
      .default([]),
    /**
     * Other instance types `scalegate compare` measures this model on (one calibration endpoint
     * each, `<endpoint>-cal-<n>`); the model's own `instance_type` is always a candidate.
     */
    candidates: z
      .array(
        z
          .object({
            instance_type: z
              .string()
              .regex(/^ml\.[a-z0-9]+\.[a-z0-9]+$/, 'an instance type such as ml.g5.xlarge'),
            /** Extra container environment for this candidate (e.g. a device setting). */
            container_env: z.record(safeString, safeString).default({}),
            /**
             * Optional: the on-demand price of this candidate's instance-hour (stated). The model's
             * own `instance_hourly_usd` is its instance type's and never carries over.
             */
            instance_hourly_usd: boundedNumber(0, LIMITS.usd, 'instance_hourly_usd').positive().optional(),
            /** Optional: the account's endpoint-usage quota for this candidate's instance type. */
            instance_quota: boundedNumber(1, LIMITS.instances, 'instance_quota').int().optional(),
          })
          .strict(),
      )
      .max(10)
      .default([]),
    /**
     * How the model is deployed: `variant` (the model on every instance of a production variant)
     * or `inference-component` (copies packed onto instances; see `inference_component`).
     * @default 'variant'
     */
    kind: z.enum(['variant', 'inference-component']).default('variant'),
    /** Copies, packing, copy and instance bounds of an `inference-component` model. */
    inference_component: inferenceComponentConfigSchema.optional(),
  })
  .strict()
  .superRefine((model, ctx) => {
    checkInferenceComponent(model, ctx);
    if (!model.container_dir && !model.image_uri) {
      ctx.addIssue({
        code: 'custom',
        message: 'set container_dir (built by the CDK) or image_uri (pinned by digest)',
      });
    }
    if (model.container_dir && model.image_uri) {
      ctx.addIssue({ code: 'custom', message: 'set only one of container_dir and image_uri' });
    }
    if (model.peak_rps !== undefined && model.peak_streams !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['peak_streams'],
        message: 'state peak load as peak_rps or peak_streams, not both',
      });
    }
    if (model.trough_rps !== undefined && model.trough_streams !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['trough_streams'],
        message: 'state trough load as trough_rps or trough_streams, not both',
      });
    }
  });

export type ModelConfig = z.infer<typeof modelConfigSchema>;

export const configSchema = z
  .object({
    $schema: safeString.optional(),
    models: z.record(z.string().regex(/^[a-z0-9][a-z0-9-]*$/, 'a lower-case model name'), modelConfigSchema),
    /** Who must have attested the proofs the release gate reads (docs/security.md). */
    attestation: attestationConfigSchema.optional(),
  })
  .strict();

export type ScalegateConfig = z.infer<typeof configSchema>;

/** Parses config text; `file` names the source in every message. */
export function parseConfig(text: string, file: string): ScalegateConfig {
  const json = parseJsonText(text, printable(file), [
    'Fix the file or name another with ',
    opt('config'),
    '.',
  ]);
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    throw usage`${file}: invalid scalegate config:\n${formatZodIssues(parsed.error)}`;
  }
  return parsed.data;
}

export function modelFromConfig(
  config: ScalegateConfig,
  name: string | undefined,
  file: string,
): [string, ModelConfig] {
  const names = Object.keys(config.models);
  if (name === undefined) {
    if (names.length === 1) return [names[0] as string, config.models[names[0] as string] as ModelConfig];
    throw usage`${file} declares ${names.length} models (${names.join(', ')}): choose one with ${opt('model')}.`;
  }
  const model = config.models[name];
  if (!model) {
    throw usage`${opt('model', name)}: no such model in ${file} (declared: ${names.join(', ') || 'none'}).`;
  }
  return [name, model];
}

/** Reads and validates a config file; a missing, unreadable or oversized file is a UsageError naming it. */
export function readConfigFile(file: string): ScalegateConfig {
  let text: string;
  try {
    text = readBoundedFile(file, {
      maxBytes: READ_LIMITS.config,
      label: 'the config',
      fix: ['Fix the file or name another with ', opt('config'), '.'],
    });
  } catch (e) {
    if (e instanceof FileReadError && e.missing) {
      throw usage`${printable(file)}: no such config file. Create ${CONFIG_FILE} (see docs/config.md) or name another with ${opt('config')}.`;
    }
    throw e;
  }
  return parseConfig(text, file);
}

/** Which model, from which config, acting on which endpoint in which region: every command's first options. */
export interface ModelSelection {
  /** A model of the config. @default the config's only model */
  modelName?: string;
  /** @default `scalegate.config.json` */
  configFile?: string;
  /** Another endpoint of the model (e.g. its `<endpoint>-calibration` copy). @default the model's endpoint */
  endpoint?: string;
  /** @default the `region` given, then AWS_REGION, then the model's region */
  region?: string;
}

export interface ModelContext {
  config: ScalegateConfig;
  configFile: string;
  modelName: string;
  model: ModelConfig;
  endpoint: string;
  variant: string;
  region: string;
}

/** The model a command acts on, from the config file (flags and inputs override the config). */
export function loadModelContext(
  selection: ModelSelection,
  env: Record<string, string | undefined> = process.env,
): ModelContext {
  const configFile = selection.configFile ?? CONFIG_FILE;
  const config = readConfigFile(configFile);
  const [modelName, model] = modelFromConfig(config, selection.modelName, configFile);
  return {
    config,
    configFile,
    modelName,
    model,
    endpoint: selection.endpoint ?? model.endpoint,
    variant: model.variant,
    // Given first; then the standard SDK environment (so AWS_REGION=local reaches the emulator); then config.
    region: selection.region ?? env.AWS_REGION ?? model.region,
  };
}
