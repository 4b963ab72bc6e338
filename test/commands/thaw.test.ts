import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freezeEndpoint } from '../../src/commands/freeze.js';
import { runThaw } from '../../src/commands/thaw.js';
import { claimTag } from '../../src/model/freeze-claim.js';
import {
  journalFromTags,
  journalTags,
  type ThawJournal,
  thawJournalPath,
  writeThawJournal,
} from '../../src/model/journal.js';
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
    runId: 'run-1',
    // ORIGINAL has an operator's flag set: measuring over it is a forced freeze.
    force: true,
  });
  // A dead process: rewrite both copies of the journal with a pid that cannot be running.
  const dead = { ...frozen.journal, pid: 2 ** 22 + 1 };
  writeThawJournal(dead, stateDir);
  fake.tags = journalTags(dead);
  return { fake, stateDir };
}

const NONE = {
  dynamic_scaling_in_suspended: false,
  dynamic_scaling_out_suspended: false,
  scheduled_scaling_suspended: false,
};

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

  it('is idempotent: a second thaw finds no journal and changes nothing (the operator’s own suspension flag stays set)', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    await runThaw(options(stateDir), { adapters: fake });
    const callsBefore = fake.calls.length;
    const second = await runThaw(options(stateDir), { adapters: fake });
    expect(second.exitCode).toBe(0);
    expect(second.artifact?.journal).toBeNull();
    expect(second.report).toMatch(/no thaw journal .*nothing changed.*in=true.*--clear-suspension/);
    expect(fake.calls.slice(callsBefore).filter((c) => /register|set|add|delete/i.test(c))).toEqual([]);
    expect(fake.target?.suspended).toEqual(ORIGINAL);
    expect(fake.desired).toBe(2);
  });

  it('without any journal clears suspension flags only when --clear-suspension asks', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'scalegate-thaw-'));
    const fake = new FakeEndpoint({ desired: 2, suspended: ORIGINAL });
    const cleared = await runThaw({ ...options(stateDir), clearSuspension: true }, { adapters: fake });
    expect(cleared.exitCode).toBe(0);
    expect(cleared.report).toMatch(
      /cleared the suspension flags .*\(were in=true, out=false, scheduled=false\)/,
    );
    expect(fake.target?.suspended).toEqual(NONE);
    const again = await runThaw({ ...options(stateDir), clearSuspension: true }, { adapters: fake });
    expect(again.report).toMatch(/not suspended: nothing to do/);
  });

  it('refuses --clear-suspension while another run has a fresh claim on the endpoint (its flags are a live freeze), unless --force', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'scalegate-thaw-'));
    const fake = new FakeEndpoint({ desired: 1, suspended: ORIGINAL });
    const now = Date.now();
    const live = {
      runId: 'run-9',
      phase: 'claim' as const,
      startMs: now - 30_000,
      beatMs: now - 1_000,
      host: 'runner-3',
    };
    fake.tags = claimTag(live);
    const callsBefore = fake.calls.length;
    await expect(
      runThaw({ ...options(stateDir), clearSuspension: true, clock: () => now }, { adapters: fake }),
    ).rejects.toThrow(/run run-9 from host runner-3 .* is still measuring.*--force/);
    expect(fake.calls.slice(callsBefore).filter((c) => /register|set|add|delete/i.test(c))).toEqual([]);
    expect(fake.target?.suspended).toEqual(ORIGINAL);
    const forced = await runThaw(
      { ...options(stateDir), clearSuspension: true, force: true, clock: () => now },
      { adapters: fake },
    );
    expect(forced.exitCode).toBe(0);
    expect(fake.target?.suspended).toEqual(NONE);
  });

  it('restores from the journal on the endpoint when the machine that froze it is gone (a lost runner)', async () => {
    const { fake } = await frozenAndKilled();
    const elsewhere = mkdtempSync(join(tmpdir(), 'scalegate-thaw-elsewhere-'));
    const result = await runThaw(options(elsewhere), { adapters: fake });
    expect(result.exitCode).toBe(0);
    expect(result.report).toMatch(/the journal on endpoint speech-test: run run-1/);
    expect(fake.desired).toBe(2);
    expect(fake.target?.suspended).toEqual(ORIGINAL);
    expect(fake.tags).toEqual({});
  });

  it('removes a local journal the endpoint does not carry and changes nothing (that freeze changed nothing, or was restored elsewhere)', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    await runThaw(options(mkdtempSync(join(tmpdir(), 'scalegate-thaw-elsewhere-'))), { adapters: fake });
    // Later, someone changes the fleet by hand; the stale local journal must not undo that.
    while ((fake.status as string) === 'Updating') await fake.describeVariantCapacity();
    await fake.setDesiredInstanceCount(4);
    while ((fake.status as string) === 'Updating') await fake.describeVariantCapacity();
    const callsBefore = fake.calls.length;
    const result = await runThaw(options(stateDir), { adapters: fake });
    expect(result.exitCode).toBe(0);
    expect(result.report).toMatch(/local journal .* removed: the endpoint does not carry it/);
    expect(fake.calls.slice(callsBefore).filter((c) => /register|set|add|delete/i.test(c))).toEqual([]);
    expect(fake.desired).toBe(4);
    expect(existsSync(thawJournalPath('speech-test', stateDir))).toBe(false);
  });

  it('with a run id restores only that run’s journal (another run’s is left alone)', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    const other = await runThaw({ ...options(stateDir), runId: 'run-2' }, { adapters: fake });
    expect(other.exitCode).toBe(0);
    expect(other.report).toMatch(/not run run-2: ignored/);
    expect(fake.desired).toBe(1);
    expect(journalFromTags(fake.tags, 'fake')?.run_id).toBe('run-1');
    const own = await runThaw({ ...options(stateDir), runId: 'run-1' }, { adapters: fake });
    expect(own.exitCode).toBe(0);
    expect(fake.desired).toBe(2);
  });

  it('refuses a journal on the endpoint that names another endpoint or variant (a forged tag restores nothing)', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    const forged = journalFromTags(fake.tags, 'fake') as NonNullable<ReturnType<typeof journalFromTags>>;
    fake.tags = journalTags({
      ...forged,
      endpoint: 'speech-prod',
      resource_id: 'endpoint/speech-prod/variant/AllTraffic',
    });
    await expect(runThaw(options(stateDir), { adapters: fake })).rejects.toThrow(
      /is for speech-prod\/AllTraffic, not speech-test\/AllTraffic/,
    );
    expect(fake.desired).toBe(1);
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
    const alive = { ...(live as NonNullable<typeof live>), pid: process.ppid };
    writeThawJournal(alive, stateDir);
    fake.tags = journalTags(alive);
    await expect(runThaw(options(stateDir), { adapters: fake })).rejects.toThrow(/still running/);
    const forced = await runThaw({ ...options(stateDir), force: true }, { adapters: fake });
    expect(forced.exitCode).toBe(0);
  });

  it('refuses to thaw an endpoint whose measuring run has a fresh heartbeat (from any host), naming the run, host and heartbeat age, unless --force', async () => {
    const { fake } = await frozenAndKilled();
    const now = Date.now();
    // The run is measuring on another machine: its process cannot be looked at from here.
    const elsewhereJournal = { ...(journalFromTags(fake.tags, 'fake') as ThawJournal), hostname: 'runner-7' };
    fake.tags = journalTags(elsewhereJournal);
    const live = {
      runId: 'run-1',
      phase: 'claim' as const,
      startMs: now - 60_000,
      beatMs: now - 2_000,
      host: 'runner-7',
    };
    fake.tags = { ...fake.tags, ...claimTag(live) };
    const elsewhere = mkdtempSync(join(tmpdir(), 'scalegate-thaw-elsewhere-'));
    const callsBefore = fake.calls.length;
    const refusal = runThaw({ ...options(elsewhere), clock: () => now }, { adapters: fake });
    await expect(refusal).rejects.toThrow(
      /run run-1 from host runner-7 since .* \(heartbeat 2 s ago\) is still measuring.*--force/,
    );
    expect(fake.desired).toBe(1);
    expect(fake.calls.slice(callsBefore).filter((c) => /register|set|add|delete/i.test(c))).toEqual([]);
    const forced = await runThaw(
      { ...options(elsewhere), force: true, clock: () => now },
      { adapters: fake },
    );
    expect(forced.exitCode).toBe(0);
    expect(fake.desired).toBe(2);
    expect(fake.tags).toEqual({});
  });

  it('thaws without --force once the heartbeat is stale (three missed periods: the run is gone), removing its claim', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    const now = Date.now();
    const gone = {
      runId: 'run-1',
      phase: 'claim' as const,
      startMs: now - 600_000,
      beatMs: now - 91_000,
      host: 'runner-7',
    };
    const orphan = {
      runId: 'run-0',
      phase: 'choosing' as const,
      startMs: now - 900_000,
      beatMs: now - 900_000,
      host: 'x',
    };
    fake.tags = { ...fake.tags, ...claimTag(gone), ...claimTag(orphan) };
    const result = await runThaw({ ...options(stateDir), clock: () => now }, { adapters: fake });
    expect(result.exitCode, result.report).toBe(0);
    expect(fake.desired).toBe(2);
    expect(result.report).toMatch(/freeze claim removed/);
    expect(result.report).toMatch(/removed the freeze claims? of runs that are gone: scalegate:freeze:run-0/);
    expect(fake.tags).toEqual({});
  });

  it('keeps the journal (local and on the endpoint) and exits 1 when a restore call fails', async () => {
    const { fake, stateDir } = await frozenAndKilled();
    fake.failing.set('registerSuspendedState', new Error('AccessDeniedException'));
    const result = await runThaw(options(stateDir), { adapters: fake });
    expect(result.exitCode).toBe(1);
    expect(result.report).toMatch(/FAILED: .*AccessDeniedException/);
    expect(existsSync(thawJournalPath('speech-test', stateDir))).toBe(true);
    expect(journalFromTags(fake.tags, 'fake')?.run_id).toBe('run-1');
  });

  it('an endpoint that was never frozen and has no scalable target: nothing to restore', async () => {
    const stateDir = mkdtempSync(join(tmpdir(), 'scalegate-thaw-'));
    const fake = new FakeEndpoint({ suspended: null });
    const result = await runThaw(options(stateDir), { adapters: fake });
    expect(result.exitCode).toBe(0);
    expect(result.report).toMatch(/nothing to restore/);
    expect(fake.calls).toEqual(['readEndpointTags', 'describeScalableTarget']);
  });
});
