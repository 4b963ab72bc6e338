// `ttotal --path zero` of an inference-component model against the local SageMaker, real SDK
// clients over loopback: two endpoints, each hosting one component whose copies emulate the
// Kokoro-82M device (small time scale), the plan applied by `local apply` (wake rule: a step
// policy on NoCapacityInvocationFailures, a 10 s alarm period through the config's
// wake_alarm_period_s), the component idled to zero copies, then woken by the probe: without a
// retry budget (the no-capacity failures reach the client, counted with their window) and with
// the plan's budget (zero client-visible failures, the retries counted apart). The two wakes run
// at once on separate endpoints (each wake rule has its own cooldown).
import { join } from 'node:path';
import { DeleteAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import {
  CreateInferenceComponentCommand,
  DescribeEndpointCommand,
  DescribeInferenceComponentCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLocalApply } from '../../src/commands/local-apply.js';
import { runPlan } from '../../src/commands/plan.js';
import { runTtotalWake } from '../../src/commands/ttotal-wake.js';
import { createTransport } from '../../src/load/transport/transports.js';
import { deviceEnvironment } from '../../src/local/device.js';
import { inferenceComponentConfigSchema, type ModelConfig, readArtifact } from '../../src/model/index.js';
import { anchorQmaxFile } from '../helpers/anchor.js';
import { createIcHostingEndpoint } from '../helpers/ic-endpoint.js';
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

const device = { profile: kokoroDevice.profile, timeScale: 0.02, startup: null };
let emulator: Emulator;
let dir: string;

const icBlock = inferenceComponentConfigSchema.parse({
  copies_per_instance: 1,
  accelerators: 1,
  memory_mb: 4096,
  min_copies: 0,
  max_copies: 2,
  instance_bounds: { min: 0, max: 2 },
  // The shortest CloudWatch period for the wake alarm (the plan's default is 60 s).
  wake_alarm_period_s: 10,
  // 12 x 3 s = 36 s: covers a wake of one alarm period plus the cold path with room for a loaded
  // host (the copy's container start is a real process start).
  client_retry_attempts: 12,
  client_retry_backoff_s: 3,
});

const modelOf = (endpoint: string): ModelConfig => {
  const base = modelConfig();
  return {
    ...base,
    endpoint,
    kind: 'inference-component',
    inference_component: icBlock,
    // The copies emulate the Kokoro device: the plan's environment carries it to every copy.
    container_env: { ...base.container_env, ...deviceEnvironment(device) },
  };
};

/** What the CDK deploy creates, then the plan applied and the component idled at zero copies. */
async function deployIdle(endpoint: string): Promise<ModelConfig> {
  const { sagemaker, cloudwatch } = emulator.clients;
  const role = `arn:aws:iam::${emulator.handle.accountId}:role/r`;
  const model = modelOf(endpoint);
  await createIcHostingEndpoint(sagemaker, {
    endpoint,
    modelName: `${endpoint}-model`,
    image: emulator.handle.imageUri,
    roleArn: role,
    environment: deviceEnvironment(device),
    minInstances: 0,
    maxInstances: 2,
  });
  const component = `${endpoint}-ic`;
  await sagemaker.send(
    new CreateInferenceComponentCommand({
      InferenceComponentName: component,
      EndpointName: endpoint,
      VariantName: 'AllTraffic',
      Specification: {
        ModelName: `${endpoint}-model`,
        ComputeResourceRequirements: { NumberOfAcceleratorDevicesRequired: 1, MinMemoryRequiredInMb: 4096 },
      },
      RuntimeConfig: { CopyCount: 1 },
    }),
  );
  const planFile = join(dir, `plan-${endpoint}.json`);
  const plan = runPlan(
    {
      modelName: MODEL,
      model,
      qmaxFile: anchorQmaxFile,
      assumeTTotalS: 20,
      allowConfigMismatch: true,
      outFile: planFile,
      failOn: 'stop',
      priceSource: 'config',
    },
    { version: 'test' },
  );
  if (plan.exitCode !== 0) throw new Error(plan.report);
  const applied = await runLocalApply(
    {
      modelName: MODEL,
      endpoint,
      variant: 'AllTraffic',
      region: emulator.handle.region,
      planFile,
      pollIntervalMs: 100,
      updateTimeoutS: 20,
    },
    { clients: emulator.clients },
  );
  if (applied.exitCode !== 0) throw new Error(applied.report);
  // The idle rule's 1-minute periods would scale in at whatever minute boundary falls inside the
  // wake; it is not what is measured here (the component is idled by hand below).
  await cloudwatch.send(new DeleteAlarmsCommand({ AlarmNames: [`scalegate-${endpoint}-${component}-idle`] }));
  await sagemaker.send(
    new UpdateInferenceComponentRuntimeConfigCommand({
      InferenceComponentName: component,
      DesiredRuntimeConfig: { CopyCount: 0 },
    }),
  );
  await eventually(async () => {
    const d = await sagemaker.send(
      new DescribeInferenceComponentCommand({ InferenceComponentName: component }),
    );
    const e = await sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpoint }));
    return d.RuntimeConfig?.CurrentCopyCount === 0 && e.ProductionVariants?.[0]?.CurrentInstanceCount === 0
      ? true
      : undefined;
  }, 60_000);
  return model;
}

