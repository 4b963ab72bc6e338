import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freezeEndpoint } from '../../src/commands/freeze.js';
import { runThaw } from '../../src/commands/thaw.js';
import { thawJournalPath, writeThawJournal } from '../../src/model/journal.js';
import { FakeEndpoint } from './fixtures/fake-endpoint.js';

const ORIGINAL = {
  dynamic_scaling_in_suspended: true,
  dynamic_scaling_out_suspended: false,
  scheduled_scaling_suspended: false,
};

async function frozenAndKilled(options: ConstructorParameters<typeof FakeEndpoint>[0] = {}) {
  const stateDir = mkdtempSync(join(tmpdir(), 'scalegate-thaw-'));
  const fake = new FakeEndpoint({ desired: 2, suspended: ORIGINAL, ...options });
  // Freeze, then "die" without restoring (what SIGKILL leaves behind).
  const frozen = await freezeEndpoint({
    endpoint: 'speech-test',
    variant: 'AllTraffic',
    region: 'us-east-1',
    adapters: fake,
    stateDir,
    commandLine: 'scalegate qmax --model test',
    pollIntervalMs: 1,
  });
  // A dead process: rewrite the journal with a pid that cannot be running.
  writeThawJournal({ ...frozen.journal, pid: 2 ** 22 + 1 }, stateDir);
  return { fake, stateDir };
}

const options = (stateDir: string) => ({
  endpoint: 'speech-test',
  variant: 'AllTraffic',
  stateDir,
  pollIntervalMs: 1,
});

describe('thaw', () => {
  it('restores exactly what the journal captured and deletes it', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    const result = await runThaw(options(stateDir), { adapters: fake });
    expect(result.exitCode).toBe(0);
    expect(fake.target?.suspended).toEqual(ORIGINAL);
    expect(fake.desired).toBe(2);
    expect(existsSync(thawJournalPath('speech-test', stateDir))).toBe(false);
    expect(result.report).toMatch(/desired instance count 1 -> 2/);
    expect(result.artifact?.journal_deleted).toBe(true);
  });

  it('is idempotent: a second thaw finds no journal and only clears flags that are still set', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    await runThaw(options(stateDir), { adapters: fake });
    const second = await runThaw(options(stateDir), { adapters: fake });
    expect(second.exitCode).toBe(0);
    expect(second.artifact?.journal).toBeNull();
    expect(fake.target?.suspended).toEqual({
      dynamic_scaling_in_suspended: false,
      dynamic_scaling_out_suspended: false,
      scheduled_scaling_suspended: false,
    });
    const third = await runThaw(options(stateDir), { adapters: fake });
    expect(third.report).toMatch(/not suspended: nothing to do/);
    expect(fake.desired).toBe(2);
  });

  it('waits for an endpoint still Updating from the freeze before putting its capacity back', async () => {
    const { fake, stateDir } = await frozenAndKilled({ pollsToSettle: 3 });
    // Killed right after asking for one instance: still Updating.
    await fake.setDesiredInstanceCount(1).catch(() => {});
    fake.status = 'Updating';
    const result = await runThaw(options(stateDir), { adapters: fake });
    expect(result.exitCode).toBe(0);
    expect(fake.desired).toBe(2);
  });

  it('refuses to thaw under a run that is still alive (it restores on exit), unless forced', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    const live = (await import('../../src/model/journal.js')).readThawJournal('speech-test', stateDir);
    writeThawJournal({ ...(live as NonNullable<typeof live>), pid: process.ppid }, stateDir);
    await expect(runThaw(options(stateDir), { adapters: fake })).rejects.toThrow(/still running/);
    const forced = await runThaw({ ...options(stateDir), force: true }, { adapters: fake });
    expect(forced.exitCode).toBe(0);
  });

  it('keeps the journal and exits 1 when a restore call fails', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    fake.failing.set('registerSuspendedState', new Error('AccessDeniedException'));
    const result = await runThaw(options(stateDir), { adapters: fake });
    expect(result.exitCode).toBe(1);
    expect(result.report).toMatch(/FAILED: .*AccessDeniedException/);
    expect(existsSync(thawJournalPath('speech-test', stateDir))).toBe(true);
  });

  it('an endpoint that was never frozen and has no scalable target: nothing to restore', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'scalegate-thaw-'));
    const fake = new FakeEndpoint({ suspended: null });
    const result = await runThaw(options(stateDir), { adapters: fake });
    expect(result.exitCode).toBe(0);
    expect(result.report).toMatch(/nothing to restore/);
    expect(fake.calls).toEqual(['describeScalableTarget']);
  });
});
