/**
 * The drill in Markdown (PR comment and job summary): the verdict (whether the SLO held) with
 * what the plan predicted beside it, and why, the policy lag step
 * by step, predicted against observed, a timeline as Mermaid charts (p95 TTFAB per window against
 * the SLO; offered and achieved rate; desired and current instances), the alarm transitions and
 * scaling activities, and every window that broke the plan's promise. Also the plan's own
 * "predicted vs observed" block after `plan --drill` (text and Markdown). Pure; everything from
 * an artifact is escaped.
 */

import type { DrillArtifact, PlanArtifact } from '../model/index.js';
import { niceCeiling } from './chart-svg.js';
import { drillStartText, fromZeroRows } from './drill-ic-text.js';
import { drillSloCriterion, drillStallText, drillSteadyBasis, drillVerdictText } from './drill-verdict.js';
import { codeSpan, escapeMarkdown, inlineMarkdown, markdownTable, mermaidText } from './escape-md.js';

export interface LocatedDrill {
  artifact: DrillArtifact;
  file: string | null;
}

const s1 = (v: number | null | undefined): string =>
  v === null || v === undefined ? 'n/a' : `${Number(v.toFixed(1))} s`;
const pct = (p: number | null | undefined): string =>
  p === null || p === undefined ? 'n/a' : `${(p * 100).toFixed(1)} %`;
const num = (n: number): string => {
  const r = Math.round(n * 10) / 10;
  return Number.isFinite(r) ? `${r}` : '0';
};

type Comparison = NonNullable<PlanArtifact['drill_comparison']>;

/** The plan's predicted-vs-observed block after `plan --drill`, as terminal lines or Markdown lines. */
export function renderDrillComparison(c: Comparison, format: 'text' | 'md'): string[] {
  const rows: Array<[string, string]> = [
    [
      'policy lag',
      `predicted ${s1(c.policy_lag_predicted_s)} (${c.policy_lag_predicted_origin}), measured ${s1(c.policy_lag_observed_s)} (now used: T_plan follows it)`,
    ],
    ['T_plan before the drill', s1(c.t_plan_predicted_s)],
    [
      `overflow within T_plan (k = ${c.surge_ratio})`,
      `predicted ${pct(c.surge_overflow_predicted)} (computed), observed ${c.surge_overflow_observed ? 'yes' : 'no'} (${c.overflows_observed} overflow(s) in the steady and surge phases)`,
    ],
    [
      'time until the SLO held again',
      c.slo_recovered_s === null ? 'never within the drill' : s1(c.slo_recovered_s),
    ],
    [
      'drill verdict',
      `${c.verdict}${c.slo_held === undefined || c.slo_held === null ? ' (the drill predates the SLO verdict: whether the SLO held is not recorded)' : c.slo_held ? ' (the SLO held)' : ' (the SLO broke)'}${c.broken_windows > 0 ? `; ${c.broken_windows} window(s) beyond what the plan predicted` : c.as_predicted === true ? '; as the plan predicted' : ''} (drill run ${c.drill_run_id}, drilled plan run ${c.drilled_plan_run_id})`,
    ],
  ];
  if (format === 'text') {
    const width = Math.max(...rows.map(([k]) => k.length));
    return ['drill (predicted vs observed)', ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)];
  }
  return [
    '### Drill: predicted vs observed',
    '',
    markdownTable(
      ['', 'value'],
      rows.map(([k, v]) => [escapeMarkdown(k), escapeMarkdown(v)]),
    ),
  ];
}

/** At most `max` points: consecutive windows merged, keeping the worst (largest) value. */
function downsample<T>(items: readonly T[], max: number, merge: (group: T[]) => T): T[] {
  if (items.length <= max) return [...items];
  const size = Math.ceil(items.length / max);
  const out: T[] = [];
  for (let i = 0; i < items.length; i += size) out.push(merge(items.slice(i, i + size)));
  return out;
}

