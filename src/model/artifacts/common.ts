import { z } from 'zod';
import { boundedNumber, LIMITS, pastTime, safeString } from '../safe.js';

/**
 * Every artifact scalegate writes. Artifact JSON is snake_case and continues the names of the
 * legacy format (../anchor-artifacts) where it had one. Bump SCHEMA_VERSION on any incompatible
 * change and teach `legacy.ts`/`io.ts` to read the old one.
 */
export const SCHEMA_VERSION = 1;

export const isoTime = z.string().datetime({ offset: true });
/** Times an artifact is ordered by (discovery, comment ordering): never in the future. */
export const recordedAt = pastTime;
export const runId = safeString.min(1).max(200);

// Bounded numbers (see LIMITS): a hand-edited artifact cannot overflow the arithmetic.
export const ms = (what: string) => boundedNumber(0, LIMITS.ms, what);
export const seconds = (what: string) => boundedNumber(0, LIMITS.seconds, what);
export const signedSeconds = (what: string) => boundedNumber(-LIMITS.seconds, LIMITS.seconds, what);
export const rps = (what: string) => boundedNumber(0, LIMITS.rps, what);
export const concurrency = (what: string) => boundedNumber(0, LIMITS.concurrency, what);
export const count = (what: string) => boundedNumber(0, LIMITS.count, what).int();
export const instances = (what: string) => boundedNumber(0, LIMITS.instances, what).int();

export const provenanceSchema = z.object({
  /** `measured` by scalegate, `legacy` read from the pre-schema format, `stated` by an operator. */
  origin: z.enum(['measured', 'legacy', 'stated']),
  tool: safeString,
  note: safeString.nullable(),
});

/** What a freeze put back after a run (qmax, goodput, ttotal): the restore's actions and errors. */
export const restoreRecordSchema = z.object({ actions: z.array(safeString), errors: z.array(safeString) });
export type RestoreRecord = z.infer<typeof restoreRecordSchema>;

/** The restore record with what the thaw journal held: desired count and suspension flags (ttotal). */
export const journalRestoreRecordSchema = z.object({
  desired_instance_count: z.number().int().nonnegative(),
  suspension_restored: z.boolean(),
  ...restoreRecordSchema.shape,
});
export type JournalRestoreRecord = z.infer<typeof journalRestoreRecordSchema>;

export const transportSchema = z.enum(['response-stream', 'http', 'sdk']);
export type Transport = z.infer<typeof transportSchema>;

/** Transports that go through a SageMaker endpoint (as opposed to a container's own http). */
export const isSageMakerTransport = (kind: Transport): kind is 'response-stream' | 'sdk' =>
  kind === 'response-stream' || kind === 'sdk';

export const intervalSchema = z.object({
  low: boundedNumber(-LIMITS.ms, LIMITS.ms, 'interval low'),
  high: boundedNumber(-LIMITS.ms, LIMITS.ms, 'interval high'),
});

/**
 * `undecided`: no decision at the stated level (too few batches or samples, or the interval
 * straddles the SLO). `uncertain` is its name in artifacts written before the batch decision.
 */
export const rungVerdictSchema = z.enum(['pass', 'fail', 'undecided', 'uncertain']);
