/**
 * The surge drill, pure: which load each phase offers (from the plan), what the plan promised,
 * and the judgement of what a drill recorded. No I/O; the HDR windows are decoded by the caller
 * (src/load/drill.ts), which hands over one WindowStat per window.
 *
 * Phases (open-loop Poisson arrivals, rates for the whole drill):
 * 1. steady: lambda_safe x n requests/s, the chosen policy's surge-safe per-instance rate the plan
 *    sizes each instance for (n = --start-instances); a plan that predates lambda_safe: X_target x
 *    n, its throughput at the scale-out target;
 * 2. surge: k times that, for T_plan plus a margin;
 * 3. trough: the plan's trough load, through the scale-in alarm's window and cooldown.
 * Phase lengths are fixed before the drill starts (shards must agree on the schedule), rounded
 * up to whole windows.
 *
 * Two answers, recorded side by side:
 * - `slo_held` (the verdict and the exit code): every full window of the steady and surge phases
 *   inside the SLO (p95 TTFAB from the intended send time at most the SLO, and at least 95 % of
 *   its arrivals answered within it: overflows (503), timeouts and other failures count as misses)
 *   with overflows no more than `max_overflow_probability` of its arrivals (the plan's policy
 *   choice; 0.05 for a plan that predates it) and every arrival sent (a window where the client
 *   could not send the schedule proves nothing). Exit 0 only when it held. A plan that predicted a
 *   breach does not make it a pass: the prediction is an explanation shown beside the failure.
 * - `as_predicted`: whether what happened is what the plan predicted (below).
 *
 * What the plan promises, and so what breaks it (`as_predicted`):
 * - once the tracked metric exceeds the scale-out target, the policy adds capacity within
 *   T_plan (= T_total + policy lag), and from then on the SLO holds;
 * - within T_plan of such a breach, the queue overflows with the probability the plan computed
 *   (surge_survival; for the steady phase its no-surge baseline). When that probability is above
 *   10 % (the finding warns) the plan itself predicted breaches there; at or below 10 % it
 *   promised none.
 * A full window of the steady or surge phase over the SLO (p95 TTFAB from the intended send time
 * above it, or under 95 % of arrivals answered within it), or with an overflow (503) or another
 * failure, is `predicted` when it lies within T_plan of a breach the plan predicted overflow
 * for, and `broken` otherwise; the drill went as predicted when no window is broken. The trough
 * phase is reported (scale-in, reversals, its windows) but not judged.
 */
import type {
  DrillAnalysis,
  DrillLoadSecond,
  DrillPhase,
  DrillPhaseName,
  DrillSlo,
  DrillWindow,
} from '../model/index.js';
import { type DrillAnalysisInput, lagChains } from './drill-chains.js';
import {
  DEFAULT_MAX_OVERFLOW_PROBABILITY,
  PREDICTED_OVERFLOW_ABOVE,
  phaseAt,
  RECOVERED_WINDOWS,
  round,
  WITHIN_SLO_SHARE,
} from './drill-phases.js';

export {
  type DrillAnalysisInput,
  desiredFromDescription,
  type WindowStat,
  watchedAlarms,
} from './drill-chains.js';
export {
  DEFAULT_MAX_OVERFLOW_PROBABILITY,
  DRILL_DEFAULTS,
  type DrillEstimate,
  defaultPhaseLengths,
  drillDurationS,
  drillEstimate,
  drillPhases,
  drillPrediction,
  type PhaseChoice,
  type PhaseLengths,
  PREDICTED_OVERFLOW_ABOVE,
  phaseAt,
  planTroughRps,
  RECOVERED_WINDOWS,
  SURGE_RATIO_RANGE,
  steadyPerInstance,
  WITHIN_SLO_SHARE,
} from './drill-phases.js';

// ---- the judgement ------------------------------------------------------------------------------

export interface DrillJudgement {
  analysis: DrillAnalysis;
  /** `pass` exactly when the SLO held. */
  verdict: 'pass' | 'fail';
  /** The windows beyond what the plan predicted (judged `broken`). */
  brokenWindows: number[];
  /** Every full steady and surge window inside the SLO, overflows within max_overflow_probability. */
  sloHeld: boolean;
  /** No window beyond what the plan predicted. */
  asPredicted: boolean;
  slo: DrillSlo;
}

