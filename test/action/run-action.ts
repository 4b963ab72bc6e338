/**
 * Runs the bundled action entries (dist/main.mjs, dist/post.mjs) the way the runner does: a
 * fresh node process, inputs as `INPUT_<NAME>` (upper-cased, hyphens kept), the event payload in
 * GITHUB_EVENT_PATH, and the file commands GITHUB_OUTPUT, GITHUB_STEP_SUMMARY and GITHUB_STATE;
 * the post entry receives the main step's saved state as `STATE_<name>`, as the runner does.
 */
import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { repoRoot } from '../helpers/anchor.js';

export const fixturesDir = join(repoRoot, 'test', 'action', 'fixtures');

export interface StepRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
  state: Record<string, string>;
}

export interface StepOptions {
  entry: 'main' | 'post';
  workspace: string;
  inputs?: Record<string, string>;
  eventName?: string;
  eventPayload?: string;
  runId?: string | number;
  runAttempt?: number;
  apiUrl?: string;
  /** For `post`: the main step's state (from its GITHUB_STATE file). */
  state?: Record<string, string>;
  env?: Record<string, string>;
  /** Kill the process (SIGKILL) once `killWhen` matches its output so far. */
  killWhen?: RegExp;
  timeoutMs?: number;
  /** Run the entry from src (through tsx) instead of the bundle: what src does before dist is rebuilt. */
  fromSource?: boolean;
}

/** Parses the runner's file-command format: `name<<DELIM\nvalue\nDELIM` (or `name=value`). */
export function parseFileCommands(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const [, name, delim] = heredoc as unknown as [string, string, string];
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i] as string);
      out[name] = value.join('\n');
    } else if (line.includes('=')) {
      const at = line.indexOf('=');
      out[line.slice(0, at)] = line.slice(at + 1);
    }
  }
  return out;
}

/** A workspace with the repository's config and anchor artifacts (without the committed plan). */
export function makeWorkspace(options: { withPlan?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-action-'));
  cpSync(join(repoRoot, 'scalegate.config.json'), join(dir, 'scalegate.config.json'));
  mkdirSync(join(dir, 'artifacts'));
  for (const name of [
    'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
    'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
    ...(options.withPlan ? ['plan-kokoro-82m.json'] : []),
  ]) {
    cpSync(join(repoRoot, 'artifacts', name), join(dir, 'artifacts', name));
  }
  return dir;
}

export async function runStep(options: StepOptions): Promise<StepRun> {
  const files = mkdtempSync(join(tmpdir(), 'scalegate-runner-'));
  const outputFile = join(files, 'output');
  const summaryFile = join(files, 'summary');
  const stateFile = join(files, 'state');
  for (const f of [outputFile, summaryFile, stateFile]) writeFileSync(f, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? files,
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: options.workspace,
    GITHUB_REPOSITORY: 'acme/speech',
    GITHUB_REPOSITORY_OWNER: 'acme',
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: `${options.runId ?? 9000000001}`,
    GITHUB_RUN_ATTEMPT: `${options.runAttempt ?? 1}`,
    GITHUB_RUN_NUMBER: '17',
    GITHUB_SHA: '0a1b2c3d4e5f60718293a4b5c6d7e8f901a2b3c4',
    GITHUB_REF: 'refs/pull/42/merge',
    GITHUB_EVENT_NAME: options.eventName ?? 'pull_request',
    GITHUB_EVENT_PATH: options.eventPayload ?? join(fixturesDir, 'pull_request.synchronize.json'),
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    GITHUB_STATE: stateFile,
    RUNNER_TEMP: files,
    ...(options.apiUrl
      ? { GITHUB_API_URL: options.apiUrl, GITHUB_GRAPHQL_URL: `${options.apiUrl}/graphql` }
      : {}),
    ...options.env,
  };
  for (const [name, value] of Object.entries(options.inputs ?? {})) {
    env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] = value;
  }
  for (const [name, value] of Object.entries(options.state ?? {})) env[`STATE_${name}`] = value;

  const entry = options.fromSource
    ? [
        '--import',
        pathToFileURL(join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href,
        join(repoRoot, 'src', 'action', `${options.entry}.ts`),
      ]
    : [join(repoRoot, 'dist', `${options.entry}.mjs`)];
  const child = spawn(process.execPath, entry, {
    cwd: options.workspace,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const maybeKill = () => {
    if (options.killWhen?.test(stdout + stderr) && child.exitCode === null) {
      child.kill('SIGKILL');
    }
  };
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
    maybeKill();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
    maybeKill();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
  const [status, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
    child.on('close', (code, sig) => resolve([code, sig])),
  );
  clearTimeout(timer);
  return {
    status,
    signal,
    stdout,
    stderr,
    outputs: parseFileCommands(readFileSync(outputFile, 'utf8')),
    summary: readFileSync(summaryFile, 'utf8'),
    state: parseFileCommands(readFileSync(stateFile, 'utf8')),
  };
}
