/**
 * Proof, by seeded simulation of the closed loop itself, that the rung decision keeps its
 * calibrated guarantee over a reduced version of its class (src/stats/closed-loop-class.ts; `npm
 * run bench:coverage` prints the whole one): i.i.d., regime-switching (30 % slower spells of 5-10
 * s), batching and replayed Kokoro device service. The rung simulated is the rung's own judge
 * (RungJudge.step through simulateRung) with the adaptive defaults.
 *
 * Tolerances are set to fail the wrong answer, not to absorb noise: every assertion below fails
 * for at least one of the harmful variants of the decision listed in docs/statistics.md
 * (symmetric tails, no alpha spending, no batching, half-size batches), each of which was applied
 * and seen to fail.
 */
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { deriveDeviceProfile } from '../../src/analysis/device-profile.js';
import { KOKORO_G5_QMAX } from '../../src/commands/device.js';
import { readArtifact } from '../../src/model/index.js';
import { type ClassCell, calibrationClass } from '../../src/stats/closed-loop-class.js';
import { simulateClosedLoop, simulateRung, trueP95 } from '../../src/stats/closed-loop-sim.js';
import { quantileConfidenceInterval, sortedAscending } from '../../src/stats/quantiles.js';

const ROOT = join(import.meta.dirname, '..', '..');
const device = deriveDeviceProfile(readArtifact('qmax', join(ROOT, KOKORO_G5_QMAX)), 'kokoro').profile;

/** The reduced class: the cells where a wrong decision shows first. */
const PICK: Array<[ClassCell['family'], string, number, number]> = [
  ['iid', 'iid serial CV 0.3', 16, 60],
  ['regime', 'regime 5/10 s', 16, 100],
  ['regime', 'regime 10/10 s', 4, 100],
  ['batching', 'batching <= 8', 16, 40],
  ['replay', 'Kokoro replay', 32, 40],
];
const HOLD = { holdS: 120, measureS: 30, settleS: 10, minSamples: 100 };

interface CellResult {
  cell: ClassCell;
  truth: number;
  rungs: number;
  passAtSlo: number;
  passAbove: number;
  power: number;
  intervals: number;
  covered: number;
  upperMiss: number;
  iidCovered: number;
}

const results: CellResult[] = [];

beforeAll(() => {
  const all = calibrationClass(device, 'reduced');
  for (const [index, [family, label, n, reps]] of PICK.entries()) {
    const cell = all.find((c) => c.family === family && c.label === label && c.n === n);
    if (!cell) throw new Error(`no cell ${label} N ${n} in the reduced class`);
    const truth = trueP95(cell.server, n, { completions: 600_000, seed: 101 + index });
    const r: CellResult = {
      cell,
      truth,
      rungs: 0,
      passAtSlo: 0,
      passAbove: 0,
      power: 0,
      intervals: 0,
      covered: 0,
      upperMiss: 0,
      iidCovered: 0,
    };
    for (let rep = 0; rep < reps; rep++) {
      const run = simulateClosedLoop(cell.server, {
        outstanding: n,
        durationS: 125,
        seed: 7919 * (index + 1) + rep,
      });
      const rung = { ...HOLD, concurrency: n, mode: 'adaptive' as const };
      const at = simulateRung(run, { ...rung, sloMs: truth });
      r.rungs++;
      if (at.decision.verdict === 'pass') r.passAtSlo++;
      if (at.decision.interval) {
        r.intervals++;
        if (at.decision.interval.low <= truth && truth <= at.decision.interval.high) r.covered++;
        if (at.decision.interval.high < truth) r.upperMiss++;
      }
      if (simulateRung(run, { ...rung, sloMs: truth / 1.05 }).decision.verdict === 'pass') r.passAbove++;
      if (rep % 2 === 0 && simulateRung(run, { ...rung, sloMs: truth * 1.1 }).decision.verdict === 'pass')
        r.power++;
      // The interval for independent samples on the same window: the control that shows the test can fail.
      const from = run.atMs.findIndex((t) => t >= 10_000);
      const iid = quantileConfidenceInterval(sortedAscending(Array.from(run.ttfabMs.subarray(from))), 0.95);
      if (iid && iid.low <= truth && truth <= iid.high) r.iidCovered++;
    }
    results.push(r);
  }
}, 900_000);

const sum = (pick: (r: CellResult) => number, which = results): number =>
  which.reduce((s, r) => s + pick(r), 0);
const regime = () => results.filter((r) => r.cell.family === 'regime');

describe('rung decision over its class (i.i.d., regime-switching, batching, replayed Kokoro service)', () => {
  it('passes a rung whose true p95 equals the SLO at most 5 % of the time in every cell, 3 % pooled', () => {
    for (const r of results) {
      expect(r.passAtSlo / r.rungs, `${r.cell.label} N ${r.cell.n}`).toBeLessThanOrEqual(0.05);
    }
    expect(sum((r) => r.passAtSlo) / sum((r) => r.rungs)).toBeLessThanOrEqual(0.03);
  });

  it('passes a rung whose true p95 is 5 % above the SLO at most 1.5 % of the time (pooled)', () => {
    expect(sum((r) => r.passAbove) / sum((r) => r.rungs)).toBeLessThanOrEqual(0.015);
  });

  it('on slow fluctuations (regime switching) its upper end falls below the true p95 in at most 5 % of rungs', () => {
    expect(sum((r) => r.upperMiss, regime()) / sum((r) => r.intervals, regime())).toBeLessThanOrEqual(0.05);
  });

  it('its reported interval covers the true p95 at least 93 % of the time (pooled)', () => {
    expect(sum((r) => r.covered) / sum((r) => r.intervals)).toBeGreaterThanOrEqual(0.93);
  });

  it('still passes most rungs whose true p95 is 10 % inside the SLO on a steady server (power)', () => {
    const steady = results.filter((r) => r.cell.family === 'iid' || r.cell.family === 'replay');
    expect(sum((r) => r.power, steady) / sum((r) => Math.ceil(r.rungs / 2), steady)).toBeGreaterThanOrEqual(
      0.5,
    );
  });

  it('the interval for independent samples fails the coverage check on the same runs (the test has teeth)', () => {
    const cell = results.find((r) => r.cell.family === 'iid') as CellResult;
    expect(cell.iidCovered / cell.rungs).toBeLessThan(0.8);
  });
});
