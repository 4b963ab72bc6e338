// `scalegate drill` on an inference-component endpoint against the local SageMaker, real SDK
// clients over loopback: an endpoint hosting one component whose copies emulate the Kokoro-82M
// ml.g5.xlarge device at its real speed (time scale 1: the plan is the real ladder's), managed
// instance scaling 0..3, the plan's component block applied by `local apply` (copy target
// tracking, wake rule with a 10 s alarm period, idle rule). The drill runs from zero: the
// component idled at 0 copies and woken by a client applying the plan's retry budget, then the
// plan's start (min copies 0: one copy) and a k = 1.25 surge from the plan's lambda_safe per copy.
// More copies than the plan's minimum would not stay: the copy target tracking scales an idle
// component in before the load starts (a drill records it; this one starts where the plan does).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CreateInferenceComponentCommand } from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDrill } from '../../src/commands/drill.js';
import { icLiveFingerprint } from '../../src/commands/drill-ic.js';
import { planRequests } from '../../src/commands/load-start.js';
import { runLocalApply } from '../../src/commands/local-apply.js';
import { runPlan } from '../../src/commands/plan.js';
import { deviceEnvironment } from '../../src/local/device.js';
import { inferenceComponentConfigSchema, type ModelConfig, readArtifact } from '../../src/model/index.js';
import { drillSection } from '../../src/report/drill-markdown.js';
import { anchorQmaxFile } from '../helpers/anchor.js';
import { createIcHostingEndpoint } from '../helpers/ic-endpoint.js';
import { kokoroDevice } from '../helpers/local-endpoint.js';
import {
  configFile,
  type Emulator,
  MODEL,
  modelConfig,
  startEmulator,
  workspace,
} from './local-apply-fixtures.js';

const device = { profile: kokoroDevice.profile, timeScale: 1, startup: null };
let emulator: Emulator;
let dir: string;

const icBlock = (minCopies: number) =>
  inferenceComponentConfigSchema.parse({
    copies_per_instance: 1,
    accelerators: 1,
    memory_mb: 4096,
    min_copies: minCopies,
    max_copies: 3,
    instance_bounds: { min: minCopies, max: 3 },
    // The shortest CloudWatch period for the wake alarm (AWS publishes the metric each minute).
    wake_alarm_period_s: 10,
    // 30 idle minutes: the idle rule cannot fire within the test (it is not what is drilled).
    idle_scale_in_minutes: 30,
    wake_tolerance_s: 60,
    // 12 x 3 s = 36 s: covers a wake of one alarm period plus the cold path with room for a
    // loaded host (the copy's container start is a real process start).
    client_retry_attempts: 12,
    client_retry_backoff_s: 3,
  });

interface Deployed {
  endpoint: string;
  component: string;
  model: ModelConfig;
  planFile: string;
}

/** What the CDK deploy creates (endpoint, component), the plan derived for it, applied by `local apply`. */
async function deploy(endpoint: string, minCopies: number): Promise<Deployed> {
  const base = modelConfig();
  const model: ModelConfig = {
    ...base,
    endpoint,
    kind: 'inference-component',
    inference_component: icBlock(minCopies),
    container_env: { ...base.container_env, ...deviceEnvironment(device) },
  };
  const { sagemaker } = emulator.clients;
  await createIcHostingEndpoint(sagemaker, {
    endpoint,
    modelName: `${endpoint}-model`,
    image: emulator.handle.imageUri,
    roleArn: `arn:aws:iam::${emulator.handle.accountId}:role/r`,
    environment: deviceEnvironment(device),
    minInstances: minCopies,
    maxInstances: 3,
  });
  const component = `${endpoint}-ic`;
  await sagemaker.send(
    new CreateInferenceComponentCommand({
      InferenceComponentName: component,
      EndpointName: endpoint,
      VariantName: 'AllTraffic',
      Specification: {
        ModelName: `${endpoint}-model`,
        ComputeResourceRequirements: { NumberOfAcceleratorDevicesRequired: 1, MinMemoryRequiredInMb: 4096 },
      },
      RuntimeConfig: { CopyCount: Math.max(1, minCopies) },
    }),
  );
  // The real ladder, fingerprinted as what this endpoint runs (the config's: a component's
  // variant has no model of its own), so the plan describes the device the copies emulate.
  const shape = planRequests({ modelName: MODEL, configFile }, model).shape;
  const qmaxFile = join(dir, `qmax-${endpoint}.json`);
  writeFileSync(
    qmaxFile,
    JSON.stringify({
      ...readArtifact('qmax', anchorQmaxFile),
      endpoint,
      fingerprint: icLiveFingerprint(model, configFile, emulator.handle.region, shape),
    }),
  );
  const planFile = join(dir, `plan-${endpoint}.json`);
  const plan = runPlan(
    {
      modelName: MODEL,
      model,
      qmaxFile,
      assumeTTotalS: 20,
      outFile: planFile,
      failOn: 'stop',
      priceSource: 'config',
    },
    { version: 'test' },
  );
  if (plan.exitCode !== 0) throw new Error(plan.report);
  const applied = await runLocalApply(
    {
      modelName: MODEL,
      endpoint,
      variant: 'AllTraffic',
      region: emulator.handle.region,
      planFile,
      pollIntervalMs: 100,
      updateTimeoutS: 20,
    },
    { clients: emulator.clients },
  );
  if (applied.exitCode !== 0) throw new Error(applied.report);
  return { endpoint, component, model, planFile };
}