const fmtS = (s: number): string => `${round(s, 1)} s`;
const pct = (p: number): string => `${(p * 100).toFixed(1)} %`;

interface Allowance {
  phase: DrillPhaseName;
  fromS: number;
  toS: number;
  /** Where the breach came from, for the reason text. */
  label: string;
}

function describeProblems(
  w: Omit<DrillWindow, 'judged' | 'reason'>,
  sloMs: number,
  clientDropped: number,
): string {
  const parts: string[] = [];
  if (w.p95_ms !== null && w.p95_ms > sloMs) parts.push(`p95 ${round(w.p95_ms, 1)} ms > SLO ${sloMs} ms`);
  if (w.ok === 0 && w.offered > 0) parts.push('no request answered');
  if (w.within_slo_fraction !== null && w.within_slo_fraction < WITHIN_SLO_SHARE)
    parts.push(`${pct(w.within_slo_fraction)} within the SLO`);
  if (w.over_underrun_slo)
    parts.push(
      `stall p95 ${w.stall_p95_ms === null || w.stall_p95_ms === undefined ? 'a miss' : `${round(w.stall_p95_ms, 1)} ms`} over the underrun SLO`,
    );
  if (w.overflow > 0) parts.push(`${w.overflow} overflow(s) (503)`);
  const otherErrors = w.errors - clientDropped;
  if (otherErrors > 0) parts.push(`${otherErrors} failed request(s)`);
  if (clientDropped > 0)
    parts.push(`${clientDropped} arrival(s) the client could not send (its outstanding cap)`);
  return parts.join(', ');
}

/**
 * Why one full steady or surge window did not hold the SLO (null: it held): over the SLO (p95, or
 * under 95 % of its arrivals answered within it, failures counted as misses), overflows above
 * max_overflow_probability of its arrivals, or arrivals the client could not send (then the
 * window proves nothing).
 */
function sloMiss(
  w: Omit<DrillWindow, 'judged' | 'reason'>,
  sloMs: number,
  maxOverflow: number,
  clientDropped: number,
  underrunSloMs: number | null = null,
): string | null {
  const parts: string[] = [];
  if (w.offered === 0) return null;
  if (w.p95_ms !== null && w.p95_ms > sloMs) parts.push(`p95 ${round(w.p95_ms, 1)} ms > SLO ${sloMs} ms`);
  if (underrunSloMs !== null && w.over_underrun_slo)
    parts.push(
      `stall p95 ${w.stall_p95_ms === null || w.stall_p95_ms === undefined ? 'a miss (over 5 % of arrivals failed)' : `${round(w.stall_p95_ms, 1)} ms`} > underrun SLO ${underrunSloMs} ms`,
    );
  if (w.ok === 0) parts.push('no request answered');
  if (w.within_slo_fraction !== null && w.within_slo_fraction < WITHIN_SLO_SHARE)
    parts.push(`${pct(w.within_slo_fraction)} of arrivals within the SLO < ${pct(WITHIN_SLO_SHARE)}`);
  const share = w.overflow / w.offered;
  if (share > maxOverflow + 1e-12)
    parts.push(`${w.overflow} overflow(s) (503) = ${pct(share)} of arrivals > ${pct(maxOverflow)}`);
  if (clientDropped > 0)
    parts.push(`${clientDropped} arrival(s) the client could not send: the window proves nothing`);
  return parts.length > 0 ? parts.join(', ') : null;
}

