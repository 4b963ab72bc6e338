/** What the load-driving, freezing commands (qmax, goodput) are told alike. */
import type { ModelConfig } from '../model/config.js';
import type { RequestShapeInput } from '../model/request-shape.js';

export interface LoadCommandInput extends RequestShapeInput {
  modelName: string;
  model: ModelConfig;
  /** The config file the model came from (container_dir is relative to it). */
  configFile: string;
  endpoint: string;
  variant: string;
  region: string;
  /** `http://HOST:PORT`: measure a container directly (http transport, no AWS). @default the endpoint */
  target?: string;
  /** `response-stream` | `sdk` | `http`. @default http with a target, else response-stream */
  transport?: string;
  /** @default the model config's slo_ms */
  sloMs?: number;
  /** @default the built-in prompt set */
  promptsFile?: string;
  /** One JSON line per request. @default none */
  eventsFile?: string;
  /** Client timeout per request, s. @default the model's invocation_ceiling_s */
  requestTimeoutS?: number;
  /** Print the schedule and cost; no AWS call. @default false */
  dryRun?: boolean;
  /** @default `<artifactsDir>/<command>-<model>-<transport>-<slug>.json` */
  outFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
  /** Longest wait for the frozen endpoint to have one InService instance, s. @default FREEZE_DEFAULTS.timeoutS (src/options/common.ts) */
  freezeTimeoutS?: number;
  /** DescribeEndpoint polling while freezing, ms. @default FREEZE_DEFAULTS.pollIntervalMs */
  pollIntervalMs?: number;
  /** @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** The command line, for the thaw journal. @default `scalegate <command> --model <model>` */
  commandLine?: string;
  /** Freeze the model's own (production) endpoint; refused without it unless the clients are on loopback. @default false */
  allowProduction?: boolean;
  /** Freeze although scaling is already suspended or another run's journal is on the endpoint. @default false */
  force?: boolean;
}
