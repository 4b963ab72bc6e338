import { isLowerBound } from '../analysis/ttotal.js';
import {
  type DriftArtifact,
  type DrillArtifact,
  type Finding,
  type Fingerprint,
  fingerprintSlug,
  type GoodputArtifact,
  type PlanArtifact,
  type QmaxArtifact,
  type TtotalArtifact,
  type ValidateArtifact,
} from '../model/index.js';
import type { ConfigWeakening } from '../plan/config-weakening.js';
import { renderTtfabMermaid } from './chart-md.js';
import { goodputContinuityMarkdown, qmaxContinuityMarkdown } from './continuity-markdown.js';
import { codeSpan, escapeMarkdown, inlineMarkdown, markdownTable } from './escape-md.js';
import { offlineLabel } from './gate-text.js';
import { perCopyLines } from './goodput-text.js';
import {
  planHoldText,
  planPolicyLagLabel,
  planQmaxProvenance,
  planTtotalLabel,
  policyLagLabel,
  serviceTimeNote,
  tTotalValue,
  ttotalPolicyLagOrigin,
} from './labels.js';
import { lambdaMaxText, regionText } from './plan-text.js';
import { SCALE_IN_UNITS, targetUnits } from './policy-text.js';
import { rttFloorText, vantageLabel } from './vantage-text.js';

export interface Located<A> {
  artifact: A;
  /** Where it was read from or written to (shown escaped), null when unknown. */
  file: string | null;
}

/** What `scalegate gate` decides, in the shape of src/plan/gate.ts's GateResult. */
export interface GateOutcome {
  passed: boolean;
  checks: ReadonlyArray<{ check: string; ok: boolean; detail: string; fix: string | null }>;
  /** Why attestations were not verified (src/plan/gate-report.ts); null or absent when they were. */
  offline?: 'requested' | 'local' | null;
}

export interface RunInfo {
  /** GITHUB_RUN_ID (decimal string). */
  id: string;
  attempt: number;
  /** ISO-8601 time the report was made. */
  at: string;
  /** Link to the workflow run, when known. */
  url: string | null;
  /** The commit measured (head of the PR), when known. */
  sha: string | null;
}

export interface ReportInput {
  modelName: string;
  command: string;
  exitCode: number;
  version: string;
  /** A refused input (exit 2): the message, shown instead of results. */
  refused?: string | null;
  /** The command failed (an AWS error, an interrupted measurement): the message, exit 1 or 3. */
  error?: string | null;
  /** The failure is operational (an AWS call or the network, exit 3), not a finding. */
  operational?: boolean;
  plan?: Located<PlanArtifact> | null;
  qmax?: Located<QmaxArtifact> | null;
  ttotal?: Located<TtotalArtifact> | null;
  goodput?: Located<GoodputArtifact> | null;
  drift?: Located<DriftArtifact> | null;
  validate?: Located<ValidateArtifact> | null;
  drill?: Located<DrillArtifact> | null;
  gate?: GateOutcome | null;
  /** The base branch's plan for the same model, for "what changed". */
  basePlan?: { artifact: PlanArtifact; ref: string } | null;
  /** Why the base plan could not be compared (unreadable, invalid), when that happened. */
  baseNote?: string | null;
  /** The model's config entry changes (base branch -> this pull request) that weaken the release gate. */
  configWeakenings?: ConfigWeakening[] | null;
  /** The ref the config was compared with. */
  configBaseRef?: string | null;
  /** Why the base config could not be compared, when that happened. */
  configBaseNote?: string | null;
  /** The command's terminal report, shown (in a code block) when no richer section applies. */
  textReport?: string | null;
  run?: RunInfo | null;
}

const VERDICT_ICON: Record<string, string> = {
  ok: '✅',
  warn: '⚠️',
  stop: '🛑',
  suppressed: '➖',
  'preflight-ok': '✅',
  drift: '🛑',
  clean: '✅',
  mismatch: '🛑',
  match: '✅',
  missing: '🛑',
  extra: '⚠️',
  passed: '✅',
  refused: '🛑',
  failed: '🛑',
  'operational-error': '⛔',
  pass: '✅',
  fail: '🛑',
};

