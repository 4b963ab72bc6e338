/** The terminal reports of `scalegate goodput` and `scalegate merge`, and the schedule of a dry run. */

import type { GoodputSchedule } from '../analysis/goodput.js';
import type { GoodputArtifact } from '../model/artifacts.js';
import type { RestoreReport } from '../model/journal.js';
import { audioLine, continuityLines } from './continuity-text.js';
import { loadOriginLines } from './vantage-text.js';

/** The dry run: the schedule, its worst case, instance-minutes and cost. */
export function renderGoodputSchedule(s: GoodputSchedule): string {
  const lines = [
    `goodput dry run: ${s.model_name} (${s.transport}${s.endpoint ? `, endpoint ${s.endpoint}` : ''}${s.target ? `, target ${s.target}` : ''}), SLO p95 TTFAB ${s.slo_ms} ms from the intended send time`,
    `ladder: ${s.mode} Poisson rates${s.mode === 'fixed' ? ` ${s.rates.join(', ')}/s` : ''}; hold ${s.hold_s} s, settle ${s.settle_s} s, seed ${s.seed}${s.shard ? `; shard ${s.shard}` : ''}`,
  ];
  if (s.mode === 'adaptive') lines.push(`longest possible rate sequence: ${s.rates.join(', ')} requests/s`);
  lines.push(
    `worst case: ${s.worst_case_rungs} rungs, ${s.worst_case_duration_s.toFixed(0)} s (${(s.worst_case_duration_s / 60).toFixed(1)} min), ~${s.worst_case_requests} requests offered (computed from the settings)`,
    `instance-minutes: ${s.instance_minutes.toFixed(1)}`,
    `estimated cost: ${s.estimated_cost_usd === null ? 'n/a' : `$${s.estimated_cost_usd.toFixed(2)} at $${s.instance_hourly_usd}/instance-hour`}`,
  );
  for (const note of s.notes) lines.push(`note: ${note}`);
  lines.push('no AWS call was made.');
  return lines.join('\n');
}

const ms = (v: number | null): string => (v === null ? '-' : v.toFixed(1));

/** Where the ladder started: the scout's steps (measured, each a few seconds; they place rungs, decide nothing). */
export function scoutLine(s: NonNullable<GoodputArtifact['scout']>): string {
  const steps = s.steps
    .map(
      (t) =>
        `${t.rate_rps}/s ${t.p95_ms === null ? (t.offered > 0 ? 'inf' : '-') : `${t.p95_ms.toFixed(1)} ms`}${t.over ? ' (over)' : ''}`,
    )
    .join(', ');
  return `scout (measured, ${s.step_s} s steps, p95 TTFAB with misses at +inf; placement only, no verdict): ${steps}; the ladder started at ${s.start_rps}/s${s.over_rps !== null ? `, and measured ${s.over_rps}/s first above it` : ''}`;
}

/** lambda_max with what it is: measured and bracketed, a lower bound, or not decided yet (a shard). */
export function lambdaMaxLine(a: GoodputArtifact): string {
  if (!a.decided || a.lambda_max_rps === null) {
    return `lambda_max not decided: this file holds shard(s) ${a.shards.map((s) => `${s.index}/${s.count}`).join(', ')}; \`scalegate merge\` every shard to decide`;
  }
  if (a.lambda_max_rps === 0) {
    return a.lambda_max_bracketed
      ? `lambda_max = 0: no rate passed, and ${a.breach_rate_rps}/s was measured above the SLO (measured)`
      : `lambda_max unknown: no rate passed and none was decided above the SLO (${a.search.undecided_rates.length} undecided: a longer --hold-s decides them)`;
  }
  const bracket = a.lambda_max_bracketed
    ? `measured, bracketed by a breach at ${a.breach_rate_rps}/s`
    : 'a LOWER BOUND: no breach was measured above it';
  const resolution =
    a.search.resolution_met === false
      ? `; the search did not reach its resolution ${a.ladder.resolution}${a.search.undecided_rates.length > 0 ? ` (undecided: ${a.search.undecided_rates.join(', ')}/s)` : ''}`
      : '';
  const ic = a.inference_component;
  const across = ic
    ? `across ${ic.copies} cop${ic.copies === 1 ? 'y' : 'ies'} of component ${ic.component} on ${ic.instances} instance(s)`
    : 'per instance';
  return `lambda_max = ${a.lambda_max_rps} requests/s ${across} (${bracket})${resolution}`;
}

