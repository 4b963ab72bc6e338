/**
 * The local SageMaker publishes AWS/SageMaker InvocationsPerInstance as AWS defines it: each
 * invocation sends 1/numberOfInstances (the variant's active instances at the time of the
 * request), so the Sum over a period is the invocations per instance in it. Real traffic through
 * the runtime API, read back with GetMetricData (real SDK clients); no waiting on the wall clock:
 * the invocations are awaited, the capacity change is awaited until InService.
 */
import { GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import {
  DescribeEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, eventually, fakeContainer } from './helpers.js';

let h: LocalSageMakerHandle;
let c: ReturnType<typeof clientsFor>;
let started: number;

beforeAll(async () => {
  h = await startLocalSageMaker({
    provisionDelayS: 0,
    instances: 2,
    quota: 4,
    container: fakeContainer(),
    imageUri: 'example.com/fake:1',
  });
  c = clientsFor(h);
  started = Date.now();
});

afterAll(async () => {
  c?.destroy();
  await h?.close();
});

const invokeMany = (n: number) =>
  Promise.all(
    Array.from({ length: n }, () =>
      c.runtime.send(
        new InvokeEndpointCommand({
          EndpointName: h.endpointName,
          Body: '{"text":"x"}',
          ContentType: 'application/json',
        }),
      ),
    ),
  );

/** Sum over every 60 s period since the test started, of Invocations and InvocationsPerInstance. */
async function sums(): Promise<{ invocations: number; perInstance: number; periods: number[] }> {
  const dims = [
    { Name: 'EndpointName', Value: h.endpointName },
    { Name: 'VariantName', Value: h.variantName },
  ];
  const stat = (Id: string, MetricName: string) => ({
    Id,
    MetricStat: {
      Metric: { Namespace: 'AWS/SageMaker', MetricName, Dimensions: dims },
      Period: 60,
      Stat: 'Sum',
    },
  });
  const out = await c.cloudwatch.send(
    new GetMetricDataCommand({
      StartTime: new Date(started - 120_000),
      EndTime: new Date(Date.now() + 60_000),
      MetricDataQueries: [stat('inv', 'Invocations'), stat('ipi', 'InvocationsPerInstance')],
    }),
  );
  const [inv, ipi] = out.MetricDataResults ?? [];
  const total = (values: number[] | undefined) => (values ?? []).reduce((a, b) => a + b, 0);
  return {
    invocations: total(inv?.Values),
    perInstance: total(ipi?.Values),
    periods: (ipi?.Timestamps ?? []).map((t) => t.getTime() % 60_000),
  };
}

describe('InvocationsPerInstance on the local SageMaker', () => {
  it('records 1/instances per invocation: 12 invocations on 2 instances are 6 per instance, 5 more on 1 instance add 5 (prevents target tracking on the variant total, or on a stale instance count)', async () => {
    await invokeMany(12);
    const onTwo = await sums();
    expect(onTwo.invocations).toBe(12);
    expect(onTwo.perInstance).toBeCloseTo(6, 9);
    // One-minute periods, aligned to the minute, as the predefined metric's alarms read them.
    for (const offset of onTwo.periods) expect(offset).toBe(0);

    await c.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: h.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: h.variantName, DesiredInstanceCount: 1 }],
      }),
    );
    await eventually(async () => {
      const d = await c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: h.endpointName }));
      return d.EndpointStatus === 'InService' && d.ProductionVariants?.[0]?.CurrentInstanceCount === 1
        ? true
        : undefined;
    });
    await invokeMany(5);
    const onOne = await sums();
    expect(onOne.invocations).toBe(17);
    expect(onOne.perInstance).toBeCloseTo(11, 9);
  });
});
