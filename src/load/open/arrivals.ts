/**
 * Arrival processes of the open loop (pure): when each request is meant to be sent, as offsets
 * from the schedule start. A rate profile (constant, or a step/ramp schedule) has cumulative
 * intensity L(t); arrival k is sent at L^-1(u_k), with u_k = k for evenly spaced (`constant`)
 * arrivals and u_k a sum of k+1 seeded Exp(1) draws for `poisson` (the time change that turns a
 * unit-rate Poisson process into one of the profile's rate). `replay` sends at given offsets.
 *
 * Sharding: arrival k belongs to shard k mod n. Every shard generates the whole schedule from the
 * same definition and seed and keeps its own share, so n shards together send exactly the
 * single-process schedule, each request at the same intended time.
 */
import { createHash } from 'node:crypto';
import { UsageError } from '../../model/errors.js';
import type { ScheduleIdentity, Shard } from '../../model/histograms.js';
import { mulberry32 } from '../../stats/prng.js';

export type RateShape = 'step' | 'ramp';

export interface RatePoint {
  t_s: number;
  rate: number;
}

export type RateProfile =
  | { kind: 'constant'; rate: number; durationS: number }
  /** step: `rate` holds from t_s to the next point; ramp: linear between points. Ends at the last point. */
  | { kind: 'schedule'; shape: RateShape; points: readonly RatePoint[]; source: string };

export type ArrivalSpec =
  | { process: 'constant' | 'poisson'; profile: RateProfile; seed: number }
  | { process: 'replay'; offsetsMs: readonly number[]; source: string };

export interface Arrival {
  /** Index in the whole (unsharded) schedule. */
  seq: number;
  /** Intended send time, ms after the schedule start. */
  offsetMs: number;
}

interface Segment {
  t0: number;
  t1: number;
  r0: number;
  r1: number;
  /** L(t0). */
  l0: number;
  /** L(t1). */
  l1: number;
}

function segmentsOf(profile: RateProfile): Segment[] {
  if (profile.kind === 'constant') {
    const { rate, durationS } = profile;
    return [{ t0: 0, t1: durationS, r0: rate, r1: rate, l0: 0, l1: rate * durationS }];
  }
  const segments: Segment[] = [];
  let l = 0;
  const pts = profile.points;
  for (let i = 0; i + 1 < pts.length; i++) {
    const a = pts[i] as RatePoint;
    const b = pts[i + 1] as RatePoint;
    const r1 = profile.shape === 'ramp' ? b.rate : a.rate;
    const area = ((a.rate + r1) / 2) * (b.t_s - a.t_s);
    segments.push({ t0: a.t_s, t1: b.t_s, r0: a.rate, r1, l0: l, l1: l + area });
    l += area;
  }
  return segments;
}

export const profileDurationS = (profile: RateProfile): number =>
  profile.kind === 'constant' ? profile.durationS : ((profile.points.at(-1) as RatePoint).t_s ?? 0);

/** Intended offsets (ms) of every arrival of the whole schedule, in order. */
export function* scheduleOffsets(spec: ArrivalSpec): Generator<number> {
  if (spec.process === 'replay') {
    yield* spec.offsetsMs;
    return;
  }
  const segments = segmentsOf(spec.profile);
  const next: () => number =
    spec.process === 'poisson'
      ? (() => {
          const random = mulberry32(spec.seed);
          let u = 0;
          // 1 - U lies in (0, 1]: never log(0).
          return () => {
            u += -Math.log(1 - random());
            return u;
          };
        })()
      : (() => {
          let k = 0;
          return () => k++;
        })();
  let i = 0;
  for (;;) {
    const u = next();
    while (i < segments.length && u >= (segments[i] as Segment).l1) i++;
    if (i >= segments.length) return;
    const s = segments[i] as Segment;
    // Solve r0*x + (r1-r0)/(2d)*x^2 = u - l0 for x in [0, d]; this form is stable for every slope.
    const d = s.t1 - s.t0;
    const a = (s.r1 - s.r0) / (2 * d);
    const need = u - s.l0;
    const root = Math.sqrt(Math.max(0, s.r0 * s.r0 + 4 * a * need));
    const x = need === 0 ? 0 : (2 * need) / (s.r0 + root);
    yield (s.t0 + Math.min(d, Math.max(0, x))) * 1000;
  }
}

