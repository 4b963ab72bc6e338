/**
 * Which of several runs that start freezing the same endpoint at once may freeze it: exactly one.
 *
 * Every run writes only its own tag, `scalegate:freeze:<run id>` (src/model/freeze-claim.ts), so
 * no run overwrites another's. The arbitration is Lamport's bakery over those tags:
 *   1. write the claim as `choosing`;
 *   2. read the tags; this run's start is the later of now and one millisecond past every fresh
 *      claim's start (so a run that sees another can never place itself before it);
 *   3. rewrite the claim with that start;
 *   4. read the tags until no other fresh claim is `choosing`; if any fresh claim is before this
 *      one (lower start, then lower run id), this run removes its claim and refuses.
 * Two runs can then never both pass step 4, whatever their timing or clocks. A claim whose
 * heartbeat is older than three periods belongs to a run that is gone and is not arbitrated.
 *
 * The winner keeps its claim fresh (the heartbeat) until it restores, and the freeze is checked
 * after every rung and before anything is written (checkFreezeHeld).
 */
import type { CallOptions } from '../aws/endpoint.js';
import { variantResourceId } from '../aws/scaling.js';
import { UsageError } from '../model/errors.js';
import {
  claimIsFresh,
  claimOrder,
  claimsFromTags,
  claimTag,
  claimTagKey,
  describeClaim,
  type FreezeClaim,
  staleAfterMs,
} from '../model/freeze-claim.js';
import { journalFromTags, type RestoreReport } from '../model/journal.js';
import { renderFreezeLost } from '../report/interrupt-text.js';
import { waitUntil } from '../wait.js';
import { allSuspended, describeFlags, type FreezeAdapters } from './freeze-adapters.js';

export interface ClaimSpec {
  endpoint: string;
  runId: string;
  host: string;
  adapters: FreezeAdapters;
  /** Heartbeat period, ms (staleness is three of them). */
  heartbeatMs: number;
  clock: () => number;
  /** Pause while another run is choosing, ms. */
  pollIntervalMs: number;
  call: CallOptions;
  signal?: AbortSignal;
  log: (line: string) => void;
}

/** The fresh claims of other runs on the endpoint now. */
export function otherFreshClaims(
  tags: Record<string, string>,
  runId: string,
  nowMs: number,
  heartbeatMs: number,
): FreezeClaim[] {
  return claimsFromTags(tags).claims.filter((c) => c.runId !== runId && claimIsFresh(c, nowMs, heartbeatMs));
}

/** The refusal of a run that lost to (or found) `holder`: changes nothing, exit 2. */
export function heldByAnother(endpoint: string, holder: FreezeClaim, nowMs: number): UsageError {
  return new UsageError(
    `endpoint ${endpoint} is being measured by ${describeClaim(holder, nowMs)}: nothing was changed by this run. Wait for that run to finish; if it is gone, its claim goes stale after three missed heartbeats, or restore now with \`scalegate thaw --endpoint ${endpoint} --force\`.`,
  );
}

/**
 * Steps 1-4 above. Resolves with this run's claim when it won; otherwise removes its claim and
 * throws heldByAnother. Whatever interrupts it, its claim is removed before it rethrows.
 */
export async function claimEndpoint(spec: ClaimSpec): Promise<FreezeClaim> {
  const { adapters, runId, clock, call, heartbeatMs } = spec;
  const choosing: FreezeClaim = {
    runId,
    phase: 'choosing',
    startMs: clock(),
    beatMs: clock(),
    host: spec.host,
  };
  let written = false;
  try {
    written = true;
    await adapters.addEndpointTags(claimTag(choosing), call);
    const seen = otherFreshClaims(await adapters.readEndpointTags(call), runId, clock(), heartbeatMs);
    const now = clock();
    const mine: FreezeClaim = {
      ...choosing,
      phase: 'claim',
      startMs: Math.max(now, ...seen.map((c) => c.startMs + 1)),
      beatMs: now,
    };
    await adapters.addEndpointTags(claimTag(mine), call);
    const others = await waitUntil(
      `other runs claiming endpoint ${spec.endpoint} to finish choosing`,
      async () => {
        const found = otherFreshClaims(await adapters.readEndpointTags(call), runId, clock(), heartbeatMs);
        return found.some((c) => c.phase === 'choosing') ? undefined : found;
      },
      {
        // A run that died while choosing goes stale within this.
        deadline: clock() + staleAfterMs(heartbeatMs) + spec.pollIntervalMs,
        interval: spec.pollIntervalMs,
        signal: spec.signal,
        clock,
        log: (line) => spec.log(`freeze: ${line}`),
      },
    );
    if (!others) throw new Error(`endpoint ${spec.endpoint}: another run's claim stayed \`choosing\``);
    const before = others.filter((c) => claimOrder(c, mine) < 0);
    if (before.length > 0) throw heldByAnother(spec.endpoint, before[0] as FreezeClaim, clock());
    spec.log(`freeze: run ${runId} holds endpoint ${spec.endpoint} (claim ${claimTagKey(runId)})`);
    return mine;
  } catch (e) {
    if (written) {
      // Never with the signal that may have stopped us: the claim must go.
      await adapters
        .deleteEndpointTags([claimTagKey(runId)], { abortSignal: AbortSignal.timeout(5_000) })
        .catch((err: unknown) =>
          spec.log(`freeze: removing run ${runId}'s claim failed: ${(err as Error).message}`),
        );
    }
    throw e;
  }
}

