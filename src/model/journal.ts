/**
 * The thaw journal: what a freeze (qmax, ttotal) changed on a live endpoint and how to undo it.
 * Written atomically BEFORE anything changes, deleted only once everything is restored, so a
 * hard-killed run (SIGKILL, a cancelled CI job) leaves the journal behind for `scalegate thaw`,
 * `scalegate drift` and the action's post step to find.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { UsageError } from './errors.js';
import { writeFileAtomic } from './io.js';
import { formatZodIssues } from './issues.js';
import { thawJournalFileName } from './names.js';
import { parseJsonText, READ_LIMITS, readBoundedFileIfExists } from './read.js';
import {
  endpointNameSchema,
  pastTime,
  printable,
  regionSchema,
  safeString,
  variantNameSchema,
} from './safe.js';

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
  // A component's journal names the component's target (its copy count was pinned); the journal
  // travels in that endpoint's tags, and the thaw acts on the component by that name only.
  .refine(
    (j) =>
      j.resource_id === `endpoint/${j.endpoint}/variant/${j.variant}` ||
      /^inference-component\/[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/.test(j.resource_id),
    {
      message:
        'resource_id must be endpoint/<endpoint>/variant/<variant> of this journal, or inference-component/<name>',
      path: ['resource_id'],
    },
  );
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
  const text = readBoundedFileIfExists(file, {
    maxBytes: READ_LIMITS.journal,
    label: 'the thaw journal',
    fix: 'Inspect the endpoint with `scalegate drift`, restore it by hand if needed, then delete the file.',
  });
  if (text === null) return null;
  const json = parseJsonText(
    text,
    `${printable(file)}: the thaw journal`,
    'Inspect the endpoint with `scalegate drift`, restore it by hand if needed, then delete the file.',
  );
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

/**
 * Deletes the journal left for `endpoint`; with `runId`, only when the file is that run's (a run
 * never deletes a journal another run wrote in its place).
 */
export function deleteThawJournal(endpoint: string, dir: string = stateDir(), runId?: string | null): void {
  const file = thawJournalPath(endpoint, dir);
  if (runId !== undefined) {
    let current: ThawJournal | null;
    try {
      current = readJournalFile(file);
    } catch {
      current = null;
    }
    if (current && current.run_id !== runId) return;
  }
  rmSync(file, { force: true });
}

/**
 * The journal also travels with the endpoint, as tags on it, so that `scalegate thaw` works from
 * any machine after a lost runner, and a second freeze sees the first. Tag values allow only
 * letters, digits, spaces and `_.:/=+-@` (256 characters at most), so the journal's JSON is
 * carried base64-encoded in parts: `scalegate:thaw-journal` = `v1:<parts>` and
 * `scalegate:thaw-journal:<i>` (1-based) = part i. Read back, it passes the same schema as the file.
 */
export const JOURNAL_TAG = 'scalegate:thaw-journal';
const JOURNAL_TAG_VERSION = 'v1';
const TAG_VALUE_MAX = 256;
/** Parts a journal may take (a journal is well under 1 kB; the command line is shortened to fit). */
export const JOURNAL_TAG_MAX_PARTS = 8;
const COMMAND_IN_TAG_MAX = 300;

export const journalTagPart = (index: number): string => `${JOURNAL_TAG}:${index}`;

/** Every tag key of a journal on a resource (to remove it whole, whatever its size). */
export const journalTagKeys = (tags: Record<string, string>): string[] =>
  Object.keys(tags).filter((key) => key === JOURNAL_TAG || key.startsWith(`${JOURNAL_TAG}:`));

/** The tags that carry `journal` (its command line shortened when it would not fit). */
export function journalTags(journal: ThawJournal): Record<string, string> {
  const valid = thawJournalSchema.parse(journal);
  const command =
    valid.command.length > COMMAND_IN_TAG_MAX
      ? `${valid.command.slice(0, COMMAND_IN_TAG_MAX - 1)}…`
      : valid.command;
  const encoded = Buffer.from(JSON.stringify({ ...valid, command }), 'utf8').toString('base64');
  const parts = Math.ceil(encoded.length / TAG_VALUE_MAX);
  if (parts > JOURNAL_TAG_MAX_PARTS) {
    throw new Error(
      `a thaw journal of ${encoded.length} encoded characters does not fit in ${JOURNAL_TAG_MAX_PARTS} tags`,
    );
  }
  const tags: Record<string, string> = { [JOURNAL_TAG]: `${JOURNAL_TAG_VERSION}:${parts}` };
  for (let i = 0; i < parts; i++) {
    tags[journalTagPart(i + 1)] = encoded.slice(i * TAG_VALUE_MAX, (i + 1) * TAG_VALUE_MAX);
  }
  return tags;
}

/**
 * The journal carried by a resource's tags, or null when it carries none. A journal that does not
 * decode or fails the schema is a UsageError naming `where` and how to remove it: it is never
 * guessed at.
 */
export function journalFromTags(tags: Record<string, string>, where: string): ThawJournal | null {
  const marker = tags[JOURNAL_TAG];
  if (marker === undefined) return null;
  const unreadable = (why: string): UsageError =>
    new UsageError(
      `${where}: the thaw journal in its tags (${JOURNAL_TAG}*) is unreadable (${why}). Inspect the endpoint with \`scalegate drift\`, restore it by hand (RegisterScalableTarget SuspendedState, UpdateEndpointWeightsAndCapacities), then remove the tags (aws sagemaker delete-tags --resource-arn ARN --tag-keys ${JOURNAL_TAG} ...).`,
    );
  const match = new RegExp(`^${JOURNAL_TAG_VERSION}:([1-9][0-9]*)$`).exec(marker);
  const parts = match ? Number(match[1]) : Number.NaN;
  if (!(parts >= 1 && parts <= JOURNAL_TAG_MAX_PARTS)) {
    throw unreadable(
      `${JOURNAL_TAG} is ${JSON.stringify(marker.slice(0, 40))}, not ${JOURNAL_TAG_VERSION}:<parts>`,
    );
  }
  let encoded = '';
  for (let i = 1; i <= parts; i++) {
    const part = tags[journalTagPart(i)];
    if (part === undefined) throw unreadable(`part ${i} of ${parts} is missing`);
    encoded += part;
  }
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(encoded)) throw unreadable('not base64');
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
  } catch (e) {
    throw unreadable(`not JSON: ${(e as Error).message}`);
  }
  return parseThawJournal(json, `${where} (tags ${JOURNAL_TAG}*)`);
}

/** What a restore from a journal did: each action, each failed call, and whether the journal is gone. */
export interface RestoreReport {
  actions: string[];
  errors: string[];
  journalDeleted: boolean;
  /** The freeze stopped before it changed anything (its journal and claim were removed). */
  nothingChanged?: boolean;
}
