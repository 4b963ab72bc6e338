/**
 * The open-loop load engine: requests are sent on a schedule of intended send times, whatever
 * the server does (the closed loop, engine.ts, sends the next request only when one finishes).
 *
 * - One timer at a time: each tick sends every arrival that is due (a batch when the loop woke
 *   late), then sleeps until the next arrival or the oldest request's timeout, whichever is first.
 *   No timer per request, so the schedule holds at thousands of requests per second.
 * - Every request keeps its intended send time. TTFAB and latency are recorded from it
 *   (coordinated-omission correct: a stall of the server or of this process counts for every
 *   request that should have been sent during it) and from the actual send; the send lag (actual
 *   minus intended) is recorded too. Connection setup is excluded from all four and kept apart,
 *   as in the closed loop.
 * - A cap on outstanding requests: an arrival that finds the cap reached is not sent and counts
 *   as `client_dropped` in its window, never silently skipped.
 * - All measures go to HDR histograms per window of INTENDED send time, so shards of one schedule
 *   put every request in the same window and their files merge by adding.
 */
import type { OpenLoopHistograms, OpenLoopOutcome, ScheduleIdentity, Shard } from '../../model/histograms.js';
import { type PcmFormat, StreamAudio } from '../../stats/continuity.js';
import {
  encodeWindow,
  type LiveWindow,
  newWindow,
  recordMs,
  recordStreamAudio,
} from '../../stats/histograms.js';
import { type Clock, realClock } from '../clock.js';
import type { ConnectionSlot, InvokeResult, Transport } from '../types.js';
import type { Arrival } from './arrivals.js';

export interface OpenLoopOptions {
  transport: Transport;
  /** Encoded request bodies, chosen by schedule sequence number (the same on every shard). */
  bodies: readonly Uint8Array[];
  /** Client timeout per request from its actual send (outcome `client_timeout`), ms. */
  requestTimeoutMs: number;
  /** Most requests outstanding at once; an arrival beyond it is `client_dropped`. */
  maxOutstanding: number;
  /** Histogram window length, ms of intended send time (default 1000). */
  windowMs?: number;
  clock?: Clock;
  onRecord?: (record: OpenLoopRecord) => void;
  /** Characters (code points) of each body's prompt text (same order as `bodies`). @default 0 each */
  characters?: readonly number[];
  /** Audio accounting: raw PCM format (none: read each WAV header) and the client buffer. */
  audio?: { format: PcmFormat | null; clientBufferMs: number };
}

/** One scheduled request. Times are the clock's (monotonic ms). */
export interface OpenLoopRecord {
  /** Index in the whole schedule (all shards). */
  seq: number;
  promptIndex: number;
  window: number;
  intendedAt: number;
  /** null: not sent (client_dropped). */
  sentAt: number | null;
  firstAudioAt: number | null;
  endedAt: number | null;
  connectMs: number | null;
  sendLagMs: number | null;
  ttfabIntendedMs: number | null;
  ttfabSentMs: number | null;
  latencyIntendedMs: number | null;
  latencySentMs: number | null;
  outcome: OpenLoopOutcome;
  status: number | null;
  bytes: number;
  error: string | null;
  /** Cut by stop(): not a measurement, in no histogram or count. */
  stopped: boolean;
  /** Characters (code points) of the prompt text sent. @default 0 */
  characters?: number;
  /** Audio seconds an ok response carried; null: not accounted (format unknown, or not ok). */
  audioS?: number | null;
  /** Playback stall of an ok multi-chunk stream, ms; null: single chunk, not accounted, or not ok. */
  stallMs?: number | null;
}

export interface OpenLoopSummary {
  /** Clock time of schedule offset 0. */
  startAt: number;
  /** Clock time the last request finished. */
  endedAt: number;
  offered: number;
  sent: number;
  dropped: number;
  peakOutstanding: number;
  /**
   * Share of the run this process's event loop was busy (0..1; null on a virtual clock). Near 1
   * the client, not the server, limits the schedule: the send lag shows by how much.
   */
  loopUtilization: number | null;
  windows: LiveWindow[];
}

interface InFlight {
  record: OpenLoopRecord;
  audio: StreamAudio;
  controller: AbortController;
  deadline: number;
  done: boolean;
  timedOut: boolean;
}

export class OpenLoopEngine {
  private readonly clock: Clock;
  private readonly windowMs: number;
  private readonly windows = new Map<number, LiveWindow>();
  /** In flight, in send order (so also in deadline order); `head` skips finished entries. */
  private queue: InFlight[] = [];
  private head = 0;
  private outstanding = 0;
  private peak = 0;
  private offered = 0;
  private sent = 0;
  private dropped = 0;
  private stopping = false;
  /** No arrival left: the run ends when the last request does. */
  private draining = false;
  private cancelTick: (() => void) | null = null;

