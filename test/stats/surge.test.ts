import { describe, expect, it } from 'vitest';
import { fluidOverflowTime, simulateSurge, throughputAt } from '../../src/stats/surge.js';

const serial = [
  { concurrency: 1, rps: 16 },
  { concurrency: 5, rps: 18 },
  { concurrency: 60, rps: 18 },
];

describe('surge simulation', () => {
  it('interpolates the throughput curve and falls to 0 at an idle server', () => {
    expect(throughputAt(serial, 0)).toBe(0);
    expect(throughputAt(serial, 3)).toBe(17);
    expect(throughputAt(serial, 100)).toBe(18);
  });

  it('is reproducible to the digit for the same seed', () => {
    const input = {
      curve: serial,
      targetConcurrency: 30,
      queueLimit: 40,
      surgeRatio: 1.05,
      horizonS: 20,
      trials: 300,
    };
    expect(simulateSurge(input)).toEqual(simulateSurge(input));
  });

  it('really applies the surge: a bigger surge overflows more often', () => {
    const common = { curve: serial, targetConcurrency: 30, queueLimit: 40, horizonS: 10, trials: 500 };
    const mild = simulateSurge({ ...common, surgeRatio: 1.0 });
    const strong = simulateSurge({ ...common, surgeRatio: 1.4 });
    expect(strong.overflowProbability).toBeGreaterThan(mild.overflowProbability);
    expect(strong.arrivalRate).toBeCloseTo(1.4 * 18, 10);
  });

  it('lets a parallel server absorb a surge its throughput covers (no false alarm)', () => {
    const parallel = [
      { concurrency: 1, rps: 10 },
      { concurrency: 50, rps: 500 },
    ];
    const result = simulateSurge({
      curve: parallel,
      targetConcurrency: 20,
      queueLimit: 50,
      surgeRatio: 1.25,
      horizonS: 60,
      trials: 200,
    });
    expect(result.overflowProbability).toBe(0);
    expect(result.fluidOverflowS).toBeNull();
  });

  it('computes the fluid time to overflow as headroom over net growth for a flat curve', () => {
    // 12.5 requests of headroom filled at (1.25 - 1) * 18 = 4.5 requests/s.
    expect(fluidOverflowTime([{ concurrency: 1, rps: 18 }], 37.5, 50, 22.5, 1000)).toBeCloseTo(12.5 / 4.5, 2);
  });
});
