/**
 * A mistake the user can fix: bad flag, bad file, refused input. The CLI and the action print
 * `message` (never a stack trace) and exit with code 2.
 */
export class UsageError extends Error {
  readonly exitCode = 2;
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

export const isUsageError = (e: unknown): e is UsageError =>
  e instanceof Error && (e as { name?: string }).name === 'UsageError';
