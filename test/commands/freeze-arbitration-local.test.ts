/**
 * Freezes that cannot collide and restores that never lie, on the local SageMaker with the real
 * SDK clients: two runs freezing one endpoint at the same moment (once both measured), a SIGTERM
 * in the middle of the drain to one instance (once left the endpoint at 1 of 2 with scaling
 * resumed while the CLI said "nothing was frozen"), and a restore whose calls are slow (once ran
 * out of its 5 s and orphaned the journal's tags).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RegisterScalableTargetCommand, type SuspendedState } from '@aws-sdk/client-application-auto-scaling';
import { UpdateEndpointWeightsAndCapacitiesCommand } from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  awsFreezeAdapters,
  type Freeze,
  FreezeLostError,
  freezeEndpoint,
} from '../../src/commands/freeze.js';
import { frozenRun } from '../../src/commands/frozen-run.js';
import { runThaw } from '../../src/commands/thaw.js';
import { isUsageError } from '../../src/model/errors.js';
import {
  type Emulator,
  endpointState,
  MODEL,
  serialContainer,
  startEmulator,
} from './local-apply-fixtures.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const NONE: SuspendedState = {
  DynamicScalingInSuspended: false,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: false,
};

let emulator: Emulator;

beforeAll(async () => {
  emulator = await startEmulator({ instances: 2, registerScalableTarget: true, container: serialContainer });
}, 90_000);

afterAll(async () => {
  await emulator?.close();
}, 60_000);

const endpoint = () => emulator.handle.endpointName;
const variant = () => emulator.handle.variantName;
const resourceId = () => `endpoint/${endpoint()}/variant/${variant()}`;
const machine = (name: string) => mkdtempSync(join(tmpdir(), `scalegate-${name}-`));

const state = () => endpointState(emulator);

async function setSuspension(suspended: SuspendedState): Promise<void> {
  await emulator.clients.autoscaling.send(
    new RegisterScalableTargetCommand({
      ServiceNamespace: 'sagemaker',
      ResourceId: resourceId(),
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      SuspendedState: suspended,
    }),
  );
}

/** A freeze by "machine" `stateDir` on host `host`, through the real adapters, as qmax/ttotal do it. */
const freezeFrom = (stateDir: string, runId: string, host: string): Promise<Freeze> =>
  freezeEndpoint({
    endpoint: endpoint(),
    variant: variant(),
    region: emulator.handle.region,
    adapters: awsFreezeAdapters(emulator.clients, endpoint(), variant()),
    stateDir,
    commandLine: `scalegate qmax --model ${MODEL} (${runId})`,
    runId,
    host,
    pollIntervalMs: 50,
    waitTimeoutS: 60,
  });

