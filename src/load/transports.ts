/** Which transports exist, and the one that does not (yet). */
import { opt, usage } from '../model/errors.js';
import {
  createResponseStreamTransport,
  createSdkResponseStreamTransport,
  type ResponseStreamTransportOptions,
} from './response-stream-transport.js';
import type { Transport, TransportKind } from './types.js';

export const TRANSPORT_KINDS: readonly TransportKind[] = ['response-stream', 'http', 'sdk'];

export { isSageMakerTransport } from '../model/artifacts.js';

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
export function parseTransportKind(name: string, option = 'transport'): TransportKind {
  const normalized = name.trim().toLowerCase();
  if (normalized === 'sagemaker') return 'response-stream';
  if ((TRANSPORT_KINDS as readonly string[]).includes(normalized)) return normalized as TransportKind;
  if (BIDI.has(normalized)) {
    throw usage`${opt(option, name)}: InvokeEndpointWithBidirectionalStream cannot be measured: it belongs to a separate HTTP/2 service (SageMaker Runtime HTTP2; AWS ships clients for it in Java, Rust and other SDKs) that has no JavaScript SDK client today (no @aws-sdk package for it is published). Measure with \`response-stream\` (InvokeEndpointWithResponseStream; \`sdk\` for the same through the SDK client) or \`http\` (the container directly).`;
  }
  throw usage`${opt(option, name)}: unknown transport; use one of ${TRANSPORT_KINDS.join(', ')}.`;
}
