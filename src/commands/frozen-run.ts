/**
 * The one freeze-measure-restore protocol of every command that measures a live endpoint (qmax,
 * goodput, ttotal): refuse production -> fingerprint -> transport -> journal -> freeze -> observe
 * capacity -> measure -> restore in `finally` -> interrupted with its restore report -> write.
 * A fix to the protocol that protects endpoints is made here, once.
 */
import type { AwsClients } from '../aws/clients.js';
import { describeVariantCapacity } from '../aws/endpoint.js';
import { readDeployedFingerprint } from '../aws/fingerprint.js';
import { variantResourceId } from '../aws/scaling.js';
import { createTransport, type TransportSetup } from '../load/transport/transports.js';
import type { Transport, TransportKind } from '../load/types.js';
import type { JournalRestoreRecord, RestoreRecord } from '../model/artifacts.js';
import { type AssetHash, modelImageDigest } from '../model/asset-hash.js';
import type { ModelConfig } from '../model/config.js';
import { configFingerprint, type Fingerprint, LOCAL_REGION } from '../model/fingerprint.js';
import type { RequestShape } from '../model/request-shape.js';
import type { FreezingCommand } from '../options/commands.js';
import { waitUntil } from '../wait.js';
import {
  awsFreezeAdapters,
  type Freeze,
  type FreezeAdapters,
  FreezeLostError,
  freezeAbort,
  freezeEndpoint,
  InterruptedError,
  icFreezeAdapters,
  type JournalEntryRef,
  type RestoreReport,
} from './freeze.js';
import { type FreezeTarget, refuseProductionFreeze } from './freeze-guard.js';
import type { VantageDeps } from './load-start.js';
import type { CommandDeps } from './result.js';

/** The AWS clients a frozen run calls (besides the load's own runtime client). */
export type FrozenRunClients = Pick<AwsClients, 'sagemaker' | 'autoscaling' | 'region'>;

/** What every load command that freezes (qmax, goodput) may be given besides its input. */
export interface LoadCommandDeps<C extends FrozenRunClients = FrozenRunClients> extends CommandDeps {
  /** Needed unless the transport is http or it is a dry run (the load has its own runtime client). @default none */
  clients?: C;
  /** @default the AWS ones over `clients` */
  freezeAdapters?: FreezeAdapters;
  /** The content hash of a container directory, for http fingerprints. @default containerAssetHash */
  assetHash?: AssetHash;
  /** Install SIGINT/SIGTERM handlers for the duration of the freeze. @default true */
  handleSignals?: boolean;
  /** Endpoint/credentials of the load's own runtime client. @default the SDK environment (AWS_ENDPOINT_URL) */
  loadClient?: TransportSetup['loadClient'];
  /** Transport factory (tests, benchmarks). @default the transport the input names */
  createTransport?: (kind: TransportKind, maxConcurrency: number) => Transport;
  /** Told where the thaw journal goes before it is written (the action's post step). @default nothing */
  onJournal?: (entry: JournalEntryRef) => void;
  /** Where the vantage is read from (environment, host name). @default process.env, os.hostname() */
  vantage?: VantageDeps;
}

/** What a load command's input says of its target (LoadCommandInput's part). */
export interface MeasuredTarget extends FreezeTarget {
  model: ModelConfig;
  configFile: string;
  region: string;
}

/**
 * Refuse production, then the fingerprint (read-only): a measurement is only worth anything if we
 * know what of. Live: the deployed endpoint's; a container measured directly: the config's image,
 * in the local region (never a real one). Either way with the request shape the load sends.
 */
export async function measuredFingerprint(
  command: FreezingCommand,
  input: MeasuredTarget,
  live: { clients: FrozenRunClients } | null,
  local: { imageDigest?: string; assetHash?: AssetHash },
  log: (line: string) => void,
  request: RequestShape,
): Promise<{ fingerprint: Fingerprint; deployedEnv: Record<string, string> }> {
  if (live) {
    const { clients } = live;
    await refuseProductionFreeze(command, input, clients, log);
    const deployed = await readDeployedFingerprint(
      clients.sagemaker,
      input.endpoint,
      input.variant,
      clients.region,
    );
    const fingerprint = { ...deployed.fingerprint, request };
    log(
      `fingerprint: ${fingerprint.instance_type}, image ${fingerprint.image_digest.slice(0, 12)}, region ${fingerprint.region}`,
    );
    return { fingerprint, deployedEnv: deployed.deployed.environment };
  }
  const digest = local.imageDigest ?? modelImageDigest(input.model, input.configFile, local.assetHash);
  return { fingerprint: configFingerprint(input.model, digest, LOCAL_REGION, request), deployedEnv: {} };
}

