/**
 * The freeze: hold a live endpoint at exactly one instance that cannot grow while it is measured,
 * and put everything back afterwards, on every exit path.
 *
 * Order matters. Before anything changes, the state is read twice around a look for another
 * run's freeze (a thaw journal on the endpoint, or scaling already suspended: both refused unless
 * `force`), so a freeze never records another freeze's frozen state as the original. Then the
 * thaw journal (what to restore) is written: the local file first, then the same journal as tags
 * on the endpoint (so `scalegate thaw` works from any machine after a lost runner, and a second
 * freeze anywhere sees this one), read back to be sure no other run wrote over it. Only then are
 * dynamic and scheduled scaling suspended (RegisterScalableTarget SuspendedState, min/max
 * untouched), the desired count pinned to 1, and the run waits until one instance is InService.
 * A fleet that could still grow is refused. Restore sets back the exact captured desired count
 * and suspension flags, then removes this run's journal from the endpoint and the disk (both kept
 * if any part failed, so thaw can finish the job).
 *
 * Used by qmax and ttotal; works against any FreezeAdapters (the AWS ones below, or a fake).
 */
import { hostname } from 'node:os';
import type { AwsClients } from '../aws/clients.js';
import {
  type CallOptions,
  describeVariantCapacity,
  setDesiredInstanceCount,
  type VariantCapacity,
} from '../aws/endpoint.js';
import {
  describeScalableTarget,
  registerSuspendedState,
  type ScalableTargetState,
  variantResourceId,
} from '../aws/scaling.js';
import { addResourceTags, deleteResourceTags, endpointArn, listResourceTags } from '../aws/tags.js';
import { opt, UsageError, usage } from '../model/errors.js';
import { newRunId } from '../model/ids.js';
import {
  ALL_SUSPENDED,
  deleteThawJournal,
  journalFromTags,
  journalTagKeys,
  journalTags,
  type RestoreReport,
  readThawJournal,
  type SuspendedStateRecord,
  type ThawJournal,
  thawJournalPath,
  writeThawJournal,
} from '../model/journal.js';
import { checkAwsName } from '../model/safe.js';
import { FREEZE_DEFAULTS } from '../options/common.js';
import { waitUntil } from '../wait.js';

export type { RestoreReport } from '../model/journal.js';

/** The calls a freeze needs, bound to one endpoint variant. */
export interface FreezeAdapters {
  describeScalableTarget(resourceId: string, options?: CallOptions): Promise<ScalableTargetState | null>;
  registerSuspendedState(
    resourceId: string,
    state: SuspendedStateRecord,
    options?: CallOptions,
  ): Promise<void>;
  describeVariantCapacity(options?: CallOptions): Promise<VariantCapacity>;
  setDesiredInstanceCount(desired: number, options?: CallOptions): Promise<void>;
  /** The endpoint's tags (where the journal travels with it). */
  readEndpointTags(options?: CallOptions): Promise<Record<string, string>>;
  addEndpointTags(tags: Record<string, string>, options?: CallOptions): Promise<void>;
  deleteEndpointTags(keys: string[], options?: CallOptions): Promise<void>;
}

export function awsFreezeAdapters(
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
  endpoint: string,
  variant: string,
): FreezeAdapters {
  let arn: string | null = null;
  const resolveArn = async (options?: CallOptions): Promise<string> => {
    arn ??= await endpointArn(clients.sagemaker, endpoint, options);
    return arn;
  };
  return {
    describeScalableTarget: (resourceId, options) =>
      describeScalableTarget(clients.autoscaling, resourceId, options),
    registerSuspendedState: (resourceId, state, options) =>
      registerSuspendedState(clients.autoscaling, resourceId, state, options),
    describeVariantCapacity: (options) =>
      describeVariantCapacity(clients.sagemaker, endpoint, variant, options),
    setDesiredInstanceCount: (desired, options) =>
      setDesiredInstanceCount(clients.sagemaker, endpoint, variant, desired, options),
    readEndpointTags: async (options) =>
      listResourceTags(clients.sagemaker, await resolveArn(options), options),
    addEndpointTags: async (tags, options) =>
      addResourceTags(clients.sagemaker, await resolveArn(options), tags, options),
    deleteEndpointTags: async (keys, options) =>
      deleteResourceTags(clients.sagemaker, await resolveArn(options), keys, options),
  };
}

