// Per-copy Q_max of an inference component whose copies share their instance's device, against the
// local SageMaker, real SDK clients over loopback: the copies emulate the Kokoro-82M device
// (serial: 1 lane, time scale 0.2) and reserve no accelerator, so copies packed on one instance
// share its device; the freeze suspends the component's scalable target
// (sagemaker:inference-component:DesiredCopyCount) and pins its copy count, 1 copy and then 2
// copies packed on one instance, and puts both back after; the artifact records the packing, the
// sharing and Q_max per copy. It judges latency: a timing test, run alone.
import { join } from 'node:path';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQmax } from '../../src/commands/qmax.js';
import { defaultPromptSet, encodePrompts } from '../../src/load/prompts.js';
import { deviceEnvironment } from '../../src/local/device.js';
import { clientConfigFor } from '../../src/local/index.js';
import type { ModelConfig, QmaxArtifact } from '../../src/model/index.js';
import {
  createScalableComponent,
  componentState as icComponentState,
  packedComponentConfig,
} from '../helpers/ic-endpoint.js';
import { kokoroDevice } from '../helpers/local-endpoint.js';
import {
  configFile,
  type Emulator,
  MODEL,
  modelConfig,
  startEmulator,
  workspace,
} from './local-apply-fixtures.js';

const ENDPOINT = 'ic-qmax-shared';
const COMPONENT = 'ic-qmax-shared-ic';
/**
 * 11.2 ms per request on the one lane: about 90 requests/s, which this host's load client drives
 * without becoming the bottleneck (at 0.05 the device's 360 requests/s outrun it).
 */
const TIME_SCALE = 0.2;
const device = { profile: kokoroDevice.profile, timeScale: TIME_SCALE, startup: null };
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
  dir = workspace('qmax-ic-sharing');
  await createScalableComponent(emulator.clients, {
    endpoint: ENDPOINT,
    component: COMPONENT,
    modelName: `${ENDPOINT}-model`,
    image: emulator.handle.imageUri,
    roleArn: `arn:aws:iam::${emulator.handle.accountId}:role/r`,
    // Deep enough that no rung is refused by admission: the SLO is what bounds Q_max.
    environment: { ...deviceEnvironment(device), MAX_QUEUE_DEPTH: '256' },
    copies: 1,
  });
  // Every prompt once: the device's audio cache is warm before the first rung, so no rung pays
  // a first synthesis (the copies' shared process keeps it for the 2-copy run).
  for (const body of encodePrompts(defaultPromptSet())) {
    await emulator.clients.runtime.send(
      new InvokeEndpointCommand({
        EndpointName: ENDPOINT,
        InferenceComponentName: COMPONENT,
        Body: body,
        ContentType: 'application/json',
      }),
    );
  }
}, 120_000);

afterAll(async () => {
  await emulator?.close();
});

/**
 * A closed loop of c in flight on one serial device waits about c x 11.2 ms: 8 in flight (about
 * 90 ms) hold a 160 ms SLO, 24 (about 270 ms) break it; two copies each with a device of their own
 * would hold 24 (12 each, about 135 ms). The SLO stays 4 x above the client's event-loop delay on
 * a busy host (a later client makes a rung unusable). A verdict needs 5 batches of
 * >= max(40, 4 x N) samples: about 2.2 s at 8 in flight, 5.4 s at 24 on the shared device.
 */
const SLO_MS = 160;
const RUNGS = { one: [8], two: [8, 24] };
const TIMES = { one: { holdS: 3.3, measureS: 2.8 }, two: { holdS: 6.2, measureS: 5.7 } };

const qmax = (copies: number, rungs: number[], times = TIMES.one) => {
  const lines: string[] = [];
  return runQmax(
    {
      modelName: MODEL,
      model,
      configFile,
      endpoint: ENDPOINT,
      variant: 'AllTraffic',
      region: 'local',
      copies,
      sloMs: SLO_MS,
      ladder: 'fixed',
      rungs,
      ...times,
      settleS: 0.5,
      minSamples: 72,
      cloudwatch: false,
      outFile: join(dir, `qmax-${copies}.json`),
      stateDir: join(dir, 'state'),
      pollIntervalMs: 100,
    },
    {
      clients: emulator.clients,
      handleSignals: false,
      loadClient: {
        endpoint: emulator.handle.url,
        credentials: clientConfigFor(emulator.handle).credentials,
      },
      progress: (e) => {
        if (e.type === 'log') lines.push(e.line);
      },
    },
  ).then((r) => ({ ...r, artifact: r.artifact as QmaxArtifact | null, lines }));
};

const componentState = () => icComponentState(emulator.clients, COMPONENT);

describe('qmax of an inference component: per-copy Q_max at a pinned copy count', () => {
  it('2 copies packed on one instance share its device: the instance Q_max stays the 1-copy one, per copy it halves; the packing is recorded and the copy count and suspension restored', async () => {
    const one = await qmax(1, RUNGS.one);
    expect(one.exitCode, one.report).toBe(0);
    // 8 held the SLO (a lower bound on the 1-copy Q_max: its failure is the device's, seen below).
    expect(one.artifact?.q_max).toBe(8);
    expect(one.artifact?.inference_component).toMatchObject({
      component: COMPONENT,
      copies: 1,
      copies_per_instance: 2,
      instances: 1,
    });
    // The component's own scalable target is what the freeze suspends (and its journal names).
    expect(one.lines).toContain(
      `freeze: dynamic and scheduled scaling suspended on inference-component/${COMPONENT} (min/max untouched)`,
    );

    const two = await qmax(2, RUNGS.two, TIMES.two);
    expect(two.exitCode, two.report).toBe(0);
    const ic = two.artifact?.inference_component;
    expect(ic).toMatchObject({ copies: 2, instances: 1, copies_sharing_device: 2 });
    expect(ic?.sharing).toMatch(/up to 2 copies share one instance's device/);
    const q1 = one.artifact?.q_max ?? 0;
    const q2 = two.artifact?.q_max ?? 0;
    expect(ic?.q_max_per_copy).toBe(q2 / 2);
    // One device serves both copies: per copy below the 1-copy Q_max, the instance total about
    // the 1-copy one (two devices of their own would hold 24: three times it, 12 per copy).
    expect(ic?.q_max_per_copy).toBeLessThan(one.artifact?.inference_component?.q_max_per_copy ?? 0);
    expect(q2).toBeGreaterThanOrEqual(0.75 * q1);
    expect(q2).toBeLessThanOrEqual(1.25 * q1);
    // The instance's throughput at 8 in flight is the one device's with 1 copy or 2 (two devices
    // would serve twice it: 8 in flight then wait half as long).
    const rps = (a: QmaxArtifact | null) => a?.steps.find((s) => s.concurrency === 8)?.achieved_rps ?? 0;
    expect(rps(two.artifact)).toBeGreaterThan(0.8 * rps(one.artifact));
    expect(rps(two.artifact)).toBeLessThan(1.25 * rps(one.artifact));
    // And bracketed: the shared device breaks the SLO at 24 in flight (12 per copy).
    expect(two.artifact?.steps.map((s) => [s.concurrency, s.verdict])).toEqual([
      [8, 'pass'],
      [24, 'fail'],
    ]);

    // Put back: the copy count it had (1), the target's flags unsuspended.
    expect(await componentState()).toMatchObject({
      desired: 1,
      suspended: {
        DynamicScalingInSuspended: false,
        DynamicScalingOutSuspended: false,
        ScheduledScalingSuspended: false,
      },
    });
  }, 40_000);
});