function timelineCharts(a: DrillArtifact): string[] {
  const slo = a.settings.slo_ms;
  const windows = downsample(
    a.analysis.windows.map((w) => ({
      start: w.start_s,
      p95: w.p95_ms ?? 0,
      offered: w.offered,
      ok: w.ok,
      w,
    })),
    60,
    (g) => ({
      start: (g[0] as { start: number }).start,
      p95: Math.max(...g.map((x) => x.p95)),
      offered: g.reduce((s, x) => s + x.offered, 0) / g.length,
      ok: g.reduce((s, x) => s + x.ok, 0) / g.length,
      w: (g[0] as { w: DrillArtifact['analysis']['windows'][number] }).w,
    }),
  );
  if (windows.length === 0) return [];
  const labels = windows.map((w) => `"${num(w.start)}"`).join(', ');
  const top = niceCeiling(Math.min(slo * 3, Math.max(slo * 1.2, ...windows.map((w) => w.p95))));
  const perS = a.settings.window_s;
  const rateTop = niceCeiling(Math.max(1, ...windows.map((w) => w.offered / perS)));
  const out = [
    '```mermaid',
    'xychart-beta',
    `    title "${mermaidText(`p95 TTFAB per window vs SLO ${num(slo)} ms`)}"`,
    `    x-axis "seconds from the start" [${labels}]`,
    `    y-axis "p95 TTFAB (ms)" 0 --> ${num(top)}`,
    `    line [${windows.map((w) => num(Math.min(w.p95, top))).join(', ')}]`,
    `    line [${windows.map(() => num(slo)).join(', ')}]`,
    '```',
    '',
    '```mermaid',
    'xychart-beta',
    `    title "offered and answered requests/s per window"`,
    `    x-axis "seconds from the start" [${labels}]`,
    `    y-axis "requests/s" 0 --> ${num(rateTop)}`,
    `    line [${windows.map((w) => num(w.offered / perS)).join(', ')}]`,
    `    line [${windows.map((w) => num(w.ok / perS)).join(', ')}]`,
    '```',
  ];
  const obs = (a.observer?.observations ?? []).filter((o) => o.t_s >= 0);
  if (obs.length > 0) {
    const points = windows.map((w) => {
      const at = [...obs].reverse().find((o) => o.t_s <= w.start + perS) ?? obs[0];
      return { desired: at?.desired ?? 0, current: at?.current ?? 0 };
    });
    const instTop = Math.max(2, ...points.map((p) => Math.max(p.desired, p.current))) + 1;
    out.push(
      '',
      '```mermaid',
      'xychart-beta',
      `    title "desired (bars) and current (line) instances"`,
      `    x-axis "seconds from the start" [${labels}]`,
      `    y-axis "instances" 0 --> ${instTop}`,
      `    bar [${points.map((p) => p.desired).join(', ')}]`,
      `    line [${points.map((p) => p.current).join(', ')}]`,
      '```',
    );
  }
  out.push(
    '',
    `First chart: p95 TTFAB from the intended send time per window (rising line) and the SLO (flat line)${top < Math.max(...windows.map((w) => w.p95)) ? `; values above ${num(top)} ms drawn at ${num(top)} ms` : ''}. Second: offered and answered requests/s. Phases: ${a.phases.map((p) => `${p.name} ${p.start_s}-${p.end_s} s`).join(', ')}.`,
  );
  return out;
}