export interface FreezeOptions {
  endpoint: string;
  variant: string;
  region: string;
  adapters: FreezeAdapters;
  /** Directory of the thaw journal. @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** The command line, recorded in the journal for whoever finds it. */
  commandLine: string;
  /** Identifies this run's journal (on disk and on the endpoint). @default a new run id */
  runId?: string | null;
  /**
   * Freeze although the scalable target is already suspended (the flags as they are are recorded
   * and restored) or another run's journal is on the endpoint (its recorded original state is
   * kept, never the frozen state). @default false
   */
  force?: boolean;
  /** Told where the journal goes, before it is written (the action keeps it for its post step). @default nothing */
  onJournal?: (entry: JournalEntryRef) => void;
  /** Longest wait for one InService instance, s. @default FREEZE_DEFAULTS.timeoutS */
  waitTimeoutS?: number;
  /** DescribeEndpoint polling interval while waiting, ms. @default FREEZE_DEFAULTS.pollIntervalMs */
  pollIntervalMs?: number;
  /** Aborts the wait (SIGINT/SIGTERM); the freeze then restores and rethrows. @default no signal */
  signal?: AbortSignal;
  /** Progress lines (stderr in the CLI). @default silent */
  log?: (line: string) => void;
  /** How long restore may take, ms. @default 5000 */
  restoreDeadlineMs?: number;
}

/** Where a freeze's journal is, and whose it is: what a later restore of this run needs. */
export interface JournalEntryRef {
  file: string;
  runId: string;
  endpoint: string;
  variant: string;
  region: string;
}

export interface Freeze {
  journal: ThawJournal;
  journalFile: string;
  /** Capacity once frozen (InService, one instance). */
  frozenCapacity: VariantCapacity;
  /** Undoes the freeze; idempotent (a second call returns the first call's report). */
  restore(): Promise<RestoreReport>;
}

const describeFlags = (s: SuspendedStateRecord): string =>
  `in=${s.dynamic_scaling_in_suspended}, out=${s.dynamic_scaling_out_suspended}, scheduled=${s.scheduled_scaling_suspended}`;

const allSuspended = (s: SuspendedStateRecord): boolean =>
  s.dynamic_scaling_in_suspended && s.dynamic_scaling_out_suspended && s.scheduled_scaling_suspended;

export const anySuspended = (s: SuspendedStateRecord): boolean =>
  s.dynamic_scaling_in_suspended || s.dynamic_scaling_out_suspended || s.scheduled_scaling_suspended;

/** `run R (pid P on H, started S, `cmd`)`: who left a journal, for the human deciding what to do. */
export const describeJournalOwner = (j: ThawJournal): string =>
  `run ${j.run_id ?? '(no id)'} (pid ${j.pid}${j.hostname ? ` on ${j.hostname}` : ''}, started ${j.started_at}, \`${j.command}\`)`;

/**
 * Removes `journal`'s tags from the endpoint, if the endpoint still carries that journal (a
 * journal another run wrote in its place is left alone). Returns what it did, for the report.
 */
export async function removeJournalTags(
  journal: ThawJournal,
  adapters: FreezeAdapters,
  options: CallOptions = {},
): Promise<string> {
  const tags = await adapters.readEndpointTags(options);
  const keys = journalTagKeys(tags);
  if (keys.length === 0) return 'no journal on the endpoint';
  let onEndpoint: ThawJournal | null;
  try {
    onEndpoint = journalFromTags(tags, `endpoint ${journal.endpoint}`);
  } catch {
    onEndpoint = null;
  }
  if (onEndpoint && onEndpoint.run_id !== journal.run_id) {
    return `the endpoint carries another run's journal (${describeJournalOwner(onEndpoint)}): left in place`;
  }
  await adapters.deleteEndpointTags(keys, options);
  return 'journal removed from the endpoint';
}

