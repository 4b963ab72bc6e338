/**
 * A freeze's claim on an endpoint: one tag per run, `scalegate:freeze:<run id>`, written before
 * anything is frozen and kept fresh by the winning run's heartbeat. Two runs that start together
 * both claim; the lowest (start, run id) of the fresh claims wins (the arbitration is in
 * src/commands/freeze-claim.ts). Each run writes only its own key, so no run can overwrite
 * another's claim.
 *
 * Value: `v1 <phase> <start> <beat> <host>`: phase `choosing` (the run is still picking its start)
 * or `claim`; start and beat as ISO-8601 UTC times; host the machine's name reduced to the
 * characters a tag value allows.
 */

export const CLAIM_TAG_PREFIX = 'scalegate:freeze:';
const CLAIM_VERSION = 'v1';

/** How often the winning run refreshes its claim, and after how many missed beats a claim is stale. */
export const HEARTBEAT_DEFAULTS = {
  /** Between two beats, ms. */
  everyMs: 30_000,
  /** A claim whose last beat is older than this many periods belongs to a run that is gone. */
  staleAfterBeats: 3,
} as const;

export type ClaimPhase = 'choosing' | 'claim';

export interface FreezeClaim {
  runId: string;
  phase: ClaimPhase;
  /** When the run claimed (its place in the arbitration), ms since the epoch. */
  startMs: number;
  /** Its last heartbeat, ms since the epoch. */
  beatMs: number;
  host: string;
}

/** Run ids become tag keys: letters, digits and `_.:/=+-@`, at most 100 characters. */
const RUN_ID = /^[A-Za-z0-9_.:/=+\-@]{1,100}$/;

export const claimTagKey = (runId: string): string => `${CLAIM_TAG_PREFIX}${runId}`;

/** Every claim tag key on a resource (to remove them, e.g. stale ones). */
export const claimTagKeys = (tags: Record<string, string>): string[] =>
  Object.keys(tags).filter((key) => key.startsWith(CLAIM_TAG_PREFIX));

/** The host name with every character a tag value does not allow replaced by `-`. */
export const tagSafeHost = (host: string): string =>
  host.replace(/[^A-Za-z0-9_.:/=+\-@]/g, '-').slice(0, 100) || 'unknown-host';

export function checkClaimRunId(runId: string): string {
  if (!RUN_ID.test(runId)) {
    throw new Error(
      `run id ${JSON.stringify(runId.slice(0, 120))} cannot name a freeze claim tag (letters, digits and _.:/=+-@, at most 100)`,
    );
  }
  return runId;
}

const iso = (ms: number): string => new Date(ms).toISOString();

/** The one tag that carries `claim`. */
export function claimTag(claim: FreezeClaim): Record<string, string> {
  checkClaimRunId(claim.runId);
  return {
    [claimTagKey(claim.runId)]:
      `${CLAIM_VERSION} ${claim.phase} ${iso(claim.startMs)} ${iso(claim.beatMs)} ${tagSafeHost(claim.host)}`,
  };
}

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function parseClaim(runId: string, value: string): FreezeClaim | null {
  const [version, phase, start, beat, host, ...rest] = value.split(' ');
  if (version !== CLAIM_VERSION || rest.length > 0 || !host) return null;
  if (phase !== 'choosing' && phase !== 'claim') return null;
  if (!(start && ISO.test(start) && beat && ISO.test(beat))) return null;
  const startMs = Date.parse(start);
  const beatMs = Date.parse(beat);
  if (!(Number.isFinite(startMs) && Number.isFinite(beatMs))) return null;
  return { runId, phase, startMs, beatMs, host };
}

export interface ClaimsOnResource {
  claims: FreezeClaim[];
  /** Keys under the claim prefix whose value is not a claim (never arbitrated, removed by thaw). */
  unreadable: string[];
}

/** The claims a resource's tags carry, in arbitration order. */
export function claimsFromTags(tags: Record<string, string>): ClaimsOnResource {
  const claims: FreezeClaim[] = [];
  const unreadable: string[] = [];
  for (const key of claimTagKeys(tags)) {
    const runId = key.slice(CLAIM_TAG_PREFIX.length);
    const claim = RUN_ID.test(runId) ? parseClaim(runId, tags[key] ?? '') : null;
    if (claim) claims.push(claim);
    else unreadable.push(key);
  }
  return { claims: claims.sort(claimOrder), unreadable };
}

/** The arbitration order: earlier start first, then the lower run id. */
export function claimOrder(a: FreezeClaim, b: FreezeClaim): number {
  if (a.startMs !== b.startMs) return a.startMs - b.startMs;
  return a.runId < b.runId ? -1 : a.runId > b.runId ? 1 : 0;
}

/** How old a beat may be before its run counts as gone. */
export const staleAfterMs = (heartbeatMs: number = HEARTBEAT_DEFAULTS.everyMs): number =>
  heartbeatMs * HEARTBEAT_DEFAULTS.staleAfterBeats;

export const claimIsFresh = (claim: FreezeClaim, nowMs: number, heartbeatMs?: number): boolean =>
  nowMs - claim.beatMs < staleAfterMs(heartbeatMs);

/** `run R from host H since T (heartbeat N s ago)`: who holds the endpoint, for the message. */
export function describeClaim(claim: FreezeClaim, nowMs: number): string {
  const age = Math.max(0, Math.round((nowMs - claim.beatMs) / 1000));
  return `run ${claim.runId} from host ${claim.host} since ${iso(claim.startMs)} (heartbeat ${age} s ago)`;
}
