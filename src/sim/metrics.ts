/**
 * The CloudWatch metrics a scaling policy reads, as the simulated variant publishes them, kept per
 * 10 s slot (the finest period a policy here uses) and aggregated to any multiple of 10 s:
 * - ConcurrentRequestsPerModel: a gauge of the busiest container's in-flight count; a slot's
 *   Maximum is the largest value it held (the value at its start included). A slot in which
 *   nothing was in flight and nothing changed has no datapoint (an idle endpoint publishes nothing).
 * - InvocationsPerInstance: 1 / (instances in service) per invocation, summed (Sum per 60 s is the
 *   invocations per minute per instance). A slot without invocations has no datapoint.
 * Slots are aligned to multiples of 10 s since the epoch, as CloudWatch aligns periods.
 */
import type { ScalingMetric } from '../model/index.js';

export const SLOT_S = 10;

export interface MetricDatapoint {
  timestampMs: number;
  value: number;
}

export class SimMetrics {
  /** Epoch slot index of slot 0. */
  private readonly baseSlot: number;
  private concurrencyMax: number[] = [];
  private concurrencyHas: boolean[] = [];
  private invocations: number[] = [];
  private current = -1;
  /** Slots before the start (negative index -> value), read by queries only. */
  private readonly prior = new Map<number, number>();

  constructor(
    private readonly startEpochMs: number,
    /** The busiest container's in-flight count now (read when a slot opens). */
    private readonly busiest: () => number,
  ) {
    this.baseSlot = Math.floor(startEpochMs / (SLOT_S * 1000));
  }

  /** History before t = 0: ConcurrentRequestsPerModel maxima of the 10 s slots starting at t_s < 0. */
  setPrior(points: readonly { t_s: number; value: number }[]): void {
    for (const p of points) if (p.t_s < 0) this.prior.set(this.slotOf(p.t_s), p.value);
  }

  private slotOf(tS: number): number {
    return Math.floor((this.startEpochMs + tS * 1000) / (SLOT_S * 1000)) - this.baseSlot;
  }

  /** Opens every slot up to the one holding `tS`; call before any change at tS. */
  advance(tS: number): void {
    const slot = this.slotOf(tS);
    if (slot <= this.current) return;
    const held = this.busiest();
    for (let k = this.current + 1; k <= slot; k++) {
      this.concurrencyMax[k] = held;
      this.concurrencyHas[k] = held > 0;
      this.invocations[k] = -1;
    }
    this.current = slot;
  }

  /** The busiest container's count became `value` at tS (advance(tS) first). */
  concurrency(value: number): void {
    const k = this.current;
    if (value > (this.concurrencyMax[k] as number)) this.concurrencyMax[k] = value;
    this.concurrencyHas[k] = true;
  }

  /** One invocation while `inService` instances serve (advance(tS) first). */
  invocation(inService: number): void {
    const k = this.current;
    const share = 1 / Math.max(1, inService);
    const was = this.invocations[k] as number;
    this.invocations[k] = was < 0 ? share : was + share;
  }

  /**
   * Datapoints of `metric` (ConcurrentRequestsPerModel Maximum, InvocationsPerInstance Sum) per
   * `periodS` (a multiple of 10) with period start in [startMs, endMs), ascending; only completed
   * slots are read (the caller asks for periods that ended).
   */
  query(metric: ScalingMetric, periodS: number, startMs: number, endMs: number): MetricDatapoint[] {
    const per = periodS / SLOT_S;
    const out: MetricDatapoint[] = [];
    const periodMs = periodS * 1000;
    for (let p = Math.ceil(startMs / periodMs) * periodMs; p < endMs; p += periodMs) {
      const first = Math.floor(p / (SLOT_S * 1000)) - this.baseSlot;
      let has = false;
      let value = 0;
      for (let k = first; k < first + per; k++) {
        if (k < 0) {
          const v = metric === 'ConcurrentRequestsPerModel' ? this.prior.get(k) : undefined;
          if (v !== undefined) {
            has = true;
            value = Math.max(value, v);
          }
          continue;
        }
        if (k > this.current) continue;
        if (metric === 'ConcurrentRequestsPerModel') {
          if (this.concurrencyHas[k]) {
            has = true;
            value = Math.max(value, this.concurrencyMax[k] as number);
          }
        } else {
          const v = this.invocations[k] as number;
          if (v >= 0) {
            has = true;
            value += v;
          }
        }
      }
      if (has) out.push({ timestampMs: p, value });
    }
    return out;
  }
}
