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
import type { CallOptions, VariantCapacity } from '../aws/endpoint.js';
import { type ScalableTargetState, variantResourceId } from '../aws/scaling.js';
import { opt, UsageError, usage } from '../model/errors.js';
import { type FreezeClaim, HEARTBEAT_DEFAULTS } from '../model/freeze-claim.js';
import { newRunId } from '../model/ids.js';
import {
  ALL_SUSPENDED,
  deleteThawJournal,
  journalFromTags,
  journalTags,
  type RestoreReport,
  readThawJournal,
  type ThawJournal,
  thawJournalPath,
  writeThawJournal,
} from '../model/journal.js';
import { checkAwsName } from '../model/safe.js';
import { FREEZE_DEFAULTS } from '../options/common.js';
import { waitUntil } from '../wait.js';
import {
  allSuspended,
  anySuspended,
  describeFlags,
  describeJournalOwner,
  type FreezeAdapters,
} from './freeze-adapters.js';
import {
  checkFreezeHeld,
  claimEndpoint,
  heldByAnother,
  otherFreshClaims,
  startClaimHeartbeat,
} from './freeze-claim.js';
import { RESTORE_DEFAULTS, removeClaimTag, restoreFromJournal } from './freeze-restore.js';

export type { RestoreReport } from '../model/journal.js';
export {
  anySuspended,
  awsFreezeAdapters,
  describeJournalOwner,
  type FreezeAdapters,
  icFreezeAdapters,
  journalComponent,
} from './freeze-adapters.js';
export { FreezeLostError } from './freeze-claim.js';
export { RESTORE_DEFAULTS, removeJournalTags, restoreFromJournal } from './freeze-restore.js';

