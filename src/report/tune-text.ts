/**
 * The terminal report of `scalegate tune` and its progress lines: the Pareto table of the
 * candidates (window and request attainment, overflows, instance-hours and their ratio to the
 * perfect fleet, peak instances), the seed's rule and the perfect fleet beside them, the chosen
 * policy and why. Every figure is computed by simulation on the trace named by its digest; the
 * perfect fleet's instance-hours are a lower bound.
 */
import type { TuneArtifact, TuneEntry, TuneScore } from '../model/index.js';

const pct = (share: number): string => `${(share * 100).toFixed(2)} %`;
const hours = (h: number): string => (h >= 100 ? h.toFixed(0) : h >= 10 ? h.toFixed(1) : h.toFixed(2));

export type TuneProgress =
  | { start: { candidates: number; digest: string; durationS: number; seed: number } }
  | { index: number; total: number; label: string; score: TuneScore };

/** One progress line while scoring (stderr in the CLI). */
export function tuneProgressLine(p: TuneProgress): string {
  if ('start' in p) {
    const s = p.start;
    return `tune: scoring ${s.candidates} candidates, the seed rule and the perfect fleet on trace ${s.digest} (${s.durationS} s simulated, seed ${s.seed})`;
  }
  const s = p.score;
  return `tune: ${p.index}/${p.total} ${p.label}: windows ${pct(s.slo_attainment)}, requests ${pct(s.request_attainment)}, ${hours(s.instance_hours)} instance-hours, peak ${s.peak_instances} (computed)`;
}

/** How an entry's figures were obtained, for the table's footnote and the chart. */
export const tuneProvenance = (a: Pick<TuneArtifact, 'trace' | 'settings'>): string =>
  `computed by simulation on trace ${a.trace.sha256.slice(0, 12)} (seed ${a.settings.seed})`;

function pad(cells: string[][]): string[] {
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length))) ?? [];
  return cells.map((row) =>
    row
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] as number) : cell.padStart(widths[i] as number)))
      .join('  ')
      .trimEnd(),
  );
}

function row(e: TuneEntry, perfectHours: number, mark: string): string[] {
  const s = e.score;
  const ratio = perfectHours > 0 ? `${(s.instance_hours / perfectHours).toFixed(2)}x` : '-';
  return [
    `${mark} ${e.label}`,
    `${pct(s.slo_attainment)} (${s.windows - s.windows_outside_slo}/${s.windows})`,
    pct(s.request_attainment),
    String(s.overflows),
    hours(s.instance_hours),
    ratio,
    String(s.peak_instances),
  ];
}

/** Why the chosen entry: the rule, and what it reached against the requirement. */
export function tuneChoiceLine(a: TuneArtifact): string {
  const c = a.chosen;
  const req = pct(a.settings.required_slo_attainment);
  if (a.chosen_holds) {
    const holding = a.candidates.filter(
      (e) => e.score.slo_attainment >= a.settings.required_slo_attainment,
    ).length;
    return `chosen: ${c.label}: the fewest instance-hours (${hours(c.score.instance_hours)}) of the ${holding} candidates holding at least ${req} of windows (it holds ${pct(c.score.slo_attainment)}; computed)`;
  }
  return `NO CANDIDATE HOLDS: none of the ${a.candidates.length} candidates (pre-scaled ones included) keeps ${req} of windows inside the SLO on this trace; the best, ${c.label}, holds ${pct(c.score.slo_attainment)} (computed). The fleet cannot follow this traffic with these measurements: more minimum instances, scheduled capacity, a faster start-up (T_total) or a lower required attainment (--required-attainment).`;
}

export function renderTuneReport(a: TuneArtifact, file: string | null, svgFile: string | null): string {
  const perfect = a.perfect_fleet.score.instance_hours;
  const t = a.trace;
  const lines = [
    `tune: ${a.model_name}, trace ${t.source} (sha256 ${t.sha256.slice(0, 12)}, ${t.kind}, ${t.duration_s} s, ${t.requests} requests, peak ${t.peak_rps} / mean ${Number(t.mean_rps.toFixed(3))} requests/s${t.start ? `, from ${t.start}` : ''})`,
    `settings: SLO p95 TTFAB ${a.settings.slo_ms} ms per ${a.settings.window_s} s window (at most ${pct(a.settings.max_overflow_probability)} overflow), required ${pct(a.settings.required_slo_attainment)} of windows; lambda_safe ${a.settings.lambda_safe_rps} requests/s and T_plan ${a.settings.t_plan_s} s (computed by the plan's method); alarms evaluated every ${a.settings.evaluation_interval_s} s (assumed)${metricDelays(a)}`,
    '',
    `candidates (every figure ${tuneProvenance(a)}; > chosen, * on the Pareto frontier of windows held vs instance-hours):`,
  ];
  const header = ['  policy', 'windows held', 'requests', 'overflows', 'inst-hours', 'vs perfect', 'peak'];
  const body = a.candidates.map((e) => row(e, perfect, sameEntry(e, a.chosen) ? '>' : e.pareto ? '*' : ' '));
  body.push(row(a.seed_rule, perfect, a.seed_rule.pareto ? '*' : ' '));
  const perfectRow = row(a.perfect_fleet, perfect, ' ');
  perfectRow[4] = `>= ${perfectRow[4]}`;
  body.push(perfectRow);
  lines.push(...pad([header, ...body]));
  lines.push(
    '',
    `perfect fleet: ${hours(perfect)} instance-hours is a LOWER BOUND on the cost of any policy that holds each instance at or below lambda_safe on this trace (${a.perfect_fleet.note}); a policy below it lets its instances run hotter or falls behind the trace`,
    `seed rule: ${a.seed_rule.note}`,
    tuneChoiceLine(a),
    `chosen policy (${a.chosen.note}): ${a.chosen.policy ? policyLine(a.chosen) : 'none'}`,
  );
  const actions = a.chosen.policy?.scheduled_actions ?? [];
  for (const action of actions) {
    lines.push(
      `  scheduled ${action.name}: ${action.schedule} UTC -> min ${action.min_capacity}, max ${action.max_capacity}`,
    );
  }
  if (file) lines.push(`wrote ${file}${svgFile ? ` and ${svgFile}` : ''}`);
  return lines.join('\n');
}

const sameEntry = (x: TuneEntry, y: TuneEntry): boolean => x.label === y.label && x.note === y.note;

function policyLine(e: TuneEntry): string {
  const p = e.policy;
  if (!p) return 'none';
  const step = p.step_scale_out
    ? `; step scale-out +${p.step_scale_out.steps[0]?.adjustment ?? 0} % above ${p.step_scale_out.threshold}`
    : '';
  return `${p.scaling_metric} target ${p.target_value}, scale-in at ${p.scale_in_threshold}, instances ${p.min_instances}..${p.max_instances}, cooldowns out ${p.scale_out_cooldown_s} s / in ${p.scale_in_cooldown_s} s${step}`;
}

/** The publication delays the simulation gave each tracked metric, when recorded. */
function metricDelays(a: TuneArtifact): string {
  const delays = Object.entries(a.settings.metric_delay_s ?? {});
  if (delays.length === 0) return '';
  const each = delays.map(([metric, s]) => `${metric} ${s} s`).join(', ');
  return `, each datapoint reaching them after ${each} (computed: the plan's policy lag less the scale-out alarm's own periods)`;
}