  constructor(private readonly options: OpenLoopOptions) {
    if (options.bodies.length === 0) throw new Error('the load engine needs at least one request body');
    if (!(Number.isInteger(options.maxOutstanding) && options.maxOutstanding > 0)) {
      throw new Error(`maxOutstanding must be a positive integer, got ${options.maxOutstanding}`);
    }
    this.clock = options.clock ?? realClock;
    this.windowMs = options.windowMs ?? 1000;
  }

  get inFlight(): number {
    return this.outstanding;
  }

  /** The windows so far (live: a request in flight is counted offered, not yet by outcome). */
  windowsSoFar(): readonly LiveWindow[] {
    return [...this.windows.values()];
  }

  /**
   * Sends `arrivals` (offsets from `startAt`, a clock time; may lie in the future) and resolves
   * once every sent request has finished. Arrivals come in non-decreasing offset order (as every
   * arrival process yields them); a late one is sent at once.
   */
  async run(arrivals: Iterable<Arrival>, startAt: number): Promise<OpenLoopSummary> {
    const iterator = arrivals[Symbol.iterator]();
    const elu = this.clock === realClock ? performance.eventLoopUtilization() : null;
    let next: Arrival | null = iterator.next().value ?? null;
    await new Promise<void>((resolve) => {
      const tick = (): void => {
        this.cancelTick = null;
        const now = this.clock.now();
        this.expire(now);
        while (next !== null && !this.stopping && startAt + next.offsetMs <= now) {
          this.dispatch(next, startAt + next.offsetMs);
          next = iterator.next().value ?? null;
        }
        if (this.stopping) next = null;
        if (next === null) this.draining = true;
        const oldest = this.oldest();
        const nextDue = next === null ? Number.POSITIVE_INFINITY : startAt + next.offsetMs;
        const deadline = oldest === null ? Number.POSITIVE_INFINITY : oldest.deadline;
        const at = Math.min(nextDue, deadline);
        if (at === Number.POSITIVE_INFINITY) {
          if (this.outstanding === 0) resolve();
          // else: the last requests finish on their own (finish() wakes us).
          return;
        }
        this.cancelTick = this.clock.at(at, tick);
      };
      this.tickNow = tick;
      tick();
    });
    this.tickNow = null;
    return {
      startAt,
      endedAt: this.clock.now(),
      offered: this.offered,
      sent: this.sent,
      dropped: this.dropped,
      peakOutstanding: this.peak,
      loopUtilization: elu ? performance.eventLoopUtilization(elu).utilization : null,
      windows: [...this.windows.values()].sort((a, b) => a.index - b.index),
    };
  }

  /**
   * Stops sending; `abort` also cuts requests in flight (marked stopped: in no histogram or
   * outcome count, though already counted as sent). A stopped run is not a measurement.
   */
  stop({ abort = true }: { abort?: boolean } = {}): void {
    this.stopping = true;
    if (abort) {
      for (let i = this.head; i < this.queue.length; i++) {
        const entry = this.queue[i] as InFlight;
        if (!entry.done) {
          entry.record.stopped = true;
          entry.controller.abort(new Error('load engine stopped'));
        }
      }
    }
    this.tickSoon();
  }

  private tickNow: (() => void) | null = null;

  private tickSoon(): void {
    if (!this.tickNow) return;
    this.cancelTick?.();
    this.cancelTick = this.clock.at(this.clock.now(), this.tickNow);
  }

  private windowOf(index: number): LiveWindow {
    let w = this.windows.get(index);
    if (!w) {
      w = newWindow(index);
      this.windows.set(index, w);
    }
    return w;
  }

