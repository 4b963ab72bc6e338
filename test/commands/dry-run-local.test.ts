/**
 * `thaw --dry-run` and `ttotal --dry-run` against the local SageMaker with real SDK clients: they
 * say what a run would freeze, request and restore, and no call that changes anything reaches the
 * endpoint (every SDK call they make is recorded and must be a read; the endpoint's state, tags
 * and the journal file are as before). The real thaw afterwards does what the dry run said.
 */
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeVariantCapacity } from '../../src/aws/endpoint.js';
import { awsFreezeAdapters, freezeEndpoint } from '../../src/commands/freeze.js';
import { runThaw } from '../../src/commands/thaw.js';
import { runTtotal } from '../../src/commands/ttotal.js';
import { journalTagKeys, journalTags, thawJournalPath, writeThawJournal } from '../../src/model/journal.js';
import { KOKORO_QMAX_FILE, startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';
import { kokoroModel } from '../infra/fixtures.js';
import { serialContainer } from './local-apply-fixtures.js';

const ORIGINAL = {
  DynamicScalingInSuspended: false,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: false,
};

/** A read: Describe*, List*, Get* (everything else changes the endpoint or its scaling). */
const isRead = (command: string) => /^(Describe|List|Get)/.test(command);

/** Records the name of every call each client sends from now on (the real call still goes out). */
function recordCalls(e: TestEndpoint): string[] {
  const calls: string[] = [];
  for (const client of [
    e.clients.sagemaker,
    e.clients.autoscaling,
    e.clients.cloudwatch,
    e.clients.logs,
    e.clients.quotas,
  ]) {
    (
      client as unknown as {
        middlewareStack: { add: (m: unknown, o: unknown) => void; remove: (n: string) => void };
      }
    ).middlewareStack.remove('testRecordCalls');
    (client as unknown as { middlewareStack: { add: (m: unknown, o: unknown) => void } }).middlewareStack.add(
      (next: (a: unknown) => Promise<unknown>, context: { commandName?: string }) =>
        async (args: unknown) => {
          calls.push(String(context.commandName).replace(/Command$/, ''));
          return next(args);
        },
      { step: 'initialize', name: 'testRecordCalls' },
    );
  }
  return calls;
}

let e: TestEndpoint;
let stateDir: string;
beforeAll(async () => {
  e = await startTestEndpoint(
    { instances: 2, container: serialContainer, endpointName: 'dry-run-calibration' },
    ORIGINAL,
  );
  stateDir = mkdtempSync(join(tmpdir(), 'scalegate-dry-run-'));
});
afterAll(async () => {
  await e?.close();
});

describe('ttotal --dry-run', () => {
  it('prints the freeze, the probe, the scale-out it would request and the restore, with reads only', async () => {
    const calls = recordCalls(e);
    const result = await runTtotal(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        endpoint: e.handle.endpointName,
        variant: e.handle.variantName,
        region: e.handle.region,
        qmaxFile: KOKORO_QMAX_FILE,
        allowConfigMismatch: true,
        stateDir,
        dryRun: true,
      },
      { clients: e.clients },
    );
    expect(result.exitCode, result.report).toBe(0);
    expect(result.written).toEqual([]);
    expect(result.report).toContain(
      `ttotal dry run: kokoro-82m on endpoint dry-run-calibration variant AllTraffic`,
    );
    expect(result.report).toMatch(
      /freeze the variant at one instance: desired 2 -> 1 \(UpdateEndpointWeightsAndCapacities\)/,
    );
    expect(result.report).toMatch(/request the scale-out 1 -> 2 \(UpdateEndpointWeightsAndCapacities\)/);
    expect(result.report).toMatch(/suspend scaling of endpoint\/dry-run-calibration\/variant\/AllTraffic/);
    expect(result.report).toMatch(/restore desired 2 and the suspension flags/);
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((c) => !isRead(c))).toEqual([]);
    expect(existsSync(thawJournalPath(e.handle.endpointName, stateDir))).toBe(false);
    const capacity = await describeVariantCapacity(
      e.clients.sagemaker,
      e.handle.endpointName,
      e.handle.variantName,
    );
    expect(capacity.desired).toBe(2);
  });
});

describe('thaw --dry-run', () => {
  it('names what it would restore from the journal of a killed freeze, changes nothing, and the real thaw then does it', async () => {
    const adapters = awsFreezeAdapters(e.clients, e.handle.endpointName, e.handle.variantName);
    // A freeze that was killed: the endpoint at one instance, scaling suspended, the journal on the endpoint and on disk.
    const frozen = await freezeEndpoint({
      endpoint: e.handle.endpointName,
      variant: e.handle.variantName,
      region: e.handle.region,
      adapters,
      stateDir,
      commandLine: 'scalegate ttotal --model kokoro-82m',
      pollIntervalMs: 50,
      runId: 'run-killed',
      // Killed ten minutes ago: its claim's last heartbeat is that old (stale), as a dead run's is.
      clock: () => Date.now() - 10 * 60_000,
    });
    const dead = { ...frozen.journal, pid: 2 ** 22 + 1 };
    writeThawJournal(dead, stateDir);
    await adapters.addEndpointTags(journalTags(dead));
    const tagsBefore = journalTagKeys(await adapters.readEndpointTags()).sort();
    const targetBefore = await adapters.describeScalableTarget(e.resourceId);
    const desiredBefore = (await adapters.describeVariantCapacity()).desired;
    expect(desiredBefore).toBe(1);

    const calls = recordCalls(e);
    const dry = await runThaw(
      {
        endpoint: e.handle.endpointName,
        variant: e.handle.variantName,
        stateDir,
        dryRun: true,
        pollIntervalMs: 50,
      },
      { clients: e.clients },
    );
    expect(dry.exitCode, dry.report).toBe(0);
    expect(dry.report).toContain(
      'thaw dry run dry-run-calibration/AllTraffic (read only: nothing was changed):',
    );
    expect(dry.report).toContain(
      'would set the desired instance count 1 -> 2 (UpdateEndpointWeightsAndCapacities)',
    );
    expect(dry.report).toMatch(
      /would restore the suspension flags of endpoint\/dry-run-calibration\/variant\/AllTraffic to in=false, out=false, scheduled=false/,
    );
    expect(dry.report).toContain(
      "would remove run run-killed's journal from the endpoint's tags (DeleteTags)",
    );
    expect(dry.report).toContain(
      `would delete the local journal ${thawJournalPath(e.handle.endpointName, stateDir)}`,
    );
    expect(calls.filter((c) => !isRead(c))).toEqual([]);
    expect(existsSync(thawJournalPath(e.handle.endpointName, stateDir))).toBe(true);
    expect(journalTagKeys(await adapters.readEndpointTags()).sort()).toEqual(tagsBefore);
    expect((await adapters.describeScalableTarget(e.resourceId))?.suspended).toEqual(targetBefore?.suspended);
    expect((await adapters.describeVariantCapacity()).desired).toBe(1);

    const real = await runThaw(
      { endpoint: e.handle.endpointName, variant: e.handle.variantName, stateDir, pollIntervalMs: 50 },
      { clients: e.clients },
    );
    expect(real.exitCode, real.report).toBe(0);
    expect(real.report).toContain('desired instance count 1 -> 2');
    expect(calls.filter((c) => !isRead(c)).sort()).toEqual(
      ['DeleteTags', 'RegisterScalableTarget', 'UpdateEndpointWeightsAndCapacities'].sort(),
    );
    expect(existsSync(thawJournalPath(e.handle.endpointName, stateDir))).toBe(false);
  });
});