export function drillSection(d: LocatedDrill): string[] {
  const a = d.artifact;
  const p = a.prediction;
  const lag = a.analysis.policy_lag;
  const first = a.analysis.scale_outs.find((c) => c.policy_lag_s !== null) ?? null;
  const o = a.analysis.observed;
  const v = drillVerdictText(a);
  const criterion = drillSloCriterion(a);
  const stallText = drillStallText(a);
  const out: string[] = [
    `**${v.verdict}**: ${escapeMarkdown(v.summary)}${v.explanation ? ` (${escapeMarkdown(v.explanation)})` : ''}.`,
    '',
    `Surge **x${a.settings.surge_ratio}** on ${codeSpan(a.endpoint)} from ${drillStartText(a)}, plan run ${codeSpan(a.plan_run_id)}; ` +
      (a.policy.verdict === 'clean'
        ? "the deployed policy is the plan's (validate clean)."
        : `the deployed policy is **not** the plan's: ${a.policy.differences.length} parameter(s) differ (drilled with \`--allow-policy-mismatch\`).`),
    `Steady load: ${escapeMarkdown(drillSteadyBasis(a))}.`,
    ...(criterion ? [`A window holds the SLO when ${escapeMarkdown(criterion)}.`] : []),
    '',
  ];
  for (const r of a.analysis.reasons) out.push(`- ${inlineMarkdown(r)}`);
  const fromZero = a.inference_component?.from_zero;
  if (fromZero) {
    out.push(
      '',
      `### Drill: from zero (component ${codeSpan(a.inference_component?.component ?? '')}, before the schedule)`,
      '',
      markdownTable(
        ['', 'value'],
        fromZeroRows(fromZero).map(([k, v]) => [escapeMarkdown(k), inlineMarkdown(v, { inTable: true })]),
      ),
    );
  }
  out.push('', '### Drill: measured');
  out.push(
    '',
    markdownTable(
      ['', 'value'],
      [
        [
          'policy lag (measured)',
          lag.seconds === null ? `not measured: ${lag.detail}` : `${s1(lag.seconds)}: ${lag.detail}`,
        ],
        [
          'alarm detection (measured)',
          first
            ? `${s1(first.detection_s)} vs ${s1(first.configured_detection_s)} configured (datapoints x period, computed)`
            : 'n/a',
        ],
        [
          'scale-out to in service (measured)',
          first ? `${s1(first.scale_out_s)} (${first.from_instances} → ${first.to_instances})` : 'n/a',
        ],
        [
          'time until the SLO holds again (measured)',
          a.analysis.slo_recovered_s === null ? 'never within the drill' : s1(a.analysis.slo_recovered_s),
        ],
        ['scale-in', a.analysis.scale_in.detail],
      ].map(([k, v]) => [escapeMarkdown(k), inlineMarkdown(v as string, { inTable: true })]),
    ),
    '',
    '### Drill: predicted (plan) vs observed',
    '',
    markdownTable(
      ['', 'predicted', 'observed'],
      [
        [
          'the SLO held',
          'every full steady and surge window',
          a.slo_held === undefined
            ? 'not recorded (an older drill)'
            : a.slo_held
              ? `yes (${a.slo?.windows_judged ?? 'n/a'} windows)`
              : `no: ${a.slo?.broken_windows.length ?? 'n/a'} of ${a.slo?.windows_judged ?? 'n/a'} windows broke it`,
        ],
        [
          'as the plan predicted',
          'no window beyond the plan',
          a.as_predicted === undefined
            ? 'not recorded'
            : a.as_predicted
              ? 'yes'
              : `no: ${a.broken_windows.length} window(s) beyond it`,
        ],
        [
          'policy lag',
          `${s1(p.policy_lag_s)} (${p.policy_lag_origin})`,
          lag.seconds === null ? 'n/a' : `${s1(lag.seconds)} (measured)`,
        ],
        [
          'overflow within T_plan of the surge',
          `${pct(p.surge_overflow_probability)} (computed, k = ${p.planned_surge_ratio})`,
          `${o.surge_overflowed_within_t_plan ? 'yes' : 'no'} (k = ${a.settings.surge_ratio}; ${o.overflows.surge} in the surge)`,
        ],
        [
          'overflow with no surge',
          `${pct(p.baseline_overflow_probability)} (computed)`,
          `${o.overflows.steady} overflow(s) in the steady phase`,
        ],
        ['T_plan', `${s1(p.t_plan_s)} (T_total ${s1(p.t_total_s)} ${p.t_total_origin})`, ''],
        ...(stallText
          ? [
              [
                'playback stall p95 by phase',
                a.slo?.underrun_slo_ms ? `<= ${a.slo.underrun_slo_ms} ms (underrun SLO)` : 'not judged',
                stallText,
              ],
            ]
          : []),
      ].map((r) => r.map((c) => escapeMarkdown(c))),
    ),
    '',
    ...timelineCharts(a),
  );
  const transitions = a.observer?.transitions ?? [];
  const activities = a.observer?.activities ?? [];
  if (transitions.length > 0 || activities.length > 0) {
    out.push(
      '',
      '### Drill: alarm transitions and scaling activities',
      '',
      markdownTable(
        ['at', 'what'],
        [
          ...transitions.map((t) => ({ at: t.t_s, what: `${t.alarm}: ${t.from} → ${t.to}` })),
          ...activities.map((x) => ({ at: x.start_s, what: `${x.description} (${x.status})` })),
        ]
          .sort((x, y) => x.at - y.at)
          .map((r) => [escapeMarkdown(s1(r.at)), escapeMarkdown(r.what)]),
      ),
    );
  }
  const bad = a.analysis.windows.filter(
    (w) => w.judged === 'broken' || w.judged === 'predicted' || w.slo_held === false,
  );
  if (bad.length > 0) {
    const outside = bad.filter((w) => w.slo_held === false).length;
    const sloCell = (w: (typeof bad)[number]): string =>
      w.slo_held === false
        ? `🛑 **broken**: ${inlineMarkdown(w.slo_reason ?? '', { inTable: true })}`
        : w.slo_held === true
          ? '✅ held'
          : 'n/a';
    const planCell = (w: (typeof bad)[number]): string =>
      w.judged === 'broken'
        ? `⚠️ **beyond the plan**: ${inlineMarkdown(w.reason ?? '', { inTable: true })}`
        : w.judged === 'predicted'
          ? `predicted by the plan: ${inlineMarkdown(w.reason ?? '', { inTable: true })}`
          : 'ok';
    out.push(
      '',
      `### Drill: windows over the SLO or with overflows (${a.slo_held === undefined ? 'SLO not judged' : `${outside} outside the SLO`}; ${a.broken_windows.length} beyond what the plan predicted, ${bad.filter((w) => w.judged === 'predicted').length} predicted)`,
      '',
      markdownTable(
        ['window', 'phase', 'p95 (ms)', 'in SLO', '503', 'SLO', 'plan'],
        bad
          .slice(0, 40)
          .map((w) => [
            escapeMarkdown(`${w.start_s}-${w.end_s} s`),
            escapeMarkdown(w.phase ?? '-'),
            escapeMarkdown(w.p95_ms === null ? '-' : w.p95_ms.toFixed(1)),
            escapeMarkdown(pct(w.within_slo_fraction)),
            `${w.overflow}`,
            sloCell(w),
            planCell(w),
          ]),
      ),
    );
    if (bad.length > 40) out.push('', `(${bad.length - 40} more in the artifact)`);
  }
  if (d.file) out.push('', `Artifact ${codeSpan(d.file)}.`);
  return out;
}
