/**
 * Per-window SLO verdicts of a simulation, by the drill's rule: a window holds when the nearest-rank
 * p95 of time to first audio over every arrival (overflows and failures are misses at +infinity)
 * is at most the SLO and at most `maxOverflow` of its arrivals overflowed. Plus the whole run's
 * request attainment and p95 (to the next whole ms; misses above every bin).
 */
import type { FleetSimResult, SimWindow } from './types.js';

/** The whole run's TTFAB histogram: 1 ms bins up to a minute (beyond: the last bin). */
const BINS = 60_001;

export class WindowRecorder {
  private readonly windows: SimWindow[] = [];
  private current = 0;
  private offered = 0;
  private ok = 0;
  private overflow = 0;
  private within = 0;
  private values = new Float64Array(1024);
  private readonly histogram = new Float64Array(BINS);
  private requests = 0;
  private overflows = 0;
  private withinTotal = 0;
  private readonly fullWindows: number;

  constructor(
    private readonly windowS: number,
    durationS: number,
    private readonly sloMs: number,
    private readonly maxOverflow: number,
  ) {
    this.fullWindows = Math.floor(durationS / windowS + 1e-9);
  }

  private roll(tS: number): void {
    const index = Math.floor(tS / this.windowS);
    while (this.current < index) this.close();
  }

  private close(): void {
    const offered = this.offered;
    const rank = Math.max(1, Math.ceil(0.95 * offered - 1e-9));
    let p95: number | null = null;
    if (offered > 0 && rank <= this.ok) {
      const sorted = this.values.subarray(0, this.ok).sort();
      p95 = sorted[rank - 1] as number;
    }
    const withinFraction = offered > 0 ? this.within / offered : null;
    const held =
      offered === 0 || (p95 !== null && p95 <= this.sloMs && this.overflow <= this.maxOverflow * offered);
    if (this.current < this.fullWindows) {
      this.windows.push({
        index: this.current,
        startS: this.current * this.windowS,
        offered,
        ok: this.ok,
        overflow: this.overflow,
        p95Ms: p95 === null ? null : Math.round(p95 * 1000) / 1000,
        withinSloFraction: withinFraction,
        sloHeld: held,
      });
    }
    this.current += 1;
    this.offered = 0;
    this.ok = 0;
    this.overflow = 0;
    this.within = 0;
  }

  /** An arrival at tS that was not answered (overflow: the container's 503, or no instance). */
  miss(tS: number, overflow: boolean): void {
    this.roll(tS);
    this.offered += 1;
    this.requests += 1;
    if (overflow) {
      this.overflow += 1;
      this.overflows += 1;
    }
  }

  /** An arrival at tS answered with its first audio after `ttfabMs`. */
  answered(tS: number, ttfabMs: number): void {
    this.roll(tS);
    this.offered += 1;
    this.requests += 1;
    if (this.ok === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.ok++] = ttfabMs;
    if (ttfabMs <= this.sloMs) {
      this.within += 1;
      this.withinTotal += 1;
    }
    const bin = ttfabMs >= BINS - 1 ? BINS - 1 : Math.ceil(ttfabMs);
    this.histogram[bin] = (this.histogram[bin] as number) + 1;
  }

  finish(): Pick<
    FleetSimResult,
    'windows' | 'sloAttainment' | 'requestAttainment' | 'requests' | 'overflows' | 'p95TtfabMs'
  > {
    while (this.current < this.fullWindows) this.close();
    const held = this.windows.filter((w) => w.sloHeld).length;
    const rank = Math.max(1, Math.ceil(0.95 * this.requests - 1e-9));
    let p95: number | null = null;
    let seen = 0;
    for (let b = 0; b < BINS && this.requests > 0; b++) {
      seen += this.histogram[b] as number;
      if (seen >= rank) {
        p95 = b;
        break;
      }
    }
    return {
      windows: this.windows,
      sloAttainment: this.windows.length === 0 ? 1 : held / this.windows.length,
      requestAttainment: this.requests === 0 ? 1 : this.withinTotal / this.requests,
      requests: this.requests,
      overflows: this.overflows,
      p95TtfabMs: p95,
    };
  }
}
