import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ApplicationAutoScalingClient } from '@aws-sdk/client-application-auto-scaling';
import { describe, expect, it } from 'vitest';
import { registerSuspendedState } from '../../src/aws/scaling.js';
import { freezeEndpoint, InterruptedError, installSignalGuard } from '../../src/commands/freeze.js';
import {
  journalFromTags,
  journalTags,
  readThawJournal,
  type ThawJournal,
  thawJournalPath,
} from '../../src/model/journal.js';
import { FakeEndpoint } from './fixtures/fake-endpoint.js';

/** An operator's own suspension of scale-out: a freeze takes it only when forced, and restores it exactly. */
const ORIGINAL = {
  dynamic_scaling_in_suspended: false,
  dynamic_scaling_out_suspended: true,
  scheduled_scaling_suspended: false,
};
const NONE = {
  dynamic_scaling_in_suspended: false,
  dynamic_scaling_out_suspended: false,
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
      // ORIGINAL has a flag set on purpose: measuring over it is a forced freeze.
      force: true,
      ...extra,
    });
  return { fake, stateDir, journalFile, freeze };
}

/** The tags another run's freeze (run id `rival`) puts on the endpoint. */
function rivalJournalTags(): Record<string, string> {
  const rival: ThawJournal = {
    schema_version: 1,
    kind: 'thaw-journal',
    endpoint: 'speech-test',
    variant: 'AllTraffic',
    region: 'us-east-1',
    resource_id: 'endpoint/speech-test/variant/AllTraffic',
    scalable_target_registered: true,
    suspended_state: NONE,
    min_capacity: 1,
    max_capacity: 4,
    desired_instance_count: 3,
    started_at: new Date().toISOString(),
    pid: 4242,
    hostname: 'another-runner',
    command: 'scalegate qmax --model test',
    run_id: 'rival',
  };
  return journalTags(rival);
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
    const pending = freeze({
      signal: controller.signal,
      pollIntervalMs: 5,
      interruptedRestoreBudgetMs: 300,
      restorePollIntervalMs: 5,
      log: (line) => {
        if (/waiting for one InService instance/.test(line)) controller.abort(new InterruptedError('SIGINT'));
      },
    });
    const error = (await pending.catch((e: unknown) => e)) as InterruptedError;
    expect(error).toBeInstanceOf(InterruptedError);
    // The endpoint is still Updating towards 1 when the budget runs out: the desired count cannot
    // be put back yet, so the journal stays for `scalegate thaw`; the flags are restored already,
    // and the report attached to the error says all of it (never "nothing was frozen").
    expect(fake.target?.suspended).toEqual(ORIGINAL);
    expect(existsSync(journalFile)).toBe(true);
    expect(error.restore?.errors.join()).toMatch(/still Updating .*left at 1/);
    expect(error.restore?.actions.join()).toMatch(/suspension flags restored/);
  });

  it('refuses to freeze over a leftover local journal (it would capture the frozen state as the original), before any call', async () => {
    const { fake, freeze } = setup();
    const first = await freeze();
    const callsBefore = fake.calls.length;
    await expect(freeze({ force: false, runId: 'run-2' })).rejects.toThrow(
      /scalegate thaw --endpoint speech-test.*--force/,
    );
    expect(fake.calls.length).toBe(callsBefore);
    await first.restore();
  });

  it('refuses a target whose scaling is already suspended (an operator’s choice or a lost freeze), naming thaw and --force, and changes nothing', async () => {
    const { fake, journalFile, freeze } = setup();
    const refusal = freeze({ force: false });
    await expect(refusal).rejects.toThrow(/already has scaling suspended \(in=false, out=true/);
    await expect(refusal).rejects.toThrow(
      /scalegate thaw --endpoint speech-test --clear-suspension.*--force/,
    );
    expect(fake.calls.filter((c) => /register|set|add/i.test(c))).toEqual([]);
    expect(existsSync(journalFile)).toBe(false);
    expect(fake.target?.suspended).toEqual(ORIGINAL);
  });

  it('writes the journal to the endpoint’s tags after the local file and before any change, and removes both on restore', async () => {
    const { fake, stateDir, freeze } = setup({ suspended: NONE });
    const order: string[] = [];
    const add = fake.addEndpointTags.bind(fake);
    fake.addEndpointTags = async (tags) => {
      const what = Object.keys(tags).some((k) => k.startsWith('scalegate:thaw-journal'))
        ? 'journal'
        : 'claim';
      order.push(
        `${what} tags (local journal ${existsSync(thawJournalPath('speech-test', stateDir)) ? 'present' : 'absent'})`,
      );
      return add(tags);
    };
    const frozen = await freeze({ force: false });
    const firstChange = fake.calls.findIndex(
      (c) => c === 'registerSuspendedState' || c === 'setDesiredInstanceCount',
    );
    expect(fake.calls.lastIndexOf('addEndpointTags')).toBeLessThan(firstChange);
    // The claim (choosing, then claimed) before the local journal; the journal's tags after it.
    expect(order).toEqual([
      'claim tags (local journal absent)',
      'claim tags (local journal absent)',
      'journal tags (local journal present)',
    ]);
    expect(journalFromTags(fake.tags, 'fake')).toEqual(readThawJournal('speech-test', stateDir));
    await frozen.restore();
    expect(fake.tags).toEqual({});
    expect(readThawJournal('speech-test', stateDir)).toBeNull();
  });

  it('a second freeze from another machine sees the first one’s journal on the endpoint and refuses, naming thaw and --force (never records the frozen state as the original)', async () => {
    const { fake, freeze } = setup({ suspended: NONE });
    const first = await freeze({ force: false });
    const otherMachine = mkdtempSync(join(tmpdir(), 'scalegate-freeze-other-'));
    const callsBefore = fake.calls.length;
    const second = freeze({ force: false, stateDir: otherMachine, runId: 'run-2' });
    await expect(second).rejects.toThrow(
      /being measured by run run-1 from host .* since .*heartbeat 0 s ago.*scalegate thaw --endpoint speech-test --force/,
    );
    expect(fake.calls.slice(callsBefore).filter((c) => /register|set|add|delete/i.test(c))).toEqual([]);
    expect(readThawJournal('speech-test', otherMachine)).toBeNull();
    await first.restore();
    expect(fake.desired).toBe(3);
    expect(fake.target?.suspended).toEqual(NONE);
  });

  it('forced over another run’s freeze, keeps the original state that run recorded, not the frozen state it sees', async () => {
    const { fake, freeze } = setup({ suspended: NONE });
    await freeze({ force: false });
    // The first run is lost (its runner died): the endpoint is frozen at 1, all flags suspended.
    const otherMachine = mkdtempSync(join(tmpdir(), 'scalegate-freeze-other-'));
    // Its claim is stale (no heartbeat for ten minutes): a forced freeze may go on.
    const later = () => Date.now() + 10 * 60_000;
    const second = await freeze({ force: true, stateDir: otherMachine, runId: 'run-2', clock: later });
    expect(second.journal).toMatchObject({
      desired_instance_count: 3,
      suspended_state: NONE,
      run_id: 'run-2',
    });
    expect(journalFromTags(fake.tags, 'fake')?.run_id).toBe('run-2');
    await second.restore();
    expect(fake.desired).toBe(3);
    expect(fake.target?.suspended).toEqual(NONE);
    expect(fake.tags).toEqual({});
  });

  it('backs off, changing nothing, when another run wrote its journal over this one at the same moment', async () => {
    const { fake, journalFile, freeze } = setup({ suspended: NONE });
    const add = fake.addEndpointTags.bind(fake);
    const rival = rivalJournalTags();
    fake.addEndpointTags = async (tags) => {
      await add(tags);
      await add(rival); // the other run's AddTags lands just after ours
    };
    await expect(freeze({ force: false })).rejects.toThrow(
      /another run wrote its thaw journal over this one/,
    );
    expect(fake.calls).not.toContain('registerSuspendedState');
    expect(fake.calls).not.toContain('setDesiredInstanceCount');
    expect(existsSync(journalFile)).toBe(false);
    expect(journalFromTags(fake.tags, 'fake')?.run_id).toBe('rival');
    // Only this run's own claim was removed.
    expect(Object.keys(fake.tags).filter((k) => k.startsWith('scalegate:freeze:'))).toEqual([]);
  });

  it('refuses when the endpoint changes between its two reads (another freeze starting), changing nothing', async () => {
    const { fake, journalFile, freeze } = setup({ suspended: NONE });
    const read = fake.readEndpointTags.bind(fake);
    fake.readEndpointTags = async () => {
      const tags = await read();
      if (fake.target) fake.target.suspended = ORIGINAL; // someone suspends while we look
      return tags;
    };
    await expect(freeze({ force: false })).rejects.toThrow(/changed while its state was being recorded/);
    expect(fake.calls).not.toContain('addEndpointTags');
    expect(existsSync(journalFile)).toBe(false);
  });

  it('restore leaves another run’s journal on the endpoint in place (it only removes its own)', async () => {
    const { fake, freeze } = setup({ suspended: NONE });
    const frozen = await freeze({ force: false });
    fake.tags = rivalJournalTags();
    const report = await frozen.restore();
    expect(report.actions.join('\n')).toMatch(/another run's journal .*left in place/);
    expect(journalFromTags(fake.tags, 'fake')?.run_id).toBe('rival');
  });

  it('refuses an endpoint or variant name that is not SageMaker’s before any call (it becomes a path and a request)', async () => {
    const { fake, freeze } = setup();
    await expect(freeze({ endpoint: '../../etc' })).rejects.toThrow(/not a SageMaker endpoint name/);
    await expect(freeze({ variant: 'All/Traffic' })).rejects.toThrow(/not a SageMaker variant name/);
    expect(fake.calls).toEqual([]);
  });

  it('keeps the journal and reports the failure when a restore call fails', async () => {
    const { fake, journalFile, freeze } = setup();
    const frozen = await freeze({ restoreBudgetMs: 300, restorePollIntervalMs: 5 });
    fake.failing.set('registerSuspendedState', new Error('ThrottlingException: slow down'));
    const report = await frozen.restore();
    // Retried while the budget lasted, then reported (never thrown, never lost).
    expect(report.errors.join()).toMatch(
      /ThrottlingException: slow down \([1-9][0-9]* attempts within the restore's budget\)/,
    );
    expect(fake.calls.filter((c) => c === 'registerSuspendedState').length).toBeGreaterThan(2);
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
