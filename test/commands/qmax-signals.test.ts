/**
 * The freeze survives the ways a run can die, with the real CLI as a child process against the
 * local SageMaker: SIGTERM mid-ladder restores the endpoint before exiting; after SIGKILL the thaw
 * journal remains (and the target stays suspended) until `scalegate thaw` restores it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsClients } from '../../src/aws/clients.js';
import type { LocalSageMakerHandle } from '../../src/local/index.js';
import { readThawJournal, thawJournalPath } from '../../src/model/journal.js';
import { startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const dir = mkdtempSync(join(tmpdir(), 'scalegate-qmax-signals-'));
const stateDir = join(dir, 'state');
const promptsFile = join(dir, 'prompts.txt');
writeFileSync(promptsFile, 'Hello.\nGood morning.\n');
const resourceId = 'endpoint/speech-kokoro-82m/variant/AllTraffic';
const ORIGINAL = {
  DynamicScalingInSuspended: true,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: false,
};
const FROZEN = {
  DynamicScalingInSuspended: true,
  DynamicScalingOutSuspended: true,
  ScheduledScalingSuspended: true,
};

let endpoint: TestEndpoint | undefined;
let handle: LocalSageMakerHandle;
let clients: AwsClients;

beforeAll(async () => {
  endpoint = await startTestEndpoint({}, ORIGINAL);
  ({ handle, clients } = endpoint);
}, 90_000);

afterAll(async () => {
  await endpoint?.close();
}, 60_000);

/** Polls a condition on state another process changes (a file it writes); never a fixed sleep. */
async function until(test: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!test()) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function suspendedState() {
  const out = await clients.autoscaling.send(
    new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker', ResourceIds: [resourceId] }),
  );
  return out.ScalableTargets?.[0]?.SuspendedState;
}

interface Cli {
  child: ChildProcess;
  stderr: () => string;
  stdout: () => string;
  /** Resolves with the first stderr line matching `pattern`. */
  line(pattern: RegExp): Promise<string>;
  exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** `scalegate ...` as a child process (node --import tsx src/cli.ts), pointed at the local SageMaker. */
function cli(args: string[]): Cli {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'src', 'cli.ts'), ...args], {
    cwd: ROOT,
    env: {
      ...process.env,
      AWS_ENDPOINT_URL: handle.url,
      AWS_REGION: 'local',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      SCALEGATE_STATE_DIR: stateDir,
      GITHUB_ACTIONS: '',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  let out = '';
  const watchers = new Set<() => void>();
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    for (const w of [...watchers]) w();
  });
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    out += d;
  });
  const exit = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once('exit', (code, signal) => {
      for (const w of [...watchers]) w();
      res({ code, signal });
    }),
  );
  return {
    child,
    stderr: () => err,
    stdout: () => out,
    exit,
    line: (pattern) =>
      new Promise((res, rej) => {
        const check = () => {
          const found = err.split('\n').find((l) => pattern.test(l));
          if (found !== undefined) {
            watchers.delete(check);
            res(found);
          } else if (child.exitCode !== null || child.signalCode !== null) {
            watchers.delete(check);
            rej(new Error(`exited before a line matching ${pattern}\nstderr:\n${err}\nstdout:\n${out}`));
          }
        };
        watchers.add(check);
        check();
      }),
  };
}

const qmaxArgs = (out: string) => [
  'qmax',
  '--model',
  'kokoro-82m',
  '--ladder',
  'fixed',
  '--rungs',
  '1,2',
  '--hold-s',
  '120',
  '--measure-s',
  '10',
  '--settle-s',
  '1',
  '--no-cloudwatch',
  '--prompts',
  promptsFile,
  '--out',
  out,
  // ORIGINAL has an operator's flag set: measuring over it is a forced freeze (restored exactly).
  '--force',
];

describe('qmax freeze under signals (CLI child process)', () => {
  it('SIGTERM mid-ladder: stops the load, restores the exact flags, deletes the journal, exits 143', async () => {
    const events = join(dir, 'sigterm-events.jsonl');
    const run = cli([...qmaxArgs(join(dir, 'sigterm.json')), '--events', events]);
    await run.line(/frozen at one InService instance/);
    // Mid-ladder: requests of the first rung are flowing (the events file fills as they finish).
    await until(() => existsSync(events) && readFileSync(events, 'utf8').split('\n').length > 20);
    expect(await suspendedState()).toEqual(FROZEN);
    expect(existsSync(thawJournalPath('speech-kokoro-82m', stateDir))).toBe(true);
    run.child.kill('SIGTERM');
    const exit = await run.exit;
    expect(exit.code, run.stderr()).toBe(143);
    expect(run.stderr()).toMatch(/SIGTERM: stopping the load and restoring the endpoint/);
    expect(run.stderr()).toMatch(/the endpoint was restored/);
    expect(await suspendedState()).toEqual(ORIGINAL);
    expect(existsSync(thawJournalPath('speech-kokoro-82m', stateDir))).toBe(false);
    expect(existsSync(join(dir, 'sigterm.json'))).toBe(false);
  }, 90_000);

  it('SIGKILL: the journal and the frozen target remain; `scalegate thaw` restores them, and again changes nothing', async () => {
    const run = cli(qmaxArgs(join(dir, 'sigkill.json')));
    await run.line(/frozen at one InService instance/);
    run.child.kill('SIGKILL');
    await run.exit;
    expect(await suspendedState()).toEqual(FROZEN);
    const journal = readThawJournal('speech-kokoro-82m', stateDir);
    expect(journal).toMatchObject({
      endpoint: 'speech-kokoro-82m',
      variant: 'AllTraffic',
      resource_id: resourceId,
      scalable_target_registered: true,
      desired_instance_count: 1,
      suspended_state: {
        dynamic_scaling_in_suspended: true,
        dynamic_scaling_out_suspended: false,
        scheduled_scaling_suspended: false,
      },
    });
    expect(journal?.command).toMatch(/^scalegate qmax --model kokoro-82m/);

    // A new run refuses to freeze over the leftover journal (it would capture the frozen state).
    const refused = cli(qmaxArgs(join(dir, 'refused.json')).filter((a) => a !== '--force'));
    expect((await refused.exit).code).toBe(2);
    expect(refused.stderr()).toMatch(/scalegate thaw --endpoint speech-kokoro-82m/);

    const thaw = cli(['thaw', '--model', 'kokoro-82m']);
    expect((await thaw.exit).code, thaw.stderr()).toBe(0);
    expect(thaw.stdout()).toMatch(/suspension flags restored/);
    expect(await suspendedState()).toEqual(ORIGINAL);
    expect(readThawJournal('speech-kokoro-82m', stateDir)).toBeNull();

    const again = cli(['thaw', '--endpoint', 'speech-kokoro-82m', '--json']);
    expect((await again.exit).code, again.stderr()).toBe(0);
    const report = JSON.parse(again.stdout()) as { actions: string[]; journal_file: string | null };
    expect(report.journal_file).toBeNull();
    // Without a journal, thaw changes nothing: the in-suspension the operator had stays.
    expect(report.actions.join('\n')).toMatch(/no thaw journal .*nothing changed/);
    expect(await suspendedState()).toEqual(ORIGINAL);
  }, 120_000);
});