export const icon = (verdict: string): string => VERDICT_ICON[verdict] ?? '•';

/** Numbers as the terminal report prints them: up to `digits` decimals, no trailing zeros. */
export const fmt = (value: number | null | undefined, digits = 3): string =>
  value === null || value === undefined || !Number.isFinite(value)
    ? 'n/a'
    : Number(value.toFixed(digits)).toString();

/** Thresholds read as measurements: always at least one decimal (25.0, not 25). */
const threshold = (value: number | null): string =>
  value === null ? 'none' : Number.isInteger(value) ? value.toFixed(1) : fmt(value);

export function planVerdictText(plan: PlanArtifact): string {
  return plan.verdict === 'warn' ? `warn (${plan.warn_count})` : plan.verdict;
}

const shortDigest = (digest: string): string => (digest.length > 16 ? `${digest.slice(0, 12)}…` : digest);

function fingerprintCells(fp: Fingerprint): string[] {
  const env = Object.entries(fp.container_env);
  return [
    codeSpan(fingerprintSlug(fp), { inTable: true }),
    escapeMarkdown(fp.instance_type),
    codeSpan(shortDigest(fp.image_digest), { inTable: true }),
    escapeMarkdown(fp.region ?? 'not recorded'),
    env.length === 0 ? 'none' : env.map(([k, v]) => codeSpan(`${k}=${v}`, { inTable: true })).join(' '),
  ];
}

// ---------------------------------------------------------------------------------------------
// Sections

export function planSummary(plan: PlanArtifact): string {
  const d = plan.deployable;
  const parts = [
    d.scaling_target_value === null
      ? 'no deployable threshold (no CloudWatch/client ratio R was measured)'
      : `scale out at **${threshold(d.scaling_target_value)}** (CloudWatch ${escapeMarkdown(targetUnits(plan))}${plan.policy?.chosen_by ? `; ${escapeMarkdown(plan.policy.chosen_by.label)}` : ''}), scale in at **${threshold(d.scale_in_threshold)}** (${escapeMarkdown(SCALE_IN_UNITS[d.scaling_metric])})`,
    `**${d.min_instances}–${d.max_instances}** instances`,
    `queue depth **${d.queue_max_depth}**`,
    `Q_max **${plan.measured.q_max}** (${escapeMarkdown(planQmaxProvenance(plan.measured))})${plan.measured.lambda_max_rps == null ? '' : `, lambda_max **${fmt(plan.measured.lambda_max_rps, 2)}/s** (${plan.measured.lambda_max_bracketed ? 'measured' : 'lower bound'})`}, T_total **${tTotalValue(plan.measured.t_total_origin, `${fmt(plan.measured.t_total_s, 1)} s`)}** (${plan.measured.t_total_origin === 'lower-bound' ? 'LOWER BOUND' : escapeMarkdown(plan.measured.t_total_provenance ?? plan.measured.t_total_origin)})`,
  ];
  return `${parts.join(' · ')}.`;
}

interface DiffRow {
  label: string;
  base: string;
  head: string;
}

