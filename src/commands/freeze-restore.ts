/**
 * Putting back what a freeze's journal recorded, within a budget, never losing what was done.
 *
 * Order: the desired count first (while scaling is still suspended, so nothing races it), after
 * waiting out an `Updating` endpoint (a drain in progress cannot take a capacity change); then the
 * exact suspension flags; then the run's claim tag; then, only when all of that succeeded, the
 * journal's tags and the local journal file. Every call is retried (throttling, 5xx, a slow answer
 * cut by the per-call timeout) until the overall budget runs out; what could not be done within it
 * is an error of the report, and the journal stays for `scalegate thaw` (or the action's post step).
 * A restore never throws: whatever fails is in the report it returns.
 */
import type { CallOptions, VariantCapacity } from '../aws/endpoint.js';
import { isUsageError } from '../model/errors.js';
import { claimTagKey } from '../model/freeze-claim.js';
import {
  deleteThawJournal,
  journalFromTags,
  journalTagKeys,
  type RestoreReport,
  type ThawJournal,
} from '../model/journal.js';
import { waitUntil } from '../wait.js';
import { describeFlags, describeJournalOwner, type FreezeAdapters } from './freeze-adapters.js';

export const RESTORE_DEFAULTS = {
  /** Overall budget of a restore after a measurement ended or failed, ms (waits out a drain). */
  budgetMs: 180_000,
  /**
   * Budget after SIGINT/SIGTERM, ms: GitHub Actions sends SIGKILL about 7.5 s after cancelling
   * (10 s after its first signal), so the essential calls must be done well within that.
   */
  interruptedBudgetMs: 6_000,
  /** One call's longest wait before it is cut and retried, ms. */
  callTimeoutMs: 5_000,
  /** DescribeEndpoint polling while the endpoint is Updating, and the pause between retries, ms. */
  pollIntervalMs: 500,
} as const;

/** Of the budget, what the waits for an `Updating` endpoint leave for the calls after them, ms. */
const RESERVED_AFTER_WAIT_MS = 1_500;

export interface RestoreOptions {
  stateDir?: string;
  /** @default RESTORE_DEFAULTS.budgetMs */
  budgetMs?: number;
  /** @default RESTORE_DEFAULTS.callTimeoutMs */
  callTimeoutMs?: number;
  /** @default RESTORE_DEFAULTS.pollIntervalMs */
  pollIntervalMs?: number;
  /** Aborts the restore (thaw's caller). @default none: a freeze's restore is never cut short by the signal that stopped it */
  signal?: AbortSignal;
  /** @default Date.now */
  clock?: () => number;
  /** Progress lines. @default silent */
  log?: (line: string) => void;
}

/** AWS answers that a retry does not change. */
function retryable(e: unknown): boolean {
  if (isUsageError(e)) return false;
  const { name = '', message = '' } = e as { name?: string; message?: string };
  if (
    /AccessDenied|UnrecognizedClient|InvalidSignature|ObjectNotFound|ResourceNotFound/.test(
      `${name}: ${message}`,
    )
  )
    return false;
  if (name === 'ValidationException') return /in-progress|Updating|Creating/i.test(message);
  return true;
}

interface Budget {
  deadline: number;
  callTimeoutMs: number;
  pollIntervalMs: number;
  clock: () => number;
  signal?: AbortSignal;
  log: (line: string) => void;
}

/**
 * `fn`, retried (after a pause) while it fails with a retryable error and the budget lasts; each
 * attempt is cut after `callTimeoutMs` (or what is left of the budget). Throws the last error,
 * saying how many attempts it took.
 */
