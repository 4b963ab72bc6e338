/**
 * Each part of the open-loop rung decision is needed: the rule with one part changed (a mutant,
 * `OpenLoopRule`) must fail one of these tests. Which test catches which mutant:
 *
 * | mutant                                   | caught by                                              |
 * |------------------------------------------|--------------------------------------------------------|
 * | symmetric tails (upperShare 0.5)         | 'gives the upper end a tenth of the alpha'             |
 * | no alpha spending                        | 'spends at most alpha over all looks ...'              |
 * | no batching (batches of 20 whatever L)   | 'needs 30 (1 + L)^2 arrivals a batch ...', and         |
 * |                                          | 'covers the true p95 of a queue ... (no batching fails)'|
 * | half-size batches (minBatchFactor 0.5)   | 'needs 30 (1 + L)^2 arrivals a batch ...'              |
 * | batch constant 4 instead of 30           | 'needs 30 (1 + L)^2 arrivals a batch ...'              |
 * | (1 + L) instead of (1 + L)^2             | 'needs 30 (1 + L)^2 arrivals a batch ...'              |
 * | overflows left out of the p95            | 'never passes a rung with more than 5 % overflows ...' |
 *
 * Seeded simulations (src/stats/service-class.ts); tolerances are binomial bands that the
 * mutant's answer falls outside.
 */
import { describe, expect, it } from 'vitest';
import {
  decideOpenLoopLook,
  lookSpending,
  OPEN_LOOP_ALPHA,
  OPEN_LOOP_RULE,
  type OpenLoopRule,
  type WindowedSamples,
} from '../../src/stats/open-loop-decision.js';
import { simulateGoodputRung } from '../../src/stats/open-loop-rung-sim.js';
import { type ServiceModel, simulateService, trueServiceP95 } from '../../src/stats/service-class.js';
import { studentTQuantile } from '../../src/stats/student-t.js';

const MUTANTS: Record<string, Partial<OpenLoopRule>> = {
  symmetric: { upperShare: 0.5 },
  noSpending: { alphaSpending: false },
  noBatching: { batching: false },
  halfBatches: { minBatchFactor: 0.5 },
  constant4: { batchCorrelations: 4 },
  linearL: { correlationExponent: 1 },
  overflowsLeftOut: { countMisses: false },
};

/** Windows of synthetic samples: `perWindow` answered arrivals a window, values drawn from `draw`. */
function synthetic(
  windows: number,
  perWindow: number,
  meanInSystem: number,
  draw: (i: number) => number,
): WindowedSamples {
  const values: number[][] = [];
  let i = 0;
  for (let w = 0; w < windows; w++) values.push(Array.from({ length: perWindow }, () => draw(i++)));
  return {
    counts: values.map((v) => v.length),
    meanInSystem,
    quantile: (a, b, q) => {
      const s = values
        .slice(a, b)
        .flat()
        .sort((x, y) => x - y);
      if (s.length === 0) return null;
      const pos = (s.length - 1) * q;
      const lo = Math.floor(pos);
      return (
        (s[lo] as number) + ((s[Math.min(lo + 1, s.length - 1)] as number) - (s[lo] as number)) * (pos - lo)
      );
    },
  };
}

/** A deterministic spread of latencies (a sawtooth over windows). */
const saw = (i: number) => 100 + ((i * 7919) % 997) / 10 + (Math.floor(i / 300) % 3) * 5;

