// Coverage and false-PASS rates of the rung decision (src/stats/rung-decision.ts) over the class of
// simulated servers it is calibrated over (src/stats/closed-loop-class.ts: i.i.d., regime-switching,
// batching, replayed Kokoro device service), each rung run through the rung's own harness
// (src/stats/closed-loop-sim.ts simulateRung: the rung's timing and its RungJudge).
//
//   npm run bench:coverage [-- --reps 200 --grid full|reduced --families iid,regime,batching,replay]
//
// Each replication simulates 125 s of the closed loop from an empty server and runs the adaptive
// rung with the defaults (hold 120 s, measure 30 s, settle 10 s, --min-samples 100), three times
// over the same run: SLO = the true p95, SLO = true p95 / 1.05 (true p95 5 % above the SLO), and
// SLO = 1.1 x true p95 (power: true p95 10 % inside). The true p95 of a cell comes from one run of
// 2,000,000 completions of the same simulator.
//
// Columns:
//   cov     the interval the rung reports when it ends covers the true p95 (of rungs with one)
//   miss    one-sided miss: its upper end lies below the true p95 (the side a false PASS needs)
//   pass=   share of rungs ending in PASS when the true p95 equals the SLO (the contract: <= 5 %)
//   pass+5  the same when the true p95 is 5 % above the SLO
//   power   share ending in PASS when the true p95 is 10 % inside the SLO
//   near    share of rungs at true p95 = SLO that stopped early "undecided near the SLO"
//   end s   mean time the rung ran at true p95 = SLO
import { availableParallelism, loadavg } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveDeviceProfile } from '../src/analysis/device-profile.js';
import { KOKORO_G5_QMAX } from '../src/commands/device.js';
import { readArtifact } from '../src/model/index.js';
import { calibrationClass } from '../src/stats/closed-loop-class.js';
import { simulateClosedLoop, simulateRung, trueP95 } from '../src/stats/closed-loop-sim.js';
import { CALIBRATION, PASS_ALPHA } from '../src/stats/rung-decision.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const reps = Number(option('reps', '200'));
const grid = option('grid', 'full') === 'reduced' ? 'reduced' : 'full';
if (!(reps > 0)) throw new Error('--reps must be positive');

const device = deriveDeviceProfile(readArtifact('qmax', join(ROOT, KOKORO_G5_QMAX)), 'kokoro').profile;
const families = option('families', 'iid,regime,batching,replay').split(',');
const cells = calibrationClass(device, grid).filter((c) => families.includes(c.family));
const SPEC = { holdS: 120, measureS: 30, settleS: 10, minSamples: 100 } as const;

const pct = (count: number, of: number): string =>
  of === 0 ? '    -  ' : `${((100 * count) / of).toFixed(1).padStart(5)}%`;

console.log(
  `bench:coverage  ${cells.length} cells x ${reps} replications (${grid}: ${families.join(', ')}); PASS_ALPHA ${PASS_ALPHA}; ${availableParallelism()} CPUs, load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}, Node ${process.version}`,
);
console.log('');
console.log(
  `${'cell'.padEnd(22)} ${'N'.padStart(3)} ${'true p95'.padStart(9)} | ${'cov'.padStart(6)} ${'miss'.padStart(6)} ${'pass='.padStart(6)} ${'pass+5'.padStart(6)} ${'power'.padStart(6)} ${'near'.padStart(6)} ${'end s'.padStart(5)}`,
);

interface Tally {
  cov: number;
  covOf: number;
  miss: number;
  passAt: number;
  passAbove: number;
  power: number;
  near: number;
  endS: number;
  runs: number;
}
const empty = (): Tally => ({
  cov: 0,
  covOf: 0,
  miss: 0,
  passAt: 0,
  passAbove: 0,
  power: 0,
  near: 0,
  endS: 0,
  runs: 0,
});
const add = (a: Tally, b: Tally): void => {
  for (const k of Object.keys(a) as Array<keyof Tally>) a[k] += b[k];
};

