/**
 * The closed-loop load engine: exactly N requests outstanding at every moment. Each worker
 * dispatches a request, waits for the whole response, and dispatches the next one at once; no
 * retries anywhere. In-flight is integrated over time (exact mean and peak, so any shortfall
 * shows), and each change of concurrency starts a new epoch so a rung only counts requests
 * dispatched at its own concurrency.
 */
import {
  type EventLoopUtilization,
  type IntervalHistogram,
  monitorEventLoopDelay,
  performance as perf,
} from 'node:perf_hooks';
import { type PcmFormat, StreamAudio } from '../../stats/continuity.js';
import type { ConnectionSlot, RequestRecord, Transport } from '../types.js';

export interface EngineOptions {
  transport: Transport;
  /** Encoded request bodies, chosen round-robin by sequence number. */
  bodies: readonly Uint8Array[];
  /** Client timeout per request (outcome `client_timeout`), ms. */
  requestTimeoutMs: number;
  /** Called for every finished request (events file, progress). */
  onRecord?: (record: RequestRecord) => void;
  /** Characters of each body's prompt text (same order as `bodies`). @default 0 each */
  characters?: readonly number[];
  /** Audio accounting: raw PCM format (none: read each WAV header) and the client buffer. */
  audio?: { format: PcmFormat | null; clientBufferMs: number };
}

export interface InFlightStats {
  /** Time-weighted mean of requests in flight over the interval. */
  mean: number;
  peak: number;
  /** Fraction of the interval's request-time missing against the target: max(0, 1 - mean/target). */
  shortfall: number;
}

interface Worker {
  id: number;
  retiring: boolean;
}

/** Monotonic clock, ms. */
export const now = (): number => performance.now();
/** Epoch ms of a monotonic instant (consistent with performance.now()). */
export const wallOf = (mono: number): number => performance.timeOrigin + mono;
/** Monotonic instant of an epoch-ms wall time. */
export const monoOf = (wallMs: number): number => wallMs - performance.timeOrigin;

export class ClosedLoopEngine {
  private readonly transport: Transport;
  private readonly bodies: readonly Uint8Array[];
  private readonly requestTimeoutMs: number;
  private readonly onRecord: ((record: RequestRecord) => void) | undefined;
  private readonly characters: readonly number[];
  private readonly audio: { format: PcmFormat | null; clientBufferMs: number };
  private readonly controllers = new Map<number, AbortController>();
  private aborting = false;
  private readonly workers: Worker[] = [];
  private readonly loops = new Set<Promise<void>>();
  private readonly pending = new Map<number, RequestRecord>();
  private readonly byEpoch = new Map<number, RequestRecord[]>();
  /** (time, in-flight) change points, oldest first; trimmed by forgetBefore(). */
  private changes: Array<[number, number]> = [[now(), 0]];
  private seq = 0;
  private nextWorkerId = 0;
  private inFlightNow = 0;
  private targetNow = 0;
  private epochNow = 0;
  private stopped = false;
  private loopDelay: IntervalHistogram | undefined;
  private eluStart: EventLoopUtilization | undefined;

  constructor(options: EngineOptions) {
    if (options.bodies.length === 0) throw new Error('the load engine needs at least one request body');
    this.transport = options.transport;
    this.bodies = options.bodies;
    this.requestTimeoutMs = options.requestTimeoutMs;
    this.onRecord = options.onRecord;
    this.characters = options.characters ?? [];
    this.audio = options.audio ?? { format: null, clientBufferMs: 0 };
  }

  get inFlight(): number {
    return this.inFlightNow;
  }
  get concurrency(): number {
    return this.targetNow;
  }
  get epoch(): number {
    return this.epochNow;
  }
  get dispatched(): number {
    return this.seq;
  }

