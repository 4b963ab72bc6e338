/**
 * The one way scalegate waits for something: ask `probe` until it answers, pausing between
 * questions, until a deadline. Every wait says once what it waits for (to the caller's progress
 * sink) and every wait aborts the same way: the pause ends at once and the wait rejects with the
 * signal's reason (an Error; anything else is wrapped in an AbortError).
 */
import { setTimeout as pause } from 'node:timers/promises';

export interface WaitOptions {
  /**
   * Give up once the clock reaches this instant (same clock as `clock`); the probe is asked one
   * last time at the deadline.
   * @default Number.POSITIVE_INFINITY (wait until the probe answers or the signal aborts)
   */
  deadline?: number;
  /** Pause between two probes in ms, or a function of the current time (e.g. to stop at a boundary). */
  interval: number | ((now: number) => number);
  /** Aborts the wait: it rejects with the signal's reason. @default no signal */
  signal?: AbortSignal;
  /** Where the wait says what it waits for (once, when it first has to pause). @default silent */
  log?: (line: string) => void;
  /** The clock deadlines and intervals are measured on, in ms. @default Date.now */
  clock?: () => number;
  /** Pause before the first probe (for probes that judge what happened during the pause). @default false */
  pauseFirst?: boolean;
}

/** The reason an aborted signal gives, as an Error (what every wait rejects with). */
export function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const error = new Error(reason === undefined ? 'aborted' : String(reason));
  error.name = 'AbortError';
  return error;
}

/** Throws the abort reason when `signal` is aborted. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortReason(signal);
}

async function pauseFor(ms: number, signal: AbortSignal | undefined): Promise<void> {
  try {
    await pause(Math.max(0, ms), undefined, signal ? { signal } : {});
  } catch (e) {
    if (signal?.aborted) throw abortReason(signal);
    throw e;
  }
}

/**
 * Asks `probe` until it returns something other than `undefined` and returns that; returns
 * `undefined` when the deadline passes first. `label` says what is awaited ("one InService
 * instance"): logged as `waiting for <label>` the first time the wait has to pause.
 */
export async function waitUntil<T>(
  label: string,
  probe: () => T | undefined | Promise<T | undefined>,
  options: WaitOptions,
): Promise<T | undefined> {
  const clock = options.clock ?? Date.now;
  const deadline = options.deadline ?? Number.POSITIVE_INFINITY;
  const { signal } = options;
  let announced = false;
  const pauseOnce = async (): Promise<void> => {
    if (!announced) {
      options.log?.(`waiting for ${label}`);
      announced = true;
    }
    const now = clock();
    const wanted = typeof options.interval === 'function' ? options.interval(now) : options.interval;
    await pauseFor(Math.min(wanted, deadline - now), signal);
  };
  throwIfAborted(signal);
  if (options.pauseFirst) await pauseOnce();
  for (;;) {
    throwIfAborted(signal);
    const answer = await probe();
    if (answer !== undefined) return answer;
    if (clock() >= deadline) return undefined;
    await pauseOnce();
  }
}
