/** The terminal reports of `scalegate qmax`: the measured ladder, and the schedule of a dry run. */

import type { QmaxSchedule } from '../analysis/qmax.js';
import type { CalmClientResult } from '../load/client-calm.js';
import { isSageMakerTransport, type QmaxArtifact } from '../model/artifacts.js';
import type { RestoreReport } from '../model/journal.js';
import { audioLine, continuityLines } from './continuity-text.js';
import { ciLevelLabel, serviceTimeNote } from './labels.js';
import { loadOriginLines } from './vantage-text.js';

/** The dry run: the schedule, its worst case, instance-minutes and cost. */
/** After the wait for a calm client before a client-bound rung is measured again. */
export function renderCalmClientLine(concurrency: number, calm: CalmClientResult): string {
  const delay = calm.lastDelayP99Ms === null ? '?' : calm.lastDelayP99Ms.toFixed(1);
  return calm.calm
    ? `qmax: concurrency ${concurrency} was client-bound; the client is calm again (event-loop delay p99 ${delay} ms), measuring it once more`
    : `qmax: concurrency ${concurrency} was client-bound; the client stayed late for ${calm.windows} windows (event-loop delay p99 ${delay} ms), measuring it once more anyway (it will be judged as measured)`;
}

export function renderQmaxSchedule(s: QmaxSchedule): string {
  const lines = [
    `qmax dry run: ${s.model_name} (${s.transport}${s.endpoint ? `, endpoint ${s.endpoint}` : ''}${s.target ? `, target ${s.target}` : ''}), SLO p95 TTFAB ${s.slo_ms} ms`,
    `ladder: ${s.ladder.mode}${s.ladder.mode === 'fixed' ? ` rungs ${s.rungs.join(', ')}` : `, max concurrency ${s.ladder.max_concurrency}, resolution ${s.ladder.resolution}`}; ` +
      `hold ${s.ladder.hold_s} s, measure ${s.ladder.measure_s} s, settle ${s.ladder.settle_s} s; ${s.ladder.runs} run(s)`,
  ];
  if (s.ladder.mode === 'adaptive') lines.push(`longest possible rung sequence: ${s.rungs.join(', ')}`);
  lines.push(
    `worst case: ${s.worst_case_rungs} rungs, ${s.worst_case_duration_s.toFixed(0)} s (${(s.worst_case_duration_s / 60).toFixed(1)} min)`,
    `instance-minutes: ${s.instance_minutes.toFixed(1)}`,
    `estimated cost: ${s.estimated_cost_usd === null ? 'n/a' : `$${s.estimated_cost_usd.toFixed(2)} at $${s.instance_hourly_usd}/instance-hour`}`,
  );
  for (const note of s.notes) lines.push(`note: ${note}`);
  lines.push('no AWS call was made.');
  return lines.join('\n');
}

const pctOf = (share: number): string => `${Number((share * 100).toFixed(2))} %`;

function fmtMs(v: number | null): string {
  return v === null ? '-' : `${v.toFixed(1)}`;
}

