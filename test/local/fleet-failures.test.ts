// Fleet and runtime failure modes, with the fake container (fixtures/fake-container.mjs): it starts
// in ~100 ms and can break a stream or crash on request, which the reference container cannot.

import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { FilterLogEventsCommand } from '@aws-sdk/client-cloudwatch-logs';
import {
  DescribeEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import {
  InvokeEndpointCommand,
  InvokeEndpointWithResponseStreamCommand,
} from '@aws-sdk/client-sagemaker-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, eventually, fakeContainer, isAlive, rejectionOf } from './helpers.js';

const handles: LocalSageMakerHandle[] = [];
const start = async (opts: Parameters<typeof startLocalSageMaker>[0] = {}) => {
  const h = await startLocalSageMaker({
    provisionDelayS: 0.2,
    container: fakeContainer(),
    imageUri: 'example.com/fake:1',
    ...opts,
  });
  handles.push(h);
  return h;
};

afterEach(async () => {
  for (const h of handles.splice(0)) {
    const pids = h.instances().flatMap((i) => (i.pid ? [i.pid] : []));
    await h.close();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  }
});

describe('instances that fail to start', () => {
  it('marks a failing initial deployment Failed with a FailureReason and leaves no process', async () => {
    const h = await start({
      faults: { failNextInstances: 1, failAtStage: 'weights_ready' },
      allowFailedDeploy: true,
    });
    const c = clientsFor(h);
    const d = await c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: h.endpointName }));
    expect(d.EndpointStatus).toBe('Failed');
    expect(d.FailureReason).toContain('did not pass the ping health check');
    expect(h.instances()).toEqual([]);
    // A Failed endpoint does not serve.
    const e = await rejectionOf(
      c.runtime.send(new InvokeEndpointCommand({ EndpointName: h.endpointName, Body: '{"text":"x"}' })),
    );
    expect(e.name).toBe('ValidationError');
    c.destroy();
  });

  it('rejects startLocalSageMaker when the initial deployment fails (unless allowed)', async () => {
    await expect(
      startLocalSageMaker({
        provisionDelayS: 0,
        container: fakeContainer(),
        imageUri: 'example.com/fake:1',
        faults: { failNextInstances: 1 },
      }),
    ).rejects.toThrow(/failed to deploy/);
  });

  it('rolls a failed scale-out back: InService at the old count, FailureReason set, log kept', async () => {
    const h = await start();
    const c = clientsFor(h);
    h.faults = { failNextInstances: 1, failAtStage: 'warmup_done' };
    await c.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: h.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 2 }],
      }),
    );
    expect(
      (await c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: h.endpointName }))).EndpointStatus,
    ).toBe('Updating');
    const d = await eventually(async () => {
      const x = await c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: h.endpointName }));
      return x.EndpointStatus === 'InService' ? x : undefined;
    });
    expect(d.ProductionVariants?.[0]).toMatchObject({ CurrentInstanceCount: 1, DesiredInstanceCount: 1 });
    expect(d.FailureReason).toContain('Failed to update endpoint');
    // The failed instance's stream shows how far it got (what ttotal reads on AWS too).
    const logs = await c.logs.send(
      new FilterLogEventsCommand({
        logGroupName: `/aws/sagemaker/Endpoints/${h.endpointName}`,
        filterPattern: '"=== STAGE"',
      }),
    );
    const byStream = new Map<string, string[]>();
    for (const e of logs.events ?? [])
      byStream.set(e.logStreamName ?? '', [
        ...(byStream.get(e.logStreamName ?? '') ?? []),
        e.message?.split(' ')[2] ?? '',
      ]);
    const failed = [...byStream.values()].find((s) => !s.includes('ready'));
    expect(failed).toEqual(['container_start', 'framework_init', 'weights_ready', 'warmup_done']);
    c.destroy();
  });

  it('replaces an instance whose process dies while InService; the endpoint stays InService', async () => {
    const h = await start();
    const c = clientsFor(h);
    const [first] = h.instances();
    await rejectionOf(
      c.runtime.send(
        new InvokeEndpointCommand({ EndpointName: h.endpointName, Body: '{"text":"x","crash":true}' }),
      ),
    );
    const replacement = await eventually(() =>
      h.instances().find((i) => i.id !== first?.id && i.state === 'InService'),
    );
    expect(replacement).toBeDefined();
    expect(isAlive(first?.pid ?? 0)).toBe(false);
    expect(h.status()).toMatchObject({ status: 'InService', current: 1, desired: 1 });
    c.destroy();
  });
});