/** The parameters a reviewer cares about, base vs this PR; only those that differ. */
export function planChanges(base: PlanArtifact, head: PlanArtifact): DiffRow[] {
  const rows: Array<[string, string, string]> = [
    ['verdict', planVerdictText(base), planVerdictText(head)],
    ['Q_max', `${base.measured.q_max}`, `${head.measured.q_max}`],
    [
      'T_total (s)',
      tTotalValue(base.measured.t_total_origin, fmt(base.measured.t_total_s, 1)),
      tTotalValue(head.measured.t_total_origin, fmt(head.measured.t_total_s, 1)),
    ],
    [
      'target',
      threshold(base.deployable.scaling_target_value),
      threshold(head.deployable.scaling_target_value),
    ],
    [
      'scale-in threshold',
      threshold(base.deployable.scale_in_threshold),
      threshold(head.deployable.scale_in_threshold),
    ],
    ['min instances', `${base.deployable.min_instances}`, `${head.deployable.min_instances}`],
    ['max instances', `${base.deployable.max_instances}`, `${head.deployable.max_instances}`],
    ['queue depth', `${base.deployable.queue_max_depth}`, `${head.deployable.queue_max_depth}`],
    [
      'scale-out cooldown (s)',
      `${base.deployable.scale_out_cooldown_s}`,
      `${head.deployable.scale_out_cooldown_s}`,
    ],
    [
      'scale-in cooldown (s)',
      `${base.deployable.scale_in_cooldown_s}`,
      `${head.deployable.scale_in_cooldown_s}`,
    ],
    ['SLO (ms)', `${base.deployable.slo_ms}`, `${head.deployable.slo_ms}`],
    [
      'service-time alarm (ms)',
      fmt(base.deployable.service_time_alarm_ms),
      fmt(head.deployable.service_time_alarm_ms),
    ],
    ['measured on', fingerprintSlug(base.fingerprint), fingerprintSlug(head.fingerprint)],
  ];
  return rows.filter(([, b, h]) => b !== h).map(([label, b, h]) => ({ label, base: b, head: h }));
}

export function changesSection(input: ReportInput, plan: PlanArtifact): string[] {
  const out: string[] = [];
  if (input.basePlan) {
    const ref = codeSpan(input.basePlan.ref);
    const rows = planChanges(input.basePlan.artifact, plan);
    out.push(`### What changed against ${ref}`);
    if (rows.length === 0) {
      out.push('', `No change: the deployable values equal the plan on ${ref}.`);
    } else {
      out.push(
        '',
        rows
          .map(
            (r) =>
              `${escapeMarkdown(r.label, { lineStart: true })} ${escapeMarkdown(r.base)} → ${escapeMarkdown(r.head)}`,
          )
          .join(', '),
      );
      out.push(
        '',
        markdownTable(
          ['', escapeMarkdown(input.basePlan.ref), 'this PR'],
          rows.map((r) => [escapeMarkdown(r.label), escapeMarkdown(r.base), `**${escapeMarkdown(r.head)}**`]),
        ),
      );
    }
  } else if (input.baseNote) {
    out.push('### What changed', '', escapeMarkdown(input.baseNote, { lineStart: true }));
  }
  return out;
}

export function findingsSection(findings: readonly Finding[]): string[] {
  return [
    '### Findings',
    '',
    markdownTable(
      ['', 'finding', 'detail', 'fix'],
      findings.map((f) => [
        `${icon(f.verdict)} ${escapeMarkdown(f.verdict)}`,
        codeSpan(f.name, { inTable: true }),
        inlineMarkdown(f.detail, { inTable: true }),
        f.fix && f.verdict !== 'ok' ? inlineMarkdown(f.fix, { inTable: true }) : '',
      ]),
    ),
  ];
}

export function deployableSection(plan: PlanArtifact): string[] {
  const d = plan.deployable;
  const rows: Array<[string, string]> = [
    ['scaling_metric', targetUnits(plan)],
    ['min_instances', `${d.min_instances}`],
    ['max_instances', `${d.max_instances}`],
    [
      'scaling_target_value',
      d.scaling_target_value === null
        ? 'none (no R measured: not deployable)'
        : threshold(d.scaling_target_value),
    ],
    ['scale_in_threshold', `${threshold(d.scale_in_threshold)} (${SCALE_IN_UNITS[d.scaling_metric]})`],
    ['queue_max_depth', `${d.queue_max_depth}`],
    ['scale_out_cooldown_s', `${d.scale_out_cooldown_s}`],
    ['scale_in_cooldown_s', `${d.scale_in_cooldown_s}`],
    ['slo_ms', `${d.slo_ms}`],
    ['service_time_alarm_ms', fmt(d.service_time_alarm_ms)],
  ];
  return [
    '### Deployable values',
    '',
    markdownTable(
      ['parameter', 'value'],
      rows.map(([k, v]) => [codeSpan(k, { inTable: true }), escapeMarkdown(v)]),
    ),
  ];
}

