// The power of the open-loop rung decision below the boundary: how often, and how soon, one
// goodput rung (the product's decision, default 600 s hold, 1 s windows, 15 s settle) passes a
// rate whose true p95 lies inside the SLO, against the small server of bench:goodput-small
// (M/D/2 x 40 ms, SLO 200 ms). The rate is a share of the true rate at the SLO (lambda*, computed
// from long runs); beside each share its true p95 (computed). What it answers: the highest rate
// the ladder can pass in a given time, which bounds how close lambda_max can come to lambda*.
//
//   npm run bench:pass-power [-- --reps 40 --shares 0.8,0.85,0.9,0.95 --seed 1]
//
// Columns: share of lambda*, rate/s, true p95 (computed), P(PASS) within the hold, P(PASS by the
// 152 s look), mean measure seconds at which passing rungs ended, P(undecided), P(FAIL).
import { simulateGoodputRung } from '../src/stats/open-loop-rung-sim.js';
import { type ServiceModel, trueServiceP95, trueServiceRateAtSlo } from '../src/stats/service-class.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const reps = Number(option('reps', '40'));
const shares = option('shares', '0.8,0.85,0.9,0.95').split(',').map(Number);
const seed = Number(option('seed', '1'));
const sloMs = 200;
const holdS = 615;
const settleS = 15;
const model: ServiceModel = { kind: 'iid', slots: 2, meanServiceMs: 40, cv: 0 };
if (!(reps > 0) || shares.some((s) => !(s > 0 && s < 1))) throw new Error('--reps > 0, --shares in (0, 1)');

const started = Date.now();
const truth = trueServiceRateAtSlo(model, sloMs, { arrivals: 2_000_000 }) as number;
console.log(
  `one goodput rung (600 s hold, 1 s windows) against M/D/2 x 40 ms, SLO ${sloMs} ms; lambda* ${truth.toFixed(2)}/s (computed: rate at true p95 = SLO); ${reps} rungs per rate, seed ${seed}`,
);
console.log(
  'share  rate/s  true p95 ms  P(PASS)  P(PASS by 152 s)  mean end s (pass)  P(undecided)  P(FAIL)',
);
for (const share of shares) {
  const rate = truth * share;
  const p95 = trueServiceP95(model, rate, { arrivals: 1_000_000 });
  let pass = 0;
  let early = 0;
  let undecided = 0;
  let fail = 0;
  let endS = 0;
  for (let r = 0; r < reps; r++) {
    const d = simulateGoodputRung(model, { rate, holdS, settleS, sloMs, seed: seed * 100_003 + r });
    if (d.verdict === 'pass') {
      pass++;
      endS += d.stoppedAtS;
      if (d.stoppedAtS <= 152 + 1e-9) early++;
    } else if (d.verdict === 'fail') fail++;
    else undecided++;
  }
  const pct = (x: number) => `${((100 * x) / reps).toFixed(1)} %`.padStart(7);
  console.log(
    `${share.toFixed(2).padStart(5)}  ${rate.toFixed(2).padStart(6)}  ${p95.toFixed(1).padStart(11)}  ${pct(pass)}  ${pct(early).padStart(16)}  ${(pass > 0 ? (endS / pass).toFixed(0) : '-').padStart(17)}  ${pct(undecided).padStart(12)}  ${pct(fail)}`,
  );
}
console.log(`wall ${((Date.now() - started) / 1000).toFixed(0)} s`);
