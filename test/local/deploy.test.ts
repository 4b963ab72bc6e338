// Deploying a new model onto a running endpoint the way AWS does it, over the wire with the real
// SDK v3 client: CreateModel -> CreateEndpointConfig -> UpdateEndpoint (blue/green, rollback on
// failure), and CreateEndpoint / DeleteEndpoint / DeleteModel / DeleteEndpointConfig. Uses the
// fake container (fixtures/fake-container.mjs): it starts in ~100 ms (READY_DELAY_MS in its model
// environment makes that longer) and enforces MAX_QUEUE_DEPTH like the reference container.
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DeleteEndpointCommand,
  DeleteEndpointConfigCommand,
  DeleteModelCommand,
  DescribeEndpointCommand,
  type DescribeEndpointCommandOutput,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
  UpdateEndpointCommand,
  UpdateEndpointWeightsAndCapacitiesCommand,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterEach, describe, expect, it } from 'vitest';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor, eventually, fakeContainer, isAlive, rejectionOf } from './helpers.js';

const handles: LocalSageMakerHandle[] = [];
const clients: ReturnType<typeof clientsFor>[] = [];

async function start(opts: Parameters<typeof startLocalSageMaker>[0] = {}) {
  const h = await startLocalSageMaker({
    provisionDelayS: 0.1,
    container: fakeContainer(),
    imageUri: 'example.com/fake:1',
    maxQueueDepth: 64,
    ...opts,
  });
  handles.push(h);
  const c = clientsFor(h);
  clients.push(c);
  return { h, c };
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.destroy();
  for (const h of handles.splice(0)) {
    const pids = h.instances().flatMap((i) => (i.pid ? [i.pid] : []));
    await h.close();
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  }
});

type Clients = ReturnType<typeof clientsFor>;

const describeEndpoint = (c: Clients, name: string): Promise<DescribeEndpointCommandOutput> =>
  c.sagemaker.send(new DescribeEndpointCommand({ EndpointName: name }));

/** The model the endpoint runs, read the way scalegate reads it (endpoint -> config -> model). */
async function deployedEnvironment(c: Clients, endpoint: string): Promise<Record<string, string>> {
  const ep = await describeEndpoint(c, endpoint);
  const config = await c.sagemaker.send(
    new DescribeEndpointConfigCommand({ EndpointConfigName: ep.EndpointConfigName }),
  );
  const model = await c.sagemaker.send(
    new DescribeModelCommand({ ModelName: config.ProductionVariants?.[0]?.ModelName }),
  );
  return model.PrimaryContainer?.Environment ?? {};
}

/** A new model with `env` over the deployed one's, and an endpoint config for it (same variant). */
async function newConfig(
  c: Clients,
  h: LocalSageMakerHandle,
  suffix: string,
  env: Record<string, string>,
  count = 1,
): Promise<string> {
  const environment = { ...(await deployedEnvironment(c, h.endpointName)), ...env };
  const modelName = `${h.endpointName}-model-${suffix}`;
  const created = await c.sagemaker.send(
    new CreateModelCommand({
      ModelName: modelName,
      PrimaryContainer: { Image: h.imageUri, Environment: environment },
      ExecutionRoleArn: `arn:aws:iam::${h.accountId}:role/test`,
    }),
  );
  expect(created.ModelArn).toBe(`arn:aws:sagemaker:${h.region}:${h.accountId}:model/${modelName}`);
  const configName = `${h.endpointName}-config-${suffix}`;
  const config = await c.sagemaker.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: configName,
      ProductionVariants: [
        {
          VariantName: h.variantName,
          ModelName: modelName,
          InstanceType: 'ml.g5.xlarge',
          InitialInstanceCount: count,
          InitialVariantWeight: 1,
          RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
        },
      ],
    }),
  );
  expect(config.EndpointConfigArn).toContain(`:endpoint-config/${configName}`);
  return configName;
}

const invoke = (c: Clients, endpoint: string, body: object) =>
  c.runtime.send(
    new InvokeEndpointCommand({
      EndpointName: endpoint,
      Body: JSON.stringify(body),
      ContentType: 'application/json',
    }),
  );

