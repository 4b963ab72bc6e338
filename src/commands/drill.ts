/**
 * `scalegate drill`: drive open-loop traffic through the deployed policy and see whether it
 * protects the SLO it was derived for (src/analysis/drill.ts says what is judged and why).
 *
 * Preflight (nothing is sent until it passes; each refusal is exit 2 naming the cause and the
 * fix): the plan is this model's and has a target; the surge ratio lies in 1..2; shards have a
 * shared --start-at; the endpoint runs what the plan was measured on (fingerprint); and its
 * deployed policy is the plan's (the validate comparison), unless --allow-policy-mismatch, which
 * drills whatever is deployed and records the differences.
 *
 * The drill freezes nothing and restores nothing: the endpoint stays under its own policy the
 * whole time, so a run killed mid-way leaves it scaling as it would for any traffic. It only sets
 * the desired count to --start-instances before the load starts (shard 0), as an operator would.
 *
 * Shard 0 (or the single process) observes the endpoint while the load runs: instance counts and
 * alarm states every poll, then the alarm transitions (DescribeAlarmHistory), the scaling
 * activities and the tracked metric (GetMetricData) for the whole drill.
 */
import { join } from 'node:path';
import {
  DRILL_DEFAULTS,
  drillEstimate,
  drillPhases,
  drillPrediction,
  phaseAt,
  SURGE_RATIO_RANGE,
  watchedAlarms,
} from '../analysis/drill.js';
import { completeDrill, mergeDrillShards } from '../analysis/drill-merge.js';
import type { AwsClients } from '../aws/clients.js';
import { describeVariantCapacity, setDesiredInstanceCount } from '../aws/endpoint.js';
import { readDeployedFingerprint } from '../aws/fingerprint.js';
import { createEventsWriter, openLoopEventLine } from '../load/events.js';
import { parseShard, parseStartAt } from '../load/open/arrivals.js';
import { runDrillLoad } from '../load/open/drill.js';
import type { OpenLoopRecord } from '../load/open/open-loop.js';
import { createTransport } from '../load/transport/transports.js';
import type { Transport } from '../load/types.js';
import type { AssetHash } from '../model/asset-hash.js';
import {
  CONFIG_FILE,
  DEFAULT_ARTIFACTS_DIR,
  type DrillArtifact,
  type DrillData,
  type DrillFromZero,
  type DrillShardArtifact,
  drillChartFileName,
  drillFileName,
  drillShardFileName,
  fingerprintDifferences,
  type IcDeployedState,
  LOCAL_REGION,
  type ModelConfig,
  opt,
  type RequestShapeInput,
  readArtifact,
  type Shard,
  usage,
  writeArtifact,
  writeFileAtomic,
} from '../model/index.js';
import { describeRow, differingRows } from '../plan/policy-diff.js';
import { renderDrillChartSvg } from '../report/drill-svg.js';
import { renderDrillDryRun, renderDrillReport, renderDrillShardReport } from '../report/drill-text.js';
import { abortReason, waitUntil } from '../wait.js';
import {
  icDrillOf,
  icLiveFingerprint,
  icObserveTarget,
  icPolicyAlarms,
  runFromZeroPhase,
  setCopies,
} from './drill-ic.js';
import { observeDrill } from './drill-observer.js';
import { compareInferenceComponentWithPlan } from './inference-component.js';
import {
  audioAccounting,
  planRequests,
  prepareLoad,
  resolveContinuity,
  transportRequest,
  type VantageDeps,
} from './load-start.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';
import { compareWithPlan, loadPlanShape } from './validate.js';

