/**
 * Inference-component fixtures for the infra tests: the Kokoro model declared as a component, its
 * plan with the component block (as `scalegate plan` writes it from the anchor measurements) and
 * an artifacts directory holding that plan, its measurements and a clean validate of the
 * component's rows.
 */
import {
  type ComparisonRow,
  inferenceComponentConfigSchema,
  type ModelConfig,
  type PlanArtifact,
} from '../../src/model/index.js';
import { attachInferenceComponent } from '../../src/plan/inference-component.js';
import { expectedIcRows } from '../../src/plan/inference-component-rows.js';
import { artifactsDirWith, cleanValidate, kokoroModel, measuredPlan, measurementsOf } from './fixtures.js';

// One device per copy: SageMaker takes whole accelerator devices (NumberOfAcceleratorDevicesRequired >= 1).
export const IC_PACKING = {
  copies_per_instance: 1,
  accelerators: 1,
  memory_mb: 8192,
  min_copies: 0,
  max_copies: 400,
  instance_bounds: { min: 0, max: 400 },
};

/** The config of the Kokoro model declared as a component (`ic` over IC_PACKING). */
export const icModel = (ic: Record<string, unknown> = {}): ModelConfig =>
  kokoroModel({
    kind: 'inference-component',
    inference_component: inferenceComponentConfigSchema.parse({ ...IC_PACKING, ...ic }),
  });

/** The Kokoro plan with its component block, as `scalegate plan` writes it for `icModel(ic)`. */
export function icPlan(ic: Record<string, unknown> = {}): PlanArtifact {
  const base = measuredPlan();
  return attachInferenceComponent(base, {
    ttotal: measurementsOf(base)?.ttotal ?? null,
    endpoint: 'speech-kokoro-82m',
    variant: 'AllTraffic',
    config: inferenceComponentConfigSchema.parse({ ...IC_PACKING, ...ic }),
  });
}

/** The component's rows of `plan` read back as deployed (`edit` changes some). */
export function icReadBack(plan: PlanArtifact, edit?: (rows: ComparisonRow[]) => void): ComparisonRow[] {
  const ic = plan.inference_component;
  if (!ic) throw new Error('not an inference-component plan');
  const rows: ComparisonRow[] = expectedIcRows(ic).map((r) => ({
    parameter: r.parameter,
    expected: r.value,
    deployed: r.value,
    verdict: 'match',
  }));
  edit?.(rows);
  return rows;
}

/** Artifacts with the plan (a component's or a variant's), its measurements and a clean validate of it. */
export function icArtifactsDir(plan: PlanArtifact, rows?: ComparisonRow[]): string {
  const read = rows ?? (plan.inference_component ? icReadBack(plan) : undefined);
  return artifactsDirWith({
    'kokoro-82m': {
      plan,
      measurements: measurementsOf(measuredPlan()),
      validate: cleanValidate(plan, read ? { rows: read } : {}),
    },
  });
}