  /**
   * Moves to `n` outstanding requests and starts a new epoch (returned). Growing starts workers at
   * once; shrinking lets the surplus workers finish their current request, then retire.
   */
  setConcurrency(n: number): number {
    if (this.stopped) throw new Error('the load engine is stopped');
    if (!Number.isInteger(n) || n < 0)
      throw new Error(`concurrency must be a non-negative integer, got ${n}`);
    this.epochNow += 1;
    this.byEpoch.set(this.epochNow, []);
    this.targetNow = n;
    const active = this.workers.filter((w) => !w.retiring);
    for (let i = n; i < active.length; i++) (active[i] as Worker).retiring = true;
    for (let i = active.length; i < n; i++) {
      const worker: Worker = { id: this.nextWorkerId++, retiring: false };
      this.workers.push(worker);
      const loop = this.run(worker);
      this.loops.add(loop);
      void loop.finally(() => this.loops.delete(loop));
    }
    return this.epochNow;
  }

  /** Records of `epoch` that have finished so far (shared array; do not mutate). */
  finished(epoch: number): readonly RequestRecord[] {
    return this.byEpoch.get(epoch) ?? [];
  }

  /** Requests dispatched before `epoch` that are still in flight (surplus or earlier-rung requests). */
  olderInFlight(epoch: number): number {
    let n = 0;
    for (const r of this.pending.values()) if (r.epoch < epoch) n += 1;
    return n;
  }

  /** Requests still in flight (any epoch). */
  inFlightRecords(): IterableIterator<RequestRecord> {
    return this.pending.values();
  }

  /** Drops stored records of epochs before `epoch` and in-flight history before `time`. */
  forgetBefore(epoch: number, time: number): void {
    for (const key of [...this.byEpoch.keys()]) if (key < epoch) this.byEpoch.delete(key);
    let keepFrom = 0;
    for (let i = 0; i < this.changes.length; i++) {
      if ((this.changes[i] as [number, number])[0] <= time) keepFrom = i;
      else break;
    }
    if (keepFrom > 0) this.changes = this.changes.slice(keepFrom);
  }

  /** Time-weighted in-flight over [from, to] against `target`. */
  inFlightStats(from: number, to: number, target: number): InFlightStats {
    if (to <= from) return { mean: this.inFlightNow, peak: this.inFlightNow, shortfall: 0 };
    let area = 0;
    let peak = 0;
    const points = this.changes;
    // Value at `from`: the last change at or before it.
    let value = 0;
    let i = 0;
    for (; i < points.length; i++) {
      const [t, v] = points[i] as [number, number];
      if (t > from) break;
      value = v;
    }
    let cursor = from;
    peak = value;
    for (; i < points.length; i++) {
      const [t, v] = points[i] as [number, number];
      if (t >= to) break;
      area += value * (t - cursor);
      cursor = t;
      value = v;
      if (v > peak) peak = v;
    }
    area += value * (to - cursor);
    const mean = area / (to - from);
    return { mean, peak, shortfall: target > 0 ? Math.max(0, 1 - mean / target) : 0 };
  }

  /** Starts (or restarts) the event-loop delay monitor; the client is not the bottleneck while it stays low. */
  resetLoopDelay(): void {
    if (!this.loopDelay) {
      this.loopDelay = monitorEventLoopDelay({ resolution: 10 });
      this.loopDelay.enable();
    }
    this.loopDelay.reset();
    this.eluStart = perf.eventLoopUtilization();
  }

  /**
   * Share of time the client's event loop was busy since resetLoopDelay() (0..1). Near 1 the
   * client, not the server, limits the load; descheduling by other processes does not count.
   */
  loopUtilization(): number | null {
    if (!this.eluStart) return null;
    return perf.eventLoopUtilization(this.eluStart).utilization;
  }

  /** p99 event-loop delay since resetLoopDelay(), ms (null when not monitored). */
  loopDelayP99Ms(): number | null {
    if (!this.loopDelay || this.loopDelay.count === 0) return null;
    return this.loopDelay.percentile(99) / 1e6;
  }