let warm: Deployed;
let zero: Deployed;

beforeAll(async () => {
  emulator = await startEmulator({
    provisionDelayS: 0.3,
    endpointName: 'plain-endpoint',
    alarmEvaluationIntervalMs: 200,
  });
  dir = workspace('drill-ic');
  [warm, zero] = await Promise.all([deploy('drill-warm', 2), deploy('drill-zero', 0)]);
}, 120_000);

afterAll(async () => {
  await emulator?.close();
});

const drill = (d: Deployed, extra: Partial<Parameters<typeof runDrill>[0]>) =>
  runDrill(
    {
      modelName: MODEL,
      model: d.model,
      configFile,
      endpoint: d.endpoint,
      variant: 'AllTraffic',
      region: emulator.handle.region,
      planFile: d.planFile,
      surgeRatio: 1.25,
      steadyS: 10,
      surgeS: 15,
      troughS: 5,
      troughRps: 2,
      windowS: 5,
      pollS: 0.5,
      outFile: join(dir, `drill-${d.endpoint}.json`),
      ...extra,
    },
    {
      clients: emulator.clients,
      loadClient: { endpoint: emulator.handle.url, credentials: { accessKeyId: 'x', secretAccessKey: 'y' } },
      version: 'test',
    },
  );

describe('drill on an inference-component endpoint', () => {
  it.concurrent("holds the SLO through a k = 1.25 surge from lambda_safe per copy on the plan's 2 copies, counting copies with the instances beside them, the copy tracking's alarms and ConcurrentRequestsPerCopy observed (prevents an IC drill that observes or sizes the wrong count)", async () => {
    const result = await drill(warm, {});
    const a = readArtifact('drill', join(dir, 'drill-drill-warm.json'));
    expect(a.inference_component).toMatchObject({
      component: warm.component,
      start_copies: 2,
      copies_per_instance: 1,
      t_plan_path: 'cold',
      from_zero: null,
    });
    const plan = readArtifact('plan', warm.planFile).inference_component;
    expect(a.prediction.scaling_target_value).toBe(plan?.copy_target.value);
    expect(a.prediction.t_plan_s).toBe(plan?.paths.cold.t_plan_s);
    // Steady: lambda_safe per copy x 2 copies; surge 1.25 x that.
    const steady = a.phases.find((p) => p.name === 'steady');
    expect(steady?.rate_rps).toBeCloseTo(2 * (plan?.copy_target.lambda_safe_per_copy_rps ?? 0), 5);
    expect(steady?.rate_source).toMatch(/x 2 copy\(s\)/);
    expect(a.phases.find((p) => p.name === 'surge')?.rate_rps).toBeCloseTo(1.25 * (steady?.rate_rps ?? 0), 5);
    // Every full steady and surge window inside the SLO: the verdict passes (exit 0).
    expect(a.slo?.windows_judged).toBe(5);
    expect(a.slo_held).toBe(true);
    expect(a.verdict).toBe('pass');
    expect(result.exitCode).toBe(0);
    // Copies counted (never under the 2 the plan keeps), instances beside them.
    const obs = a.observer?.observations ?? [];
    expect(obs.length).toBeGreaterThan(20);
    expect(obs.every((o) => o.instances !== undefined && o.instances !== null)).toBe(true);
    expect(obs.filter((o) => o.t_s >= 0).every((o) => (o.current ?? 0) >= 2)).toBe(true);
    expect(a.analysis.steady.current_at_surge).toBeGreaterThanOrEqual(2);
    expect(a.observer?.metric).toMatchObject({ name: 'ConcurrentRequestsPerCopy', period_s: 10 });
    expect(a.observer?.metric.points.some((p) => p.t_s >= 0 && p.value > 0)).toBe(true);
    const alarms = a.observer?.alarms.map((x) => x.name) ?? [];
    expect(
      alarms.some((n) => n.startsWith(`TargetTracking-inference-component/${warm.component}-AlarmHigh`)),
    ).toBe(true);
    expect(result.report).toMatch(/inference component drill-warm-ic \(the drill counts copies/);
    expect(result.report).toMatch(/2 copies at the start/);
    writeFileSync(join(dir, 'report-warm.txt'), result.report);
  }, 90_000);

  it.concurrent("wakes the component from zero with the plan's retry budget: no-capacity failures counted, no client-visible failure, retries apart, the wake within the stated tolerance, recorded and printed with the verdict (prevents a wake judged on survivors or hidden by retries)", async () => {
    const result = await drill(zero, { fromZero: true });
    const a = readArtifact('drill', join(dir, 'drill-drill-zero.json'));
    const z = a.inference_component?.from_zero;
    expect(z?.wake?.copies_before).toBe(0);
    expect(z?.wake?.no_capacity_failures).toBeGreaterThanOrEqual(1);
    expect(z?.wake?.retry?.client_requests).toBe(1);
    expect(z?.wake?.retry?.client_visible_failures).toBe(0);
    expect(z?.wake?.retry?.retries).toBe(z?.wake?.no_capacity_failures);
    expect(z?.wake?.wake_alarm_period_s).toBe(10);
    expect(z?.wake?.wake_s).toBeLessThanOrEqual(60);
    expect(z).toMatchObject({
      within_tolerance: true,
      within_retry_budget: true,
      held: true,
      wake_tolerance_s: 60,
    });
    expect(z?.retry_budget).toEqual({ attempts: 12, backoff_s: 3, covers_s: 36 });
    const stages = z?.timeline.map((t) => t.stage) ?? [];
    expect(stages[0]).toBe('load_applied');
    expect(stages.at(-1)).toBe('traffic_recovered');
    // The wake's scaling activity (0 -> 1 copy) is the from-zero phase's, not a scale-out of the drill.
    expect(a.analysis.scale_outs.every((c) => (c.from_instances ?? 0) >= 1)).toBe(true);
    // Nothing undoes the wake: the copy tracking is scale-out only and the copy scale-in rule
    // counts the minutes before the wake as not breaching, so the woken copy serves the steady
    // load and the surge scales out from it; every window holds the SLO.
    expect(a.analysis.scale_in.scale_ins).toBe(0);
    expect(a.slo_held).toBe(true);
    expect(a.verdict).toBe('pass');
    expect(result.exitCode).toBe(0);
    // The chart's count panel is of copies, as the drill counts them.
    const svg = readFileSync(join(dir, 'drill-drill-zero.svg'), 'utf8');
    expect(svg).toMatch(/>copies \(count\)</);
    expect(svg).not.toMatch(/>instances \(count\)</);
    expect(result.report).toMatch(/from zero \(before the schedule; judged apart from the windows\): HELD/);
    expect(result.report).toMatch(/0 client-visible failure\(s\) \(measured\); \d+ retries/);
    expect(result.report).toMatch(/the wake from zero held \([\d.]+ s measured, tolerance 60 s/);
    // The PR comment and job summary carry the phase with its provenance.
    const md = drillSection({ artifact: a, file: null }).join('\n');
    expect(md).toMatch(/### Drill: from zero/);
    expect(md).toMatch(
      /client-visible failures \(measured\) \| 0 of 1 client request\(s\); \d+ retries apart/,
    );
    writeFileSync(join(dir, 'report-zero.txt'), result.report);
  }, 90_000);
});
