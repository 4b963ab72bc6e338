/**
 * An inference-component plan block as `{parameter, value}` rows, both sides: what the plan
 * expects (`expectedIcRows`) and what is deployed (`deployedIcRows`, from the state the reader in
 * src/aws/inference-component.ts gathers), under the same names, for src/plan/policy-diff.ts.
 * Pure.
 */
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import {
  type IcAlarm,
  type IcStepPolicy,
  type InferenceComponentPlan,
  icStepAdjustments,
  icStepPolicies,
} from '../model/index.js';
import { IC_DIMENSION, type IcDeployedState, icTargetPolicyName } from '../model/inference-component.js';
import type { DeployedRow } from './policy-diff.js';
import type { ShapeRow } from './policy-shape.js';

export {
  IC_DIMENSION,
  IC_NAMESPACE,
  IC_SCALABLE_DIMENSION,
  type IcDeployedState,
  icResourceId,
  icTargetPolicyName,
} from '../model/inference-component.js';

const P = 'inference_component';

function alarmExpected(prefix: string, name: string, alarm: IcAlarm): ShapeRow[] {
  return [
    { parameter: `${prefix}.alarm.name`, value: alarm.name },
    { parameter: `${prefix}.alarm.metric`, value: alarm.metric },
    { parameter: `${prefix}.alarm.dimensions`, value: `${IC_DIMENSION}=${name}` },
    { parameter: `${prefix}.alarm.statistic`, value: alarm.statistic },
    { parameter: `${prefix}.alarm.period_s`, value: alarm.period_s },
    { parameter: `${prefix}.alarm.evaluation_periods`, value: alarm.evaluation_periods },
    { parameter: `${prefix}.alarm.datapoints_to_alarm`, value: alarm.datapoints_to_alarm },
    { parameter: `${prefix}.alarm.threshold`, value: alarm.threshold },
    { parameter: `${prefix}.alarm.comparison`, value: alarm.comparison },
    { parameter: `${prefix}.alarm.missing_data`, value: alarm.missing_data },
    { parameter: `${prefix}.alarm.invokes_policy`, value: true },
  ];
}

/** StepAdjustments as one comparable value: `lower..upper:adjustment` per step, unbounded ends empty. */
export function stepsLabel(
  steps: readonly {
    MetricIntervalLowerBound?: number;
    MetricIntervalUpperBound?: number;
    ScalingAdjustment?: number;
  }[],
): string {
  return steps
    .map(
      (s) =>
        `${s.MetricIntervalLowerBound ?? ''}..${s.MetricIntervalUpperBound ?? ''}:${s.ScalingAdjustment ?? ''}`,
    )
    .sort()
    .join(' ');
}

function stepExpected(prefix: string, name: string, step: IcStepPolicy): ShapeRow[] {
  return [
    { parameter: `${prefix}.policy.name`, value: step.name },
    { parameter: `${prefix}.policy.adjustment_type`, value: step.adjustment_type },
    { parameter: `${prefix}.policy.adjustment`, value: step.adjustment },
    ...(step.steps
      ? [{ parameter: `${prefix}.policy.steps`, value: stepsLabel(icStepAdjustments(step)) }]
      : []),
    { parameter: `${prefix}.policy.cooldown_s`, value: step.cooldown_s },
    ...alarmExpected(prefix, name, step.alarm),
  ];
}