/**
 * An inference component's lambda_max per copy (computed from the measured lambda_max, a lower
 * bound when it is one) and how the copies share the device; nothing for a variant.
 */
export function perCopyLines(a: GoodputArtifact): string[] {
  const ic = a.inference_component;
  if (!ic) return [];
  const per = ic.lambda_max_per_copy_rps;
  const origin =
    a.lambda_max_bracketed || per === 0
      ? 'computed: the measured lambda_max'
      : 'computed: a LOWER BOUND, from a lambda_max not bracketed by a breach';
  return [
    per === null || (per === 0 && !a.lambda_max_bracketed)
      ? `lambda_max per copy: not known (lambda_max is not)`
      : `lambda_max per copy = ${per} requests/s (${origin} / ${ic.copies} cop${ic.copies === 1 ? 'y' : 'ies'} pinned, measured)`,
    `copies: ${ic.sharing} (copies per device ${ic.copies_sharing_device}: computed; ${ic.copies_per_instance} per instance: config)`,
  ];
}

/**
 * The tracked metric's level at every rate (goodput's CloudWatch join), labelled measured; or why
 * there is none. Nothing for older files, which never joined.
 */
export function metricLevelLines(a: GoodputArtifact): string[] {
  if (!a.cloudwatch) return [];
  const lines = [''];
  if (!a.cloudwatch.joined) {
    lines.push(`metric level: none (${a.cloudwatch.error ?? 'not joined'})`);
    return lines;
  }
  lines.push(
    'metric level per rate (measured: CloudWatch ConcurrentRequestsPerModel, Maximum per 10 s period, over the whole periods of each measure window)',
    'rate/s  periods  p10     p50     p90     mean in flight  open-loop R',
  );
  for (const g of a.rungs) {
    const m = g.metric_level;
    if (!m) {
      lines.push(`${String(g.rate_rps).padStart(6)}  -        not joined`);
      continue;
    }
    const f = (v: number) => v.toFixed(1).padEnd(6);
    lines.push(
      `${String(g.rate_rps).padStart(6)}  ${String(m.periods).padEnd(7)}  ${f(m.p10)}  ${f(m.p50)}  ${f(m.p90)}  ${m.mean_in_flight.toFixed(2).padEnd(14)}  ${m.open_loop_r === null ? '-' : m.open_loop_r.toFixed(2)}`,
    );
  }
  if (a.cloudwatch.error) lines.push(`metric level: ${a.cloudwatch.error}`);
  return lines;
}