describe('start-up options', () => {
  it('registers the variant as a scalable target (min 1, max = quota) when asked, like a fresh calibration endpoint', async () => {
    const h = await start({ registerScalableTarget: true, quota: 3 });
    const c = clientsFor(h);
    const out = await c.autoscaling.send(
      new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker' }),
    );
    expect(out.ScalableTargets).toHaveLength(1);
    expect(out.ScalableTargets?.[0]).toMatchObject({
      ResourceId: `endpoint/${h.endpointName}/variant/AllTraffic`,
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      MinCapacity: 1,
      MaxCapacity: 3,
    });
    c.destroy();
  });
});

describe('model environment', () => {
  it('starts instances added after updateModelEnvironment with the new environment, keeps the running one', async () => {
    const h = await start({ maxQueueDepth: 4 });
    const c = clientsFor(h);
    const [first] = h.instances();
    await h.updateModelEnvironment({ MAX_QUEUE_DEPTH: '9', EXTRA: 'yes' });
    await c.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: h.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: 'AllTraffic', DesiredInstanceCount: 2 }],
      }),
    );
    await h.waitFor((s) => s.status === 'InService' && s.current === 2);
    const added = h.instances().find((i) => i.id !== first?.id);
    expect(added?.environment).toMatchObject({ MAX_QUEUE_DEPTH: '9', EXTRA: 'yes' });
    expect(h.instances().find((i) => i.id === first?.id)?.environment.MAX_QUEUE_DEPTH).toBe('4');
    c.destroy();
  });
});

describe('response streaming failures', () => {
  it('ends a stream that breaks mid-way with a ModelStreamError the SDK raises while iterating', async () => {
    const h = await start();
    const c = clientsFor(h);
    const out = await c.runtime.send(
      new InvokeEndpointWithResponseStreamCommand({
        EndpointName: h.endpointName,
        Body: JSON.stringify({ text: 'x', chunks: 5, breakAfter: 2 }),
        ContentType: 'application/json',
      }),
    );
    const got: string[] = [];
    const e = await rejectionOf(
      (async () => {
        for await (const ev of out.Body ?? [])
          if (ev.PayloadPart?.Bytes) got.push(Buffer.from(ev.PayloadPart.Bytes).toString());
      })(),
    );
    expect(got.join('')).toBe('chunk-0;chunk-1;');
    expect(e.name).toBe('ModelStreamError');
    expect(e.ErrorCode).toBe('StreamBroken');
    // The broken stream counts as a 5xx, and nothing stays in flight.
    expect(h.instances()[0]?.inFlight).toBe(0);
    c.destroy();
  });

  it('sends each container chunk as its own PayloadPart', async () => {
    const h = await start();
    const c = clientsFor(h);
    const out = await c.runtime.send(
      new InvokeEndpointWithResponseStreamCommand({
        EndpointName: h.endpointName,
        Body: JSON.stringify({ text: 'x', chunks: 4, chunkDelayMs: 30 }),
        ContentType: 'application/json',
      }),
    );
    const parts: string[] = [];
    for await (const ev of out.Body ?? [])
      if (ev.PayloadPart?.Bytes) parts.push(Buffer.from(ev.PayloadPart.Bytes).toString());
    expect(parts).toEqual(['chunk-0;', 'chunk-1;', 'chunk-2;', 'chunk-3;']);
    c.destroy();
  });

  it('frees the slot when the caller abandons a stream (the container job is cancelled)', async () => {
    const h = await start();
    const c = clientsFor(h);
    const abort = new AbortController();
    const out = await c.runtime.send(
      new InvokeEndpointWithResponseStreamCommand({
        EndpointName: h.endpointName,
        Body: JSON.stringify({ text: 'x', chunks: 100, chunkDelayMs: 50 }),
        ContentType: 'application/json',
      }),
      { abortSignal: abort.signal },
    );
    await rejectionOf(
      (async () => {
        for await (const ev of out.Body ?? []) if (ev.PayloadPart) abort.abort();
      })(),
    );
    await eventually(() => (h.instances()[0]?.inFlight === 0 ? true : undefined));
    c.destroy();
  });
});
