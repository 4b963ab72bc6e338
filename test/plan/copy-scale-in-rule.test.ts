// The plan's copy scale-in rule (a component that scales to zero) evaluated with the shared
// CloudWatch alarm and step-scaling semantics the local SageMaker uses: it never removes the
// copy a wake just started, removes one copy after 15 minutes of low traffic, and leaves idle
// minutes to the idle rule.
import { describe, expect, it } from 'vitest';
import {
  type EvaluationSpec,
  evaluateAlarm,
  type MetricPoint,
} from '../../src/autoscaling/alarm-evaluation.js';
import { type StepRules, stepDesired } from '../../src/autoscaling/step-scaling.js';
import {
  type IcStepPolicy,
  icStepAdjustments,
  inferenceComponentConfigSchema,
} from '../../src/model/index.js';
import { deriveInferenceComponentPlan } from '../../src/plan/inference-component.js';
import { kokoroPlan } from '../infra/fixtures.js';

const ic = deriveInferenceComponentPlan({
  plan: kokoroPlan(),
  ttotal: null,
  endpoint: 'speech-kokoro-82m',
  variant: 'AllTraffic',
  config: inferenceComponentConfigSchema.parse({
    copies_per_instance: 1,
    accelerators: 1,
    memory_mb: 8192,
    min_copies: 0,
    max_copies: 12,
    instance_bounds: { min: 0, max: 12 },
  }),
}).block;

function ruleOf(step: IcStepPolicy | null | undefined): { spec: EvaluationSpec; rules: StepRules } {
  if (!step) throw new Error('the plan has no copy scale-in rule');
  const a = step.alarm;
  return {
    spec: {
      periodS: a.period_s,
      evaluationPeriods: a.evaluation_periods,
      datapointsToAlarm: a.datapoints_to_alarm,
      threshold: a.threshold,
      comparison: a.comparison,
      treatMissingData: a.missing_data,
    },
    rules: {
      adjustmentType: step.adjustment_type,
      steps: icStepAdjustments(step).map((s) => ({
        lower: s.MetricIntervalLowerBound,
        upper: s.MetricIntervalUpperBound,
        adjustment: s.ScalingAdjustment,
      })),
      minAdjustmentMagnitude: undefined,
      aggregation: 'Maximum',
    },
  };
}

const { spec, rules } = ruleOf(ic.scale_to_zero?.copy_scale_in);
const MINUTE = 60_000;
const NOW = 1_000 * MINUTE;
/** One datapoint per minute for the `values` most recent completed minutes (oldest first). */
const minutes = (values: number[]): MetricPoint[] =>
  values.map((value, i) => ({ timestampMs: NOW - (values.length - i) * MINUTE, value }));

describe('the copy scale-in rule of a component that scales to zero', () => {
  it('stays OK on the readings of a wake after idle minutes that published nothing (a copy just woken is never removed)', () => {
    for (const wake of [[1], [1, 2], [0, 1, 1, 1]]) {
      const e = evaluateAlarm(spec, minutes(wake), NOW);
      expect(e.state).toBe('OK');
    }
  });

  it('removes one copy after 15 minutes whose busiest copy stayed under 90 % of the copy target with traffic', () => {
    const low = Math.max(1, Math.floor(spec.threshold) - 1);
    const e = evaluateAlarm(
      spec,
      minutes(Array.from({ length: 15 }, (_, i) => (i % 3 === 0 ? low : 0))),
      NOW,
    );
    expect(e.state).toBe('ALARM');
    expect(stepDesired(rules, { threshold: spec.threshold, comparison: spec.comparison }, e, 3)).toBe(2);
  });

  it('leaves 15 idle minutes to the idle rule: no copy removed by this rule when none was busy', () => {
    const e = evaluateAlarm(spec, minutes(Array.from({ length: 15 }, () => 0)), NOW);
    expect(e.state).toBe('ALARM');
    expect(stepDesired(rules, { threshold: spec.threshold, comparison: spec.comparison }, e, 1)).toBe(1);
  });

  it('does not fire while one minute of the 15 held the busiest copy at the target', () => {
    const values = Array.from({ length: 15 }, () => 1);
    values[7] = ic.copy_target.value;
    expect(evaluateAlarm(spec, minutes(values), NOW).state).toBe('OK');
  });
});
