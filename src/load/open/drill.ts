/**
 * The drill's load: its phases as one seeded Poisson schedule (shards split it by sequence
 * number), run through the open-loop engine with per-second counters beside the HDR windows.
 * Merging shards and judging the whole is src/analysis/drill-merge.ts.
 */
import {
  type DrillData,
  type DrillLoadSecond,
  type DrillPhase,
  type OpenLoopHistograms,
  type Shard,
  UNSAFE_CHARACTERS,
} from '../../model/index.js';
import type { PcmFormat } from '../../stats/continuity.js';
import { addFailures, topFailures } from '../../stats/failures.js';
import { type Clock, realClock } from '../clock.js';
import type { Heartbeat } from '../heartbeat.js';
import type { Transport } from '../types.js';
import { type ArrivalSpec, scheduleIdentity, shardArrivals } from './arrivals.js';
import {
  OpenLoopEngine,
  type OpenLoopRecord,
  type OpenLoopSummary,
  openLoopHistograms,
} from './open-loop.js';

/** The phases as one step-rate Poisson schedule (the same on every shard). */
export function drillArrivalSpec(phases: readonly DrillPhase[], seed: number): ArrivalSpec {
  const sorted = [...phases].sort((a, b) => a.start_s - b.start_s);
  const last = sorted[sorted.length - 1] as DrillPhase;
  const points = [
    ...sorted.map((p) => ({ t_s: p.start_s, rate: p.rate_rps })),
    { t_s: last.end_s, rate: last.rate_rps },
  ];
  const source = `drill: ${sorted.map((p) => `${p.name} ${p.rate_rps}/s for ${p.end_s - p.start_s} s`).join(', ')}`;
  return { process: 'poisson', profile: { kind: 'schedule', shape: 'step', points, source }, seed };
}

type Failure = DrillData['failures'][number];

/** One line, no control or bidi character (src/model/safe.ts), bounded: an error text fit for an artifact. */
const UNSAFE = new RegExp(`${UNSAFE_CHARACTERS.source}+`, 'gu');
const clean = (text: string): string => [...text.replace(UNSAFE, ' ')].slice(0, 200).join('');

/** Counts by second of the schedule, as `DrillLoadSecond` needs them, and the failures by kind. */
export class DrillSeconds {
  private readonly seconds: DrillLoadSecond[] = [];
  private readonly failed = new Map<string, Failure>();

  constructor(
    private readonly startAt: number,
    private readonly sloMs: number,
  ) {}

  private at(t: number): DrillLoadSecond {
    const i = Math.max(0, t);
    while (this.seconds.length <= i) {
      this.seconds.push({
        t: this.seconds.length,
        offered: 0,
        sent: 0,
        ok: 0,
        within_slo: 0,
        overflow: 0,
        errors: 0,
        completed_ok: 0,
        in_flight: 0,
      });
    }
    return this.seconds[i] as DrillLoadSecond;
  }

  record(r: OpenLoopRecord): void {
    if (r.stopped) return;
    const s = this.at(Math.floor((r.intendedAt - this.startAt) / 1000));
    s.offered += 1;
    if (r.sentAt !== null) s.sent += 1;
    if (r.outcome === 'ok') {
      s.ok += 1;
      if (r.ttfabIntendedMs !== null && r.ttfabIntendedMs <= this.sloMs) s.within_slo += 1;
      if (r.endedAt !== null) this.at(Math.floor((r.endedAt - this.startAt) / 1000)).completed_ok += 1;
    } else if (r.outcome === 'saturated_503' || r.outcome === 'throttled_429') s.overflow += 1;
    else {
      s.errors += 1;
      const t = Math.max(0, Math.floor((r.intendedAt - this.startAt) / 1000));
      addFailures(this.failed, [
        { outcome: r.outcome, error: clean(r.error ?? 'no message'), count: 1, first_t: t },
      ]);
    }
  }

