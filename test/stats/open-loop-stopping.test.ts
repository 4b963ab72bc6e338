/**
 * The rules that make an open-loop rung stop when it is decided, and what each prevents:
 * tau measured on w s windows (6 s: a 600 s hold cut in 100, as the command did before) read in 1 s terms, futility by projection, and the
 * dependence checks guarding a PASS only (with the mutation that shows they cannot let a false
 * PASS through). Seeded simulations of src/stats/service-class.ts.
 */
import { describe, expect, it } from 'vitest';
import { FLUCTUATION_MAX, secondsCorrelationTime } from '../../src/stats/open-loop-decision.js';
import { projectedInterval, stillStraddles } from '../../src/stats/open-loop-futility.js';
import { simulateGoodputRung } from '../../src/stats/open-loop-rung-sim.js';
import {
  openLoopServiceClass,
  type ServiceModel,
  serviceCapacity,
  simulateService,
  trueServiceP95,
} from '../../src/stats/service-class.js';

const MD2: ServiceModel = { kind: 'iid', slots: 2, meanServiceMs: 40, cv: 0 };

describe('tau on w s windows in 1 s terms', () => {
  it('keeps independent windows at 1 and a persistence at its length in seconds', () => {
    expect(secondsCorrelationTime(1, 6)).toBe(1);
    expect(secondsCorrelationTime(1, 1)).toBe(1);
    // 2 windows of 6 s beyond one: 12 s, as 13 windows of 1 s would read it.
    expect(secondsCorrelationTime(3, 6)).toBe(13);
    // 1 s windows: as calibrated.
    expect(secondsCorrelationTime(4.5, 1)).toBe(4.5);
  });

  it("reads a plain M/D/2 at 0.8 x capacity as no slow server on the command's 1 s windows (fluctuation <= FLUCTUATION_MAX in >= 9 of 12 rungs), and on 6 s windows read without the conversion as one (12 of 12 above), so rungs near lambda_max can pass", () => {
    // Without the conversion tau's floor of 1 window is 6 s of persistence: fluctuation 13-34.
    let calm = 0;
    let unconverted = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rung = (windowMs: number) =>
        simulateGoodputRung(MD2, {
          rate: 0.8 * serviceCapacity(MD2),
          holdS: 600,
          settleS: 15,
          sloMs: 10_000,
          seed,
          windowMs,
          decision: { rule: { projection: false } },
        });
      if (rung(1000).fluctuation <= FLUCTUATION_MAX) calm++;
      const d = rung(6000);
      // tau in windows times the arrivals of a 6 s window: the reading without the conversion.
      const perWindow = (d.n / d.stoppedAtS) * 6;
      if ((d.correlationWindows * perWindow) / d.correlationLength > FLUCTUATION_MAX) unconverted++;
    }
    expect(unconverted).toBe(12);
    expect(calm).toBeGreaterThanOrEqual(9);
  });
});

describe('futility by projection', () => {
  const last = { spanS: 585, alphaPass: 0.0007, alphaFail: 0.006 };
  it('narrows the interval as 1 / sqrt(n) to the last look, keeping its centre', () => {
    const p = {
      centre: Math.log(200),
      se: 0.2,
      inflation: 1.1,
      sloMs: 200,
      spanS: 146.25,
      last,
      batches: 20,
      maxBatches: 20,
    };
    const now = projectedInterval({ ...p, spanS: 585 });
    const early = projectedInterval(p);
    // A quarter of the span: the same se halves by the last look.
    expect(Math.log(early.high / 1.1 / 200)).toBeCloseTo(Math.log(now.high / 1.1 / 200) / 2, 6);
    expect(stillStraddles(p)).toBe(true);
    // Far inside the SLO with a spread that narrows below it: not futile.
    expect(stillStraddles({ ...p, centre: Math.log(120), se: 0.15 })).toBe(false);
    // A p95 at 0.93 SLO never passes (1.1 x 0.93 > 1): futile however long.
    expect(stillStraddles({ ...p, centre: Math.log(186), se: 0.01 })).toBe(true);
  });

  it('ends a rung at p95 = SLO undecided long before its hold (all 8 rungs by 342 s), and never passes one', () => {
    const rate = 0.8 * serviceCapacity(MD2);
    const truth = trueServiceP95(MD2, rate, { arrivals: 400_000, seed: 3 });
    for (let seed = 1; seed <= 8; seed++) {
      const d = simulateGoodputRung(MD2, {
        rate,
        holdS: 600,
        settleS: 15,
        sloMs: truth,
        seed,
        windowMs: 6000,
      });
      expect(d.verdict).not.toBe('pass');
      expect(d.stoppedAtS).toBeLessThanOrEqual(342);
    }
  }, 30_000);
});

describe('the dependence checks guard a PASS only', () => {
  it('fails an overloaded M/D/2 (1.04 x capacity) before its hold in 12 of 12 rungs; checks that also block a FAIL leave most undecided', () => {
    const rate = 1.04 * serviceCapacity(MD2);
    let failed = 0;
    let failedOld = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const spec = { rate, holdS: 600, settleS: 15, sloMs: 200, seed, windowMs: 6000 } as const;
      const d = simulateGoodputRung(MD2, spec);
      if (d.verdict === 'fail' && d.stoppedAtS < 585) failed++;
      const old = simulateGoodputRung(MD2, { ...spec, decision: { rule: { guardFail: true } } });
      if (old.verdict === 'fail' && old.stoppedAtS < 585) failedOld++;
    }
    expect(failed).toBe(12);
    expect(failedOld).toBeLessThanOrEqual(6);
  }, 30_000);

  it('cannot let a false PASS through: at p95 = SLO on the most dependent cell of the class every PASS of the rule is a PASS of the rule whose checks block both verdicts', () => {
    // The class's most dependent cell: 30 % slower for 20 s of every 60 s (bench:coverage-openloop).
    const cell = openLoopServiceClass('full').find((c) => c.name === 'regime 1.3x for 20 s of 60 s rho 0.7');
    if (!cell) throw new Error('no such cell');
    const regime = cell.model;
    const rate = cell.rho * serviceCapacity(regime);
    const truth = trueServiceP95(regime, rate, { arrivals: 1_000_000, seed: 7 });
    let product = 0;
    let both = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const run = simulateService(regime, { ratePerS: rate, durationS: 600, seed: 9000 + seed });
      // The command's windows at the default hold: 1 s.
      const spec = { rate, holdS: 600, settleS: 15, sloMs: truth, seed, windowMs: 1000 } as const;
      const p = simulateGoodputRung(run, spec).verdict === 'pass';
      const b =
        simulateGoodputRung(run, { ...spec, decision: { rule: { guardFail: true } } }).verdict === 'pass';
      // A FAIL that stops a rung earlier can only take a later PASS away, never add one.
      if (p) expect(b).toBe(true);
      product += p ? 1 : 0;
      both += b ? 1 : 0;
    }
    expect(product).toBeLessThanOrEqual(both);
    // ... and the rule stays within the bound there (60 rungs: at most 6, 10 %, where 5 % is expected).
    expect(product).toBeLessThanOrEqual(6);
  }, 60_000);
});