export async function withRetry<T>(
  label: string,
  fn: (call: CallOptions) => Promise<T>,
  budget: Budget,
): Promise<T> {
  let attempts = 0;
  let last: unknown = null;
  const answer = await waitUntil(
    `${label} to succeed`,
    async () => {
      const left = budget.deadline - budget.clock();
      // The first attempt always gets a real chance, even with the budget spent on a wait before it.
      const slice = Math.min(budget.callTimeoutMs, attempts === 0 ? Math.max(left, 1000) : left);
      if (slice <= 0) return undefined;
      attempts += 1;
      const timeout = AbortSignal.timeout(slice);
      const abortSignal = budget.signal ? AbortSignal.any([timeout, budget.signal]) : timeout;
      try {
        return { value: await fn({ abortSignal }) };
      } catch (e) {
        if (budget.signal?.aborted) throw e;
        last = timeout.aborted ? new Error(`no answer within ${Math.round(budget.callTimeoutMs)} ms`) : e;
        if (!retryable(last)) throw last;
        budget.log(`${label}: attempt ${attempts} failed (${(last as Error).message}); retrying`);
        return undefined;
      }
    },
    {
      deadline: budget.deadline,
      interval: budget.pollIntervalMs,
      signal: budget.signal,
      clock: budget.clock,
    },
  );
  if (answer) return answer.value;
  const why = last instanceof Error ? last.message : String(last);
  throw new Error(`${why} (${attempts} attempt${attempts === 1 ? '' : 's'} within the restore's budget)`);
}

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The keys of `journal` on the endpoint, unless the endpoint carries another run's journal. */
function ownJournalKeys(
  journal: ThawJournal,
  tags: Record<string, string>,
): { keys: string[]; said: string } {
  const keys = journalTagKeys(tags);
  if (keys.length === 0) return { keys, said: 'no journal on the endpoint' };
  let onEndpoint: ThawJournal | null;
  try {
    onEndpoint = journalFromTags(tags, `endpoint ${journal.endpoint}`);
  } catch {
    onEndpoint = null;
  }
  if (onEndpoint && onEndpoint.run_id !== journal.run_id) {
    return {
      keys: [],
      said: `the endpoint carries another run's journal (${describeJournalOwner(onEndpoint)}): left in place`,
    };
  }
  return { keys, said: 'journal removed from the endpoint' };
}

/**
 * Removes `journal`'s tags from the endpoint, if the endpoint still carries that journal (a
 * journal another run wrote in its place is left alone). Returns what it did, for the report.
 */
export async function removeJournalTags(
  journal: ThawJournal,
  adapters: FreezeAdapters,
  options: CallOptions = {},
): Promise<string> {
  const { keys, said } = ownJournalKeys(journal, await adapters.readEndpointTags(options));
  await adapters.deleteEndpointTags(keys, options);
  return said;
}

/** Removes run `runId`'s claim tag (if the endpoint carries it). */
export async function removeClaimTag(
  runId: string,
  adapters: FreezeAdapters,
  options: CallOptions = {},
): Promise<string | null> {
  const key = claimTagKey(runId);
  const tags = await adapters.readEndpointTags(options);
  if (!(key in tags)) return null;
  await adapters.deleteEndpointTags([key], options);
  return `run ${runId}'s freeze claim removed from the endpoint`;
}

/** The run's claim, and (with `journal`) its journal, in one ListTags and one DeleteTags. */
async function removeRunTags(
  journal: ThawJournal,
  adapters: FreezeAdapters,
  what: { journal: boolean },
  options: CallOptions,
): Promise<string[]> {
  const tags = await adapters.readEndpointTags(options);
  const said: string[] = [];
  const keys: string[] = [];
  const claim = journal.run_id ? claimTagKey(journal.run_id) : null;
  if (claim && claim in tags) {
    keys.push(claim);
    said.push(`run ${journal.run_id}'s freeze claim removed from the endpoint`);
  }
  if (what.journal) {
    const own = ownJournalKeys(journal, tags);
    keys.push(...own.keys);
    said.push(own.said);
  }
  await adapters.deleteEndpointTags(keys, options);
  return said;
}

