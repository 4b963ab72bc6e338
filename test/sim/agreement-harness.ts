/**
 * One drill on the local SageMaker (the emulated Kokoro-82M device at time scale 0.25, with a
 * replayed start-up of 7 s, the plan's policy applied with `local apply`) and the same drill in the
 * fleet simulator: the same policy, device, start-up and arrival times. Used by the agreement test
 * and `npm run bench:sim-agreement`.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KOKORO_G5_QMAX, resolveDevice } from '../../src/commands/device.js';
import { runDrill } from '../../src/commands/drill.js';
import { localImageUri } from '../../src/commands/rehearse.js';
import { scheduleOffsets } from '../../src/load/open/arrivals.js';
import { drillArrivalSpec } from '../../src/load/open/drill.js';
import { type DrillArtifact, type PlanArtifact, readArtifact } from '../../src/model/index.js';
import {
  type AgreementReport,
  compareDrillWithSimulation,
  type FleetSimResult,
  simDeviceFromProfile,
  simPolicyFromPlan,
  simStartupFromProfile,
  simulateFleet,
} from '../../src/sim/index.js';
import { applyPlan, drillDeps, drillInput, kokoroPlanFile, TIME_SCALE } from '../commands/drill-fixtures.js';
import { type Emulator, startEmulator, workspace } from '../commands/local-apply-fixtures.js';
import { repoRoot } from '../helpers/anchor.js';

/** The replayed start-up (before the time scale): provisioning 16 s, ready 8 s later, in service 4 s after. */
export const AGREEMENT_STARTUP = {
  source: 'agreement: stated start-up',
  provision_s: 16,
  framework_init_s: 2,
  weights_ready_s: 4,
  warmup_done_s: 6,
  ready_s: 8,
  in_service_after_ready_s: 4,
} as const;

/** The emulator's own time outside the device per request (loopback HTTP, router, stream), ms: assumed. */
export const EMULATOR_OVERHEAD_MS = 1.5;

export async function startAgreementEmulator(): Promise<Emulator> {
  const { device } = resolveDevice({ device: join(repoRoot, KOKORO_G5_QMAX), timeScale: TIME_SCALE });
  return startEmulator({
    device: { ...device, startup: { ...AGREEMENT_STARTUP } },
    instances: 1,
    maxQueueDepth: 50,
    quota: 6,
    imageUri: localImageUri(),
  });
}

export interface AgreementRun {
  plan: PlanArtifact;
  drill: DrillArtifact;
  sim: FleetSimResult;
  report: AgreementReport;
}

export interface AgreementOptions {
  policyRule: 'surge-safe' | 'seed';
  /** Steady arrivals as a share of one instance's throughput (17.9 / TIME_SCALE requests/s). */
  steadyShare: number;
  surgeRatio: number;
  steadyS: number;
  surgeS: number;
  troughS: number;
  /** @default 5 */
  windowS?: number;
}

export async function agreementRun(emulator: Emulator, options: AgreementOptions): Promise<AgreementRun> {
  const dir = workspace(`agreement-${options.policyRule}`);
  const planFile = await kokoroPlanFile(emulator, dir, 'plan.json', options.policyRule);
  await applyPlan(emulator, planFile);
  const prompts = join(dir, 'prompts.txt');
  writeFileSync(prompts, 'Your order has shipped.\nGood morning!\n');
  const x = 17.9 / TIME_SCALE;
  const result = await runDrill(
    {
      ...drillInput(emulator, planFile, dir),
      steadyRps: options.steadyShare * x,
      surgeRatio: options.surgeRatio,
      steadyS: options.steadyS,
      surgeS: options.surgeS,
      troughS: options.troughS,
      windowS: options.windowS ?? 5,
      promptsFile: prompts,
      outFile: join(dir, 'drill.json'),
    },
    drillDeps(emulator),
  );
  const drillFile = result.written.find((f) => f.endsWith('drill.json'));
  if (!drillFile) throw new Error(`the drill wrote no artifact:\n${result.report}`);
  const drill = readArtifact('drill', drillFile);
  const plan = readArtifact('plan', planFile);
  return { plan, drill, ...simulateDrill(plan, drill) };
}

/**
 * The start-up the emulator's instances actually had in this drill: from the first scale-out
 * activity to the poll that saw its count in service. The replayed profile is 7 s, but starting
 * the container processes adds the host's own time (more on a busy machine), so the simulation
 * replays what was observed. Null when the drill never scaled out.
 */
export function observedStartupS(drill: DrillArtifact): number | null {
  const observer = drill.observer;
  const first = observer?.activities
    .filter(
      (a) => a.start_s >= 0 && a.to_desired !== null && a.to_desired > (drill.settings.start_instances ?? 1),
    )
    .sort((a, b) => a.start_s - b.start_s)[0];
  if (!observer || !first) return null;
  const served = observer.observations.find(
    (o) => o.t_s >= first.start_s && (o.current ?? 0) >= (first.to_desired as number),
  );
  return served ? served.t_s - first.start_s : null;
}

/** The drill, simulated: the same policy, device, start-up, arrival times, alarm cadence (1 s). */
export function simulateDrill(
  plan: PlanArtifact,
  drill: DrillArtifact,
): { sim: FleetSimResult; report: AgreementReport } {
  const { device } = resolveDevice({ device: join(repoRoot, KOKORO_G5_QMAX), timeScale: TIME_SCALE });
  if (!device.profile) throw new Error('the Kokoro device has no profile');
  const offsets = [...scheduleOffsets(drillArrivalSpec(drill.phases, drill.settings.seed))];
  const durationS = Math.max(...drill.phases.map((p) => p.end_s));
  const startupS = observedStartupS(drill);
  const sim = simulateFleet({
    device: simDeviceFromProfile(device.profile, plan.deployable.queue_max_depth, {
      timeScale: TIME_SCALE,
      overheadMs: EMULATOR_OVERHEAD_MS,
    }),
    startup:
      startupS === null
        ? simStartupFromProfile({ ...AGREEMENT_STARTUP }, TIME_SCALE)
        : { provisionS: startupS, readyS: 0, inServiceAfterReadyS: 0 },
    fleet: { kind: 'policy', policy: simPolicyFromPlan(plan) },
    arrivals: { kind: 'timestamps', times: Float64Array.from(offsets, (ms) => ms / 1000), durationS },
    initialInstances: drill.settings.start_instances ?? 1,
    seed: drill.settings.seed,
    windowS: drill.settings.window_s,
    sloMs: drill.settings.slo_ms,
    maxOverflowProbability: drill.prediction.max_overflow_probability,
    evaluationIntervalS: 1,
    startEpochMs: Date.parse(drill.histograms.start_at),
    // What the alarms found when the drill started (its preflight requests), as the emulator recorded it.
    priorConcurrency:
      drill.observer?.metric.name === 'ConcurrentRequestsPerModel' && drill.observer.metric.period_s === 10
        ? drill.observer.metric.points.filter((p) => p.t_s < 0)
        : [],
  });
  return { sim, report: compareDrillWithSimulation(drill, sim) };
}
