// The tracked metric's level, measured against computed: goodput on the local SageMaker with the
// emulated Kokoro-82M ml.g5.xlarge device (derived from the committed real ladder) at a time scale,
// at fixed Poisson rates (shares of the device's throughput), each rate's CloudWatch join
// (ConcurrentRequestsPerModel, Maximum per 10 s) against the seeded queueing simulation of one
// instance of the same device at the same rate (src/stats/in-flight-sim.ts):
//
//   npm run bench:metric-level [-- --time-scale 0.25 --shares 0.4,0.6,0.75 --hold-s 310 --settle-s 10]
//
// A rate's per-period Maximum is spread wide (p90 / p10 ~ 1.5): its median is only known to 10 %
// from ~30 periods, so the default hold gives each rate 30 whole periods.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RegisterScalableTargetCommand } from '@aws-sdk/client-application-auto-scaling';
import { computedMetricLevel, metricQueryRange, rungMeasureWindow } from '../src/analysis/goodput-metric.js';
import { withAwsClients } from '../src/aws/clients.js';
import { getVariantMetricData } from '../src/aws/metrics.js';
import { KOKORO_G5_QMAX, resolveDevice } from '../src/commands/device.js';
import { runGoodput } from '../src/commands/goodput.js';
import { createProgressRenderer } from '../src/load/progress.js';
import { clientConfigFor, describeEmulatedDevice, startLocalSageMaker } from '../src/local/index.js';
import { type GoodputArtifact, LOCAL_REGION, parseConfig } from '../src/model/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}
const timeScale = Number(option('time-scale', '0.25'));
const shares = option('shares', '0.4,0.6,0.75').split(',').map(Number);
const holdS = Number(option('hold-s', '310'));
const settleS = Number(option('settle-s', '10'));
const seed = Number(option('seed', '1'));
if (!(timeScale > 0)) throw new Error('--time-scale must be > 0');
if (shares.some((s) => !(s > 0 && s < 1))) throw new Error('--shares: fractions of the throughput in (0, 1)');

const started = performance.now();
const stamp = () => `[${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s]`;
const say = (line: string) => process.stdout.write(`${stamp()} ${line}\n`);
const progress = createProgressRenderer(process.stderr);

const { device } = resolveDevice({ device: join(ROOT, KOKORO_G5_QMAX), timeScale });
const profile = device.profile;
if (!profile) throw new Error('no device profile');
const throughput = (profile.lanes * 1000) / (profile.service_mean_ms * timeScale);
const rates = shares.map((s) => Number((s * throughput).toPrecision(3)));
const QUEUE = 100_000;
say(`device: ${describeEmulatedDevice(device)}`);
say(
  `rates ${rates.join(', ')}/s (${shares.map((s) => `${s * 100} %`).join(', ')} of ${throughput.toFixed(1)}/s); hold ${holdS} s, settle ${settleS} s; ` +
    `machine: ${availableParallelism()} cores, load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}`,
);

const out = mkdtempSync(join(tmpdir(), 'scalegate-bench-metric-level-'));
const configFile = join(out, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    'kokoro-emulated': {
      endpoint: 'speech-metric-level',
      region: 'local',
      instance_type: 'ml.g5.xlarge',
      container_dir: join(ROOT, 'infra/container'),
      slo_ms: 3000 * timeScale,
      surge_ratio: 1.25,
      peak_rps: 100,
    },
  },
});
writeFileSync(configFile, configText);
const model = parseConfig(configText, configFile).models['kokoro-emulated'];
if (!model) throw new Error('no model');
const promptsFile = join(out, 'prompts.txt');
writeFileSync(promptsFile, 'Your order has shipped.\nGood morning!\n');

const handle = await startLocalSageMaker({
  endpointName: 'speech-metric-level',
  instances: 1,
  provisionDelayS: 0.2,
  maxQueueDepth: QUEUE,
  device: { profile, timeScale, startup: null },
  registerScalableTarget: true,
});
const local = clientConfigFor(handle);
const loadClient = { endpoint: local.endpoint, credentials: local.credentials };
let artifact: GoodputArtifact;
const router = new Map<number, { meanInFlight: number; sojournMs: number }>();
try {
  artifact = await withAwsClients(
    { region: LOCAL_REGION, ...loadClient, maxConcurrency: 64 },
    async (clients) => {
      await clients.autoscaling.send(
        new RegisterScalableTargetCommand({
          ServiceNamespace: 'sagemaker',
          ResourceId: `endpoint/${handle.endpointName}/variant/${handle.variantName}`,
          ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
          SuspendedState: {
            DynamicScalingInSuspended: false,
            DynamicScalingOutSuspended: false,
            ScheduledScalingSuspended: false,
          },
        }),
      );
      const result = await runGoodput(
        {
          modelName: 'kokoro-emulated',
          model,
          configFile,
          endpoint: handle.endpointName,
          variant: handle.variantName,
          region: LOCAL_REGION,
          rates,
          holdS,
          settleS,
          seed,
          promptsFile,
          outFile: join(out, 'goodput.json'),
          stateDir: join(out, 'state'),
          pollIntervalMs: 200,
          cloudwatchWaitS: 30,
          commandLine: 'bench:metric-level',
        },
        { clients, progress, handleSignals: false, loadClient },
      );
      process.stdout.write(`${result.report}\n`);
      if (result.exitCode !== 0) throw new Error('goodput failed');
      const a = result.artifact as GoodputArtifact;
      // Where the router's count differs from the device's: its mean in flight (Average per 10 s)
      // and its mean time in flight (ModelLatency, from the request handed on to the response end).
      for (const g of a.rungs) {
        const range = metricQueryRange(rungMeasureWindow(g));
        const series = await getVariantMetricData(
          clients.cloudwatch,
          handle.endpointName,
          handle.variantName,
          [
            { id: 'cavg', metricName: 'ConcurrentRequestsPerModel', stat: 'Average', periodS: 10 },
            { id: 'lat', metricName: 'ModelLatency', stat: 'Average', periodS: 10 },
            { id: 'n', metricName: 'Invocations', stat: 'Sum', periodS: 10 },
          ],
          range.startMs,
          range.endMs,
        );
        const byId = new Map(series.map((x) => [x.id, x.values]));
        const cavg = byId.get('cavg') ?? [];
        const n = byId.get('n') ?? [];
        const lat = byId.get('lat') ?? [];
        const total = n.reduce((x, y) => x + y, 0);
        // Invocation-weighted mean ModelLatency (us -> ms).
        const weighted = n.reduce((acc, k, i) => acc + k * (lat[i] ?? 0), 0) / Math.max(1, total);
        router.set(g.rate_rps, {
          meanInFlight: cavg.length > 0 ? cavg.reduce((x, y) => x + y, 0) / cavg.length : Number.NaN,
          sojournMs: weighted / 1000,
        });
      }
      return a;
    },
  );
} finally {
  await handle.close();
}

