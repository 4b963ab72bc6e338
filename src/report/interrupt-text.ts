/** What a measurement stopped by SIGINT/SIGTERM (or a lost freeze) says about the endpoint it had frozen. */
import type { RestoreReport } from '../model/journal.js';

/**
 * What was put back, in words that never claim more than the report says: `null` only when the
 * run had not begun to freeze (no journal, no claim: nothing on the endpoint was touched).
 */
export function describeRestore(
  restore: Pick<RestoreReport, 'actions' | 'errors' | 'nothingChanged'> | null,
  retry: string,
): string {
  if (!restore) return 'nothing on the endpoint had been changed (the freeze had not begun)';
  const done = restore.actions.length > 0 ? restore.actions.join('; ') : 'nothing';
  if (restore.nothingChanged && restore.errors.length === 0) {
    return `nothing on the endpoint had been changed (${done})`;
  }
  if (restore.errors.length === 0) return `the endpoint was restored (${done})`;
  return `restore INCOMPLETE: done: ${done}; FAILED: ${restore.errors.join('; ')}; ${retry}`;
}

/**
 * `qmax interrupted by SIGTERM; the endpoint was restored (...)`. `retry` says who finishes a
 * failed restore (the CLI: `scalegate thaw`; the action: its post step).
 */
export function renderInterruption(
  command: string,
  signal: string,
  restore: Pick<RestoreReport, 'actions' | 'errors' | 'nothingChanged'> | null,
  retry: string,
): string {
  return `${command} interrupted by ${signal}; ${describeRestore(restore, retry)}`;
}

/** A freeze lost mid-measurement: the measurement is invalid, nothing was written. */
export function renderFreezeLost(
  reason: string,
  restore: Pick<RestoreReport, 'actions' | 'errors' | 'nothingChanged'> | null,
): string {
  return `the freeze was lost during the measurement (${reason}): the measurement is invalid and no artifact was written; ${describeRestore(restore, 'run `scalegate thaw` to finish restoring')}`;
}
