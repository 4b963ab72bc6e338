/**
 * One rung of the lambda_max ladder: seeded Poisson arrivals at `rate` for `holdS` seconds; the
 * first `settleS` seconds of intended send time warm the queue up and are discarded; the rest is
 * the measure window. Returns what the rung decision needs (GoodputRungInput, samples in
 * intended-send order) and what an artifact keeps (the serialized windows, send adherence).
 * No verdict here: that is the ladder's `decide`. With `looks`, the rung asks at each look
 * whether it is decided and, if so, stops sending there (requests in flight finish and are
 * measured: a stopped-early rung is a measurement, unlike an aborted one).
 */
import type { OpenLoopHistograms, OpenLoopOutcome, Shard } from '../../model/histograms.js';
import type { ClientHealthSample } from '../../stats/client-health.js';
import type { PcmFormat } from '../../stats/continuity.js';
import { type LiveWindow, quantileMs, sumWindows } from '../../stats/histograms.js';
import { startClientHealth } from '../client-health.js';
import { type Clock, realClock } from '../clock.js';
import { type Heartbeat, startHeartbeat } from '../heartbeat.js';
import type { Transport } from '../types.js';
import { constantProfile, scheduleIdentity, shardArrivals } from './arrivals.js';
import type { GoodputRungInput } from './goodput-ladder.js';
import {
  OpenLoopEngine,
  type OpenLoopRecord,
  type OpenLoopSummary,
  openLoopHistograms,
} from './open-loop.js';

export interface OpenRungSpec {
  rate: number;
  seed: number;
  holdS: number;
  settleS: number;
  sloMs: number;
  transport: Transport;
  bodies: readonly Uint8Array[];
  requestTimeoutMs: number;
  maxOutstanding: number;
  /** Clock time of the schedule start (shards share it); default: 50 ms from now. */
  startAt?: number;
  /** Wall time of startAt, for the artifact. */
  startAtWall: string;
  windowMs?: number;
  shard?: Shard;
  clock?: Clock;
  onRecord?: (record: OpenLoopRecord) => void;
  /** Stops the rung (requests in flight are cut): the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called every second of the rung's clock while it runs (src/load/heartbeat.ts). */
  onHeartbeat?: (beat: Heartbeat) => void;
  /** Looks while the rung runs (group-sequential): absent, the rung runs its whole hold. */
  looks?: RungLooks;
  /** Characters (code points) of each body's text and the audio accounting (src/load/open/open-loop.ts). */
  characters?: readonly number[];
  audio?: { format: PcmFormat | null; clientBufferMs: number };
}

/**
 * The looks of a rung: at each measure span (s after the settle), `lagMs` later, `stop` is shown
 * the windows so far (a request still in flight is offered without an outcome) and says whether
 * the rung ends there.
 */
export interface RungLooks {
  spansS: readonly number[];
  lagMs: number;
  stop: (windows: readonly LiveWindow[], spanS: number, lookAtMs: number) => boolean;
}

export interface OpenRungMeasurement {
  input: GoodputRungInput;
  histograms: OpenLoopHistograms;
  /** Sent / measure-window seconds (of this shard). */
  sentRate: number;
  /** ok / measure-window seconds (of this shard). */
  goodputRate: number;
  sendLagP99Ms: number | null;
  ttfabIntendedP95Ms: number | null;
  /** The naive figure beside it (from the actual send), for the record. */
  ttfabSentP95Ms: number | null;
  loopUtilization: number | null;
  peakOutstanding: number;
  /** Measure span (s) of the look that stopped the rung; null: it ran its whole hold. */
  stoppedAtS: number | null;
  /** The client over the rung (real clock only; null on a simulated clock, whose wall time means nothing). */
  clientHealth: ClientHealthSample | null;
}

/** One arrival of the measure window, as kept (a few numbers, not the whole record). */
export interface RungSample {
  /** Intended send offset from the schedule start, ms. */
  atMs: number;
  outcome: OpenLoopOutcome;
  ttfabIntendedMs: number | null;
  latencyIntendedMs: number | null;
}

/** Every measured arrival of the measure window, sorted into intended-send order. */
export function rungInput(samples: readonly RungSample[], rate: number, sloMs: number): GoodputRungInput {
  const sorted = [...samples].sort((a, b) => a.atMs - b.atMs);
  const outcomeCounts: Partial<Record<OpenLoopOutcome, number>> = {};
  const ttfab: number[] = [];
  const at: number[] = [];
  for (const r of sorted) {
    outcomeCounts[r.outcome] = (outcomeCounts[r.outcome] ?? 0) + 1;
    if (r.outcome === 'ok' && r.ttfabIntendedMs !== null) {
      ttfab.push(r.ttfabIntendedMs);
      at.push(r.atMs);
    }
  }
  return { rate, sloMs, ttfabIntendedMs: ttfab, intendedAtMs: at, outcomeCounts, offered: sorted.length };
}