export interface DrillInput extends RequestShapeInput {
  modelName: string;
  model: ModelConfig;
  /** The config file the model came from (named in a refusal of its request shape). @default scalegate.config.json */
  configFile?: string;
  endpoint: string;
  variant: string;
  region: string;
  /** The plan whose policy is drilled. */
  planFile: string;
  /** @default the plan's surge ratio */
  surgeRatio?: number;
  /** Instances the steady load is sized for, set before the load starts (a variant's drill). @default the plan's min_instances */
  startInstances?: number;
  /** An inference-component model: copies the steady load is sized for, set before the load starts. @default the plan's min copies (at least 1) */
  startCopies?: number;
  /** An inference-component model with min copies 0: idle the component at 0 copies and measure its wake before the schedule. @default false */
  fromZero?: boolean;
  /** Drill whatever policy is deployed, recording how it differs from the plan. @default false */
  allowPolicyMismatch?: boolean;
  /** `i/n`: send shard i of n of the schedule (needs startAt). @default the whole schedule */
  shard?: string;
  /** ISO time of the schedule start shared by every shard. @default the next window boundary, a few seconds ahead */
  startAt?: string;
  /** @default T_plan + 60 s */
  steadyS?: number;
  /** @default T_plan + max(30 s, T_plan / 2) */
  surgeS?: number;
  /** @default the scale-in alarm's window + scale-in cooldown + 120 s */
  troughS?: number;
  /** @default the plan's trough load */
  troughRps?: number;
  /** Steady load, requests/s (labelled chosen). @default the plan's lambda_safe (older plans: X_target) x startInstances */
  steadyRps?: number;
  /** @default 10 */
  windowS?: number;
  /** The continuity SLO: p95 of per-stream stall, ms; each window is judged on it too. @default the config's underrun_slo_ms */
  underrunSloMs?: number;
  /** Audio the player buffers before playback starts, ms. @default the config's client_buffer_ms */
  clientBufferMs?: number;
  /** Poisson seed, shared by the shards. @default 1 */
  seed?: number;
  /** @default 1 */
  pollS?: number;
  /** Texts to synthesise: JSONL {"text": ...} or plain lines. @default the built-in set */
  promptsFile?: string;
  /** Write one JSON line per finished request (phase, intended and actual send, TTFAB, status). */
  eventsFile?: string;
  /** Print the schedule, duration, instance-minutes and cost; no AWS call. @default false */
  dryRun?: boolean;
  /** @default `<artifactsDir>/drill-<model>-<slug>.json` (shards: `....shard-<i>-of-<n>.json`) */
  outFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
}

export interface DrillDeps extends CommandDeps {
  /** Needed unless dryRun. */
  clients?: AwsClients;
  /** Endpoint and credentials of the load's own runtime client. @default the SDK environment */
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Builds the load transport. @default InvokeEndpointWithResponseStream through the endpoint */
  createTransport?: (maxOutstanding: number) => Transport;
  /** Where the vantage is read from (environment, host name). @default process.env, os.hostname() */
  vantage?: VantageDeps;
  /** Called with every finished request (tests pool the shards' records). */
  onRecord?: Parameters<typeof runDrillLoad>[0]['onRecord'];
  /** Hashes a container_dir (an inference-component model's fingerprint is its config's). */
  assetHash?: AssetHash;
}

/** The metric period CloudWatch alarms on ConcurrentRequestsPerModel use: the schedule starts on one. */
const METRIC_PERIOD_S = 10;
/** What a drill loads over: through the endpoint, so the router spreads the load over the fleet. */
const DRILL_TRANSPORT = 'response-stream';

function checkInputs(input: DrillInput): { shard: Shard; surgeRatio?: number } {
  const k = input.surgeRatio;
  if (k !== undefined && !(k >= SURGE_RATIO_RANGE.min && k <= SURGE_RATIO_RANGE.max)) {
    throw usage`${opt('surge-ratio', k)}: a drill surges between ${SURGE_RATIO_RANGE.min} (no surge) and ${SURGE_RATIO_RANGE.max} (double) times the steady load; give a ratio in that range (the plan's is the default).`;
  }
  const shard = input.shard === undefined ? { index: 0, count: 1 } : parseShard(input.shard);
  if (shard.count > 1 && input.startAt === undefined) {
    throw usage`${opt('shard', input.shard)} needs ${opt('start-at')}: every shard must start the same schedule at the same instant (e.g. --start-at ${new Date(Date.now() + 120_000).toISOString().replace(/\.\d+Z$/, 'Z')}).`;
  }
  // Checked before anything is asked of the endpoint (and again when the schedule starts).
  if (input.startAt !== undefined) parseStartAt(input.startAt, Date.now());
  if (input.seed !== undefined && !Number.isInteger(input.seed)) {
    throw usage`${opt('seed', input.seed)}: needs a whole number (every shard gives the same).`;
  }
  for (const [name, v] of [
    ['steady-s', input.steadyS],
    ['surge-s', input.surgeS],
    ['trough-s', input.troughS],
    ['window-s', input.windowS],
    ['poll-s', input.pollS],
  ] as const) {
    if (v !== undefined && !(Number.isFinite(v) && v > 0)) {
      throw usage`${opt(name, v)}: needs a positive number of seconds.`;
    }
  }
  return { shard, ...(k !== undefined ? { surgeRatio: k } : {}) };
}

