// Policies on traffic: the seed's closed-loop rule, the policy `scalegate tune` chooses, and the
// perfect fleet (ceil(lambda(t) / lambda_safe) instances at every moment: a lower bound on the
// instance-hours of any policy that holds each instance at lambda_safe), scored by the fleet
// simulator on three traces, from the committed real Kokoro-82M ml.g5.xlarge measurements:
//
//   npm run bench:policy [-- --seed 1]
//
// 1. diurnal with bursts: 24 h, 30..150 requests/s, 10 % noise per minute, 6 bursts of 1.5 x for 5 min;
// 2. a 3 x step: 40 -> 120 requests/s at 1 h, 4 h in all;
// 3. a launch ramp: 10 -> 200 requests/s over 10 min at 1 h (it outruns T_plan: the policy alone
//    cannot add capacity that fast), 3 h in all.
// Every figure is computed by simulation. The chosen policy is chosen on the trace with seed S (its
// scheduled actions are derived from that same trace: in-sample), then each entry is scored again
// on a held-out draw (seed S + 1000: other arrivals and service times of the same trace), the
// figure that says whether the choice generalises. Ratios are against the perfect fleet of the
// same draw. Also timed: one 24 h simulation, against the trace's real duration.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { runTune } from '../src/commands/tune.js';
import { readConfigFile } from '../src/model/config.js';
import { modelFromConfig } from '../src/model/index.js';
import { type FleetSimInput, simPolicyFromTuned, simulateFleet } from '../src/sim/index.js';
import { option } from './lib/kokoro-chain.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const QMAX = join(ROOT, 'artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
const TTOTAL = join(ROOT, 'artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
const seed = Number(option('seed', '1'));
const [modelName, model] = modelFromConfig(
  readConfigFile(join(ROOT, 'scalegate.config.json')),
  'kokoro-82m',
  'scalegate.config.json',
);

const traces = [
  {
    label: 'diurnal with bursts (24 h)',
    shape: 'diurnal:peak=150,trough=30,noise=0.1,bursts=6,burst_x=1.5,burst_s=300,seed=3',
  },
  { label: '3 x step (4 h)', shape: 'step:base=40,x=3,at_s=3600,duration_s=14400' },
  {
    label: 'launch ramp 10 -> 200 rps in 10 min (3 h)',
    shape: 'ramp:base=10,peak=200,at_s=3600,ramp_s=600,duration_s=10800',
  },
];

const out = mkdtempSync(join(tmpdir(), 'scalegate-bench-policy-'));
const pct = (x: number) => `${(x * 100).toFixed(2)} %`;
const checks: string[] = [];
for (const trace of traces) {
  const inputs: FleetSimInput[] = [];
  const started = performance.now();
  const result = runTune(
    {
      modelName,
      model,
      qmaxFile: QMAX,
      ttotalFile: TTOTAL,
      shape: trace.shape,
      seed,
      outFile: join(out, `tune-${inputs.length}-${trace.label.length}.json`),
    },
    {
      version: 'bench',
      simulate: (input) => {
        inputs.push(input);
        return simulateFleet(input);
      },
    },
  );
  const tuneS = (performance.now() - started) / 1000;
  const tune = result.artifact;
  if (!tune) throw new Error(`tune failed on ${trace.label}:\n${result.report}`);
  const inputOf = (policy: typeof tune.chosen.policy): FleetSimInput => {
    const found = inputs.find((i) =>
      policy === null
        ? i.fleet.kind === 'perfect'
        : i.fleet.kind === 'policy' && isDeepStrictEqual(i.fleet.policy, simPolicyFromTuned(policy)),
    );
    if (!found) throw new Error('the simulation of an entry was not recorded');
    return found;
  };
  const entries = [
    ['seed rule', tune.seed_rule],
    ['chosen', tune.chosen],
    ['perfect fleet (lower bound)', tune.perfect_fleet],
  ] as const;
  const heldOut = entries.map(([, e]) => simulateFleet({ ...inputOf(e.policy), seed: seed + 1000 }));
  const perfectIh = tune.perfect_fleet.score.instance_hours;
  const perfectHeldIh = (heldOut[2] as (typeof heldOut)[number]).instanceHours;
  console.log(`\n## ${trace.label}: ${tune.trace.source}`);
  console.log(
    `trace digest ${tune.trace.sha256.slice(0, 12)}, ${tune.trace.requests} requests (seed ${seed}), lambda_safe ${tune.settings.lambda_safe_rps} requests/s and T_plan ${tune.settings.t_plan_s} s (computed), ${tune.candidates.length} candidates scored in ${tuneS.toFixed(1)} s (measured)`,
  );
  console.log(
    `chosen: ${tune.chosen.label} (${tune.chosen_holds ? 'holds' : 'DOES NOT HOLD'} ${pct(tune.settings.required_slo_attainment)})`,
  );
  console.log(
    '\n| policy | windows in SLO | requests in SLO | overflows | instance-hours | x perfect | held-out: windows | requests | overflows | instance-hours | x perfect |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const [k, [label, e]] of entries.entries()) {
    const h = heldOut[k] as (typeof heldOut)[number];
    console.log(
      `| ${label} | ${pct(e.score.slo_attainment)} | ${pct(e.score.request_attainment)} | ${e.score.overflows} | ${e.score.instance_hours.toFixed(1)} | ${(e.score.instance_hours / perfectIh).toFixed(2)} | ${pct(h.sloAttainment)} | ${pct(h.requestAttainment)} | ${h.overflows} | ${h.instanceHours.toFixed(1)} | ${(h.instanceHours / perfectHeldIh).toFixed(2)} |`,
    );
  }
  const chosenHeld = heldOut[1] as (typeof heldOut)[number];
  const scheduled = tune.chosen.policy?.scheduled_actions.length ?? 0;
  console.log(`chosen policy: ${JSON.stringify(tune.chosen.policy)}`);
  checks.push(
    `${trace.label}: chosen holds ${pct(tune.chosen.score.slo_attainment)} (held-out ${pct(chosenHeld.sloAttainment)}) of windows at ${(tune.chosen.score.instance_hours / perfectIh).toFixed(2)} x (held-out ${(chosenHeld.instanceHours / perfectHeldIh).toFixed(2)} x) the perfect fleet; ${scheduled} scheduled action(s); seed rule ${pct(tune.seed_rule.score.slo_attainment)}`,
  );
  if (trace.label.startsWith('diurnal')) {
    const input = inputOf(tune.chosen.policy);
    const t0 = performance.now();
    const r = simulateFleet(input);
    const simS = (performance.now() - t0) / 1000;
    checks.push(
      `one 24 h simulation of the chosen policy: ${r.requests} requests in ${simS.toFixed(2)} s (measured, one core): ${(input.arrivals.durationS / simS).toFixed(0)} x real time`,
    );
  }
}
console.log('\n## summary\n');
for (const c of checks) console.log(`- ${c}`);
