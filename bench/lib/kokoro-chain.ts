// The chain the drill benchmarks share, on the local SageMaker: the emulated Kokoro-82M
// ml.g5.xlarge device with its measured start-up (both from the committed real artifacts) at a
// time scale, then qmax -> ttotal -> plan measured on that very endpoint. The benchmark's own
// drills run inside `body`; the endpoint is closed whatever happens.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type AwsClients, withAwsClients } from '../../src/aws/clients.js';
import { KOKORO_G5_QMAX, resolveDevice } from '../../src/commands/device.js';
import { runPlan } from '../../src/commands/plan.js';
import { runQmax } from '../../src/commands/qmax.js';
import { localImageUri, REHEARSAL_PROFILES } from '../../src/commands/rehearse.js';
import { runTtotal } from '../../src/commands/ttotal.js';
import { createProgressRenderer } from '../../src/load/progress.js';
import { clientConfigFor, describeEmulatedDevice, startLocalSageMaker } from '../../src/local/index.js';
import { readConfigFile } from '../../src/model/config.js';
import { LOCAL_REGION, modelFromConfig, type PlanArtifact } from '../../src/model/index.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const KOKORO_TTOTAL = 'artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json';

/** A command-line option of the benchmark (`--name value`). */
export function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? (process.argv[at + 1] ?? fallback) : fallback;
}

export interface KokoroChain {
  clients: AwsClients;
  loadClient: { endpoint: string; credentials: { accessKeyId: string; secretAccessKey: string } };
  common: { modelName: string; endpoint: string; variant: string; region: string };
  modelName: string;
  model: ReturnType<typeof modelFromConfig>[1];
  sloMs: number;
  out: string;
  prompts: string;
  qmaxFile: string;
  ttotalFile: string;
  planFile: string;
  plan: PlanArtifact;
  planExitCode: number;
  say: (line: string) => void;
  print: (report: string) => void;
  progress: ReturnType<typeof createProgressRenderer>;
  figures: Array<[string, string]>;
}

/**
 * Runs the chain, then `body` with it, and prints `figures` (name: the benchmark, for its
 * artifacts directory and its figures heading).
 */
export async function withKokoroChain(
  name: string,
  timeScale: number,
  body: (chain: KokoroChain) => Promise<void>,
): Promise<void> {
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
  const out = mkdtempSync(join(tmpdir(), `scalegate-${name}-`));

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
          commandLine: `bench:${name}`,
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
      if (!plan.artifact) throw new Error('no plan');
      await body({
        clients,
        loadClient,
        common,
        modelName,
        model,
        sloMs,
        out,
        prompts,
        qmaxFile,
        ttotalFile,
        planFile,
        plan: plan.artifact,
        planExitCode: plan.exitCode,
        say,
        print,
        progress,
        figures,
      });
    });
  } finally {
    await handle.close();
  }
  process.stdout.write(`\nbench:${name} figures\n`);
  const width = Math.max(...figures.map(([k]) => k.length));
  for (const [k, v] of figures) process.stdout.write(`  ${k.padEnd(width)}  ${v}\n`);
  process.stdout.write(
    `  ${'total'.padEnd(width)}  ${((performance.now() - started) / 1000).toFixed(0)} s; artifacts and timeline SVGs in ${out}\n`,
  );
}