say('measured (goodput CloudWatch join) vs computed (queueing simulation, seed 1, 600 periods)');
const f = (v: number) => v.toFixed(1).padStart(5);
process.stdout.write(
  'rate/s  share  periods  measured p10  p50    p90   | computed p10  p50    p90   | p50 ratio  mean in flight meas/comp\n',
);
for (const [i, g] of artifact.rungs.entries()) {
  const m = g.metric_level;
  const c = computedMetricLevel(profile, g.rate_rps, { timeScale, queueLimit: QUEUE });
  const share = `${((shares[i] ?? 0) * 100).toFixed(0)} %`;
  if (!m) {
    process.stdout.write(`${String(g.rate_rps).padStart(6)}  ${share.padStart(5)}  not joined\n`);
    continue;
  }
  process.stdout.write(
    `${String(g.rate_rps).padStart(6)}  ${share.padStart(5)}  ${String(m.periods).padStart(7)}  ${f(m.p10)}        ${f(m.p50)}  ${f(m.p90)} | ${f(c.p10)}        ${f(c.p50)}  ${f(c.p90)} | ` +
      `${(m.p50 / c.p50).toFixed(3).padStart(9)}  ${m.mean_in_flight.toFixed(2)} / ${c.meanInFlight.toFixed(2)}\n`,
  );
}
say(
  'where the counts differ: the router (ConcurrentRequestsPerModel Average, ModelLatency) against the simulated device',
);
process.stdout.write(
  'rate/s  router mean in flight  device (computed)  router time in flight ms  device (computed) ms  transit d ms  rate x d  client send lag p99 ms\n',
);
for (const g of artifact.rungs) {
  const r = router.get(g.rate_rps);
  const c = computedMetricLevel(profile, g.rate_rps, { timeScale, queueLimit: QUEUE });
  const deviceMs = (c.meanInFlight / g.rate_rps) * 1000;
  const d = r ? r.sojournMs - deviceMs : Number.NaN;
  process.stdout.write(
    `${String(g.rate_rps).padStart(6)}  ${(r?.meanInFlight ?? Number.NaN).toFixed(2).padStart(20)}  ${c.meanInFlight.toFixed(2).padStart(17)}  ${(r?.sojournMs ?? Number.NaN).toFixed(2).padStart(24)}  ${deviceMs.toFixed(2).padStart(20)}  ${d.toFixed(2).padStart(12)}  ${((g.rate_rps * d) / 1000).toFixed(2).padStart(8)}  ${String(g.send_lag_p99_ms ?? '-').padStart(21)}\n`,
  );
}
say(
  "computed again with the router's measured transit d (time counted in flight outside the device) as the simulation's transit",
);
process.stdout.write('rate/s  transit d ms  computed p10  p50    p90   | measured p50 | p50 ratio\n');
for (const g of artifact.rungs) {
  const r = router.get(g.rate_rps);
  const m = g.metric_level;
  const device = computedMetricLevel(profile, g.rate_rps, { timeScale, queueLimit: QUEUE });
  const d = r ? r.sojournMs - (device.meanInFlight / g.rate_rps) * 1000 : Number.NaN;
  if (!m || !Number.isFinite(d)) continue;
  const c = computedMetricLevel(profile, g.rate_rps, {
    timeScale,
    queueLimit: QUEUE,
    transitS: Math.max(0, d) / 1000,
  });
  process.stdout.write(
    `${String(g.rate_rps).padStart(6)}  ${d.toFixed(2).padStart(12)}  ${f(c.p10)}        ${f(c.p50)}  ${f(c.p90)} | ${f(m.p50).padStart(12)} | ${(m.p50 / c.p50).toFixed(3).padStart(9)}\n`,
  );
}
if (artifact.cloudwatch?.error) say(`cloudwatch: ${artifact.cloudwatch.error}`);
say(`artifact: ${join(out, 'goodput.json')}`);