/** This shard's arrivals of the schedule (all of them for shard 0/1). */
export function* shardArrivals(spec: ArrivalSpec, shard: Shard = { index: 0, count: 1 }): Generator<Arrival> {
  let seq = 0;
  for (const offsetMs of scheduleOffsets(spec)) {
    if (seq % shard.count === shard.index) yield { seq, offsetMs };
    seq++;
  }
}

function describe(spec: ArrivalSpec): string {
  if (spec.process === 'replay') return `replay of ${spec.offsetsMs.length} timestamps from ${spec.source}`;
  const p = spec.profile;
  const what = p.kind === 'constant' ? `${p.rate}/s for ${p.durationS} s` : `${p.shape} schedule ${p.source}`;
  return `${spec.process} ${what}`;
}

/** Identity of a schedule: shards and merges compare it; the hash covers every arrival-defining input. */
export function scheduleIdentity(spec: ArrivalSpec): ScheduleIdentity {
  const defining =
    spec.process === 'replay'
      ? { process: spec.process, offsets_ms: spec.offsetsMs }
      : {
          process: spec.process,
          seed: spec.process === 'poisson' ? spec.seed : null,
          profile:
            spec.profile.kind === 'constant'
              ? { rate: spec.profile.rate, duration_s: spec.profile.durationS }
              : { shape: spec.profile.shape, points: spec.profile.points },
        };
  let arrivals = 0;
  let last = 0;
  for (const offset of scheduleOffsets(spec)) {
    arrivals++;
    last = offset;
  }
  const durationS = spec.process === 'replay' ? last / 1000 : profileDurationS(spec.profile);
  return {
    process: spec.process,
    seed: spec.process === 'poisson' ? spec.seed : null,
    description: describe(spec),
    schedule_hash: createHash('sha256').update(JSON.stringify(defining)).digest('hex'),
    arrivals,
    duration_s: durationS,
  };
}

/** A constant-rate profile from flags; rate and duration must be positive. */
export function constantProfile(rate: number, durationS: number, rateFlag = '--rate'): RateProfile {
  if (!(Number.isFinite(rate) && rate > 0)) {
    throw new UsageError(
      `${rateFlag} ${rate}: the arrival rate must be a positive number of requests per second.`,
    );
  }
  if (!(Number.isFinite(durationS) && durationS > 0)) {
    throw new UsageError(`--duration-s ${durationS}: the schedule needs a positive duration in seconds.`);
  }
  return { kind: 'constant', rate, durationS };
}

/** Parses `--shard i/n`: 0 <= i < n. */
export function parseShard(text: string, flag = '--shard'): Shard {
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(text);
  const index = m ? Number(m[1]) : Number.NaN;
  const count = m ? Number(m[2]) : Number.NaN;
  if (!m || !(count >= 1) || !(index < count)) {
    throw new UsageError(
      `${flag} ${text}: use i/n with 0 <= i < n (shard i of n; run every i from 0 to n-1 with the same --seed and --start-at).`,
    );
  }
  return { index, count };
}

/**
 * `--start-at`: the wall time (ISO-8601 with a zone) at which schedule offset 0 falls, shared by
 * every shard. It must lie ahead of `nowMs` (a start in the past would send the missed arrivals in
 * one burst and measure the burst), and not absurdly far (a typo: a day at most).
 */
export function parseStartAt(text: string, nowMs: number, flag = '--start-at'): number {
  const iso = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
  const wall = iso.test(text.trim()) ? Date.parse(text.trim()) : Number.NaN;
  if (!Number.isFinite(wall)) {
    throw new UsageError(
      `${flag} ${text}: not an ISO-8601 time with a zone (e.g. 2026-11-30T12:00:00Z); give every shard the same one.`,
    );
  }
  if (wall <= nowMs) {
    throw new UsageError(
      `${flag} ${text}: lies ${((nowMs - wall) / 1000).toFixed(1)} s in the past; choose a start every shard reaches before it (a few seconds ahead).`,
    );
  }
  if (wall - nowMs > 86_400_000) {
    throw new UsageError(`${flag} ${text}: lies more than a day ahead; check the date.`);
  }
  return wall;
}