  /**
   * Stops every worker. `abort` cuts requests in flight (their records are marked `stopped`);
   * otherwise waits for them to finish. Resolves once every worker has returned.
   */
  async stop({ abort = true }: { abort?: boolean } = {}): Promise<void> {
    this.stopped = true;
    for (const w of this.workers) w.retiring = true;
    if (abort) {
      this.aborting = true;
      for (const controller of this.controllers.values()) controller.abort(new Error('load engine stopped'));
    }
    await Promise.allSettled([...this.loops]);
    this.loopDelay?.disable();
  }

  private setInFlight(value: number, at: number): void {
    this.inFlightNow = value;
    this.changes.push([at, value]);
  }

  private async run(worker: Worker): Promise<void> {
    while (!worker.retiring && !this.stopped) {
      await this.one(worker);
    }
  }

  private async one(worker: Worker): Promise<void> {
    const seq = this.seq++;
    const promptIndex = seq % this.bodies.length;
    const body = this.bodies[promptIndex] as Uint8Array;
    let slot: ConnectionSlot | null = null;
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new Error('client timeout'));
    }, this.requestTimeoutMs);
    if (this.aborting) controller.abort(new Error('load engine stopped'));
    this.controllers.set(seq, controller);
    const signal = controller.signal;
    const dispatchedAt = now();
    const record: RequestRecord = {
      seq,
      worker: worker.id,
      epoch: this.epochNow,
      concurrency: this.targetNow,
      promptIndex,
      dispatchedAt,
      firstAudioAt: null,
      endedAt: null,
      connectMs: null,
      ttfabMs: null,
      latencyMs: null,
      outcome: 'error',
      status: null,
      bytes: 0,
      error: null,
      stopped: false,
      characters: this.characters[promptIndex] ?? 0,
      audio: new StreamAudio(this.audio.format, this.audio.clientBufferMs),
    };
    this.pending.set(seq, record);
    this.setInFlight(this.inFlightNow + 1, dispatchedAt);
    const probe = {
      payload: (chunk: Uint8Array) => {
        const bytes = chunk.byteLength;
        if (bytes <= 0) return;
        const at = now();
        record.audio?.chunk(at, chunk);
        if (record.firstAudioAt === null) {
          record.firstAudioAt = at;
          // Known as soon as the audio starts, so a rung can judge requests still streaming.
          record.connectMs = slot?.connectMs ?? null;
          record.ttfabMs = Math.max(0, at - dispatchedAt - (slot?.connectMs ?? 0));
        }
        record.bytes += bytes;
      },
      connection: (given: ConnectionSlot) => {
        slot = given;
      },
    };
    const result = await this.transport.invoke(body, probe, signal);
    const endedAt = now();
    clearTimeout(timer);
    this.controllers.delete(seq);
    this.pending.delete(seq);
    this.setInFlight(this.inFlightNow - 1, endedAt);
    const connectMs = (slot as ConnectionSlot | null)?.connectMs ?? null;
    const setup = connectMs ?? 0;
    record.endedAt = endedAt;
    record.connectMs = connectMs;
    record.status = result.status;
    record.error = result.error;
    if (timedOut) {
      record.outcome = 'client_timeout';
      record.error = `no complete response within ${this.requestTimeoutMs} ms`;
    } else if (this.aborting && result.outcome !== 'ok') {
      record.outcome = 'error';
      record.error = 'stopped';
      record.stopped = true;
    } else {
      record.outcome = result.outcome;
    }
    if (record.outcome === 'ok' && record.firstAudioAt === null) {
      record.outcome = 'model_error';
      record.error = 'a successful response without any audio payload';
    }
    if (record.outcome === 'ok') {
      record.ttfabMs = Math.max(0, (record.firstAudioAt as number) - dispatchedAt - setup);
      record.latencyMs = Math.max(0, endedAt - dispatchedAt - setup);
    } else {
      record.ttfabMs = null;
    }
    if (!record.stopped) this.byEpoch.get(record.epoch)?.push(record);
    this.onRecord?.(record);
  }
}
