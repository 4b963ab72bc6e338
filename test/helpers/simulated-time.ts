/** Runs a command on a virtual clock, advancing simulated time until its promise settles. */
import type { VirtualClock } from '../../src/load/clock.js';

export async function inSimulatedTime<T>(clock: VirtualClock, run: Promise<T>): Promise<T> {
  let done = false;
  const settle = () => {
    done = true;
  };
  run.then(settle, settle);
  while (!done) {
    await clock.run();
    await new Promise((r) => setImmediate(r));
  }
  return run;
}
