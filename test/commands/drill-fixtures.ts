/**
 * The drill tests' world: the local SageMaker with the emulated Kokoro-82M ml.g5.xlarge device
 * (derived from the committed real ladder) at a time scale, and a plan derived from that same
 * real ladder scaled by the same factor (every time x F, every rate / F, the SLO x F) and
 * fingerprinted as the emulator endpoint's, so the plan describes the device the endpoint runs.
 * Instances start after a short provisioning delay (no replayed start-up: that belongs to the
 * bench), so a scale-out lands in a few seconds and T_total is stated accordingly.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KOKORO_G5_QMAX, resolveDevice } from '../../src/commands/device.js';
import { runLocalApply } from '../../src/commands/local-apply.js';
import { runPlan } from '../../src/commands/plan.js';
import { localImageUri } from '../../src/commands/rehearse.js';
import { type QmaxArtifact, readArtifact } from '../../src/model/index.js';
import { anchorQmaxFile, repoRoot } from '../helpers/anchor.js';
import { type Emulator, liveFingerprint, MODEL, modelConfig, startEmulator } from './local-apply-fixtures.js';

export { MODEL };

/** The device's time scale: 14 ms a request, 71.6 requests/s per instance (the rehearsal's). */
export const TIME_SCALE = 0.25;
/** The Kokoro SLO (3000 ms) at that scale. */
export const SLO_MS = 3000 * TIME_SCALE;
/** T_total of this emulator's scale-out: provisioning plus the container's start (stated for the plan). */
export const STATED_T_TOTAL_S = 4;

export async function startKokoroEmulator(instances = 1): Promise<Emulator> {
  const { device } = resolveDevice({ device: join(repoRoot, KOKORO_G5_QMAX), timeScale: TIME_SCALE });
  return startEmulator({
    device,
    instances,
    provisionDelayS: 1,
    // The plan's queue depth (Q_max 50), so applying it replaces no instance.
    maxQueueDepth: 50,
    quota: 4,
    imageUri: localImageUri(),
  });
}

/** The real Kokoro ladder with every time x F and every rate / F (Q_max and R are unchanged). */
export function scaledQmax(qmax: QmaxArtifact, f: number): QmaxArtifact {
  const t = (v: number | null | undefined) => (v === null || v === undefined ? (v as null) : v * f);
  return {
    ...qmax,
    slo_ms: qmax.slo_ms * f,
    ttfab_p95_at_q_max_ms: t(qmax.ttfab_p95_at_q_max_ms),
    ttfab_p95_at_c1_ms: t(qmax.ttfab_p95_at_c1_ms),
    s_mean_s: qmax.s_mean_s * f,
    s_p95_s: qmax.s_p95_s * f,
    steps: qmax.steps.map((s) => ({
      ...s,
      achieved_rps: s.achieved_rps / f,
      ttfab_p50_ms: t(s.ttfab_p50_ms),
      ttfab_p95_ms: t(s.ttfab_p95_ms),
      ttfab_p99_ms: t(s.ttfab_p99_ms),
      latency_p95_ms: t(s.latency_p95_ms),
      ttfab_p95_ci_ms: s.ttfab_p95_ci_ms
        ? { low: s.ttfab_p95_ci_ms.low * f, high: s.ttfab_p95_ci_ms.high * f }
        : null,
      s_mean_s: t(s.s_mean_s),
      s_p95_s: t(s.s_p95_s),
      server_model_latency_p95_ms: t(s.server_model_latency_p95_ms),
      ttfab_drift_ms: t(s.ttfab_drift_ms),
    })),
  };
}

/**
 * A plan for the emulator endpoint from the scaled Kokoro ladder: SLO x F, a stated T_total of a
 * few seconds (so T_plan is its 60 s policy-lag bound plus that), peak load for the local quota.
 */
/**
 * The plan for the emulated Kokoro endpoint. `policyRule: 'seed'` makes the closed-loop rule's plan
 * (verdict stop: it predicts overflow), for drills that exercise a predicted failure.
 */
export async function kokoroPlanFile(
  emulator: Emulator,
  dir: string,
  name = 'plan.json',
  policyRule: 'surge-safe' | 'seed' = 'surge-safe',
): Promise<string> {
  const qmax = scaledQmax(readArtifact('qmax', anchorQmaxFile), TIME_SCALE);
  const qmaxFile = join(dir, 'qmax-scaled.json');
  writeFileSync(
    qmaxFile,
    JSON.stringify({
      ...qmax,
      fingerprint: await liveFingerprint(emulator),
      endpoint: emulator.handle.endpointName,
    }),
  );
  const x = 17.9 / TIME_SCALE;
  const out = join(dir, name);
  const result = runPlan(
    {
      modelName: MODEL,
      model: modelConfig(),
      qmaxFile,
      assumeTTotalS: STATED_T_TOTAL_S,
      sloMs: SLO_MS,
      peakRps: 4 * x * 0.99,
      troughRps: 5,
      policyRule,
      outFile: out,
    },
    { version: 'test' },
  );
  const expected = policyRule === 'seed' ? 'stop' : 'warn';
  if (result.artifact?.verdict !== expected && result.artifact?.verdict !== 'ok')
    throw new Error(`plan failed:\n${result.report}`);
  return out;
}

export async function applyPlan(emulator: Emulator, planFile: string): Promise<void> {
  const { handle } = emulator;
  const result = await runLocalApply(
    {
      modelName: MODEL,
      endpoint: handle.endpointName,
      variant: handle.variantName,
      region: handle.region,
      planFile,
    },
    { clients: emulator.clients },
  );
  if (result.exitCode !== 0) throw new Error(`local apply failed:\n${result.report}`);
}

/** Drill input for the emulator endpoint; phases short enough for a test. */
export function drillInput(emulator: Emulator, planFile: string, dir: string) {
  const { handle } = emulator;
  return {
    modelName: MODEL,
    model: modelConfig(),
    endpoint: handle.endpointName,
    variant: handle.variantName,
    region: handle.region,
    planFile,
    artifactsDir: dir,
  };
}

export const drillDeps = (emulator: Emulator) => ({
  clients: emulator.clients,
  loadClient: {
    endpoint: emulator.handle.url,
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  },
});
