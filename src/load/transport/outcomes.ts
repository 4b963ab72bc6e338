/**
 * Outcome classification, shared by the transports. The closed set is the artifact's `outcome`:
 * ok | saturated_503 | throttled_429 | server_5xx | model_error | client_timeout | error.
 */
import type { Outcome } from '../types.js';

/** A container or front end answered `status` with `body` (non-2xx). */
export function classifyHttpStatus(status: number, body = ''): Outcome {
  if (status === 503) return 'saturated_503';
  if (status === 429) return 'throttled_429';
  if (status === 424) return body.includes('queue_saturated') ? 'saturated_503' : 'model_error';
  if (status >= 500) return 'server_5xx';
  return 'error';
}

interface SdkErrorLike {
  name?: string;
  message?: string;
  OriginalStatusCode?: number;
  $metadata?: { httpStatusCode?: number };
}

/** An error the SageMaker Runtime client threw (or an exception event in the response stream). */
export function classifySdkError(e: unknown): Outcome {
  const err = (e ?? {}) as SdkErrorLike;
  const name = err.name ?? '';
  const status = err.$metadata?.httpStatusCode;
  const message = err.message ?? '';
  if (name === 'ServiceUnavailable' || status === 503) return 'saturated_503';
  if (name === 'ThrottlingException' || name === 'TooManyRequestsException' || status === 429) {
    return 'throttled_429';
  }
  if (name === 'ModelError' || name === 'ModelStreamError' || name === 'ModelNotReadyException') {
    // Real SageMaker wraps a container's non-2xx in ModelError (424) with the original status.
    if (err.OriginalStatusCode === 503 || message.includes('queue_saturated')) return 'saturated_503';
    if (err.OriginalStatusCode === 429) return 'throttled_429';
    return 'model_error';
  }
  if (
    name === 'InternalFailure' ||
    name === 'InternalStreamFailure' ||
    name === 'InternalDependencyException' ||
    (status !== undefined && status >= 500)
  ) {
    return 'server_5xx';
  }
  return 'error';
}

export const errorText = (e: unknown): string => {
  const err = e as { name?: string; message?: string };
  const name = err?.name && err.name !== 'Error' ? `${err.name}: ` : '';
  return `${name}${err?.message ?? String(e)}`.slice(0, 500);
};
