// The deployed policy on trial, end to end on the local SageMaker: the emulated Kokoro-82M
// ml.g5.xlarge device with its measured start-up (both from the committed real artifacts) at a time
// scale, the chain measured on that very endpoint (qmax -> ttotal -> plan), then two drills at
// k = 1.25 with the same arrival seed:
//
//   npm run bench:policy-drill [-- --time-scale 0.25 --trough-s 30]
//
// SEED: the closed-loop rule (1 - h) Q_max (`plan --policy-rule seed`, verdict stop), applied with
//   `local apply`, drilled at its own steady load (X_target per instance);
// CHOSEN: the surge-safe policy `plan` deploys (the target in the tracked metric's open-loop
//   units), drilled at its steady load (lambda_safe per instance).
// The peer is the seed's rule in the same run: its SLO verdict, overflows and instance-minutes
// beside the chosen one's, and their ratio.
//
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withAwsClients } from '../src/aws/clients.js';
import { KOKORO_G5_QMAX, resolveDevice } from '../src/commands/device.js';
import { runDrill } from '../src/commands/drill.js';
import { runLocalApply } from '../src/commands/local-apply.js';
import { runPlan } from '../src/commands/plan.js';
import { runQmax } from '../src/commands/qmax.js';
import { localImageUri, REHEARSAL_PROFILES } from '../src/commands/rehearse.js';
import { runTtotal } from '../src/commands/ttotal.js';
import { createProgressRenderer } from '../src/load/progress.js';
import { clientConfigFor, describeEmulatedDevice, startLocalSageMaker } from '../src/local/index.js';
import { readConfigFile } from '../src/model/config.js';
import {
  type DrillArtifact,
  LOCAL_REGION,
  modelFromConfig,
  type PlanArtifact,
  readArtifact,
} from '../src/model/index.js';

type PlanArtifactLike = PlanArtifact;

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KOKORO_TTOTAL = 'artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}
const timeScale = Number(option('time-scale', '0.25'));
const troughS = Number(option('trough-s', '30'));
if (!(timeScale > 0)) throw new Error('--time-scale must be > 0');

const started = performance.now();
const stamp = () => `[${((performance.now() - started) / 1000).toFixed(0).padStart(5)} s]`;
const say = (line: string) => process.stdout.write(`${stamp()} ${line}\n`);
const progress = createProgressRenderer(process.stderr);
const print = (report: string) => process.stdout.write(report.endsWith('\n') ? report : `${report}\n`);

const configFile = join(ROOT, 'scalegate.config.json');
const [modelName, configured] = modelFromConfig(readConfigFile(configFile), 'reference-tts', configFile);
// The Kokoro SLO at this time scale; peak load for the emulator's quota of 4 instances.
const sloMs = 3000 * timeScale;
const x = 17.9 / timeScale;
const model = { ...configured, slo_ms: sloMs, peak_rps: 4 * x * 0.99, trough_rps: 5 };
const out = mkdtempSync(join(tmpdir(), 'scalegate-bench-policy-drill-'));

const { device } = resolveDevice({
  device: join(ROOT, KOKORO_G5_QMAX),
  timeScale,
  startup: join(ROOT, KOKORO_TTOTAL),
});
say(`device: ${describeEmulatedDevice(device)}`);
say(
  `machine: ${availableParallelism()} cores, load ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}; artifacts in ${out}`,
);

const handle = await startLocalSageMaker({
  endpointName: model.endpoint,
  variantName: model.variant,
  region: LOCAL_REGION,
  imageUri: localImageUri(),
  instanceType: model.instance_type,
  instances: 1,
  // A calibration endpoint measures with an unbounded queue; `local apply` sets the plan's.
  maxQueueDepth: 100_000,
  device,
  quota: 4,
  registerScalableTarget: true,
});
const local = clientConfigFor(handle);
const loadClient = { endpoint: local.endpoint, credentials: local.credentials };
const common = { modelName, endpoint: model.endpoint, variant: model.variant, region: LOCAL_REGION };
const prompts = join(out, 'prompts.txt');
// Two short texts: a new instance's first request for a text waits for its synthesis on the host.
writeFileSync(prompts, 'Your order has shipped.\nGood morning!\n');