  failures(): Failure[] {
    return topFailures(this.failed);
  }

  /** The client's in-flight requests at the end of second `t`. */
  inFlight(t: number, n: number): void {
    this.at(t).in_flight = n;
  }

  toArray(upTo: number): DrillLoadSecond[] {
    this.at(Math.max(0, upTo - 1));
    return this.seconds.map((s) => ({ ...s }));
  }
}

export interface DrillLoadSpec {
  phases: readonly DrillPhase[];
  seed: number;
  shard: Shard;
  /** Clock time of the schedule's offset 0, and its wall time (ISO) for the artifact. */
  startAt: number;
  startAtWall: string;
  windowMs: number;
  sloMs: number;
  transport: Transport;
  bodies: readonly Uint8Array[];
  requestTimeoutMs: number;
  maxOutstanding: number;
  clock?: Clock;
  signal?: AbortSignal;
  /** Every finished request (tests pool them across shards). */
  onRecord?: (record: OpenLoopRecord) => void;
  /** Called every second of the schedule while it runs (src/load/heartbeat.ts). */
  onHeartbeat?: (beat: Heartbeat) => void;
  /** Characters (code points) of each body's text and the audio accounting (src/load/open/open-loop.ts). */
  characters?: readonly number[];
  audio?: { format: PcmFormat | null; clientBufferMs: number };
}

export interface DrillLoadResult {
  summary: OpenLoopSummary;
  histograms: OpenLoopHistograms;
  seconds: DrillLoadSecond[];
  failures: DrillData['failures'];
  /** true when `signal` stopped the run (then it is not a measurement). */
  aborted: boolean;
}

/** Runs this shard's share of the schedule to its end (every sent request finished). */
export async function runDrillLoad(spec: DrillLoadSpec): Promise<DrillLoadResult> {
  const clock = spec.clock ?? realClock;
  const arrivals = drillArrivalSpec(spec.phases, spec.seed);
  const seconds = new DrillSeconds(spec.startAt, spec.sloMs);
  let finished = 0;
  const engine = new OpenLoopEngine({
    transport: spec.transport,
    bodies: spec.bodies,
    requestTimeoutMs: spec.requestTimeoutMs,
    maxOutstanding: spec.maxOutstanding,
    windowMs: spec.windowMs,
    ...(spec.clock ? { clock: spec.clock } : {}),
    ...(spec.characters ? { characters: spec.characters } : {}),
    ...(spec.audio ? { audio: spec.audio } : {}),
    onRecord: (r) => {
      seconds.record(r);
      finished += 1;
      spec.onRecord?.(r);
    },
  });
  const durationS = Math.max(...spec.phases.map((p) => p.end_s));
  let done = false;
  let sampled = 0;
  const sample = (): void => {
    if (done) return;
    seconds.inFlight(sampled, engine.inFlight);
    sampled += 1;
    spec.onHeartbeat?.({ elapsedS: sampled, finished, inFlight: engine.inFlight });
    cancelSample = clock.at(spec.startAt + (sampled + 1) * 1000, sample);
  };
  let cancelSample = clock.at(spec.startAt + 1000, sample);
  let aborted = false;
  const onAbort = (): void => {
    aborted = true;
    engine.stop();
  };
  spec.signal?.addEventListener('abort', onAbort, { once: true });
  if (spec.signal?.aborted) onAbort();
  let summary: OpenLoopSummary;
  try {
    summary = await engine.run(shardArrivals(arrivals, spec.shard), spec.startAt);
  } finally {
    done = true;
    cancelSample();
    spec.signal?.removeEventListener('abort', onAbort);
  }
  return {
    summary,
    histograms: openLoopHistograms(
      summary,
      scheduleIdentity(arrivals),
      spec.startAtWall,
      spec.windowMs,
      spec.shard,
    ),
    seconds: seconds.toArray(durationS),
    failures: seconds.failures(),
    aborted,
  };
}
