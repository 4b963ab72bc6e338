/**
 * Faults the local SageMaker can inject, for tests of what the tool does when AWS misbehaves.
 * Set at start (`options.faults`) or any time through `handle.faults` (replaces the whole set);
 * `handle.reset()` clears them.
 */
import { AwsError } from './aws-error.js';

/** Service names used in `throttle` keys (the SDK client names, without "Client"). */
export type ServiceName =
  | 'SageMaker'
  | 'SageMakerRuntime'
  | 'CloudWatch'
  | 'CloudWatchLogs'
  | 'ApplicationAutoScaling'
  | 'ServiceQuotas'
  | 'Pricing';

export interface FaultOptions {
  /**
   * Probability (0..1) that a call is refused with ThrottlingException (HTTP 400). Keys:
   * `'<Service>.<Operation>'` (e.g. `'SageMaker.DescribeEndpoint'`,
   * `'SageMakerRuntime.InvokeEndpointWithResponseStream'`), `'<Service>'`, or `'*'`; the most
   * specific key present wins.
   */
  throttle?: Record<string, number>;
  /** Probability (0..1) that an invocation fails in the service with a 5xx before reaching a container. */
  invocation5xxRate?: number;
  /** 500 = InternalFailure (default), 503 = ServiceUnavailable. */
  invocation5xxStatus?: 500 | 503;
  /** Added to every invocation before it is routed (front-end latency, not model latency). */
  addedLatencyMs?: number;
  /** The next N instances to launch get FAIL_AT_STAGE and so fail to start. */
  failNextInstances?: number;
  /** Stage at which those instances exit (default `weights_ready`). */
  failAtStage?: string;
  /**
   * Milliseconds a control-plane call (JSON protocols: SageMaker, Application Auto Scaling, ...)
   * waits before it is carried out and answered: a slow AWS. Keys as for `throttle`
   * (`'SageMaker.ListTags'`, `'SageMaker'`, `'*'`); the most specific key present wins. The call
   * is still carried out when the client has given up waiting, as on AWS.
   */
  callDelayMs?: Record<string, number>;
  /**
   * Milliseconds a scale-in (a lower desired count) keeps the endpoint `Updating` after the
   * removed instances have left the routing, before it is InService again: a drain as slow as
   * AWS's (minutes there), so that a run can be stopped in the middle of one.
   */
  scaleInDelayMs?: number;
}

export class Faults {
  private current: FaultOptions;

  constructor(
    initial: FaultOptions = {},
    private readonly random: () => number = Math.random,
  ) {
    this.current = validate({ ...initial });
  }

  get(): FaultOptions {
    return {
      ...this.current,
      ...(this.current.throttle ? { throttle: { ...this.current.throttle } } : {}),
      ...(this.current.callDelayMs ? { callDelayMs: { ...this.current.callDelayMs } } : {}),
    };
  }

  set(next: FaultOptions): void {
    this.current = validate({ ...next });
  }

  reset(): void {
    this.current = {};
  }

  /** Throws ThrottlingException when the throttle fault fires for this call. */
  checkThrottle(service: ServiceName, operation: string): void {
    const t = this.current.throttle;
    if (!t) return;
    const rate = t[`${service}.${operation}`] ?? t[service] ?? t['*'] ?? 0;
    if (rate > 0 && this.random() < rate) throw new AwsError('ThrottlingException', 'Rate exceeded', 400);
  }

  /** How long this control-plane call is held before it is carried out, ms (0: not held). */
  callDelayMs(service: ServiceName, operation: string): number {
    const d = this.current.callDelayMs;
    if (!d) return 0;
    return d[`${service}.${operation}`] ?? d[service] ?? d['*'] ?? 0;
  }

  get scaleInDelayMs(): number {
    return this.current.scaleInDelayMs ?? 0;
  }

  /** An injected service-side failure for this invocation, if the fault fires. */
  invocationFailure(): AwsError | undefined {
    const rate = this.current.invocation5xxRate ?? 0;
    if (!(rate > 0 && this.random() < rate)) return undefined;
    return this.current.invocation5xxStatus === 503
      ? new AwsError('ServiceUnavailable', 'The service is unavailable (injected fault).', 503)
      : new AwsError('InternalFailure', 'An internal failure occurred (injected fault).', 500);
  }

  get addedLatencyMs(): number {
    return this.current.addedLatencyMs ?? 0;
  }

  /** Consumes one "fail to start" if any is pending; returns the stage to fail at. */
  takeInstanceFailure(): string | undefined {
    const n = this.current.failNextInstances ?? 0;
    if (n <= 0) return undefined;
    this.current = { ...this.current, failNextInstances: n - 1 };
    return this.current.failAtStage ?? 'weights_ready';
  }
}

function validate(f: FaultOptions): FaultOptions {
  const rate = (name: string, v: number | undefined) => {
    if (v !== undefined && !(v >= 0 && v <= 1))
      throw new RangeError(`faults.${name} must be within 0..1 (got ${v})`);
  };
  for (const [k, v] of Object.entries(f.throttle ?? {})) rate(`throttle['${k}']`, v);
  rate('invocation5xxRate', f.invocation5xxRate);
  for (const [k, v] of Object.entries(f.callDelayMs ?? {})) {
    if (!(v >= 0)) throw new RangeError(`faults.callDelayMs['${k}'] must be >= 0 (got ${v})`);
  }
  if (f.scaleInDelayMs !== undefined && !(f.scaleInDelayMs >= 0))
    throw new RangeError(`faults.scaleInDelayMs must be >= 0 (got ${f.scaleInDelayMs})`);
  if (f.addedLatencyMs !== undefined && !(f.addedLatencyMs >= 0))
    throw new RangeError(`faults.addedLatencyMs must be >= 0 (got ${f.addedLatencyMs})`);
  if (
    f.failNextInstances !== undefined &&
    !(Number.isInteger(f.failNextInstances) && f.failNextInstances >= 0)
  )
    throw new RangeError(`faults.failNextInstances must be an integer >= 0 (got ${f.failNextInstances})`);
  return f;
}
