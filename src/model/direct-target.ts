/**
 * A container measured directly (`qmax --target URL`) when the config names no model for it: the
 * neutral model its measurement is recorded under.
 */
import { CONFIG_FILE, type ModelConfig, type ModelContext } from './config.js';
import { opt, usage } from './errors.js';
import { LOCAL_REGION } from './fingerprint.js';

/** The instance type and image digest a direct measurement with no model records: nothing is claimed. */
export const DIRECT_TARGET_INSTANCE_TYPE = 'ml.unknown.direct';
export const DIRECT_TARGET_IMAGE_DIGEST = 'unknown';

/**
 * The model a container measured directly (`qmax --target URL`) is recorded under when the config
 * names none for it (it declares several, or there is no config): a neutral name from the target
 * (`direct-<host>-<port>`), and nothing of any configured model claimed: instance type
 * `ml.unknown.direct`, image digest `unknown`, region `local`. The SLO must be given.
 */
export function directTargetContext(
  target: string,
  sloMs: number | undefined,
): ModelContext & { imageDigest: string } {
  let url: URL;
  try {
    url = new URL(target);
  } catch {
    throw usage`${opt('target', target)}: not a URL; give the container as http://HOST:PORT.`;
  }
  if (sloMs === undefined) {
    throw usage`${opt('target')} without ${opt('model')}: no model of the config gives the SLO; state it with ${opt('slo-ms')}.`;
  }
  const host =
    url.hostname
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'host';
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const modelName = `direct-${host}-${port}`.slice(0, 51).replace(/-+$/, '');
  const model: ModelConfig = {
    endpoint: modelName,
    variant: 'AllTraffic',
    region: LOCAL_REGION,
    instance_type: DIRECT_TARGET_INSTANCE_TYPE,
    container_env: {},
    slo_ms: sloMs,
    surge_ratio: 1,
    min_instances_floor: 1,
    invocation_ceiling_s: 60,
    max_overflow_probability: 0.05,
    require_drill: false,
    client_buffer_ms: 0,
    reference_prices: [],
    candidates: [],
    kind: 'variant',
  };
  return {
    config: { models: {} },
    configFile: CONFIG_FILE,
    modelName,
    model,
    endpoint: modelName,
    variant: model.variant,
    region: LOCAL_REGION,
    imageDigest: DIRECT_TARGET_IMAGE_DIGEST,
  };
}