/**
 * Restores what `journal` captured: desired count first (while scaling is still suspended, so
 * nothing races it), then the exact suspension flags; then removes this journal from the
 * endpoint's tags and from the disk, both only when everything before succeeded.
 */
export async function restoreFromJournal(
  journal: ThawJournal,
  adapters: FreezeAdapters,
  options: { stateDir?: string; deadlineMs?: number; signal?: AbortSignal } = {},
): Promise<RestoreReport> {
  const report: RestoreReport = { actions: [], errors: [], journalDeleted: false };
  const deadline = AbortSignal.timeout(options.deadlineMs ?? 5000);
  const call: CallOptions = {
    abortSignal: options.signal ? AbortSignal.any([deadline, options.signal]) : deadline,
  };
  try {
    const capacity = await adapters.describeVariantCapacity(call);
    if (capacity.desired !== journal.desired_instance_count) {
      await adapters.setDesiredInstanceCount(journal.desired_instance_count, call);
      report.actions.push(
        `desired instance count ${capacity.desired ?? '?'} -> ${journal.desired_instance_count}`,
      );
    } else {
      report.actions.push(`desired instance count already ${journal.desired_instance_count}`);
    }
  } catch (e) {
    report.errors.push(
      `restoring the desired instance count (${journal.desired_instance_count}): ${(e as Error).message}`,
    );
  }
  if (journal.scalable_target_registered && journal.suspended_state) {
    try {
      // The resource id is rebuilt from the (validated) endpoint and variant, never taken as written.
      const resourceId = variantResourceId(journal.endpoint, journal.variant);
      await adapters.registerSuspendedState(resourceId, journal.suspended_state, call);
      report.actions.push(`suspension flags restored (${describeFlags(journal.suspended_state)})`);
    } catch (e) {
      report.errors.push(`restoring the suspension flags: ${(e as Error).message}`);
    }
  }
  if (report.errors.length === 0) {
    try {
      report.actions.push(await removeJournalTags(journal, adapters, call));
    } catch (e) {
      report.errors.push(`removing the journal from the endpoint's tags: ${(e as Error).message}`);
    }
  }
  if (report.errors.length === 0) {
    deleteThawJournal(journal.endpoint, options.stateDir, journal.run_id);
    report.journalDeleted = true;
  }
  return report;
}

/** What a freeze reads before changing anything; read twice, it must not move. */
interface CapturedState {
  capacity: VariantCapacity;
  target: ScalableTargetState | null;
}

const sameState = (a: CapturedState, b: CapturedState): boolean =>
  a.capacity.desired === b.capacity.desired &&
  (a.target === null) === (b.target === null) &&
  (a.target === null || JSON.stringify(a.target.suspended) === JSON.stringify(b.target?.suspended));

/**
 * Freezes the variant at one instance. Throws (after restoring) when the endpoint cannot be
 * frozen; the caller must call `restore()` on every exit path once this resolved.
 */