export function expectedIcRows(ic: InferenceComponentPlan): ShapeRow[] {
  const rows: ShapeRow[] = [
    { parameter: `${P}.name`, value: ic.component_name },
    { parameter: `${P}.endpoint`, value: ic.endpoint },
    { parameter: `${P}.variant`, value: ic.variant },
  ];
  if (ic.packing.accelerators !== null)
    rows.push({ parameter: `${P}.copy.accelerators`, value: ic.packing.accelerators });
  if (ic.packing.cpu_cores !== null)
    rows.push({ parameter: `${P}.copy.cpu_cores`, value: ic.packing.cpu_cores });
  rows.push({ parameter: `${P}.copy.memory_mb`, value: ic.packing.memory_mb });
  for (const [key, value] of Object.entries(ic.container_environment)) {
    rows.push({ parameter: `${P}.container.environment.${key}`, value });
  }
  rows.push(
    { parameter: `${P}.managed_instance_scaling.status`, value: 'ENABLED' },
    { parameter: `${P}.managed_instance_scaling.min_instances`, value: ic.instances.min },
    { parameter: `${P}.managed_instance_scaling.max_instances`, value: ic.instances.max },
    { parameter: `${P}.scalable_target.min_copies`, value: ic.copies.min },
    { parameter: `${P}.scalable_target.max_copies`, value: ic.copies.max },
    { parameter: `${P}.copy_target.policy_name`, value: icTargetPolicyName(ic) },
    { parameter: `${P}.copy_target.metric`, value: ic.copy_target.predefined_metric },
    { parameter: `${P}.copy_target.value`, value: ic.copy_target.value },
    { parameter: `${P}.copy_target.scale_out_cooldown_s`, value: ic.copy_target.scale_out_cooldown_s },
    { parameter: `${P}.copy_target.scale_in_cooldown_s`, value: ic.copy_target.scale_in_cooldown_s },
    { parameter: `${P}.copy_target.disable_scale_in`, value: ic.copy_target.disable_scale_in },
  );
  const z = ic.scale_to_zero;
  if (z) {
    rows.push(...stepExpected(`${P}.wake`, ic.component_name, z.wake));
    rows.push(...stepExpected(`${P}.idle_scale_in`, ic.component_name, z.idle_scale_in));
    if (z.copy_scale_in) rows.push(...stepExpected(`${P}.copy_scale_in`, ic.component_name, z.copy_scale_in));
  }
  return rows;
}

const orNull = <T>(v: T | undefined | null): T | null => (v === undefined ? null : v);

function alarmDeployed(
  prefix: string,
  alarm: MetricAlarm | undefined,
  policyArn: string | null,
): DeployedRow[] {
  const dims = (alarm?.Dimensions ?? [])
    .map((d) => `${d.Name ?? ''}=${d.Value ?? ''}`)
    .sort()
    .join(',');
  return [
    { parameter: `${prefix}.alarm.name`, value: orNull(alarm?.AlarmName) },
    { parameter: `${prefix}.alarm.metric`, value: orNull(alarm?.MetricName) },
    { parameter: `${prefix}.alarm.dimensions`, value: alarm ? dims : null },
    { parameter: `${prefix}.alarm.statistic`, value: orNull(alarm?.Statistic) },
    { parameter: `${prefix}.alarm.period_s`, value: orNull(alarm?.Period) },
    { parameter: `${prefix}.alarm.evaluation_periods`, value: orNull(alarm?.EvaluationPeriods) },
    {
      parameter: `${prefix}.alarm.datapoints_to_alarm`,
      value: alarm ? (alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods ?? null) : null,
    },
    { parameter: `${prefix}.alarm.threshold`, value: orNull(alarm?.Threshold) },
    { parameter: `${prefix}.alarm.comparison`, value: orNull(alarm?.ComparisonOperator) },
    {
      parameter: `${prefix}.alarm.missing_data`,
      value: alarm ? (alarm.TreatMissingData ?? 'missing') : null,
    },
    {
      parameter: `${prefix}.alarm.invokes_policy`,
      value: alarm ? policyArn !== null && (alarm.AlarmActions ?? []).includes(policyArn) : null,
    },
  ];
}