/** What to run to put the plan's policy on the endpoint (then `validate` is clean). */
function deployFix(input: DrillInput, fingerprintRegion: string | null): string {
  return fingerprintRegion === LOCAL_REGION || input.region === LOCAL_REGION
    ? `\`scalegate local apply --model ${input.modelName} --endpoint ${input.endpoint} --plan ${input.planFile}\``
    : `\`scalegate deploy ${input.modelName} --calibration --with-plan\` (or the release deploy for this endpoint)`;
}

export async function runDrill(
  input: DrillInput,
  deps: DrillDeps = {},
): Promise<CommandResult<DrillArtifact | DrillShardArtifact>> {
  const { clock, version, log, progress, signal } = resolveDeps(deps);
  const checked = checkInputs(input);
  const { shard } = checked;
  const planShape = loadPlanShape(input.modelName, input.planFile, input.endpoint, input.variant);
  const { plan, shape } = planShape;
  const icDrill = icDrillOf(input, plan);
  const prediction = icDrill?.prediction ?? drillPrediction(plan, input.planFile);
  const surgeRatio = checked.surgeRatio ?? plan.chosen.surge_ratio;
  // An inference component's drill counts copies (instances follow them).
  const instances = icDrill?.startCopies ?? input.startInstances ?? plan.deployable.min_instances;
  const windowS = input.windowS ?? DRILL_DEFAULTS.windowS;
  const scaleInAlarm = shape.scaleIn.alarm;
  const phases = drillPhases(plan, prediction, {
    surgeRatio,
    instances,
    ...(icDrill ? { unit: 'copy' as const } : {}),
    windowS,
    scaleInWindowS: scaleInAlarm.periodS * scaleInAlarm.evaluationPeriods,
    ...(input.steadyS !== undefined ? { steadyS: input.steadyS } : {}),
    ...(input.surgeS !== undefined ? { surgeS: input.surgeS } : {}),
    ...(input.troughS !== undefined ? { troughS: input.troughS } : {}),
    ...(input.troughRps !== undefined ? { troughRps: input.troughRps } : {}),
    ...(input.steadyRps !== undefined ? { steadyRps: input.steadyRps } : {}),
  });
  const request = planRequests({ ...input, configFile: input.configFile ?? CONFIG_FILE }, input.model);
  const prompts = request.prompts;
  const sloMs = plan.chosen.slo_ms;
  const continuity = resolveContinuity(input, input.model);
  const peakRps = Math.max(...phases.map((p) => p.rate_rps));
  // A request outstanding for 10 SLOs has failed whatever happens next; never past the invocation ceiling.
  const requestTimeoutS = Math.min(plan.chosen.invocation_ceiling_s, Math.max(5, (10 * sloMs) / 1000));
  const maxOutstanding = Math.min(20_000, Math.ceil((peakRps / shard.count) * requestTimeoutS) + 64);
  const settings = {
    surge_ratio: surgeRatio,
    start_instances: instances,
    slo_ms: sloMs,
    window_s: windowS,
    seed: input.seed ?? DRILL_DEFAULTS.seed,
    poll_s: input.pollS ?? DRILL_DEFAULTS.pollS,
    request_timeout_s: requestTimeoutS,
    max_outstanding: maxOutstanding,
    transport: 'response-stream',
    prompts: { source: prompts.source, count: prompts.texts.length },
    ...(continuity.underrunSloMs !== null
      ? { underrun_slo_ms: continuity.underrunSloMs, client_buffer_ms: continuity.clientBufferMs }
      : {}),
  };

  if (input.dryRun) {
    // The cost is of instances: an inference component's copies packed copies_per_instance each.
    const perInstance = icDrill?.ic.packing.copies_per_instance ?? 1;
    const estimate = drillEstimate(
      phases,
      Math.ceil(instances / perInstance),
      surgeRatio,
      icDrill?.ic.instances.max ?? plan.deployable.max_instances,
      input.model.instance_hourly_usd ?? null,
    );
    return {
      artifact: null,
      report: renderDrillDryRun({
        modelName: input.modelName,
        endpoint: input.endpoint,
        phases,
        settings,
        prediction,
        estimate,
        shard,
        ...(icDrill ? { copies: true } : {}),
      }),
      exitCode: 0,
      written: [],
    };
  }
  const clients = deps.clients;
  if (!clients) throw new Error('runDrill: AWS clients are needed unless dryRun');

  // The endpoint must run what the plan was measured on (a component: its config's, compared below).
  const live = icDrill
    ? {
        fingerprint: icLiveFingerprint(
          input.model,
          input.configFile ?? CONFIG_FILE,
          input.region,
          request.shape,
          deps.assetHash,
        ),
      }
    : await readDeployedFingerprint(clients.sagemaker, input.endpoint, input.variant, input.region).then(
        // What the drill measures: the deployed endpoint, with the request shape its load sends.
        (deployed) => ({ ...deployed, fingerprint: { ...deployed.fingerprint, request: request.shape } }),
      );
  const differences = fingerprintDifferences(plan.fingerprint, live.fingerprint);
  if (differences.length > 0) {
    throw usage`${opt('plan', input.planFile)} was measured on another configuration than endpoint ${input.endpoint} runs (${differences.map((d) => `${d.field}: plan ${d.left}, endpoint ${d.right}`).join('; ')}): its promise says nothing about this endpoint. Drill the plan made for what is deployed (\`scalegate qmax\`, \`scalegate ttotal\`, \`scalegate plan\` on ${input.endpoint}), or deploy the image and instance type the plan was measured on.`;
  }

  // The deployed policy must be the plan's (what `scalegate validate` checks), unless allowed.
  const compareInput = {
    modelName: input.modelName,
    endpoint: input.endpoint,
    variant: input.variant,
    region: input.region,
    planFile: input.planFile,
  };
  const { artifact: comparison, state } = icDrill
    ? await compareInferenceComponentWithPlan(compareInput, icDrill.plan, {
        clients,
        ...(signal ? { signal } : {}),
      })
    : await compareWithPlan(compareInput, { clients, ...(signal ? { signal } : {}) }, planShape);
  const differing = differingRows(comparison.rows);
  const fix = deployFix(input, live.fingerprint.region);
  if (differing.length > 0 && !input.allowPolicyMismatch) {
    const noPolicy = state.scalableTarget === null || state.policies.length === 0;
    const listed = differing.slice(0, 6).map((r) => `  - ${describeRow(r)}`);
    throw usage`endpoint ${input.endpoint} ${noPolicy ? 'has no scaling policy' : "does not run the plan's policy"} (\`scalegate validate --model ${input.modelName} --endpoint ${input.endpoint} --plan ${input.planFile}\` is not clean: ${differing.length} parameter(s) differ):\n${listed.join('\n')}${differing.length > 6 ? `\n  - ... ${differing.length - 6} more` : ''}\nDeploy the plan's policy first: ${fix}; or drill whatever is deployed with ${opt('allow-policy-mismatch')} (the differences are recorded).`;
  }
  const watched = watchedAlarms(
    state.policies,
    icDrill ? await icPolicyAlarms(clients, state as IcDeployedState) : state.alarms,
  );
  const target = icDrill
    ? null
    : (state as Awaited<ReturnType<typeof compareWithPlan>>['state']).scalableTarget;
  if (
    target &&
    (instances < (target.MinCapacity ?? 0) || instances > (target.MaxCapacity ?? Number.POSITIVE_INFINITY))
  ) {
    throw usage`${opt('start-instances', instances)}: outside the deployed policy's ${target.MinCapacity}..${target.MaxCapacity} instances; the policy would move it at once. Give a count in that range.`;
  }
  const notes: string[] = [];
  if (differing.length > 0) {
    notes.push(
      `policy mismatch allowed: ${differing.length} deployed parameter(s) differ from the plan (recorded under policy.differences)`,
    );
  }
  if (!watched.some((a) => a.role === 'scale-out'))
    notes.push('no scale-out alarm is deployed: no policy lag can be measured');

  const observer = shard.index === 0;
  let fromZero: DrillFromZero | null = null;
  let activitiesSinceWallMs: number | undefined;
  if (observer && icDrill) {
    const waiting = { clients, log, signal, deadlineS: 3 * prediction.t_total_s + 600 };
    if (input.fromZero) {
      fromZero = await runFromZeroPhase(
        { ...input, configFile: input.configFile ?? CONFIG_FILE, pollS: settings.poll_s },
        icDrill,
        { ...deps, ...waiting, version },
      );
      activitiesSinceWallMs = Date.now();
    }
    progress({ type: 'drill-desired', fromInstances: null, toInstances: instances });
    if (!(await setCopies(icDrill.ic, instances, waiting)))
      notes.push(`the component was not at ${instances} copies in service when the drill started`);
  } else if (observer) {
    const capacity = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant);
    if (capacity.desired !== instances) {
      progress({ type: 'drill-desired', fromInstances: capacity.desired, toInstances: instances });
      await setDesiredInstanceCount(
        clients.sagemaker,
        input.endpoint,
        input.variant,
        instances,
        signal ? { abortSignal: signal } : {},
      );
    }
    const ready = await waitUntil(
      `${instances} instance(s) in service before the drill`,
      async () => {
        const c = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant);
        return c.endpointStatus === 'InService' && c.current === instances && c.desired === instances
          ? true
          : undefined;
      },
      {
        interval: 2000,
        deadline: Date.now() + (3 * prediction.t_total_s + 600) * 1000,
        ...(signal ? { signal } : {}),
        log,
      },
    );
    if (!ready) notes.push(`the fleet was not at ${instances} instance(s) in service when the drill started`);
  }

  const nowWall = Date.now();
  const align = Math.max(windowS, METRIC_PERIOD_S) * 1000;
  const startWallMs =
    input.startAt !== undefined
      ? parseStartAt(input.startAt, nowWall)
      : Math.ceil((nowWall + DRILL_DEFAULTS.leadS * 1000) / align) * align;
  const startAtWall = new Date(startWallMs).toISOString();
  const startAt = performance.now() + (startWallMs - Date.now());
  const durationS = Math.max(...phases.map((p) => p.end_s));
  progress({
    type: 'drill-schedule',
    phases: phases.map((p) => ({ name: p.name, rateRps: p.rate_rps, seconds: p.end_s - p.start_s })),
    startAt: startAtWall,
    shard: shard.count > 1 ? { index: shard.index, count: shard.count } : null,
  });

  const transport =
    deps.createTransport?.(maxOutstanding) ??
    createTransport(DRILL_TRANSPORT, {
      ...input,
      maxConcurrency: maxOutstanding,
      targetUrl: null,
      loadClient: deps.loadClient,
      request: transportRequest(request.shape),
    });
  const vantage = await prepareLoad('drill', transport, request, input, {
    timeoutMs: requestTimeoutS * 1000,
    signal,
    log,
    vantage: deps.vantage,
  });
  const watching = observer
    ? observeDrill({
        clients,
        ...(icDrill ? { target: icObserveTarget(clients, icDrill.ic) } : {}),
        ...(activitiesSinceWallMs !== undefined ? { activitiesSinceWallMs } : {}),
        endpoint: input.endpoint,
        variant: input.variant,
        alarms: watched,
        startWallMs,
        pollS: settings.poll_s,
        phases,
        log,
        progress,
        ...(signal ? { signal } : {}),
      })
    : null;
  const events = input.eventsFile ? createEventsWriter(input.eventsFile) : null;
  const shardLabel = shard.count > 1 ? `${shard.index}/${shard.count}` : null;
  const onRecord = (record: OpenLoopRecord) => {
    events?.line(
      openLoopEventLine(record, {
        shard: shardLabel,
        phase: phaseAt(phases, (record.intendedAt - startAt) / 1000)?.name ?? null,
      }),
    );
    deps.onRecord?.(record);
  };
  let load: Awaited<ReturnType<typeof runDrillLoad>>;
  try {
    load = await runDrillLoad({
      phases,
      seed: settings.seed,
      shard,
      startAt,
      startAtWall,
      windowMs: windowS * 1000,
      sloMs,
      transport,
      bodies: request.bodies,
      requestTimeoutMs: requestTimeoutS * 1000,
      maxOutstanding,
      ...audioAccounting({ request, clientBufferMs: continuity.clientBufferMs }, input.model),
      ...(signal ? { signal } : {}),
      ...(events || deps.onRecord ? { onRecord } : {}),
      onHeartbeat: (beat) =>
        progress({
          type: 'load-heartbeat',
          label: `drill ${phaseAt(phases, beat.elapsedS - 0.5)?.name ?? 'drain'} phase`,
          totalS: durationS,
          ...beat,
        }),
    });
  } finally {
    await transport.close();
    await events?.close().catch((e) => log(`events file: ${(e as Error).message}`));
  }
  const observed = watching ? await watching.finish(Date.now()) : null;
  if (load.aborted && signal) throw abortReason(signal);
  progress({
    type: 'drill-load-end',
    sent: load.summary.sent,
    dropped: load.summary.dropped,
    scheduleS: durationS,
  });

  const data: DrillData = {
    schema_version: 1,
    model_name: input.modelName,
    endpoint: input.endpoint,
    variant: input.variant,
    region: input.region,
    run_id: `${plan.run_id}-${load.histograms.schedule.schedule_hash.slice(0, 8)}-${startWallMs.toString(36)}`,
    measured_at: clock().toISOString(),
    plan_run_id: plan.run_id,
    plan_file: input.planFile,
    fingerprint: live.fingerprint,
    vantage,
    policy: {
      verdict: comparison.verdict,
      mismatch_allowed: differing.length > 0,
      differences: differing,
      compared: comparison.rows.length,
    },
    prediction,
    settings,
    phases,
    histograms: load.histograms,
    load_seconds: load.seconds,
    failures: load.failures,
    observer: observed,
    ...(icDrill
      ? {
          inference_component: {
            component: icDrill.ic.component_name,
            start_copies: instances,
            copies_per_instance: icDrill.ic.packing.copies_per_instance,
            copy_target: icDrill.ic.copy_target.value,
            t_plan_path: 'cold' as const,
            from_zero: fromZero,
          },
        }
      : {}),
    notes,
    provenance: { origin: 'measured', tool: `scalegate ${version}`, note: null },
  };
  const dir = input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR;
  if (shard.count > 1) {
    const artifact: DrillShardArtifact = { ...data, kind: 'drill-shard', shard };
    const outFile = input.outFile ?? join(dir, drillShardFileName(input.modelName, live.fingerprint, shard));
    writeArtifact('drill-shard', outFile, artifact);
    return {
      artifact,
      report: renderDrillShardReport(artifact, outFile),
      exitCode: 0,
      written: input.eventsFile ? [outFile, input.eventsFile] : [outFile],
    };
  }
  const artifact = completeDrill(data, [shard], input.outFile ?? 'the drill');
  const result = writeDrill(
    artifact,
    input.outFile ?? join(dir, drillFileName(input.modelName, live.fingerprint)),
  );
  return input.eventsFile ? { ...result, written: [...result.written, input.eventsFile] } : result;
}

