/**
 * `scalegate rehearse`: the whole calibration chain on the local SageMaker, as a pull request
 * runs it on AWS: drift -> qmax -> ttotal -> plan -> apply the plan's policy -> validate. Real
 * container processes, real protocols, real delays; nothing here is simulated beyond what the
 * local SageMaker itself emulates. Everything it starts is stopped on every exit path.
 */
import { join } from 'node:path';
import { withAwsClients } from '../aws/clients.js';
import { withPricingClient } from '../aws/pricing.js';
import { clientConfigFor } from '../local/aws-env.js';
import {
  defaultImageUri,
  describeEmulatedDevice,
  findContainerDir,
  type LocalSageMakerHandle,
  startLocalSageMaker,
} from '../local/index.js';
import { containerAssetHash } from '../model/asset-hash.js';
import {
  driftFileName,
  LOCAL_REGION,
  type ModelConfig,
  planFileName,
  type QmaxArtifact,
  type ScalegateConfig,
  validateFileName,
  writeFileAtomic,
} from '../model/index.js';
import type { RehearsalResult, RehearsalStep } from '../model/reports.js';
import { tableRows } from '../plan/price-table.js';
import { renderTtfabChartSvg } from '../report/chart-svg.js';
import { renderReport } from '../report/markdown.js';
import { renderRehearsalSummary } from '../report/rehearse-text.js';
import { KOKORO_G5_QMAX, locateBundled, resolveDevice } from './device.js';
import { runDrift } from './drift.js';
import { runLocalApply } from './local-apply.js';
import { runPlanPriced } from './plan.js';
import { priceListLookup } from './plan-price.js';
import { runQmax } from './qmax.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';
import { runTtotal } from './ttotal.js';
import { runValidate } from './validate.js';

export type { RehearsalResult, RehearsalStep } from '../model/reports.js';

/** The local SageMaker's default account (the emulator's). */
const LOCAL_ACCOUNT = '000000000000';

/**
 * The image the local SageMaker reports when scalegate starts it: the CDK asset URI of
 * infra/container, tagged with its asset hash as `cdk deploy` tags it, so a local measurement
 * names the image a deploy would run.
 */
export function localImageUri(region: string = LOCAL_REGION, accountId: string = LOCAL_ACCOUNT): string {
  return defaultImageUri(accountId, region, containerAssetHash(findContainerDir()));
}

export interface RehearsalProfile {
  provisionDelayS: number;
  holdS: number;
  measureS: number;
  settleS: number;
  minSamples: number;
  resolution: number;
  maxConcurrency: number;
  recoveryWindowS: number;
}

/**
 * Holds scaled for a laptop: long enough for a few hundred samples per rung at the reference
 * container's throughput, short enough for the whole chain to take minutes. `quick` is what CI runs.
 */
export const REHEARSAL_PROFILES: Record<'full' | 'quick', RehearsalProfile> = {
  full: {
    provisionDelayS: 5,
    holdS: 20,
    measureS: 8,
    settleS: 2,
    minSamples: 100,
    resolution: 4,
    maxConcurrency: 96,
    recoveryWindowS: 6,
  },
  quick: {
    provisionDelayS: 3,
    holdS: 12,
    measureS: 5,
    settleS: 1,
    minSamples: 80,
    resolution: 8,
    maxConcurrency: 96,
    recoveryWindowS: 4,
  },
};

export interface RehearseInput {
  config: ScalegateConfig;
  configFile: string;
  modelName: string;
  model: ModelConfig;
  /** Where the artifacts and previews go. */
  outDir: string;
  /** Shorter holds and delays (what CI runs). @default false */
  quick?: boolean;
  /** Seconds before a new instance starts. @default the profile's (full 5, quick 3) */
  provisionDelayS?: number;
  /** `cpu` or a qmax artifact each instance's device is derived from. @default REHEARSAL_DEVICE */
  device?: string;
  /** Multiplies every device time. @default REHEARSAL_TIME_SCALE with a device */
  timeScale?: number;
  /** A ttotal artifact whose start-up new instances replay. @default the provisioning delay */
  startup?: string;
}

/**
 * The rehearsal's default device: the Kokoro-82M ml.g5.xlarge ladder (one lane, 55.9 ms a
 * request, 17.9 requests/s), four times faster (14 ms, 72 requests/s per instance; Q_max ~20 at
 * the reference model's 300 ms SLO). Each instance owns its device, so the second instance of
 * ttotal adds capacity as on AWS and the probe recovers, while two instances at full throughput
 * still leave most of two cores to the load generator and the emulator.
 */
export const REHEARSAL_DEVICE = KOKORO_G5_QMAX;
export const REHEARSAL_TIME_SCALE = 0.25;

