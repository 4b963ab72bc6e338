/**
 * The client retry budget of an inference component woken from zero: a request that fails with
 * SageMaker's no-capacity error is sent again after a constant backoff, up to `attempts` more
 * times (the plan's client_retry_attempts x client_retry_backoff_s). Every retry is counted, so
 * a wake that clients ride out is never mistaken for one that needed none.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { InvokeResult, Transport } from '../types.js';

/** SageMaker's answer when no copy of the component can take the request (HTTP 400 ValidationError). */
export const isNoCapacity = (r: Pick<InvokeResult, 'status' | 'error'>): boolean =>
  r.status === 400 && /no capacity/i.test(r.error ?? '');

export interface RetryBudget {
  /** Retries after the first attempt. */
  attempts: number;
  backoffMs: number;
}

/** What the retries did: kept by the caller, never folded into the outcomes. */
export interface RetryCounts {
  /** Requests sent again after a no-capacity error. */
  retries: number;
  /** Client requests that needed at least one retry. */
  retriedRequests: number;
  /** Client requests whose every attempt failed with no capacity (the client saw the failure). */
  exhausted: number;
}

export const emptyRetryCounts = (): RetryCounts => ({ retries: 0, retriedRequests: 0, exhausted: 0 });

/** `transport` whose requests retry on no capacity within `budget`, counted in `counts`. */
export function withNoCapacityRetry(
  transport: Transport,
  budget: RetryBudget,
  counts: RetryCounts,
): Transport {
  return {
    kind: transport.kind,
    target: `${transport.target} (retry ${budget.attempts} x ${budget.backoffMs / 1000} s on no capacity)`,
    ...(transport.endpointUrl ? { endpointUrl: () => (transport.endpointUrl as () => Promise<URL>)() } : {}),
    close: () => transport.close(),
    invoke: async (body, probe, signal) => {
      let result = await transport.invoke(body, probe, signal);
      let attempt = 0;
      while (isNoCapacity(result) && attempt < budget.attempts && !signal.aborted) {
        if (attempt === 0) counts.retriedRequests += 1;
        attempt += 1;
        counts.retries += 1;
        try {
          await delay(budget.backoffMs, undefined, { signal });
        } catch {
          return result;
        }
        result = await transport.invoke(body, probe, signal);
      }
      if (isNoCapacity(result)) counts.exhausted += 1;
      return result;
    },
  };
}
