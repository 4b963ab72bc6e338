/**
 * `scalegate tune`: the plan's policy and the candidates around it (src/plan/tune.ts) scored by
 * the fleet simulator on a traffic trace, with the seed's closed-loop rule and the perfect fleet
 * beside them; pre-scaling (src/plan/prescale.ts) tried where the trace ramps faster than a
 * policy follows. Writes the tune artifact and its chart; never touches AWS.
 * Exit 0: a candidate reaches the required attainment; 1: none does (a finding); 2: refused input.
 */
import { join } from 'node:path';
import { deriveDeviceProfile, deriveStartupProfile } from '../analysis/device-profile.js';
import { isLowerBound } from '../analysis/ttotal.js';
import {
  DEFAULT_ARTIFACTS_DIR,
  type ModelConfig,
  newRunId,
  opt,
  readArtifact,
  type TraceRef,
  type TuneArtifact,
  type TunedPolicy,
  type TuneEntry,
  tuneFileName,
  usage,
  writeArtifact,
  writeFileAtomic,
} from '../model/index.js';
import { derivePlan } from '../plan/derive.js';
import { scheduledActionsFor } from '../plan/prescale.js';
import {
  candidateGrid,
  chooseTuned,
  DEFAULT_MAX_CANDIDATES,
  DEFAULT_REQUIRED_ATTAINMENT,
  type GridCandidate,
  policyLabel,
  prescaleBases,
  seedRulePolicy,
  withPareto,
} from '../plan/tune.js';
import { renderTuneSvg } from '../report/tune-svg.js';
import { renderTuneReport, tuneProgressLine } from '../report/tune-text.js';
import { metricDelaysFromPlan, rateRows, simDeviceFromProfile, simStartupFromProfile } from '../sim/index.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';
import {
  defaultSimulate,
  failedWindows,
  type Scored,
  type Simulate,
  scorePerfect,
  scorePolicy,
  type TuneSimContext,
} from './tune-sim.js';
import { loadTuneTrace, type TraceLoader, type TraceSource } from './tune-trace.js';

export interface TuneInput {
  modelName: string;
  model: ModelConfig;
  /** The qmax artifact (the device, Q_max, the fingerprint). */
  qmaxFile?: string;
  /** The ttotal artifact (the start-up the simulated instances replay, T_total). */
  ttotalFile?: string;
  /** goodput's lambda_max and measured metric levels, as plan reads them. @default none */
  goodputFile?: string;
  /** A drill's measured policy lag, as plan reads it. @default none */
  drillFile?: string;
  /** A traffic trace file (or `shape`, never both). */
  traceFile?: string;
  /** A built-in traffic shape (or `traceFile`, never both). */
  shape?: string;
  /** The simulation seed, the same for every candidate. @default 1 */
  seed?: number;
  /** @default `<artifactsDir>/tune-<model>.json` */
  outFile?: string;
  /** @default beside the artifact, `.svg` for `.json` */
  svgFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
  /** @default 40 */
  maxCandidates?: number;
  /** Share of windows a candidate must hold to be chosen. @default 0.995 */
  requiredAttainment?: number;
  /** @default a new one */
  runId?: string;
}

export interface TuneDeps extends CommandDeps {
  /** The fleet simulator. @default src/sim's */
  simulate?: Simulate;
  /** Reads the trace. @default src/commands/tune-trace.ts */
  loadTrace?: TraceLoader;
}

export const TUNE_DEFAULTS = {
  seed: 1,
  windowS: 10,
  /** AWS evaluates a high-resolution alarm about every 10 s. */
  evaluationIntervalS: 10,
  /** Policy-only candidates pre-scaling is tried on. */
  prescaleBases: 5,
} as const;

