/**
 * What a freezing command (qmax, goodput, ttotal) checks before any AWS call: the endpoint and variant are
 * SageMaker names (they become requests and a file path), the output file is a file, and the
 * endpoint is not the model's production one unless that is allowed.
 */
import { type AwsClients, clientEndpointUrl, isLoopbackUrl } from '../aws/clients.js';
import type { ModelConfig } from '../model/config.js';
import { opt, usage } from '../model/errors.js';
import { checkOutputFile } from '../model/io.js';
import { checkAwsName } from '../model/safe.js';
import type { FreezingCommand } from '../options/commands.js';
import { calibrationEndpointName } from '../plan/policy-shape.js';

/** What is to be frozen, as the command's input states it. */
export interface FreezeTarget {
  modelName: string;
  model: Pick<ModelConfig, 'endpoint'>;
  endpoint: string;
  variant: string;
  /** @default none */
  outFile?: string;
  /** @default false */
  allowProduction?: boolean;
}

/** The names and the output file, refused (exit 2) before anything is measured. */
export function checkFreezeTarget(target: FreezeTarget): void {
  checkAwsName(target.endpoint, 'endpoint', '--endpoint');
  checkAwsName(target.variant, 'variant', 'variant');
  if (target.outFile !== undefined) checkOutputFile(target.outFile);
}

/**
 * A freezing command aimed at the model's configured (production) endpoint would hold production
 * at one instance, scaling suspended, for the whole measurement: refused (exit 2) before any AWS
 * call unless allowed. Clients that all point at this machine's loopback (the local SageMaker,
 * `AWS_ENDPOINT_URL=http://127.0.0.1:...`) reach no production, so they are exempt. Reads only
 * the clients' configuration.
 */
export async function refuseProductionFreeze(
  command: FreezingCommand,
  target: FreezeTarget,
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
  log: (line: string) => void = () => {},
): Promise<void> {
  const { endpoint, modelName } = target;
  checkAwsName(endpoint, 'endpoint', '--endpoint');
  if (endpoint !== target.model.endpoint) return;
  const urls = await Promise.all([
    clientEndpointUrl(clients.sagemaker),
    clientEndpointUrl(clients.autoscaling),
  ]);
  if (urls.every(isLoopbackUrl)) {
    log(
      `${command}: ${endpoint} is reached through ${urls[0]} (loopback: the local SageMaker), which holds no production`,
    );
    return;
  }
  if (target.allowProduction) {
    log(
      `${command}: WARNING --allow-production: freezing ${endpoint}, the production endpoint of ${modelName}`,
    );
    return;
  }
  const calibration = calibrationEndpointName(endpoint);
  throw usage`${command} would freeze ${endpoint}, the production endpoint of model ${modelName} (its configured endpoint): one instance, scaling suspended, for the whole measurement. Measure its calibration copy instead (${opt('endpoint', calibration)}, deployed by \`scalegate deploy ${modelName} --calibration\`), or pass ${opt('allow-production')} if you mean to freeze production.`;
}
