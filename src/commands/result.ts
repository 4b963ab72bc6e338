/**
 * The one contract every command follows: `run<Command>(input, deps)`. `input` is what the user
 * chose (flags, action inputs, the model from the config), plain data; `deps` is what the command
 * works with: the AWS clients it calls (so a dry run can be proven to make none), the abort
 * signal, the progress sink, the clock and the version it records. It returns a CommandResult;
 * the CLI and the action only present it.
 */
import { type ProgressSink, silentProgress } from '../load/progress.js';
import { VERSION } from '../version.js';

/** What every command returns; the CLI and the action only present it. */
export interface CommandResult<A = unknown> {
  /** The artifact the command produced (also written to disk when it has a file), or null. */
  artifact: A | null;
  /** Human-readable report for a terminal (rendered by src/report). */
  report: string;
  /** 0 ok or warn, 1 the finding the command exists to catch, 2 refused input. */
  exitCode: 0 | 1 | 2;
  /** Files the command wrote, for the action to commit and upload. */
  written: string[];
}

/** What every command may be given besides its clients. */
export interface CommandDeps {
  /** Aborts the command; whatever it changed is restored before it rejects. @default never aborted */
  signal?: AbortSignal;
  /** Progress lines and ladder events (stderr in the CLI, the log in the action). @default silent */
  progress?: ProgressSink;
  /** The time artifacts are stamped with. @default the system clock */
  clock?: () => Date;
  /** scalegate's version, recorded in every artifact's provenance. @default src/version.ts VERSION */
  version?: string;
}

/** The deps of a command that calls AWS through `clients`. */
export interface AwsCommandDeps<C> extends CommandDeps {
  clients: C;
}

/** `deps` with every default filled in, and `log` writing one progress line. */
export interface ResolvedDeps {
  signal: AbortSignal | undefined;
  progress: ProgressSink;
  clock: () => Date;
  version: string;
  log: (line: string) => void;
}

export function resolveDeps(deps: CommandDeps = {}): ResolvedDeps {
  const progress = deps.progress ?? silentProgress;
  return {
    signal: deps.signal,
    progress,
    clock: deps.clock ?? (() => new Date()),
    version: deps.version ?? VERSION,
    log: (line) => progress({ type: 'log', line }),
  };
}
