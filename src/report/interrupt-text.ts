/** What a measurement stopped by SIGINT/SIGTERM says about the endpoint it had frozen. */
import type { RestoreReport } from '../model/journal.js';

/**
 * `qmax interrupted by SIGTERM; the endpoint was restored`. `retry` says who finishes a failed
 * restore (the CLI: `scalegate thaw`; the action: its post step).
 */
export function renderInterruption(
  command: string,
  signal: string,
  restore: Pick<RestoreReport, 'errors'> | null,
  retry: string,
): string {
  const state = restore
    ? restore.errors.length === 0
      ? 'the endpoint was restored'
      : `restore FAILED (${restore.errors.join('; ')}); ${retry}`
    : 'nothing was frozen';
  return `${command} interrupted by ${signal}; ${state}`;
}