/** mulberry32: the seeded generator that picks each pair's run ids and who is started first. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('freeze arbitration on the local SageMaker', () => {
  it('20 times, two freezes of one endpoint started together: exactly one freezes it, the other refuses naming the winner, its host and start, and nothing is left behind', async () => {
    await setSuspension(NONE);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    const random = seeded(20_240_601);
    const started = performance.now();
    for (let i = 0; i < 20; i++) {
      const id = () =>
        Math.floor(random() * 0xffffff)
          .toString(16)
          .padStart(6, '0');
      const runs = [
        { runId: `pair${i}-a-${id()}`, host: 'runner-a', dir: machine('a') },
        { runId: `pair${i}-b-${id()}`, host: 'runner-b', dir: machine('b') },
      ];
      if (random() < 0.5) runs.reverse();
      const settled = await Promise.allSettled(runs.map((r) => freezeFrom(r.dir, r.runId, r.host)));
      const won = settled.flatMap((s, k) =>
        s.status === 'fulfilled' ? [{ run: runs[k] as (typeof runs)[number], freeze: s.value }] : [],
      );
      const lost = settled.flatMap((s, k) =>
        s.status === 'rejected'
          ? [{ run: runs[k] as (typeof runs)[number], error: s.reason as unknown }]
          : [],
      );
      expect(won.length, `pair ${i}: ${lost.map((l) => String(l.error)).join(' | ')}`).toBe(1);
      const [winner] = won as [(typeof won)[number]];
      const [loser] = lost as [(typeof lost)[number]];
      expect(isUsageError(loser.error), String(loser.error)).toBe(true);
      expect((loser.error as Error).message).toMatch(
        new RegExp(`being measured by run ${winner.run.runId} from host ${winner.run.host} since \\S+Z`),
      );
      expect((loser.error as Error).message).toMatch(/nothing was changed by this run/);
      // The loser left nothing: no journal on its machine, no claim on the endpoint.
      expect(readdirSync(loser.run.dir)).toEqual([]);
      const frozen = await state();
      expect(frozen.desired).toBe(1);
      expect(frozen.tags.filter((k) => k.startsWith('scalegate:freeze:'))).toEqual([
        `scalegate:freeze:${winner.run.runId}`,
      ]);
      const report = await winner.freeze.restore();
      expect(report.errors, `pair ${i}`).toEqual([]);
      expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
      expect(readdirSync(winner.run.dir)).toEqual([]);
    }
    // Runtime of the 20 pairs, for the record (never asserted).
    console.info(`20 simultaneous freeze pairs: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }, 180_000);

  it('a restore whose SageMaker calls are slow (1.5 s each: 6 s in all, past the old 5 s deadline) still finishes within its budget and leaves no journal tag behind', async () => {
    await setSuspension(NONE);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    const dir = machine('slow');
    const frozen = await freezeFrom(dir, 'run-slow', 'runner-slow');
    emulator.handle.faults = { callDelayMs: { SageMaker: 1500 } };
    try {
      const report = await frozen.restore();
      expect(report.errors).toEqual([]);
      expect(report.journalDeleted).toBe(true);
    } finally {
      emulator.handle.faults = {};
    }
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);
});

/** The frozen-run protocol on the local endpoint, with `measure` as the whole measurement. */
const frozenRunOf = (runId: string, stateDir: string, measure: Parameters<typeof frozenRun>[1]['measure']) =>
  frozenRun(
    {
      endpoint: endpoint(),
      variant: variant(),
      region: emulator.handle.region,
      clients: emulator.clients,
      stateDir,
      commandLine: `scalegate qmax --model ${MODEL}`,
      runId,
      pollIntervalMs: 50,
      waitTimeoutS: 60,
      heartbeatMs: 200,
      handleSignals: false,
      log: () => {},
    },
    {
      measure,
      finish: async () => {
        throw new Error('finish (writing the artifact) must not be reached');
      },
    },
  );

