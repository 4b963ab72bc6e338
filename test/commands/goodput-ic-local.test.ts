// goodput of an inference-component model against the local SageMaker, real SDK clients over
// loopback: the component (2 copies packed on one instance, the Kokoro-82M device at time scale
// 0.05) is pinned at --copies for the run exactly as qmax pins it, its requests reach the
// component (an IC endpoint has no model on its variant), the artifact records the packing and
// lambda_max per copy, and the copy count, the suspension and the thaw journal are restored. No
// latency is judged here (a 6 s rung decides nothing on a shared host): the verdicts are the
// timing project's.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runGoodput } from '../../src/commands/goodput.js';
import { deviceEnvironment } from '../../src/local/device.js';
import { clientConfigFor } from '../../src/local/index.js';
import { type GoodputArtifact, type ModelConfig, readArtifact } from '../../src/model/index.js';
import { thawJournalPath } from '../../src/model/journal.js';
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

const ENDPOINT = 'ic-goodput';
const COMPONENT = 'ic-goodput-ic';
const device = { profile: kokoroDevice.profile, timeScale: 0.05, startup: null };
const SUSPENDED = {
  DynamicScalingInSuspended: true,
  DynamicScalingOutSuspended: true,
  ScheduledScalingSuspended: true,
};
const ORIGINAL = {
  DynamicScalingInSuspended: false,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: false,
};
let emulator: Emulator;
let dir: string;

const model: ModelConfig = {
  ...modelConfig(),
  endpoint: ENDPOINT,
  kind: 'inference-component',
  inference_component: packedComponentConfig,
};

const componentState = () => icComponentState(emulator.clients, COMPONENT);

beforeAll(async () => {
  emulator = await startEmulator({ endpointName: 'plain-endpoint' });
  dir = workspace('goodput-ic');
  // Two copies to start with: the run pins one, the restore brings back two.
  await createScalableComponent(emulator.clients, {
    endpoint: ENDPOINT,
    component: COMPONENT,
    modelName: `${ENDPOINT}-model`,
    image: emulator.handle.imageUri,
    roleArn: `arn:aws:iam::${emulator.handle.accountId}:role/r`,
    environment: { ...deviceEnvironment(device), MAX_QUEUE_DEPTH: '64' },
    copies: 2,
  });
}, 120_000);

afterAll(async () => {
  await emulator?.close();
});

describe('goodput of an inference component: lambda_max per copy at a pinned copy count', () => {
  it('pins the component at --copies (default 1) while the fixed ladder runs, sends to the component, records the packing and lambda_max per copy, and restores the copies, the suspension and no journal', async () => {
    const stateDir = join(dir, 'state');
    const out = join(dir, 'goodput-ic.json');
    const lines: string[] = [];
    let during: Promise<Awaited<ReturnType<typeof componentState>>> | null = null;
    const result = await runGoodput(
      {
        modelName: MODEL,
        model,
        configFile,
        endpoint: ENDPOINT,
        variant: 'AllTraffic',
        region: 'local',
        rates: [10],
        holdS: 6,
        settleS: 1,
        cloudwatch: false,
        outFile: out,
        stateDir,
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
          if (e.type === 'rate-start' && !during) during = componentState();
        },
      },
    );
    expect(result.exitCode, result.report).toBe(0);
    // While the rung ran: one copy, the component's own scalable target suspended.
    expect(await during).toMatchObject({ desired: 1, current: 1, suspended: SUSPENDED });
    expect(lines).toContain(`goodput: component ${COMPONENT} pinned at 1 copies (per copy = lambda_max / 1)`);
    // Afterwards: the two copies and the flags found, and the journal gone.
    await eventually(async () => ((await componentState()).current === 2 ? true : undefined), 30_000);
    expect(await componentState()).toMatchObject({ desired: 2, suspended: ORIGINAL });
    expect(existsSync(thawJournalPath(ENDPOINT, stateDir))).toBe(false);

    const artifact = readArtifact('goodput', out) as GoodputArtifact;
    // The requests reached the component: an IC endpoint's variant has no model to answer them.
    const rung = artifact.rungs[0];
    expect(rung?.ok, JSON.stringify(rung?.outcome_counts)).toBeGreaterThan(20);
    expect(rung?.error_fraction).toBe(0);
    expect(artifact.inference_component).toEqual({
      component: COMPONENT,
      copies: 1,
      copies_per_instance: 2,
      instances: 1,
      lambda_max_per_copy_rps: artifact.lambda_max_rps,
      copies_sharing_device: 1,
      sharing: 'one copy: the instance accelerator is its own',
    });
    // Decided or not (a 6 s rung rarely decides), the report says what lambda_max per copy is.
    expect(result.report).toMatch(
      artifact.lambda_max_bracketed
        ? /lambda_max per copy = [\d.]+ requests\/s \(computed: the measured lambda_max \/ 1 copy pinned, measured\)/
        : /lambda_max per copy: not known|lambda_max per copy = [\d.]+ requests\/s \(computed: a LOWER BOUND/,
    );
  }, 90_000);
});