const started = Date.now();
const pooled = empty();
const outside = empty();
const byFamily = new Map<string, Tally>();
let worst = { cov: 1, covCell: '', passAt: 0, passCell: '' };
for (const [index, cell] of cells.entries()) {
  const truth = trueP95(cell.server, cell.n, { completions: 2_000_000, seed: 0x7e57 + index });
  const t = empty();
  for (let r = 0; r < reps; r++) {
    const run = simulateClosedLoop(cell.server, {
      outstanding: cell.n,
      durationS: 125,
      seed: 1_000_003 * (index + 1) + r,
    });
    const rung = { ...SPEC, concurrency: cell.n, mode: 'adaptive' as const };
    const at = simulateRung(run, { ...rung, sloMs: truth });
    if (at.decision.interval) {
      t.covOf++;
      if (at.decision.interval.low <= truth && truth <= at.decision.interval.high) t.cov++;
      if (at.decision.interval.high < truth) t.miss++;
    }
    if (at.decision.verdict === 'pass') t.passAt++;
    if (at.end === 'near_slo') t.near++;
    t.endS += at.windowEndMs / 1000;
    if (simulateRung(run, { ...rung, sloMs: truth / 1.05 }).decision.verdict === 'pass') t.passAbove++;
    if (simulateRung(run, { ...rung, sloMs: truth * 1.1 }).decision.verdict === 'pass') t.power++;
    t.runs++;
  }
  console.log(
    `${`${cell.label}${cell.inClass ? '' : ' *'}`.padEnd(22)} ${String(cell.n).padStart(3)} ${truth.toFixed(1).padStart(9)} | ` +
      `${pct(t.cov, t.covOf)} ${pct(t.miss, t.covOf)} ${pct(t.passAt, reps)} ${pct(t.passAbove, reps)} ${pct(t.power, reps)} ${pct(t.near, reps)} ${(t.endS / reps).toFixed(1).padStart(5)}`,
  );
  if (!cell.inClass) {
    add(outside, t);
    continue;
  }
  add(pooled, t);
  const fam = byFamily.get(cell.family) ?? empty();
  add(fam, t);
  byFamily.set(cell.family, fam);
  if (t.covOf > 0 && t.cov / t.covOf < worst.cov)
    worst = { ...worst, cov: t.cov / t.covOf, covCell: `${cell.label} N ${cell.n}` };
  if (t.passAt / reps > worst.passAt)
    worst = { ...worst, passAt: t.passAt / reps, passCell: `${cell.label} N ${cell.n}` };
}

const line = (name: string, t: Tally): string =>
  `${name.padEnd(26)} cov ${pct(t.cov, t.covOf)}  miss ${pct(t.miss, t.covOf)}  pass= ${pct(t.passAt, t.runs)}  pass+5 ${pct(t.passAbove, t.runs)}  power ${pct(t.power, t.runs)}  near ${pct(t.near, t.runs)}  mean end ${(t.endS / Math.max(1, t.runs)).toFixed(1)} s`;
console.log('');
for (const [family, t] of byFamily) console.log(line(`pooled ${family}`, t));
console.log(line('pooled, the class', pooled));
if (outside.runs > 0) console.log(line('* outside the class', outside));
// 95 % upper confidence bound on the pooled false-PASS probability (Clopper-Pearson via the
// Wilson score as an approximation, conservative enough at these counts).
const p = pooled.passAt / pooled.runs;
const z = 1.6448536269514722;
const nRuns = pooled.runs;
const upper =
  (p + (z * z) / (2 * nRuns) + z * Math.sqrt((p * (1 - p)) / nRuns + (z * z) / (4 * nRuns * nRuns))) /
  (1 + (z * z) / nRuns);
console.log(
  `worst cell in the class: cov ${(100 * worst.cov).toFixed(1)} % (${worst.covCell}), pass= ${(100 * worst.passAt).toFixed(1)} % (${worst.passCell}); ` +
    `pooled pass= ${(100 * p).toFixed(2)} %, one-sided 95 % upper bound ${(100 * upper).toFixed(2)} % ` +
    `(recorded: pooled bound ${(100 * CALIBRATION.falsePassBound).toFixed(1)} %, worst cell ${(100 * CALIBRATION.worstCellFalsePass).toFixed(1)} %, coverage ${(100 * CALIBRATION.coverage).toFixed(0)} % pooled)`,
);
console.log(
  `one cell's sampling error at ${reps} replications: +-${(100 * Math.sqrt((0.95 * 0.05) / reps)).toFixed(1)} % around 95 %, +-${(100 * Math.sqrt((0.03 * 0.97) / reps)).toFixed(1)} % around 3 %; wall ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
