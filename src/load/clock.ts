/**
 * The open loop's time source. `realClock` is the monotonic clock with timers; `VirtualClock`
 * runs the same engine in simulated time (a discrete-event scheduler), so a schedule against a
 * simulated server is exact and reproducible: same events, same numbers, at any speed.
 */

export interface Clock {
  /** Monotonic ms. */
  now(): number;
  /** Calls `fn` at monotonic `time` (at once if it has passed); returns a cancel function. */
  at(time: number, fn: () => void): () => void;
}

export const realClock: Clock = {
  now: () => performance.now(),
  at(time, fn) {
    const handle = setTimeout(fn, Math.max(0, time - performance.now()));
    return () => clearTimeout(handle);
  },
};

interface Event {
  at: number;
  order: number;
  fn: () => void;
  cancelled: boolean;
}

const before = (a: Event, b: Event): boolean => a.at < b.at || (a.at === b.at && a.order < b.order);

/** Lets every promise chain started by the last event settle (microtasks run before setImmediate). */
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class VirtualClock implements Clock {
  private time = 0;
  private order = 0;
  private readonly heap: Event[] = [];

  now(): number {
    return this.time;
  }

  at(time: number, fn: () => void): () => void {
    const event: Event = { at: Math.max(time, this.time), order: this.order++, fn, cancelled: false };
    this.push(event);
    return () => {
      event.cancelled = true;
    };
  }

  /** Runs events in time order until none is left; between events promise chains settle. */
  async run(): Promise<void> {
    for (;;) {
      await settle();
      const event = this.pop();
      if (!event) return;
      if (event.cancelled) continue;
      this.time = event.at;
      event.fn();
    }
  }

  private push(e: Event): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(e, h[parent] as Event)) break;
      h[i] = h[parent] as Event;
      i = parent;
    }
    h[i] = e;
  }

  private pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (top === undefined || last === undefined || h.length === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= h.length) break;
      const r = l + 1;
      const child = r < h.length && before(h[r] as Event, h[l] as Event) ? r : l;
      if (!before(h[child] as Event, last)) break;
      h[i] = h[child] as Event;
      i = child;
    }
    h[i] = last;
    return top;
  }
}
