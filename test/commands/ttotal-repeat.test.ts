/**
 * `ttotal --repeat 3` on the local SageMaker (2 s provisioning delay): three forced scale-outs in
 * one freeze, each put back to one instance before the next, every one recorded with its stages,
 * the upper 90 % prediction bound for the next T_total, and `plan` sizing T_plan on that bound.
 * Real SDK clients, real container processes; the ladder is the anchor's, re-fingerprinted as
 * the emulator endpoint's (the probe runs at 10 in flight, recovery judged against its rung 5).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeScalableTarget } from '../../src/aws/scaling.js';
import { runPlan } from '../../src/commands/plan.js';
import { runTtotal, TIMELINE_ORDER } from '../../src/commands/ttotal.js';
import { clientConfigFor } from '../../src/local/index.js';
import { readArtifact } from '../../src/model/index.js';
import { thawJournalPath } from '../../src/model/journal.js';
import {
  type Emulator,
  emulatorQmaxFile,
  MODEL,
  modelConfig,
  serialContainer,
  startEmulator,
  withEmulatorEnv,
  workspace,
} from './local-apply-fixtures.js';

const PROVISION_DELAY_S = 2;

let emulator: Emulator;
let dir: string;
let stateDir: string;
let restoreEnv: () => void;

beforeAll(async () => {
  emulator = await startEmulator({
    provisionDelayS: PROVISION_DELAY_S,
    registerScalableTarget: true,
    container: serialContainer,
  });
  dir = workspace('ttotal-repeat');
  stateDir = join(dir, 'state');
  restoreEnv = withEmulatorEnv(emulator, stateDir);
}, 90_000);

afterAll(async () => {
  restoreEnv?.();
  await emulator?.close();
});

describe('ttotal --repeat 3 on the local SageMaker', () => {
  it('times three scale-outs, restoring one instance between them, records each with its stages and a 90 % prediction bound that plan takes as T_total', {
    timeout: 180_000,
  }, async () => {
    const { handle, clients } = emulator;
    const resourceId = `endpoint/${handle.endpointName}/variant/${handle.variantName}`;
    const suspendedBefore = (await describeScalableTarget(clients.autoscaling, resourceId))?.suspended;
    const qmaxFile = await emulatorQmaxFile(emulator, dir);
    const ttotalFile = join(dir, 'ttotal.json');
    const result = await runTtotal(
      {
        modelName: MODEL,
        model: modelConfig(),
        endpoint: handle.endpointName,
        variant: handle.variantName,
        region: handle.region,
        qmaxFile,
        probeConcurrency: 10,
        repeat: 3,
        settleS: 2,
        pollS: 0.25,
        maxWaitS: 60,
        stateDir,
        outFile: ttotalFile,
      },
      { clients, loadClient: clientConfigFor(handle), version: 'test', handleSignals: false },
    );
    expect(result.exitCode, result.report).toBe(0);
    console.log(result.report);
    const artifact = readArtifact('ttotal', ttotalFile);

    // Three observations, each a whole scale-out from one instance to two, on a new instance.
    const observations = artifact.observations ?? [];
    expect(observations.map((o) => o.index)).toEqual([0, 1, 2]);
    for (const o of observations) {
      expect(o.timeline.map((t) => t.stage)).toEqual([...TIMELINE_ORDER]);
      expect(o.missing_stages).toEqual([]);
      expect(o.t_total_end_stage).toBe('traffic_recovered');
      expect(o.t_total_s).toBeGreaterThanOrEqual(PROVISION_DELAY_S);
      expect(o).toMatchObject({ from_instances: 1, to_instances: 2 });
    }
    expect(new Set(observations.map((o) => o.instance_id)).size).toBe(3);
    // Each later scale-out started after the previous one was put back (its clock starts later).
    for (let i = 1; i < observations.length; i++) {
      expect(Date.parse(observations[i]?.measured_at as string)).toBeGreaterThan(
        Date.parse(observations[i - 1]?.measured_at as string),
      );
    }
    // The top-level timeline is the median observation's.
    const sorted = observations.map((o) => o.t_total_s).sort((a, b) => a - b);
    expect(artifact.t_total_s).toBe(sorted[1]);
    expect(artifact.settings?.repeat).toBe(3);

    // The bound: log-normal t at 90 %, above the observations' geometric mean.
    const prediction = artifact.t_total_prediction;
    expect(prediction).toMatchObject({ n: 3, level: 0.9, method: 'log-normal-t' });
    const geomean = Math.exp(sorted.reduce((a, v) => a + Math.log(v), 0) / 3);
    expect(prediction?.upper_s as number).toBeGreaterThan(geomean);
    expect(result.report).toContain('3 scale-outs: T_total');
    expect(result.report).toMatch(/next T_total <= [0-9.]+ s \(upper 90 % prediction bound/);

    // Back to the pre-run state once, at the end: one instance, flags as they were, no journal.
    await handle.waitFor((s) => s.status === 'InService' && s.desired === 1 && s.current === 1);
    expect((await describeScalableTarget(clients.autoscaling, resourceId))?.suspended).toEqual(
      suspendedBefore,
    );
    expect(existsSync(thawJournalPath(handle.endpointName, stateDir))).toBe(false);

    // plan takes the bound as T_total, labelled as a bound, and T_plan is built on it.
    const plan = runPlan(
      {
        modelName: MODEL,
        model: modelConfig(),
        qmaxFile,
        ttotalFile,
        allowConfigMismatch: false,
        outFile: join(dir, 'plan.json'),
        failOn: 'stop',
      },
      { version: 'test' },
    );
    const m = plan.artifact?.measured;
    expect(m?.t_total_origin).toBe('bound');
    expect(m?.t_total_s).toBe(prediction?.upper_s);
    expect(m?.t_total_provenance).toBe('bound (upper 90 % prediction, n=3)');
    expect(m?.t_total_observations_s).toEqual(observations.map((o) => o.t_total_s));
    expect(plan.report).toContain('T_total (bound (upper 90 % prediction, n=3))');
    expect(plan.artifact?.derived.t_plan_s).toBeCloseTo(
      (prediction?.upper_s as number) + artifact.policy_lag_s,
      6,
    );
    // With three observations the band has a T_plan upper bound (the 99 % prediction bound).
    const tHigh = plan.artifact?.derived.surge_sensitivity?.items.find((i) => i.vary === 't_plan_high');
    expect(tHigh?.probability).not.toBeNull();
    expect(tHigh?.used).toContain('99 % prediction bound');
  });
});
