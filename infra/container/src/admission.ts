// The admission gate: a counter of requests in flight (queued + executing). A request is admitted
// only while that count is below MAX_QUEUE_DEPTH; it holds its slot until its synthesis has ended
// (completed, failed, or aborted after its client went away), and releases it exactly once.

export type Admission =
  | { admitted: true; depthAtAdmission: number; release: () => void }
  | { admitted: false; depth: number };

export class AdmissionGate {
  private inFlight = 0;
  private idleWaiters: (() => void)[] = [];

  constructor(readonly maxDepth: number) {}

  get depth(): number {
    return this.inFlight;
  }

  tryAdmit(): Admission {
    if (this.inFlight >= this.maxDepth) return { admitted: false, depth: this.inFlight };
    const depthAtAdmission = this.inFlight;
    this.inFlight += 1;
    let released = false;
    return {
      admitted: true,
      depthAtAdmission,
      release: () => {
        if (released) return;
        released = true;
        this.inFlight -= 1;
        if (this.inFlight === 0) for (const wake of this.idleWaiters.splice(0)) wake();
      },
    };
  }

  /** Resolves once nothing is in flight. */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }
}
