import { describe, expect, it } from 'vitest';
import { icDrillOf } from '../../src/commands/drill-ic.js';
import { inferenceComponentConfigSchema, isUsageError, type PlanArtifact } from '../../src/model/index.js';
import { MODEL, modelConfig } from './local-apply-fixtures.js';

const variant = modelConfig();
const ic = {
  ...variant,
  kind: 'inference-component' as const,
  inference_component: inferenceComponentConfigSchema.parse({
    copies_per_instance: 1,
    accelerators: 1,
    memory_mb: 4096,
    min_copies: 0,
    max_copies: 2,
    instance_bounds: { min: 0, max: 2 },
  }),
};
const variantPlan = { model_name: MODEL } as unknown as PlanArtifact;
const icPlan = {
  model_name: MODEL,
  inference_component: { component_name: 'x-ic' },
} as unknown as PlanArtifact;

const refusal = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    expect(isUsageError(e)).toBe(true);
    return (e as Error).message;
  }
  throw new Error('not refused');
};

describe('drill flags of the other kind of model are refused (exit 2)', () => {
  const base = { modelName: MODEL, planFile: 'plan.json' };
  it('a variant model: --start-copies and --from-zero name the variant (prevents a copy count silently ignored)', () => {
    expect(icDrillOf({ ...base, model: variant }, variantPlan)).toBeNull();
    expect(refusal(() => icDrillOf({ ...base, model: variant, startCopies: 2 }, variantPlan))).toMatch(
      /--start-copies 2: .* is not an inference-component model/,
    );
    expect(refusal(() => icDrillOf({ ...base, model: variant, fromZero: true }, variantPlan))).toMatch(
      /--from-zero: .* a variant has no wake from zero/,
    );
  });
  it('an IC model: --start-instances, a plan without the block, --from-zero with shards (prevents drilling instances where copies scale)', () => {
    expect(refusal(() => icDrillOf({ ...base, model: ic, startInstances: 2 }, icPlan))).toMatch(
      /--start-instances 2: .* starts from copies \(--start-copies\)/,
    );
    expect(refusal(() => icDrillOf({ ...base, model: ic }, variantPlan))).toMatch(
      /the plan has no inference_component block/,
    );
    expect(refusal(() => icDrillOf({ ...base, model: variant }, icPlan))).toMatch(
      /the plan has an inference_component block but/,
    );
    expect(refusal(() => icDrillOf({ ...base, model: ic, fromZero: true, shard: '0/2' }, icPlan))).toMatch(
      /--from-zero with --shard 0\/2/,
    );
  });
});
