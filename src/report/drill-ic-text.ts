/**
 * What a drill of an inference-component endpoint adds to its report: the component and what the
 * counts are of (copies, the instances beside them), the copies over time, and the from-zero phase
 * (the wake: no-capacity failures, retries, client-visible failures, wake time, its verdict).
 * Every figure says where it comes from.
 */
import type { DrillArtifact, DrillFromZero } from '../model/index.js';

const s3 = (v: number | null | undefined): string =>
  v === null || v === undefined ? 'n/a' : `${Number(v.toFixed(3))} s`;

/** `2 copies` / `2 instance(s)`: what the drill started from. */
export function drillStartText(a: DrillArtifact): string {
  const n = a.settings.start_instances;
  return a.inference_component ? `${n} cop${n === 1 ? 'y' : 'ies'}` : `${n} instance(s)`;
}

/** Changes of the copy and instance counts as the observer polled them: `t 0.4 s: copies 2/2, instances 2`. */
export function copiesOverTime(a: DrillArtifact, limit = 12): string[] {
  const obs = [...(a.observer?.observations ?? [])].sort((x, y) => x.t_s - y.t_s);
  const out: string[] = [];
  let last = '';
  for (const o of obs) {
    const key = `${o.desired}/${o.current}/${o.instances ?? '-'}`;
    if (key === last) continue;
    last = key;
    out.push(
      `t ${o.t_s.toFixed(1)} s: copies desired ${o.desired ?? 'n/a'}, current ${o.current ?? 'n/a'}; instances ${o.instances ?? 'n/a'}`,
    );
  }
  return out.length > limit
    ? [...out.slice(0, limit - 1), `... ${out.length - limit + 1} more`, out.at(-1) as string]
    : out;
}

function fromZeroLines(z: DrillFromZero): string[] {
  const w = z.wake;
  const lines = [
    `from zero (before the schedule; judged apart from the windows): ${z.held ? 'HELD' : 'NOT HELD'}`,
  ];
  if (w === null) {
    lines.push(`  no request succeeded within ${z.max_wait_s} s (measured)`);
  } else {
    const retry = w.retry;
    lines.push(
      `  wake: ${s3(w.wake_s)} from the first request to the first success (measured); the plan's zero path ${s3(z.planned_wake_s)} (${z.planned_wake_origin}), wake tolerance ${s3(z.wake_tolerance_s)} (the model's, stated)`,
      `  no-capacity failures: ${w.no_capacity_failures} (measured)${w.failing_window ? `, failing for ${s3(w.failing_window.seconds)} (measured, first to last)` : ''}; other failures ${w.other_failures}`,
      retry
        ? `  client: ${retry.client_requests} request(s), ${retry.client_visible_failures} client-visible failure(s) (measured); ${retry.retries} retries of ${retry.retried_requests} request(s) under the plan's budget ${z.retry_budget.attempts} x ${z.retry_budget.backoff_s} s (covers ${z.retry_budget.covers_s} s, computed)`
        : '  client: no retry budget applied',
      `  copies ${w.copies_before} -> ${w.copies_after} (measured)`,
    );
    const stages = z.timeline.map((t) => `${t.stage}${t.bounded ? ' (bounded by the poll)' : ''}`);
    if (stages.length > 0) lines.push(`  stages: ${stages.join(' -> ')}`);
  }
  for (const r of z.reasons) lines.push(`  ${r}`);
  return lines;
}

/** The component section of a drill's report (empty for a variant's drill). */
export function drillIcLines(a: DrillArtifact): string[] {
  const ic = a.inference_component;
  if (!ic) return [];
  const lines = [
    '',
    `inference component ${ic.component} (the drill counts copies: desired/current are DesiredCopyCount/CurrentCopyCount, measured; instances follow them, ${ic.copies_per_instance} cop${ic.copies_per_instance === 1 ? 'y' : 'ies'} per instance)`,
    `  ${ic.start_copies} cop${ic.start_copies === 1 ? 'y' : 'ies'} at the start; copy target ${ic.copy_target} ConcurrentRequestsPerCopy (the plan's, computed); T_plan of the ${ic.t_plan_path} path`,
    ...copiesOverTime(a).map((l) => `  ${l}`),
  ];
  if (ic.from_zero) lines.push(...fromZeroLines(ic.from_zero));
  return lines;
}

/** The from-zero phase as label/value rows (the PR comment and job summary table). */
export function fromZeroRows(z: DrillFromZero): [string, string][] {
  const w = z.wake;
  const retry = w?.retry ?? null;
  return [
    ['verdict', `${z.held ? 'held' : 'NOT held'}: ${z.reasons.join('; ')}`],
    [
      'wake (measured)',
      w?.wake_s == null
        ? `none within ${s3(z.max_wait_s)}`
        : `${s3(w.wake_s)}, first request to first success; tolerance ${s3(z.wake_tolerance_s)} (stated); plan ${s3(z.planned_wake_s)} (${z.planned_wake_origin})`,
    ],
    [
      'no-capacity failures (measured)',
      w === null
        ? 'n/a'
        : `${w.no_capacity_failures}${w.failing_window ? ` over ${s3(w.failing_window.seconds)}` : ''}`,
    ],
    [
      'client-visible failures (measured)',
      retry === null
        ? 'n/a'
        : `${retry.client_visible_failures} of ${retry.client_requests} client request(s); ${retry.retries} retries apart`,
    ],
    [
      'retry budget (plan)',
      `${z.retry_budget.attempts} x ${z.retry_budget.backoff_s} s, covers ${z.retry_budget.covers_s} s (computed)`,
    ],
  ];
}
