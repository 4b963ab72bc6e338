/**
 * The pulse of a long open-loop run (a goodput rung, a drill): every `everyMs` of the run's clock
 * (the engine's, so a virtual clock drives it in tests), how long it has run and how many
 * requests have finished and are in flight. Cheap: two counters read, no percentile. The
 * renderer (src/load/progress.ts) shows it live on a terminal and every 20 s in a log.
 */
import type { Clock } from './clock.js';

export interface Heartbeat {
  /** Seconds since the schedule's start. */
  elapsedS: number;
  /** Requests finished so far (ok or not), this process's share. */
  finished: number;
  /** Requests sent and not finished yet. */
  inFlight: number;
}

export interface HeartbeatSpec {
  clock: Clock;
  /** Clock time of the schedule's offset 0. */
  startAt: number;
  /** Between two beats, ms of the clock (default 1000). */
  everyMs?: number;
  read(): { finished: number; inFlight: number };
  emit(beat: Heartbeat): void;
}

/** Starts beating at `startAt + everyMs`; returns the function that stops it. */
export function startHeartbeat(spec: HeartbeatSpec): () => void {
  const every = spec.everyMs ?? 1000;
  let n = 1;
  let stopped = false;
  let cancel = () => {};
  const beat = () => {
    if (stopped) return;
    const { finished, inFlight } = spec.read();
    spec.emit({ elapsedS: (n * every) / 1000, finished, inFlight });
    n += 1;
    cancel = spec.clock.at(spec.startAt + n * every, beat);
  };
  cancel = spec.clock.at(spec.startAt + every, beat);
  return () => {
    stopped = true;
    cancel();
  };
}
