// Coverage and false-PASS rates of the open-loop group-sequential rung decision
// (src/stats/open-loop-decision.ts) over the simulated class of src/stats/service-class.ts:
// i.i.d. M/G/1 and M/G/4 (CV 0 and 0.5), M/D/2, regime-switching servers (30 % slowdowns for
// 2-60 s on average), a dynamic-batching server, and replayed Kokoro service times, at rho 0.5-0.95.
// Each replication is one goodput rung as the product runs it (simulateGoodputRung: 15 s settle,
// windows of hold / 600 whole seconds as the command cuts them (1 s; --window-s), looks from 30 s with requests in flight as misses, ending at the first decisive
// look, hold 600 s). The true p95 of each cell comes from one run of 1,000,000 arrivals.
//
//   npm run bench:coverage-openloop [-- --reps 100 --hold 600 --window-s 1 --grid full|reduced --only 'regime|M/D/2']
//
// --only keeps the cells whose name contains one of the |-separated parts (each keeps its seeds);
// the contract is judged on the whole class.
//
// Columns:
//   true p95   of the cell (long run), ms
//   decided    share of rungs with an interval at their last look
//   cov95      coverage of the recorded 95 % interval, among decided rungs
//   miss+      one-sided miss: the interval's upper end below the truth (what a false PASS needs)
//   pass=      P(PASS) with the SLO at the true p95
//   pass1.05   P(PASS) with the true p95 5 % above the SLO (SLO = truth / 1.05)
//   end s      mean measure seconds at which the rung ended (at p95 = SLO)
// Targets: pass= <= FALSE_PASS_BOUND in every family and pooled, regime cells <= 5 %; cov95 >= 93 % pooled.
// Rows `outside`: regime cells whose slow spells overload the server (outside the class), for the record.
import { availableParallelism, loadavg } from 'node:os';
import { FALSE_PASS_BOUND } from '../src/stats/open-loop-decision.js';
import { simulateGoodputRung } from '../src/stats/open-loop-rung-sim.js';
import {
  openLoopServiceClass,
  type ServiceCell,
  serviceCapacity,
  slowSpellLoad,
  trueServiceP95,
} from '../src/stats/service-class.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const reps = Number(option('reps', '100'));
const holdS = Number(option('hold', '600'));
const grid = option('grid', 'full') as 'full' | 'reduced';
// The command's windows: at most 600 a hold, whole seconds (1 s at the default 600 s hold).
const windowS = Number(option('window-s', String(Math.max(1, Math.floor(holdS / 600)))));
const only = option('only', '')
  .split('|')
  .filter((part) => part.length > 0);
const kept = (cell: ServiceCell) => only.length === 0 || only.some((part) => cell.name.includes(part));
if (!(reps > 0)) throw new Error('--reps must be positive');

interface Tally {
  decided: number;
  covered: number;
  missUp: number;
  passAt: number;
  passAbove: number;
  endS: number;
  n: number;
}
const empty = (): Tally => ({ decided: 0, covered: 0, missUp: 0, passAt: 0, passAbove: 0, endS: 0, n: 0 });
const add = (a: Tally, b: Tally) => {
  for (const k of Object.keys(a) as (keyof Tally)[]) a[k] += b[k];
};
const pct = (a: number, b: number) => (b === 0 ? '    -  ' : `${((100 * a) / b).toFixed(1).padStart(6)}%`);

const started = Date.now();
console.log(
  `open-loop group-sequential rung decision over the simulated class, ${reps} rungs per cell, hold ${holdS} s, ${windowS} s windows; load ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores`,
);
console.log(
  'cell                                            true p95 | decided  cov95   miss+   pass=  pass1.05  end s',
);

function runCell(cell: ServiceCell, index: number): Tally {
  const rate = cell.rho * serviceCapacity(cell.model);
  const truth = trueServiceP95(cell.model, rate, { arrivals: 1_000_000, seed: 7 });
  const t = empty();
  for (let rep = 0; rep < reps; rep++) {
    const spec = {
      rate,
      holdS,
      settleS: 15,
      sloMs: truth,
      seed: 50_000 + 1000 * index + rep,
      windowMs: windowS * 1000,
    };
    const d = simulateGoodputRung(cell.model, spec);
    t.n++;
    t.endS += d.stoppedAtS;
    if (d.interval95) {
      t.decided++;
      if (d.interval95.low <= truth && truth <= d.interval95.high) t.covered++;
      if (d.interval95.high < truth) t.missUp++;
    }
    if (d.verdict === 'pass') t.passAt++;
    if (simulateGoodputRung(cell.model, { ...spec, sloMs: truth / 1.05 }).verdict === 'pass') t.passAbove++;
  }
  console.log(
    `${cell.name.padEnd(46)} ${truth.toFixed(1).padStart(9)} | ${pct(t.decided, t.n)} ${pct(t.covered, t.decided)} ${pct(t.missUp, t.decided)} ${pct(t.passAt, t.n)} ${pct(t.passAbove, t.n)}  ${(t.endS / t.n).toFixed(0).padStart(5)}`,
  );
  return t;
}

const pooled = empty();
const byFamily = new Map<string, Tally>();
for (const [index, cell] of openLoopServiceClass(grid).entries()) {
  if (!kept(cell)) continue;
  const t = runCell(cell, index);
  add(pooled, t);
  const f = byFamily.get(cell.family) ?? empty();
  add(f, t);
  byFamily.set(cell.family, f);
}
console.log('');
for (const [family, t] of byFamily) {
  console.log(
    `family ${family.padEnd(9)} rungs ${String(t.n).padStart(5)}: cov95 ${pct(t.covered, t.decided)}  miss+ ${pct(t.missUp, t.decided)}  pass= ${pct(t.passAt, t.n)}  pass1.05 ${pct(t.passAbove, t.n)}`,
  );
}
console.log(
  `pooled           rungs ${String(pooled.n).padStart(5)}: cov95 ${pct(pooled.covered, pooled.decided)}  miss+ ${pct(pooled.missUp, pooled.decided)}  pass= ${pct(pooled.passAt, pooled.n)}  pass1.05 ${pct(pooled.passAbove, pooled.n)}  (bound ${FALSE_PASS_BOUND * 100} %)`,
);
if (grid === 'full') {
  console.log('');
  console.log('outside the class: regime cells whose slow spells overload the server');
  for (const [index, cell] of openLoopServiceClass('outside').entries()) {
    if (!kept(cell)) continue;
    process.stdout.write(`(slow-spell load ${slowSpellLoad(cell.model, cell.rho).toFixed(2)}) `);
    runCell(cell, 900 + index);
  }
}
console.log(`wall ${((Date.now() - started) / 1000).toFixed(0)} s`);
