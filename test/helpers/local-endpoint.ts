/**
 * Local SageMaker endpoints with real SDK clients: one whose scalable target is in a known
 * suspension state (what every freeze/thaw test starts from), and one whose instances emulate the
 * Kokoro-82M device (what the device tests load).
 */
import { join } from 'node:path';
import { RegisterScalableTargetCommand, type SuspendedState } from '@aws-sdk/client-application-auto-scaling';
import { deriveDeviceProfile } from '../../src/analysis/device-profile.js';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import {
  clientConfigFor,
  type LocalSageMakerHandle,
  type LocalSageMakerOptions,
  startLocalSageMaker,
} from '../../src/local/index.js';
import { readArtifact } from '../../src/model/index.js';

export interface TestEndpoint {
  handle: LocalSageMakerHandle;
  clients: AwsClients;
  resourceId: string;
  close(): Promise<void>;
}

export async function startTestEndpoint(
  options: LocalSageMakerOptions,
  suspended: SuspendedState,
): Promise<TestEndpoint> {
  const handle = await startLocalSageMaker({
    provisionDelayS: 0.2,
    maxQueueDepth: 256,
    registerScalableTarget: true,
    ...options,
  });
  const local = clientConfigFor(handle);
  const clients = createAwsClients({
    region: local.region,
    endpoint: local.endpoint,
    credentials: local.credentials,
  });
  const resourceId = `endpoint/${handle.endpointName}/variant/${handle.variantName}`;
  await clients.autoscaling.send(
    new RegisterScalableTargetCommand({
      ServiceNamespace: 'sagemaker',
      ResourceId: resourceId,
      ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
      SuspendedState: suspended,
    }),
  );
  return {
    handle,
    clients,
    resourceId,
    close: async () => {
      destroyAwsClients(clients);
      await handle.close();
    },
  };
}

/** The committed Kokoro-82M ml.g5.xlarge ladder, as the emulated device of every instance. */
export const KOKORO_QMAX_FILE = join(
  import.meta.dirname,
  '..',
  '..',
  'artifacts',
  'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
);
export const kokoroDevice = deriveDeviceProfile(readArtifact('qmax', KOKORO_QMAX_FILE), KOKORO_QMAX_FILE);

/** An endpoint whose instances each emulate the Kokoro-82M device, with clients sized for load. */
export async function startDeviceEndpoint(options: {
  endpointName: string;
  instances: number;
  timeScale: number;
  quota?: number;
}): Promise<Omit<TestEndpoint, 'resourceId'>> {
  const handle = await startLocalSageMaker({
    endpointName: options.endpointName,
    instances: options.instances,
    ...(options.quota === undefined ? {} : { quota: options.quota }),
    provisionDelayS: 0.2,
    maxQueueDepth: 10_000,
    device: { profile: kokoroDevice.profile, timeScale: options.timeScale, startup: null },
  });
  const local = clientConfigFor(handle);
  const clients = createAwsClients({
    region: local.region,
    endpoint: local.endpoint,
    credentials: local.credentials,
    maxConcurrency: 64,
  });
  return {
    handle,
    clients,
    close: async () => {
      destroyAwsClients(clients);
      await handle.close();
    },
  };
}
