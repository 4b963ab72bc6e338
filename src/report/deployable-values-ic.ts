/**
 * An inference-component plan's deployable values (`scalegate plan --format json|tfvars` of a
 * plan with an `inference_component` block; docs/terraform.md): the component's compute per copy,
 * its copy-count scalable target and target tracking, managed instance scaling bounds, the wake
 * and idle rules, the container environment, and the periods of its alarms. Every value comes
 * from the block the CDK construct deploys and `validate` compares (and the alarm shapes of
 * src/plan/inference-component-alarms.ts), never recomputed here.
 */
import { type IcStepPolicy, icStepAdjustments, type PlanArtifact } from '../model/index.js';
import { IC_SCALABLE_DIMENSION, icResourceId, icTargetPolicyName } from '../model/inference-component.js';
import { icObservabilityAlarms } from '../plan/inference-component-alarms.js';
import type { DeployableValue, DeployableValues } from './deployable-value.js';

/** A step policy and its alarm as `aws_appautoscaling_policy` (StepScaling) + `aws_cloudwatch_metric_alarm` take them. */
const stepValue = (step: IcStepPolicy): DeployableValue => ({
  policy_name: step.name,
  adjustment_type: step.adjustment_type,
  scaling_adjustment: step.adjustment,
  step_adjustments: icStepAdjustments(step).map((a) => ({
    metric_interval_lower_bound: a.MetricIntervalLowerBound ?? null,
    metric_interval_upper_bound: a.MetricIntervalUpperBound ?? null,
    scaling_adjustment: a.ScalingAdjustment,
  })),
  cooldown_s: step.cooldown_s,
  alarm_name: step.alarm.name,
  metric_name: step.alarm.metric,
  statistic: step.alarm.statistic,
  period_s: step.alarm.period_s,
  evaluation_periods: step.alarm.evaluation_periods,
  datapoints_to_alarm: step.alarm.datapoints_to_alarm,
  threshold: step.alarm.threshold,
  comparison_operator: step.alarm.comparison,
  treat_missing_data: step.alarm.missing_data,
});

export function inferenceComponentValues(plan: PlanArtifact, planSha256: string): DeployableValues {
  const ic = plan.inference_component;
  if (!ic) throw new Error(`the plan for ${plan.model_name} has no inference_component block`);
  const alarms = icObservabilityAlarms(plan.model_name, plan);
  const d = plan.deployable;
  const z = ic.scale_to_zero;
  return {
    scalegate_model: plan.model_name,
    scalegate_kind: 'inference-component',
    scalegate_endpoint_name: ic.endpoint,
    scalegate_variant_name: ic.variant,
    scalegate_component_name: ic.component_name,
    scalegate_accelerators_per_copy: ic.packing.accelerators,
    scalegate_cpu_cores_per_copy: ic.packing.cpu_cores,
    scalegate_memory_mb_per_copy: ic.packing.memory_mb,
    scalegate_copies_per_instance: ic.packing.copies_per_instance,
    scalegate_min_instances: ic.instances.min,
    scalegate_max_instances: ic.instances.max,
    scalegate_resource_id: icResourceId(ic.component_name),
    scalegate_scalable_dimension: IC_SCALABLE_DIMENSION,
    scalegate_min_copies: ic.copies.min,
    scalegate_max_copies: ic.copies.max,
    scalegate_copy_policy_name: icTargetPolicyName(ic),
    scalegate_predefined_metric_type: ic.copy_target.predefined_metric,
    scalegate_target_value: ic.copy_target.value,
    scalegate_scale_out_cooldown_s: ic.copy_target.scale_out_cooldown_s,
    scalegate_scale_in_cooldown_s: ic.copy_target.scale_in_cooldown_s,
    scalegate_disable_scale_in: ic.copy_target.disable_scale_in,
    scalegate_wake: z ? stepValue(z.wake) : null,
    scalegate_idle: z ? stepValue(z.idle_scale_in) : null,
    scalegate_copy_scale_in: z?.copy_scale_in ? stepValue(z.copy_scale_in) : null,
    scalegate_container_environment: { ...ic.container_environment },
    scalegate_no_capacity_periods: alarms.noCapacity.evaluationPeriods,
    scalegate_above_target_periods: alarms.copiesAboveTarget.evaluationPeriods,
    scalegate_queue_max_depth: d.queue_max_depth,
    scalegate_slo_ms: d.slo_ms,
    scalegate_service_time_alarm_ms: d.service_time_alarm_ms,
    scalegate_plan_run_id: plan.run_id,
    scalegate_plan_sha256: planSha256,
    scalegate_plan_verdict: plan.verdict,
    scalegate_image_digest: plan.fingerprint.image_digest,
    scalegate_instance_type: plan.fingerprint.instance_type,
    scalegate_region: plan.fingerprint.region,
  };
}
