/**
 * The freeze: hold a live endpoint at exactly one instance that cannot grow while it is measured,
 * and put everything back afterwards, on every exit path.
 *
 * Order matters. The thaw journal (what to restore) is written BEFORE anything changes, so a
 * hard kill leaves it behind for `scalegate thaw`. Then dynamic and scheduled scaling are
 * suspended (RegisterScalableTarget SuspendedState, min/max untouched), the desired count is
 * pinned to 1, and the run waits until one instance is InService. A fleet that could still grow is
 * refused. Restore sets back the exact captured desired count and suspension flags, then deletes
 * the journal (kept if any part failed, so thaw can finish the job).
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
import { UsageError } from '../model/errors.js';
import {
  ALL_SUSPENDED,
  deleteThawJournal,
  type RestoreReport,
  readThawJournal,
  type SuspendedStateRecord,
  type ThawJournal,
  thawJournalPath,
  writeThawJournal,
} from '../model/journal.js';
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
}

export function awsFreezeAdapters(
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
  endpoint: string,
  variant: string,
): FreezeAdapters {
  return {
    describeScalableTarget: (resourceId, options) =>
      describeScalableTarget(clients.autoscaling, resourceId, options),
    registerSuspendedState: (resourceId, state, options) =>
      registerSuspendedState(clients.autoscaling, resourceId, state, options),
    describeVariantCapacity: (options) =>
      describeVariantCapacity(clients.sagemaker, endpoint, variant, options),
    setDesiredInstanceCount: (desired, options) =>
      setDesiredInstanceCount(clients.sagemaker, endpoint, variant, desired, options),
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
  /** @default null */
  runId?: string | null;
  /** Longest wait for one InService instance, s. @default 1200 */
  waitTimeoutS?: number;
  /** DescribeEndpoint polling interval while waiting, ms. @default 2000 */
  pollIntervalMs?: number;
  /** Aborts the wait (SIGINT/SIGTERM); the freeze then restores and rethrows. @default no signal */
  signal?: AbortSignal;
  /** Progress lines (stderr in the CLI). @default silent */
  log?: (line: string) => void;
  /** How long restore may take, ms. @default 5000 */
  restoreDeadlineMs?: number;
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

/**
 * Restores what `journal` captured: desired count first (while scaling is still suspended, so
 * nothing races it), then the exact suspension flags; deletes the journal when both succeeded.
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
      await adapters.registerSuspendedState(journal.resource_id, journal.suspended_state, call);
      report.actions.push(`suspension flags restored (${describeFlags(journal.suspended_state)})`);
    } catch (e) {
      report.errors.push(`restoring the suspension flags: ${(e as Error).message}`);
    }
  }
  if (report.errors.length === 0) {
    deleteThawJournal(journal.endpoint, options.stateDir);
    report.journalDeleted = true;
  }
  return report;
}

/**
 * Freezes the variant at one instance. Throws (after restoring) when the endpoint cannot be
 * frozen; the caller must call `restore()` on every exit path once this resolved.
 */
export async function freezeEndpoint(options: FreezeOptions): Promise<Freeze> {
  const { endpoint, variant, region, adapters, signal } = options;
  const log = options.log ?? (() => {});
  const resourceId = variantResourceId(endpoint, variant);
  const call: CallOptions = signal ? { abortSignal: signal } : {};

  const leftover = readThawJournal(endpoint, options.stateDir);
  if (leftover) {
    throw new UsageError(
      `${thawJournalPath(endpoint, options.stateDir)}: a thaw journal from an earlier run (pid ${leftover.pid}, ` +
        `started ${leftover.started_at}, \`${leftover.command}\`) is still there: that run did not restore the endpoint. ` +
        `Run \`scalegate thaw --endpoint ${endpoint}\` first, then measure again.`,
    );
  }

  const interval = options.pollIntervalMs ?? 2000;
  const deadline = Date.now() + (options.waitTimeoutS ?? 1200) * 1000;
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
  const target = await adapters.describeScalableTarget(resourceId, call);
  if (capacity.endpointStatus !== 'InService') {
    throw new UsageError(
      `endpoint ${endpoint} is ${capacity.endpointStatus}${capacity.failureReason ? ` (${capacity.failureReason})` : ''}: ` +
        'only an InService endpoint can be measured.',
    );
  }
  if (capacity.desired === null) {
    throw new UsageError(`endpoint ${endpoint} variant ${variant} reports no desired instance count.`);
  }

  const journal: ThawJournal = {
    schema_version: 1,
    kind: 'thaw-journal',
    endpoint,
    variant,
    region,
    resource_id: resourceId,
    scalable_target_registered: target !== null,
    suspended_state: target ? target.suspended : null,
    min_capacity: target?.minCapacity ?? null,
    max_capacity: target?.maxCapacity ?? null,
    desired_instance_count: capacity.desired,
    started_at: new Date().toISOString(),
    pid: process.pid,
    hostname: hostname(),
    command: options.commandLine,
    run_id: options.runId ?? null,
  };
  const journalFile = writeThawJournal(journal, options.stateDir);
  log(`freeze: journal written to ${journalFile}`);

  let restored: Promise<RestoreReport> | null = null;
  const restore = (): Promise<RestoreReport> => {
    restored ??= restoreFromJournal(journal, adapters, {
      stateDir: options.stateDir,
      deadlineMs: options.restoreDeadlineMs ?? 5000,
    });
    return restored;
  };

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
        `endpoint ${endpoint} did not reach one InService instance within ${options.waitTimeoutS ?? 1200} s ` +
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
