/**
 * Waits until the load generator's own event loop is calm again. A rung measured while the
 * client ran late (client-bound) is measured once more; a machine that starved the client for a
 * minute (a paused VM, a noisy neighbour on a shared CI runner) would starve that second
 * measurement too, and the rung would be lost instead of judged. So the second measurement starts
 * once one sampling window shows the event loop's p99 lateness within the calm limit, or when the
 * wait's limit passes (it then runs anyway and is judged as always: a late client still makes the
 * rung client-bound).
 */
import { waitUntil } from '../wait.js';
import { startClientHealth } from './client-health.js';

export interface CalmClientSpec {
  /** The event loop's p99 lateness must be at most this over one window, ms. */
  calmDelayMs: number;
  /** One sampling window, ms. @default 2000 */
  windowMs?: number;
  /** Give up waiting after this long, s. @default 60 */
  maxWaitS?: number;
  signal?: AbortSignal;
  log?: (line: string) => void;
}

export interface CalmClientResult {
  calm: boolean;
  /** Sampling windows looked at. */
  windows: number;
  /** The last window's p99 event-loop lateness, ms (null: no timer fired in it). */
  lastDelayP99Ms: number | null;
}

export const CALM_WINDOW_MS = 2000;
export const CALM_MAX_WAIT_S = 60;

export async function awaitCalmClient(spec: CalmClientSpec): Promise<CalmClientResult> {
  const windowMs = spec.windowMs ?? CALM_WINDOW_MS;
  const started = Date.now();
  let sampler = startClientHealth();
  let windows = 0;
  let lastDelayP99Ms: number | null = null;
  try {
    const calm = await waitUntil(
      `a calm client (event-loop delay p99 <= ${spec.calmDelayMs.toFixed(0)} ms over ${(windowMs / 1000).toFixed(0)} s)`,
      () => {
        const sample = sampler.stop();
        sampler = startClientHealth();
        windows++;
        lastDelayP99Ms = sample.eventLoopDelayP99Ms;
        return lastDelayP99Ms !== null && lastDelayP99Ms <= spec.calmDelayMs ? true : undefined;
      },
      {
        interval: windowMs,
        pauseFirst: true,
        deadline: started + (spec.maxWaitS ?? CALM_MAX_WAIT_S) * 1000,
        ...(spec.signal ? { signal: spec.signal } : {}),
        ...(spec.log ? { log: spec.log } : {}),
      },
    );
    return { calm: calm === true, windows, lastDelayP99Ms };
  } finally {
    sampler.stop();
  }
}