export function renderGoodputReport(
  a: GoodputArtifact,
  file: string | null,
  restore: RestoreReport | null,
): string {
  const lines: string[] = [];
  lines.push(
    `goodput ${a.model_name} (${a.transport}${a.endpoint ? `, endpoint ${a.endpoint}` : ''}${a.target && a.transport === 'http' ? `, target ${a.target}` : ''}), ` +
      `SLO p95 TTFAB ${a.slo_ms} ms from the intended send time, overflows <= ${(a.limits.max_overflow_fraction * 100).toFixed(2)} %, errors <= ${(a.limits.max_error_fraction * 100).toFixed(2)} %, run ${a.run_id}`,
  );
  lines.push(...loadOriginLines(a.vantage, a.fingerprint.request));
  if (a.scout) lines.push(scoutLine(a.scout));
  lines.push('');
  lines.push(
    'rung  rate/s  verdict    p95 ms   CI ms (its level)    p50 ms  sent/s   ok/s    503 %  err %  lag p99  L      ended',
  );
  a.rungs.forEach((g, i) => {
    const ci = g.ttfab_p95_ci_ms ? `[${ms(g.ttfab_p95_ci_ms.low)}, ${ms(g.ttfab_p95_ci_ms.high)}]` : '-';
    const seq = g.sequential;
    const ended = seq ? `${seq.stopped_at_s} s ${seq.stopped_early ? 'early' : 'hold'}` : '-';
    lines.push(
      `${String(i + 1).padStart(4)}  ${String(g.rate_rps).padStart(6)}  ${g.verdict.padEnd(9)}  ${ms(g.ttfab_p95_ms).padStart(7)}  ${ci.padEnd(19)}  ${ms(g.ttfab_p50_ms).padStart(6)}  ` +
        `${g.sent_rps.toFixed(2).padStart(6)}  ${g.goodput_rps.toFixed(2).padStart(6)}  ${(g.overflow_fraction * 100).toFixed(2).padStart(5)}  ${(g.error_fraction * 100).toFixed(2).padStart(5)}  ${ms(g.send_lag_p99_ms).padStart(7)}  ${g.mean_in_system.toFixed(2).padEnd(5)}  ${ended}`,
    );
  });
  const heard = a.rungs.filter((g) => g.audio);
  if (heard.length > 0) {
    lines.push('', 'audio per rate (stall p95 with its interval, ms):');
    for (const g of heard) {
      const verdicts = g.continuity_verdict
        ? `${g.continuity_verdict}; first audio ${g.first_audio_verdict ?? '-'}`
        : null;
      lines.push(audioLine(`${g.rate_rps}/s`, g.audio as NonNullable<typeof g.audio>, verdicts));
    }
  }
  lines.push(...metricLevelLines(a));
  lines.push('');
  lines.push(lambdaMaxLine(a));
  lines.push(...perCopyLines(a));
  if (a.continuity || heard.length > 0) lines.push(...continuityLines('lambda_max', a.continuity));
  for (const note of a.non_monotone) lines.push(`non-monotone: ${note}`);
  lines.push(
    a.rungs.some((g) => g.sequential)
      ? `decision: p95 TTFAB from the intended send time of every arrival (coordinated-omission correct; overflows, errors, timeouts and dropped arrivals count as misses at +infinity); group-sequential looks from 30 s with O'Brien-Fleming-type alpha spending, each by log-scale sectioning into 5-20 batches of >= 30 (1 + L)^2 arrivals (L: mean requests in system); a rung ends at its first decisive look; limits on the 95 % upper bounds of the overflow and error fractions`
      : 'decision: p95 of ok requests from the intended send time (coordinated-omission correct); 95 % interval by log-scale sectioning into 5 batches of >= 30 (1 + L)^2 arrivals (L: mean requests in system); undecided without them',
  );
  if (a.false_pass_bound) {
    lines.push(
      `false PASS of a rung whose true p95 is the SLO: at most ${(a.false_pass_bound.value * 100).toFixed(1)} % (bound (${a.false_pass_bound.basis}))`,
    );
  }
  if (restore) {
    lines.push(`restore: ${restore.actions.join('; ') || 'nothing to do'}`);
    for (const e of restore.errors) lines.push(`restore FAILED: ${e}`);
    if (!restore.journalDeleted)
      lines.push('the thaw journal was kept: run `scalegate thaw` to finish restoring');
  }
  lines.push(
    `fingerprint: ${a.fingerprint.instance_type}, image ${a.fingerprint.image_digest.slice(0, 12)}, region ${a.fingerprint.region}`,
  );
  if (file) lines.push(`artifact: ${file}`);
  return lines.join('\n');
}

/** `scalegate merge`: what was combined, then the merged run's report. */
export function renderMergeReport(a: GoodputArtifact, sources: readonly string[], file: string): string {
  const counts = a.rungs.map((g) => g.offered);
  return [
    `merged ${sources.length} shard files (${sources.join(', ')}): shards ${a.shards.map((s) => `${s.index}/${s.count}`).join(', ')}; arrivals per rung ${counts.join(', ')} (counts added, windows aligned, percentiles from the merged histograms)`,
    renderGoodputReport(a, file, null),
  ].join('\n');
}