describe('a freeze lost while measuring (local SageMaker)', () => {
  it('a person scaling the frozen endpoint mid-ladder: the check after the rung stops the run (exit 3), restores it, and writes nothing', async () => {
    await setSuspension(NONE);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    const dir = machine('lost-capacity');
    const run = frozenRunOf('run-moved', dir, async ({ checkFreeze }) => {
      await checkFreeze(); // rung 1: still frozen
      await emulator.clients.sagemaker.send(
        new UpdateEndpointWeightsAndCapacitiesCommand({
          EndpointName: endpoint(),
          DesiredWeightsAndCapacities: [{ VariantName: variant(), DesiredInstanceCount: 3 }],
        }),
      );
      await checkFreeze(); // rung 2: someone scaled it
    });
    const error = (await run.catch((e: unknown) => e)) as FreezeLostError;
    expect(error).toBeInstanceOf(FreezeLostError);
    expect(error.exitCode).toBe(3);
    expect(error.message).toMatch(/no longer at one InService instance .*desired 3/);
    expect(error.message).toMatch(/the measurement is invalid and no artifact was written/);
    expect(error.message).toMatch(/the endpoint was restored \(desired instance count 3 -> 2/);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);

  it('a `thaw --force` from another machine mid-measurement: the heartbeat sees its claim removed and stops the measurement, never re-adding the claim', async () => {
    await setSuspension(NONE);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    const dir = machine('lost-claim');
    const run = frozenRunOf('run-thawed', dir, async ({ signal }) => {
      const thaw = await runThaw(
        { endpoint: endpoint(), variant: variant(), stateDir: machine('operator'), force: true },
        { clients: emulator.clients },
      );
      expect(thaw.exitCode, thaw.report).toBe(0);
      // The measurement goes on until the heartbeat stops it.
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      throw signal.reason;
    });
    const error = (await run.catch((e: unknown) => e)) as FreezeLostError;
    expect(error).toBeInstanceOf(FreezeLostError);
    expect(error.message).toMatch(/run run-thawed's claim \(scalegate:freeze:run-thawed\) was removed/);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
    expect(readdirSync(dir)).toEqual([]);
  }, 60_000);
});

/** `scalegate ...` as a child process pointed at the local SageMaker. */
function cli(args: string[], stateDir: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'src', 'cli.ts'), ...args],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        AWS_ENDPOINT_URL: emulator.handle.url,
        AWS_REGION: emulator.handle.region,
        AWS_ACCESS_KEY_ID: 'local',
        AWS_SECRET_ACCESS_KEY: 'local',
        SCALEGATE_STATE_DIR: stateDir,
        GITHUB_ACTIONS: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let err = '';
  const watchers = new Set<() => void>();
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    err += d;
    for (const w of [...watchers]) w();
  });
  child.stdout?.resume();
  const exit = new Promise<number | null>((res) =>
    child.once('exit', (code) => {
      for (const w of [...watchers]) w();
      res(code);
    }),
  );
  const line = (pattern: RegExp) =>
    new Promise<string>((res, rej) => {
      const check = () => {
        const found = err.split('\n').find((l) => pattern.test(l));
        if (found !== undefined) {
          watchers.delete(check);
          res(found);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          watchers.delete(check);
          rej(new Error(`exited before a line matching ${pattern}\nstderr:\n${err}`));
        }
      };
      watchers.add(check);
      check();
    });
  return { child, exit, line, stderr: () => err };
}

describe('an interrupted drain on the local SageMaker (CLI child process)', () => {
  it('SIGTERM while the endpoint drains from 2 instances to 1: the restore waits out the drain, puts capacity back to 2 and scaling as it was, and says exactly that', async () => {
    await setSuspension(NONE);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    // A drain as slow as AWS's (here 1.5 s): the endpoint stays Updating while the run is stopped.
    emulator.handle.faults = { scaleInDelayMs: 1500 };
    const stateDir = machine('drain');
    try {
      const run = cli(
        [
          'qmax',
          '--model',
          MODEL,
          '--ladder',
          'fixed',
          '--rungs',
          '1',
          '--hold-s',
          '30',
          '--measure-s',
          '10',
          '--settle-s',
          '1',
          '--no-cloudwatch',
          '--out',
          join(stateDir, 'qmax.json'),
        ],
        stateDir,
      );
      await run.line(/desired instance count 2 -> 1/);
      expect(emulator.handle.status().status).toBe('Updating');
      run.child.kill('SIGTERM');
      const code = await run.exit;
      expect(code, run.stderr()).toBe(143);
      const said = run.stderr();
      expect(said).not.toMatch(/nothing was frozen|nothing on the endpoint had been changed/);
      expect(said).toMatch(
        /qmax interrupted by SIGTERM; the endpoint was restored \(desired instance count 1 -> 2; suspension flags restored \(in=false, out=false, scheduled=false\); run \S+'s freeze claim removed from the endpoint; journal removed from the endpoint\)/,
      );
    } finally {
      emulator.handle.faults = {};
    }
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
    expect(readdirSync(stateDir)).toEqual([]);
  }, 90_000);
});