export async function runOpenRung(spec: OpenRungSpec): Promise<OpenRungMeasurement> {
  if (!(spec.settleS >= 0 && spec.holdS > spec.settleS)) {
    throw new Error(
      `a rung of ${spec.holdS} s leaves nothing to measure after ${spec.settleS} s of settling`,
    );
  }
  const windowMs = spec.windowMs ?? 1000;
  const shard = spec.shard ?? { index: 0, count: 1 };
  const arrivalSpec = {
    process: 'poisson' as const,
    profile: constantProfile(spec.rate, spec.holdS),
    seed: spec.seed,
  };
  const clock = spec.clock ?? realClock;
  const startAt = spec.startAt ?? clock.now() + 50;
  const fromMs = spec.settleS * 1000;
  const toMs = spec.holdS * 1000;
  const samples: RungSample[] = [];
  let finished = 0;
  const engine = new OpenLoopEngine({
    transport: spec.transport,
    bodies: spec.bodies,
    requestTimeoutMs: spec.requestTimeoutMs,
    maxOutstanding: spec.maxOutstanding,
    windowMs,
    ...(spec.clock ? { clock: spec.clock } : {}),
    ...(spec.characters ? { characters: spec.characters } : {}),
    ...(spec.audio ? { audio: spec.audio } : {}),
    onRecord: (r) => {
      const atMs = r.intendedAt - startAt;
      if (!r.stopped && atMs >= fromMs && atMs < toMs) {
        samples.push({
          atMs,
          outcome: r.outcome,
          ttfabIntendedMs: r.ttfabIntendedMs,
          latencyIntendedMs: r.latencyIntendedMs,
        });
      }
      finished += 1;
      spec.onRecord?.(r);
    },
  });
  const onHeartbeat = spec.onHeartbeat;
  const stopBeat = onHeartbeat
    ? startHeartbeat({
        clock,
        startAt,
        read: () => ({ finished, inFlight: engine.inFlight }),
        emit: onHeartbeat,
      })
    : () => {};
  const health = spec.clock ? null : startClientHealth();
  const stop = () => engine.stop({ abort: true });
  spec.signal?.addEventListener('abort', stop, { once: true });
  const looking = spec.looks ? scheduleLooks(spec.looks, clock, startAt, fromMs, toMs, engine) : null;
  let summary: OpenLoopSummary;
  try {
    if (spec.signal?.aborted) stop();
    summary = await engine.run(shardArrivals(arrivalSpec, shard), startAt);
  } finally {
    stopBeat();
    spec.signal?.removeEventListener('abort', stop);
    looking?.cancel();
    health?.stop();
  }
  // A stopped rung is not a measurement.
  if (spec.signal?.aborted) throw spec.signal.reason ?? new Error('aborted');
  const input = rungInput(samples, spec.rate, spec.sloMs);
  // Windows wholly inside the measure window (settleS and holdS on window boundaries measure exactly it).
  const measured = sumWindows(summary.windows, Math.ceil(fromMs / windowMs), Math.floor(toMs / windowMs));
  // A rung that stopped at a look measured only up to it: its rates are over that span.
  const stoppedAtS = looking?.stoppedAtS() ?? null;
  const seconds = stoppedAtS ?? (toMs - fromMs) / 1000;
  const sent = input.offered - (input.outcomeCounts.client_dropped ?? 0);
  return {
    input,
    histograms: openLoopHistograms(summary, scheduleIdentity(arrivalSpec), spec.startAtWall, windowMs, shard),
    sentRate: sent / seconds,
    goodputRate: (input.outcomeCounts.ok ?? 0) / seconds,
    sendLagP99Ms: quantileMs(measured.series.send_lag, 0.99),
    ttfabIntendedP95Ms: quantileMs(measured.series.ttfab_intended, 0.95),
    ttfabSentP95Ms: quantileMs(measured.series.ttfab_sent, 0.95),
    loopUtilization: summary.loopUtilization,
    peakOutstanding: summary.peakOutstanding,
    stoppedAtS,
    clientHealth:
      health?.stop({
        sendLagP99Ms: quantileMs(measured.series.send_lag, 0.99),
        droppedArrivals: input.outcomeCounts.client_dropped ?? 0,
      }) ?? null,
  };
}

/** The rung's look timers: each look that says stop ends the schedule (in-flight requests finish). */
function scheduleLooks(
  looks: RungLooks,
  clock: Clock,
  startAt: number,
  fromMs: number,
  toMs: number,
  engine: OpenLoopEngine,
): { cancel: () => void; stoppedAtS: () => number | null } {
  const spans = looks.spansS.filter((s) => fromMs + s * 1000 < toMs - 1e-6);
  let cancel: (() => void) | null = null;
  let stoppedAt: number | null = null;
  const arm = (k: number): void => {
    const span = spans[k];
    if (span === undefined) return;
    const lookAtMs = fromMs + span * 1000 + looks.lagMs;
    cancel = clock.at(startAt + lookAtMs, () => {
      cancel = null;
      if (looks.stop(engine.windowsSoFar(), span, lookAtMs)) {
        stoppedAt = span;
        engine.stop({ abort: false });
      } else arm(k + 1);
    });
  };
  arm(0);
  return { cancel: () => cancel?.(), stoppedAtS: () => stoppedAt };
}
