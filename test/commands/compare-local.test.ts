/**
 * The compare demonstration, end to end on one local SageMaker over the real SDK clients: two
 * candidates of one model, each on its own calibration endpoint with its own emulated device (the
 * measured Kokoro-82M ml.g5.xlarge profile on `<endpoint>-calibration`, a variant with twice its
 * lanes on `<endpoint>-cal-1`, created through CreateModel / CreateEndpointConfig / CreateEndpoint
 * with the candidate's DEVICE_PROFILE in its model environment), a short fixed qmax ladder on each,
 * a plan on each, then compare: the table, the frontier chart and the chosen plan.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateEndpointCommand,
  CreateEndpointConfigCommand,
  CreateModelCommand,
  DescribeEndpointCommand,
  type ProductionVariantInstanceType,
} from '@aws-sdk/client-sagemaker';
import { InvokeEndpointCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCompare } from '../../src/commands/compare.js';
import { runPlan } from '../../src/commands/plan.js';
import { runQmax } from '../../src/commands/qmax.js';
import { defaultPromptSet, encodePrompts } from '../../src/load/prompts.js';
import { deviceEnvironment } from '../../src/local/device.js';
import { clientConfigFor } from '../../src/local/index.js';
import {
  type CompareArtifact,
  candidateCalibrationEndpoint,
  candidateModel,
  type PlanArtifact,
  parseConfig,
  readArtifact,
} from '../../src/model/index.js';
import { renderCompareMarkdown } from '../../src/report/compare-text.js';
import { kokoroDevice, startDeviceEndpoint } from '../helpers/local-endpoint.js';

const SCALE = 0.5;
/** The SLO in the device's own time: p95 TTFAB grows ~56 ms a stream on one device. */
const SLO_MS = 700;
const MODEL = 'kokoro-82m';
const ENDPOINT = 'speech-kokoro-82m';
const twice = { ...kokoroDevice.profile, lanes: kokoroDevice.profile.lanes * 2 };
const twiceEnv = deviceEnvironment({ profile: twice, timeScale: SCALE, startup: null });
/** The stated prices: the variant costs 1.6 x the measured device's hour. */
const PRICES: Record<string, number> = { 'ml.g5.xlarge': 1.41, 'ml.g5.2xlarge': 1.41 * 1.6 };

const dir = mkdtempSync(join(tmpdir(), 'scalegate-compare-local-'));
const configFile = join(dir, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    [MODEL]: {
      endpoint: ENDPOINT,
      region: 'local',
      instance_type: 'ml.g5.xlarge',
      container_dir: 'infra/container',
      slo_ms: SLO_MS * SCALE,
      surge_ratio: 1.25,
      peak_rps: 50,
      trough_rps: 2,
      instance_hourly_usd: PRICES['ml.g5.xlarge'],
      candidates: [
        {
          instance_type: 'ml.g5.2xlarge',
          container_env: { DEVICE_PROFILE: twiceEnv.DEVICE_PROFILE },
          instance_hourly_usd: PRICES['ml.g5.2xlarge'],
        },
      ],
    },
  },
});
writeFileSync(configFile, configText);
const model = parseConfig(configText, configFile).models[MODEL] as NonNullable<
  ReturnType<typeof parseConfig>['models'][string]
>;

let local: Awaited<ReturnType<typeof startDeviceEndpoint>>;
let compare: CompareArtifact;
let report: string;
let planFiles: string[];