  /** The oldest request still waiting for its deadline (timed-out ones are only finishing). */
  private oldest(): InFlight | null {
    while (this.head < this.queue.length) {
      const entry = this.queue[this.head] as InFlight;
      if (!entry.done && !entry.timedOut) break;
      this.head++;
    }
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue = this.queue.slice(this.head);
      this.head = 0;
    }
    return this.head < this.queue.length ? (this.queue[this.head] as InFlight) : null;
  }

  private expire(now: number): void {
    for (let i = this.head; i < this.queue.length; i++) {
      const entry = this.queue[i] as InFlight;
      if (entry.deadline > now) break;
      if (entry.done || entry.timedOut) continue;
      entry.timedOut = true;
      entry.controller.abort(new Error('client timeout'));
    }
  }

  private dispatch(arrival: Arrival, intendedAt: number): void {
    const windowIndex = Math.max(0, Math.floor(arrival.offsetMs / this.windowMs));
    const window = this.windowOf(windowIndex);
    window.offered += 1;
    this.offered += 1;
    const promptIndex = arrival.seq % this.options.bodies.length;
    const record: OpenLoopRecord = {
      seq: arrival.seq,
      promptIndex,
      window: windowIndex,
      intendedAt,
      sentAt: null,
      firstAudioAt: null,
      endedAt: null,
      connectMs: null,
      sendLagMs: null,
      ttfabIntendedMs: null,
      ttfabSentMs: null,
      latencyIntendedMs: null,
      latencySentMs: null,
      outcome: 'client_dropped',
      status: null,
      bytes: 0,
      error: null,
      stopped: false,
      characters: this.options.characters?.[promptIndex] ?? 0,
      audioS: null,
      stallMs: null,
    };
    if (this.outstanding >= this.options.maxOutstanding) {
      this.dropped += 1;
      record.error = `${this.outstanding} requests outstanding (the cap)`;
      window.outcomes.client_dropped = (window.outcomes.client_dropped ?? 0) + 1;
      this.options.onRecord?.(record);
      return;
    }
    const sentAt = this.clock.now();
    record.sentAt = sentAt;
    record.sendLagMs = sentAt - intendedAt;
    window.sent += 1;
    this.sent += 1;
    recordMs(window.series.send_lag, record.sendLagMs);
    this.outstanding += 1;
    if (this.outstanding > this.peak) this.peak = this.outstanding;
    const controller = new AbortController();
    const audio = new StreamAudio(
      this.options.audio?.format ?? null,
      this.options.audio?.clientBufferMs ?? 0,
    );
    const entry: InFlight = {
      record,
      audio,
      controller,
      deadline: sentAt + this.options.requestTimeoutMs,
      done: false,
      timedOut: false,
    };
    this.queue.push(entry);
    let slot: ConnectionSlot | null = null;
    const probe = {
      payload: (chunk: Uint8Array) => {
        const bytes = chunk.byteLength;
        if (bytes <= 0) return;
        const at = this.clock.now();
        if (record.firstAudioAt === null) record.firstAudioAt = at;
        record.bytes += bytes;
        audio.chunk(at, chunk);
      },
      connection: (given: ConnectionSlot) => {
        slot = given;
      },
    };
    const body = this.options.bodies[promptIndex] as Uint8Array;
    let pending: Promise<InvokeResult>;
    try {
      pending = this.options.transport.invoke(body, probe, controller.signal);
    } catch (e) {
      // A transport must resolve, never throw; if one does, the request is an error, not a crash.
      pending = Promise.resolve({ outcome: 'error', status: null, error: String(e) });
    }
    pending.then(
      (result) => this.finish(entry, result, (slot as ConnectionSlot | null)?.connectMs ?? null),
      (e: unknown) => this.finish(entry, { outcome: 'error', status: null, error: String(e) }, null),
    );
  }

  private finish(entry: InFlight, result: InvokeResult, connectMs: number | null): void {
    if (entry.done) return;
    entry.done = true;
    const { record } = entry;
    const endedAt = this.clock.now();
    this.outstanding -= 1;
    record.endedAt = endedAt;
    record.connectMs = connectMs;
    record.status = result.status;
    record.error = result.error;
    record.outcome = result.outcome;
    if (entry.timedOut) {
      record.outcome = 'client_timeout';
      record.error = `no complete response within ${this.options.requestTimeoutMs} ms`;
    } else if (record.outcome === 'ok' && record.firstAudioAt === null) {
      record.outcome = 'model_error';
      record.error = 'a successful response without any audio payload';
    }
    if (!record.stopped) {
      const window = this.windowOf(record.window);
      window.outcomes[record.outcome] = (window.outcomes[record.outcome] ?? 0) + 1;
      if (record.outcome === 'ok') {
        const setup = connectMs ?? 0;
        const sentAt = record.sentAt as number;
        const first = record.firstAudioAt as number;
        record.ttfabIntendedMs = Math.max(0, first - record.intendedAt - setup);
        record.ttfabSentMs = Math.max(0, first - sentAt - setup);
        record.latencyIntendedMs = Math.max(0, endedAt - record.intendedAt - setup);
        record.latencySentMs = Math.max(0, endedAt - sentAt - setup);
        recordMs(window.series.ttfab_intended, record.ttfabIntendedMs);
        recordMs(window.series.ttfab_sent, record.ttfabSentMs);
        recordMs(window.series.latency_intended, record.latencyIntendedMs);
        recordMs(window.series.latency_sent, record.latencySentMs);
        const heard = entry.audio.result();
        if (heard.format !== null) {
          record.audioS = heard.audioS;
          record.stallMs = heard.stallMs;
        }
        recordStreamAudio(window.audio, {
          ...heard,
          characters: record.characters ?? 0,
          responseMs: record.latencySentMs,
        });
      }
    }
    this.options.onRecord?.(record);
    // Draining, the last request to finish ends the run (no arrival or deadline is left to wake it).
    if (this.draining && this.outstanding === 0) this.tickSoon();
  }
}

/** The serializable form of a run (or of one shard of it). */
export function openLoopHistograms(
  summary: Pick<OpenLoopSummary, 'windows'>,
  schedule: ScheduleIdentity,
  startAtWall: string,
  windowMs: number,
  shard: Shard,
): OpenLoopHistograms {
  return {
    schedule,
    start_at: startAtWall,
    window_ms: windowMs,
    shards: [shard],
    windows: summary.windows.map(encodeWindow),
  };
}
