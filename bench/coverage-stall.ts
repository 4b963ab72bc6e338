// Coverage and false-PASS rates of the continuity decision: the first-audio rung decision
// (src/stats/rung-decision.ts RungJudge, the same as src/load/closed/rung.ts builds for the stall
// SLO) judging per-stream stall times, over the class of simulated streaming devices of
// src/stats/stall-sim.ts `stallClass` (processor-sharing lanes, chunk noise, slow spells). Each
// replication simulates 125 s of the closed loop and runs the adaptive rung with the defaults
// (hold 120 s, measure 30 s, settle 10 s, --min-samples 100) three times over the same run: the
// underrun SLO at the true stall p95, at true p95 / 1.05 (the truth 5 % above the SLO) and at
// 1.1 x the truth (power), with the continuity judge's PASS margin (STALL_PASS_MARGIN; --margin). The true p95 of a cell comes from one run of 400,000 streams.
//
//   npm run bench:coverage-stall [-- --reps 100 --grid full|reduced --margin 0.1 --only 'spells 5/15']
//
// Columns: zeros (share of streams that never stalled), decided (rungs with an interval), cov
// (its 95 % interval covers the truth), miss (upper end below the truth), pass= (PASS with the
// SLO at the truth: the contract <= 5 %), pass+5, power, end s (at p95 = SLO).
import { availableParallelism, loadavg } from 'node:os';
import { simulateRung } from '../src/stats/closed-loop-sim.js';
import { STALL_PASS_MARGIN } from '../src/stats/rung-decision.js';
import { simulateStreamingClosedLoop, stallClass, trueStallP95 } from '../src/stats/stall-sim.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}
const reps = Number(option('reps', '100'));
const grid = option('grid', 'full') === 'reduced' ? 'reduced' : 'full';
if (!(reps > 0)) throw new Error('--reps must be positive');
// --margin: the continuity judge's PASS margin to simulate (calibration); default the product's.
const margin = Number(option('margin', String(STALL_PASS_MARGIN)));
const only = option('only', '');
const cells = stallClass(grid).filter((c) => only === '' || `${c.label} N ${c.n}`.includes(only));
const SPEC = {
  holdS: 120,
  measureS: 30,
  settleS: 10,
  minSamples: 100,
  mode: 'adaptive' as const,
  minPassMargin: margin,
};
const pct = (count: number, of: number): string =>
  of === 0 ? '    -  ' : `${((100 * count) / of).toFixed(1).padStart(5)}%`;

console.log(
  `bench:coverage-stall  ${cells.length} cells x ${reps} replications (${grid}), PASS margin ${margin}; ${availableParallelism()} CPUs, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Node ${process.version}`,
);
console.log('');
console.log(
  `${'cell'.padEnd(40)} ${'N'.padStart(3)} ${'p95 ms'.padStart(7)} ${'zeros'.padStart(6)} | ${'decided'.padStart(7)} ${'cov'.padStart(6)} ${'miss'.padStart(6)} ${'pass='.padStart(6)} ${'pass+5'.padStart(6)} ${'power'.padStart(6)} ${'end s'.padStart(5)}`,
);

interface Tally {
  decided: number;
  cov: number;
  miss: number;
  passAt: number;
  passAbove: number;
  power: number;
  endS: number;
  runs: number;
}
const empty = (): Tally => ({
  decided: 0,
  cov: 0,
  miss: 0,
  passAt: 0,
  passAbove: 0,
  power: 0,
  endS: 0,
  runs: 0,
});
const add = (a: Tally, b: Tally): void => {
  for (const k of Object.keys(a) as Array<keyof Tally>) a[k] += b[k];
};
const started = Date.now();
const pooled = empty();
const byFamily = new Map<string, Tally>();
let worst = { passAt: 0, cell: '' };
for (const [index, cell] of cells.entries()) {
  const truth = trueStallP95(cell.server, cell.n, { seed: 0x57a1 + index });
  const t = empty();
  let zeros = 0;
  let streams = 0;
  for (let r = 0; r < reps; r++) {
    const run = simulateStreamingClosedLoop(cell.server, {
      outstanding: cell.n,
      durationS: 125,
      seed: 2_000_003 * (index + 1) + r,
    });
    for (const s of run.ttfabMs) if (s === 0) zeros++;
    streams += run.ttfabMs.length;
    const rung = { ...SPEC, concurrency: cell.n };
    const at = simulateRung(run, { ...rung, sloMs: truth });
    if (at.decision.interval) {
      t.decided++;
      if (at.decision.interval.low <= truth && truth <= at.decision.interval.high) t.cov++;
      if (at.decision.interval.high < truth) t.miss++;
    }
    if (at.decision.verdict === 'pass') t.passAt++;
    t.endS += at.windowEndMs / 1000;
    if (simulateRung(run, { ...rung, sloMs: truth / 1.05 }).decision.verdict === 'pass') t.passAbove++;
    if (simulateRung(run, { ...rung, sloMs: truth * 1.1 }).decision.verdict === 'pass') t.power++;
    t.runs++;
  }
  console.log(
    `${cell.label.padEnd(40)} ${String(cell.n).padStart(3)} ${truth.toFixed(1).padStart(7)} ${pct(zeros, streams)} | ` +
      `${pct(t.decided, reps).padStart(7)} ${pct(t.cov, t.decided)} ${pct(t.miss, t.decided)} ${pct(t.passAt, reps)} ${pct(t.passAbove, reps)} ${pct(t.power, reps)} ${(t.endS / reps).toFixed(1).padStart(5)}`,
  );
  add(pooled, t);
  const family = byFamily.get(cell.family) ?? empty();
  add(family, t);
  byFamily.set(cell.family, family);
  if (t.passAt / reps > worst.passAt) worst = { passAt: t.passAt / reps, cell: `${cell.label} N ${cell.n}` };
}
const line = (name: string, t: Tally): string =>
  `${name.padEnd(18)} rungs ${String(t.runs).padStart(5)}: decided ${pct(t.decided, t.runs)}  cov ${pct(t.cov, t.decided)}  miss ${pct(t.miss, t.decided)}  pass= ${pct(t.passAt, t.runs)}  pass+5 ${pct(t.passAbove, t.runs)}  power ${pct(t.power, t.runs)}  mean end ${(t.endS / Math.max(1, t.runs)).toFixed(1)} s`;
console.log('');
for (const [family, t] of byFamily) console.log(line(`family ${family}`, t));
console.log(line('pooled', pooled));
console.log(`worst cell: pass= ${(100 * worst.passAt).toFixed(1)} % (${worst.cell})`);
console.log(`wall ${((Date.now() - started) / 1000).toFixed(0)} s`);
