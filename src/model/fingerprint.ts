import { z } from 'zod';
import type { ModelConfig } from './config.js';
import {
  type IcFingerprint,
  icFingerprintLabel,
  icFingerprintOf,
  icFingerprintSchema,
} from './inference-component.js';
import {
  configuredRequestShape,
  type RequestShape,
  requestShapeLabel,
  requestShapeSchema,
  sameRequestShape,
} from './request-shape.js';
import { regionSchema, safeString } from './safe.js';

/** Region name of the local SageMaker: a measurement made there never fingerprints a real region. */
export const LOCAL_REGION = 'local';

/**
 * What a measurement is valid for. Two artifacts pair only when their fingerprints are equal:
 * a Q_max measured on another image, instance type, environment or region says nothing about
 * this one.
 */
export const fingerprintSchema = z.object({
  instance_type: z.string().regex(/^ml\.[a-z0-9]+\.[a-z0-9]+$/, 'an instance type such as ml.g5.xlarge'),
  /** The part after `@sha256:` of the image URI, or its tag (CDK asset tags are 64-hex content hashes). */
  image_digest: safeString.min(1).max(200),
  /** Container environment without `AWS_*` and ambient keys (see AMBIENT_ENV_KEYS). */
  container_env: z.record(safeString, safeString),
  /** null only for legacy artifacts, which did not record it (the gate refuses those). */
  region: regionSchema.nullable(),
  /**
   * The request shape the load sent (body template, Content-Type, Accept): a container measured
   * with another body is another measurement. Absent in artifacts written before it was
   * recorded: read as the default `{"text": ...}` as application/json, accepting audio/wav.
   */
  request: requestShapeSchema.optional(),
  /**
   * An inference-component model's packing and per-copy compute (absent: a variant model): a plan
   * for one packing never pairs with another.
   */
  inference_component: icFingerprintSchema.optional(),
});
export type Fingerprint = z.infer<typeof fingerprintSchema>;

/**
 * Keys that say nothing about what the model computes: set by the platform or the base image,
 * derived from the plan itself (MAX_QUEUE_DEPTH comes from Q_max, so fingerprinting it would make
 * every deploy of a new plan look like a new container), or naming where the deployment is
 * (SCALEGATE_ENDPOINT_NAME / SCALEGATE_VARIANT_NAME, the dimensions of the container's service-time
 * metric: the calibration copy and production differ there and run the same container).
 */
export const AMBIENT_ENV_KEYS: ReadonlySet<string> = new Set([
  'HOME',
  'HOSTNAME',
  'LANG',
  'LC_ALL',
  'MAX_QUEUE_DEPTH',
  'NODE_VERSION',
  'PATH',
  'PORT',
  'PWD',
  'SAGEMAKER_BIND_TO_PORT',
  'SCALEGATE_ENDPOINT_NAME',
  'SCALEGATE_VARIANT_NAME',
  'SHLVL',
  'TERM',
  'TZ',
  'YARN_VERSION',
]);

export function measuredEnvironment(env: Record<string, string>): Record<string, string> {
  const kept = Object.entries(env)
    .filter(([key]) => !key.startsWith('AWS_') && !AMBIENT_ENV_KEYS.has(key))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(kept);
}

/** `...@sha256:<hex>` -> `<hex>`; `repo:tag` -> `tag`; a bare repository -> `latest`. */
export function imageDigestOf(imageUri: string): string {
  const at = imageUri.indexOf('@sha256:');
  if (at >= 0) return imageUri.slice(at + '@sha256:'.length);
  const lastSegment = imageUri.slice(imageUri.lastIndexOf('/') + 1);
  const colon = lastSegment.lastIndexOf(':');
  return colon >= 0 ? lastSegment.slice(colon + 1) : 'latest';
}

/**
 * The fingerprint a measurement of `model` carries, from the config side: its instance type, the
 * image digest it deploys (src/model/asset-hash.ts `modelImageDigest`) and its measured
 * environment, in `region`. What the http transport records, what the gate and the action's
 * discovery compare measurements with.
 */
export function configFingerprint(
  model: Pick<ModelConfig, 'instance_type' | 'container_env' | 'request'> &
    Partial<Pick<ModelConfig, 'kind' | 'inference_component'>>,
  imageDigest: string,
  region: string | null,
  request: RequestShape = configuredRequestShape(model.request),
): Fingerprint {
  const ic = inferenceComponentFingerprint(model);
  return {
    instance_type: model.instance_type,
    image_digest: imageDigest,
    container_env: measuredEnvironment(model.container_env),
    region,
    request,
    ...(ic ? { inference_component: ic } : {}),
  };
}

/** The packing part of a model's fingerprint: undefined for a variant model. */
export function inferenceComponentFingerprint(
  model: Partial<Pick<ModelConfig, 'kind' | 'inference_component'>>,
): IcFingerprint | undefined {
  return model.kind === 'inference-component' && model.inference_component
    ? icFingerprintOf(model.inference_component)
    : undefined;
}

/** `ml.g5.xlarge` + `8b1b96bc…` -> `g5xlarge-8b1b96bc`. */
export function fingerprintSlug(fp: Pick<Fingerprint, 'instance_type' | 'image_digest'>): string {
  const instance = fp.instance_type.replace(/^ml\./, '').replaceAll('.', '');
  const digest = fp.image_digest
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 8);
  return `${instance}-${digest}`;
}

export interface FingerprintDifference {
  field: keyof Fingerprint;
  left: string;
  right: string;
}

/**
 * Fields on which two fingerprints disagree. A legacy artifact's unknown region (null) is not a
 * difference: it cannot be checked, and the gate separately refuses measurements from the local
 * SageMaker for real regions.
 */
export function fingerprintDifferences(left: Fingerprint, right: Fingerprint): FingerprintDifference[] {
  const differences: FingerprintDifference[] = [];
  if (left.instance_type !== right.instance_type) {
    differences.push({ field: 'instance_type', left: left.instance_type, right: right.instance_type });
  }
  if (left.image_digest !== right.image_digest) {
    differences.push({ field: 'image_digest', left: left.image_digest, right: right.image_digest });
  }
  const leftEnv = JSON.stringify(measuredEnvironment(left.container_env));
  const rightEnv = JSON.stringify(measuredEnvironment(right.container_env));
  if (leftEnv !== rightEnv) differences.push({ field: 'container_env', left: leftEnv, right: rightEnv });
  if (left.region !== null && right.region !== null && left.region !== right.region) {
    differences.push({ field: 'region', left: left.region, right: right.region });
  }
  if (!sameRequestShape(left.request, right.request)) {
    differences.push({
      field: 'request',
      left: requestShapeLabel(left.request),
      right: requestShapeLabel(right.request),
    });
  }
  const leftIc = icFingerprintLabel(left.inference_component);
  const rightIc = icFingerprintLabel(right.inference_component);
  if (leftIc !== rightIc) differences.push({ field: 'inference_component', left: leftIc, right: rightIc });
  return differences;
}