describe('open-loop decision: each part is needed (mutants fail)', () => {
  it('gives the upper end a tenth of the alpha (a false PASS depends on it), the lower end the rest', () => {
    const data = synthetic(100, 200, 1, saw);
    const flat = { upperInflation: 1, fluctuationInflation: 1 };
    const check = (rule: Partial<OpenLoopRule>) => {
      const looks = lookSpending(100, OPEN_LOOP_ALPHA, { ...OPEN_LOOP_RULE, ...rule, ...flat });
      const last = looks[looks.length - 1] as (typeof looks)[number];
      const d = decideOpenLoopLook(
        data,
        { sloMs: 1e6, rule: { ...rule, ...flat } },
        { ...last, final: true },
      );
      const centre = Math.log(d.p95 as number);
      const up = Math.log(d.interval?.high as number) - centre;
      const down = centre - Math.log(d.interval?.low as number);
      return {
        ratio: up / down,
        expected:
          studentTQuantile(1 - last.alphaPass, d.batches - 1) /
          studentTQuantile(1 - last.alphaFail, d.batches - 1),
      };
    };
    const product = check({});
    expect(product.ratio).toBeGreaterThan(1.3);
    expect(product.ratio).toBeCloseTo(product.expected, 6);
    expect(check(MUTANTS.symmetric as Partial<OpenLoopRule>).ratio).toBeLessThan(1.05);
  });

  it('spends at most alpha over all looks on each side, almost none at the first look (O\u2019Brien-Fleming type)', () => {
    const sum = (rule: Partial<OpenLoopRule>) => {
      const looks = lookSpending(585, OPEN_LOOP_ALPHA, { ...OPEN_LOOP_RULE, ...rule });
      return {
        pass: looks.reduce((a, l) => a + l.alphaPass, 0),
        fail: looks.reduce((a, l) => a + l.alphaFail, 0),
        first: (looks[0] as { alphaPass: number }).alphaPass,
        count: looks.length,
      };
    };
    const product = sum({});
    expect(product.count).toBeGreaterThan(5);
    expect(product.pass).toBeLessThanOrEqual(OPEN_LOOP_ALPHA * 0.1 + 1e-12);
    expect(product.fail).toBeLessThanOrEqual(OPEN_LOOP_ALPHA * 0.9 + 1e-12);
    expect(product.first).toBeLessThan((OPEN_LOOP_ALPHA * 0.1) / product.count + 1e-9);
    const mutant = sum(MUTANTS.noSpending as Partial<OpenLoopRule>);
    expect(mutant.pass).toBeGreaterThan(OPEN_LOOP_ALPHA * 0.1 * 2);
  });

  it('needs 30 (1 + L)^2 arrivals a batch before it passes (L 4: 750), whatever the batch rule mutant says', () => {
    // L = 4: kappa = 25, a batch >= 750, five of them 3750 arrivals. 3000 arrivals: too few to pass.
    const scope = (rule: Partial<OpenLoopRule>, n: number) =>
      decideOpenLoopLook(
        synthetic(100, n / 100, 4, saw),
        { sloMs: 1e6, rule },
        { spanS: 600, alphaPass: 0.005, alphaFail: 0.045, final: true },
      ).scope;
    expect(scope({}, 3000)).not.toBe('two-sided');
    expect(scope({}, 4000)).toBe('two-sided');
    for (const name of ['noBatching', 'halfBatches', 'constant4', 'linearL']) {
      expect(scope(MUTANTS[name] as Partial<OpenLoopRule>, 3000), name).toBe('two-sided');
    }
  });

  it('never passes a rung with more than 5 % overflows (misses at +infinity), where leaving them out passes it', () => {
    // A serial 40 ms server that refuses arrivals beyond 3 in the system, at 95 % of its capacity:
    // ~8 % overflow, the answered ones all within 3 x 40 ms.
    const model: ServiceModel = { kind: 'iid', slots: 1, meanServiceMs: 40, cv: 0.3 };
    let productPass = 0;
    let mutantPass = 0;
    const REPS = 20;
    for (let rep = 0; rep < REPS; rep++) {
      const run = simulateService(model, { ratePerS: 23.75, durationS: 300, seed: 900 + rep, queueLimit: 3 });
      const overflow = run.ttfabMs.filter((t) => !Number.isFinite(t)).length / run.ttfabMs.length;
      expect(overflow).toBeGreaterThan(0.05);
      const spec = { rate: 23.75, holdS: 300, settleS: 15, sloMs: 400, seed: 0 };
      if (simulateGoodputRung(run, spec).verdict === 'pass') productPass++;
      const mutant = simulateGoodputRung(run, {
        ...spec,
        decision: { rule: MUTANTS.overflowsLeftOut as Partial<OpenLoopRule> },
      });
      if (mutant.verdict === 'pass') mutantPass++;
    }
    expect(productPass).toBe(0);
    expect(mutantPass).toBeGreaterThan(REPS / 2);
  });

  it('covers the true p95 of a queue (M/D/1, rho 0.9) in at least 85 % of 60 rungs; no batching fails it (under 70 %)', () => {
    const model: ServiceModel = { kind: 'iid', slots: 1, meanServiceMs: 60, cv: 0 };
    const rate = 15;
    const truth = trueServiceP95(model, rate, { arrivals: 600_000, seed: 3 });
    const REPS = 60;
    const covered = (rule: Partial<OpenLoopRule>) => {
      let decided = 0;
      let hits = 0;
      for (let rep = 0; rep < REPS; rep++) {
        const d = simulateGoodputRung(model, {
          rate,
          holdS: 600,
          settleS: 15,
          sloMs: truth,
          seed: 7000 + rep,
          decision: { rule },
        });
        if (d.interval95) {
          decided++;
          if (d.interval95.low <= truth && truth <= d.interval95.high) hits++;
        }
      }
      return { decided, share: decided > 0 ? hits / decided : 0 };
    };
    // The interval at the hold, as batching shapes it (the projection ends straddling rungs sooner,
    // on wider intervals, which would hide what batching does).
    const product = covered({ projection: false });
    expect(product.decided).toBeGreaterThan(REPS * 0.8);
    expect(product.share).toBeGreaterThanOrEqual(0.85);
    const mutant = covered({ ...(MUTANTS.noBatching as Partial<OpenLoopRule>), projection: false });
    expect(mutant.share).toBeLessThan(0.7);
  }, 60_000);
});
