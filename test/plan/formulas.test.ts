import { describe, expect, it } from 'vitest';
import {
  instancesFor,
  naiveInstances,
  ratioNearest,
  scaleBand,
  scaleInCooldownS,
  scaleOutCooldownS,
  smallestSafeMinimum,
  waitBudgetS,
} from '../../src/plan/formulas.js';

describe('plan formulas', () => {
  it('places scale-out at (1-h) Q_max and scale-in at (1-2h) Q_max', () => {
    expect(scaleBand(50, 1.25)).toEqual({ h: 0.25, scaleOutConcurrency: 37.5, scaleInConcurrency: 25 });
  });

  it('finds the smallest safe minimum without float noise (r = 1.5 gives exactly 3)', () => {
    expect(smallestSafeMinimum(37.5, 25)).toBe(3);
    expect(smallestSafeMinimum(45, 40)).toBe(9);
    expect(smallestSafeMinimum(10, 2)).toBe(2);
    expect(smallestSafeMinimum(10, 0)).toBeNull();
  });

  it('clamps cooldowns to their bounds', () => {
    expect(scaleOutCooldownS(320.25)).toBe(30);
    expect(scaleOutCooldownS(12)).toBe(10);
    expect(scaleOutCooldownS(45)).toBe(22);
    expect(scaleInCooldownS(320.25)).toBe(960);
    expect(scaleInCooldownS(50)).toBe(300);
  });

  it('never lets the wait budget go negative', () => {
    expect(waitBudgetS(3000, 0.0661)).toBeCloseTo(2.9339, 4);
    expect(waitBudgetS(100, 0.5)).toBe(0);
  });

  it('takes R from the rung nearest the target, ties toward the higher rung', () => {
    const points = [
      { concurrency: 30, ratio: 0.9 },
      { concurrency: 40, ratio: 1.1 },
    ];
    expect(ratioNearest(points, 35)?.concurrency).toBe(40);
    expect(ratioNearest(points, 31)?.concurrency).toBe(30);
    expect(ratioNearest([], 31)).toBeNull();
  });

  it('sizes by throughput for rps and by target concurrency for streams', () => {
    expect(instancesFor({ unit: 'rps', value: 5000 }, 17.8875, 37.5)).toBe(280);
    expect(instancesFor({ unit: 'streams', value: 300 }, 17.8875, 37.5)).toBe(8);
    expect(instancesFor({ unit: 'rps', value: 0 }, 17.8875, 37.5)).toBe(0);
    expect(naiveInstances(5000, 0.0613, 37.5)).toBe(9);
  });
});
