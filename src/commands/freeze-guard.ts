/**
 * What a freezing command (qmax, goodput, ttotal) checks before any AWS call: the endpoint and variant are
 * SageMaker names (they become requests and a file path), the output file is a file, and the
 * endpoint is the model's own calibration copy (never a model's production one) unless
 * `--allow-production`.
 */
import { type AwsClients, clientEndpointUrl, isLoopbackUrl } from '../aws/clients.js';
import { type ModelConfig, readConfigFile } from '../model/config.js';
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
  /** The config the model came from: every model's configured endpoint in it is production. @default the target model's only */
  configFile?: string;
}

/** The names and the output file, refused (exit 2) before anything is measured. */
export function checkFreezeTarget(target: FreezeTarget): void {
  checkAwsName(target.endpoint, 'endpoint', '--endpoint');
  checkAwsName(target.variant, 'variant', 'variant');
  if (target.outFile !== undefined) checkOutputFile(target.outFile);
}

/** SageMaker endpoint names are case-insensitive: `Speech-X` and `speech-x` are one endpoint. */
const sameEndpoint = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** Every model's configured (production) endpoint in the config file, besides the target model's own. */
function productionEndpoints(target: FreezeTarget): { endpoint: string; modelName: string }[] {
  const own = [{ endpoint: target.model.endpoint, modelName: target.modelName }];
  if (target.configFile === undefined) return own;
  const config = readConfigFile(target.configFile);
  return [
    ...own,
    ...Object.entries(config.models).map(([modelName, model]) => ({ endpoint: model.endpoint, modelName })),
  ];
}

/**
 * Outside loopback a freezing command measures only the model's own calibration copy
 * (`calibrationEndpointName(model.endpoint)`, names compared case-insensitively): any other
 * endpoint, and above all any model's configured (production) endpoint, is refused (exit 2)
 * before any AWS call unless `--allow-production`. Clients that all point at this machine's
 * loopback (the local SageMaker, `AWS_ENDPOINT_URL=http://127.0.0.1:...`) reach no production, so
 * they are exempt. Reads only the clients' configuration and the config file.
 */
export async function refuseProductionFreeze(
  command: FreezingCommand,
  target: FreezeTarget,
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
  log: (line: string) => void = () => {},
): Promise<void> {
  const { endpoint, modelName } = target;
  checkAwsName(endpoint, 'endpoint', '--endpoint');
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
  const calibration = calibrationEndpointName(target.model.endpoint);
  const production = productionEndpoints(target).find((p) => sameEndpoint(p.endpoint, endpoint));
  const isCalibration = sameEndpoint(endpoint, calibration) && !production;
  if (isCalibration) return;
  if (target.allowProduction) {
    log(
      production
        ? `${command}: WARNING --allow-production: freezing ${endpoint}, the production endpoint of ${production.modelName}`
        : `${command}: WARNING --allow-production: freezing ${endpoint}, which is not ${modelName}'s calibration endpoint ${calibration}`,
    );
    return;
  }
  if (production) {
    const whose =
      production.modelName === modelName
        ? `the production endpoint of model ${modelName} (its configured endpoint)`
        : `the production endpoint of model ${production.modelName} (its configured endpoint), not model ${modelName}'s`;
    throw usage`${command} would freeze ${endpoint}, ${whose}: one instance, scaling suspended, for the whole measurement. Measure ${modelName}'s calibration copy instead (${opt('endpoint', calibration)}, deployed by \`scalegate deploy ${modelName} --calibration\`), or pass ${opt('allow-production')} if you mean to freeze production.`;
  }
  throw usage`${command} would freeze ${endpoint}, which is not model ${modelName}'s calibration endpoint (${calibration}): outside the local SageMaker only the model's own calibration copy is measured, so a mistyped or foreign endpoint is never frozen. Measure ${opt('endpoint', calibration)} (deployed by \`scalegate deploy ${modelName} --calibration\`), or pass ${opt('allow-production')} if you mean to freeze ${endpoint}.`;
}