class StepFailed extends Error {
  constructor(
    readonly step: RehearsalStep['step'],
    message: string,
  ) {
    super(message);
  }
}

export async function runRehearse(
  input: RehearseInput,
  deps: CommandDeps = {},
): Promise<CommandResult<RehearsalResult>> {
  // Refused input (exit 2) before anything starts.
  const deviceChoice = input.device ?? locateBundled(REHEARSAL_DEVICE);
  const { device } = resolveDevice({
    device: deviceChoice,
    timeScale: input.timeScale ?? (deviceChoice === 'cpu' ? undefined : REHEARSAL_TIME_SCALE),
    startup: input.startup,
  });
  const profile = { ...REHEARSAL_PROFILES[input.quick ? 'quick' : 'full'] };
  if (input.provisionDelayS !== undefined) profile.provisionDelayS = input.provisionDelayS;
  const { log, progress, signal, version } = resolveDeps(deps);
  const started = performance.now();
  const { modelName, model, outDir } = input;
  const stateDir = join(outDir, 'state');
  const result: RehearsalResult = {
    model: modelName,
    endpoint: model.endpoint,
    outDir,
    steps: [],
    drift: null,
    qmax: null,
    ttotal: null,
    plan: null,
    validate: null,
    previews: null,
    failed: null,
    totalSeconds: 0,
    containerPids: [],
    device: describeEmulatedDevice(device),
  };

  /** Runs one step with a progress line before and after; a non-zero exit stops the chain. */
  async function step<T>(
    name: RehearsalStep['step'],
    what: string,
    body: () => Promise<CommandResult<T>>,
    accept: (r: CommandResult<T>) => boolean = (r) => r.exitCode === 0,
  ): Promise<CommandResult<T>> {
    current = name;
    if (signal?.aborted) throw new StepFailed(name, 'interrupted');
    log(`\n[${elapsed()}] ${name}: ${what}`);
    const t0 = performance.now();
    const outcome = await body();
    const record: RehearsalStep = {
      step: name,
      seconds: (performance.now() - t0) / 1000,
      exitCode: outcome.exitCode,
      files: outcome.written,
    };
    result.steps.push(record);
    for (const line of outcome.report.trimEnd().split('\n')) log(`  ${line}`);
    if (!accept(outcome)) throw new StepFailed(name, `${name} exited ${outcome.exitCode}`);
    return outcome;
  }
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1).padStart(5)} s`;

  let current: RehearsalStep['step'] = 'local-sagemaker';
  let handle: LocalSageMakerHandle | null = null;
  try {
    log(
      `[${elapsed()}] local-sagemaker: starting endpoint ${model.endpoint} (1 instance of the reference TTS container${device.startup ? '' : `, provisioning delay ${profile.provisionDelayS} s`})`,
    );
    log(`  ${result.device}`);
    const t0 = performance.now();
    const sagemaker = await startLocalSageMaker({
      endpointName: model.endpoint,
      variantName: model.variant,
      region: LOCAL_REGION,
      accountId: LOCAL_ACCOUNT,
      imageUri: localImageUri(LOCAL_REGION, LOCAL_ACCOUNT),
      instanceType: model.instance_type,
      instances: 1,
      provisionDelayS: profile.provisionDelayS,
      // A calibration endpoint measures with an unbounded queue: admission must not cap latency.
      maxQueueDepth: 100_000,
      environment: model.container_env,
      device,
      registerScalableTarget: true,
      // The Price List API answers from the committed fallback table (the plan's cost block).
      prices: tableRows('us-east-1'),
      log: (line) => log(`  ${line}`),
      onProcessStart: (_id, pid) => result.containerPids.push(pid),
    });
    handle = sagemaker;
    result.steps.push({
      step: 'local-sagemaker',
      seconds: (performance.now() - t0) / 1000,
      exitCode: 0,
      files: [],
    });
    log(`  AWS_ENDPOINT_URL=${sagemaker.url} AWS_REGION=${LOCAL_REGION}`);
    const local = clientConfigFor(sagemaker);
    const loadClient = { endpoint: local.endpoint, credentials: local.credentials };
    const options = { region: LOCAL_REGION, ...loadClient, maxConcurrency: profile.maxConcurrency };
    await withAwsClients(options, async (clients) => {
      const common = { modelName, endpoint: model.endpoint, variant: model.variant, region: LOCAL_REGION };

      const drift = await step('drift', 'is the endpoint exactly what the repo declares?', () =>
        runDrift(
          { ...common, config: input.config, outFile: join(outDir, driftFileName(modelName)), stateDir },
          { clients },
        ),
      );
      result.drift = drift.artifact;

      const qmax = await step(
        'qmax',
        'adaptive ladder: the highest concurrency one instance holds inside the SLO',
        () =>
          runQmax(
            {
              ...common,
              model,
              configFile: input.configFile,
              ladder: 'adaptive',
              holdS: profile.holdS,
              measureS: profile.measureS,
              settleS: profile.settleS,
              minSamples: profile.minSamples,
              resolution: profile.resolution,
              maxConcurrency: profile.maxConcurrency,
              cloudwatchWaitS: 30,
              pollIntervalMs: 250,
              artifactsDir: outDir,
              stateDir,
              commandLine: 'scalegate rehearse',
            },
            // The rehearsal handles SIGINT/SIGTERM itself (its signal), and stops what it started.
            { clients, progress, signal, version, handleSignals: false, loadClient },
          ),
      );
      result.qmax = qmax.artifact as QmaxArtifact;
      const qmaxFile = qmax.written[0] as string;

      // Each instance owns its emulated device, so the second one adds capacity as on AWS and the
      // probe recovers: a T_total that ends at in_service (a lower bound, exit 1) fails the rehearsal.
      const ttotal = await step('ttotal', 'one forced scale-out, timed stage by stage', () =>
        runTtotal(
          {
            ...common,
            model,
            qmaxFile,
            settleS: profile.recoveryWindowS,
            pollS: 0.25,
            maxWaitS: 30,
            artifactsDir: outDir,
            stateDir,
          },
          { clients, progress, signal, version, handleSignals: false, loadClient },
        ),
      );
      result.ttotal = ttotal.artifact;
      const ttotalFile = ttotal.written[0] as string;

      const planFile = join(outDir, planFileName(modelName));
      const plan = await step('plan', 'derive the policy from the two measurements', async () =>
        withPricingClient(model.region, loadClient, (pricing) =>
          runPlanPriced(
            { modelName, model, qmaxFile, ttotalFile, outFile: planFile },
            { version, priceLookup: priceListLookup(pricing) },
          ),
        ),
      );
      result.plan = plan.artifact;

      await step(
        'apply',
        "deploy the plan's policy shape through Application Auto Scaling and CloudWatch",
        () => runLocalApply({ ...common, planFile, pollIntervalMs: 250 }, { clients, progress, signal }),
      );

      const validate = await step('validate', 'does every deployed parameter equal the plan?', () =>
        runValidate({ ...common, planFile, outFile: join(outDir, validateFileName(modelName)) }, { clients }),
      );
      result.validate = validate.artifact;
    });
  } catch (e) {
    const failedStep = e instanceof StepFailed ? e.step : current;
    result.failed = { step: failedStep, reason: (e as Error).message };
    log(`\n[${elapsed()}] ${failedStep} failed: ${(e as Error).message}`);
  } finally {
    if (handle) {
      log(`[${elapsed()}] stopping the local SageMaker and its containers`);
      await handle.close();
    }
  }

  if (result.qmax) result.previews = writePreviews(result, input, version);
  result.totalSeconds = (performance.now() - started) / 1000;
  const exitCode = result.failed ? 1 : 0;
  return {
    artifact: result,
    report: renderRehearsalSummary(result),
    exitCode,
    written: [
      ...result.steps.flatMap((s) => s.files),
      ...(result.previews ? Object.values(result.previews) : []),
    ],
  };
}

/** The PR comment the chain would post, and the TTFAB chart, beside the artifacts. */
function writePreviews(
  result: RehearsalResult,
  input: RehearseInput,
  version: string,
): { comment: string; chart: string } {
  const comment = join(input.outDir, 'comment.md');
  const chart = join(input.outDir, `ttfab-${input.modelName}.svg`);
  const located = <A>(artifact: A | null, file: string | undefined) =>
    artifact ? { artifact, file: file ?? null } : null;
  const fileOf = (step: RehearsalStep['step']) => result.steps.find((s) => s.step === step)?.files[0];
  writeFileAtomic(
    comment,
    renderReport({
      modelName: input.modelName,
      command: 'rehearse',
      exitCode: result.failed ? 1 : 0,
      version,
      error: result.failed ? `${result.failed.step}: ${result.failed.reason}` : null,
      plan: located(result.plan, fileOf('plan')),
      qmax: located(result.qmax, fileOf('qmax')),
      ttotal: located(result.ttotal, fileOf('ttotal')),
      drift: located(result.drift, fileOf('drift')),
      validate: located(result.validate, fileOf('validate')),
    }),
  );
  writeFileAtomic(chart, renderTtfabChartSvg(result.qmax as QmaxArtifact));
  return { comment, chart };
}
