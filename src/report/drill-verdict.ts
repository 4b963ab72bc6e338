/**
 * The drill's verdict in words, for every surface (terminal, PR comment and job summary, SVG
 * title): the headline follows `slo_held` (did every full steady and surge window hold the SLO);
 * what the plan predicted is an explanation beside it, never a pass. A drill recorded before the
 * SLO was judged (no `slo_held`) says so.
 */
import type { DrillArtifact, DrillPrediction, DrillWindow } from '../model/index.js';

const pct = (p: number | null | undefined): string =>
  p === null || p === undefined ? 'n/a' : `${(p * 100).toFixed(1)} %`;

const n3 = (v: number): string => `${Number(v.toFixed(3))}`;

const windowsOf = (n: number, phase: string): string => `${n} ${phase} window${n === 1 ? '' : 's'}`;

export interface DrillVerdictText {
  verdict: 'pass' | 'fail';
  /** What decides the verdict: whether the SLO held, and where it did not. */
  summary: string;
  /** What the plan predicted, beside it (null: nothing to add). */
  explanation: string | null;
}

/** What the plan predicted for a phase, in words (`overflow 99.7 % with no surge`). */
export function predictedFor(phase: 'steady' | 'surge', p: DrillPrediction): string {
  return phase === 'steady'
    ? `overflow ${pct(p.baseline_overflow_probability)} with no surge`
    : `overflow ${pct(p.surge_overflow_probability)} within T_plan of a x${p.planned_surge_ratio} surge`;
}

/** Where the SLO broke, by phase: `3 steady windows`, `1 steady window and 2 surge windows`. */
function brokenWhere(broken: readonly DrillWindow[]): string {
  const steady = broken.filter((w) => w.phase === 'steady').length;
  const surge = broken.filter((w) => w.phase === 'surge').length;
  return [steady > 0 ? windowsOf(steady, 'steady') : '', surge > 0 ? windowsOf(surge, 'surge') : '']
    .filter(Boolean)
    .join(' and ');
}

export function drillVerdictText(a: DrillArtifact): DrillVerdictText {
  const v = windowVerdictText(a);
  const z = a.inference_component?.from_zero;
  if (!z) return v;
  const wake =
    z.wake?.wake_s === null || z.wake?.wake_s === undefined
      ? `the component did NOT wake from zero within ${z.max_wait_s} s`
      : `the wake from zero ${z.held ? 'held' : 'did NOT hold'} (${z.wake.wake_s} s measured, tolerance ${z.wake_tolerance_s} s; ${z.wake.retry?.client_visible_failures ?? 'n/a'} client-visible failure(s))`;
  return { ...v, summary: `${v.summary}; ${wake}` };
}

/** The verdict on the windows alone (slo_held). */
function windowVerdictText(a: DrillArtifact): DrillVerdictText {
  if (a.slo_held === undefined) {
    return {
      verdict: a.verdict,
      summary:
        'recorded before scalegate judged the SLO: whether it held is not recorded (the verdict only compared the windows with what the plan predicted)',
      explanation:
        a.verdict === 'pass'
          ? 'no window beyond what the plan predicted'
          : `${a.broken_windows.length} window(s) beyond what the plan predicted`,
    };
  }
  const windows = a.analysis.windows;
  const judged = a.slo?.windows_judged ?? windows.filter((w) => typeof w.slo_held === 'boolean').length;
  if (a.slo_held) {
    const beyond = windows.filter((w) => w.judged === 'broken').length;
    return {
      verdict: a.verdict,
      summary: `SLO held in all ${judged} full steady and surge windows`,
      explanation:
        a.as_predicted === false
          ? `not as the plan predicted: ${beyond} window(s) with overflows, failures or a breach it ruled out, within the tolerance`
          : null,
    };
  }
  const broken = windows.filter((w) => w.slo_held === false);
  if (broken.length === 0) {
    return {
      verdict: a.verdict,
      summary: 'SLO not proven: no full steady or surge window was recorded',
      explanation: null,
    };
  }
  const predicted = broken.filter((w) => w.judged === 'predicted');
  const beyond = broken.length - predicted.length;
  const phases = (['steady', 'surge'] as const).filter((ph) => predicted.some((w) => w.phase === ph));
  const what = phases.map((ph) => predictedFor(ph, a.prediction)).join('; ');
  const explanation =
    predicted.length === 0
      ? 'beyond what the plan predicted'
      : beyond === 0
        ? `predicted by the plan: ${what}`
        : `${beyond} beyond what the plan predicted, ${predicted.length} predicted by it: ${what}`;
  return { verdict: a.verdict, summary: `SLO broken in ${brokenWhere(broken)}`, explanation };
}