export interface FreezeOptions {
  /** The count pinned while frozen (a component's copies). @default 1 (one instance) */
  pin?: number;
  endpoint: string;
  variant: string;
  region: string;
  adapters: FreezeAdapters;
  /** Directory of the thaw journal. @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** The command line, recorded in the journal for whoever finds it. */
  commandLine: string;
  /** Identifies this run's journal and claim (on disk and on the endpoint). @default a new run id */
  runId?: string | null;
  /**
   * Freeze although the scalable target is already suspended (the flags as they are are recorded
   * and restored) or a gone run's journal is on the endpoint (its recorded original state is
   * kept, never the frozen state). Never over a run whose claim is fresh. @default false
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
  /** The claim's heartbeat period, ms (a claim is stale after three). @default HEARTBEAT_DEFAULTS.everyMs */
  heartbeatMs?: number;
  /** Told, once, when the heartbeat finds this run's claim removed (the measurement must stop). @default nothing */
  onLost?: (reason: string) => void;
  /** The clock claims and heartbeats are stamped with, ms. @default Date.now */
  clock?: () => number;
  /** This machine's name, in the journal and the claim. @default os.hostname() */
  host?: string;
  /** Overall budget of a restore, ms. @default RESTORE_DEFAULTS.budgetMs */
  restoreBudgetMs?: number;
  /** Overall budget of a restore after an interruption, ms. @default RESTORE_DEFAULTS.interruptedBudgetMs */
  interruptedRestoreBudgetMs?: number;
  /** One restore call's longest wait before it is retried, ms. @default RESTORE_DEFAULTS.callTimeoutMs */
  restoreCallTimeoutMs?: number;
  /** Polling while a restore waits out an Updating endpoint, and between its retries, ms. @default RESTORE_DEFAULTS.pollIntervalMs */
  restorePollIntervalMs?: number;
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
  /** This run's claim on the endpoint (kept fresh by its heartbeat until the restore). */
  claim: FreezeClaim;
  /** Capacity once frozen (InService, one instance). */
  frozenCapacity: VariantCapacity;
  /**
   * Why the endpoint is no longer frozen by this run as it froze it (claim or journal gone,
   * scaling resumed, and with `capacity` not at one InService instance), or null when it is.
   */
  check(options?: { capacity?: boolean; signal?: AbortSignal }): Promise<string | null>;
  /**
   * Undoes the freeze (stops the heartbeat first); idempotent: a second call returns the first
   * call's report. `interrupted`: within the short budget a signal leaves.
   */
  restore(options?: { interrupted?: boolean }): Promise<RestoreReport>;
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

/** Attaches what was put back to an error (the caller never got a Freeze to restore). */
function withRestore(e: unknown, report: RestoreReport): unknown {
  if (e !== null && typeof e === 'object') (e as { restore?: RestoreReport }).restore = report;
  return e;
}

/**
 * Freezes the variant at one instance. Throws (after restoring, the report attached to the error
 * as `restore`) when the endpoint cannot be frozen; the caller must call `restore()` on every exit
 * path once this resolved.
 */
export async function freezeEndpoint(options: FreezeOptions): Promise<Freeze> {
  const { endpoint, variant, region, adapters, signal } = options;
  checkAwsName(endpoint, 'endpoint', 'endpoint');
  checkAwsName(variant, 'variant', 'variant');
  const log = options.log ?? (() => {});
  const force = options.force === true;
  const runId = options.runId ?? newRunId();
  const clock = options.clock ?? Date.now;
  const host = options.host ?? hostname();
  const heartbeatMs = options.heartbeatMs ?? HEARTBEAT_DEFAULTS.everyMs;
  const resourceId = adapters.resourceId ?? variantResourceId(endpoint, variant);
  // A component is pinned at its measured copy count; a variant at one instance.
  const pin = options.pin ?? 1;
  const unit = adapters.resourceId ? 'copies' : 'instance count';
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

  // Another run's freeze? Its claim and journal are on the endpoint before it changes anything, and
  // any change it made shows in the state read above, so looking after reading catches every freeze
  // begun earlier. A run whose claim is fresh is measuring: never frozen over, --force or not.
  const tags = await adapters.readEndpointTags(call);
  const holder = otherFreshClaims(tags, runId, clock(), heartbeatMs).find((c) => c.phase === 'claim');
  if (holder) throw heldByAnother(endpoint, holder, clock());
  const onEndpoint = journalFromTags(tags, `endpoint ${endpoint}`);
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
  const readState = async (): Promise<CapturedState> => ({
    capacity: await adapters.describeVariantCapacity(call),
    target: await adapters.describeScalableTarget(resourceId, call),
  });
  const moved = (second: CapturedState, when: string) =>
    new UsageError(
      `endpoint ${endpoint} changed ${when} (desired ${first.capacity.desired} -> ${second.capacity.desired}, suspension ${first.target ? describeFlags(first.target.suspended) : 'no target'} -> ${second.target ? describeFlags(second.target.suspended) : 'no target'}): another run is freezing it, or its scaling policy is acting. Nothing was changed; run again once it is quiet.`,
    );
  const second = await readState();
  if (!sameState(first, second)) throw moved(second, 'while its state was being recorded');

  // The arbitration: of runs starting together, exactly one goes on (freeze-claim.ts).
  const claimSpec = {
    endpoint,
    runId,
    host,
    adapters,
    heartbeatMs,
    clock,
    pollIntervalMs: Math.min(interval, 1000),
    call,
    signal,
    log,
  };
  const claim = await claimEndpoint(claimSpec);
  const heartbeat = startClaimHeartbeat({
    ...claimSpec,
    claim,
    onLost: (reason) => options.onLost?.(reason),
  });
  /** Before the journal is on the endpoint: nothing changed, the claim goes. */
  const releaseUnchanged = async (): Promise<RestoreReport> => {
    await heartbeat.stop();
    const report: RestoreReport = { actions: [], errors: [], journalDeleted: true, nothingChanged: true };
    try {
      const removed = await removeClaimTag(runId, adapters, { abortSignal: AbortSignal.timeout(5_000) });
      report.actions.push(removed ?? `run ${runId}'s freeze claim was already gone`);
    } catch (e) {
      report.errors.push(`removing run ${runId}'s freeze claim: ${(e as Error).message}`);
    }
    deleteThawJournal(endpoint, options.stateDir, runId);
    return report;
  };
  try {
    // Won: the state must still be the one recorded (a run that finished meanwhile would show).
    const third = await readState();
    if (!sameState(first, third)) throw moved(third, 'while this run claimed it');
  } catch (e) {
    throw withRestore(e, await releaseUnchanged());
  }

  // The original state: as read, unless another run's journal already recorded it (forced).
  const original = onEndpoint ?? {
    scalable_target_registered: first.target !== null,
    suspended_state: first.target ? first.target.suspended : null,
    min_capacity: first.target?.minCapacity ?? null,
    max_capacity: first.target?.maxCapacity ?? null,
    desired_instance_count: capacity.desired,
  };
  if (onEndpoint) {
    log(`freeze: --force: keeping the original state recorded by ${describeJournalOwner(onEndpoint)}`);
    // That run is gone (its claim, if any, is stale): its claim goes with its journal.
    if (onEndpoint.run_id && onEndpoint.run_id !== runId) {
      const removed = await removeClaimTag(onEndpoint.run_id, adapters, call).catch(() => null);
      if (removed) log(`freeze: --force: ${removed}`);
    }
  }
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
    hostname: host,
    command: options.commandLine,
    run_id: runId,
  };
  try {
    options.onJournal?.({ file: journalFile, runId, endpoint, variant, region });
    writeThawJournal(journal, options.stateDir);
    log(`freeze: journal written to ${journalFile}`);
    await adapters.addEndpointTags(journalTags(journal), call);
    const back = journalFromTags(await adapters.readEndpointTags(call), `endpoint ${endpoint}`);
    if (back?.run_id !== runId) {
      throw new UsageError(
        `endpoint ${endpoint}: another run wrote its thaw journal over this one${back ? ` (${describeJournalOwner(back)})` : ''}: two freezes started at once. Nothing was changed by this run; let the other finish (or \`${thaw}\` if it is gone), then measure again.`,
      );
    }
  } catch (e) {
    // Nothing has changed yet: this run's journal and claim go, and whatever another run wrote stays.
    const report = await releaseUnchanged();
    if (e instanceof UsageError || signal?.aborted) throw withRestore(e, report);
    throw withRestore(
      new Error(
        `writing the thaw journal to endpoint ${endpoint}'s tags failed (${(e as Error).name}: ${(e as Error).message}); nothing was changed. A freeze needs sagemaker:AddTags, sagemaker:ListTags and sagemaker:DeleteTags on the endpoint.`,
        { cause: e },
      ),
      report,
    );
  }
  log(`freeze: journal written to endpoint ${endpoint}'s tags`);

