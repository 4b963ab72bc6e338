/**
 * The terminal reports of `scalegate drill`: the dry run (schedule, duration, instance-minutes,
 * cost), a shard's recording, and a whole drill (phases, the measured policy lag step by step,
 * predicted against observed, the windows, the verdict). Every figure says where it comes from.
 */

import type { DrillEstimate } from '../analysis/drill.js';
import type {
  DrillArtifact,
  DrillPhase,
  DrillPrediction,
  DrillSettings,
  DrillShardArtifact,
  DrillWindow,
  Shard,
} from '../model/index.js';
import { drillIcLines, drillStartText } from './drill-ic-text.js';
import {
  drillSloCriterion,
  drillStallText,
  drillSteadyBasis,
  drillVerdictLine,
  drillVerdictText,
} from './drill-verdict.js';
import { loadOriginLines } from './vantage-text.js';

const s1 = (v: number | null | undefined): string =>
  v === null || v === undefined ? 'n/a' : `${Number(v.toFixed(1))} s`;
const pct = (p: number | null | undefined): string =>
  p === null || p === undefined ? 'n/a' : `${(p * 100).toFixed(1)} %`;
const ms = (v: number | null): string => (v === null ? '-' : v.toFixed(1));

function table(rows: ReadonlyArray<readonly [string, string]>, indent = '  '): string {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `${indent}${label.padEnd(width)}  ${value}`).join('\n');
}

function phaseLines(phases: readonly DrillPhase[], shard: Shard): string[] {
  return phases.map(
    (p) =>
      `  ${p.name.padEnd(7)} ${`${p.start_s}-${p.end_s} s`.padEnd(13)} ${p.rate_rps.toFixed(2).padStart(9)} requests/s${shard.count > 1 ? ` (this shard ${(p.rate_rps / shard.count).toFixed(2)})` : ''}  ${p.rate_source}`,
  );
}

export interface DrillDryRun {
  modelName: string;
  endpoint: string;
  phases: readonly DrillPhase[];
  settings: DrillSettings;
  prediction: DrillPrediction;
  estimate: DrillEstimate;
  shard: Shard;
  /** An inference component's drill: start_instances counts copies (the estimate's instances hold them). */
  copies?: boolean;
}

export function renderDrillDryRun(d: DrillDryRun): string {
  const e = d.estimate;
  const lines = [
    `drill dry run: ${d.modelName} on endpoint ${d.endpoint}, surge ratio ${d.settings.surge_ratio}, ${d.settings.start_instances} ${d.copies ? 'copies' : 'instance(s)'} at the start, SLO p95 TTFAB ${d.settings.slo_ms} ms`,
    'phases (open-loop Poisson arrivals, rates for the whole drill)',
    ...phaseLines(d.phases, d.shard),
    `duration: ${e.durationS} s (${(e.durationS / 60).toFixed(1)} min), about ${e.arrivals} requests`,
    `instance-minutes: ${e.instanceMinutes.toFixed(1)} (estimate: ${d.settings.start_instances} instance(s) in the steady phase, ${e.fleetAfterSurge} from the surge on)`,
    `estimated cost: ${e.costUsd === null ? 'n/a (no instance_hourly_usd in the model config)' : `$${e.costUsd.toFixed(2)} at $${e.hourlyUsd}/instance-hour`}`,
    `plan: T_plan ${s1(d.prediction.t_plan_s)} = T_total ${s1(d.prediction.t_total_s)} (${d.prediction.t_total_origin}) + policy lag ${s1(d.prediction.policy_lag_s)} (${d.prediction.policy_lag_origin})`,
    'the drill freezes nothing: the endpoint scales under its own policy throughout.',
    'no AWS call was made.',
  ];
  return lines.join('\n');
}

export function renderDrillShardReport(a: DrillShardArtifact, file: string): string {
  const offered = a.load_seconds.reduce((s, x) => s + x.offered, 0);
  const overflow = a.load_seconds.reduce((s, x) => s + x.overflow, 0);
  return [
    `scalegate drill ${a.model_name}: shard ${a.shard.index}/${a.shard.count} recorded (not judged: merge every shard with \`scalegate drill merge\`)`,
    `  endpoint ${a.endpoint}, plan run ${a.plan_run_id}, drill run ${a.run_id}, from ${a.histograms.start_at}`,
    `  this shard: ${offered} arrivals, ${overflow} overflow(s)${a.observer ? `, observer: ${a.observer.observations.length} polls, ${a.observer.transitions.length} alarm transition(s), ${a.observer.activities.length} scaling activit(ies)` : ''}`,
    `wrote ${file}`,
  ].join('\n');
}