export async function freezeEndpoint(options: FreezeOptions): Promise<Freeze> {
  const { endpoint, variant, region, adapters, signal } = options;
  checkAwsName(endpoint, 'endpoint', 'endpoint');
  checkAwsName(variant, 'variant', 'variant');
  const log = options.log ?? (() => {});
  const force = options.force === true;
  const runId = options.runId ?? newRunId();
  const resourceId = variantResourceId(endpoint, variant);
  const call: CallOptions = signal ? { abortSignal: signal } : {};
  const thaw = `scalegate thaw --endpoint ${endpoint}`;

  const journalFile = thawJournalPath(endpoint, options.stateDir);
  const leftover = readThawJournal(endpoint, options.stateDir);
  if (leftover && !force) {
    throw usage`${journalFile}: a thaw journal from an earlier run (${describeJournalOwner(leftover)}) is still there: that run did not restore the endpoint. Run \`${thaw}\` first (it restores only what a journal recorded), then measure again; or measure anyway with ${opt('force')}.`;
  }

  const interval = options.pollIntervalMs ?? FREEZE_DEFAULTS.pollIntervalMs;
  const deadline = Date.now() + (options.waitTimeoutS ?? FREEZE_DEFAULTS.timeoutS) * 1000;
  const wait = { deadline, interval, signal, log: (line: string) => log(`freeze: ${line}`) };
  // An endpoint mid-update cannot take a capacity change: wait (changing nothing) until it settles.
  let capacity = await adapters.describeVariantCapacity(call);
  const settling = (c: VariantCapacity) => c.endpointStatus === 'Updating' || c.endpointStatus === 'Creating';
  if (settling(capacity)) {
    await waitUntil(
      `endpoint ${endpoint} to finish ${capacity.endpointStatus} before freezing`,
      async () => {
        capacity = await adapters.describeVariantCapacity(call);
        return settling(capacity) ? undefined : capacity;
      },
      { ...wait, pauseFirst: true },
    );
  }
  const first: CapturedState = { capacity, target: await adapters.describeScalableTarget(resourceId, call) };
  if (capacity.endpointStatus !== 'InService') {
    throw new UsageError(
      `endpoint ${endpoint} is ${capacity.endpointStatus}${capacity.failureReason ? ` (${capacity.failureReason})` : ''}: ` +
        'only an InService endpoint can be measured.',
    );
  }
  if (capacity.desired === null) {
    throw new UsageError(`endpoint ${endpoint} variant ${variant} reports no desired instance count.`);
  }

  // Another run's freeze? Its journal is on the endpoint before it changes anything, and any change
  // it made shows in the state read above, so looking after reading catches every freeze begun earlier.
  const onEndpoint = journalFromTags(await adapters.readEndpointTags(call), `endpoint ${endpoint}`);
  if (onEndpoint && (onEndpoint.endpoint !== endpoint || onEndpoint.variant !== variant)) {
    throw new UsageError(
      `endpoint ${endpoint}: the thaw journal in its tags is for ${onEndpoint.endpoint}/${onEndpoint.variant}, not ${endpoint}/${variant}; remove it (aws sagemaker delete-tags) before measuring.`,
    );
  }
  if (onEndpoint && !force) {
    throw usage`endpoint ${endpoint} is already frozen by another run: its thaw journal is on the endpoint (${describeJournalOwner(onEndpoint)}). Freezing it again would record its frozen state as the original. Wait for that run to finish; if it is gone, restore with \`${thaw}\` (from any machine); or measure under it with ${opt('force')} (its recorded original state is kept).`;
  }
  if (first.target && anySuspended(first.target.suspended) && !onEndpoint && !force) {
    throw usage`${resourceId} already has scaling suspended (${describeFlags(first.target.suspended)}) and carries no thaw journal: someone suspended it on purpose, or a freeze lost its journal. Check with \`scalegate drift\`; if it is a leftover, \`${thaw} --clear-suspension\` clears it; or measure anyway with ${opt('force')} (the flags as they are now are recorded and restored).`;
  }
  const second: CapturedState = {
    capacity: await adapters.describeVariantCapacity(call),
    target: await adapters.describeScalableTarget(resourceId, call),
  };
  if (!sameState(first, second)) {
    throw new UsageError(
      `endpoint ${endpoint} changed while its state was being recorded (desired ${first.capacity.desired} -> ${second.capacity.desired}, suspension ${first.target ? describeFlags(first.target.suspended) : 'no target'} -> ${second.target ? describeFlags(second.target.suspended) : 'no target'}): another run is freezing it, or its scaling policy is acting. Nothing was changed; run again once it is quiet.`,
    );
  }

  // The original state: as read, unless another run's journal already recorded it (forced).
  const original = onEndpoint ?? {
    scalable_target_registered: first.target !== null,
    suspended_state: first.target ? first.target.suspended : null,
    min_capacity: first.target?.minCapacity ?? null,
    max_capacity: first.target?.maxCapacity ?? null,
    desired_instance_count: capacity.desired,
  };
  if (onEndpoint)
    log(`freeze: --force: keeping the original state recorded by ${describeJournalOwner(onEndpoint)}`);
  if (leftover) log(`freeze: --force: replacing the local journal of ${describeJournalOwner(leftover)}`);
  const journal: ThawJournal = {
    schema_version: 1,
    kind: 'thaw-journal',
    endpoint,
    variant,
    region,
    resource_id: resourceId,
    scalable_target_registered: original.scalable_target_registered,
    suspended_state: original.suspended_state,
    min_capacity: original.min_capacity,
    max_capacity: original.max_capacity,
    desired_instance_count: original.desired_instance_count,
    started_at: new Date().toISOString(),
    pid: process.pid,
    hostname: hostname(),
    command: options.commandLine,
    run_id: runId,
  };
  options.onJournal?.({ file: journalFile, runId, endpoint, variant, region });
  writeThawJournal(journal, options.stateDir);
  log(`freeze: journal written to ${journalFile}`);
  try {
    await adapters.addEndpointTags(journalTags(journal), call);
    const back = journalFromTags(await adapters.readEndpointTags(call), `endpoint ${endpoint}`);
    if (back?.run_id !== runId) {
      throw new UsageError(
        `endpoint ${endpoint}: another run wrote its thaw journal over this one${back ? ` (${describeJournalOwner(back)})` : ''}: two freezes started at once. Nothing was changed by this run; let the other finish (or \`${thaw}\` if it is gone), then measure again.`,
      );
    }
  } catch (e) {
    // Nothing has changed yet: this run's journal goes, and whatever another run wrote stays.
    deleteThawJournal(endpoint, options.stateDir, runId);
    if (e instanceof UsageError) throw e;
    throw new Error(
      `writing the thaw journal to endpoint ${endpoint}'s tags failed (${(e as Error).name}: ${(e as Error).message}); nothing was changed. A freeze needs sagemaker:AddTags, sagemaker:ListTags and sagemaker:DeleteTags on the endpoint.`,
      { cause: e },
    );
  }
  log(`freeze: journal written to endpoint ${endpoint}'s tags`);

  let restored: Promise<RestoreReport> | null = null;
  const restore = (): Promise<RestoreReport> => {
    restored ??= restoreFromJournal(journal, adapters, {
      stateDir: options.stateDir,
      deadlineMs: options.restoreDeadlineMs ?? 5000,
    });
    return restored;
  };

  const target = first.target;
  try {
    if (target) {
      await adapters.registerSuspendedState(resourceId, ALL_SUSPENDED, call);
      log(`freeze: dynamic and scheduled scaling suspended on ${resourceId} (min/max untouched)`);
    } else {
      log(`freeze: ${resourceId} has no scalable target (nothing can scale it)`);
    }
    if (capacity.desired !== 1) {
      await adapters.setDesiredInstanceCount(1, call);
      log(`freeze: desired instance count ${capacity.desired} -> 1`);
    }
    let current = capacity;
    const frozen = await waitUntil(
      `one InService instance of ${endpoint}/${variant}`,
      async () => {
        current = await adapters.describeVariantCapacity(call);
        if (current.endpointStatus === 'Failed' || current.endpointStatus === 'OutOfService') {
          throw new Error(
            `endpoint ${endpoint} became ${current.endpointStatus} while freezing: ${current.failureReason ?? ''}`,
          );
        }
        return current.endpointStatus === 'InService' && current.desired === 1 && current.current === 1
          ? current
          : undefined;
      },
      wait,
    );
    if (!frozen) {
      throw new Error(
        `endpoint ${endpoint} did not reach one InService instance within ${options.waitTimeoutS ?? FREEZE_DEFAULTS.timeoutS} s ` +
          `(status ${current.endpointStatus}, desired ${current.desired}, current ${current.current})`,
      );
    }
    if (target) {
      const after = await adapters.describeScalableTarget(resourceId, call);
      if (!after || !allSuspended(after.suspended)) {
        throw new UsageError(
          `refusing to measure: ${resourceId} can still scale (suspension flags after the freeze: ` +
            `${after ? describeFlags(after.suspended) : 'target gone'}). Check who else manages this scalable target.`,
        );
      }
    }
    log(`freeze: ${endpoint}/${variant} frozen at one InService instance`);
    return { journal, journalFile, frozenCapacity: frozen, restore };
  } catch (e) {
    const report = await restore();
    // The caller never got a Freeze to restore: tell it what was put back.
    if (e !== null && typeof e === 'object') (e as { restore?: RestoreReport }).restore = report;
    if (report.errors.length > 0) {
      const why = (e as Error).message;
      throw Object.assign(
        new Error(
          `${why}\nrestoring after the failed freeze also failed: ${report.errors.join('; ')}; the journal ${journalFile} is kept: run \`scalegate thaw --endpoint ${endpoint}\``,
        ),
        { cause: e },
      );
    }
    throw e;
  }
}