/** Candidate 1's calibration endpoint, made the way the CDK app makes it: model, config, endpoint. */
async function createCandidateEndpoint(n: number): Promise<string> {
  const name = candidateCalibrationEndpoint(ENDPOINT, n);
  const m = candidateModel(model, n);
  const { sagemaker } = local.clients;
  await sagemaker.send(
    new CreateModelCommand({
      ModelName: `${name}-model`,
      PrimaryContainer: {
        Image: local.handle.imageUri,
        Environment: {
          ...deviceEnvironment({ profile: kokoroDevice.profile, timeScale: SCALE, startup: null }),
          ...m.container_env,
          MAX_QUEUE_DEPTH: '10000',
          WORKERS: '1',
        },
      },
      ExecutionRoleArn: `arn:aws:iam::${local.handle.accountId}:role/scalegate-local-sagemaker-execution`,
    }),
  );
  await sagemaker.send(
    new CreateEndpointConfigCommand({
      EndpointConfigName: `${name}-config`,
      ProductionVariants: [
        {
          VariantName: 'AllTraffic',
          ModelName: `${name}-model`,
          InstanceType: m.instance_type as ProductionVariantInstanceType,
          InitialInstanceCount: 1,
        },
      ],
    }),
  );
  await sagemaker.send(
    new CreateEndpointCommand({ EndpointName: name, EndpointConfigName: `${name}-config` }),
  );
  for (;;) {
    const status = (await sagemaker.send(new DescribeEndpointCommand({ EndpointName: name }))).EndpointStatus;
    if (status === 'InService') return name;
    if (status === 'Failed') throw new Error(`${name} failed to deploy`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every prompt served twice before the ladder, so a rung's short settle does not hold the first syntheses. */
async function warmUp(endpoint: string): Promise<void> {
  const bodies = encodePrompts(defaultPromptSet());
  const all = [...bodies, ...bodies];
  for (let i = 0; i < all.length; i += 5) {
    await Promise.all(
      all
        .slice(i, i + 5)
        .map((Body) =>
          local.clients.runtime.send(
            new InvokeEndpointCommand({ EndpointName: endpoint, Body, ContentType: 'application/json' }),
          ),
        ),
    );
  }
}

/** qmax (a short fixed ladder at time scale 0.5) and plan of candidate `n` on its endpoint. */
async function measureAndPlan(n: number, endpoint: string): Promise<string> {
  const m = candidateModel(model, n);
  await warmUp(endpoint);
  const qmaxFile = join(dir, `cand-${n}`, `qmax-${MODEL}.json`);
  const qmax = await runQmax(
    {
      modelName: MODEL,
      model: m,
      configFile,
      endpoint,
      variant: 'AllTraffic',
      region: 'local',
      ladder: 'fixed',
      // One rung a candidate, well inside the SLO: 5 streams on one device (p95 286 ms), 10 on two.
      // A rung decides on 5 batches of max(4 N, 40) samples: 6 s hold 200 at 35.8 requests/s. A
      // breach above would need 400 samples more (a longer test); Q_max is reported unbracketed.
      rungs: n === 0 ? [5] : [10],
      holdS: 7,
      measureS: 6,
      settleS: 1,
      minSamples: 72,
      cloudwatch: false,
      outFile: qmaxFile,
      stateDir: join(dir, 'state'),
      pollIntervalMs: 100,
    },
    {
      clients: local.clients,
      handleSignals: false,
      loadClient: { endpoint: local.handle.url, credentials: clientConfigFor(local.handle).credentials },
    },
  );
  expect(qmax.exitCode, qmax.report).toBe(0);
  const planFile = join(dir, `cand-${n}`, `plan-${MODEL}.json`);
  const plan = runPlan(
    { modelName: MODEL, model: m, qmaxFile, assumeTTotalS: 260 * SCALE, outFile: planFile, failOn: 'stop' },
    { version: 'test' },
  );
  expect(plan.exitCode, plan.report).not.toBe(2);
  // The plan prices itself: its cost block carries the candidate's own stated price, characters
  // from the qmax's measured audio, and a figure at the target (compare reads nothing else).
  const cost = readArtifact('plan', planFile).cost;
  expect(cost?.price).toMatchObject({ hourly_usd: PRICES[m.instance_type], source: 'stated' });
  expect(cost?.characters_from).toBe('qmax');
  expect(cost?.points.some((point) => point.at === 'target')).toBe(true);
  return planFile;
}

beforeAll(async () => {
  local = await startDeviceEndpoint({
    endpointName: candidateCalibrationEndpoint(ENDPOINT, 0),
    instances: 1,
    timeScale: SCALE,
    // Enough for the g5 fleet at the peak: the quota check is compare's, not this test's subject.
    quota: 100,
  });
  const variant = await createCandidateEndpoint(1);
  // One after the other: the load client is this process, and two ladders at once would starve it.
  planFiles = [
    await measureAndPlan(0, candidateCalibrationEndpoint(ENDPOINT, 0)),
    await measureAndPlan(1, variant),
  ];
  const result = await runCompare(
    {
      modelName: MODEL,
      model,
      planFiles: [dir],
      artifactsDir: join(dir, 'out'),
      markdownFile: join(dir, 'out', 'compare.md'),
    },
    { clients: local.clients, version: 'test', clock: () => new Date('2026-01-02T03:04:05Z') },
  );
  expect(result.exitCode, result.report).toBe(0);
  compare = result.artifact as CompareArtifact;
  report = result.report;
}, 120_000);

afterAll(async () => {
  await local?.close();
}, 60_000);

describe('compare on the local SageMaker: the measured g5 device against a variant with twice the lanes at 1.6 x the price', () => {
  it('measures each candidate on its own endpoint and device (the variant fingerprints twice the lanes), each rung inside the SLO', () => {
    const plans = planFiles.map((f) => readArtifact('plan', f));
    expect(plans.map((p) => p.fingerprint.instance_type)).toEqual(['ml.g5.xlarge', 'ml.g5.2xlarge']);
    expect(JSON.parse(plans[1]?.fingerprint.container_env.DEVICE_PROFILE as string).lanes).toBe(
      kokoroDevice.profile.lanes * 2,
    );
    expect(compare.candidates.map((c) => [c.label, c.q_max.value, c.q_max.origin])).toEqual([
      // One rung each, inside the SLO: no breach measured above it, so a lower bound.
      ['candidate 0', 5, 'lower bound'],
      ['candidate 1', 10, 'lower bound'],
    ]);
  });

  it('chooses the variant: 1.6 x the hour for about twice the throughput is cheaper per 1M characters', () => {
    const [g5, variant] = compare.candidates;
    expect(compare.chosen?.label).toBe('candidate 1');
    expect(variant?.rank).toBe(1);
    expect(g5?.rank).toBe(2);
    const ratio =
      (variant?.usd_per_million_characters_target.value as number) /
      (g5?.usd_per_million_characters_target.value as number);
    // Cost per character = price / characters per second: the ratio is exactly 1.6 x the inverse
    // of the target throughputs' ratio (characters per request are each run's measured mean), and
    // the variant wins because its measured characters/s at the target are more than 1.6 x the
    // g5's. Ignoring the price, or the throughput, breaks the equality.
    const charactersPerS = (plan: PlanArtifact) =>
      plan.cost?.points.find((point) => point.at === 'target')?.characters_per_s as number;
    const [g5Plan, variantPlan] = planFiles.map((f) => readArtifact('plan', f));
    const throughputRatio =
      charactersPerS(variantPlan as PlanArtifact) / charactersPerS(g5Plan as PlanArtifact);
    expect(throughputRatio).toBeGreaterThan(1.6);
    expect(ratio).toBeCloseTo(1.6 / throughputRatio, 4);
    expect(ratio).toBeLessThan(1);
    // The rank is by the cost at the surge-safe load (where the fleet runs): cheaper there too.
    expect(variant?.usd_per_million_characters_surge_safe.value as number).toBeLessThan(
      g5?.usd_per_million_characters_surge_safe.value as number,
    );
    expect(g5?.price).toMatchObject({ hourly_usd: 1.41, source: 'stated' });
    expect(variant?.price?.hourly_usd).toBeCloseTo(2.256, 6);
    // The calibration endpoints are the model's own: their instances never count against the quota.
    expect(g5?.quota).toMatchObject({ holds: true, instances_elsewhere: 0 });
  });

  it('prints the table, writes the frontier chart and copies the chosen plan byte for byte', () => {
    expect(report).toMatch(/chosen: candidate 1 \(ml\.g5\.2xlarge\)/);
    // --markdown: the table the calibrate workflow posts on the pull request.
    const markdown = readFileSync(join(dir, 'out', 'compare.md'), 'utf8');
    expect(markdown).toBe(renderCompareMarkdown(compare));
    expect(markdown).toMatch(/\| \*\*candidate 1\*\* \(chosen\) \| ml\.g5\.2xlarge \|/);
    // An unbracketed Q_max is printed as the lower bound it is, never as a measured value.
    expect(markdown).toMatch(/\| >= 10 \(lower bound\) \|/);
    const svg = readFileSync(join(dir, 'out', `compare-${MODEL}.svg`), 'utf8');
    expect(svg).toMatch(/<circle class="chosen"/);
    expect(readFileSync(join(dir, 'out', `plan-${MODEL}.json`), 'utf8')).toBe(
      readFileSync(planFiles[1] as string, 'utf8'),
    );
    const committed = JSON.parse(
      readFileSync(join(dir, 'out', `plan-${MODEL}.json`), 'utf8'),
    ) as PlanArtifact;
    expect(committed.fingerprint.instance_type).toBe('ml.g5.2xlarge');
  });
});
