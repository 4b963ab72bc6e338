/** Which transports exist, and the one that does not (yet). */
import { UsageError } from '../model/errors.js';
import {
  createResponseStreamTransport,
  createSdkResponseStreamTransport,
  type ResponseStreamTransportOptions,
} from './response-stream-transport.js';
import type { Transport, TransportKind } from './types.js';

export const TRANSPORT_KINDS: readonly TransportKind[] = ['response-stream', 'http', 'sdk'];

/** One line per kind, for flag help. */
export const TRANSPORT_HELP =
  'response-stream (SageMaker InvokeEndpointWithResponseStream, lean), sdk (the same through the AWS SDK v3 client, for reference) or http (a container directly)';

/** Transports that go through a SageMaker endpoint (as opposed to a container's own http). */
export const isSageMakerTransport = (kind: TransportKind): kind is 'response-stream' | 'sdk' =>
  kind === 'response-stream' || kind === 'sdk';

/** The SageMaker transport of `kind`. */
export function createSageMakerTransport(
  kind: 'response-stream' | 'sdk',
  options: ResponseStreamTransportOptions,
): Transport {
  return kind === 'sdk' ? createSdkResponseStreamTransport(options) : createResponseStreamTransport(options);
}

const BIDI = new Set([
  'bidirectional',
  'bidirectional-stream',
  'bidi',
  'invoke-endpoint-with-bidirectional-stream',
]);

/** Validates a transport name; bidirectional streaming gets an explanation instead of a stack trace. */
export function parseTransportKind(name: string, flag = '--transport'): TransportKind {
  const normalized = name.trim().toLowerCase();
  if (normalized === 'sagemaker') return 'response-stream';
  if ((TRANSPORT_KINDS as readonly string[]).includes(normalized)) return normalized as TransportKind;
  if (BIDI.has(normalized)) {
    throw new UsageError(
      `${flag} ${name}: InvokeEndpointWithBidirectionalStream cannot be measured: it belongs to a separate ` +
        'HTTP/2 service (SageMaker Runtime HTTP2; AWS ships clients for it in Java, Rust and other SDKs) that has ' +
        'no JavaScript SDK client today (no @aws-sdk package for it is published). Measure with `response-stream` ' +
        '(InvokeEndpointWithResponseStream; `sdk` for the same through the SDK client) or `http` (the container directly).',
    );
  }
  throw new UsageError(`${flag} ${name}: unknown transport; use one of ${TRANSPORT_KINDS.join(', ')}.`);
}