/** Writes a whole drill and its timeline chart beside it; exit 1 when the verdict is fail. */
export function writeDrill(artifact: DrillArtifact, outFile: string): CommandResult<DrillArtifact> {
  writeArtifact('drill', outFile, artifact);
  const chart = outFile.endsWith('.json')
    ? `${outFile.slice(0, -'.json'.length)}.svg`
    : join(outFile, '..', drillChartFileName(artifact.model_name, artifact.fingerprint));
  writeFileAtomic(chart, renderDrillChartSvg(artifact));
  return {
    artifact,
    report: renderDrillReport(artifact, outFile),
    exitCode: artifact.verdict === 'fail' ? 1 : 0,
    written: [outFile, chart],
  };
}

export interface DrillMergeInput {
  /** The shard files of one drill (`scalegate drill --shard i/n`), every i from 0 to n-1. */
  files: string[];
  /** @default `<artifactsDir>/drill-<model>-<slug>.json` */
  outFile?: string;
  /** @default `artifacts` */
  artifactsDir?: string;
}

/** `scalegate drill merge`: the shards of one drill into the whole drill, judged. No AWS call. */
export function runDrillMerge(input: DrillMergeInput): CommandResult<DrillArtifact> {
  if (input.files.length === 0) {
    throw usage`drill merge: no shard files given; pass every \`drill-<model>-<slug>.shard-<i>-of-<n>.json\` of one drill.`;
  }
  const parts = input.files.map((file) => ({ source: file, data: readArtifact('drill-shard', file) }));
  const artifact = mergeDrillShards(parts);
  const outFile =
    input.outFile ??
    join(
      input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
      drillFileName(artifact.model_name, artifact.fingerprint),
    );
  return writeDrill(artifact, outFile);
}

/** The shard files named in one action input: separated by newlines, commas or spaces. */
export const splitFileList = (text: string): string[] =>
  text
    .split(/[\s,]+/)
    .map((f) => f.trim())
    .filter((f) => f !== '');
