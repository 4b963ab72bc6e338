/**
 * What every CLI command shares: presenting a CommandResult, the `--json` flag, the command line
 * recorded in thaw journals, progress on stderr, and how an interrupted measurement ends.
 * Commands themselves live in src/commands and never print or exit.
 */
import { Option } from 'commander';
import { type AwsClients, throughLocalSageMaker } from '../aws/clients.js';
import type { InterruptedError } from '../commands/freeze.js';
import type { CommandResult } from '../commands/result.js';
import { createProgressRenderer, type ProgressSink } from '../load/progress.js';
import { LOCAL_ARTIFACTS_DIR } from '../model/index.js';
import { localArtifactsNote } from '../report/cli-notes.js';
import { renderInterruption } from '../report/interrupt-text.js';

export interface PresentOptions {
  json?: boolean;
}

/** Prints a command's result and sets the exit code; the only place results meet stdout. */
export function present(result: CommandResult, options: PresentOptions = {}): void {
  if (options.json) {
    process.stdout.write(`${JSON.stringify(result.artifact, null, 2)}\n`);
  } else {
    process.stdout.write(result.report.endsWith('\n') ? result.report : `${result.report}\n`);
  }
  process.exitCode = result.exitCode;
}

export const jsonOption = (): Option =>
  new Option('--json', 'print the artifact as JSON instead of the report');

/** The command line as typed, recorded in a thaw journal for whoever finds it. */
export const commandLine = (): string => ['scalegate', ...process.argv.slice(2)].join(' ');

/** Progress lines and the ladder's live line, on stderr. */
export const stderrProgress = (): ProgressSink => createProgressRenderer(process.stderr);

/** A measurement stopped by SIGINT/SIGTERM: what happened to the endpoint, and 128 + the signal. */
export function presentInterruption(command: string, e: InterruptedError): void {
  process.stderr.write(
    `scalegate: ${renderInterruption(command, e.signal, e.restore, 'run `scalegate thaw` to finish restoring')}\n`,
  );
  process.exitCode = e.exitCode;
}

/**
 * The artifacts directory of a command run: the one given, else artifacts/local/ when the clients
 * reach the local SageMaker (said on stderr when the command writes there, i.e. without --out),
 * else undefined (the committed artifacts/).
 */
export async function artifactsDirFor(
  given: string | undefined,
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'> | undefined,
  outFile?: string,
): Promise<{ artifactsDir?: string }> {
  if (given !== undefined) return { artifactsDir: given };
  if (!clients || !(await throughLocalSageMaker(clients))) return {};
  if (outFile === undefined) process.stderr.write(`${localArtifactsNote(LOCAL_ARTIFACTS_DIR)}\n`);
  return { artifactsDir: LOCAL_ARTIFACTS_DIR };
}