/** The terminal report of a measured ladder: every rung, Q_max and its bracket, service time, restore. */
export function renderQmaxReport(
  artifact: QmaxArtifact,
  file: string | null,
  restore: RestoreReport | null,
): string {
  const lines: string[] = [];
  lines.push(
    `qmax ${artifact.model_name} (${artifact.transport}${artifact.endpoint ? `, endpoint ${artifact.endpoint}` : ''}${artifact.target && artifact.transport === 'http' ? `, target ${artifact.target}` : ''}), ` +
      `SLO p95 TTFAB ${artifact.slo_ms} ms, ladder ${artifact.ladder.mode}, run ${artifact.run_id}`,
  );
  lines.push(...loadOriginLines(artifact.vantage, artifact.fingerprint.request));
  lines.push('');
  // Each rung's interval has the level of the look it ended on (an interim look: 98.75 %).
  lines.push(
    'run rung  conc  verdict    p95 ms   CI ms (level)                 p50 ms  req/s   in-flight  R      usable',
  );
  for (const s of artifact.steps) {
    const ci = s.ttfab_p95_ci_ms
      ? `[${fmtMs(s.ttfab_p95_ci_ms.low)}, ${fmtMs(s.ttfab_p95_ci_ms.high)}] ${ciLevelLabel(s)}`
      : '-';
    lines.push(
      `${String(s.run_index + 1).padStart(3)} ${String(s.step_index + 1).padStart(4)}  ${String(s.concurrency).padStart(4)}  ` +
        `${s.verdict.padEnd(9)}  ${fmtMs(s.ttfab_p95_ms).padStart(7)}  ${ci.padEnd(28)}  ${fmtMs(s.ttfab_p50_ms).padStart(6)}  ` +
        `${s.achieved_rps.toFixed(2).padStart(6)}  ${s.concurrency_mean.toFixed(2).padStart(9)}  ${s.cw_ratio === null ? '-    ' : s.cw_ratio.toFixed(2).padEnd(5)}  ` +
        `${s.usable ? 'yes' : `no: ${s.unusable_reason}`}`,
    );
  }
  const heard = artifact.steps.filter((s) => s.audio);
  if (heard.length > 0) {
    lines.push('', 'audio per rung (stall p95 with its interval, ms):');
    for (const s of heard) {
      lines.push(
        audioLine(
          `run ${s.run_index + 1} c=${s.concurrency}`,
          s.audio as NonNullable<typeof s.audio>,
          s.continuity_verdict,
        ),
      );
    }
  }
  lines.push('');
  const bracket = artifact.q_max_bracketed
    ? `bracketed by ${artifact.q_max_upper_bound} (measured above the SLO)`
    : 'NOT bracketed: no higher rung was measured above the SLO (Q_max is a lower bound)';
  lines.push(`Q_max = ${artifact.q_max}, ${bracket}`);
  lines.push(...continuityLines('Q_max', artifact.continuity));
  const search = artifact.search;
  if (search && search.resolution_met === false && artifact.q_max_bracketed) {
    lines.push(
      `the search did not reach its resolution ${search.resolution}${search.undecided_rungs.length > 0 ? ` (undecided: ${search.undecided_rungs.join(', ')})` : ''}: Q_max may be up to ${(search.upper_bound ?? artifact.q_max + 1) - 1}`,
    );
  }
  if (artifact.ladder.runs > 1)
    lines.push(`Q_max per run: ${artifact.q_max_per_run.join(', ')} (Q_max is the lowest)`);
  lines.push(
    `S_mean ${(artifact.s_mean_s * 1000).toFixed(1)} ms, S_p95 ${(artifact.s_p95_s * 1000).toFixed(1)} ms; ` +
      `TTFAB p95 at c=1 ${fmtMs(artifact.ttfab_p95_at_c1_ms)} ms, at Q_max ${fmtMs(artifact.ttfab_p95_at_q_max_ms)} ms`,
  );
  const basis = serviceTimeNote(artifact);
  if (basis) lines.push(`WARNING: S_mean/S_p95 ${basis}`);
  lines.push(`rung-seconds: ${artifact.total_rung_seconds?.toFixed(1) ?? '-'}`);
  const guarantee = artifact.false_pass_bound;
  if (guarantee) {
    lines.push(
      `a PASS verdict: P(PASS | true p95 = SLO) <= ${pctOf(guarantee.bound)} pooled, ${pctOf(guarantee.worst_cell)} in the worst cell; ` +
        `interval coverage ${pctOf(guarantee.coverage)} pooled, ${pctOf(guarantee.worst_cell_coverage)} in the worst cell ` +
        `(bound (simulated over class: ${guarantee.calibrated_over}))`,
    );
  }
  for (const note of artifact.non_monotone) lines.push(`non-monotone: ${note}`);
  if (isSageMakerTransport(artifact.transport)) {
    lines.push(
      artifact.cloudwatch.joined
        ? `CloudWatch joined${artifact.cloudwatch.error ? ` (partly: ${artifact.cloudwatch.error})` : ''}`
        : `CloudWatch not joined: ${artifact.cloudwatch.error ?? 'unknown reason'}`,
    );
  }
  if (restore) {
    lines.push(`restore: ${restore.actions.join('; ') || 'nothing to do'}`);
    for (const e of restore.errors) lines.push(`restore FAILED: ${e}`);
    if (!restore.journalDeleted)
      lines.push('the thaw journal was kept: run `scalegate thaw` to finish restoring');
  }
  lines.push(
    `fingerprint: ${artifact.fingerprint.instance_type}, image ${artifact.fingerprint.image_digest.slice(0, 12)}, region ${artifact.fingerprint.region}`,
  );
  if (file) lines.push(`artifact: ${file}`);
  return lines.join('\n');
}