/** The load's transport: the deps' factory (tests, benchmarks), else the transport table's. */
export function loadTransport(
  kind: TransportKind,
  setup: TransportSetup,
  factory: LoadCommandDeps['createTransport'],
): Transport {
  return factory ? factory(kind, setup.maxConcurrency) : createTransport(kind, setup);
}

/** What the freeze is told: where, under what journal entry, how long to wait. */
export interface FrozenRunSpec {
  endpoint: string;
  variant: string;
  region: string;
  /** The AWS clients; null: nothing to freeze (a container measured directly). */
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'> | null;
  /** @default the AWS ones over `clients` */
  adapters?: FreezeAdapters;
  /** An inference component: its copy count is frozen (pinned at `pin`), not the variant's instances. */
  component?: string | null;
  /** The count pinned while frozen. @default 1 */
  pin?: number;
  /** Another run freezes (goodput's shards other than 0): wait, read-only, until it has. @default freeze here */
  awaitFrozen?: (adapters: FreezeAdapters, signal: AbortSignal) => Promise<void>;
  stateDir?: string;
  commandLine: string;
  runId: string;
  force?: boolean;
  onJournal?: (entry: JournalEntryRef) => void;
  waitTimeoutS?: number;
  pollIntervalMs?: number;
  /** The caller's abort signal. */
  signal?: AbortSignal;
  /** Install SIGINT/SIGTERM handlers while frozen. @default true */
  handleSignals?: boolean;
  log: (line: string) => void;
  /** How the restore is told. @default one `restore: ` line per action and error */
  logRestore?: (restore: RestoreReport) => void;
  /**
   * Whether the freeze check after the measurement also requires one InService instance (false:
   * the command moves the capacity itself, as ttotal's scale-out does). @default true
   */
  checkCapacity?: boolean;
  /** The claim's heartbeat period, ms. @default HEARTBEAT_DEFAULTS.everyMs */
  heartbeatMs?: number;
}

/** What the measurement runs with. */
export interface FrozenContext {
  signal: AbortSignal;
  /** The freeze (null: nothing frozen here). */
  freeze: Freeze | null;
  /** The variant's current instance count (null: not live, or the call failed and said so). */
  observeCapacity(): Promise<number | null>;
  /**
   * Throws FreezeLostError when the endpoint is no longer frozen by this run as it froze it
   * (its claim or journal gone, scaling resumed, capacity moved): call it after every rung.
   * Nothing frozen here: does nothing.
   */
  checkFreeze(options?: { capacity?: boolean }): Promise<void>;
}

/** What the result is written from, once the endpoint is restored. */
export interface RestoredContext {
  signal: AbortSignal;
  freeze: Freeze | null;
  restore: RestoreReport | null;
}

export interface FrozenRunSteps<M, R> {
  /** The measurement on the frozen endpoint. */
  measure(ctx: FrozenContext): Promise<M>;
  /** Stops the load (engine, transport) before the restore, whatever happened. */
  release?(): Promise<void>;
  /** Closes what may wait until the endpoint is restored (the events file). */
  afterRestore?(): Promise<void>;
  /** Judges and writes the result, the endpoint restored (the abort signal still live). */
  finish(measured: M, ctx: RestoredContext): Promise<R>;
}

const logRestoreLines = (log: (line: string) => void) => (restore: RestoreReport) => {
  for (const action of restore.actions) log(`restore: ${action}`);
  for (const error of restore.errors) log(`restore FAILED: ${error}`);
};

/**
 * Journal -> freeze -> measure -> restore in `finally` -> on an interruption, InterruptedError with
 * what was restored (a freeze interrupted while freezing restored before rethrowing and says how);
 * on success, `finish`. The signal guard is installed for the whole run when there is a freeze.
 */
