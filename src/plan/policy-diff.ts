/**
 * The diff of the deployed policy against the expected one (the shape of src/plan/policy-shape.ts).
 * Pure: the expected rows come from `flattenPolicyShape(expectedPolicyShape(...))`, the
 * deployed rows from the reader in src/aws/policy.ts, both under the same parameter names.
 */
import type { ComparisonRow } from '../model/index.js';
import { flattenPolicyShape, type PolicyShape, type ShapeRow } from './policy-shape.js';

export type RowValue = string | number | boolean | null;

/** One deployed parameter. `value` null: not deployed (the resource, or the field, is absent). */
export interface DeployedRow {
  parameter: string;
  value: RowValue;
}

/**
 * Structural parameters the shape implies but `flattenPolicyShape` has no row for: the scale-in
 * alarm must actually invoke the scale-in policy (an alarm with the right numbers and no action
 * scales nothing in).
 */
export const SCALE_IN_ALARM_INVOKES_POLICY = 'scale_in.alarm.invokes_policy';

/** Every expected row: the flattened shape plus the structural rows above. */
export function expectedRows(shape: PolicyShape): ShapeRow[] {
  return [...flattenPolicyShape(shape), { parameter: SCALE_IN_ALARM_INVOKES_POLICY, value: true }];
}

/** Relative tolerance for numbers: JSON round trips and float formatting, never a real difference. */
const RELATIVE_TOLERANCE = 1e-9;

export function valuesEqual(expected: RowValue, deployed: RowValue): boolean {
  if (typeof expected === 'number' && typeof deployed === 'number') {
    if (expected === deployed) return true;
    const scale = Math.max(Math.abs(expected), Math.abs(deployed), 1);
    return Math.abs(expected - deployed) <= RELATIVE_TOLERANCE * scale;
  }
  return expected === deployed;
}

/**
 * Rows `{parameter, expected, deployed, verdict}` in the expected order, then deployed rows the
 * expectation does not have (`extra`: an orphan policy or alarm, an alarm the plan does not
 * declare). `missing`: expected but not deployed; `mismatch`: deployed with another value.
 */
export function diffPolicyRows(
  expected: readonly ShapeRow[],
  deployed: readonly DeployedRow[],
): ComparisonRow[] {
  const byParameter = new Map<string, RowValue>();
  for (const row of deployed) byParameter.set(row.parameter, row.value);
  const expectedNames = new Set(expected.map((row) => row.parameter));
  const rows: ComparisonRow[] = expected.map((row) => {
    const value = byParameter.has(row.parameter) ? (byParameter.get(row.parameter) as RowValue) : null;
    const verdict = value === null ? 'missing' : valuesEqual(row.value, value) ? 'match' : 'mismatch';
    return { parameter: row.parameter, expected: row.value, deployed: value, verdict };
  });
  for (const row of deployed) {
    if (expectedNames.has(row.parameter) || row.value === null) continue;
    rows.push({ parameter: row.parameter, expected: null, deployed: row.value, verdict: 'extra' });
  }
  return rows;
}

/** The rows that are not `match` (and not a mere `warn`). */
export const differingRows = (rows: readonly ComparisonRow[]): ComparisonRow[] =>
  rows.filter((row) => row.verdict === 'mismatch' || row.verdict === 'missing' || row.verdict === 'extra');

/**
 * The AWS API field a parameter is deployed as, so that a mismatch names what to look at in the
 * console or CLI (`scale_out.target_value` -> `TargetValue`). Unknown parameters map to themselves.
 */
export function awsFieldOf(parameter: string): string {
  const alarmField: Record<string, string> = {
    name: 'AlarmName',
    namespace: 'Namespace',
    metric: 'MetricName',
    dimensions: 'Dimensions',
    statistic: 'Statistic/ExtendedStatistic',
    period_s: 'Period',
    evaluation_periods: 'EvaluationPeriods',
    datapoints_to_alarm: 'DatapointsToAlarm',
    threshold: 'Threshold',
    comparison: 'ComparisonOperator',
    missing_data: 'TreatMissingData',
    invokes_policy: 'AlarmActions',
  };
  const fixed: Record<string, string> = {
    'scalable_target.resource_id': 'ResourceId',
    'scalable_target.scalable_dimension': 'ScalableDimension',
    'scalable_target.min_capacity': 'MinCapacity',
    'scalable_target.max_capacity': 'MaxCapacity',
    'scalable_target.suspended.dynamic_scaling_in': 'SuspendedState.DynamicScalingInSuspended',
    'scalable_target.suspended.dynamic_scaling_out': 'SuspendedState.DynamicScalingOutSuspended',
    'scalable_target.suspended.scheduled_scaling': 'SuspendedState.ScheduledScalingSuspended',
    'scale_out.policy_name': 'PolicyName',
    'scale_out.policy_type': 'PolicyType',
    'scale_out.metric': 'PredefinedMetricSpecification.PredefinedMetricType',
    'scale_out.target_value': 'TargetValue',
    'scale_out.cooldown_s': 'ScaleOutCooldown',
    'scale_out.disable_scale_in': 'DisableScaleIn',
    'scale_in.policy_name': 'PolicyName',
    'scale_in.policy_type': 'PolicyType',
    'scale_in.adjustment_type': 'AdjustmentType',
    'scale_in.adjustment': 'StepAdjustments[0].ScalingAdjustment',
    'scale_in.metric_interval_upper_bound': 'StepAdjustments[0].MetricIntervalUpperBound',
    'scale_in.cooldown_s': 'Cooldown',
    'scale_in.metric_aggregation': 'MetricAggregationType',
    'container.max_queue_depth': 'Environment.MAX_QUEUE_DEPTH',
    'deployment.instance_type': 'InstanceType',
    'deployment.image_digest': 'Image',
    'deployment.routing_strategy': 'RoutingConfig.RoutingStrategy',
    'endpoint.status': 'EndpointStatus',
    'endpoint.current_instance_count': 'CurrentInstanceCount',
  };
  if (fixed[parameter]) return fixed[parameter] as string;
  const alarm = /^(scale_in\.alarm|alarms\.[a-z0-9_]+)\.([a-z0-9_]+)$/.exec(parameter);
  if (alarm && alarmField[alarm[2] as string]) return alarmField[alarm[2] as string] as string;
  return parameter;
}

const show = (value: RowValue): string =>
  value === null ? 'not deployed' : typeof value === 'string' ? value : JSON.stringify(value);

/** One line naming the parameter, its AWS field and both values. */
export function describeRow(row: ComparisonRow): string {
  const field = awsFieldOf(row.parameter);
  const name = field === row.parameter ? row.parameter : `${row.parameter} (${field})`;
  switch (row.verdict) {
    case 'missing':
      return `${name}: expected ${show(row.expected)}, not deployed`;
    case 'extra':
      return `${name}: deployed ${show(row.deployed)}, not in the plan`;
    case 'match':
      return `${name}: ${show(row.deployed)}`;
    default:
      return `${name}: expected ${show(row.expected)}, deployed ${show(row.deployed)}`;
  }
}