/** Restores what `journal` captured (see the module comment); never throws. */
export async function restoreFromJournal(
  journal: ThawJournal,
  adapters: FreezeAdapters,
  options: RestoreOptions = {},
): Promise<RestoreReport> {
  const report: RestoreReport = { actions: [], errors: [], journalDeleted: false };
  const clock = options.clock ?? Date.now;
  const budget: Budget = {
    deadline: clock() + (options.budgetMs ?? RESTORE_DEFAULTS.budgetMs),
    callTimeoutMs: options.callTimeoutMs ?? RESTORE_DEFAULTS.callTimeoutMs,
    pollIntervalMs: options.pollIntervalMs ?? RESTORE_DEFAULTS.pollIntervalMs,
    clock,
    signal: options.signal,
    log: (line) => options.log?.(`restore: ${line}`),
  };
  const wanted = journal.desired_instance_count;
  // A component's journal pins its copies, not the endpoint's instances.
  const countName = journal.resource_id.startsWith('inference-component/')
    ? 'copy count'
    : 'desired instance count';
  try {
    const settling = (c: VariantCapacity) =>
      (c.endpointStatus === 'Updating' || c.endpointStatus === 'Creating') && c.desired !== wanted;
    let capacity = await withRetry(
      'DescribeEndpoint',
      (call) => adapters.describeVariantCapacity(call),
      budget,
    );
    if (settling(capacity)) {
      // A drain (or scale-out) in progress: the capacity cannot change until it is over.
      const settled = await waitUntil(
        `endpoint ${journal.endpoint} to finish ${capacity.endpointStatus} before its capacity is restored`,
        async () => {
          capacity = await withRetry('DescribeEndpoint', (call) => adapters.describeVariantCapacity(call), {
            ...budget,
            deadline: budget.deadline - RESERVED_AFTER_WAIT_MS,
          });
          return settling(capacity) ? undefined : capacity;
        },
        {
          deadline: budget.deadline - RESERVED_AFTER_WAIT_MS,
          interval: budget.pollIntervalMs,
          signal: options.signal,
          clock,
          log: budget.log,
        },
      );
      if (!settled) {
        throw new Error(
          `the endpoint was still ${capacity.endpointStatus} (desired ${capacity.desired ?? '?'}, current ${capacity.current ?? '?'}) when the restore's budget ran out; it is left at ${capacity.desired ?? '?'}`,
        );
      }
    }
    if (capacity.desired !== wanted) {
      await withRetry(
        'UpdateEndpointWeightsAndCapacities',
        (call) => adapters.setDesiredInstanceCount(wanted, call),
        budget,
      );
      report.actions.push(`${countName} ${capacity.desired ?? '?'} -> ${wanted}`);
    } else {
      report.actions.push(`${countName} already ${wanted}`);
    }
  } catch (e) {
    report.errors.push(`restoring the ${countName} (${wanted}): ${message(e)}`);
  }
  if (journal.scalable_target_registered && journal.suspended_state) {
    const flags = journal.suspended_state;
    try {
      // The resource id is rebuilt from the (validated) endpoint and variant, never taken as written.
      const resourceId = journal.resource_id;
      await withRetry(
        'RegisterScalableTarget',
        (call) => adapters.registerSuspendedState(resourceId, flags, call),
        budget,
      );
      report.actions.push(`suspension flags restored (${describeFlags(flags)})`);
    } catch (e) {
      report.errors.push(`restoring the suspension flags (${describeFlags(flags)}): ${message(e)}`);
    }
  }
  // The run no longer holds the endpoint, whatever else failed: its claim goes (the journal, if
  // kept, is what a later freeze or thaw goes by). One ListTags, one DeleteTags.
  const keep = report.errors.length > 0;
  try {
    const said = await withRetry(
      'DeleteTags',
      (call) => removeRunTags(journal, adapters, { journal: !keep }, call),
      budget,
    );
    report.actions.push(...said);
  } catch (e) {
    report.errors.push(
      `removing run ${journal.run_id ?? '(no id)'}'s ${keep ? 'freeze claim' : 'freeze claim and journal'} from the endpoint's tags: ${message(e)}`,
    );
  }
  if (report.errors.length === 0) {
    try {
      deleteThawJournal(journal.endpoint, options.stateDir, journal.run_id);
      report.journalDeleted = true;
    } catch (e) {
      report.errors.push(`deleting the local thaw journal: ${message(e)}`);
    }
  }
  return report;
}
