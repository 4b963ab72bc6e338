// Is the fleet simulator the local SageMaker, faster? The same drill (policy, emulated Kokoro-82M
// device at time scale 0.25, start-up, arrival times) on the local SageMaker and in the simulator,
// for two policies, each at two surges, all four drills at once on four local SageMakers:
//
//   npm run bench:sim-agreement [-- --surge-s 50]
//
// CHOSEN: the surge-safe policy `plan` deploys (target 6 in flight); BAD: the seed's closed-loop
// rule (target 37.5). Surges: 2 x from half an instance's throughput (the alarm's timing is
// decided by the load), and the plan's k = 1.25 at lambda_safe (the tracked metric hovers at the
// target: when the alarm fires is a matter of the draw on each side).
// Printed per drill: seconds compared and the share within one instance (desired, in service),
// scaling activities paired and their largest time difference, the windows whose SLO verdict is
// identical; and the simulator's cost against the drill's wall time (the ratio).
import { performance } from 'node:perf_hooks';
import { agreementRun, simulateDrill, startAgreementEmulator } from '../test/sim/agreement-harness.js';
import { option } from './lib/kokoro-chain.js';

const surgeS = Number(option('surge-s', '50'));
const cases = [
  { label: 'chosen, 2 x surge from 0.5', policyRule: 'surge-safe', steadyShare: 0.5, surgeRatio: 2 },
  { label: 'bad (seed rule), 2 x surge from 0.55', policyRule: 'seed', steadyShare: 0.55, surgeRatio: 2 },
  {
    label: 'chosen, 1.25 x surge at lambda_safe',
    policyRule: 'surge-safe',
    steadyShare: 0.687,
    surgeRatio: 1.25,
  },
  {
    label: 'bad (seed rule), 1.25 x surge at lambda_safe',
    policyRule: 'seed',
    steadyShare: 0.687,
    surgeRatio: 1.25,
  },
] as const;

const emulators = await Promise.all(cases.map(() => startAgreementEmulator()));
try {
  const started = performance.now();
  const runs = await Promise.all(
    cases.map((c, k) =>
      agreementRun(emulators[k] as (typeof emulators)[number], {
        policyRule: c.policyRule,
        steadyShare: c.steadyShare,
        surgeRatio: c.surgeRatio,
        steadyS: 20,
        surgeS,
        troughS: 5,
      }),
    ),
  );
  const wallS = (performance.now() - started) / 1000;
  const pct = (x: number) => `${(x * 100).toFixed(1)} %`;
  console.log(
    '\nsimulator vs local SageMaker (measured on both; emulated Kokoro-82M g5 device, time scale 0.25)\n',
  );
  console.log(
    '| drill | verdict emu / sim | desired within 1 | in service within 1 | activities (to: emu s / sim s) | max diff | windows identical |',
  );
  console.log('|---|---|---|---|---|---|---|');
  for (const [k, run] of runs.entries()) {
    const r = run.report;
    const simHeld = run.sim.windows.every((w) => w.sloHeld);
    const acts = r.activities
      .map((a) => `${a.to}: ${a.emulatorS?.toFixed(1) ?? '-'} / ${a.simulatorS?.toFixed(1) ?? '-'}`)
      .join(', ');
    console.log(
      `| ${cases[k]?.label} | ${run.drill.slo_held ? 'held' : 'broken'} / ${simHeld ? 'held' : 'broken'} | ${pct(r.desired.withinOne)} of ${r.desired.seconds} s | ${pct(r.inService.withinOne)} of ${r.inService.seconds} s | ${acts || 'none'} | ${r.maxActivityDifferenceS === null ? '-' : `${r.maxActivityDifferenceS.toFixed(2)} s`} | ${r.windows.identical}/${r.windows.compared} (${pct(r.windows.share)}) |`,
    );
  }
  // The simulator's own cost for the same four drills, in this process.
  const simStarted = performance.now();
  for (const run of runs) simulateDrill(run.plan, run.drill);
  const simS = (performance.now() - simStarted) / 1000;
  console.log(
    `\nwall time: four drills on the local SageMaker ${wallS.toFixed(1)} s (measured, run at once); the same four simulated ${(simS * 1000).toFixed(0)} ms (measured): ratio ${(wallS / simS).toFixed(0)} x`,
  );
} finally {
  await Promise.all(emulators.map((e) => e.close()));
}
