/**
 * Runs the scalegate CLI in-process (the same `main` the bin runs) and captures what it prints
 * and the exit code it sets.
 */
import { main } from '../../src/cli/program.js';

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const originalOut = process.stdout.write.bind(process.stdout);
  const originalErr = process.stderr.write.bind(process.stderr);
  const previousExitCode = process.exitCode;
  process.exitCode = 0;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    stdout += chunk.toString();
    return true;
  }) as typeof process.stdout.write;
  process.stderr.write = ((chunk: string | Uint8Array) => {
    stderr += chunk.toString();
    return true;
  }) as typeof process.stderr.write;
  try {
    await main(['node', 'scalegate', ...args]);
  } finally {
    process.stdout.write = originalOut;
    process.stderr.write = originalErr;
  }
  const exitCode = Number(process.exitCode ?? 0);
  process.exitCode = previousExitCode;
  return { exitCode, stdout, stderr };
}

/**
 * runCli with `dir` as the working directory (restored after): for runs that must not find, or
 * write into, the repository's committed artifacts/.
 */
export async function runCliIn(dir: string, args: string[]): Promise<CliRun> {
  const saved = process.cwd();
  process.chdir(dir);
  try {
    return await runCli(args);
  } finally {
    process.chdir(saved);
  }
}
