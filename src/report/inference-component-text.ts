/** The plan's inference-component block as terminal lines, every figure with its provenance. */
import type { InferenceComponentPlan } from '../model/index.js';

export function inferenceComponentTextLines(ic: InferenceComponentPlan): string[] {
  const p = ic.packing;
  const lines = [
    `inference component ${ic.component_name} on ${ic.endpoint}/${ic.variant}`,
    `  packing               ${p.copies_per_instance} copies per instance; per copy ${p.accelerators ?? 0} accelerators, ${p.cpu_cores ?? 0} vCPU, ${p.memory_mb} MiB (config)`,
    `  copies                min ${ic.copies.min}, max ${ic.copies.max} (config); peak ${ic.copies.peak}, trough ${ic.copies.trough} (computed)`,
    `  instances             min ${ic.instances.min}, max ${ic.instances.max} (computed: ceil(copies / copies per instance), managed instance scaling)`,
    `  copy target           ${ic.copy_target.value} ConcurrentRequestsPerCopy (${ic.copy_target.origin}): ${ic.copy_target.provenance}`,
    `  T_plan warm           ${ic.paths.warm.t_plan_s} s (${ic.paths.warm.origin}): ${ic.paths.warm.provenance}`,
    `  T_plan cold           ${ic.paths.cold.t_plan_s} s (${ic.paths.cold.origin}): ${ic.paths.cold.provenance}`,
  ];
  if (ic.paths.zero) {
    lines.push(`  T_plan from zero      ${ic.paths.zero.t_plan_s} s (${ic.paths.zero.origin}): ${ic.paths.zero.provenance}`);
  }
  const z = ic.scale_to_zero;
  if (z) {
    const w = z.wake.alarm;
    lines.push(
      `  wake                  +${z.wake.adjustment} copy when ${w.metric} ${w.statistic} >= ${w.threshold} in ${w.period_s} s (${w.evaluation_periods} of ${w.evaluation_periods}): one request wakes it`,
      `  idle scale-in         to 0 copies after ${z.idle_minutes} minutes without invocations`,
      `  client retries        ${z.retry.attempts} x ${z.retry.backoff_s} s = ${z.retry.covers_s} s (computed) against a wake of ${z.wake_s} s (${z.wake_origin}); tolerance ${z.wake_tolerance_s} s (config)`,
    );
  }
  for (const a of ic.assumptions) lines.push(`  assumed: ${a}`);
  return lines;
}