describe('UpdateEndpoint: a new endpoint config, blue/green', () => {
  it('keeps serving on the old instance while the new one starts, then shifts traffic and drains the old one (the new MAX_QUEUE_DEPTH is what serves)', async () => {
    const { h, c } = await start();
    const [blue] = h.instances();
    const oldConfig = (await describeEndpoint(c, h.endpointName)).EndpointConfigName;
    // The new instance takes ~1.5 s to become ready: long enough to look at the Updating endpoint.
    const configName = await newConfig(c, h, 'q1', { MAX_QUEUE_DEPTH: '1', READY_DELAY_MS: '1500' });
    const out = await c.sagemaker.send(
      new UpdateEndpointCommand({
        EndpointName: h.endpointName,
        EndpointConfigName: configName,
        RetainAllVariantProperties: true,
      }),
    );
    expect(out.EndpointArn).toBe(`arn:aws:sagemaker:${h.region}:${h.accountId}:endpoint/${h.endpointName}`);

    const updating = await describeEndpoint(c, h.endpointName);
    expect(updating.EndpointStatus).toBe('Updating');
    expect(updating.EndpointConfigName).toBe(oldConfig);
    expect(updating.PendingDeploymentSummary?.EndpointConfigName).toBe(configName);
    expect(updating.ProductionVariants?.[0]?.CurrentInstanceCount).toBe(1);
    // No availability loss: the old instance serves while the new one boots, and only it does.
    const during = await invoke(c, h.endpointName, { text: 'x', chunks: 1 });
    expect(Buffer.from(during.Body ?? []).toString()).toBe('chunk-0;');
    const green = h.instances().find((i) => i.id !== blue?.id);
    expect(green?.environment.MAX_QUEUE_DEPTH).toBe('1');
    expect(green?.state).not.toBe('InService');
    expect(h.instances().find((i) => i.id === blue?.id)?.state).toBe('InService');

    await eventually(async () =>
      (await describeEndpoint(c, h.endpointName)).EndpointStatus === 'InService' ? true : undefined,
    );
    const after = await describeEndpoint(c, h.endpointName);
    expect(after.EndpointConfigName).toBe(configName);
    expect(after.PendingDeploymentSummary).toBeUndefined();
    expect(after.FailureReason).toBeUndefined();
    expect(after.ProductionVariants?.[0]).toMatchObject({ CurrentInstanceCount: 1, DesiredInstanceCount: 1 });
    expect(h.instances().map((i) => i.id)).toEqual([green?.id]);
    expect(isAlive(blue?.pid ?? 0)).toBe(false);
    expect((await deployedEnvironment(c, h.endpointName)).MAX_QUEUE_DEPTH).toBe('1');

    // The serving process really runs the new environment: a second request at once is refused.
    const first = invoke(c, h.endpointName, { text: 'x', chunks: 20, chunkDelayMs: 20 });
    await eventually(() => (h.instances()[0]?.inFlight === 1 ? true : undefined));
    const refused = await rejectionOf(invoke(c, h.endpointName, { text: 'y', chunks: 1 }));
    expect(refused.name).toBe('ModelError');
    expect(refused.OriginalStatusCode).toBe(503);
    expect(String(refused.OriginalMessage)).toContain('"max_queue_depth":1');
    await first;
  });

  it('rolls back when a new instance cannot start: the old config keeps serving, FailureReason says why', async () => {
    const { h, c } = await start();
    const [blue] = h.instances();
    const oldConfig = (await describeEndpoint(c, h.endpointName)).EndpointConfigName;
    const configName = await newConfig(c, h, 'bad', { MAX_QUEUE_DEPTH: '2' });
    h.faults = { failNextInstances: 1, failAtStage: 'weights_ready' };
    await c.sagemaker.send(
      new UpdateEndpointCommand({ EndpointName: h.endpointName, EndpointConfigName: configName }),
    );
    const settled = await eventually(async () => {
      const d = await describeEndpoint(c, h.endpointName);
      return d.EndpointStatus === 'InService' ? d : undefined;
    });
    expect(settled.EndpointConfigName).toBe(oldConfig);
    expect(settled.FailureReason).toMatch(/did not pass the ping health check/);
    expect(settled.PendingDeploymentSummary).toBeUndefined();
    expect(h.instances().map((i) => i.id)).toEqual([blue?.id]);
    expect(isAlive(blue?.pid ?? 0)).toBe(true);
    expect((await deployedEnvironment(c, h.endpointName)).MAX_QUEUE_DEPTH).toBe('64');
    const served = await invoke(c, h.endpointName, { text: 'x', chunks: 1 });
    expect(Buffer.from(served.Body ?? []).toString()).toBe('chunk-0;');
    // A later update succeeds and clears the FailureReason.
    await c.sagemaker.send(
      new UpdateEndpointCommand({ EndpointName: h.endpointName, EndpointConfigName: configName }),
    );
    const ok = await eventually(async () => {
      const d = await describeEndpoint(c, h.endpointName);
      return d.EndpointStatus === 'InService' ? d : undefined;
    });
    expect(ok).toMatchObject({ EndpointConfigName: configName });
    expect(ok.FailureReason).toBeUndefined();
  });

  it('takes the config count unless the variant properties are retained (a scaled-out fleet keeps its size)', async () => {
    const { h, c } = await start({ quota: 6 });
    await c.sagemaker.send(
      new UpdateEndpointWeightsAndCapacitiesCommand({
        EndpointName: h.endpointName,
        DesiredWeightsAndCapacities: [{ VariantName: h.variantName, DesiredInstanceCount: 2 }],
      }),
    );
    await h.waitFor((s) => s.status === 'InService' && s.current === 2);
    const retained = await newConfig(c, h, 'keep', { MAX_QUEUE_DEPTH: '3' }, 1);
    await c.sagemaker.send(
      new UpdateEndpointCommand({
        EndpointName: h.endpointName,
        EndpointConfigName: retained,
        RetainAllVariantProperties: true,
      }),
    );
    await h.waitFor((s) => s.status === 'InService');
    expect(h.status()).toMatchObject({ desired: 2, current: 2 });
    expect(h.instances().map((i) => i.environment.MAX_QUEUE_DEPTH)).toEqual(['3', '3']);

    const fresh = await newConfig(c, h, 'reset', { MAX_QUEUE_DEPTH: '5' }, 1);
    await c.sagemaker.send(
      new UpdateEndpointCommand({
        EndpointName: h.endpointName,
        EndpointConfigName: fresh,
        RetainAllVariantProperties: true,
        ExcludeRetainedVariantProperties: [{ VariantPropertyType: 'DesiredInstanceCount' }],
      }),
    );
    await h.waitFor((s) => s.status === 'InService');
    expect(h.status()).toMatchObject({ desired: 1, current: 1 });
    expect(h.instances().map((i) => i.endpointConfigName)).toEqual([fresh]);
  });

  it('refuses what AWS refuses, as ValidationException naming the resource', async () => {
    const { h, c } = await start();
    const configName = await newConfig(c, h, 'v', { MAX_QUEUE_DEPTH: '2', READY_DELAY_MS: '1000' });
    const missingModel = await rejectionOf(
      c.sagemaker.send(
        new CreateEndpointConfigCommand({
          EndpointConfigName: 'no-model',
          ProductionVariants: [
            {
              VariantName: 'AllTraffic',
              ModelName: 'nope',
              InstanceType: 'ml.g5.xlarge',
              InitialInstanceCount: 1,
            },
          ],
        }),
      ),
    );
    expect(missingModel.name).toBe('ValidationException');
    expect(missingModel.message).toBe(
      `Could not find model "arn:aws:sagemaker:${h.region}:${h.accountId}:model/nope".`,
    );
    const again = await rejectionOf(
      c.sagemaker.send(
        new CreateModelCommand({ ModelName: `${h.endpointName}-model-v`, PrimaryContainer: { Image: 'x' } }),
      ),
    );
    expect(again.message).toMatch(/^Cannot create already existing model "arn:aws:sagemaker:.*:model\//);
    const badName = await rejectionOf(
      c.sagemaker.send(new CreateModelCommand({ ModelName: 'bad_name', PrimaryContainer: { Image: 'x' } })),
    );
    expect(badName.message).toMatch(/at 'modelName' failed to satisfy constraint/);
    const noConfig = await rejectionOf(
      c.sagemaker.send(
        new UpdateEndpointCommand({ EndpointName: h.endpointName, EndpointConfigName: 'nope' }),
      ),
    );
    expect(noConfig.message).toBe('Could not find endpoint configuration "nope".');
    await c.sagemaker.send(
      new UpdateEndpointCommand({ EndpointName: h.endpointName, EndpointConfigName: configName }),
    );
    // One change at a time: a second update (or a capacity change) while Updating is refused.
    const twice = await rejectionOf(
      c.sagemaker.send(
        new UpdateEndpointCommand({ EndpointName: h.endpointName, EndpointConfigName: configName }),
      ),
    );
    expect(twice.name).toBe('ValidationException');
    expect(twice.message).toMatch(/^Cannot update in-progress endpoint "arn:aws:sagemaker:/);
    const linear = await rejectionOf(
      c.sagemaker.send(
        new CreateEndpointCommand({
          EndpointName: 'other',
          EndpointConfigName: configName,
          DeploymentConfig: {
            BlueGreenUpdatePolicy: {
              TrafficRoutingConfiguration: { Type: 'LINEAR', WaitIntervalInSeconds: 60 },
            },
          },
        }),
      ),
    );
    expect(linear.message).toBe('Traffic routing LINEAR is not supported by the local SageMaker.');
    await h.waitFor((s) => s.status === 'InService');
  });
});

describe('CreateEndpoint, DeleteEndpoint, DeleteModel, DeleteEndpointConfig', () => {
  it('creates a second endpoint from a config (Creating, then InService and serving) and deletes it (Deleting, then gone, no process left)', async () => {
    const { h, c } = await start();
    const configName = await newConfig(c, h, 'second', { MAX_QUEUE_DEPTH: '7' });
    const created = await c.sagemaker.send(
      new CreateEndpointCommand({ EndpointName: 'second-endpoint', EndpointConfigName: configName }),
    );
    expect(created.EndpointArn).toBe(`arn:aws:sagemaker:${h.region}:${h.accountId}:endpoint/second-endpoint`);
    expect((await describeEndpoint(c, 'second-endpoint')).EndpointStatus).toBe('Creating');
    await eventually(async () =>
      (await describeEndpoint(c, 'second-endpoint')).EndpointStatus === 'InService' ? true : undefined,
    );
    expect((await deployedEnvironment(c, 'second-endpoint')).MAX_QUEUE_DEPTH).toBe('7');
    const served = await invoke(c, 'second-endpoint', { text: 'x', chunks: 2 });
    expect(Buffer.from(served.Body ?? []).toString()).toBe('chunk-0;chunk-1;');
    const dup = await rejectionOf(
      c.sagemaker.send(
        new CreateEndpointCommand({ EndpointName: 'second-endpoint', EndpointConfigName: configName }),
      ),
    );
    expect(dup.message).toMatch(
      /^Cannot create already existing endpoint "arn:aws:sagemaker:.*:endpoint\/second-endpoint"\.$/,
    );

    await c.sagemaker.send(new DeleteEndpointCommand({ EndpointName: 'second-endpoint' }));
    const gone = await eventually(async () => {
      const e = await rejectionOf(describeEndpoint(c, 'second-endpoint')).catch(() => undefined);
      return e;
    });
    expect(gone.message).toBe('Could not find endpoint "second-endpoint".');
    // The first endpoint is untouched.
    expect((await describeEndpoint(c, h.endpointName)).EndpointStatus).toBe('InService');

    await c.sagemaker.send(new DeleteEndpointConfigCommand({ EndpointConfigName: configName }));
    await c.sagemaker.send(new DeleteModelCommand({ ModelName: `${h.endpointName}-model-second` }));
    const noConfig = await rejectionOf(
      c.sagemaker.send(new DescribeEndpointConfigCommand({ EndpointConfigName: configName })),
    );
    expect(noConfig.message).toBe(`Could not find endpoint configuration "${configName}".`);
    const noModel = await rejectionOf(
      c.sagemaker.send(new DescribeModelCommand({ ModelName: `${h.endpointName}-model-second` })),
    );
    expect(noModel.name).toBe('ValidationException');
  });
});
