/**
 * The thaw journal: what a freeze (qmax, ttotal) changed on a live endpoint and how to undo it.
 * Written atomically BEFORE anything changes, deleted only once everything is restored, so a
 * hard-killed run (SIGKILL, a cancelled CI job) leaves the journal behind for `scalegate thaw`,
 * `scalegate drift` and the action's post step to find.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from './errors.js';
import { writeFileAtomic } from './io.js';
import { formatZodIssues } from './issues.js';
import { thawJournalFileName } from './names.js';
import { endpointNameSchema, pastTime, regionSchema, safeString, variantNameSchema } from './safe.js';

export const JOURNAL_SCHEMA_VERSION = 1;

/** Default state directory (relative to the working directory); `SCALEGATE_STATE_DIR` overrides it. */
export const DEFAULT_STATE_DIR = '.scalegate';

export const suspendedStateSchema = z.object({
  dynamic_scaling_in_suspended: z.boolean(),
  dynamic_scaling_out_suspended: z.boolean(),
  scheduled_scaling_suspended: z.boolean(),
});
export type SuspendedStateRecord = z.infer<typeof suspendedStateSchema>;

export const NOT_SUSPENDED: SuspendedStateRecord = {
  dynamic_scaling_in_suspended: false,
  dynamic_scaling_out_suspended: false,
  scheduled_scaling_suspended: false,
};

export const ALL_SUSPENDED: SuspendedStateRecord = {
  dynamic_scaling_in_suspended: true,
  dynamic_scaling_out_suspended: true,
  scheduled_scaling_suspended: true,
};

export const thawJournalSchema = z
  .object({
    schema_version: z.literal(JOURNAL_SCHEMA_VERSION),
    kind: z.literal('thaw-journal'),
    endpoint: endpointNameSchema,
    variant: variantNameSchema,
    region: regionSchema,
    /** Application Auto Scaling resource id, `endpoint/<endpoint>/variant/<variant>`. */
    resource_id: safeString.min(1),
    /** false: the variant had no scalable target, so no suspension flags to restore. */
    scalable_target_registered: z.boolean(),
    /** The suspension flags before the freeze (restored exactly); null when not registered. */
    suspended_state: suspendedStateSchema.nullable(),
    /** Informational: the target's bounds, which a freeze never changes. */
    min_capacity: z.number().int().nonnegative().nullable(),
    max_capacity: z.number().int().nonnegative().nullable(),
    /** The variant's desired instance count before the freeze (restored exactly). */
    desired_instance_count: z.number().int().nonnegative(),
    started_at: pastTime,
    pid: z.number().int().positive(),
    hostname: safeString.nullable(),
    /** The command line that froze the endpoint, for the humans reading a leftover journal. */
    command: safeString,
    run_id: safeString.nullable(),
  })
  // The resource id is never trusted on its own: it must be the one the endpoint and variant name.
  .refine((j) => j.resource_id === `endpoint/${j.endpoint}/variant/${j.variant}`, {
    message: 'resource_id must be endpoint/<endpoint>/variant/<variant> of this journal',
    path: ['resource_id'],
  });
export type ThawJournal = z.infer<typeof thawJournalSchema>;

/** `SCALEGATE_STATE_DIR`, else `.scalegate` in the working directory. */
export function stateDir(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.SCALEGATE_STATE_DIR?.trim();
  return resolve(fromEnv ? fromEnv : DEFAULT_STATE_DIR);
}

export const thawJournalPath = (endpoint: string, dir: string = stateDir()): string =>
  join(dir, thawJournalFileName(endpoint));

export function parseThawJournal(json: unknown, file: string): ThawJournal {
  const parsed = thawJournalSchema.safeParse(json);
  if (!parsed.success) {
    throw new UsageError(
      `${file}: not a valid thaw journal:\n${formatZodIssues(parsed.error)}\n` +
        'Inspect the endpoint with `scalegate drift`, restore it by hand (RegisterScalableTarget SuspendedState, ' +
        'UpdateEndpointWeightsAndCapacities), then delete the file.',
    );
  }
  return parsed.data;
}

function readJournalFile(file: string): ThawJournal | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`${file}: cannot read the thaw journal (${(e as Error).message}).`);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: the thaw journal is not valid JSON (${(e as Error).message}).`);
  }
  return parseThawJournal(json, file);
}

/** The journal left for `endpoint`, or null when there is none. */
export function readThawJournal(endpoint: string, dir: string = stateDir()): ThawJournal | null {
  return readJournalFile(thawJournalPath(endpoint, dir));
}

export interface JournalEntry {
  file: string;
  journal: ThawJournal;
}

/** Every thaw journal in the state directory (empty when the directory does not exist). */
export function listThawJournals(dir: string = stateDir()): JournalEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const entries: JournalEntry[] = [];
  for (const name of names.sort()) {
    if (!/^thaw-journal-.+\.json$/.test(name)) continue;
    const file = join(dir, name);
    const journal = readJournalFile(file);
    if (journal) entries.push({ file, journal });
  }
  return entries;
}

/** Validates, then writes atomically (a crash never leaves half a journal). Returns the path. */
export function writeThawJournal(journal: ThawJournal, dir: string = stateDir()): string {
  const valid = thawJournalSchema.parse(journal);
  const file = thawJournalPath(valid.endpoint, dir);
  writeFileAtomic(file, `${JSON.stringify(valid, null, 2)}\n`);
  return file;
}

export function deleteThawJournal(endpoint: string, dir: string = stateDir()): void {
  rmSync(thawJournalPath(endpoint, dir), { force: true });
}

/** What a restore from a journal did: each action, each failed call, and whether the journal is gone. */
export interface RestoreReport {
  actions: string[];
  errors: string[];
  journalDeleted: boolean;
}