let plain: ModelConfig;
let retried: ModelConfig;

beforeAll(async () => {
  emulator = await startEmulator({
    provisionDelayS: 0.3,
    endpointName: 'plain-endpoint',
    alarmEvaluationIntervalMs: 200,
  });
  dir = workspace('ttotal-wake');
  [plain, retried] = await Promise.all([deployIdle('wake-a'), deployIdle('wake-b')]);
}, 120_000);

afterAll(async () => {
  await emulator?.close();
});

const wake = (model: ModelConfig, retry: boolean) =>
  runTtotalWake(
    {
      modelName: MODEL,
      model,
      configFile,
      endpoint: model.endpoint,
      variant: 'AllTraffic',
      region: emulator.handle.region,
      retry,
      probeIntervalS: 0.25,
      pollS: 0.2,
      maxWaitS: 60,
      outFile: join(dir, `wake-${model.endpoint}.json`),
    },
    {
      clients: emulator.clients,
      loadClient: { endpoint: emulator.handle.url, credentials: { accessKeyId: 'x', secretAccessKey: 'y' } },
      version: 'test',
    },
  );

describe('ttotal --path zero: the wake of an inference component from zero copies', () => {
  it('measures the failing window and the stages without retries, and no client-visible failure with the plan budget (retries counted apart)', async () => {
    const [a, b] = await Promise.all([wake(plain, false), wake(retried, true)]);

    // Without retries: each no-capacity failure reached the client and is counted with its window.
    const m = a.artifact?.inference_component;
    expect(m?.origin).toBe('measured');
    expect(m?.wake_alarm_period_s).toBe(10);
    expect(m?.copies_before).toBe(0);
    expect(m?.no_capacity_failures).toBeGreaterThanOrEqual(1);
    expect(m?.retry).toBeNull();
    expect(m?.failing_window).not.toBeNull();
    expect(m?.other_failures).toBe(0);
    // The stages in wake order: the first request fails, the rule sets a copy, it serves, a success.
    const order = a.artifact?.timeline.map((t) => t.stage) ?? [];
    expect(order[0]).toBe('load_applied');
    expect(order.at(-1)).toBe('traffic_recovered');
    for (const stage of ['first_no_capacity', 'desired_set', 'instance_in_service', 'in_service'])
      expect(order).toContain(stage);
    expect(order.indexOf('desired_set')).toBeLessThan(order.indexOf('in_service'));
    expect(a.artifact?.t_total_end_stage).toBe('traffic_recovered');
    expect(a.report).toMatch(/no-capacity failures: \d+ \(measured\), failing for [\d.]+ s \(measured/);
    // Written and readable as a ttotal artifact.
    expect(readArtifact('ttotal', join(dir, 'wake-wake-a.json')).inference_component?.path).toBe('zero');

    // With the plan's budget: the same wake, no failure reached the client, the retries are counted.
    const r = b.artifact?.inference_component;
    expect(r?.retry?.client_visible_failures).toBe(0);
    expect(r?.retry?.client_requests).toBe(1);
    expect(r?.retry?.retries).toBeGreaterThanOrEqual(1);
    expect(r?.retry?.retries).toBe(r?.no_capacity_failures);
    expect(r?.retry?.retried_requests).toBe(1);
    expect(b.report).toMatch(/0 client-visible failure\(s\) \(measured\); \d+ retries/);
  }, 150_000);

  it('plan takes the measured wake as the zero path (measured replaces the bound), so the wake tolerance is judged on it', () => {
    const out = join(dir, 'plan-measured.json');
    const r = runPlan(
      {
        modelName: MODEL,
        model: plain,
        qmaxFile: anchorQmaxFile,
        assumeTTotalS: 20,
        wakeFile: join(dir, 'wake-wake-a.json'),
        allowConfigMismatch: true,
        outFile: out,
        failOn: 'stop',
        priceSource: 'config',
      },
      { version: 'test' },
    );
    const measured = readArtifact('ttotal', join(dir, 'wake-wake-a.json')).inference_component?.wake_s;
    const zero = r.artifact?.inference_component?.paths.zero;
    expect(zero?.origin).toBe('measured');
    expect(zero?.t_plan_s).toBe(measured);
    expect(r.artifact?.inference_component?.scale_to_zero?.wake_origin).toBe('measured');
  });

  it('both SageMaker transports name the component of an IC model (a request without it is refused by the endpoint)', async () => {
    const body = new TextEncoder().encode(JSON.stringify({ text: 'hello' }));
    const send = async (kind: 'sdk' | 'response-stream', model: ModelConfig | undefined) => {
      const t = createTransport(kind, {
        maxConcurrency: 1,
        targetUrl: null,
        endpoint: 'wake-a',
        variant: 'AllTraffic',
        region: emulator.handle.region,
        loadClient: {
          endpoint: emulator.handle.url,
          credentials: { accessKeyId: 'x', secretAccessKey: 'y' },
        },
        ...(model ? { model } : {}),
      });
      try {
        return await t.invoke(body, { payload: () => {}, connection: () => {} }, AbortSignal.timeout(20_000));
      } finally {
        await t.close();
      }
    };
    expect((await send('sdk', plain)).outcome).toBe('ok');
    expect((await send('response-stream', plain)).outcome).toBe('ok');
    const bare = await send('response-stream', undefined);
    expect(bare.outcome).not.toBe('ok');
    expect(bare.error).toMatch(/Inference Component Name header is required/);
  });

  it('without a wake rule no request succeeds: exit 1, nothing written, the report says the alarm is missing', async () => {
    const { sagemaker, cloudwatch } = emulator.clients;
    await cloudwatch.send(new DeleteAlarmsCommand({ AlarmNames: ['scalegate-wake-b-wake-b-ic-wake'] }));
    await sagemaker.send(
      new UpdateInferenceComponentRuntimeConfigCommand({
        InferenceComponentName: 'wake-b-ic',
        DesiredRuntimeConfig: { CopyCount: 0 },
      }),
    );
    await eventually(async () => {
      const d = await sagemaker.send(
        new DescribeInferenceComponentCommand({ InferenceComponentName: 'wake-b-ic' }),
      );
      return d.RuntimeConfig?.CurrentCopyCount === 0 ? true : undefined;
    }, 10_000);
    const r = await runTtotalWake(
      {
        modelName: MODEL,
        model: retried,
        configFile,
        endpoint: 'wake-b',
        variant: 'AllTraffic',
        region: emulator.handle.region,
        probeIntervalS: 0.1,
        pollS: 0.2,
        maxWaitS: 0.5,
        outFile: join(dir, 'never.json'),
      },
      { clients: emulator.clients, version: 'test' },
    );
    expect(r.exitCode).toBe(1);
    expect(r.written).toEqual([]);
    expect(r.report).toMatch(/no wake alarm found/);
  });
});
