// The whole goodput command with its default settings against a small server: 2 slots x a fixed
// 40 ms service (M/D/2), Poisson arrivals, first audio when the service ends, in simulated time
// (exact and repeatable: the server and the load share a virtual clock). Prints each rung (rate,
// verdict, the look that ended it) and compares lambda_max with the true rate at which the p95
// TTFAB reaches the SLO (long runs of src/stats/service-class.ts, 2,000,000 arrivals per rate).
//
//   npm run bench:goodput-small [-- --slo-ms 200 --seed 1]
//
// Targets: the whole ladder within 10 minutes of (simulated) measuring; lambda_max within 5 %
// of the truth, bracketed by a measured breach.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type GoodputInput, runGoodput } from '../src/commands/goodput.js';
import { VirtualClock } from '../src/load/clock.js';
import { type GoodputArtifact, parseConfig } from '../src/model/index.js';
import { trueServiceRateAtSlo } from '../src/stats/service-class.js';
import { simulatedServer } from '../test/load/fixtures/simulated-server.js';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

const SLOTS = 2;
const SERVICE_MS = 40;
const sloMs = Number(option('slo-ms', '200'));
const seed = Number(option('seed', '1'));

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-small-'));
const configFile = join(dir, 'scalegate.config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    models: {
      small: {
        endpoint: 'small-test',
        region: 'us-east-1',
        instance_type: 'ml.g5.xlarge',
        image_uri:
          '123456789012.dkr.ecr.us-east-1.amazonaws.com/test@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        slo_ms: sloMs,
        surge_ratio: 1.25,
        peak_rps: 100,
      },
    },
  }),
);
const model = parseConfig(readFileSync(configFile, 'utf8'), configFile).models.small as GoodputInput['model'];

const started = Date.now();
const truth = trueServiceRateAtSlo({ kind: 'iid', slots: SLOTS, meanServiceMs: SERVICE_MS, cv: 0 }, sloMs, {
  arrivals: 2_000_000,
}) as number;
const clock = new VirtualClock();
/** Simulated second each rate started at (the scout's steps come before the first). */
const startedAt = new Map<number, number>();
const server = simulatedServer({ clock, slots: SLOTS, serviceMs: () => SERVICE_MS, firstAudioShare: 1 });
const run = runGoodput(
  {
    modelName: 'small',
    model,
    configFile,
    endpoint: 'small-test',
    variant: 'AllTraffic',
    region: 'us-east-1',
    target: 'http://127.0.0.1:9',
    seed,
    outFile: join(dir, 'goodput.json'),
  },
  {
    createTransport: () => server,
    loadClock: clock,
    progress: (e) => {
      if (e.type === 'rate-start') startedAt.set(e.rateRps, clock.now() / 1000);
    },
  },
);
let done = false;
run.then(
  () => {
    done = true;
  },
  () => {
    done = true;
  },
);
while (!done) {
  await clock.run();
  await new Promise((r) => setImmediate(r));
}
const artifact = (await run).artifact as GoodputArtifact;
const simulatedS = clock.now() / 1000;
console.log(
  `goodput, default settings, against M/D/${SLOTS} x ${SERVICE_MS} ms, SLO ${sloMs} ms (simulated time, seed ${seed})`,
);
if (artifact.scout) {
  console.log(
    `scout: ${artifact.scout.steps.map((s) => `${s.rate_rps}/s${s.over ? ' over' : ''}`).join(', ')} (${artifact.scout.step_s} s each); the ladder starts at ${artifact.scout.start_rps}/s`,
  );
}
console.log('rate/s   from (s)  verdict    ended at (s of measure)  n      p95 ms   reason');
for (const g of artifact.rungs) {
  const seq = g.sequential;
  console.log(
    `${String(g.rate_rps).padStart(6)}   ${(startedAt.get(g.rate_rps)?.toFixed(0) ?? '-').padStart(7)}  ${g.verdict.padEnd(9)}  ${seq ? `${seq.stopped_at_s}${seq.stopped_early ? ' (early)' : ' (hold)'}`.padEnd(22) : '-'.padEnd(22)}   ${String(g.offered).padStart(6)} ${String(g.ttfab_p95_ms ?? '-').padStart(8)}   ${process.env.FULL ? g.reason : g.reason.slice(0, 110)}`,
  );
}
const lambda = artifact.lambda_max_rps as number;
console.log('');
console.log(
  `true rate at the SLO (computed, M/D/${SLOTS} simulation of 2,000,000 arrivals per rate): ${truth.toFixed(2)}/s`,
);
console.log(
  `lambda_max (measured) ${lambda}/s = ${((lambda / truth - 1) * 100).toFixed(1)} % of the truth; breach ${artifact.breach_rate_rps}/s; bracketed ${artifact.lambda_max_bracketed}`,
);
console.log(
  `whole ladder: ${artifact.rungs.length} rungs, ${(simulatedS / 60).toFixed(1)} minutes of measuring (simulated; target <= 10); false-PASS bound ${artifact.false_pass_bound?.value} (${artifact.false_pass_bound?.origin}, ${artifact.false_pass_bound?.basis}); wall ${((Date.now() - started) / 1000).toFixed(0)} s`,
);