/** `fail — SLO broken in 3 steady windows (predicted by the plan: overflow 99.7 % with no surge)`. */
export function drillVerdictLine(a: DrillArtifact): string {
  const v = drillVerdictText(a);
  return `${v.verdict} — ${v.summary}${v.explanation ? ` (${v.explanation})` : ''}`;
}

/** The SLO the drill judged by, in words (`p95 TTFAB <= 750 ms for >= 95.0 % of arrivals, overflows <= 5.0 % (the plan's)`). */
export function drillSloCriterion(a: DrillArtifact): string | null {
  const s = a.slo;
  if (!s) return null;
  const continuity =
    s.underrun_slo_ms !== undefined && s.underrun_slo_ms !== null
      ? `, the p95 of per-stream playback stall of its multi-chunk streams at most ${s.underrun_slo_ms} ms (failures count as misses; client buffer ${a.settings.client_buffer_ms ?? 0} ms)`
      : '';
  return `at least ${pct(s.within_slo_share)} of each window's arrivals answered within ${s.slo_ms} ms (p95 TTFAB from the intended send time; overflows, timeouts and failures count as misses)${continuity}, overflows at most ${pct(s.max_overflow_probability)} of its arrivals (${s.max_overflow_origin === 'plan' ? "the plan's max_overflow_probability" : 'the default: the plan predates max_overflow_probability'})`;
}

/**
 * The stall p95 of each phase, measured (misses at +infinity), and whether it was judged: null
 * when no response of the drill carried audio.
 */
export function drillStallText(a: DrillArtifact): string | null {
  const by = a.slo?.stall_p95_by_phase;
  if (!by) return null;
  const f = (v: number | null) =>
    v === null ? 'n/a (a miss, or no multi-chunk stream)' : `${v.toFixed(1)} ms`;
  const slo = a.slo?.underrun_slo_ms;
  return `steady ${f(by.steady)}, surge ${f(by.surge)}, trough ${f(by.trough)} (measured)${slo !== undefined && slo !== null ? `; underrun SLO ${slo} ms, judged in every full steady and surge window` : '; no underrun SLO: measured, not judged'}`;
}

/** The steady load per instance and what it is (lambda_safe, X_target, or chosen). */
export function drillSteadyBasis(a: DrillArtifact): string {
  const steady = a.phases.find((p) => p.name === 'steady');
  const safe = a.prediction.lambda_safe_rps;
  const per = a.inference_component ? 'copy' : 'instance';
  const basis =
    safe !== undefined && safe !== null
      ? `the plan's lambda_safe ${n3(safe)} requests/s per ${per} (the chosen policy's surge-safe rate)`
      : a.prediction.lambda_safe_rps === null
        ? `the plan's X_target ${n3(a.prediction.x_target_rps)} requests/s per instance (the plan predates lambda_safe)`
        : `X_target ${n3(a.prediction.x_target_rps)} requests/s per instance (recorded before lambda_safe)`;
  return steady?.rate_source.startsWith('chosen:')
    ? `${n3(steady.rate_rps)} requests/s chosen with --steady-rps (${basis})`
    : `${steady ? n3(steady.rate_rps) : 'n/a'} requests/s: ${basis}`;
}