function stepDeployed(prefix: string, expected: IcStepPolicy, state: IcDeployedState): DeployedRow[] {
  const policy = state.policies.find((p) => p.PolicyName === expected.name);
  const step = policy?.StepScalingPolicyConfiguration;
  const adjustment = step?.StepAdjustments?.[0]?.ScalingAdjustment;
  return [
    { parameter: `${prefix}.policy.name`, value: orNull(policy?.PolicyName) },
    { parameter: `${prefix}.policy.adjustment_type`, value: orNull(step?.AdjustmentType) },
    { parameter: `${prefix}.policy.adjustment`, value: orNull(adjustment) },
    ...(expected.steps
      ? [{ parameter: `${prefix}.policy.steps`, value: step ? stepsLabel(step.StepAdjustments ?? []) : null }]
      : []),
    { parameter: `${prefix}.policy.cooldown_s`, value: orNull(step?.Cooldown) },
    ...alarmDeployed(prefix, state.alarms.get(expected.alarm.name), orNull(policy?.PolicyARN)),
  ];
}

/** The deployed side under the expected rows' names; policies the plan does not declare as extra rows. */
export function deployedIcRows(state: IcDeployedState, ic: InferenceComponentPlan): DeployedRow[] {
  const c = state.component;
  const rows: DeployedRow[] = [
    { parameter: `${P}.name`, value: c?.name ?? null },
    { parameter: `${P}.endpoint`, value: c?.endpoint ?? null },
    { parameter: `${P}.variant`, value: c?.variant ?? null },
    { parameter: `${P}.copy.accelerators`, value: c?.accelerators ?? null },
    { parameter: `${P}.copy.cpu_cores`, value: c?.cpuCores ?? null },
    { parameter: `${P}.copy.memory_mb`, value: c?.memoryMb ?? null },
  ];
  for (const key of Object.keys(ic.container_environment)) {
    rows.push({ parameter: `${P}.container.environment.${key}`, value: c?.environment?.[key] ?? null });
  }
  const mis = state.managedInstanceScaling;
  const target = state.policies.find((p) => p.PolicyName === icTargetPolicyName(ic));
  const tt = target?.TargetTrackingScalingPolicyConfiguration;
  rows.push(
    { parameter: `${P}.managed_instance_scaling.status`, value: mis?.status ?? null },
    { parameter: `${P}.managed_instance_scaling.min_instances`, value: mis?.min ?? null },
    { parameter: `${P}.managed_instance_scaling.max_instances`, value: mis?.max ?? null },
    { parameter: `${P}.scalable_target.min_copies`, value: state.scalableTarget?.min ?? null },
    { parameter: `${P}.scalable_target.max_copies`, value: state.scalableTarget?.max ?? null },
    { parameter: `${P}.copy_target.policy_name`, value: orNull(target?.PolicyName) },
    {
      parameter: `${P}.copy_target.metric`,
      value: orNull(tt?.PredefinedMetricSpecification?.PredefinedMetricType),
    },
    { parameter: `${P}.copy_target.value`, value: orNull(tt?.TargetValue) },
    { parameter: `${P}.copy_target.scale_out_cooldown_s`, value: orNull(tt?.ScaleOutCooldown) },
    { parameter: `${P}.copy_target.scale_in_cooldown_s`, value: orNull(tt?.ScaleInCooldown) },
    { parameter: `${P}.copy_target.disable_scale_in`, value: tt ? (tt.DisableScaleIn ?? false) : null },
  );
  const z = ic.scale_to_zero;
  if (z) {
    rows.push(...stepDeployed(`${P}.wake`, z.wake, state));
    rows.push(...stepDeployed(`${P}.idle_scale_in`, z.idle_scale_in, state));
    if (z.copy_scale_in) rows.push(...stepDeployed(`${P}.copy_scale_in`, z.copy_scale_in, state));
  }
  const declared = new Set([icTargetPolicyName(ic), ...icStepPolicies(ic).map((step) => step.name)]);
  for (const p of state.policies) {
    if (p.PolicyName && !declared.has(p.PolicyName)) {
      rows.push({ parameter: `${P}.policy.${p.PolicyName}`, value: p.PolicyType ?? 'policy' });
    }
  }
  return rows;
}