/** The windows worth printing: all of them for a short drill, else only those not ok. */
function windowLines(windows: readonly DrillWindow[], sloMs: number): string[] {
  const notOk = (w: DrillWindow) => w.judged === 'broken' || w.judged === 'predicted' || w.slo_held === false;
  const shown = windows.length <= 40 ? windows : windows.filter(notOk);
  const slo = (w: DrillWindow): string =>
    w.slo_held === true ? 'held' : w.slo_held === false ? 'BROKEN' : w.slo_held === null ? '-' : 'n/a';
  const lines = [
    `windows (p95 TTFAB from the intended send time, HDR; SLO ${sloMs} ms)${shown.length < windows.length ? `: the ${shown.length} not ok of ${windows.length}` : ''}`,
    `  ${'phase'.padEnd(7)} ${'window'.padEnd(12)} ${'offered'.padStart(7)} ${'p95 ms'.padStart(9)} ${'in SLO'.padStart(7)} ${'503'.padStart(5)}  ${'SLO'.padEnd(6)}  plan`,
  ];
  for (const w of shown) {
    const why = [
      w.slo_held === false && w.slo_reason ? `SLO: ${w.slo_reason}` : '',
      w.judged === 'broken' || w.judged === 'predicted' ? `plan: ${w.reason}` : '',
    ]
      .filter(Boolean)
      .join('; ');
    lines.push(
      `  ${(w.phase ?? '-').padEnd(7)} ${`${w.start_s}-${w.end_s} s`.padEnd(12)} ${String(w.offered).padStart(7)} ${ms(w.p95_ms).padStart(9)} ${(w.within_slo_fraction === null ? '-' : `${(w.within_slo_fraction * 100).toFixed(1)}%`).padStart(7)} ${String(w.overflow).padStart(5)}  ${slo(w).padEnd(6)}  ${w.judged}${why ? `: ${why}` : ''}`,
    );
  }
  return lines;
}

