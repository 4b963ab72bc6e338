/**
 * The errors each service answers for bad input (read with src/local/wire.ts `Reader`), and
 * opaque pagination.
 * Application Auto Scaling says `ValidationException`; CloudWatch uses its query-era codes
 * (`InvalidParameterValue`, `MissingParameter`, ...), which the SDK maps onto its exception
 * classes through their `awsQueryError` trait.
 */
import { AwsError } from '../aws-error.js';
import type { ErrorFactory, Reader } from '../wire.js';

export type { ErrorFactory, Input } from '../wire.js';

export const aasInvalid: ErrorFactory = (m) => new AwsError('ValidationException', m, 400);
export const cwInvalid: ErrorFactory = (m) => new AwsError('InvalidParameterValue', m, 400);
export const cwMissing: ErrorFactory = (m) => new AwsError('MissingParameter', m, 400);

/** Opaque pagination tokens: the offset into a stable ordering, bound to the query that produced it. */
export function encodeToken(offset: number, scope: string): string {
  return Buffer.from(JSON.stringify({ o: offset, s: scope })).toString('base64');
}

export function decodeToken(token: string | undefined, scope: string, invalid: ErrorFactory): number {
  if (token === undefined) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { o?: unknown; s?: unknown };
    if (typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0 && parsed.s === scope) {
      return parsed.o;
    }
  } catch {
    // fall through: any undecodable token is invalid
  }
  throw invalid('Invalid NextToken.');
}

/** One page of `items` and the token for the rest (absent on the last page, as AWS does). */
export function page<T>(
  items: readonly T[],
  offset: number,
  size: number,
  scope: string,
): { items: T[]; nextToken: string | undefined } {
  const slice = items.slice(offset, offset + size);
  const next = offset + size < items.length ? encodeToken(offset + size, scope) : undefined;
  return { items: slice, nextToken: next };
}

// ---- the scalable target's key (every Application Auto Scaling operation names it) -----------

export const NAMESPACE = 'sagemaker';
/** An endpoint variant's instances (`endpoint/<endpoint>/variant/<variant>`). */
export const DIMENSION = 'sagemaker:variant:DesiredInstanceCount';
export const RESOURCE_ID = /^endpoint\/([^/]+)\/variant\/([^/]+)$/;
/** An inference component's copies (`inference-component/<name>`). */
export const IC_DIMENSION = 'sagemaker:inference-component:DesiredCopyCount';
export const IC_RESOURCE_ID = /^inference-component\/([^/]+)$/;
const DIMENSIONS = [DIMENSION, IC_DIMENSION];

/** The scalable dimension a resource ID names (each resource kind has exactly one here). */
export function dimensionOf(resourceId: string): string {
  return IC_RESOURCE_ID.test(resourceId) ? IC_DIMENSION : DIMENSION;
}

/** What the capacity of a resource counts, for activity texts: instances or copies. */
export function unitOf(resourceId: string): 'instance count' | 'copy count' {
  return IC_RESOURCE_ID.test(resourceId) ? 'copy count' : 'instance count';
}

export function noTarget(resourceId: string): AwsError {
  return new AwsError(
    'ObjectNotFoundException',
    `No scalable target registered for service namespace: ${NAMESPACE}, resource ID: ${resourceId}, scalable dimension: ${dimensionOf(resourceId)}`,
  );
}

export function readNamespace(r: Reader): void {
  const ns = r.str('ServiceNamespace');
  if (ns !== NAMESPACE) {
    throw aasInvalid(`ServiceNamespace ${ns} is not supported by the local SageMaker; use ${NAMESPACE}.`);
  }
}

export function checkDimension(dim: string): void {
  if (!DIMENSIONS.includes(dim)) {
    throw aasInvalid(
      `ScalableDimension ${dim} is not supported by the local SageMaker; use ${DIMENSIONS.join(' or ')}.`,
    );
  }
}

/** ServiceNamespace, ScalableDimension and ResourceId, validated; returns the resource ID. */
export function readKey(r: Reader): string {
  readNamespace(r);
  const dim = r.str('ScalableDimension');
  checkDimension(dim);
  const resourceId = r.str('ResourceId');
  const pattern = dim === IC_DIMENSION ? IC_RESOURCE_ID : RESOURCE_ID;
  if (!pattern.test(resourceId)) {
    throw aasInvalid(
      `Unsupported resource ID ${resourceId} for ${dim}: expected ${dim === IC_DIMENSION ? 'inference-component/<inference-component-name>' : 'endpoint/<endpoint-name>/variant/<variant-name>'}.`,
    );
  }
  return resourceId;
}