const FP_HEADER = ['fingerprint', 'instance type', 'image digest', 'region', 'container env'];

export function planInputsSection(plan: PlanArtifact): string[] {
  const rows: string[][] = [];
  const q = plan.inputs.qmax;
  rows.push([
    'qmax',
    codeSpan(q.file, { inTable: true }),
    codeSpan(q.run_id, { inTable: true }),
    ...fingerprintCells(q.fingerprint),
  ]);
  const t = plan.inputs.ttotal;
  if (t) {
    rows.push([
      'ttotal',
      codeSpan(t.file, { inTable: true }),
      codeSpan(t.run_id, { inTable: true }),
      ...fingerprintCells(t.fingerprint),
    ]);
  } else {
    rows.push([
      'ttotal',
      `stated: ${fmt(plan.inputs.t_total_stated_s, 1)} s (not measured)`,
      '',
      '',
      '',
      '',
      '',
      '',
    ]);
  }
  const g = plan.inputs.goodput;
  if (g) {
    rows.push([
      'goodput',
      codeSpan(g.file, { inTable: true }),
      codeSpan(g.run_id, { inTable: true }),
      ...fingerprintCells(g.fingerprint),
    ]);
  }
  const m = plan.measured;
  const out = [
    '### Measured inputs',
    '',
    markdownTable(['', 'file', 'run', ...FP_HEADER], rows),
    '',
    markdownTable(
      ['measured', 'value'],
      [
        ['Q_max', `${m.q_max} in flight (${planQmaxProvenance(m)})`],
        ['region', regionText(plan)],
        ...(m.lambda_max_rps == null
          ? []
          : [['lambda_max (open loop)', lambdaMaxText(m.lambda_max_rps, m.lambda_max_bracketed ?? false)]]),
        ...(planHoldText(m) === null ? [] : [['rung holds', planHoldText(m) as string]]),
        ['S_mean / S_p95', `${fmt(m.s_mean_s, 4)} s / ${fmt(m.s_p95_s, 4)} s`],
        ['TTFAB p95 at concurrency 1', `${fmt(m.ttfab_p95_at_c1_ms, 1)} ms`],
        ['RTT floor (network leg)', rttFloorText(m.vantage)],
        ['vantage', vantageLabel(m.vantage)],
        [
          planTtotalLabel(m),
          `${tTotalValue(m.t_total_origin, `${fmt(m.t_total_s, 2)} s`)}${m.t_total_observations_s && m.t_total_observations_s.length > 1 ? ` (observed ${m.t_total_observations_s.map((v) => `${fmt(v, 1)} s`).join(', ')})` : ''}`,
        ],
        [planPolicyLagLabel(m), `${fmt(m.policy_lag_s, 1)} s`],
        [
          'CloudWatch/client ratio R',
          m.cw_ratio === null ? 'not measured' : `${m.cw_ratio.toFixed(3)} (rung ${m.cw_ratio_rung})`,
        ],
      ].map(([k, v]) => [escapeMarkdown(k), escapeMarkdown(v)]),
    ),
  ];
  for (const warning of plan.inputs.mismatch_warnings) out.push('', `> ⚠️ ${inlineMarkdown(warning)}`);
  return out;
}