function traceSource(input: TuneInput): TraceSource {
  if (input.traceFile !== undefined && input.shape !== undefined) {
    throw usage`${opt('trace')} and ${opt('shape')} both given: tune on one trace.`;
  }
  if (input.traceFile !== undefined) return { kind: 'file', file: input.traceFile };
  if (input.shape !== undefined) return { kind: 'shape', spec: input.shape };
  throw usage`no traffic to tune on: give a trace file with ${opt('trace')} or a built-in shape with ${opt('shape')}.`;
}

function checkedInputs(input: TuneInput) {
  const { qmaxFile, ttotalFile } = input;
  if (qmaxFile === undefined) {
    throw usage`no qmax artifact: name one with ${opt('qmax')} (from \`scalegate qmax\`).`;
  }
  if (ttotalFile === undefined) {
    throw usage`no ttotal artifact: name one with ${opt('ttotal')} (from \`scalegate ttotal\`): the simulated instances start up as it measured.`;
  }
  const requiredAttainment = input.requiredAttainment ?? DEFAULT_REQUIRED_ATTAINMENT;
  if (!(requiredAttainment > 0 && requiredAttainment <= 1)) {
    throw usage`${opt('required-attainment', requiredAttainment)} is a share of windows: give a number in (0, 1].`;
  }
  const source = traceSource(input);
  const qmax = readArtifact('qmax', qmaxFile);
  if (qmax.model_name !== input.modelName) {
    throw usage`${opt('qmax', qmaxFile)} was measured for model ${qmax.model_name}, not ${input.modelName}: pass ${opt('model', qmax.model_name)} or this model's qmax artifact.`;
  }
  const ttotal = readArtifact('ttotal', ttotalFile);
  if (ttotal.model_name !== qmax.model_name) {
    throw usage`${opt('ttotal', ttotalFile)} was measured for model ${ttotal.model_name}, but ${opt('qmax', qmaxFile)} for model ${qmax.model_name}: pass both measurements of one model.`;
  }
  if (isLowerBound(ttotal)) {
    throw usage`${opt('ttotal', ttotalFile)}: T_total ${ttotal.t_total_s} s is only a LOWER BOUND (the probe never recovered), so simulated instances would start up too fast. Measure it to the end with \`scalegate ttotal\`.`;
  }
  const goodput = input.goodputFile === undefined ? null : readArtifact('goodput', input.goodputFile);
  const drill = input.drillFile === undefined ? null : readArtifact('drill', input.drillFile);
  return { qmaxFile, ttotalFile, qmax, ttotal, goodput, drill, source, requiredAttainment };
}

const entryOf = (label: string, policy: TunedPolicy | null, scored: Scored, note: string): TuneEntry => ({
  label,
  policy,
  score: scored.score,
  pareto: false,
  note,
});