export function renderDrillReport(a: DrillArtifact, file: string | null): string {
  const p = a.prediction;
  const lag = a.analysis.policy_lag;
  const first = a.analysis.scale_outs.find((c) => c.policy_lag_s !== null) ?? null;
  const lines: string[] = [];
  const v = drillVerdictText(a);
  lines.push(
    `scalegate drill ${a.model_name}: ${a.verdict.toUpperCase()} — ${v.summary}${v.explanation ? ` (${v.explanation})` : ''}; surge ratio ${a.settings.surge_ratio}, ${drillStartText(a)} at the start`,
  );
  lines.push(
    `  endpoint ${a.endpoint} (${a.region}), plan ${a.plan_file} (run ${a.plan_run_id}), drill run ${a.run_id}, ${a.shards.length} shard(s), from ${a.histograms.start_at}`,
  );
  lines.push(...loadOriginLines(a.vantage, a.fingerprint.request).map((l) => `  ${l}`));
  lines.push(
    a.policy.verdict === 'clean'
      ? `  deployed policy: the plan's (validate clean, ${a.policy.compared} parameters)`
      : `  deployed policy: NOT the plan's (${a.policy.differences.length} parameter(s) differ; drilled with --allow-policy-mismatch)`,
  );
  for (const row of a.policy.differences.slice(0, 8)) {
    lines.push(
      `    ${row.parameter}: plan ${JSON.stringify(row.expected)}, deployed ${JSON.stringify(row.deployed)}`,
    );
  }
  lines.push(...drillIcLines(a));
  lines.push('', 'phases (open-loop Poisson arrivals)', ...phaseLines(a.phases, { index: 0, count: 1 }));
  lines.push(`  steady load: ${drillSteadyBasis(a)}`);
  lines.push('', 'measured');
  const rows: Array<[string, string]> = [
    [
      'policy lag (measured)',
      lag.seconds === null ? `not measured: ${lag.detail}` : `${s1(lag.seconds)}: ${lag.detail}`,
    ],
  ];
  if (first) {
    rows.push([
      'alarm detection (measured)',
      `${s1(first.detection_s)} from the first breaching period to ALARM; configured ${s1(first.configured_detection_s)} (datapoints x period, computed from the deployed alarm)`,
    ]);
    rows.push([
      'scale-out to in service (measured)',
      `${s1(first.scale_out_s)} (${first.from_instances} -> ${first.to_instances} ${a.inference_component ? 'copies' : 'instances'})`,
    ]);
  }
  rows.push([
    'time until the SLO holds again (measured)',
    a.analysis.slo_recovered_s === null ? 'never within the drill' : s1(a.analysis.slo_recovered_s),
  ]);
  const st = a.analysis.steady;
  rows.push([
    'fleet when the surge began',
    st.desired_at_surge === null
      ? 'not observed'
      : `desired ${st.desired_at_surge}, current ${st.current_at_surge}, ${st.settled_at_surge ? 'settled' : 'NOT settled'}${st.scaled_during ? ' (the policy scaled during the steady phase)' : ''}`,
  ]);
  rows.push(['scale-in', a.analysis.scale_in.detail]);
  lines.push(table(rows));
  const o = a.analysis.observed;
  const criterion = drillSloCriterion(a);
  const stallText = drillStallText(a);
  lines.push('', 'the SLO (the verdict)');
  lines.push(
    table([
      [
        'SLO held',
        a.slo_held === undefined
          ? 'not recorded (a drill from an older scalegate)'
          : a.slo_held
            ? `yes, in all ${a.slo?.windows_judged ?? 'n/a'} full steady and surge windows`
            : `no: broken in ${a.slo?.broken_windows.length ?? 'n/a'} of ${a.slo?.windows_judged ?? 'n/a'} full steady and surge windows (steady ${a.slo?.broken_by_phase.steady ?? 'n/a'}, surge ${a.slo?.broken_by_phase.surge ?? 'n/a'})`,
      ],
      ['a window holds when', criterion ?? 'not recorded'],
      ...(stallText ? [['playback stall p95 by phase', stallText] as [string, string]] : []),
      [
        'as the plan predicted',
        a.as_predicted === undefined
          ? 'not recorded'
          : a.as_predicted
            ? 'yes: no window beyond what the plan predicted'
            : `no: ${a.broken_windows.length} window(s) beyond what the plan predicted`,
      ],
    ]),
  );
  lines.push('', 'predicted (plan) vs observed (drill)');
  lines.push(
    table([
      [
        'policy lag',
        `${s1(p.policy_lag_s)} (${p.policy_lag_origin}) vs ${lag.seconds === null ? 'not measured' : `${s1(lag.seconds)} (measured)`}`,
      ],
      ['T_plan = T_total + lag', `${s1(p.t_plan_s)} (T_total ${s1(p.t_total_s)}, ${p.t_total_origin})`],
      [
        'overflow within T_plan of the surge',
        `${pct(p.surge_overflow_probability)} probability (computed, k = ${p.planned_surge_ratio}) vs ${o.surge_overflowed_within_t_plan ? 'overflowed' : 'no overflow'} (k = ${a.settings.surge_ratio})`,
      ],
      [
        'overflow with no surge (steady)',
        `${pct(p.baseline_overflow_probability)} probability (computed) vs ${o.overflows.steady} overflow(s) in the steady phase`,
      ],
      [
        'overflows by phase',
        `steady ${o.overflows.steady}, surge ${o.overflows.surge}, trough ${o.overflows.trough}`,
      ],
      [
        'full windows over the SLO',
        `steady ${o.windows_over_slo.steady}, surge ${o.windows_over_slo.surge}, trough ${o.windows_over_slo.trough}`,
      ],
      ...(o.instance_minutes == null
        ? []
        : [
            [
              'instance-minutes (steady + surge)',
              `${o.instance_minutes.toFixed(2)} (measured: the endpoint's instance count between polls)`,
            ] as [string, string],
          ]),
    ]),
  );
  lines.push('', ...windowLines(a.analysis.windows, a.settings.slo_ms));
  if (a.failures.length > 0) {
    lines.push('', 'failed requests (other than overflows), by kind:');
    for (const f of a.failures)
      lines.push(`  ${f.count} x ${f.outcome} (first at ${f.first_t} s): ${f.error}`);
  }
  if (a.observer && a.observer.errors.length > 0) {
    lines.push('', 'observer errors (what they would have shown is missing):');
    for (const e of a.observer.errors) lines.push(`  ${e}`);
  }
  for (const note of a.notes) lines.push(`note: ${note}`);
  lines.push('', `verdict: ${drillVerdictLine(a)}`);
  for (const r of a.analysis.reasons) lines.push(`  ${r}`);
  const where = (ws: readonly DrillWindow[]) =>
    ws.map((w) => `${w.phase} ${w.start_s}-${w.end_s} s`).join(', ');
  const outside = a.analysis.windows.filter((w) => w.slo_held === false);
  if (outside.length > 0) lines.push(`  windows outside the SLO: ${where(outside)}`);
  const beyond = a.analysis.windows.filter((w) => w.judged === 'broken');
  if (beyond.length > 0) lines.push(`  broken windows (beyond what the plan predicted): ${where(beyond)}`);
  if (file) lines.push('', `wrote ${file}`);
  return `${lines.join('\n')}\n`;
}
