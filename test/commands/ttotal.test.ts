/**
 * ttotal end to end on the local SageMaker with a 10 s provisioning delay: the qmax command
 * measures a ladder, ttotal times a forced scale-out stage by stage, the endpoint is put back
 * exactly as it was, and `plan` consumes the artifact. Real SDK clients, real container processes.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PutScalingPolicyCommand } from '@aws-sdk/client-application-auto-scaling';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeScalableTarget } from '../../src/aws/scaling.js';
import { checkDrift } from '../../src/commands/drift.js';
import { runPlan } from '../../src/commands/plan.js';
import { runQmax } from '../../src/commands/qmax.js';
import { runTtotal, TIMELINE_ORDER } from '../../src/commands/ttotal.js';
import { clientConfigFor } from '../../src/local/index.js';
import { readConfigFile } from '../../src/model/config.js';
import { readArtifact, type TtotalArtifact } from '../../src/model/index.js';
import { thawJournalPath } from '../../src/model/journal.js';
import {
  configFile,
  type Emulator,
  MODEL,
  modelConfig,
  serialContainer,
  startEmulator,
  withEmulatorEnv,
  workspace,
} from './local-apply-fixtures.js';

const PROVISION_DELAY_S = 10;

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
  dir = workspace('ttotal');
  stateDir = join(dir, 'state');
  restoreEnv = withEmulatorEnv(emulator, stateDir);
}, 90_000);

afterAll(async () => {
  restoreEnv?.();
  await emulator?.close();
});

describe('ttotal on the local SageMaker (10 s provisioning delay)', () => {
  it('times every stage of a forced scale-out, restores the endpoint, and feeds plan', {
    timeout: 150_000,
  }, async () => {
    const { handle, clients } = emulator;
    const resourceId = `endpoint/${handle.endpointName}/variant/${handle.variantName}`;
    // A deployed scale-out policy (the plan's name, a target it never reaches): ttotal reads its
    // alarm for the detection lag; the freeze keeps it from acting.
    await clients.autoscaling.send(
      new PutScalingPolicyCommand({
        ServiceNamespace: 'sagemaker',
        ResourceId: resourceId,
        ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
        PolicyName: `scalegate-${handle.endpointName}-${handle.variantName}-scale-out`,
        PolicyType: 'TargetTrackingScaling',
        TargetTrackingScalingPolicyConfiguration: {
          TargetValue: 1000,
          PredefinedMetricSpecification: {
            PredefinedMetricType: 'SageMakerVariantConcurrentRequestsPerModelHighResolution',
          },
          ScaleOutCooldown: 30,
          DisableScaleIn: true,
        },
      }),
    );
    const before = {
      status: handle.status(),
      target: await describeScalableTarget(clients.autoscaling, resourceId),
    };
    expect(before.status).toMatchObject({ status: 'InService', desired: 1, current: 1 });

    const qmaxFile = join(dir, 'qmax.json');
    const config = readConfigFile(configFile);
    const qmax = await runQmax(
      {
        modelName: MODEL,
        model: modelConfig(),
        configFile,
        endpoint: handle.endpointName,
        variant: handle.variantName,
        region: handle.region,
        ladder: 'fixed',
        // 4 as well: a rung the decision leaves undecided (a loaded client is demoted to undecided,
        // never passed) lowers Q_max, and ttotal's probe then needs N and N/2 below it.
        rungs: [1, 4, 8, 16],
        // The rung decision needs 5 batches of max(4N, 40) samples: 320 at 16 in flight, about 13 s
        // of this 25 requests/s stand-in; 17 s leaves room for a loaded machine.
        holdS: 20,
        measureS: 17,
        settleS: 3,
        minSamples: 72,
        cloudwatch: false,
        stateDir,
        pollIntervalMs: 250,
        outFile: qmaxFile,
      },
      { clients, handleSignals: false },
    );
    expect(qmax.exitCode, qmax.report).toBe(0);
    expect(config.models[MODEL]).toBeDefined();

    const ttotalFile = join(dir, 'ttotal.json');
    const result = await runTtotal(
      {
        modelName: MODEL,
        model: modelConfig(),
        endpoint: handle.endpointName,
        variant: handle.variantName,
        region: handle.region,
        qmaxFile,
        settleS: 3,
        pollS: 0.5,
        maxWaitS: 60,
        stateDir,
        outFile: ttotalFile,
      },
      { clients, loadClient: clientConfigFor(handle), version: 'test', handleSignals: false },
    );
    expect(result.exitCode, result.report).toBe(0);
    const artifact = readArtifact('ttotal', ttotalFile) as TtotalArtifact;
    // Logged for the record (the report quotes these figures).
    console.log(result.report);

    // Every stage, in order, none missing, none reconstructed.
    expect(artifact.timeline.map((t) => t.stage)).toEqual([...TIMELINE_ORDER]);
    expect(artifact.missing_stages).toEqual([]);
    const stamps = artifact.timeline.map((t) => Date.parse(t.at));
    for (let i = 1; i < stamps.length; i++) {
      const stage = artifact.timeline[i]?.stage;
      // The container's own start marker may precede CloudWatch Logs' receipt of that very line.
      const slack = stage === 'container_started' ? 1000 : 0;
      expect(stamps[i] as number, `${stage} after ${artifact.timeline[i - 1]?.stage}`).toBeGreaterThanOrEqual(
        (stamps[i - 1] as number) - slack,
      );
    }
    expect(artifact.durations.every((d) => d.seconds >= 0)).toBe(true);

    // Measured against configured: nothing serves before the instance exists.
    expect(artifact.t_total_s).toBeGreaterThanOrEqual(PROVISION_DELAY_S);
    expect(artifact.t_total_end_stage).toBe('traffic_recovered');
    expect(artifact.dominant_stage).toMatchObject({ from: 'desired_set', to: 'instance_logging' });
    expect(artifact.dominant_stage?.seconds).toBeGreaterThanOrEqual(PROVISION_DELAY_S);
    expect(artifact.durations.find((d) => d.from === 'load_applied')?.share).toBeNull();
    expect(artifact.from_instances).toBe(1);
    expect(artifact.to_instances).toBe(2);
    // ttotal's rule: the largest N <= Q_max with usable rungs at N and N/2 (16 when 16 passed).
    const measuredQmax = readArtifact('qmax', qmaxFile).q_max;
    const probe = measuredQmax >= 16 ? 16 : 8;
    expect(measuredQmax).toBeGreaterThanOrEqual(8);
    expect(artifact.probe_concurrency).toBe(probe);
    expect(artifact.instance_id).toMatch(/^i-/);
    expect(artifact.qmax_run_id).toBe(readArtifact('qmax', qmaxFile).run_id);
    expect(artifact.p95_after_ms as number).toBeLessThanOrEqual(artifact.p95_recovered_target_ms as number);
    // Detection lag read from the deployed target-tracking alarm: 3 x 10 s + one period.
    expect(artifact.policy_lag_bounded).toBe(false);
    expect(artifact.policy_lag_s).toBe(40);
    expect(artifact.settings).toMatchObject({ recovery_window_s: 3, poll_s: 0.5, probe_concurrency: probe });

    // Back to the pre-run state: fleet size, suspension flags, no journal.
    await handle.waitFor((s) => s.status === 'InService' && s.desired === 1 && s.current === 1);
    const after = await describeScalableTarget(clients.autoscaling, resourceId);
    expect(after?.suspended).toEqual(before.target?.suspended);
    expect(after?.minCapacity).toBe(before.target?.minCapacity);
    expect(after?.maxCapacity).toBe(before.target?.maxCapacity);
    expect(existsSync(thawJournalPath(handle.endpointName, stateDir))).toBe(false);
    const preflight = await checkDrift(
      {
        config,
        modelName: MODEL,
        endpoint: handle.endpointName,
        variant: handle.variantName,
        region: handle.region,
        stateDir,
      },
      { clients },
    );
    expect(preflight.findings.filter((f) => f.verdict === 'drift')).toEqual([]);

    // plan consumes the artifact.
    const planFile = join(dir, 'plan.json');
    const plan = runPlan(
      {
        modelName: MODEL,
        model: modelConfig(),
        qmaxFile,
        ttotalFile,
        allowConfigMismatch: false,
        outFile: planFile,
        failOn: 'stop',
      },
      { version: 'test' },
    );
    expect(plan.artifact?.inputs.ttotal?.run_id).toBe(artifact.run_id);
    expect(plan.artifact?.measured).toMatchObject({
      t_total_s: artifact.t_total_s,
      t_total_origin: 'measured',
      policy_lag_s: 40,
      policy_lag_bounded: false,
      // Read from the deployed alarm plus an assumed publication delay: computed, never measured.
      policy_lag_origin: 'computed',
    });
    expect(plan.report).toMatch(/policy lag \(from the deployed alarms, publication delay assumed\) +40 s/);
    expect(plan.artifact?.derived.t_plan_s).toBeCloseTo(artifact.t_total_s + 40, 6);
    expect(readArtifact('plan', planFile).run_id).toBe(plan.artifact?.run_id);
  });
});
