/** Keeps the event loop busy for `busyMs` out of every `everyMs`: a client starved by its machine. Returns the stop. */
export function starveEventLoop(busyMs: number, everyMs: number): () => void {
  const timer = setInterval(() => {
    const until = Date.now() + busyMs;
    while (Date.now() < until) {
      // busy: nothing else runs on this loop
    }
  }, everyMs);
  return () => clearInterval(timer);
}
