import { describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import {
  awsFieldOf,
  describeRow,
  differingRows,
  diffPolicyRows,
  expectedRows,
  SCALE_IN_ALARM_INVOKES_POLICY,
  valuesEqual,
} from '../../src/plan/policy-diff.js';
import { expectedPolicyShape, flattenPolicyShape } from '../../src/plan/policy-shape.js';
import { repoRoot } from '../helpers/anchor.js';

const plan = readArtifact('plan', `${repoRoot}/artifacts/plan-kokoro-82m.json`);
const shape = expectedPolicyShape(
  { modelName: 'kokoro-82m', endpoint: 'speech-kokoro-82m', variant: 'AllTraffic' },
  plan,
);
const expected = expectedRows(shape);
const deployedAsExpected = () =>
  expected.map((r) => ({ parameter: r.parameter, value: r.value as string | number | boolean | null }));

describe('policy diff (pure)', () => {
  it('matches every row when the deployed rows equal the expected ones, so a clean deploy is never flagged', () => {
    const rows = diffPolicyRows(expected, deployedAsExpected());
    expect(rows).toHaveLength(expected.length);
    expect(differingRows(rows)).toEqual([]);
    expect(rows.every((r) => r.verdict === 'match')).toBe(true);
  });

  it('keeps the shape module as the one definition: every flattened parameter is compared, plus the alarm-action check', () => {
    const names = expected.map((r) => r.parameter);
    expect(names).toEqual([
      ...flattenPolicyShape(shape).map((r) => r.parameter),
      SCALE_IN_ALARM_INVOKES_POLICY,
    ]);
    expect(names).toContain('scale_out.target_value');
    expect(names).toContain('alarms.service_time.threshold');
  });

  it('names a changed value as a mismatch with both values, so the report says what to fix', () => {
    const deployed = deployedAsExpected().map((r) =>
      r.parameter === 'scale_out.target_value' ? { ...r, value: 40 } : r,
    );
    const rows = differingRows(diffPolicyRows(expected, deployed));
    expect(rows).toEqual([
      { parameter: 'scale_out.target_value', expected: 6, deployed: 40, verdict: 'mismatch' },
    ]);
    expect(describeRow(rows[0] as (typeof rows)[number])).toBe(
      'scale_out.target_value (TargetValue): expected 6, deployed 40',
    );
  });

  it('reports an absent resource as missing rather than as a match on undefined', () => {
    const deployed = deployedAsExpected().filter((r) => !r.parameter.startsWith('scale_in.alarm.'));
    const rows = differingRows(diffPolicyRows(expected, deployed));
    expect(rows.length).toBeGreaterThan(5);
    expect(rows.every((r) => r.verdict === 'missing' && r.parameter.startsWith('scale_in.alarm.'))).toBe(
      true,
    );
  });

  it('reports deployed rows the plan does not declare (orphans) as extra', () => {
    const deployed = [
      ...deployedAsExpected(),
      { parameter: 'orphan.policy.hand-made', value: 'StepScaling' },
    ];
    const rows = differingRows(diffPolicyRows(expected, deployed));
    expect(rows).toEqual([
      { parameter: 'orphan.policy.hand-made', expected: null, deployed: 'StepScaling', verdict: 'extra' },
    ]);
  });

  it('tolerates float formatting but not a real numeric difference', () => {
    expect(valuesEqual(37.5, 37.50000000000001)).toBe(true);
    expect(valuesEqual(37.5, 37.6)).toBe(false);
    expect(valuesEqual(25, '25')).toBe(false);
    expect(valuesEqual(false, false)).toBe(true);
  });

  it('maps parameters to the AWS field a human would look for', () => {
    expect(awsFieldOf('scale_in.alarm.missing_data')).toBe('TreatMissingData');
    expect(awsFieldOf('alarms.service_time.threshold')).toBe('Threshold');
    expect(awsFieldOf('scalable_target.suspended.dynamic_scaling_in')).toBe(
      'SuspendedState.DynamicScalingInSuspended',
    );
    expect(awsFieldOf('container.max_queue_depth')).toBe('Environment.MAX_QUEUE_DEPTH');
  });
});
