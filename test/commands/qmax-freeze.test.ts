import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { describe, expect, it } from 'vitest';
import { registerSuspendedState } from '../../src/aws/scaling.js';
import { freezeEndpoint, InterruptedError, installSignalGuard } from '../../src/commands/freeze.js';
import { readThawJournal, thawJournalPath } from '../../src/model/journal.js';
import { FakeEndpoint } from './fixtures/fake-endpoint.js';

const ORIGINAL = {
  dynamic_scaling_in_suspended: false,
  dynamic_scaling_out_suspended: true,
  scheduled_scaling_suspended: false,
};
const ALL = {
  dynamic_scaling_in_suspended: true,
  dynamic_scaling_out_suspended: true,
  scheduled_scaling_suspended: true,
};

function setup(options: ConstructorParameters<typeof FakeEndpoint>[0] = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'scalegate-freeze-'));
  const journalFile = thawJournalPath('speech-test', stateDir);
  const fake = new FakeEndpoint({ desired: 3, suspended: ORIGINAL, journalFile, ...options });
  const freeze = (extra: Partial<Parameters<typeof freezeEndpoint>[0]> = {}) =>
    freezeEndpoint({
      endpoint: 'speech-test',
      variant: 'AllTraffic',
      region: 'us-east-1',
      adapters: fake,
      stateDir,
      commandLine: 'scalegate qmax --model test',
      runId: 'run-1',
      pollIntervalMs: 1,
      ...extra,
    });
  return { fake, stateDir, journalFile, freeze };
}

describe('freeze', () => {
  it('writes the thaw journal before changing anything, capturing the exact flags and desired count', async () => {
    const { fake, stateDir, freeze } = setup();
    const frozen = await freeze();
    expect(fake.journalAtFirstChange).toBe(true);
    expect(readThawJournal('speech-test', stateDir)).toMatchObject({
      resource_id: 'endpoint/speech-test/variant/AllTraffic',
      scalable_target_registered: true,
      suspended_state: ORIGINAL,
      desired_instance_count: 3,
      min_capacity: 1,
      max_capacity: 4,
      pid: process.pid,
      command: 'scalegate qmax --model test',
      run_id: 'run-1',
    });
    expect(frozen.journal.desired_instance_count).toBe(3);
    await frozen.restore();
  });

  it('suspends every flag (min/max untouched), pins one instance and waits until it is InService', async () => {
    const { fake, freeze } = setup();
    const frozen = await freeze();
    expect(fake.target?.suspended).toEqual(ALL);
    expect(fake.target).toMatchObject({ minCapacity: 1, maxCapacity: 4 });
    expect(fake.desired).toBe(1);
    expect(frozen.frozenCapacity).toMatchObject({ endpointStatus: 'InService', desired: 1, current: 1 });
    await frozen.restore();
  });

  it('restores the exact captured flags and desired count, deletes the journal, and a second restore changes nothing', async () => {
    const { fake, journalFile, freeze } = setup();
    const frozen = await freeze();
    const report = await frozen.restore();
    expect(report.errors).toEqual([]);
    expect(report.journalDeleted).toBe(true);
    expect(fake.target?.suspended).toEqual(ORIGINAL);
    expect(fake.desired).toBe(3);
    expect(existsSync(journalFile)).toBe(false);
    const calls = fake.calls.length;
    expect(await frozen.restore()).toBe(report);
    expect(fake.calls.length).toBe(calls);
  });

  it('refuses to measure a fleet that can still grow, and restores before saying so', async () => {
    const { fake, journalFile, freeze } = setup();
    fake.ignoreSuspension = true;
    await expect(freeze()).rejects.toThrow(/refusing to measure: .* can still scale/);
    expect(fake.desired).toBe(3);
    expect(existsSync(journalFile)).toBe(false);
  });

  it('restores when interrupted while waiting for the instance, then rethrows', async () => {
    const { fake, journalFile, freeze } = setup({ pollsToSettle: 1_000_000 });
    const controller = new AbortController();
    const pending = freeze({ signal: controller.signal, pollIntervalMs: 5 });
    controller.abort(new InterruptedError('SIGINT'));
    await expect(pending).rejects.toThrow(/SIGINT/);
    // The endpoint is still Updating towards 1: the desired count cannot be put back yet, so
    // the journal stays for `scalegate thaw`; the flags are restored already.
    expect(fake.target?.suspended).toEqual(ORIGINAL);
    expect(existsSync(journalFile)).toBe(true);
  });

  it('refuses to freeze over a leftover journal (it would capture the frozen state as the original)', async () => {
    const { fake, freeze } = setup();
    const first = await freeze();
    const callsBefore = fake.calls.length;
    await expect(freeze()).rejects.toThrow(/scalegate thaw --endpoint speech-test/);
    expect(fake.calls.length).toBe(callsBefore);
    await first.restore();
  });

  it('keeps the journal and reports the failure when a restore call fails', async () => {
    const { fake, journalFile, freeze } = setup();
    const frozen = await freeze();
    fake.failing.set('registerSuspendedState', new Error('ThrottlingException: slow down'));
    const report = await frozen.restore();
    expect(report.errors.join()).toMatch(/ThrottlingException/);
    expect(report.journalDeleted).toBe(false);
    expect(existsSync(journalFile)).toBe(true);
  });

  it('an endpoint without a scalable target: nothing to suspend, the desired count is still restored', async () => {
    const { fake, stateDir, freeze } = setup({ suspended: null, desired: 2 });
    const frozen = await freeze();
    expect(readThawJournal('speech-test', stateDir)).toMatchObject({
      scalable_target_registered: false,
      suspended_state: null,
      desired_instance_count: 2,
    });
    expect(fake.calls).not.toContain('registerSuspendedState');
    await frozen.restore();
    expect(fake.desired).toBe(2);
  });
});

describe('the AWS adapter and the signal guard', () => {
  it('registers SuspendedState only: no MinCapacity/MaxCapacity, so the bounds stay as deployed', async () => {
    const sent: unknown[] = [];
    const client = { send: async (command: { input: unknown }) => sent.push(command.input) };
    await registerSuspendedState(
      client as unknown as ApplicationAutoScalingClient,
      'endpoint/e/variant/v',
      ALL,
    );
    expect(sent).toEqual([
      {
        ServiceNamespace: 'sagemaker',
        ResourceId: 'endpoint/e/variant/v',
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        SuspendedState: {
          DynamicScalingInSuspended: true,
          DynamicScalingOutSuspended: true,
          ScheduledScalingSuspended: true,
        },
      },
    ]);
  });

  it('turns SIGTERM into an abort (instead of death) while installed, and stops once removed', () => {
    const controller = new AbortController();
    const lines: string[] = [];
    const guard = installSignalGuard(controller, (l) => lines.push(l));
    process.emit('SIGTERM', 'SIGTERM');
    expect(controller.signal.aborted).toBe(true);
    expect(controller.signal.reason).toBeInstanceOf(InterruptedError);
    expect((controller.signal.reason as InterruptedError).exitCode).toBe(143);
    expect(guard.received).toBe('SIGTERM');
    process.emit('SIGINT', 'SIGINT');
    expect(lines[1]).toMatch(/still restoring/);
    guard.remove();
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});