export interface ClaimHeartbeat {
  /** Stops beating; resolves once no beat is in flight (so none lands after the claim's removal). */
  stop(): Promise<void>;
}

/**
 * Refreshes the claim every `heartbeatMs` (through the one labelled wait). When the claim is gone
 * from the endpoint (someone thawed with --force), it stops and calls `onLost`: it never puts a
 * removed claim back. A failed beat is logged and retried at the next period.
 */
export function startClaimHeartbeat(
  spec: ClaimSpec & { claim: FreezeClaim; onLost: (reason: string) => void },
): ClaimHeartbeat {
  const stopping = new AbortController();
  const key = claimTagKey(spec.runId);
  const beating = waitUntil(
    `the end of run ${spec.runId}'s freeze (heartbeat every ${Math.round(spec.heartbeatMs / 1000)} s)`,
    async () => {
      try {
        const call = { abortSignal: AbortSignal.timeout(Math.max(1000, spec.heartbeatMs)) };
        const tags = await spec.adapters.readEndpointTags(call);
        if (stopping.signal.aborted) return true;
        if (!(key in tags)) {
          spec.onLost(
            `run ${spec.runId}'s claim (${key}) was removed from endpoint ${spec.endpoint} by someone else (a thaw --force?)`,
          );
          return true;
        }
        await spec.adapters.addEndpointTags(claimTag({ ...spec.claim, beatMs: spec.clock() }), call);
      } catch (e) {
        if (!stopping.signal.aborted)
          spec.log(`freeze: heartbeat failed (${(e as Error).message}); retrying`);
      }
      return undefined;
    },
    { interval: spec.heartbeatMs, signal: stopping.signal, pauseFirst: true },
  ).catch(() => undefined);
  return {
    stop: async () => {
      stopping.abort();
      await beating;
    },
  };
}

/**
 * Is the endpoint still frozen by this run, as it froze it? Its claim and its journal on the
 * endpoint, every scaling flag suspended, and (unless the command moves the capacity itself) one
 * instance desired and serving. Returns why not, or null.
 */
export async function checkFreezeHeld(
  spec: Pick<ClaimSpec, 'adapters' | 'endpoint' | 'runId'> & {
    variant: string;
    targetRegistered: boolean;
    capacity: boolean;
    call: CallOptions;
    /** The count the freeze pinned (a component's copies). @default 1 */
    pin?: number;
  },
): Promise<string | null> {
  const { adapters, endpoint, runId, call } = spec;
  const tags = await adapters.readEndpointTags(call);
  if (!(claimTagKey(runId) in tags)) {
    return `run ${runId}'s claim (${claimTagKey(runId)}) is gone from endpoint ${endpoint}: someone thawed it or another run took it over`;
  }
  let journalRun: string | null | undefined;
  try {
    journalRun = journalFromTags(tags, `endpoint ${endpoint}`)?.run_id;
  } catch {
    journalRun = undefined;
  }
  if (journalRun !== runId) {
    return `the thaw journal on endpoint ${endpoint} is no longer run ${runId}'s (${journalRun === undefined ? 'unreadable or gone' : `now run ${journalRun}'s`})`;
  }
  if (spec.targetRegistered) {
    const target = await adapters.describeScalableTarget(
      adapters.resourceId ?? variantResourceId(endpoint, spec.variant),
      call,
    );
    if (!target || !allSuspended(target.suspended)) {
      return `scaling of ${endpoint}/${spec.variant} is no longer suspended (${target ? describeFlags(target.suspended) : 'scalable target gone'})`;
    }
  }
  if (spec.capacity) {
    const c = await adapters.describeVariantCapacity(call);
    const pin = spec.pin ?? 1;
    if (c.desired !== pin || c.current !== pin || c.endpointStatus !== 'InService') {
      return `${adapters.resourceId ?? `${endpoint}/${spec.variant}`} is no longer at ${adapters.resourceId ? `${pin} serving copies` : 'one InService instance'} (status ${c.endpointStatus}, desired ${c.desired ?? '?'}, current ${c.current ?? '?'})`;
    }
  }
  return null;
}

/** The freeze was lost while measuring: the measurement is invalid, nothing is written (exit 3). */
export class FreezeLostError extends Error {
  readonly operational = true;
  readonly exitCode = 3;
  restore: RestoreReport | null = null;
  constructor(readonly reason: string) {
    super(renderFreezeLost(reason, null).replace(/; nothing on the endpoint.*$/, ''));
    this.name = 'FreezeLostError';
  }
  /** Records what the restore after the loss did, in the message too. */
  restored(report: RestoreReport | null): this {
    this.restore = report;
    this.message = renderFreezeLost(this.reason, report);
    return this;
  }
}
