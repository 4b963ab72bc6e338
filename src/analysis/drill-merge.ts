/**
 * The shards of one drill merged into the whole (`mergeDrillShards`, pure: what `scalegate merge`
 * calls for kind drill-shard, and `scalegate drill merge` with it), and a drill's data judged
 * into its artifact by src/analysis/drill.ts (`completeDrill`).
 */
import {
  type DrillArtifact,
  type DrillData,
  type DrillLoadSecond,
  type DrillShardArtifact,
  fingerprintDifferences,
  type OpenLoopHistograms,
  type Shard,
  UsageError,
} from '../model/index.js';
import { addFailures, topFailures } from '../stats/failures.js';
import {
  decodeHistogram,
  decodeWindow,
  mergeOpenLoop,
  quantileMs,
  releaseWindow,
  sumWindows,
} from '../stats/histograms.js';
import { analyzeDrill, type WindowStat } from './drill.js';

/**
 * The p95 of `offered` arrivals of which `answered` have a TTFAB (`quantile` over those), the
 * rest at +infinity: Infinity when more than 5 % are misses, null without arrivals.
 */
export function censoredP95(
  offered: number,
  answered: number,
  quantile: (q: number) => number | null,
): number | null {
  const n = Math.max(offered, answered);
  if (n === 0) return null;
  const rank = Math.ceil(0.95 * n);
  if (rank > answered) return Number.POSITIVE_INFINITY;
  return quantile(Math.min(1, (0.95 * n) / answered));
}

/** Per window: counts and the p95 TTFAB from the intended send time (decoded from its HDR histogram), misses at +infinity. */
export function windowStats(histograms: OpenLoopHistograms, source: string): WindowStat[] {
  return histograms.windows.map((w) => {
    const counts = w.outcome_counts;
    const ok = counts.ok ?? 0;
    const overflow = (counts.saturated_503 ?? 0) + (counts.throttled_429 ?? 0);
    let finished = 0;
    for (const n of Object.values(counts)) finished += n ?? 0;
    const h = decodeHistogram(w.ttfab_intended, `${source} window ${w.index} ttfab_intended`);
    // No survivorship: every arrival without a TTFAB (overflow, error, timeout, drop) is a miss
    // at +infinity in the window's p95.
    const answered = h.totalCount;
    const p95 = censoredP95(w.offered, answered, (q) => quantileMs(h, q));
    h.destroy();
    const stallP95 =
      w.audio && w.audio.multi_chunk > 0
        ? stallP95Of(w.audio.stall, w.offered - ok, `${source} window ${w.index}`)
        : undefined;
    return {
      ...(stallP95 !== undefined ? { stallP95Ms: stallP95 } : {}),
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

/** The p95 of a stall histogram's streams with `misses` more at +infinity (censoredP95). */
function stallP95Of(
  stall: Parameters<typeof decodeHistogram>[0],
  misses: number,
  where: string,
): number | null {
  const h = decodeHistogram(stall, `${where} audio.stall`);
  const p95 = censoredP95(h.totalCount + Math.max(0, misses), h.totalCount, (q) => quantileMs(h, q));
  h.destroy();
  return p95;
}

/**
 * Per phase, the p95 of per-stream stall over all its windows (a window belongs to the phase its
 * start falls in), misses at +infinity; null without a multi-chunk stream or at a miss; undefined
 * when no window carried audio.
 */
export function stallP95ByPhase(
  data: Pick<DrillData, 'histograms' | 'phases' | 'settings'>,
  source: string,
): { steady: number | null; surge: number | null; trough: number | null } | undefined {
  if (!data.histograms.windows.some((w) => w.audio)) return undefined;
  const out = { steady: null as number | null, surge: null as number | null, trough: null as number | null };
  for (const phase of data.phases) {
    const windows = data.histograms.windows
      .filter((w) => {
        const t = w.index * data.settings.window_s;
        return t >= phase.start_s && t < phase.end_s;
      })
      .map((w) => decodeWindow(w, source));
    const total = sumWindows(windows);
    for (const w of windows) releaseWindow(w);
    const stall = total.audio.stall;
    const misses = Math.max(0, total.offered - (total.outcomes.ok ?? 0));
    const p95 =
      stall.totalCount === 0
        ? null
        : censoredP95(stall.totalCount + misses, stall.totalCount, (q) => quantileMs(stall, q));
    releaseWindow(total);
    out[phase.name] = p95 === null || !Number.isFinite(p95) ? null : Math.round(p95 * 1000) / 1000;
  }
  return out;
}

/** A whole drill from its data: the windows judged, the lag measured, the verdict. */
export function completeDrill(data: DrillData, shards: Shard[], source: string): DrillArtifact {
  const judgement = analyzeDrill({
    phases: data.phases,
    windowS: data.settings.window_s,
    sloMs: data.settings.slo_ms,
    ...(data.settings.underrun_slo_ms !== undefined ? { underrunSloMs: data.settings.underrun_slo_ms } : {}),
    prediction: data.prediction,
    windows: windowStats(data.histograms, source),
    seconds: data.load_seconds,
    observer: data.observer,
  });
  const byPhase = stallP95ByPhase(data, source);
  // An inference component's from-zero phase is judged apart (slo_held keeps its meaning: the
  // windows); a wake beyond the plan's tolerance or retry budget fails the drill all the same.
  const fromZero = data.inference_component?.from_zero ?? null;
  const wakeFailed = fromZero !== null && !fromZero.held;
  const analysis = wakeFailed
    ? {
        ...judgement.analysis,
        reasons: [
          `the from-zero phase did not hold: ${fromZero.reasons.join('; ')}`,
          ...judgement.analysis.reasons,
        ],
      }
    : judgement.analysis;
  return {
    ...data,
    kind: 'drill',
    shards,
    verdict: wakeFailed ? 'fail' : judgement.verdict,
    broken_windows: judgement.brokenWindows,
    analysis,
    slo_held: judgement.sloHeld,
    as_predicted: judgement.asPredicted,
    slo: { ...judgement.slo, ...(byPhase ? { stall_p95_by_phase: byPhase } : {}) },
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
