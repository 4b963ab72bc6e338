/**
 * Proof, by seeded simulation of the closed loop itself, that the rung decision keeps its stated
 * level on closed-loop latencies (a reduced grid; `npm run bench:coverage` prints the whole one).
 * The rung procedure simulated is the rung's own judge (RungJudge.step through simulateRung).
 *
 * Thresholds are pooled over the cells (1000 one-look intervals, 240 adaptive rungs per SLO):
 * a single cell of 200 replications has a standard error of ~1.5 % around 95 %, so per cell only
 * a gross failure is asserted (below 90 %). The rung uses the adaptive defaults (hold 120 s,
 * measure 30 s, settle 10 s): with much shorter holds (fewer turns of the loop per window) the
 * false-pass rate rises (about 6 % at a 60 s hold, N 16, in simulation).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type ClosedLoopSamples,
  type SimulatedServer,
  simulateClosedLoop,
  simulateRung,
  trueP95,
} from '../../src/stats/closed-loop-sim.js';
import { quantileConfidenceInterval, sortedAscending } from '../../src/stats/quantiles.js';

interface Cell {
  name: string;
  server: SimulatedServer;
  n: number;
  /** Replications of the adaptive rung (the expensive part), 0: coverage only. */
  adaptiveReps: number;
}

const CELLS: Cell[] = [
  {
    name: 'serial N 1 CV 0.1',
    server: { slots: 1, meanServiceMs: 60, serviceCv: 0.1 },
    n: 1,
    adaptiveReps: 0,
  },
  {
    name: 'serial N 16 CV 0.3',
    server: { slots: 1, meanServiceMs: 60, serviceCv: 0.3 },
    n: 16,
    adaptiveReps: 150,
  },
  {
    name: 'serial N 64 CV 0.5',
    server: { slots: 1, meanServiceMs: 60, serviceCv: 0.5 },
    n: 64,
    adaptiveReps: 0,
  },
  {
    name: '4-slot N 4 CV 0.5',
    server: { slots: 4, meanServiceMs: 240, serviceCv: 0.5 },
    n: 4,
    adaptiveReps: 0,
  },
  {
    name: '4-slot N 32 CV 0.3',
    server: { slots: 4, meanServiceMs: 240, serviceCv: 0.3 },
    n: 32,
    adaptiveReps: 90,
  },
];
const ONE_LOOK_REPS = 200;
const HOLD = { holdS: 120, measureS: 30, settleS: 10, minSamples: 100 };

interface CellResult {
  truth: number;
  covered: number;
  intervals: number;
  iidCovered: number;
  adaptive: number;
  passAtSlo: number;
  passAbove: number;
}

const results = new Map<string, CellResult>();

beforeAll(() => {
  for (const [index, cell] of CELLS.entries()) {
    const truth = trueP95(cell.server, cell.n, { completions: 1_000_000, seed: 101 + index });
    const r: CellResult = {
      truth,
      covered: 0,
      intervals: 0,
      iidCovered: 0,
      adaptive: 0,
      passAtSlo: 0,
      passAbove: 0,
    };
    for (let rep = 0; rep < ONE_LOOK_REPS; rep++) {
      const run: ClosedLoopSamples = simulateClosedLoop(cell.server, {
        outstanding: cell.n,
        durationS: 125,
        seed: 7919 * (index + 1) + rep,
      });
      // One look at 95 % over 10-120 s: the interval a fixed rung reports.
      const one = simulateRung(run, {
        concurrency: cell.n,
        mode: 'fixed',
        sloMs: truth,
        holdS: 120,
        measureS: 110,
        settleS: 10,
      }).decision;
      if (one.interval) {
        r.intervals++;
        if (one.interval.low <= truth && truth <= one.interval.high) r.covered++;
      }
      // The interval this replaced, on the same window: the control that shows the test can fail.
      const window = Array.from(run.ttfabMs.subarray(...windowIndexes(run, 10_000, 120_000)));
      const iid = quantileConfidenceInterval(sortedAscending(window), 0.95);
      if (iid && iid.low <= truth && truth <= iid.high) r.iidCovered++;
      if (rep < cell.adaptiveReps) {
        const adaptive = { ...HOLD, concurrency: cell.n, mode: 'adaptive' as const };
        r.adaptive++;
        if (simulateRung(run, { ...adaptive, sloMs: truth }).decision.verdict === 'pass') r.passAtSlo++;
        if (simulateRung(run, { ...adaptive, sloMs: truth / 1.02 }).decision.verdict === 'pass')
          r.passAbove++;
      }
    }
    results.set(cell.name, r);
  }
}, 120_000);

function windowIndexes(run: ClosedLoopSamples, fromMs: number, toMs: number): [number, number] {
  let begin = 0;
  while (begin < run.atMs.length && (run.atMs[begin] as number) < fromMs) begin++;
  let end = begin;
  while (end < run.atMs.length && (run.atMs[end] as number) <= toMs) end++;
  return [begin, end];
}

const sum = (pick: (r: CellResult) => number): number =>
  [...results.values()].reduce((s, r) => s + pick(r), 0);

describe('rung decision on simulated closed loops (serial and 4-slot, N 1-64, CV 0.1-0.5)', () => {
  it('its 95 % p95 interval covers the true p95 at least 93 % of the time (pooled), every cell above 90 %', () => {
    const intervals = sum((r) => r.intervals);
    expect(intervals).toBeGreaterThan(0.95 * ONE_LOOK_REPS * CELLS.length);
    expect(sum((r) => r.covered) / intervals).toBeGreaterThanOrEqual(0.93);
    for (const [name, r] of results) {
      expect(r.covered / r.intervals, name).toBeGreaterThan(0.9);
    }
  });

  it('the interval for independent samples fails the same check on correlated cells (the test has teeth)', () => {
    const correlated = results.get('serial N 16 CV 0.3') as CellResult;
    expect(correlated.iidCovered / ONE_LOOK_REPS).toBeLessThan(0.8);
  });

  it('the whole adaptive rung (looks included) passes at most 5 % of the time when the true p95 equals the SLO', () => {
    const rungs = sum((r) => r.adaptive);
    expect(rungs).toBe(240);
    expect(sum((r) => r.passAtSlo) / rungs).toBeLessThanOrEqual(0.05);
  });

  it('and at most 2.5 % of the time when the true p95 is 2 % above the SLO', () => {
    expect(sum((r) => r.passAbove) / sum((r) => r.adaptive)).toBeLessThanOrEqual(0.025);
  });
});
