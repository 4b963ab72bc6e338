import { describe, expect, it } from 'vitest';
import {
  type ActivityRecord,
  managedAlarmSpecs,
  PREDEFINED_METRICS,
  scaleInDecision,
  scaleOutDecision,
  stepDesired,
  trackingScaleIn,
  trackingScaleOut,
} from '../../src/autoscaling/index.js';

const done = (
  direction: ActivityRecord['direction'],
  startMs: number,
  endMs: number,
  cooldownBase = 0,
): ActivityRecord => ({
  direction,
  status: 'Successful',
  startMs,
  endMs,
  cooldownBase,
});

describe('target tracking', () => {
  it('manages a high-resolution concurrency policy with 3 x 10 s above and 90 x 10 s below 90 % (prevents a simulator scaling on other alarms than AWS creates)', () => {
    const { high, low } = managedAlarmSpecs(
      4,
      PREDEFINED_METRICS.SageMakerVariantConcurrentRequestsPerModelHighResolution.timing,
    );
    expect(high).toEqual({
      periodS: 10,
      evaluationPeriods: 3,
      datapointsToAlarm: 3,
      threshold: 4,
      comparison: 'GreaterThanThreshold',
      treatMissingData: 'missing',
    });
    expect(low).toMatchObject({
      periodS: 10,
      evaluationPeriods: 90,
      datapointsToAlarm: 90,
      comparison: 'LessThanThreshold',
    });
    expect(low.threshold).toBeCloseTo(3.6, 12);
  });

  it('scales proportionally, at least one instance either way (prevents a +0 scale-out on a barely breaching metric)', () => {
    expect(trackingScaleOut(2, 10, 4)).toBe(5);
    expect(trackingScaleOut(2, 4.1, 4)).toBe(3);
    expect(trackingScaleOut(2, undefined, 4)).toBe(3);
    expect(trackingScaleIn(6, 1, 4)).toBe(2);
    expect(trackingScaleIn(6, 3.9, 4)).toBe(5);
  });
});

describe('scale-out and scale-in decisions', () => {
  const out = (history: ActivityRecord[], nowMs: number, current = 4) =>
    scaleOutDecision({
      history,
      nowMs,
      cooldownS: 60,
      current,
      maxCapacity: 10,
      suspended: false,
      compute: (b) => b * 2,
    });

  it('in a scale-out cooldown computes from the capacity before it, and only a larger result adds (prevents doubling twice on one surge)', () => {
    const history = [done('out', 0, 10_000, 2)]; // 2 -> 4, cooldown until 70 s
    expect(out(history, 30_000)).toBeUndefined(); // 2 x 2 = 4: already there
    expect(out(history, 30_000, 3)).toEqual({ desired: 4, base: 2 });
    expect(out(history, 70_000)).toEqual({ desired: 8, base: 4 }); // cooldown over: from the current 4
  });

  it('caps a scale-out at MaxCapacity and does nothing while suspended', () => {
    expect(out([], 0, 6)).toEqual({ desired: 10, base: 6 });
    expect(
      scaleOutDecision({
        history: [],
        nowMs: 0,
        cooldownS: 60,
        current: 4,
        maxCapacity: 10,
        suspended: true,
        compute: (b) => b * 2,
      }),
    ).toBeUndefined();
  });

  const scaleIn = (history: ActivityRecord[], nowMs: number) =>
    scaleInDecision({
      history,
      nowMs,
      cooldownS: 120,
      current: 4,
      minCapacity: 2,
      suspended: false,
      proposed: 1,
    });

  it('waits for a running activity and for its own cooldown, floors at MinCapacity (prevents removing capacity still arriving)', () => {
    expect(
      scaleIn(
        [{ direction: 'scheduled', status: 'InProgress', startMs: 0, endMs: undefined, cooldownBase: 4 }],
        500_000,
      ),
    ).toBeUndefined();
    expect(scaleIn([done('in', 0, 10_000)], 129_999)).toBeUndefined();
    expect(scaleIn([done('in', 0, 10_000)], 130_000)).toBe(2);
  });

  it('a scale-out after the last scale-in cuts its cooldown short (prevents a surge extending the scale-in wait)', () => {
    expect(scaleIn([done('out', 20_000, 30_000), done('in', 0, 10_000)], 40_000)).toBe(2);
  });
});

describe('step selection', () => {
  const rules = {
    adjustmentType: 'ChangeInCapacity' as const,
    steps: [
      { lower: 0, upper: 4, adjustment: 1 },
      { lower: 4, upper: undefined, adjustment: 3 },
    ],
    minAdjustmentMagnitude: undefined,
    aggregation: 'Maximum' as const,
  };
  const evaluation = (values: number[]) => ({
    state: 'ALARM' as const,
    reason: '',
    evaluated: values.map((value, i) => ({ timestampMs: i, value, breaching: value > 8 })),
    recent: [],
    queryStartMs: 0,
    queryEndMs: 0,
  });
  const alarm = { threshold: 8, comparison: 'GreaterThanThreshold' as const };

  it('picks the step the aggregated excess falls in, lower bound inclusive above the threshold (prevents the wrong step at a boundary)', () => {
    expect(stepDesired(rules, alarm, evaluation([9, 11]), 2)).toBe(3); // max 11: excess 3
    expect(stepDesired(rules, alarm, evaluation([12, 9]), 2)).toBe(5); // max 12: excess 4, the upper step
    expect(stepDesired({ ...rules, aggregation: 'Average' }, alarm, evaluation([12, 9]), 2)).toBe(3);
  });

  it('rounds PercentChangeInCapacity as AWS does and applies MinAdjustmentMagnitude', () => {
    const pct = {
      ...rules,
      adjustmentType: 'PercentChangeInCapacity' as const,
      steps: [{ lower: 0, upper: undefined, adjustment: 50 }],
    };
    expect(stepDesired(pct, alarm, evaluation([9]), 5)).toBe(7); // 2.5 -> 2
    expect(stepDesired(pct, alarm, evaluation([9]), 1)).toBe(2); // 0.5 -> 1
    expect(stepDesired({ ...pct, minAdjustmentMagnitude: 3 }, alarm, evaluation([9]), 2)).toBe(5);
  });
});
