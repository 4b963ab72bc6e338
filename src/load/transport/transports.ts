/**
 * The transport table: one declaration per kind (its name, whether it goes through AWS, whether it
 * needs a `--target`, and how it is built). Every command and the action choose, judge and build a
 * transport from here; a new transport is one more row (and its kind in the artifact schema).
 */
import { opt, usage } from '../../model/errors.js';
import { componentNameOf, type InferenceComponentConfig } from '../../model/inference-component.js';
import type { Transport, TransportKind } from '../types.js';
import { createHttpTransport, invocationsUrl } from './http-transport.js';
import {
  createLoadRuntimeClient,
  createResponseStreamTransport,
  createSdkResponseStreamTransport,
  type ResponseStreamTransportOptions,
} from './response-stream-transport.js';

/** Where the load goes and how wide: what every transport is built from. */
export interface TransportSetup {
  /** Highest number of requests in flight (sizes the socket pool). */
  maxConcurrency: number;
  /** The container's invocations URL (transports that need a target). */
  targetUrl: string | null;
  endpoint: string;
  variant: string;
  region: string;
  /** Content-Type and Accept of every request (the run's request shape). @default application/json, audio/wav */
  request?: { contentType: string; accept: string };
  /**
   * The model measured: of `kind: inference-component`, every request names its component
   * (InferenceComponentName), the only thing an IC-hosting endpoint serves. @default a variant
   */
  model?: {
    kind?: 'variant' | 'inference-component';
    inference_component?: InferenceComponentConfig | undefined;
  };
  /** Endpoint/credentials of the load's own runtime client. @default the SDK environment */
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
}

export interface TransportDeclaration {
  /** Through a SageMaker endpoint (AWS clients, the freeze, CloudWatch), not a container's own http. */
  readonly throughAws: boolean;
  /** Measures a container directly: needs `--target` (and refuses an endpoint). */
  readonly needsTarget: boolean;
  readonly create: (setup: TransportSetup) => Transport;
}

/** The inference component the load of `setup` goes to (null: a variant). */
export function componentOf(setup: Pick<TransportSetup, 'endpoint' | 'model'>): string | null {
  const ic = setup.model?.kind === 'inference-component' ? setup.model.inference_component : undefined;
  return ic ? componentNameOf(setup.endpoint, ic) : null;
}

/** The SageMaker transports' options: the load's own runtime client, owned by the transport. */
const sageMaker = (setup: TransportSetup): ResponseStreamTransportOptions => ({
  runtime: createLoadRuntimeClient({
    region: setup.region,
    maxConcurrency: setup.maxConcurrency,
    ...setup.loadClient,
  }),
  endpoint: setup.endpoint,
  // A component names the variant it lives on itself: the request names the component alone.
  ...(componentOf(setup) ? { inferenceComponent: componentOf(setup) as string } : { variant: setup.variant }),
  ownsClient: true,
  ...(setup.request ? { contentType: setup.request.contentType, accept: setup.request.accept } : {}),
});

/** One row per kind, in the order they are listed to the user. */
export const TRANSPORTS: { readonly [K in TransportKind]: TransportDeclaration } = {
  /** InvokeEndpointWithResponseStream, the SDK's wire request sent lean. */
  'response-stream': {
    throughAws: true,
    needsTarget: false,
    create: (setup) => createResponseStreamTransport(sageMaker(setup)),
  },
  /** POST straight to a container's /invocations. */
  http: {
    throughAws: false,
    needsTarget: true,
    create: (setup) =>
      createHttpTransport({
        url: setup.targetUrl as string,
        maxConcurrency: setup.maxConcurrency,
        ...(setup.request ? { contentType: setup.request.contentType, accept: setup.request.accept } : {}),
      }),
  },
  /** InvokeEndpointWithResponseStream through the SDK v3 client. */
  sdk: {
    throughAws: true,
    needsTarget: false,
    create: (setup) => createSdkResponseStreamTransport(sageMaker(setup)),
  },
};

export const TRANSPORT_KINDS = Object.keys(TRANSPORTS) as readonly TransportKind[];

/** The kind used when none is named: the one needing a target when there is one, else the endpoint's. */
export const DEFAULT_TRANSPORT: TransportKind = 'response-stream';
const DEFAULT_TARGET_TRANSPORT: TransportKind = 'http';

/** Whether `kind` goes through a SageMaker endpoint (the one place this is decided). */
export const isSageMakerTransport = (kind: TransportKind): kind is 'response-stream' | 'sdk' =>
  TRANSPORTS[kind].throughAws;

/** Builds the transport of `kind`. */
export const createTransport = (kind: TransportKind, setup: TransportSetup): Transport =>
  TRANSPORTS[kind].create(setup);

/** The SageMaker transport of `kind`. */
export function createSageMakerTransport(
  kind: 'response-stream' | 'sdk',
  options: ResponseStreamTransportOptions,
): Transport {
  return kind === 'sdk' ? createSdkResponseStreamTransport(options) : createResponseStreamTransport(options);
}

/**
 * The transport a load command measures over, from its `--transport` and `--target`: the named
 * kind, else http with a target, else response-stream; refused (exit 2) when the two disagree.
 */
export function chooseTransport(
  command: string,
  input: { transport?: string; target?: string },
): { kind: TransportKind; targetUrl: string | null } {
  const kind = input.transport
    ? parseTransportKind(input.transport)
    : input.target
      ? DEFAULT_TARGET_TRANSPORT
      : DEFAULT_TRANSPORT;
  if (TRANSPORTS[kind].needsTarget && !input.target) {
    throw usage`${command}: ${opt('transport', kind)} measures a container directly: give its address with ${opt('target')} http://HOST:PORT.`;
  }
  if (!TRANSPORTS[kind].needsTarget && input.target) {
    throw usage`${command}: give either a target (${opt('target')}: a container measured directly over http) or the endpoint (${opt('transport', kind)}), not both.`;
  }
  return { kind, targetUrl: input.target ? invocationsUrl(input.target).toString() : null };
}

/**
 * Whether a load command given these options needs AWS clients: not a dry run, no `--target` (a
 * container measured directly; a disagreeing `--transport` is refused by the command itself), and
 * a transport that goes through an endpoint (the default does).
 */
export function loadsThroughAws(options: {
  transport?: TransportKind;
  target?: string;
  dryRun?: boolean;
}): boolean {
  if (options.dryRun || options.target) return false;
  return TRANSPORTS[options.transport ?? DEFAULT_TRANSPORT].throughAws;
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
