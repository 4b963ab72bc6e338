import { describe, expect, it } from 'vitest';
import {
  analyzeSurge,
  DEFAULT_WORK_BUDGET,
  fluidOverflowTime,
  overflowProbability,
  stationaryDistribution,
  throughputAt,
} from '../../src/stats/surge.js';
import { monteCarloOverflow } from './surge-monte-carlo.js';

const serial = [
  { concurrency: 1, rps: 16 },
  { concurrency: 5, rps: 18 },
  { concurrency: 60, rps: 18 },
];
/** The published Kokoro-82M ladder (usable rungs, requests/s). */
const kokoro = [
  { concurrency: 1, rps: 16.083333333333332 },
  { concurrency: 5, rps: 17.9 },
  { concurrency: 10, rps: 17.916666666666668 },
  { concurrency: 20, rps: 17.916666666666668 },
  { concurrency: 30, rps: 17.9 },
  { concurrency: 40, rps: 17.883333333333333 },
  { concurrency: 50, rps: 17.866666666666667 },
  { concurrency: 60, rps: 17.9 },
];
const parallel = [
  { concurrency: 1, rps: 10 },
  { concurrency: 50, rps: 500 },
];

const poissonUpperTail = (mean: number, k: number): number => {
  let term = Math.exp(-mean);
  let below = 0;
  for (let j = 0; j < k; j++) {
    below += term;
    term *= mean / (j + 1);
  }
  return 1 - below;
};

describe('throughput curve', () => {
  it('interpolates between rungs and falls to 0 at an idle server', () => {
    expect(throughputAt(serial, 0)).toBe(0);
    expect(throughputAt(serial, 3)).toBe(17);
    expect(throughputAt(serial, 100)).toBe(18);
  });
});

describe('exact overflow probability (uniformization)', () => {
  it('equals the closed form of a pure-birth chain: P(Poisson(lambda T) >= Q_max - n0 + 1)', () => {
    const result = overflowProbability({ curve: [], queueLimit: 10, arrivalRate: 2, start: 4, horizonS: 3 });
    expect(result.exact).toBe(true);
    expect(result.probability).toBeCloseTo(poissonUpperTail(6, 7), 10);
  });

  it('agrees with the seeded Monte Carlo within its standard error (three chains, mid-range probabilities)', () => {
    const cases = [
      // A serial server at 100 % load: a zero-drift walk from 15 to 20.
      { curve: serial, queueLimit: 20, arrivalRate: 18, start: 15, horizonS: 5 },
      // A parallel server pushed past its throughput at 40.
      { curve: parallel, queueLimit: 45, arrivalRate: 420, start: 30, horizonS: 0.2 },
      // Held at 90 % of a serial server (from its stationary state), then surged 1.25x.
      {
        curve: serial,
        queueLimit: 25,
        arrivalRate: 1.25 * 0.9 * 18,
        start: stationaryDistribution(serial, 25, 0.9 * 18),
        horizonS: 3,
      },
    ];
    for (const [i, c] of cases.entries()) {
      const exact = overflowProbability(c);
      const mc = monteCarloOverflow({ ...c, trials: 20_000, seed: 17 + i });
      expect(exact.exact).toBe(true);
      expect(exact.probability).toBeGreaterThan(0.05);
      expect(exact.probability).toBeLessThan(0.95);
      // Within 3 standard errors (~0.3 % chance for a correct computation to fall outside).
      expect(Math.abs(exact.probability - mc.probability)).toBeLessThan(3 * mc.standardError);
    }
  });

  it('is deterministic: the same inputs give the same probability to the digit', () => {
    const input = { curve: kokoro, queueLimit: 50, arrivalRate: 17.8875, start: 38, horizonS: 320.248496 };
    expect(overflowProbability(input)).toEqual(overflowProbability(input));
  });

  it('really applies the surge: a bigger surge overflows more often', () => {
    const common = { curve: serial, queueLimit: 40, start: 30, horizonS: 10 };
    const mild = overflowProbability({ ...common, arrivalRate: 18 });
    const strong = overflowProbability({ ...common, arrivalRate: 1.4 * 18 });
    expect(strong.probability).toBeGreaterThan(mild.probability);
  });

  it('bounds its work at absurd rates (plan stays fast): counted state-updates, never wall time', () => {
    const absurd = parallel.map((p) => ({ concurrency: p.concurrency, rps: p.rps * 1e6 }));
    for (const arrivalRate of [1e6, 5e8, 1e9]) {
      const r = overflowProbability({
        curve: absurd,
        queueLimit: 2000,
        arrivalRate,
        start: 1500,
        horizonS: 1e5,
      });
      expect(r.work).toBeLessThanOrEqual(DEFAULT_WORK_BUDGET);
      expect(r.upperBound).toBeGreaterThanOrEqual(r.probability);
      if (!r.exact) expect(r.method).toBe('uniformization-lower-bound');
    }
    // Strong drift either way ends long before the horizon's ~1e14 steps: absorbed, or converged.
    const up = overflowProbability({
      curve: serial,
      queueLimit: 50,
      arrivalRate: 1e7,
      start: 10,
      horizonS: 3600,
    });
    expect(up).toMatchObject({ exact: true, ended: 'absorbed' });
    expect(up.probability).toBeCloseTo(1, 12);
    expect(up.steps).toBeLessThan(1000);
    const down = overflowProbability({
      curve: parallel.map((p) => ({ ...p, rps: p.rps * 1e4 })),
      queueLimit: 50,
      arrivalRate: 1e4,
      start: 10,
      horizonS: 3600,
    });
    expect(down).toMatchObject({ exact: true, ended: 'quasi-stationary' });
    expect(down.steps).toBeLessThan(10_000);
  });
});

