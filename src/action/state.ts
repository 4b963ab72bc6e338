/**
 * State the main step saves for the post step (`STATE_<name>`): which command ran, where journals
 * live, and the thaw journals this step wrote (so the post restores those and nothing else).
 */
import * as core from '@actions/core';
import { z } from 'zod';
import { endpointNameSchema, regionSchema, safeString, variantNameSchema } from '../model/safe.js';

export const STATE_COMMAND = 'command';
export const STATE_DIR = 'state-dir';
export const STATE_JOURNALS = 'journals';

/** The environment variable the runner gives the post step for a saved state `name`. */
export const stateVariable = (name: string): string => `STATE_${name}`;

/** One thaw journal this step wrote: where, whose (its run id), and of which endpoint. */
export const journalStateSchema = z
  .object({
    file: safeString.min(1),
    run_id: safeString.min(1).max(200),
    endpoint: endpointNameSchema,
    variant: variantNameSchema,
    region: regionSchema,
  })
  .strict();
export type JournalState = z.infer<typeof journalStateSchema>;

/**
 * Records the journals this step writes, as each is about to be written (before anything on the
 * endpoint changes), so a step killed at any later point leaves its post step the list.
 */
export function journalRecorder(): (entry: {
  file: string;
  runId: string;
  endpoint: string;
  variant: string;
  region: string;
}) => void {
  const written: JournalState[] = [];
  return (entry) => {
    written.push({
      file: entry.file,
      run_id: entry.runId,
      endpoint: entry.endpoint,
      variant: entry.variant,
      region: entry.region,
    });
    core.saveState(STATE_JOURNALS, JSON.stringify(written));
  };
}

/** The journals the main step recorded (none when it recorded none); a malformed list is refused whole. */
export function readJournalState(raw: string | undefined): JournalState[] {
  if (!raw) return [];
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    throw new Error(`the saved ${STATE_JOURNALS} state is not JSON`);
  }
  return z.array(journalStateSchema).parse(json);
}