const figures: Array<[string, string]> = [];
try {
  await withAwsClients({ region: LOCAL_REGION, ...loadClient, maxConcurrency: 128 }, async (clients) => {
    const profile = REHEARSAL_PROFILES.full;
    say(`qmax (adaptive ladder, SLO ${sloMs} ms = 3000 ms x ${timeScale})`);
    const qmax = await runQmax(
      {
        ...common,
        model,
        configFile,
        sloMs,
        ladder: 'adaptive',
        holdS: profile.holdS,
        measureS: profile.measureS,
        settleS: profile.settleS,
        minSamples: profile.minSamples,
        resolution: profile.resolution,
        maxConcurrency: profile.maxConcurrency,
        cloudwatchWaitS: 30,
        pollIntervalMs: 250,
        artifactsDir: out,
        stateDir: join(out, 'state'),
        commandLine: 'bench:policy-drill',
      },
      { clients, progress, handleSignals: false, loadClient },
    );
    print(qmax.report);
    if (qmax.exitCode !== 0) throw new Error('qmax failed');
    const qmaxFile = qmax.written[0] as string;

    say('ttotal (one forced scale-out, the measured Kokoro start-up replayed)');
    const ttotal = await runTtotal(
      {
        ...common,
        model,
        qmaxFile,
        settleS: profile.recoveryWindowS,
        pollS: 0.5,
        maxWaitS: 600,
        artifactsDir: out,
        stateDir: join(out, 'state'),
      },
      { clients, progress, handleSignals: false, loadClient },
    );
    print(ttotal.report);
    if (ttotal.exitCode !== 0) throw new Error('ttotal failed');
    const ttotalFile = ttotal.written[0] as string;

    const planFile = join(out, 'plan.json');
    const plan = runPlan(
      { modelName, model, qmaxFile, ttotalFile, sloMs, outFile: planFile },
      { version: 'bench' },
    );
    print(plan.report);
    const p = plan.artifact;
    if (!p) throw new Error('no plan');

    const seedFile = join(out, 'plan-seed.json');
    const seedPlan = runPlan(
      { modelName, model, qmaxFile, ttotalFile, sloMs, policyRule: 'seed', outFile: seedFile },
      { version: 'bench' },
    );
    print(seedPlan.report);
    figures.push(['plan (surge-safe): verdict / exit', `${p.verdict} / ${plan.exitCode}`]);
    figures.push([
      'plan --policy-rule seed: verdict / exit',
      `${seedPlan.artifact?.verdict} / ${seedPlan.exitCode}`,
    ]);

    const apply = async (file: string) => {
      const r = await runLocalApply({ ...common, planFile: file }, { clients });
      print(r.report);
      if (r.exitCode !== 0) throw new Error('local apply failed');
    };
    const drill = async (label: string, file: string) => {
      say(`drill ${label}`);
      const r = await runDrill(
        {
          ...common,
          model,
          planFile: file,
          surgeRatio: 1.25,
          troughS,
          promptsFile: prompts,
          outFile: join(out, `drill-${label}.json`),
        },
        { clients, progress, loadClient },
      );
      print(r.report);
      return { artifact: readArtifact('drill', r.written[0] as string), exitCode: r.exitCode };
    };

    say("local apply: the seed's closed-loop rule");
    await apply(seedFile);
    const seed = await drill('seed', seedFile);
    say('local apply: the surge-safe policy');
    await apply(planFile);
    const chosen = await drill('chosen', planFile);

    const row = (
      label: string,
      d: { artifact: DrillArtifact; exitCode: number },
      planned: PlanArtifactLike,
    ) => {
      const a = d.artifact;
      const o = a.analysis.observed;
      figures.push([
        `${label}: target / steady rate per instance`,
        `${planned.deployable.scaling_target_value} (${planned.deployable.scaling_metric}) / ${a.phases.find((ph) => ph.name === 'steady')?.rate_rps.toFixed(2)} requests/s`,
      ]);
      figures.push([
        `${label}: slo_held / verdict / exit`,
        `${a.slo_held} / ${a.verdict} / ${d.exitCode} (as predicted ${a.as_predicted})`,
      ]);
      figures.push([
        `${label}: windows outside the SLO (steady, surge)`,
        `${a.slo?.broken_windows.length ?? 'n/a'} (${o.windows_over_slo.steady}, ${o.windows_over_slo.surge})`,
      ]);
      figures.push([`${label}: overflows steady / surge`, `${o.overflows.steady} / ${o.overflows.surge}`]);
      figures.push([
        `${label}: instance-minutes (steady + surge), max desired`,
        `${o.instance_minutes ?? 'n/a'}, ${o.max_desired ?? 'n/a'}`,
      ]);
      figures.push([
        `${label}: policy lag (measured)`,
        `${a.analysis.policy_lag.seconds ?? 'n/a'} s (${a.analysis.policy_lag.evaluation ?? 'n/a'})`,
      ]);
    };
    row('SEED', seed, seedPlan.artifact as PlanArtifactLike);
    row('CHOSEN', chosen, p);
    const im = (d: { artifact: DrillArtifact }) => d.artifact.analysis.observed.instance_minutes ?? 0;
    figures.push([
      'instance-minutes CHOSEN / SEED',
      `${im(chosen).toFixed(2)} / ${im(seed).toFixed(2)} (ratio ${im(seed) > 0 ? (im(chosen) / im(seed)).toFixed(3) : 'n/a'})`,
    ]);
    figures.push(['timelines (SVG)', `${join(out, 'drill-seed.svg')}, ${join(out, 'drill-chosen.svg')}`]);
  });
} finally {
  await handle.close();
}
process.stdout.write('\nbench:policy-drill figures\n');
const width = Math.max(...figures.map(([k]) => k.length));
for (const [k, v] of figures) process.stdout.write(`  ${k.padEnd(width)}  ${v}\n`);
process.stdout.write(
  `  ${'total'.padEnd(width)}  ${((performance.now() - started) / 1000).toFixed(0)} s; artifacts and timeline SVGs in ${out}\n`,
);