export interface SignalGuard {
  /** The signal received, if any. */
  readonly received: NodeJS.Signals | null;
  remove(): void;
}

/**
 * While installed, SIGINT and SIGTERM abort `controller` instead of killing the process, so the
 * freeze is restored on the way out. A repeated signal is reported and ignored until removal.
 */
export function installSignalGuard(
  controller: AbortController,
  log: (line: string) => void = () => {},
): SignalGuard {
  let received: NodeJS.Signals | null = null;
  const handler = (signal: NodeJS.Signals) => {
    if (received) {
      log(`${signal} again: still restoring the endpoint, please wait`);
      return;
    }
    received = signal;
    log(`${signal}: stopping the load and restoring the endpoint`);
    controller.abort(new InterruptedError(signal));
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    get received() {
      return received;
    },
    remove: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}

/** The run was interrupted by a signal; the freeze has been restored (see `restore`). */
export class InterruptedError extends Error {
  restore: RestoreReport | null = null;
  constructor(readonly signal: NodeJS.Signals) {
    super(`interrupted by ${signal}`);
    this.name = 'InterruptedError';
  }
  /** Conventional exit status for death by this signal: 128 + its number. */
  get exitCode(): number {
    return this.signal === 'SIGINT' ? 130 : this.signal === 'SIGTERM' ? 143 : 1;
  }
}

/** How a freezing command is stopped: the caller's signal, and SIGINT/SIGTERM while it is installed. */
export interface FreezeAbort {
  readonly signal: AbortSignal;
  /** The process signal received, if any (the command then throws InterruptedError). */
  readonly received: NodeJS.Signals | null;
  /** Removes the signal handlers and the listener on the caller's signal. */
  dispose(): void;
}

/**
 * Every command that freezes installs its own restore-on-signal guard: SIGINT/SIGTERM (when
 * `guardSignals`) and the caller's `external` signal both abort the returned signal, so the
 * command restores the endpoint on the way out instead of dying frozen.
 */
export function freezeAbort(
  external: AbortSignal | undefined,
  guardSignals: boolean,
  log: (line: string) => void,
): FreezeAbort {
  const controller = new AbortController();
  const onExternal = () => controller.abort(external?.reason ?? new Error('aborted'));
  if (external?.aborted) onExternal();
  else external?.addEventListener('abort', onExternal, { once: true });
  const guard = guardSignals ? installSignalGuard(controller, log) : null;
  return {
    signal: controller.signal,
    get received() {
      return guard?.received ?? null;
    },
    dispose: () => {
      guard?.remove();
      external?.removeEventListener('abort', onExternal);
    },
  };
}
