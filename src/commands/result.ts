/** What every command returns; the CLI and the action only present it. */
export interface CommandResult<A = unknown> {
  /** The artifact the command produced (also written to disk when it has a file), or null. */
  artifact: A | null;
  /** Human-readable report for a terminal. */
  report: string;
  /** 0 ok or warn, 1 the finding the command exists to catch, 2 refused input. */
  exitCode: 0 | 1 | 2;
  /** Files the command wrote, for the action to commit and upload. */
  written: string[];
}
