/**
 * The drill's load: its phases as one seeded Poisson schedule (shards split it by sequence
 * number), run through the open-loop engine with per-second counters beside the HDR windows; and
 * the shards of one drill merged into the whole (`mergeDrillShards`, pure: what `scalegate drill
 * merge` and `scalegate merge` call for kind drill-shard), judged by src/analysis/drill.ts.
 */
import { analyzeDrill, type WindowStat } from '../analysis/drill.js';
import {
  type DrillArtifact,
  type DrillData,
  type DrillLoadSecond,
  type DrillPhase,
  type DrillShardArtifact,
  fingerprintDifferences,
  type OpenLoopHistograms,
  type Shard,
  UNSAFE_CHARACTERS,
  UsageError,
} from '../model/index.js';
import { type ArrivalSpec, scheduleIdentity, shardArrivals } from './arrivals.js';
import { type Clock, realClock } from './clock.js';
import { decodeHistogram, mergeOpenLoop, quantileMs } from './histograms.js';
import {
  OpenLoopEngine,
  type OpenLoopRecord,
  type OpenLoopSummary,
  openLoopHistograms,
} from './open-loop.js';
import type { Transport } from './types.js';

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

/** Distinct failure messages kept (a drill's failures are usually one or two kinds). */
export const MAX_FAILURE_KINDS = 20;

type Failure = DrillData['failures'][number];

/** One line, no control or bidi character (src/model/safe.ts), bounded: an error text fit for an artifact. */
const UNSAFE = new RegExp(`${UNSAFE_CHARACTERS.source}+`, 'g');
const clean = (text: string): string => text.replace(UNSAFE, ' ').slice(0, 200);

/** Failures by (outcome, message): the commonest MAX_FAILURE_KINDS, counts added. */
export function addFailures(into: Map<string, Failure>, from: Iterable<Failure>): void {
  for (const f of from) {
    const key = `${f.outcome} ${f.error}`;
    const seen = into.get(key);
    if (seen) {
      seen.count += f.count;
      seen.first_t = Math.min(seen.first_t, f.first_t);
    } else into.set(key, { ...f });
  }
}

