// Copies packed on one instance share its emulated device on the local SageMaker, driven through
// the real SDK v3 clients over loopback: copies that reserve no accelerator are served by one
// container process per component and instance (one device, one queue), which outlives a copy
// scaled in, stops with the last one, and is replaced with its copies when it dies; a copy that
// reserves an accelerator, and a copy of another component, get a process of their own.
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateInferenceComponentCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  DescribeInferenceComponentCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyShare, copyStartupReplayMs, sharesInstanceDevice } from '../../src/local/copy-sharing.js';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, eventually, fakeContainer } from './helpers.js';

const ENDPOINT = 'ic-sharing';
const SHARED = 'ic-shared';
const OWN = 'ic-own-device';

let h: LocalSageMakerHandle;
let c: ReturnType<typeof clientsFor>;
/** Every container process started, in order. */
const started: number[] = [];

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  h = await startLocalSageMaker({
    container: fakeContainer({ READY_DELAY_MS: '50' }),
    provisionDelayS: 0.2,
    endpointName: 'plain-endpoint',
    onProcessStart: (_id, pid) => started.push(pid),
  });
  c = clientsFor(h);
  await c.sagemaker.send(
    new CreateModelCommand({
      ModelName: 'sharing-model',
      PrimaryContainer: { Image: h.imageUri, Environment: { MAX_QUEUE_DEPTH: '16' } },
      ExecutionRoleArn: `arn:aws:iam::${h.accountId}:role/r`,
    }),
  );
  await c.sagemaker.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: 'sharing-config',
      ExecutionRoleArn: `arn:aws:iam::${h.accountId}:role/r`,
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          InstanceType: 'ml.g5.xlarge',
          InitialInstanceCount: 1,
          ManagedInstanceScaling: { Status: 'ENABLED', MinInstanceCount: 1, MaxInstanceCount: 1 },
        },
      ],
    }),
  );
  await c.sagemaker.send(
    new CreateEndpointCommand({ EndpointName: ENDPOINT, EndpointConfigName: 'sharing-config' }),
  );
  await eventually(async () => {
    const d = await c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: ENDPOINT }));
    return d.EndpointStatus === 'InService' ? true : undefined;
  }, 30_000);
}, 120_000);

afterAll(async () => {
  c?.destroy();
  await h?.close();
});

const settled = (name: string, copies: number) =>
  eventually(async () => {
    const d = await c.sagemaker.send(new DescribeInferenceComponentCommand({ InferenceComponentName: name }));
    return d.InferenceComponentStatus === 'InService' && d.RuntimeConfig?.CurrentCopyCount === copies
      ? true
      : undefined;
  }, 30_000);
const setCopies = (name: string, n: number) =>
  c.sagemaker.send(
    new UpdateInferenceComponentRuntimeConfigCommand({
      InferenceComponentName: name,
      DesiredRuntimeConfig: { CopyCount: n },
    }),
  );
const invoke = (name: string) =>
  c.runtime.send(
    new InvokeEndpointCommand({
      EndpointName: ENDPOINT,
      InferenceComponentName: name,
      Body: new TextEncoder().encode(JSON.stringify({ text: 'hello', chunks: 2, chunkDelayMs: 20 })),
      ContentType: 'application/json',
    }),
  );
const create = (name: string, requirements: Record<string, number>, copies: number) =>
  c.sagemaker.send(
    new CreateInferenceComponentCommand({
      InferenceComponentName: name,
      EndpointName: ENDPOINT,
      VariantName: 'AllTraffic',
      Specification: {
        ModelName: 'sharing-model',
        ComputeResourceRequirements: { MinMemoryRequiredInMb: 1024, ...requirements },
      },
      RuntimeConfig: { CopyCount: copies },
    }),
  );

describe('the sharing rule (CreateInferenceComponent ComputeResourceRequirements)', () => {
  it('copies reserving no accelerator share the instance device; one reserving accelerators, or on a CPU instance, does not', () => {
    expect(sharesInstanceDevice(0, 1)).toBe(true);
    expect(sharesInstanceDevice(1, 1)).toBe(false);
    expect(sharesInstanceDevice(0, 0)).toBe(false);
    // One process per component, instance and specification.
    const share = (hostId: string, specification: number) =>
      copyShare({ hostId, specification, accelerators: 0, instanceAccelerators: 1, environment: {} });
    expect(share('i-1', 0)?.key).toBe(share('i-1', 0)?.key);
    expect(share('i-1', 0)?.key).not.toBe(share('i-2', 0)?.key);
    expect(share('i-1', 0)?.key).not.toBe(share('i-1', 1)?.key);
  });

  it("a joining copy replays the container's own start-up to ready (DEVICE_STARTUP ready_s x DEVICE_TIME_SCALE)", () => {
    const startup = JSON.stringify({
      framework_init_s: 1,
      weights_ready_s: 5,
      warmup_done_s: 8,
      ready_s: 10,
    });
    expect(copyStartupReplayMs({ DEVICE_STARTUP: startup, DEVICE_TIME_SCALE: '0.05' })).toBe(500);
    expect(copyStartupReplayMs({})).toBe(0);
  });
});

describe('copies packed on one instance on the local SageMaker', () => {
  it('two copies reserving no accelerator are served by one process; both serve requests', async () => {
    const before = started.length;
    await create(SHARED, { NumberOfCpuCoresRequired: 1 }, 2);
    await settled(SHARED, 2);
    expect(started.length - before).toBe(1);
    await Promise.all(Array.from({ length: 4 }, () => invoke(SHARED)));
  });

  it('a copy reserving the accelerator, of another component on the same instance, gets a process (and device) of its own', async () => {
    const before = started.length;
    await create(OWN, { NumberOfAcceleratorDevicesRequired: 1 }, 1);
    await settled(OWN, 1);
    expect(started.length - before).toBe(1);
    await invoke(OWN);
  });

  it('scaling in to one copy keeps the process; the last copy going stops it', async () => {
    const shared = started[started.length - 2] as number;
    expect(alive(shared)).toBe(true);
    await setCopies(SHARED, 1);
    await settled(SHARED, 1);
    expect(alive(shared)).toBe(true);
    await invoke(SHARED);
    await setCopies(SHARED, 0);
    await settled(SHARED, 0);
    await eventually(() => (alive(shared) ? undefined : true), 30_000);
  });

  it('a shared process that dies takes its copies with it; they are replaced by one new process', async () => {
    await setCopies(SHARED, 2);
    await settled(SHARED, 2);
    const pid = started[started.length - 1] as number;
    const before = started.length;
    process.kill(pid, 'SIGKILL');
    await eventually(async () => (started.length > before ? true : undefined), 30_000);
    await settled(SHARED, 2);
    expect(started.length - before).toBe(1);
    await Promise.all([invoke(SHARED), invoke(SHARED)]);
  });
});
