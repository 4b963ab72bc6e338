/**
 * The freeze and thaw safety cases on the local SageMaker, with the real SDK clients and the CLI:
 * two overlapping freezes (two machines), a runner lost mid-freeze, and a thaw with no journal.
 * Each once left an endpoint frozen with no journal, or changed flags an operator had set.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RegisterScalableTargetCommand, type SuspendedState } from '@aws-sdk/client-application-auto-scaling';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { awsFreezeAdapters, type Freeze, freezeEndpoint } from '../../src/commands/freeze.js';
import { readThawJournal } from '../../src/model/journal.js';
import { runCli } from '../helpers/cli.js';
import {
  configFile,
  type Emulator,
  endpointState,
  MODEL,
  serialContainer,
  startEmulator,
  withEmulatorEnv,
} from './local-apply-fixtures.js';

const NONE: SuspendedState = {
  DynamicScalingInSuspended: false,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: false,
};
const ALL: SuspendedState = {
  DynamicScalingInSuspended: true,
  DynamicScalingOutSuspended: true,
  ScheduledScalingSuspended: true,
};

let emulator: Emulator;
let restoreEnv: (() => void) | null = null;

beforeAll(async () => {
  emulator = await startEmulator({ instances: 2, registerScalableTarget: true, container: serialContainer });
}, 90_000);

afterAll(async () => {
  await emulator?.close();
}, 60_000);

afterEach(() => {
  restoreEnv?.();
  restoreEnv = null;
});

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

/** A freeze by "machine" `stateDir` through the real adapters, as qmax/ttotal do it. */
const freezeFrom = (stateDir: string, runId: string, clock?: () => number): Promise<Freeze> =>
  freezeEndpoint({
    ...(clock ? { clock } : {}),
    endpoint: endpoint(),
    variant: variant(),
    region: emulator.handle.region,
    adapters: awsFreezeAdapters(emulator.clients, endpoint(), variant()),
    stateDir,
    commandLine: `scalegate qmax --model ${MODEL} (${runId})`,
    runId,
    pollIntervalMs: 100,
    waitTimeoutS: 60,
  });

describe('freeze and thaw on the local SageMaker', () => {
  it('a second freeze on another machine (CLI qmax while CI holds the endpoint) is refused with exit 2 naming the run, its host and thaw --force, and never records the frozen state as the original', async () => {
    await setSuspension(NONE);
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
    const ci = await freezeFrom(machine('ci'), 'run-ci');
    expect(await state()).toMatchObject({ suspended: ALL, desired: 1 });

    const laptop = machine('laptop');
    restoreEnv = withEmulatorEnv(emulator, laptop);
    const second = await runCli(['qmax', '--config', configFile, '--model', MODEL, '--max-concurrency', '1']);
    expect(second.exitCode, second.stderr).toBe(2);
    expect(second.stderr).toMatch(
      /is being measured by run run-ci from host \S+ since \S+ \(heartbeat \d+ s ago\)/,
    );
    expect(second.stderr).toMatch(/scalegate thaw --endpoint speech-kokoro-82m --force/);
    expect(readThawJournal(endpoint(), laptop)).toBeNull();
    // The second run changed nothing: the first still owns the freeze, and restores the original.
    expect(await state()).toMatchObject({ suspended: ALL, desired: 1 });
    const report = await ci.restore();
    expect(report.errors).toEqual([]);
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
  }, 60_000);

  it('after a lost runner, `scalegate thaw` from any machine restores the original state from the journal the endpoint carries', async () => {
    await setSuspension(NONE);
    const runner = machine('runner');
    // Lost ten minutes ago: its claim's last heartbeat is that old (stale), as a dead runner's is.
    const lost = await freezeFrom(runner, 'run-lost', () => Date.now() - 10 * 60_000);
    expect(lost.journal.desired_instance_count).toBe(2);
    rmSync(runner, { recursive: true, force: true }); // the runner and its disk are gone
    expect(await state()).toMatchObject({ suspended: ALL, desired: 1 });

    const operator = machine('operator');
    restoreEnv = withEmulatorEnv(emulator, operator);
    const thaw = await runCli(['thaw', '--config', configFile, '--model', MODEL]);
    expect(thaw.exitCode, thaw.stdout + thaw.stderr).toBe(0);
    expect(thaw.stdout).toMatch(/the journal on endpoint speech-kokoro-82m: run run-lost/);
    expect(thaw.stdout).toMatch(/desired instance count 1 -> 2/);
    await emulator.handle.waitFor((s) => s.status === 'InService' && s.current === 2);
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });

    const again = await runCli(['thaw', '--config', configFile, '--model', MODEL]);
    expect(again.exitCode).toBe(0);
    expect(again.stdout).toMatch(/not suspended: nothing to do/);
  }, 60_000);

  it('thaw with no journal anywhere changes nothing (an operator’s suspension stays) unless --clear-suspension', async () => {
    const operatorChoice: SuspendedState = { ...NONE, DynamicScalingInSuspended: true };
    await setSuspension(operatorChoice);
    const operator = machine('operator');
    restoreEnv = withEmulatorEnv(emulator, operator);
    const thaw = await runCli(['thaw', '--config', configFile, '--model', MODEL]);
    expect(thaw.exitCode, thaw.stderr).toBe(0);
    expect(thaw.stdout).toMatch(
      /no thaw journal .*nothing changed.*in=true, out=false, scheduled=false.*--clear-suspension/,
    );
    expect(await state()).toEqual({ suspended: operatorChoice, desired: 2, tags: [] });

    const cleared = await runCli(['thaw', '--config', configFile, '--model', MODEL, '--clear-suspension']);
    expect(cleared.exitCode).toBe(0);
    expect(cleared.stdout).toMatch(/cleared the suspension flags/);
    expect(await state()).toEqual({ suspended: NONE, desired: 2, tags: [] });
    expect(existsSync(join(operator, `thaw-journal-${endpoint()}.json`))).toBe(false);
  }, 30_000);

  it('a freeze refuses a target already suspended by an operator (exit 2 naming thaw and --force) and leaves it as it was', async () => {
    const operatorChoice: SuspendedState = { ...NONE, ScheduledScalingSuspended: true };
    await setSuspension(operatorChoice);
    restoreEnv = withEmulatorEnv(emulator, machine('laptop'));
    const run = await runCli(['qmax', '--config', configFile, '--model', MODEL, '--max-concurrency', '1']);
    expect(run.exitCode, run.stderr).toBe(2);
    expect(run.stderr).toMatch(/already has scaling suspended \(in=false, out=false, scheduled=true\)/);
    expect(run.stderr).toMatch(/scalegate thaw --endpoint speech-kokoro-82m --clear-suspension.*--force/);
    expect(await state()).toEqual({ suspended: operatorChoice, desired: 2, tags: [] });
  }, 30_000);
});
