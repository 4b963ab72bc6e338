/** The report of `scalegate ttotal --path zero`: the wake from zero copies of an inference component. */
import type { TtotalArtifact } from '../model/artifacts.js';

export function renderWakeReport(a: TtotalArtifact, outFile: string): string {
  const m = a.inference_component;
  if (!m) return `ttotal: ${outFile} holds no inference-component path`;
  const lines = [
    `ttotal --path zero: wake of component ${m.component} from ${m.copies_before} copies (endpoint ${a.endpoint ?? '-'})`,
    `  wake: ${m.wake_s} s (measured: first request to first success)`,
    `  no-capacity failures: ${m.no_capacity_failures} (measured)${
      m.failing_window ? `, failing for ${m.failing_window.seconds} s (measured, first to last)` : ''
    }${m.other_failures > 0 ? `; other failures: ${m.other_failures} (measured)` : ''}`,
    m.wake_alarm_period_s === null
      ? '  wake alarm: not found (is the plan applied?)'
      : `  wake alarm period: ${m.wake_alarm_period_s} s (as deployed)`,
  ];
  if (m.retry) {
    lines.push(
      `  client retry budget: ${m.retry.attempts} x ${m.retry.backoff_s} s (assumed, from the config): ${m.retry.client_requests} client request(s), ${m.retry.client_visible_failures} client-visible failure(s) (measured); ${m.retry.retries} retries over ${m.retry.retried_requests} request(s) (measured, counted apart)`,
    );
  } else {
    lines.push('  no client retries: every no-capacity failure reached the client');
  }
  lines.push('  stages:');
  for (const d of a.durations) {
    lines.push(
      `    ${d.from} -> ${d.to}: ${d.seconds} s (${d.bounded ? 'bound: poll interval' : 'measured'})`,
    );
  }
  if (a.missing_stages.length > 0) lines.push(`  not observed: ${a.missing_stages.join(', ')}`);
  lines.push(`  written: ${outFile}`);
  return lines.join('\n');
}

/** No request succeeded within the wait: the wake did not happen (or took longer). */
export function renderWakeTimeout(
  component: string,
  maxWaitS: number,
  noCapacityFailures: number,
  wakeAlarmPeriodS: number | null,
): string {
  return [
    `ttotal --path zero: component ${component} served no request within ${maxWaitS} s (${noCapacityFailures} no-capacity failures, measured): no wake measured, nothing written`,
    wakeAlarmPeriodS === null
      ? '  no wake alarm found: apply the plan (`scalegate local apply`, or deploy its stack) first'
      : `  the wake alarm (period ${wakeAlarmPeriodS} s) is deployed: check its state and its policy's cooldown, or raise --max-wait-s`,
  ].join('\n');
}

/** The report of `ttotal --path warm|cold`: one more copy of an inference component, stage by stage. */
export function renderIcPathReport(a: TtotalArtifact, outFile: string): string {
  const m = a.inference_component;
  if (!m) return `ttotal: ${outFile} holds no inference-component path`;
  return [
    `ttotal --path ${m.path}: component ${m.component}, copies ${m.copies_before} -> ${m.copies_after} (instances ${a.from_instances} -> ${a.to_instances})`,
    `  T_total: ${a.t_total_s} s (measured from the copy count set; its end is bounded by the poll interval)`,
    ...a.durations.map(
      (d) => `    ${d.from} -> ${d.to}: ${d.seconds} s (${d.bounded ? 'bound: poll interval' : 'measured'})`,
    ),
    ...(a.missing_stages.length > 0 ? [`  not observed: ${a.missing_stages.join(', ')}`] : []),
    `  written: ${outFile}`,
  ].join('\n');
}
