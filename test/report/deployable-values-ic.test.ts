/**
 * `scalegate plan --format json|tfvars` of an inference-component plan: a team deploying with
 * Terraform gets the component's numbers (compute per copy, copy bounds, copy target, instance
 * bounds, the wake and idle rules, MAX_QUEUE_DEPTH) exactly as the block has them, and never the
 * variant's scalable target, which would scale instances that the component's copies own.
 */
import { describe, expect, it } from 'vitest';
import type { InferenceComponentPlan } from '../../src/model/index.js';
import {
  deployableValues,
  renderDeployableJson,
  renderDeployableTfvars,
} from '../../src/report/deployable-values.js';
import { kokoroPlan } from '../infra/fixtures.js';
import { icPlan } from '../infra/ic-fixtures.js';

const sha = 'ab'.repeat(32);
const model = { endpoint: 'speech-kokoro-82m', variant: 'AllTraffic' };

describe('deployable values of an inference-component plan', () => {
  const plan = icPlan();
  const ic = plan.inference_component as InferenceComponentPlan;
  const values = deployableValues(plan, model, sha);

  it("carries the component block's numbers under the names the Terraform resources take", () => {
    expect(values).toMatchObject({
      scalegate_kind: 'inference-component',
      scalegate_component_name: 'speech-kokoro-82m-ic',
      scalegate_resource_id: 'inference-component/speech-kokoro-82m-ic',
      scalegate_scalable_dimension: 'sagemaker:inference-component:DesiredCopyCount',
      scalegate_accelerators_per_copy: 1,
      scalegate_cpu_cores_per_copy: null,
      scalegate_memory_mb_per_copy: 8192,
      scalegate_min_copies: 0,
      scalegate_max_copies: 400,
      scalegate_min_instances: 0,
      scalegate_max_instances: 400,
      scalegate_copy_policy_name: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-copies',
      scalegate_predefined_metric_type: 'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution',
      scalegate_target_value: ic.copy_target.value,
      scalegate_scale_out_cooldown_s: ic.copy_target.scale_out_cooldown_s,
      scalegate_scale_in_cooldown_s: ic.copy_target.scale_in_cooldown_s,
      scalegate_container_environment: { MAX_QUEUE_DEPTH: String(plan.deployable.queue_max_depth) },
      scalegate_above_target_periods: Math.ceil(ic.paths.cold.t_plan_s / 60) + 1,
      scalegate_plan_run_id: plan.run_id,
      scalegate_plan_sha256: sha,
      scalegate_image_digest: plan.fingerprint.image_digest,
    });
  });

  it('has the one-request wake (>= 1 in one period) and the exact-zero idle rule', () => {
    expect(values.scalegate_wake).toMatchObject({
      policy_name: 'scalegate-speech-kokoro-82m-speech-kokoro-82m-ic-wake',
      adjustment_type: 'ChangeInCapacity',
      scaling_adjustment: 1,
      metric_name: 'NoCapacityInvocationFailures',
      statistic: 'Sum',
      evaluation_periods: 1,
      threshold: 1,
      comparison_operator: 'GreaterThanOrEqualToThreshold',
    });
    expect(values.scalegate_idle).toMatchObject({
      adjustment_type: 'ExactCapacity',
      scaling_adjustment: 0,
      metric_name: 'Invocations',
      evaluation_periods: 15,
      treat_missing_data: 'breaching',
    });
    expect(values.scalegate_no_capacity_periods).toBe(Math.ceil((ic.scale_to_zero?.wake_s ?? 0) / 60) + 1);
  });

  it("has no variant scaling values (min/max capacity of instances), which the component's copies own", () => {
    for (const key of ['scalegate_min_capacity', 'scalegate_max_capacity', 'scalegate_scale_in_threshold'])
      expect(values).not.toHaveProperty(key);
  });

  it('has no wake or idle rule when the plan keeps a copy (null, declared with that default)', () => {
    const kept = deployableValues(
      icPlan({ min_copies: 1, instance_bounds: { min: 1, max: 400 } }),
      model,
      sha,
    );
    expect(kept.scalegate_wake).toBeNull();
    expect(kept.scalegate_idle).toBeNull();
    expect(kept.scalegate_no_capacity_periods).toBe(1);
  });

  it('renders as tfvars Terraform reads (objects on one line, strings quoted) and as JSON of the same values', () => {
    const tfvars = renderDeployableTfvars(values);
    expect(tfvars).toMatch(/^scalegate_kind += "inference-component"$/m);
    expect(tfvars).toMatch(/^scalegate_cpu_cores_per_copy += null$/m);
    expect(tfvars).toMatch(
      new RegExp(
        `^scalegate_container_environment += \\{ MAX_QUEUE_DEPTH = "${plan.deployable.queue_max_depth}" \\}$`,
        'm',
      ),
    );
    expect(tfvars).toMatch(
      /^scalegate_wake += \{ policy_name = "scalegate-[^"]+-wake", adjustment_type = "ChangeInCapacity", /m,
    );
    expect(JSON.parse(renderDeployableJson(values))).toEqual(values);
  });

  it('leaves a variant plan as it was (no kind, the variant scalable target)', () => {
    const variant = deployableValues(kokoroPlan(), model, sha);
    expect(variant).not.toHaveProperty('scalegate_kind');
    expect(variant.scalegate_resource_id).toBe('endpoint/speech-kokoro-82m/variant/AllTraffic');
  });
});