export const topFailures = (failures: Map<string, Failure>): Failure[] =>
  [...failures.values()]
    .sort((a, b) => b.count - a.count || a.first_t - b.first_t)
    .slice(0, MAX_FAILURE_KINDS);

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
  const engine = new OpenLoopEngine({
    transport: spec.transport,
    bodies: spec.bodies,
    requestTimeoutMs: spec.requestTimeoutMs,
    maxOutstanding: spec.maxOutstanding,
    windowMs: spec.windowMs,
    ...(spec.clock ? { clock: spec.clock } : {}),
    onRecord: (r) => {
      seconds.record(r);
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

/** Per window: counts and the p95 TTFAB from the intended send time (decoded from its HDR histogram). */
export function windowStats(histograms: OpenLoopHistograms, source: string): WindowStat[] {
  return histograms.windows.map((w) => {
    const counts = w.outcome_counts;
    const ok = counts.ok ?? 0;
    const overflow = (counts.saturated_503 ?? 0) + (counts.throttled_429 ?? 0);
    let finished = 0;
    for (const n of Object.values(counts)) finished += n ?? 0;
    const h = decodeHistogram(w.ttfab_intended, `${source} window ${w.index} ttfab_intended`);
    const p95 = quantileMs(h, 0.95);
    h.destroy();
    return {
      index: w.index,
      offered: w.offered,
      ok,
      overflow,
      errors: finished - ok - overflow,
      clientDropped: counts.client_dropped ?? 0,
      p95Ms: p95,
    };
  });
}

/** A whole drill from its data: the windows judged, the lag measured, the verdict. */
export function completeDrill(data: DrillData, shards: Shard[], source: string): DrillArtifact {
  const judgement = analyzeDrill({
    phases: data.phases,
    windowS: data.settings.window_s,
    sloMs: data.settings.slo_ms,
    prediction: data.prediction,
    windows: windowStats(data.histograms, source),
    seconds: data.load_seconds,
    observer: data.observer,
  });
  return {
    ...data,
    kind: 'drill',
    shards,
    verdict: judgement.verdict,
    broken_windows: judgement.brokenWindows,
    analysis: judgement.analysis,
    slo_held: judgement.sloHeld,
    as_predicted: judgement.asPredicted,
    slo: judgement.slo,
  };
}

export interface LabelledDrillShard {
  /** Where it was read from: named in every refusal. */
  source: string;
  data: DrillShardArtifact;
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Merges the shards of one drill into the whole drill, judged. Refused (UsageError naming the
 * file) when the shards are not of one drill: another plan, drill run, endpoint, fingerprint,
 * settings, phases or schedule; a repeated or missing shard; or no observer in shard 0.
 */
export function mergeDrillShards(parts: readonly LabelledDrillShard[]): DrillArtifact {
  const first = parts[0];
  if (!first) throw new UsageError('drill merge: no shard files given.');
  const ref = first.data;
  for (const { source, data } of parts) {
    const disagree = (what: string, mine: unknown, theirs: unknown): UsageError =>
      new UsageError(
        `${source}: ${what} ${JSON.stringify(mine)}, ${first.source} ${JSON.stringify(theirs)}: these are shards of different drills (run every shard with the same --plan, --surge-ratio, phases, --seed and --start-at).`,
      );
    if (data.plan_run_id !== ref.plan_run_id)
      throw disagree('drilled plan run', data.plan_run_id, ref.plan_run_id);
    if (data.model_name !== ref.model_name) throw disagree('model', data.model_name, ref.model_name);
    if (data.endpoint !== ref.endpoint || data.variant !== ref.variant)
      throw disagree('endpoint', `${data.endpoint}/${data.variant}`, `${ref.endpoint}/${ref.variant}`);
    if (fingerprintDifferences(data.fingerprint, ref.fingerprint).length > 0)
      throw disagree('fingerprint', data.fingerprint, ref.fingerprint);
    if (!same(data.settings, ref.settings)) throw disagree('settings', data.settings, ref.settings);
    if (!same(data.phases, ref.phases)) throw disagree('phases', data.phases, ref.phases);
    if (!same(data.prediction, ref.prediction))
      throw disagree('plan figures', data.prediction, ref.prediction);
    if (data.run_id !== ref.run_id) throw disagree('drill run', data.run_id, ref.run_id);
  }
  const histograms = mergeOpenLoop(parts.map((p) => ({ source: p.source, data: p.data.histograms })));
  const observers = parts.filter((p) => p.data.observer !== null);
  const zero = parts.find((p) => p.data.shard.index === 0);
  if (!zero || zero.data.observer === null) {
    throw new UsageError(
      `drill merge: shard 0 (${zero?.source ?? 'not given'}) carries no observation of the endpoint; shard 0 is the one that observes, so its file is needed and must come from \`scalegate drill --shard 0/n\`.`,
    );
  }
  if (observers.length > 1) {
    throw new UsageError(
      `drill merge: ${observers.map((o) => o.source).join(', ')} all carry observations; only shard 0 observes the endpoint.`,
    );
  }
  const bySecond = new Map<number, DrillLoadSecond>();
  for (const { data } of parts) {
    for (const s of data.load_seconds) {
      const into = bySecond.get(s.t);
      if (!into) bySecond.set(s.t, { ...s });
      else {
        into.offered += s.offered;
        into.sent += s.sent;
        into.ok += s.ok;
        into.within_slo += s.within_slo;
        into.overflow += s.overflow;
        into.errors += s.errors;
        into.completed_ok += s.completed_ok;
        into.in_flight += s.in_flight;
      }
    }
  }
  const latest = parts
    .map((p) => p.data.measured_at)
    .sort()
    .at(-1) as string;
  const failures = new Map<string, DrillData['failures'][number]>();
  for (const p of parts) addFailures(failures, p.data.failures);
  const data: DrillData = {
    ...zero.data,
    measured_at: latest,
    histograms,
    load_seconds: [...bySecond.values()].sort((a, b) => a.t - b.t),
    failures: topFailures(failures),
    notes: [...new Set(parts.flatMap((p) => p.data.notes))],
  };
  const { kind: _kind, shard: _shard, ...rest } = data as DrillShardArtifact;
  return completeDrill(rest, histograms.shards, parts.map((p) => p.source).join(' + '));
}
