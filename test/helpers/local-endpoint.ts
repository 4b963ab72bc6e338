/**
 * A local SageMaker endpoint with real SDK clients and its scalable target in a known suspension
 * state: what every freeze/thaw test starts from.
 */
import { RegisterScalableTargetCommand, type SuspendedState } from '@aws-sdk/client-application-auto-scaling';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import {
  clientConfigFor,
  type LocalSageMakerHandle,
  type LocalSageMakerOptions,
  startLocalSageMaker,
} from '../../src/local/index.js';

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
