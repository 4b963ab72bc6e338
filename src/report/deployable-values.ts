/**
 * A plan's deployable values for infrastructure-as-code tools other than the CDK app
 * (`scalegate plan --format json|tfvars`, docs/terraform.md): every number the policy deploys,
 * the metric it tracks (as Application Auto Scaling and CloudWatch name it), and the plan's
 * identity, so that the apply can be checked against what `scalegate gate` passed and the image
 * it deploys. Every value comes from `expectedPolicyShape`, the function the CDK constructs and
 * `validate` use; an inference-component plan's from its component block (deployable-values-ic.ts).
 */
import type { ModelConfig, PlanArtifact } from '../model/index.js';
import { ALARM_TIMING, expectedPolicyShape } from '../plan/policy-shape.js';
import type { DeployableValue, DeployableValues } from './deployable-value.js';
import { inferenceComponentValues } from './deployable-values-ic.js';

export type { DeployableValue, DeployableValues } from './deployable-value.js';

/**
 * A tuned plan's scheduled actions and step scale-out, under the names Terraform's
 * aws_appautoscaling_scheduled_action / aws_appautoscaling_policy take; absent for a plan without
 * them (declare both variables with defaults `[]` and `null`).
 */
function scalingActionValues(shape: ReturnType<typeof expectedPolicyShape>): DeployableValues {
  const values: DeployableValues = {};
  if (shape.scheduledActions.length > 0) {
    values.scalegate_scheduled_actions = shape.scheduledActions.map((a) => ({
      name: a.scheduledActionName,
      schedule: a.schedule,
      timezone: a.timezone,
      min_capacity: a.minCapacity,
      max_capacity: a.maxCapacity,
    }));
  }
  const step = shape.stepScaleOut;
  if (step) {
    values.scalegate_step_scale_out = {
      policy_name: step.policyName,
      adjustment_type: step.adjustmentType,
      cooldown_s: step.cooldownS,
      metric_aggregation_type: step.metricAggregationType,
      steps: step.steps.map((s) => ({
        metric_interval_lower_bound: s.metricIntervalLowerBound,
        metric_interval_upper_bound: s.metricIntervalUpperBound,
        scaling_adjustment: s.scalingAdjustment,
      })),
      alarm_name: step.alarm.alarmName,
      metric_name: step.alarm.metricName,
      statistic: step.alarm.statistic,
      period_s: step.alarm.periodS,
      evaluation_periods: step.alarm.evaluationPeriods,
      threshold: step.alarm.threshold,
    };
  }
  return values;
}

export function deployableValues(
  plan: PlanArtifact,
  model: Pick<ModelConfig, 'endpoint' | 'variant'>,
  planSha256: string,
): DeployableValues {
  // An inference-component plan deploys its component's scaling, not the variant's.
  if (plan.inference_component) return inferenceComponentValues(plan, planSha256);
  const shape = expectedPolicyShape(
    { modelName: plan.model_name, endpoint: model.endpoint, variant: model.variant },
    plan,
  );
  const d = plan.deployable;
  return {
    scalegate_model: plan.model_name,
    scalegate_endpoint_name: shape.target.endpoint,
    scalegate_variant_name: shape.target.variant,
    scalegate_resource_id: shape.scalableTarget.resourceId,
    scalegate_min_capacity: shape.scalableTarget.minCapacity,
    scalegate_max_capacity: shape.scalableTarget.maxCapacity,
    scalegate_scaling_metric: shape.scalingMetric,
    scalegate_predefined_metric_type: shape.scaleOut.predefinedMetricType,
    scalegate_target_value: shape.scaleOut.targetValue,
    scalegate_scale_out_cooldown_s: shape.scaleOut.scaleOutCooldownS,
    scalegate_scale_in_threshold: shape.scaleIn.alarm.threshold,
    scalegate_scale_in_cooldown_s: shape.scaleIn.cooldownS,
    scalegate_scale_in_metric_name: shape.scaleIn.alarm.metricName,
    scalegate_scale_in_statistic: shape.scaleIn.alarm.statistic,
    scalegate_scale_in_period_s: ALARM_TIMING.scaleIn.periodS,
    scalegate_scale_in_evaluation_periods: ALARM_TIMING.scaleIn.evaluationPeriods,
    scalegate_above_target_periods: shape.alarms.concurrencyAboveTarget.evaluationPeriods,
    scalegate_queue_max_depth: d.queue_max_depth,
    scalegate_slo_ms: d.slo_ms,
    scalegate_service_time_alarm_ms: d.service_time_alarm_ms,
    scalegate_plan_run_id: plan.run_id,
    scalegate_plan_sha256: planSha256,
    scalegate_plan_verdict: plan.verdict,
    scalegate_image_digest: plan.fingerprint.image_digest,
    scalegate_instance_type: plan.fingerprint.instance_type,
    scalegate_region: plan.fingerprint.region,
    ...scalingActionValues(shape),
  };
}

export const renderDeployableJson = (values: DeployableValues): string =>
  `${JSON.stringify(values, null, 2)}\n`;

/**
 * An HCL string literal: JSON's escapes are HCL's, plus the template sequences `${` and `%{`,
 * which HCL would interpolate, doubled to stand for themselves.
 */
export const hclString = (s: string): string =>
  // Replacer functions: in a replacement string, `$$` would itself mean one `$`.
  JSON.stringify(s)
    .replaceAll('${', () => '$${')
    .replaceAll('%{', () => '%%{');

/** An HCL value on one line: lists `[a, b]`, objects `{ key = value, ... }`. */
const hclValue = (v: DeployableValue): string =>
  v === null
    ? 'null'
    : typeof v === 'number' || typeof v === 'boolean'
      ? String(v)
      : typeof v === 'string'
        ? hclString(v)
        : Array.isArray(v)
          ? `[${v.map(hclValue).join(', ')}]`
          : `{ ${Object.entries(v)
              .map(([k, x]) => `${k} = ${hclValue(x)}`)
              .join(', ')} }`;

/** `name = value` lines (strings quoted, numbers bare): a `.tfvars` file. */
export function renderDeployableTfvars(values: DeployableValues): string {
  const width = Math.max(...Object.keys(values).map((k) => k.length));
  const lines = Object.entries(values).map(([k, v]) => `${k.padEnd(width)} = ${hclValue(v)}`);
  return `# scalegate plan ${values.scalegate_plan_run_id} of ${values.scalegate_model} (verdict ${values.scalegate_plan_verdict}); gate it with \`scalegate gate --model ${values.scalegate_model}\` before applying.\n${lines.join('\n')}\n`;
}
