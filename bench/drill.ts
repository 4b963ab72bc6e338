// The surge drill, end to end on the local SageMaker: the emulated Kokoro-82M ml.g5.xlarge device
// with its measured start-up (both from the committed real artifacts) at a time scale, the chain
// measured on that very endpoint (qmax -> ttotal -> plan), the plan's policy applied with
// `local apply`, then three drills at k = 1.25 and the plan re-derived from the drill:
//
//   npm run bench:drill [-- --time-scale 0.25 --trough-s 30 --skip as-sized]
//
// A. as sized: the steady load the plan sizes each instance for (X_target x 1 instance): on a
//    serial device that is its whole throughput, so the policy already scales in the steady phase,
//    as surge_survival's no-surge baseline predicts;
// B. from a busy endpoint: steady at 0.8 x X_target (the policy holds it), the surge to 1.25 x that
//    starts the scale-out: the measured policy lag against the alarm's configuration;
// C. the peer run: the same drill as B against a deliberately wrong policy (scale-out target 2 x
//    the plan's, applied with --allow-policy-mismatch), which must break the plan's promise where
//    B goes as predicted (each drill's verdict is whether the SLO held: slo_held);
// then `plan --drill B`: the measured lag replaces the plan's 60 s bound.
//
// Phases are the drill's defaults from the plan (steady B/C shortened to 60 s: no scale-out is
// expected there), the trough --trough-s (the scale-in alarm needs 15 minutes of low load; the
// default trough would add ~20 minutes). Prints every report and the figures side by side.
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
import { type DrillArtifact, LOCAL_REGION, modelFromConfig, readArtifact } from '../src/model/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const KOKORO_TTOTAL = 'artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json';

function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}
const timeScale = Number(option('time-scale', '0.25'));
const troughS = Number(option('trough-s', '30'));
const skip = option('skip', '');
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
const out = mkdtempSync(join(tmpdir(), 'scalegate-bench-drill-'));

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
        commandLine: 'bench:drill',
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

    const apply = async (file: string) => {
      const r = await runLocalApply({ ...common, planFile: file }, { clients });
      print(r.report);
      if (r.exitCode !== 0) throw new Error('local apply failed');
    };
    say("local apply: the plan's policy");
    await apply(planFile);

    const drill = async (label: string, extra: Record<string, unknown>): Promise<DrillArtifact> => {
      say(`drill ${label}`);
      const r = await runDrill(
        {
          ...common,
          model,
          planFile,
          surgeRatio: 1.25,
          troughS,
          promptsFile: prompts,
          outFile: join(out, `drill-${label}.json`),
          ...extra,
        },
        { clients, progress, loadClient },
      );
      print(r.report);
      return readArtifact('drill', r.written[0] as string);
    };

    const xTarget = p.derived.x_target_rps as number;
    if (!skip.includes('as-sized')) {
      const a = await drill('A-as-sized', { steadyS: 120 });
      figures.push([
        'A as sized: verdict / policy lag / evaluation',
        `${a.verdict} (SLO held ${a.slo_held}, as predicted ${a.as_predicted}) / ${a.analysis.policy_lag.seconds ?? 'n/a'} s / ${a.analysis.policy_lag.evaluation ?? 'n/a'} (load step ${a.analysis.scale_outs[0]?.load_step ?? 'none'})`,
      ]);
      figures.push([
        'A overflows steady / surge',
        `${a.analysis.observed.overflows.steady} / ${a.analysis.observed.overflows.surge}`,
      ]);
    }
    const b = await drill('B-busy', { steadyRps: 0.8 * xTarget, steadyS: 60 });
    const chain = b.analysis.scale_outs.find((c) => c.evaluation === 'full') ?? b.analysis.scale_outs[0];
    figures.push(['B verdict', `${b.verdict} (SLO held ${b.slo_held}, as predicted ${b.as_predicted})`]);
    figures.push([
      'B policy lag (measured)',
      `${b.analysis.policy_lag.seconds ?? 'n/a'} s (${b.analysis.policy_lag.evaluation ?? 'n/a'})`,
    ]);
    figures.push([
      'B alarm detection vs configured',
      `${chain?.detection_s ?? 'n/a'} s vs ${chain?.configured_detection_s ?? 'n/a'} s (ratio ${chain?.detection_s && chain.configured_detection_s ? (chain.detection_s / chain.configured_detection_s).toFixed(3) : 'n/a'})`,
    ]);
    figures.push([
      "B policy lag vs the plan's",
      `${b.analysis.policy_lag.seconds ?? 'n/a'} s vs ${p.measured.policy_lag_s} s (${p.measured.policy_lag_bounded ? 'bound' : 'computed'})`,
    ]);
    figures.push([
      'B scale-out to in service',
      `${chain?.scale_out_s ?? 'n/a'} s (T_total ${p.measured.t_total_s.toFixed(1)} s measured by ttotal)`,
    ]);
    figures.push([
      'B overflow within T_plan: predicted / observed',
      `${((p.derived.surge_overflow_probability ?? 0) * 100).toFixed(1)} % / ${b.analysis.observed.surge_overflowed_within_t_plan ? 'yes' : 'no'} (${b.analysis.observed.overflows.surge} in the surge)`,
    ]);
    figures.push(['B time until the SLO holds again', `${b.analysis.slo_recovered_s ?? 'never'} s`]);

    const drilled = runPlan(
      {
        modelName,
        model,
        qmaxFile,
        ttotalFile,
        sloMs,
        drillFile: join(out, 'drill-B-busy.json'),
        outFile: join(out, 'plan-drilled.json'),
      },
      { version: 'bench' },
    );
    print(drilled.report);
    figures.push([
      'plan --drill B: T_plan before / after',
      `${p.derived.t_plan_s.toFixed(1)} s / ${drilled.artifact?.derived.t_plan_s.toFixed(1)} s (policy lag ${drilled.artifact?.measured.policy_lag_origin})`,
    ]);

    if (!skip.includes('wrong')) {
      const wrong = JSON.parse(JSON.stringify(p));
      wrong.deployable.scaling_target_value *= 2;
      const wrongFile = join(out, 'plan-wrong.json');
      writeFileSync(wrongFile, JSON.stringify(wrong));
      say("local apply: the wrong policy (scale-out target 2 x the plan's)");
      await apply(wrongFile);
      const c = await drill('C-wrong-policy', {
        steadyRps: 0.8 * xTarget,
        steadyS: 60,
        allowPolicyMismatch: true,
      });
      figures.push([
        'C (wrong policy) verdict / windows outside the SLO / beyond the plan',
        `${c.verdict} (as predicted ${c.as_predicted}) / ${c.slo?.broken_windows.length ?? 'n/a'} / ${c.broken_windows.length}`,
      ]);
      figures.push([
        'overflows in the surge: C / B',
        `${c.analysis.observed.overflows.surge} / ${b.analysis.observed.overflows.surge} (ratio ${b.analysis.observed.overflows.surge > 0 ? (c.analysis.observed.overflows.surge / b.analysis.observed.overflows.surge).toFixed(2) : 'inf'})`,
      ]);
    }
  });
} finally {
  await handle.close();
}
process.stdout.write('\nbench:drill figures\n');
const width = Math.max(...figures.map(([k]) => k.length));
for (const [k, v] of figures) process.stdout.write(`  ${k.padEnd(width)}  ${v}\n`);
process.stdout.write(
  `  ${'total'.padEnd(width)}  ${((performance.now() - started) / 1000).toFixed(0)} s; artifacts and timeline SVGs in ${out}\n`,
);