export function qmaxInputSection(q: Located<QmaxArtifact>): string[] {
  const a = q.artifact;
  return [
    '### Measurement',
    '',
    markdownTable(
      ['', 'file', 'run', 'measured at', ...FP_HEADER],
      [
        [
          'qmax',
          q.file ? codeSpan(q.file, { inTable: true }) : 'n/a',
          codeSpan(a.run_id, { inTable: true }),
          escapeMarkdown(a.measured_at),
          ...fingerprintCells(a.fingerprint),
        ],
      ],
    ),
    '',
    `SLO ${fmt(a.slo_ms)} ms · transport ${codeSpan(a.transport)} · S_mean ${fmt(a.s_mean_s, 4)} s · S_p95 ${fmt(a.s_p95_s, 4)} s · ${a.ladder.runs} ladder run(s) · ${a.steps.length} rungs${a.frozen ? ' · scaling frozen' : ''}`,
    ...(serviceTimeNote(a) ? ['', `> ⚠️ S_mean/S_p95 ${escapeMarkdown(serviceTimeNote(a) as string)}`] : []),
    ...qmaxContinuityMarkdown(a),
  ];
}

export function goodputSection(g: Located<GoodputArtifact>): string[] {
  const a = g.artifact;
  const ms = (v: number | null) => (v === null ? '-' : fmt(v, 1));
  return [
    '### Open-loop ladder (Poisson arrivals)',
    '',
    `SLO p95 TTFAB ${fmt(a.slo_ms)} ms from the intended send time · overflows <= ${fmt(a.limits.max_overflow_fraction * 100, 2)} %, errors <= ${fmt(a.limits.max_error_fraction * 100, 2)} % · transport ${codeSpan(a.transport)} · hold ${fmt(a.ladder.hold_s)} s${g.file ? ` · ${codeSpan(g.file)}` : ''}`,
    '',
    // An inference component: lambda_max per copy (computed) and how the copies share the device.
    ...(a.inference_component
      ? [
          perCopyLines(a)
            .map((l) => escapeMarkdown(l))
            .join(' · '),
          '',
        ]
      : []),
    markdownTable(
      ['rate/s', 'verdict', 'p95 ms', '95 % CI ms', 'sent/s', 'ok/s', '503 %', 'errors %', 'send lag p99 ms'],
      a.rungs.map((r) => [
        fmt(r.rate_rps, 2),
        `${icon(r.verdict === 'pass' ? 'ok' : r.verdict === 'fail' ? 'stop' : 'suppressed')} ${escapeMarkdown(r.verdict)}`,
        ms(r.ttfab_p95_ms),
        r.ttfab_p95_ci_ms ? `${ms(r.ttfab_p95_ci_ms.low)}–${ms(r.ttfab_p95_ci_ms.high)}` : '',
        fmt(r.sent_rps, 2),
        fmt(r.goodput_rps, 2),
        fmt(r.overflow_fraction * 100, 2),
        fmt(r.error_fraction * 100, 2),
        ms(r.send_lag_p99_ms),
      ]),
    ),
    ...goodputContinuityMarkdown(a),
  ];
}

export function chartSection(qmax: QmaxArtifact): string[] {
  const chart = renderTtfabMermaid(qmax);
  if (!chart) return [];
  return [
    '### p95 TTFAB against concurrency',
    '',
    chart.block,
    '',
    `<sub>${escapeMarkdown(chart.legend)}</sub>`,
  ];
}