  let restored: Promise<RestoreReport> | null = null;
  const restore = (how: { interrupted?: boolean } = {}): Promise<RestoreReport> => {
    restored ??= heartbeat.stop().then(() =>
      restoreFromJournal(journal, adapters, {
        stateDir: options.stateDir,
        budgetMs: how.interrupted
          ? (options.interruptedRestoreBudgetMs ?? RESTORE_DEFAULTS.interruptedBudgetMs)
          : (options.restoreBudgetMs ?? RESTORE_DEFAULTS.budgetMs),
        callTimeoutMs: options.restoreCallTimeoutMs,
        pollIntervalMs: options.restorePollIntervalMs,
        log,
      }),
    );
    return restored;
  };
  const check = (how: { capacity?: boolean; signal?: AbortSignal } = {}) =>
    checkFreezeHeld({
      adapters,
      endpoint,
      variant,
      runId,
      targetRegistered: first.target !== null,
      capacity: how.capacity !== false,
      pin,
      call: how.signal ? { abortSignal: how.signal } : call,
    });

  const target = first.target;
  try {
    if (target) {
      await adapters.registerSuspendedState(resourceId, ALL_SUSPENDED, call);
      log(`freeze: dynamic and scheduled scaling suspended on ${resourceId} (min/max untouched)`);
    } else {
      log(`freeze: ${resourceId} has no scalable target (nothing can scale it)`);
    }
    if (capacity.desired !== pin) {
      await adapters.setDesiredInstanceCount(pin, call);
      log(`freeze: desired ${unit} ${capacity.desired} -> ${pin}`);
    }
    let current = capacity;
    const frozen = await waitUntil(
      adapters.resourceId
        ? `${pin} copies of ${resourceId} serving`
        : `one InService instance of ${endpoint}/${variant}`,
      async () => {
        current = await adapters.describeVariantCapacity(call);
        if (current.endpointStatus === 'Failed' || current.endpointStatus === 'OutOfService') {
          throw new Error(
            `endpoint ${endpoint} became ${current.endpointStatus} while freezing: ${current.failureReason ?? ''}`,
          );
        }
        return current.endpointStatus === 'InService' && current.desired === pin && current.current === pin
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
    return { journal, journalFile, claim, frozenCapacity: frozen, check, restore };
  } catch (e) {
    const report = await restore({ interrupted: signal?.aborted === true });
    // Interrupted: the signal's own error carries the report (the caller says what was restored).
    if (report.errors.length > 0 && !signal?.aborted) {
      const why = (e as Error).message;
      throw withRestore(
        Object.assign(
          new Error(
            `${why}\nrestoring after the failed freeze also failed: ${report.errors.join('; ')}; the journal ${journalFile} is kept: run \`scalegate thaw --endpoint ${endpoint}\``,
          ),
          { cause: e },
        ),
        report,
      );
    }
    throw withRestore(e, report);
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