export function runTune(input: TuneInput, deps: TuneDeps = {}): CommandResult<TuneArtifact> {
  const { clock, version, log } = resolveDeps(deps);
  const simulate = deps.simulate ?? defaultSimulate;
  const { qmaxFile, ttotalFile, qmax, ttotal, goodput, drill, source, requiredAttainment } =
    checkedInputs(input);
  const trace = (deps.loadTrace ?? loadTuneTrace)(source);
  const rows = rateRows(trace.arrivals);
  if (!(trace.ref.peak_rps > 0) || !(trace.arrivals.durationS > 0)) {
    throw usage`${source.kind === 'file' ? opt('trace', source.file) : opt('shape', source.spec)}: the trace carries no traffic (peak ${trace.ref.peak_rps} requests/s over ${trace.arrivals.durationS} s).`;
  }
  const { model } = input;
  const runId = input.runId ?? newRunId();
  const createdAt = clock().toISOString();
  // The plan for these measurements, sized for this trace: its peak and its lowest rate.
  const plan = derivePlan({
    modelName: input.modelName,
    qmax,
    qmaxFile,
    ttotal,
    ttotalFile,
    tTotalStatedS: null,
    drill,
    drillFile: input.drillFile ?? null,
    goodput,
    goodputFile: input.goodputFile ?? null,
    choices: {
      sloMs: model.slo_ms,
      surgeRatio: model.surge_ratio,
      peak: { unit: 'rps', value: trace.ref.peak_rps },
      trough: { unit: 'rps', value: Math.min(...rows.map((r) => r.rps)) },
      minInstancesFloor: model.min_instances_floor,
      invocationCeilingS: model.invocation_ceiling_s,
      instanceHourlyUsd: model.instance_hourly_usd ?? null,
      instanceQuota: model.instance_quota ?? null,
      legacyRegion: model.region,
      policyRule: 'surge-safe',
      maxOverflowProbability: model.max_overflow_probability,
    },
    allowConfigMismatch: false,
    runId,
    createdAt,
    tool: `scalegate ${version}`,
  });
  const lambdaSafe = plan.derived.lambda_safe_rps ?? 0;
  if (plan.policy == null || !(lambdaSafe > 0)) {
    throw usage`${opt('qmax', qmaxFile)}: Q_max ${qmax.q_max} leaves no surge-safe rate to hold an instance at, so there is no policy to tune. Re-measure with \`scalegate qmax\`.`;
  }
  const device = deriveDeviceProfile(qmax, qmaxFile);
  const startup = deriveStartupProfile(ttotal, ttotalFile);
  const maxOverflow = model.max_overflow_probability ?? 0.05;
  const ctx: TuneSimContext = {
    device: simDeviceFromProfile(device.profile, plan.deployable.queue_max_depth, {
      overheadMs: Math.max(0, device.client_share_ms ?? 0),
    }),
    startup: simStartupFromProfile(startup),
    arrivals: trace.arrivals,
    seed: input.seed ?? TUNE_DEFAULTS.seed,
    windowS: TUNE_DEFAULTS.windowS,
    sloMs: model.slo_ms,
    maxOverflowProbability: maxOverflow,
    evaluationIntervalS: TUNE_DEFAULTS.evaluationIntervalS,
    metricDelayS: metricDelaysFromPlan(plan),
    startEpochMs: trace.ref.start === null ? 0 : Date.parse(trace.ref.start),
    initialNeed: Math.ceil(Number(((rows[0]?.rps ?? 0) / lambdaSafe).toFixed(9))),
  };

  const grid = candidateGrid(plan, qmax, { maxCandidates: input.maxCandidates ?? DEFAULT_MAX_CANDIDATES });
  const digest = trace.ref.sha256.slice(0, 12);
  let total = grid.length + 2;
  let done = 0;
  const score = (label: string, run: () => Scored): Scored => {
    const scored = run();
    done += 1;
    log(tuneProgressLine({ index: done, total, label, score: scored.score }));
    return scored;
  };
  log(
    tuneProgressLine({
      start: { candidates: grid.length, digest, durationS: trace.arrivals.durationS, seed: ctx.seed },
    }),
  );
  const perfectScored = score('perfect fleet', () => scorePerfect(ctx, simulate, lambdaSafe));
  const seedPolicy = seedRulePolicy(plan);
  const seedScored = score('seed rule', () => scorePolicy(ctx, simulate, seedPolicy));
  const results = new Map<string, Scored>();
  let candidates: TuneEntry[] = grid.map((c: GridCandidate) => {
    const scored = score(c.label, () => scorePolicy(ctx, simulate, c.policy));
    results.set(c.label, scored);
    return entryOf(c.label, c.policy, scored, c.note);
  });
  candidates = withPareto(candidates);

  // Pre-scaling: scheduled minimum capacity where the policy alone fell behind the trace.
  const first = chooseTuned(candidates, requiredAttainment);
  const bases = prescaleBases(candidates, first, TUNE_DEFAULTS.prescaleBases);
  const prescaled: TuneEntry[] = [];
  total += bases.length;
  for (const base of bases) {
    const policy = base.policy as TunedPolicy;
    const actions = scheduledActionsFor({
      rows,
      durationS: trace.arrivals.durationS,
      lambdaSafeRps: lambdaSafe,
      tPlanS: plan.derived.t_plan_s,
      surgeRatio: model.surge_ratio,
      failedWindows: failedWindows((results.get(base.label) as Scored).result, ctx.windowS),
      minInstances: policy.min_instances,
      maxInstances: policy.max_instances,
      startEpochMs: ctx.startEpochMs,
    });
    if (actions.length === 0) continue;
    const withActions: TunedPolicy = { ...policy, scheduled_actions: actions };
    const label = policyLabel(withActions);
    const scored = score(label, () => scorePolicy(ctx, simulate, withActions));
    prescaled.push(
      entryOf(
        label,
        withActions,
        scored,
        `${base.note}, with scheduled pre-scaling: ${actions.length} scheduled actions (minimum capacity by time of day where the policy alone had windows outside the SLO or the trace rose faster than it follows within T_plan)`,
      ),
    );
  }
  // The frontier among every policy scored (the seed rule too); the perfect fleet bounds them.
  const policies = withPareto([
    ...candidates,
    ...prescaled,
    entryOf('seed rule', seedPolicy, seedScored, ''),
  ]);
  const seedEntry: TuneEntry = {
    ...(policies.pop() as TuneEntry),
    note: "the seed's closed-loop rule: target (1 - h) Q_max on ConcurrentRequestsPerModel (in the metric's units), scale-in at (1 - 2h) Q_max, the plan's fleet bounds and cooldowns",
  };
  const choice = chooseTuned(policies, requiredAttainment);
  const perfect = entryOf(
    'perfect fleet',
    null,
    perfectScored,
    `not a policy: ceil(lambda(t) / lambda_safe) instances at every moment (lambda_safe ${lambdaSafe} requests/s), no start-up and no lag`,
  );
  const traceRef: TraceRef = { ...trace.ref, requests: perfectScored.score.requests };
  const artifact: TuneArtifact = {
    schema_version: plan.schema_version,
    kind: 'tune',
    model_name: input.modelName,
    run_id: runId,
    created_at: createdAt,
    fingerprint: qmax.fingerprint,
    inputs: {
      qmax: { file: qmaxFile, run_id: qmax.run_id },
      ttotal: { file: ttotalFile, run_id: ttotal.run_id },
      goodput: goodput && input.goodputFile ? { file: input.goodputFile, run_id: goodput.run_id } : null,
      drill: drill && input.drillFile ? { file: input.drillFile, run_id: drill.run_id } : null,
    },
    trace: traceRef,
    settings: {
      seed: ctx.seed,
      window_s: ctx.windowS,
      slo_ms: ctx.sloMs,
      max_overflow_probability: maxOverflow,
      evaluation_interval_s: ctx.evaluationIntervalS,
      metric_delay_s: ctx.metricDelayS ?? {},
      lambda_safe_rps: lambdaSafe,
      required_slo_attainment: requiredAttainment,
      t_plan_s: plan.derived.t_plan_s,
    },
    candidates: policies,
    chosen: choice.chosen,
    chosen_holds: choice.holds,
    seed_rule: seedEntry,
    perfect_fleet: perfect,
    provenance: { origin: 'measured', tool: `scalegate ${version}`, note: null },
  };
  const outFile =
    input.outFile ?? join(input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR, tuneFileName(input.modelName));
  writeArtifact('tune', outFile, artifact);
  const svgFile =
    input.svgFile ??
    (outFile.endsWith('.json') ? `${outFile.slice(0, -'.json'.length)}.svg` : `${outFile}.svg`);
  writeFileAtomic(svgFile, renderTuneSvg(artifact));
  return {
    artifact,
    report: renderTuneReport(artifact, outFile, svgFile),
    exitCode: artifact.chosen_holds ? 0 : 1,
    written: [outFile, svgFile],
  };
}
