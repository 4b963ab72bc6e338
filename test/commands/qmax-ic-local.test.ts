// Inference-component freezes and paths against the local SageMaker, real SDK clients over
// loopback: the component's copies emulate the Kokoro-82M device (time scale 0.05); a thaw of a
// component's journal restores the component, not the variant; ttotal times the warm and cold
// copy paths. Per-copy Q_max at 1 and 2 packed copies is qmax-ic-sharing.timing.test.ts (it
// judges latency, so it runs alone).
import { join } from 'node:path';
import {
  DescribeInferenceComponentCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freezeEndpoint, icFreezeAdapters } from '../../src/commands/freeze.js';
import { runThaw } from '../../src/commands/thaw.js';
import { runTtotalIcPath } from '../../src/commands/ttotal-ic-path.js';
import { deviceEnvironment } from '../../src/local/device.js';
import type { ModelConfig } from '../../src/model/index.js';
import { measuredPathsOf } from '../../src/plan/inference-component.js';
import {
  createScalableComponent,
  componentState as icComponentState,
  packedComponentConfig,
} from '../helpers/ic-endpoint.js';
import { kokoroDevice } from '../helpers/local-endpoint.js';
import { eventually } from '../local/helpers.js';
import {
  configFile,
  type Emulator,
  MODEL,
  modelConfig,
  startEmulator,
  workspace,
} from './local-apply-fixtures.js';

const ENDPOINT = 'ic-qmax';
const COMPONENT = 'ic-qmax-ic';
const device = { profile: kokoroDevice.profile, timeScale: 0.05, startup: null };
let emulator: Emulator;
let dir: string;

const model: ModelConfig = {
  ...modelConfig(),
  endpoint: ENDPOINT,
  kind: 'inference-component',
  inference_component: packedComponentConfig,
};

beforeAll(async () => {
  emulator = await startEmulator({ provisionDelayS: 0.2, endpointName: 'plain-endpoint' });
  dir = workspace('qmax-ic');
  await createScalableComponent(emulator.clients, {
    endpoint: ENDPOINT,
    component: COMPONENT,
    modelName: `${ENDPOINT}-model`,
    image: emulator.handle.imageUri,
    roleArn: `arn:aws:iam::${emulator.handle.accountId}:role/r`,
    environment: { ...deviceEnvironment(device), MAX_QUEUE_DEPTH: '64' },
    copies: 1,
  });
}, 120_000);

afterAll(async () => {
  await emulator?.close();
});

const componentState = () => icComponentState(emulator.clients, COMPONENT);

describe('inference components: the thaw of a component journal and the warm and cold copy paths', () => {
  it("a thaw of a component's journal (its run gone) restores the component's copies and flags, not the variant's", async () => {
    const stateDir = join(dir, 'thaw-state');
    const freeze = await freezeEndpoint({
      endpoint: ENDPOINT,
      variant: 'AllTraffic',
      region: 'local',
      adapters: icFreezeAdapters(emulator.clients, ENDPOINT, 'AllTraffic', COMPONENT),
      stateDir,
      commandLine: 'scalegate qmax --copies 2',
      runId: 'ic-run',
      pin: 2,
      pollIntervalMs: 100,
    });
    expect(freeze.journal.resource_id).toBe(`inference-component/${COMPONENT}`);
    expect((await componentState()).desired).toBe(2);
    try {
      // The run's own process is this one: force stands for "that run is gone".
      const thawed = await runThaw(
        { endpoint: ENDPOINT, variant: 'AllTraffic', stateDir, force: true, pollIntervalMs: 100 },
        { clients: emulator.clients },
      );
      expect(thawed.exitCode, thawed.report).toBe(0);
      // The report names what was restored: the component's copies, not the endpoint's instances.
      expect(thawed.report).toMatch(/copy count 2 -> 1/);
      expect(thawed.report).not.toMatch(/desired instance count/);
      expect(await componentState()).toMatchObject({
        desired: 1,
        suspended: {
          DynamicScalingInSuspended: false,
          DynamicScalingOutSuspended: false,
          ScheduledScalingSuspended: false,
        },
      });
    } finally {
      // Stops the heartbeat (the journal is already gone).
      await freeze.restore().catch(() => null);
    }
  });

  it('ttotal times the warm path (a copy onto the instance with room) and the cold path (a new instance first), and plan takes both as measured', async () => {
    const path = (p: 'warm' | 'cold') =>
      runTtotalIcPath(
        {
          modelName: MODEL,
          model,
          configFile,
          endpoint: ENDPOINT,
          region: 'local',
          path: p,
          pollS: 0.05,
          maxWaitS: 20,
          outFile: join(dir, `ttotal-${p}.json`),
        },
        { clients: emulator.clients, version: 'test' },
      );
    const { sagemaker } = emulator.clients;
    const settle = (copies: number) =>
      eventually(async () => {
        const d = await sagemaker.send(
          new DescribeInferenceComponentCommand({ InferenceComponentName: COMPONENT }),
        );
        return d.InferenceComponentStatus === 'InService' && d.RuntimeConfig?.CurrentCopyCount === copies
          ? true
          : undefined;
      }, 30_000);
    await settle(1);
    // A cold path refused while the instance has room: that copy would be warm.
    await expect(path('cold')).rejects.toThrow(/would be warm/);
    const warm = await path('warm');
    expect(warm.artifact?.inference_component).toMatchObject({
      path: 'warm',
      copies_before: 1,
      copies_after: 2,
    });
    expect(warm.artifact?.timeline.map((t) => t.stage)).toEqual(['desired_set', 'in_service']);
    await settle(1);
    // Fill the instance (2 copies at 2 per instance): the next copy needs a new instance.
    await sagemaker.send(
      new UpdateInferenceComponentRuntimeConfigCommand({
        InferenceComponentName: COMPONENT,
        DesiredRuntimeConfig: { CopyCount: 2 },
      }),
    );
    await settle(2);
    const cold = await path('cold');
    expect(cold.artifact?.timeline.map((t) => t.stage)).toEqual([
      'desired_set',
      'instance_in_service',
      'in_service',
    ]);
    expect(cold.artifact).toMatchObject({ from_instances: 1, to_instances: 2 });
    // The instance's provisioning (0.2 s) comes first on the cold path: it cannot be shorter.
    expect(cold.artifact?.durations[0]?.seconds).toBeGreaterThanOrEqual(0.2);
    expect(measuredPathsOf(warm.artifact, cold.artifact)).toEqual({
      warmS: warm.artifact?.t_total_s,
      coldS: cold.artifact?.t_total_s,
    });
  }, 90_000);
});