describe('surge analysis (what the surge_survival finding reports)', () => {
  const anchor = {
    curve: kokoro,
    targetConcurrency: 37.5,
    queueLimit: 50,
    surgeRatio: 1.25,
    horizonS: 320.248496,
  };

  it('on the Kokoro anchor the queue overflows with or without the surge: no throughput headroom', () => {
    const a = analyzeSurge(anchor);
    expect(a.start).toBe(38);
    expect(a.exact).toBe(true);
    expect(a.cause).toBe('no-headroom');
    expect(a.surge.probability).toBeCloseTo(1, 6);
    expect(a.baseline.probability).toBeGreaterThan(0.99);
    expect(a.utilization).toBeGreaterThan(0.99);
    expect(a.fluidOverflowS).toBeCloseTo(12 / (22.359375 - throughputAt(kokoro, 44)), 0);
  });

  it('its headroom fix really changes the verdict: at the recommended load the surge stays within 10 %, just above it not', () => {
    const a = analyzeSurge(anchor);
    const u = a.headroomUtilization as number;
    expect(u).toBeGreaterThan(0.3);
    expect(u).toBeLessThan(1);
    const at = (share: number) =>
      overflowProbability({
        curve: kokoro,
        queueLimit: 50,
        arrivalRate: 1.25 * share * a.capacityRps,
        start: stationaryDistribution(kokoro, 50, share * a.capacityRps),
        horizonS: anchor.horizonS,
      }).probability;
    expect(at(u)).toBeLessThanOrEqual(0.1);
    expect(at(u + 1 / 256)).toBeGreaterThan(0.1);
    // Lowering the surge ratio would not: the baseline (k = 1) already overflows.
    expect(analyzeSurge({ ...anchor, surgeRatio: 1 }).surge.probability).toBeGreaterThan(0.1);
  });

  it('names the surge as the cause when the target alone holds, with the largest surge it survives', () => {
    const input = { curve: parallel, targetConcurrency: 20, queueLimit: 40, surgeRatio: 1.4, horizonS: 1 };
    const a = analyzeSurge(input);
    expect(a.baseline.probability).toBeLessThanOrEqual(0.1);
    expect(a.surge.probability).toBeGreaterThan(0.1);
    expect(a.cause).toBe('surge');
    const k = a.survivableSurgeRatio as number;
    expect(k).toBeGreaterThan(1);
    expect(k).toBeLessThan(1.4);
    const p = (ratio: number) => analyzeSurge({ ...input, surgeRatio: ratio }).surge.probability;
    expect(p(k)).toBeLessThanOrEqual(0.1);
    expect(p(k + 0.4 / 256)).toBeGreaterThan(0.1);
  });

  it('lets a parallel server absorb a surge its throughput covers (no false alarm)', () => {
    const a = analyzeSurge({
      curve: parallel,
      targetConcurrency: 20,
      queueLimit: 50,
      surgeRatio: 1.25,
      horizonS: 60,
    });
    // Balance at 25 in flight, far below Q_max 50: only a rare excursion overflows.
    expect(a.surge.probability).toBeLessThan(0.05);
    expect(a.cause).toBe('none');
    expect(a.fluidOverflowS).toBeNull();
  });

  it('bounds the whole analysis at absurd rates: at most 10 computations, each within its budget', () => {
    const absurd = kokoro.map((p) => ({ concurrency: p.concurrency, rps: p.rps * 1e5 }));
    const a = analyzeSurge({
      curve: absurd,
      targetConcurrency: 375,
      queueLimit: 500,
      surgeRatio: 1.25,
      horizonS: 1e5,
    });
    expect(a.evaluations).toBeLessThanOrEqual(10);
    expect(a.work).toBeLessThanOrEqual(10 * DEFAULT_WORK_BUDGET);
    expect(a.cause).toBe('no-headroom');
  });
});

describe('fluid time to overflow (exact on the piecewise-linear curve)', () => {
  it('is headroom over net growth on a flat curve', () => {
    // 12.5 requests of headroom filled at (1.25 - 1) * 18 = 4.5 requests/s.
    expect(fluidOverflowTime([{ concurrency: 1, rps: 18 }], 37.5, 50, 22.5, 1000)).toBeCloseTo(
      12.5 / 4.5,
      12,
    );
  });

  it('integrates a rising curve in closed form, and never reaches a limit past the balance point', () => {
    // X(n) = 10 n: dn/dt = 600 - 10 n from 10 to 40 takes ln(500 / 200) / 10.
    expect(fluidOverflowTime(parallel, 10, 40, 600, 1000)).toBeCloseTo(Math.log(2.5) / 10, 12);
    expect(fluidOverflowTime(parallel, 10, 40, 300, 1000)).toBeNull(); // balance at n = 30
  });
});