export function ttotalSection(t: Located<TtotalArtifact>): string[] {
  const a = t.artifact;
  const lowerBound = isLowerBound(a);
  const out = [
    '### T_total stages',
    '',
    `T_total **${lowerBound ? '≥ ' : ''}${fmt(a.t_total_s, 1)} s**${lowerBound ? ' (**LOWER BOUND**: traffic never recovered, the clock stopped at `in_service`)' : ''} (${escapeMarkdown(a.trigger)}, ${a.from_instances} → ${a.to_instances} instances)` +
      ` · ${policyLagLabel(ttotalPolicyLagOrigin(a))} ${fmt(a.policy_lag_s, 1)} s` +
      (t.file ? ` · ${codeSpan(t.file)}` : ''),
    '',
  ];
  const observed = a.observations ?? [];
  if (observed.length > 1 || a.t_total_prediction) {
    const p = a.t_total_prediction;
    out.push(
      escapeMarkdown(
        `${observed.length > 1 ? `${observed.length} scale-outs: ${observed.map((o) => `${fmt(o.t_total_s, 1)} s`).join(', ')}. ` : ''}${p ? (p.upper_s === null ? `Prediction bound for the next T_total: ${p.description}.` : `Next T_total <= ${fmt(p.upper_s, 1)} s (${p.description}); the plan takes it as T_total.`) : ''}`,
        { lineStart: true },
      ),
      '',
    );
  }
  if (a.durations.length === 0) {
    out.push('No stage durations recorded.');
  } else {
    out.push(
      markdownTable(
        ['stage', 'seconds', 'share of T_total', ''],
        a.durations.map((d) => [
          `${codeSpan(d.from, { inTable: true })} → ${codeSpan(d.to, { inTable: true })}`,
          fmt(d.seconds, Math.abs(d.seconds) < 1 ? 3 : 1),
          d.share === null ? '' : `${(d.share * 100).toFixed(1)} %`,
          d.bounded ? 'bound' : '',
        ]),
      ),
    );
  }
  if (a.missing_stages.length > 0) {
    out.push('', `Missing stages: ${a.missing_stages.map((s) => codeSpan(s)).join(', ')}`);
  }
  return out;
}

function comparisonSection(
  title: string,
  rows: ReadonlyArray<{ parameter: string; expected: unknown; deployed: unknown; verdict: string }>,
): string[] {
  if (rows.length === 0) return [];
  const value = (v: unknown): string =>
    v === null || v === undefined ? '—' : codeSpan(String(v), { inTable: true });
  return [
    title,
    '',
    markdownTable(
      ['', 'parameter', 'expected', 'deployed'],
      rows.map((r) => [
        `${icon(r.verdict)} ${escapeMarkdown(r.verdict)}`,
        codeSpan(r.parameter, { inTable: true }),
        value(r.expected),
        value(r.deployed),
      ]),
    ),
  ];
}

export function driftSection(d: Located<DriftArtifact>): string[] {
  const a = d.artifact;
  const out = [
    `Endpoint ${codeSpan(a.endpoint)} in ${escapeMarkdown(a.region)}${a.plan ? `, against ${codeSpan(a.plan.file)}` : ''}.`,
    '',
    '### Checks',
    '',
    markdownTable(
      ['', 'check', 'detail', 'remediation'],
      a.findings.map((f) => [
        `${icon(f.verdict === 'drift' ? 'stop' : f.verdict)} ${escapeMarkdown(f.verdict)}`,
        codeSpan(f.check, { inTable: true }),
        inlineMarkdown(f.detail, { inTable: true }),
        f.remediation ? inlineMarkdown(f.remediation, { inTable: true }) : '',
      ]),
    ),
  ];
  const off = a.rows.filter((r) => r.verdict !== 'match');
  if (off.length > 0) out.push('', ...comparisonSection('### Differences', off));
  return out;
}

export function validateSection(v: Located<ValidateArtifact>): string[] {
  const a = v.artifact;
  return [
    `Endpoint ${codeSpan(a.endpoint)} in ${escapeMarkdown(a.region)} against ${codeSpan(a.plan.file)} (run ${codeSpan(a.plan.run_id)}).`,
    '',
    ...comparisonSection('### Deployed vs plan', a.rows),
  ];
}

export function gateSection(g: GateOutcome): string[] {
  return [
    '### Gate checks',
    '',
    ...(g.offline ? [`**${escapeMarkdown(offlineLabel(g.offline))}**`, ''] : []),
    markdownTable(
      ['', 'check', 'detail', 'fix'],
      g.checks.map((c) => [
        c.ok ? '✅' : '🛑',
        codeSpan(c.check, { inTable: true }),
        inlineMarkdown(c.detail, { inTable: true }),
        c.fix ? inlineMarkdown(c.fix, { inTable: true }) : '',
      ]),
    ),
  ];
}

/** A fenced block that no content can close early. */
export function fencedText(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`{3,}|~{3,}/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}text\n${text.replace(/\r/g, '').trimEnd()}\n${fence}`;
}