export async function frozenRun<M, R>(spec: FrozenRunSpec, steps: FrozenRunSteps<M, R>): Promise<R> {
  const { clients, log } = spec;
  const abort = freezeAbort(spec.signal, clients !== null && spec.handleSignals !== false, log);
  // The heartbeat (or a check) finding the freeze lost stops the measurement too.
  const lost = new AbortController();
  const loseFreeze = (reason: string) => {
    if (!lost.signal.aborted) lost.abort(new FreezeLostError(reason));
  };
  const signal = AbortSignal.any([abort.signal, lost.signal]);
  try {
    const adapters = clients
      ? (spec.adapters ??
        (spec.component
          ? icFreezeAdapters(clients, spec.endpoint, spec.variant, spec.component)
          : awsFreezeAdapters(clients, spec.endpoint, spec.variant)))
      : null;
    let freeze: Freeze | null = null;
    let restore: RestoreReport | null = null;
    let measured: M | undefined;
    let failure: { error: unknown } | null = null;
    try {
      if (adapters && spec.awaitFrozen) await spec.awaitFrozen(adapters, signal);
      else if (adapters) {
        freeze = await freezeEndpoint({
          endpoint: spec.endpoint,
          variant: spec.variant,
          region: spec.region,
          adapters,
          stateDir: spec.stateDir,
          commandLine: spec.commandLine,
          runId: spec.runId,
          force: spec.force,
          onJournal: spec.onJournal,
          waitTimeoutS: spec.waitTimeoutS,
          pollIntervalMs: spec.pollIntervalMs,
          heartbeatMs: spec.heartbeatMs,
          ...(spec.pin !== undefined ? { pin: spec.pin } : {}),
          onLost: (reason) => {
            log(`freeze LOST: ${reason}`);
            loseFreeze(reason);
          },
          signal,
          log,
        });
      }
      const held = freeze;
      const checkFreeze = async (how: { capacity?: boolean } = {}): Promise<void> => {
        if (!held) return;
        const why = await held.check({ capacity: how.capacity ?? spec.checkCapacity !== false, signal });
        if (why) {
          loseFreeze(why);
          throw lost.signal.reason;
        }
      };
      const observeCapacity = async (): Promise<number | null> => {
        if (!clients) return null;
        try {
          const capacity = await describeVariantCapacity(clients.sagemaker, spec.endpoint, spec.variant, {
            abortSignal: signal,
          });
          return capacity.current;
        } catch (e) {
          if (signal.aborted) throw e;
          log(`capacity check failed: ${(e as Error).message}`);
          return null;
        }
      };
      measured = await steps.measure({ signal, freeze, observeCapacity, checkFreeze });
      // The last look while frozen: a measurement the endpoint did not hold still for is not written.
      await checkFreeze();
    } catch (e) {
      failure = { error: e };
    } finally {
      await steps.release?.();
      if (freeze) {
        restore = await freeze.restore({ interrupted: abort.signal.aborted });
        (spec.logRestore ?? logRestoreLines(log))(restore);
      }
      await steps.afterRestore?.();
    }
    if (failure !== null || signal.aborted) {
      const restoreSeen =
        restore ?? (failure?.error as { restore?: RestoreReport } | null | undefined)?.restore ?? null;
      if (abort.received) {
        const interrupted = new InterruptedError(abort.received);
        // Interrupted while freezing: freezeEndpoint restored before rethrowing and says how.
        interrupted.restore = restoreSeen;
        throw interrupted;
      }
      if (lost.signal.aborted) {
        throw new FreezeLostError((lost.signal.reason as FreezeLostError).reason).restored(restoreSeen);
      }
      throw failure ? failure.error : new Error('aborted');
    }
    return await steps.finish(measured as M, { signal, freeze, restore });
  } finally {
    abort.dispose();
  }
}

/**
 * A shard other than 0 never freezes: it waits, read-only, until it sees the endpoint frozen by
 * shard 0 (one InService instance, every scaling flag suspended), at the latest until the start.
 */
export async function awaitFrozen(
  adapters: FreezeAdapters,
  endpoint: string,
  variant: string,
  untilMs: number,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  const resourceId = variantResourceId(endpoint, variant);
  const frozen = await waitUntil(
    `shard 0 to freeze ${endpoint}/${variant}`,
    async () => {
      const capacity = await adapters.describeVariantCapacity({ abortSignal: signal });
      const target = await adapters.describeScalableTarget(resourceId, { abortSignal: signal });
      const suspended =
        target === null ||
        (target.suspended.dynamic_scaling_in_suspended &&
          target.suspended.dynamic_scaling_out_suspended &&
          target.suspended.scheduled_scaling_suspended);
      return capacity.endpointStatus === 'InService' &&
        capacity.current === 1 &&
        capacity.desired === 1 &&
        suspended
        ? true
        : undefined;
    },
    { deadline: untilMs, interval: 2000, signal, log: (line) => log(`shard: ${line}`) },
  ).catch((e) => {
    if (signal.aborted) throw e;
    return undefined;
  });
  if (!frozen) {
    throw new Error(
      `refusing to measure: ${endpoint}/${variant} was not frozen at one instance before the agreed start; start shard 0 (it freezes the endpoint) with the same --start-at`,
    );
  }
}

/** The restore as artifacts record it. */
export const restoreRecordOf = (restore: RestoreReport | null): RestoreRecord | null =>
  restore ? { actions: restore.actions, errors: restore.errors } : null;

/** The restore with what the journal held (ttotal's record). */
export const journalRestoreRecordOf = (freeze: Freeze, restore: RestoreReport): JournalRestoreRecord => ({
  desired_instance_count: freeze.journal.desired_instance_count,
  suspension_restored: freeze.journal.scalable_target_registered && restore.errors.length === 0,
  actions: restore.actions,
  errors: restore.errors,
});

/** A restore that failed makes the run fail (exit 1): the endpoint may still be frozen. */
export const restoreFailed = (restore: RestoreReport | null): boolean =>
  restore !== null && restore.errors.length > 0;
