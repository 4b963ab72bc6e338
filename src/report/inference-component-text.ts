/** The plan's inference-component block as terminal lines, every figure with its provenance. */
import type { ComparisonRow, InferenceComponentPlan } from '../model/index.js';
import { describeRow } from '../plan/policy-diff.js';

export function inferenceComponentTextLines(ic: InferenceComponentPlan): string[] {
  const p = ic.packing;
  const lines = [
    `inference component ${ic.component_name} on ${ic.endpoint}/${ic.variant}`,
    `  packing               ${p.copies_per_instance} copies per instance; per copy ${p.accelerators ?? 0} accelerators, ${p.cpu_cores ?? 0} vCPU, ${p.memory_mb} MiB (config)`,
    `  copies                min ${ic.copies.min}, max ${ic.copies.max} (config); peak ${ic.copies.peak}, trough ${ic.copies.trough} (computed)`,
    `  instances             min ${ic.instances.min}, max ${ic.instances.max} (computed: ceil(copies / copies per instance), managed instance scaling)`,
    `  copy target           ${ic.copy_target.value} ConcurrentRequestsPerCopy (${ic.copy_target.origin}): ${ic.copy_target.provenance}${ic.copy_target.disable_scale_in ? '; scale-out only (its scale-in would undo a wake)' : ''}`,
    `  T_plan warm           ${ic.paths.warm.t_plan_s} s (${ic.paths.warm.origin}): ${ic.paths.warm.provenance}`,
    `  T_plan cold           ${ic.paths.cold.t_plan_s} s (${ic.paths.cold.origin}): ${ic.paths.cold.provenance}`,
  ];
  if (ic.paths.zero) {
    lines.push(
      `  T_plan from zero      ${ic.paths.zero.t_plan_s} s (${ic.paths.zero.origin}): ${ic.paths.zero.provenance}`,
    );
  }
  const z = ic.scale_to_zero;
  if (z) {
    const w = z.wake.alarm;
    lines.push(
      `  wake                  +${z.wake.adjustment} copy when ${w.metric} ${w.statistic} >= ${w.threshold} in ${w.period_s} s (${w.evaluation_periods} of ${w.evaluation_periods}): one request wakes it`,
      `  idle scale-in         to 0 copies after ${z.idle_minutes} minutes without invocations`,
      ...(z.copy_scale_in
        ? [
            `  copy scale-in         -1 copy after ${z.copy_scale_in.alarm.evaluation_periods} minutes with the busiest copy under ${z.copy_scale_in.alarm.threshold} (90 % of the copy target, computed) and traffic; missing minutes not breaching (a wake is not undone); idle minutes left to the idle rule`,
          ]
        : []),
      `  client retries        ${z.retry.attempts} x ${z.retry.backoff_s} s = ${z.retry.covers_s} s (computed) against a wake of ${z.wake_s} s (${z.wake_origin}); tolerance ${z.wake_tolerance_s} s (config)`,
    );
  }
  for (const a of ic.assumptions) lines.push(`  assumed: ${a}`);
  return lines;
}

export interface LocalApplyIcReport {
  modelName: string;
  componentName: string;
  endpoint: string;
  planFile: string;
  /** The model created for a new specification, null when it already matched. */
  specModelName: string | null;
  policyNames: string[];
  alarmNames: string[];
  warnings: string[];
  /** Rows that still differ from the plan. */
  failed: ComparisonRow[];
  compared: number;
}

/** The terminal report of `scalegate local apply` for an inference-component plan. */
export function renderLocalApplyIcReport(r: LocalApplyIcReport): string {
  const lines = [
    `scalegate local apply ${r.modelName}: ${r.failed.length === 0 ? 'applied' : `applied with ${r.failed.length} parameter(s) still differing`} (inference component ${r.componentName} on ${r.endpoint}, plan ${r.planFile})`,
    r.specModelName
      ? `  UpdateInferenceComponent ${r.componentName} -> model ${r.specModelName} (copies replaced one at a time)`
      : '  specification (compute per copy, MAX_QUEUE_DEPTH) already as planned',
    `  RegisterScalableTarget inference-component/${r.componentName}`,
    `  PutScalingPolicy ${r.policyNames.join(', ')}`,
    ...(r.alarmNames.length > 0 ? [`  PutMetricAlarm ${r.alarmNames.join(', ')}`] : []),
    ...r.warnings.map((w) => `  WARNING: ${w}`),
    ...r.failed.map((row) => `  MISMATCH ${describeRow(row)}`),
  ];
  if (r.failed.length === 0)
    lines.push(`  read back: every parameter equals the plan (${r.compared} compared)`);
  return lines.join('\n');
}
