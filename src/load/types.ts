import type { Outcome, Transport as RecordedTransport } from '../model/artifacts.js';
import type { StreamAudio } from '../stats/continuity.js';

export type { Outcome };

/**
 * What the engine can drive: the kinds an artifact records (one row each in
 * src/load/transport/transports.ts). `response-stream` is SageMaker InvokeEndpointWithResponseStream
 * (the SDK's wire request, sent lean); `sdk` is the same call through the SDK v3 client.
 */
export type TransportKind = RecordedTransport;

/** Connection setup of one request: filled in by the transport when it opened a new socket. */
export interface ConnectionSlot {
  /** Set when this request opened a new socket. */
  openedAt: number | null;
  /** TCP (+TLS) setup time, ms, once the socket connected. */
  connectMs: number | null;
}

/** The transport's side of one request: it calls these as bytes arrive. */
export interface InvokeProbe {
  /**
   * Every response payload as it arrives (the engine stamps the first non-empty one as TTFAB, its
   * arrival time and bytes feed the audio accounting: the WAV header, audio seconds, stall time).
   * The engine reads the bytes at once and keeps only a stream's header bytes.
   */
  payload(chunk: Uint8Array): void;
  /** The request's connection slot (read by the engine at first audio and at the end). */
  connection(slot: ConnectionSlot): void;
}

export interface InvokeResult {
  outcome: Outcome;
  /** HTTP status when one was received. */
  status: number | null;
  /** A short reason for anything but `ok`. */
  error: string | null;
  /**
   * The container's own status when it refused the request (http: the status; SageMaker: the
   * ModelError's OriginalStatusCode). @default unknown
   */
  containerStatus?: number | null;
}

export interface Transport {
  readonly kind: TransportKind;
  /** Human-readable target, e.g. `http://127.0.0.1:8080/invocations` or `endpoint speech-x`. */
  readonly target: string;
  /**
   * One request, no retries. Resolves (never rejects) with the outcome once the whole response
   * has been read or the request failed; `signal` aborts it (the engine's timeout or stop).
   */
  invoke(body: Uint8Array, probe: InvokeProbe, signal: AbortSignal): Promise<InvokeResult>;
  /** The URL requests go to (the runtime host of an endpoint, or the container): where the RTT floor is measured. */
  endpointUrl?(): Promise<URL>;
  close(): Promise<void>;
}

/** One request as the engine saw it. Times are monotonic (performance.now(), ms). */
export interface RequestRecord {
  seq: number;
  worker: number;
  /** The engine epoch (one per setConcurrency) the request was dispatched in. */
  epoch: number;
  /** Target concurrency when dispatched. */
  concurrency: number;
  promptIndex: number;
  dispatchedAt: number;
  firstAudioAt: number | null;
  endedAt: number | null;
  /** New socket opened for this request: TCP (+TLS) setup time; null when a kept-alive socket was reused. */
  connectMs: number | null;
  /** First non-empty audio payload minus dispatch, minus connection setup (recorded separately). */
  ttfabMs: number | null;
  /** Whole response (last byte) minus dispatch, minus connection setup. */
  latencyMs: number | null;
  outcome: Outcome;
  status: number | null;
  bytes: number;
  error: string | null;
  /** Aborted because the engine was stopped (not a measurement; excluded from every statistic). */
  stopped: boolean;
  /** Characters of the prompt text sent. @default 0 */
  characters?: number;
  /** The stream's audio, accumulated as it arrived (format, audio seconds, stall). */
  audio?: StreamAudio | null;
}
