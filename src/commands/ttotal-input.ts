/**
 * What `scalegate ttotal` takes (its input and dependencies), the transport and trigger it
 * measures with, and the probe sample it keeps of each request: shared by the command and its
 * scale-out.
 */
import type { ProbeSample } from '../analysis/ttotal.js';
import type { AwsClients } from '../aws/clients.js';
import type { VariantCapacity } from '../aws/endpoint.js';
import { wallOf } from '../load/closed/engine.js';
import type { RequestRecord, Transport } from '../load/types.js';
import type {
  ModelConfig,
  QmaxArtifact,
  Transport as TransportKind,
  TtotalArtifact,
} from '../model/index.js';
import type { OptionValues } from '../options/spec.js';
import type { TTOTAL_OPTIONS } from '../options/ttotal.js';
import type { JournalEntryRef } from './freeze.js';
import type { RequestPlan, VantageDeps } from './load-start.js';
import type { AwsCommandDeps } from './result.js';

/** What ttotal probes over: through the endpoint, so the router can split the probe. */
export const TTOTAL_TRANSPORT: TransportKind = 'response-stream';

export const TRIGGER = 'force-desired';

/**
 * What ttotal is given: the model and endpoint, and the values of its option table
 * (src/options/ttotal.ts: each option's default is declared there, once).
 */
export interface TtotalInput
  extends Omit<
    OptionValues<typeof TTOTAL_OPTIONS>,
    'modelName' | 'configFile' | 'endpoint' | 'region' | 'qmaxFile'
  > {
  modelName: string;
  model: ModelConfig;
  /** The config file the model came from (named in a refusal of its request shape). @default scalegate.config.json */
  configFile?: string;
  endpoint: string;
  variant: string;
  region: string;
  qmaxFile: string;
  /** @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** The command line, for the thaw journal. @default `scalegate ttotal --model <model> --qmax <file>` */
  commandLine?: string;
  /** @default a new run id */
  runId?: string;
}

export interface TtotalDeps extends AwsCommandDeps<AwsClients> {
  /** Install SIGINT/SIGTERM handlers for the duration of the freeze. @default true */
  handleSignals?: boolean;
  /** Endpoint and credentials of the probe's own runtime client, as qmax's. @default the SDK environment */
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Builds the probe transport. @default InvokeEndpointWithResponseStream through the endpoint */
  createTransport?: (maxConcurrency: number) => Transport;
  /** Told where the thaw journal goes before it is written (the action's post step). @default nothing */
  onJournal?: (entry: JournalEntryRef) => void;
  /** Where the vantage is read from (environment, host name). @default process.env, os.hostname() */
  vantage?: VantageDeps;
}

export interface TtotalPreflight {
  /** The probe's request shape and bodies. */
  request: RequestPlan;
  qmax: QmaxArtifact;
  probeConcurrency: number;
  halfP95Ms: number;
  /** The rungs the p95 at N/2 was interpolated between; null when N/2 was measured. */
  halfBetween: [number, number] | null;
  fullP95Ms: number | null;
  mismatchWarnings: string[];
  quota: NonNullable<TtotalArtifact['quota']>;
  lag: { lagS: number; bounded: boolean; source: string };
  fingerprint: TtotalArtifact['fingerprint'];
  capacity: VariantCapacity;
}

export function probeSample(record: RequestRecord): ProbeSample {
  return {
    dispatchMs: wallOf(record.dispatchedAt),
    endMs: wallOf(record.endedAt ?? record.dispatchedAt),
    ttfabMs: record.outcome === 'ok' && record.ttfabMs !== null ? record.ttfabMs : Number.POSITIVE_INFINITY,
  };
}