export function analyzeDrill(input: DrillAnalysisInput): DrillJudgement {
  const { phases, windowS: w, sloMs, prediction, observer } = input;
  const bySecond = new Map(input.seconds.map((s) => [s.t, s]));
  const surge = phases.find((p) => p.name === 'surge') as DrillPhase;
  const steady = phases.find((p) => p.name === 'steady') as DrillPhase;
  const tPlan = prediction.t_plan_s;

  // Where the plan's promise starts: in each loaded phase, the first period over the plan's
  // scale-out target. One allowance per load step: a metric that dips under the target and comes
  // back while no capacity was added does not restart the clock.
  const metric = observer?.metric;
  const predictedFor = (phase: DrillPhaseName): number | null =>
    phase === 'surge' ? prediction.surge_overflow_probability : prediction.baseline_overflow_probability;
  const hasMetric = metric !== undefined && metric.points.length > 0;
  const allowances: Allowance[] = [];
  for (const phase of [steady, surge]) {
    let start: number | null = phase.start_s;
    if (hasMetric) {
      const first = [...metric.points]
        .sort((a, b) => a.t_s - b.t_s)
        .find(
          (p) =>
            p.t_s + metric.period_s > phase.start_s &&
            p.t_s < phase.end_s &&
            p.value > prediction.scaling_target_value,
        );
      start = first ? Math.max(phase.start_s, first.t_s) : null;
    }
    if (start === null) continue;
    allowances.push({
      phase: phase.name,
      fromS: start,
      toS: start + tPlan,
      label: hasMetric
        ? `the tracked metric exceeded the target ${prediction.scaling_target_value} from ${fmtS(start)} (${phase.name})`
        : `the ${phase.name} load step at ${fmtS(start)} (no metric was read)`,
    });
  }
  const episodeStarts = hasMetric ? allowances.map((a) => a.fromS) : null;

  const maxOverflow = prediction.max_overflow_probability ?? DEFAULT_MAX_OVERFLOW_PROBABILITY;
  // A plan that records its tolerance predicted overflow where its probability exceeds it; an
  // older plan warned above 10 %.
  const predictedAbove = prediction.max_overflow_probability ?? PREDICTED_OVERFLOW_ABOVE;
  const windows: DrillWindow[] = [];
  const broken: number[] = [];
  const clientDroppedTotal = input.windows.reduce((s, x) => s + x.clientDropped, 0);
  for (const stat of [...input.windows].sort((a, b) => a.index - b.index)) {
    const startS = stat.index * w;
    const endS = startS + w;
    const phase = phaseAt(phases, startS);
    const full = phase !== null && endS <= phase.end_s + 1e-9;
    let within = 0;
    for (let t = Math.floor(startS); t < endS; t++) within += bySecond.get(t)?.within_slo ?? 0;
    const fraction = stat.offered > 0 ? Math.min(1, within / stat.offered) : null;
    const underrun = input.underrunSloMs ?? null;
    // The continuity SLO: a stall p95 over it (a miss is +infinity) breaks the window like first audio.
    const overUnderrun =
      underrun !== null &&
      stat.offered > 0 &&
      stat.stallP95Ms !== undefined &&
      (stat.stallP95Ms === null || stat.stallP95Ms > underrun);
    const overSlo =
      stat.offered > 0 &&
      ((stat.p95Ms !== null && stat.p95Ms > sloMs) ||
        stat.ok === 0 ||
        (fraction !== null && fraction < WITHIN_SLO_SHARE) ||
        overUnderrun);
    const stall =
      stat.stallP95Ms === undefined
        ? {}
        : {
            stall_p95_ms:
              stat.stallP95Ms === null || !Number.isFinite(stat.stallP95Ms)
                ? null
                : round(stat.stallP95Ms, 3),
            ...(underrun !== null ? { over_underrun_slo: overUnderrun } : {}),
          };
    const base = {
      index: stat.index,
      phase: phase?.name ?? null,
      start_s: startS,
      end_s: endS,
      full,
      offered: stat.offered,
      ok: stat.ok,
      overflow: stat.overflow,
      errors: stat.errors,
      // +infinity (over 5 % misses) is recorded as null; over_slo says it.
      p95_ms: stat.p95Ms === null || !Number.isFinite(stat.p95Ms) ? null : round(stat.p95Ms, 3),
      within_slo_fraction: fraction === null ? null : round(fraction, 6),
      over_slo: overSlo,
      ...stall,
    };
    const bad = overSlo || stat.overflow > 0 || stat.errors > 0;
    if (!full || phase === null || phase.name === 'trough') {
      windows.push({
        ...base,
        judged: 'not-judged',
        reason: bad ? describeProblems(base, sloMs, stat.clientDropped) : null,
        slo_held: null,
        slo_reason: null,
      });
      continue;
    }
    const miss = sloMiss(base, sloMs, maxOverflow, stat.clientDropped, underrun);
    const slo = { slo_held: miss === null, slo_reason: miss };
    if (!bad) {
      windows.push({ ...base, judged: 'ok', reason: null, ...slo });
      continue;
    }
    const problems = describeProblems(base, sloMs, stat.clientDropped);
    const p = predictedFor(phase.name);
    const covering = allowances.find((a) => startS < a.toS && endS > a.fromS);
    const what = phase.name === 'surge' ? 'surge_survival' : "surge_survival's no-surge baseline";
    if (stat.clientDropped === 0 && covering && p !== null && p > predictedAbove) {
      windows.push({
        ...base,
        judged: 'predicted',
        reason: `${problems}: within T_plan ${fmtS(tPlan)} of when ${covering.label}, where the plan predicted overflow (${what} ${pct(p)})`,
        ...slo,
      });
      continue;
    }
    const why =
      stat.clientDropped > 0
        ? 'the load generator could not offer the schedule, so this window measures the client, not the endpoint'
        : !covering
          ? `more than T_plan ${fmtS(tPlan)} after the load first exceeded the target ${prediction.scaling_target_value}${allowances.length > 0 ? ` (${allowances.map((a) => `${fmtS(a.fromS)} in the ${a.phase}`).join(', ')})` : ''}: the policy should have added capacity by then`
          : p === null
            ? 'the plan has no overflow prediction for it'
            : `the plan predicted no overflow here (${what} ${pct(p)} <= ${pct(predictedAbove)})`;
    windows.push({ ...base, judged: 'broken', reason: `${problems}: ${why}`, ...slo });
    broken.push(stat.index);
  }

  // The SLO: every full window of the steady and surge phases held it (none judged: not shown).
  const sloJudged = windows.filter((x) => x.slo_held === true || x.slo_held === false);
  const sloBroken = sloJudged.filter((x) => x.slo_held === false);
  const sloHeld = sloJudged.length > 0 && sloBroken.length === 0;
  const sloSummary: DrillSlo = {
    slo_ms: sloMs,
    within_slo_share: WITHIN_SLO_SHARE,
    max_overflow_probability: maxOverflow,
    max_overflow_origin: prediction.max_overflow_origin ?? 'default',
    windows_judged: sloJudged.length,
    broken_windows: sloBroken.map((x) => x.index),
    broken_by_phase: {
      steady: sloBroken.filter((x) => x.phase === 'steady').length,
      surge: sloBroken.filter((x) => x.phase === 'surge').length,
    },
    ...(input.underrunSloMs !== undefined ? { underrun_slo_ms: input.underrunSloMs } : {}),
  };

  const chains = lagChains(input);
  // A scale-out from a busy endpoint (a full evaluation range) is the one a surge from the target sees.
  const first =
    chains.find((c) => c.policy_lag_s !== null && c.evaluation === 'full') ??
    chains.find((c) => c.policy_lag_s !== null) ??
    null;
  const policyLag = {
    seconds: first?.policy_lag_s ?? null,
    origin: 'measured' as const,
    evaluation: first?.evaluation ?? null,
    detail: first
      ? `${first.load_step} start ${fmtS(first.load_step_s)}` +
        `${first.first_breach_s !== null ? ` -> first breaching period ${fmtS(first.first_breach_s)}` : ''}` +
        `${first.alarm_s !== null ? ` -> ${first.alarm ?? 'alarm'} in ALARM ${fmtS(first.alarm_s)}` : ''}` +
        ` -> scaling activity ${fmtS(first.activity_s ?? 0)} -> desired ${first.from_instances} -> ${first.to_instances} seen ${fmtS(first.desired_s ?? 0)}` +
        ` (from the later of the load step and the first breaching period)` +
        (first.evaluation === 'partial'
          ? `; the alarm's evaluation range held fewer than ${first.configured_detection_s === null ? 'its' : 'its configured'} datapoints (the endpoint was idle before it), so it fired sooner than datapoints x period: not the lag of a surge from a busy endpoint`
          : '')
      : observer === null
        ? 'not observed: this drill had no observer (only shard 0 observes the endpoint)'
        : chains.length > 0
          ? 'a scale-out happened but the new desired count was never seen by a poll'
          : 'no scale-out happened during the drill, so no policy lag was measured',
  };

  // Time until the SLO holds again, from the first breach of the target.
  const origin = first
    ? Math.max(first.load_step_s, first.first_breach_s ?? first.load_step_s)
    : (episodeStarts?.[0] ?? null);
  let sloRecovered: number | null = null;
  const judgedWindows = windows.filter((x) => x.full && x.phase !== 'trough');
  if (origin !== null) {
    const after = judgedWindows.filter((x) => x.end_s > origin);
    const bad = (x: DrillWindow) => x.judged === 'predicted' || x.judged === 'broken';
    if (!after.some(bad)) sloRecovered = 0;
    else {
      for (let i = 0; i + RECOVERED_WINDOWS <= after.length; i++) {
        const run = after.slice(i, i + RECOVERED_WINDOWS);
        if (run.every((x) => !bad(x)) && after.slice(0, i).some(bad)) {
          sloRecovered = round(Math.max(0, (run[0] as DrillWindow).start_s - origin));
          break;
        }
      }
    }
  }

  // The fleet when the surge began.
  const obs = observer ? [...observer.observations].sort((a, b) => a.t_s - b.t_s) : [];
  const atSurge = [...obs].reverse().find((o) => o.t_s <= surge.start_s) ?? null;
  const outNames = new Set((observer?.alarms ?? []).filter((a) => a.role === 'scale-out').map((a) => a.name));
  const activities = observer ? [...observer.activities].sort((a, b) => a.start_s - b.start_s) : [];
  const steadyActivities = activities.filter((a) => a.start_s >= steady.start_s && a.start_s < steady.end_s);
  const settled =
    atSurge === null
      ? null
      : atSurge.desired !== null &&
        atSurge.desired === atSurge.current &&
        ![...outNames].some((n) => atSurge.alarms[n] === 'ALARM');

  const perPhase = (pick: (s: DrillLoadSecond) => number): Record<DrillPhaseName, number> => {
    const out = { steady: 0, surge: 0, trough: 0 } as Record<DrillPhaseName, number>;
    for (const s of input.seconds) {
      const p = phaseAt(phases, s.t);
      if (p) out[p.name] += pick(s);
    }
    return out;
  };
  const windowsOver = { steady: 0, surge: 0, trough: 0 } as Record<DrillPhaseName, number>;
  for (const x of windows) if (x.full && x.phase && x.over_slo) windowsOver[x.phase] += 1;
  const surgeOverflow = input.seconds.some(
    (s) => s.t >= surge.start_s && s.t < surge.start_s + tPlan && s.overflow > 0,
  );

  // Scale-in and reversals (flapping).
  const directions: ('out' | 'in')[] = [];
  let level = obs.find((o) => o.desired !== null)?.desired ?? null;
  for (const a of activities) {
    if (a.to_desired === null || level === null) {
      level = a.to_desired ?? level;
      continue;
    }
    if (a.to_desired > level) directions.push('out');
    else if (a.to_desired < level) directions.push('in');
    level = a.to_desired;
  }
  let reversals = 0;
  for (let i = 1; i < directions.length; i++) if (directions[i] !== directions[i - 1]) reversals++;
  const scaleIns = directions.filter((d) => d === 'in').length;
  const trough = phases.find((p) => p.name === 'trough') as DrillPhase;
  const scaleInDetail =
    observer === null
      ? 'not observed (no observer)'
      : scaleIns === 0
        ? `no scale-in during the drill (the trough lasted ${fmtS(trough.end_s - trough.start_s)}; the scale-in alarm needs its whole evaluation window of low load first)`
        : `${scaleIns} scale-in(s), ${reversals} reversal(s) between scaling directions`;

  const reasons: string[] = [];
  if (sloJudged.length === 0) {
    reasons.push(
      'no full window of the steady or surge phase was recorded: the drill proves nothing about the SLO',
    );
  } else if (sloBroken.length > 0) {
    const first3 = sloBroken.slice(0, 3);
    reasons.push(
      `the SLO broke in ${sloBroken.length} of ${sloJudged.length} full steady and surge window(s): ${first3
        .map((x) => `${x.phase} ${fmtS(x.start_s)}-${fmtS(x.end_s)} (${x.slo_reason})`)
        .join('; ')}${sloBroken.length > 3 ? '; ...' : ''}`,
    );
  } else {
    reasons.push(
      `the SLO held in all ${sloJudged.length} full steady and surge window(s): at least ${pct(WITHIN_SLO_SHARE)} of arrivals within ${sloMs} ms, overflows at most ${pct(maxOverflow)} of arrivals in each`,
    );
  }
  if (broken.length > 0) {
    const first3 = windows.filter((x) => x.judged === 'broken').slice(0, 3);
    reasons.push(
      `not as the plan predicted: ${broken.length} window(s) broke the plan's promise: ${first3
        .map((x) => `${x.phase} ${fmtS(x.start_s)}-${fmtS(x.end_s)} (${x.reason})`)
        .join('; ')}${broken.length > 3 ? '; ...' : ''}`,
    );
  } else {
    const predicted = windows.filter((x) => x.judged === 'predicted').length;
    reasons.push(
      predicted === 0
        ? 'as the plan predicted: no window of the steady and surge phases had an overflow, a failure or a breach of the SLO'
        : `as the plan predicted: ${predicted} window(s) with overflows, failures or over the SLO, each within T_plan of a breach for which the plan predicted overflow; none beyond it`,
    );
  }
  if (clientDroppedTotal > 0)
    reasons.push(
      `the client dropped ${clientDroppedTotal} arrival(s) at its outstanding cap: run more shards or a larger client`,
    );
  if (settled === false)
    reasons.push(
      `the fleet was not settled when the surge began (desired ${atSurge?.desired ?? 'n/a'}, current ${atSurge?.current ?? 'n/a'}${[...outNames].some((n) => atSurge?.alarms[n] === 'ALARM') ? ', scale-out alarm in ALARM' : ''}): lengthen --steady-s`,
    );
  if (steadyActivities.length > 0)
    reasons.push(
      `the policy scaled during the steady phase (${steadyActivities.map((a) => a.description).join('; ')}): the steady load already exceeded what the fleet holds under the policy`,
    );

  // Instance-minutes over the steady and surge phases: the endpoint's current instance count,
  // held from one poll to the next (what the fleet cost while the SLO was judged).
  const judgedEnd = surge.end_s;
  let instanceSeconds = 0;
  let seen = false;
  for (let i = 0; i < obs.length; i++) {
    const o = obs[i] as (typeof obs)[number];
    const next = obs[i + 1];
    const from = Math.max(o.t_s, steady.start_s);
    const to = Math.min(next ? next.t_s : judgedEnd, judgedEnd);
    // An inference-component drill counts copies in current; its instances are recorded apart.
    const held = o.instances !== undefined ? o.instances : o.current;
    if (held === null || to <= from) continue;
    instanceSeconds += held * (to - from);
    seen = true;
  }

  const analysis: DrillAnalysis = {
    windows,
    scale_outs: chains,
    policy_lag: policyLag,
    slo_recovered_s: sloRecovered,
    steady: {
      settled_at_surge: settled,
      desired_at_surge: atSurge?.desired ?? null,
      current_at_surge: atSurge?.current ?? null,
      scaled_during: observer ? steadyActivities.length > 0 : null,
    },
    observed: {
      overflows: perPhase((s) => s.overflow),
      windows_over_slo: windowsOver,
      surge_overflowed_within_t_plan: surgeOverflow,
      max_desired: obs.reduce<number | null>(
        (m, o) => (o.desired === null ? m : Math.max(m ?? 0, o.desired)),
        null,
      ),
      instance_minutes: seen ? round(instanceSeconds / 60, 3) : null,
    },
    scale_in: { scale_ins: scaleIns, reversals, detail: scaleInDetail },
    reasons,
  };
  return {
    analysis,
    verdict: sloHeld ? 'pass' : 'fail',
    brokenWindows: broken,
    sloHeld,
    asPredicted: broken.length === 0,
    slo: sloSummary,
  };
}
