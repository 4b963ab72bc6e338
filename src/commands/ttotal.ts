/**
 * `scalegate ttotal`: time one real scale-out, stage by stage.
 *
 * Preflight (nothing changes until it passes; each refusal is exit 2 with what to do): the qmax
 * artifact is for this model, was measured over the transport ttotal probes with, has usable
 * rungs at the probe concurrency N and N/2, and its fingerprint equals the live endpoint's (or
 * allow-config-mismatch, which warns and is recorded); the instance quota has room for one more
 * instance. Then the endpoint is frozen at one instance (src/commands/freeze.ts: journal first),
 * a closed-loop probe runs at N (src/load), and one more instance is forced
 * (UpdateEndpointWeightsAndCapacities). The stages are timestamped from the call, the new
 * instance's log stream and its container's stage markers, DescribeEndpoint polls and the
 * probe's own latencies; src/analysis/ttotal.ts judges them. The freeze is always restored
 * (desired count and suspension flags as they were before the run), whatever happens.
 *
 * T_total runs from `desired_set` (the call) to `traffic_recovered` (the first recovery window).
 * `--repeat n` times n scale-outs inside the one freeze: after each, the desired count is set back
 * to the starting capacity and the next waits until the endpoint is InService there again;
 * src/analysis/ttotal-repeat.ts combines them with an upper prediction bound for the next T_total.
 */
import { join } from 'node:path';
import {
  assembleTtotalArtifact,
  findRecoveryWindow,
  isLowerBound,
  ladderP95,
  mismatchWarnings,
  type ProbeSample,
  policyLag,
  probeCandidates,
  type RecoveryWindow,
  type ScaleOutFailure,
  type StageMarker,
  type StageObservations,
  stageMarkers,
  usableRungs,
  windowP95,
} from '../analysis/ttotal.js';
import { combineRepeats } from '../analysis/ttotal-repeat.js';
import type { AwsClients } from '../aws/clients.js';
import { describeVariantCapacity, setDesiredInstanceCount, type VariantCapacity } from '../aws/endpoint.js';
import { readDeployedFingerprint } from '../aws/fingerprint.js';
import { type LogStreamInfo, listVariantLogStreams, readLogStream } from '../aws/logs.js';
import { readScaleOutAlarmTimings } from '../aws/policy.js';
import { ClosedLoopEngine, wallOf } from '../load/closed/engine.js';
import type { ProgressSink } from '../load/progress.js';
import { createTransport } from '../load/transport/transports.js';
import type { RequestRecord, Transport } from '../load/types.js';
import {
  CONFIG_FILE,
  DEFAULT_ARTIFACTS_DIR,
  fingerprintDifferences,
  type ModelConfig,
  newRunId,
  opt,
  type QmaxArtifact,
  readArtifact,
  type Transport as TransportKind,
  type TtotalArtifact,
  ttotalFileName,
  usage,
  type Vantage,
  writeArtifact,
} from '../model/index.js';
import type { OptionValues } from '../options/spec.js';
import { TTOTAL_DEFAULTS, type TTOTAL_OPTIONS } from '../options/ttotal.js';
import { renderTtotalFailure, renderTtotalReport } from '../report/ttotal-text.js';
import { waitUntil } from '../wait.js';
import type { Freeze, JournalEntryRef, RestoreReport } from './freeze.js';
import { checkFreezeTarget, refuseProductionFreeze } from './freeze-guard.js';
import { frozenRun, journalRestoreRecordOf } from './frozen-run.js';
import {
  checkRequestShape,
  measureVantage,
  planRequests,
  type RequestPlan,
  transportRequest,
  type VantageDeps,
} from './load-start.js';
import { quotaHeadroom } from './quota-headroom.js';
import { type AwsCommandDeps, type CommandResult, resolveDeps } from './result.js';
import { ttotalDryRun } from './ttotal-dry-run.js';

export { TIMELINE_ORDER } from '../analysis/ttotal.js';
export { TTOTAL_DEFAULTS } from '../options/ttotal.js';

/** What ttotal probes over: through the endpoint, so the router can split the probe. */
export const TTOTAL_TRANSPORT: TransportKind = 'response-stream';

export const TRIGGER = 'force-desired';

/**
 * What ttotal is given: the model and endpoint, and the values of its option table
 * (src/options/ttotal.ts: each option's default is declared there, once).
 */
export interface TtotalInput
  extends Omit<
    OptionValues<typeof TTOTAL_OPTIONS>,
    'modelName' | 'configFile' | 'endpoint' | 'region' | 'qmaxFile'
  > {
  modelName: string;
  model: ModelConfig;
  /** The config file the model came from (named in a refusal of its request shape). @default scalegate.config.json */
  configFile?: string;
  endpoint: string;
  variant: string;
  region: string;
  qmaxFile: string;
  /** @default SCALEGATE_STATE_DIR, else `.scalegate` */
  stateDir?: string;
  /** The command line, for the thaw journal. @default `scalegate ttotal --model <model> --qmax <file>` */
  commandLine?: string;
  /** @default a new run id */
  runId?: string;
}

export interface TtotalDeps extends AwsCommandDeps<AwsClients> {
  /** Install SIGINT/SIGTERM handlers for the duration of the freeze. @default true */
  handleSignals?: boolean;
  /** Endpoint and credentials of the probe's own runtime client, as qmax's. @default the SDK environment */
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Builds the probe transport. @default InvokeEndpointWithResponseStream through the endpoint */
  createTransport?: (maxConcurrency: number) => Transport;
  /** Told where the thaw journal goes before it is written (the action's post step). @default nothing */
  onJournal?: (entry: JournalEntryRef) => void;
  /** Where the vantage is read from (environment, host name). @default process.env, os.hostname() */
  vantage?: VantageDeps;
}

export interface TtotalPreflight {
  /** The probe's request shape and bodies. */
  request: RequestPlan;
  qmax: QmaxArtifact;
  probeConcurrency: number;
  halfP95Ms: number;
  fullP95Ms: number | null;
  mismatchWarnings: string[];
  quota: NonNullable<TtotalArtifact['quota']>;
  lag: { lagS: number; bounded: boolean; source: string };
  fingerprint: TtotalArtifact['fingerprint'];
  capacity: VariantCapacity;
}

export function probeSample(record: RequestRecord): ProbeSample {
  return {
    dispatchMs: wallOf(record.dispatchedAt),
    endMs: wallOf(record.endedAt ?? record.dispatchedAt),
    ttfabMs: record.outcome === 'ok' && record.ttfabMs !== null ? record.ttfabMs : Number.POSITIVE_INFINITY,
  };
}

/** Every check that must pass before the endpoint is touched. Throws UsageError (exit 2) on refusal. */
export async function ttotalPreflight(
  input: TtotalInput,
  clients: AwsClients,
  log: (line: string) => void = () => {},
): Promise<TtotalPreflight> {
  checkFreezeTarget(input);
  const qmax = readArtifact('qmax', input.qmaxFile);
  const qmaxFile = opt('qmax', input.qmaxFile);
  const qmaxCommand = `scalegate qmax --model ${input.modelName}${input.endpoint === input.model.endpoint ? '' : ` --endpoint ${input.endpoint}`}`;
  if (qmax.model_name !== input.modelName) {
    throw usage`${qmaxFile}: measured for ${qmax.model_name}, not ${input.modelName}. Pass this model's qmax artifact, or measure one with \`${qmaxCommand}\`.`;
  }
  if (qmax.transport !== TTOTAL_TRANSPORT) {
    throw usage`${qmaxFile}: the ladder was measured over ${qmax.transport}, but ttotal probes over ${TTOTAL_TRANSPORT} (InvokeEndpointWithResponseStream through the endpoint, so the router can split the probe onto the new instance); a recovery target from another transport compares different paths. Measure the ladder over ${TTOTAL_TRANSPORT}: \`${qmaxCommand} --transport ${TTOTAL_TRANSPORT}\`.`;
  }

  const candidates = probeCandidates(qmax);
  const rungs = usableRungs(qmax);
  let n = input.probeConcurrency;
  if (n === undefined) {
    if (candidates.length === 0) {
      throw usage`${qmaxFile}: no probe concurrency N has usable rungs at both N and N/2 at or under Q_max ${qmax.q_max} (usable rungs: ${rungs.join(', ') || 'none'}). Re-run the ladder with rungs N and N/2 (e.g. \`${qmaxCommand} --rungs 1,2,4,...\`), or give ${opt('probe-concurrency')} N for rungs that exist.`;
    }
    n = candidates[candidates.length - 1] as number;
  }
  const missingRungs = [n, n / 2].filter((c) => !Number.isInteger(c) || !rungs.includes(c));
  if (missingRungs.length > 0) {
    throw usage`${opt('probe-concurrency', n)}: the ladder in ${input.qmaxFile} has no usable rung at ${missingRungs.join(' and ')} (the probe runs at N on one instance and recovery is judged against the ladder's p95 at N/2). Usable rungs: ${rungs.join(', ') || 'none'}; probe concurrencies that work: ${candidates.join(', ') || 'none'}. Give one of those, or re-measure with \`${qmaxCommand}\` so the ladder has rungs ${n} and ${n / 2}.`;
  }
  const halfP95Ms = ladderP95(qmax, n / 2) as number;

  const request = planRequests({ ...input, configFile: input.configFile ?? CONFIG_FILE }, input.model);
  await refuseProductionFreeze('ttotal', input, clients, log);
  const deployed = await readDeployedFingerprint(
    clients.sagemaker,
    input.endpoint,
    input.variant,
    input.region,
  );
  // What the probe measures: the deployed endpoint, with the request shape the probe sends.
  const live = { ...deployed, fingerprint: { ...deployed.fingerprint, request: request.shape } };
  const differences = fingerprintDifferences(qmax.fingerprint, live.fingerprint);
  const warnings = mismatchWarnings(differences, input.endpoint);
  if (differences.length > 0 && !input.allowConfigMismatch) {
    throw usage`${qmaxFile} was measured on another configuration than endpoint ${input.endpoint} runs now:\n${warnings.map((w) => `  - ${w}`).join('\n')}\nA T_total paired with a Q_max of another container or instance type sizes nothing. Measure Q_max on what is deployed (\`${qmaxCommand}\`) and pass that artifact, or allow the mismatch with ${opt('allow-config-mismatch')} (warns; recorded in the artifact).`;
  }

  const capacity = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant);
  const quota = await quotaHeadroom(input, clients, live.fingerprint.instance_type, capacity);

  const timings = await readScaleOutAlarmTimings(
    clients,
    `endpoint/${input.endpoint}/variant/${input.variant}`,
  );
  const lag = policyLag(timings, input.publicationDelayS ?? null);
  return {
    request,
    qmax,
    probeConcurrency: n,
    halfP95Ms,
    fullP95Ms: ladderP95(qmax, n),
    mismatchWarnings: warnings,
    quota,
    lag,
    fingerprint: live.fingerprint,
    capacity,
  };
}

type ScaleOutOutcome =
  | {
      kind: 'ok';
      obs: StageObservations;
      stream: LogStreamInfo | null;
      /** The probe before the trigger, and in the recovery window. */
      before: { p95: number | null; n: number };
      after: { p95: number | null; n: number };
    }
  | { kind: 'failed'; failure: ScaleOutFailure; obs: StageObservations | null };

interface ScaleOutSettings {
  n: number;
  settleS: number;
  pollS: number;
  maxWaitS: number;
  minSamples: number;
  targetMs: number;
  toInstances: number;
  request: RequestPlan;
}

/**
 * The measurement itself, on a frozen endpoint: hold the probe, force one more instance, poll
 * until it serves and the probe recovers (or the wait ends), then read the new instance's log.
 */
async function measureScaleOut(
  input: TtotalInput,
  deps: TtotalDeps,
  s: ScaleOutSettings,
  signal: AbortSignal,
  log: (line: string) => void,
  progress: ProgressSink,
): Promise<ScaleOutOutcome> {
  const { clients } = deps;
  const samples: ProbeSample[] = [];
  const known = new Set(
    (await listVariantLogStreams(clients.logs, input.endpoint, input.variant)).map((st) => st.name),
  );
  const transport =
    deps.createTransport?.(s.n) ??
    createTransport(TTOTAL_TRANSPORT, {
      ...input,
      maxConcurrency: s.n,
      targetUrl: null,
      loadClient: deps.loadClient,
      request: transportRequest(s.request.shape),
    });
  const engine = new ClosedLoopEngine({
    transport,
    bodies: s.request.bodies,
    requestTimeoutMs: TTOTAL_DEFAULTS.requestTimeoutMs,
    onRecord: (record) => {
      if (!record.stopped) samples.push(probeSample(record));
    },
  });
  const wait = { signal, log: (line: string) => log(`ttotal: ${line}`) };
  try {
    const loadAppliedMs = Date.now();
    engine.setConcurrency(s.n);
    progress({ type: 'ttotal-stage', stage: 'probe-applied', atMs: loadAppliedMs, holdS: s.settleS });
    const holdUntil = loadAppliedMs + s.settleS * 1000;
    await waitUntil(
      `the probe's pre-trigger hold (${s.settleS} s, at least ${s.minSamples} completions)`,
      () => (Date.now() >= holdUntil && samples.length >= s.minSamples ? true : undefined),
      {
        ...wait,
        deadline: Math.max(holdUntil, loadAppliedMs + s.maxWaitS * 1000),
        interval: (now) => Math.min(250, Math.max(50, holdUntil - now)),
        log: undefined,
      },
    );
    const desiredSetMs = Date.now();
    const before = windowP95(samples, loadAppliedMs, desiredSetMs);
    await setDesiredInstanceCount(clients.sagemaker, input.endpoint, input.variant, s.toInstances, {
      abortSignal: signal,
    });
    progress({
      type: 'ttotal-stage',
      stage: 'desired-set',
      atMs: desiredSetMs,
      fromInstances: s.toInstances - 1,
      toInstances: s.toInstances,
    });

    let stream: LogStreamInfo | null = null;
    let inService: StageObservations['inService'] = null;
    let recovered: RecoveryWindow | null = null;
    let previousPollMs = desiredSetMs;
    let last: VariantCapacity | null = null;
    let failure: string | null = null;
    const stepMs = Math.max(100, Math.min(1000, (s.settleS * 1000) / 10));
    let nextWindowStart = 0;
    const poll = async (): Promise<true | undefined> => {
      const pollMs = Date.now();
      last = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant);
      if (!stream || stream.firstEventMs === null) {
        const streams = await listVariantLogStreams(clients.logs, input.endpoint, input.variant);
        const found = streams.find((st) => !known.has(st.name)) ?? null;
        if (found && !stream) progress({ type: 'ttotal-stage', stage: 'log-stream', name: found.name });
        stream = found;
      }
      if (/fail|outofservice/i.test(last.endpointStatus)) {
        failure = `endpoint ${input.endpoint} became ${last.endpointStatus}${last.failureReason ? `: ${last.failureReason}` : ''}`;
        return true;
      }
      // SageMaker rolls a failed capacity update back: InService again, the old desired count, a FailureReason.
      if (
        !inService &&
        last.endpointStatus === 'InService' &&
        last.desired !== null &&
        last.desired < s.toInstances
      ) {
        failure = `the update to ${s.toInstances} instances was rolled back (desired is ${last.desired} again)${last.failureReason ? `: ${last.failureReason}` : ''}`;
        return true;
      }
      if (!inService && last.endpointStatus === 'InService' && (last.current ?? 0) >= s.toInstances) {
        inService = { atMs: pollMs, previousPollMs, pollS: s.pollS };
        nextWindowStart = pollMs;
        progress({ type: 'ttotal-stage', stage: 'in-service', atMs: pollMs, instances: s.toInstances });
      }
      previousPollMs = pollMs;
      if (!inService) return undefined;
      // Windows are judged once every request dispatched in them has finished.
      let horizon = Date.now();
      for (const r of engine.inFlightRecords()) horizon = Math.min(horizon, wallOf(r.dispatchedAt));
      recovered = findRecoveryWindow(samples, {
        fromMs: nextWindowStart,
        horizonMs: horizon,
        windowS: s.settleS,
        stepMs,
        minSamples: s.minSamples,
        targetMs: s.targetMs,
      });
      if (recovered) {
        progress({
          type: 'ttotal-stage',
          stage: 'recovered',
          atMs: recovered.startMs,
          p95Ms: recovered.p95Ms,
        });
        return true;
      }
      const judged = Math.floor(Math.max(0, horizon - s.settleS * 1000 - nextWindowStart) / stepMs);
      nextWindowStart += judged * stepMs;
      return undefined;
    };
    await waitUntil(`the extra instance in service and the probe recovered (up to ${s.maxWaitS} s)`, poll, {
      ...wait,
      deadline: desiredSetMs + s.maxWaitS * 1000,
      interval: s.pollS * 1000,
      pauseFirst: true,
    });
    await engine.stop();
    // Markers: read the new stream whole now that the instance is up (or gave up).
    let markers: StageMarker[] = [];
    let tail: string[] = [];
    let found: LogStreamInfo | null = stream;
    if (!found) {
      const streams = await listVariantLogStreams(clients.logs, input.endpoint, input.variant);
      found = streams.find((st) => !known.has(st.name)) ?? null;
    }
    if (found) {
      const events = await readLogStream(clients.logs, input.endpoint, found.name);
      markers = stageMarkers(events.map((e) => e.message));
      tail = events.slice(-8).map((e) => e.message);
      if (found.firstEventMs === null && events[0]) found = { ...found, firstEventMs: events[0].timestampMs };
    }
    const obs: StageObservations = {
      loadAppliedMs,
      desiredSetMs,
      instanceLogging:
        found && found.firstEventMs !== null
          ? { stream: found.name, firstEventMs: found.firstEventMs }
          : null,
      markers,
      inService,
      recovered,
    };
    if (inService) {
      const window = recovered as RecoveryWindow | null;
      const after = window
        ? windowP95(samples, window.startMs, window.startMs + s.settleS * 1000)
        : { p95: null, n: 0 };
      return { kind: 'ok', obs, stream: found, before, after };
    }
    const capacity = last as VariantCapacity | null;
    return {
      kind: 'failed',
      obs,
      failure: {
        reason:
          failure ??
          `the extra instance was not in service within --max-wait-s ${s.maxWaitS} s (status ${capacity?.endpointStatus ?? '?'}, desired ${capacity?.desired ?? '?'}, current ${capacity?.current ?? '?'})`,
        capacity,
        stream: found?.name ?? null,
        logTail: tail,
      },
    };
  } finally {
    await engine.stop().catch(() => {});
    await transport.close().catch(() => {});
  }
}

/**
 * Between two scale-outs of one run: back to the starting capacity, and wait until the endpoint
 * is InService there (the freeze stays; only the desired count moves).
 */
async function restoreCapacity(
  input: TtotalInput,
  deps: TtotalDeps,
  instances: number,
  s: { pollS: number; maxWaitS: number },
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  const { clients } = deps;
  await setDesiredInstanceCount(clients.sagemaker, input.endpoint, input.variant, instances, {
    abortSignal: signal,
  });
  log(`ttotal: back to ${instances} instance(s) before the next scale-out`);
  await waitUntil(
    `endpoint ${input.endpoint} InService at ${instances} instance(s) again`,
    async () => {
      const c = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant, {
        abortSignal: signal,
      });
      return c.endpointStatus === 'InService' && c.current === instances && c.desired === instances
        ? true
        : undefined;
    },
    { signal, deadline: Date.now() + s.maxWaitS * 1000, interval: s.pollS * 1000, pauseFirst: true },
  );
}

export async function runTtotal(
  input: TtotalInput,
  deps: TtotalDeps,
): Promise<CommandResult<TtotalArtifact>> {
  const { log, progress, version } = resolveDeps(deps);
  const settleS = input.settleS ?? TTOTAL_DEFAULTS.settleS;
  const pollS = input.pollS ?? TTOTAL_DEFAULTS.pollS;
  const maxWaitS = input.maxWaitS ?? TTOTAL_DEFAULTS.maxWaitS;
  const minSamples = input.minWindowSamples ?? TTOTAL_DEFAULTS.minWindowSamples;
  const recoveryFactor = input.recoveryFactor ?? TTOTAL_DEFAULTS.recoveryFactor;
  const repeat = input.repeat ?? TTOTAL_DEFAULTS.repeat;
  const runId = input.runId ?? newRunId();

  const pre = await ttotalPreflight(input, deps.clients, log);
  const n = pre.probeConcurrency;
  const targetMs = pre.halfP95Ms * recoveryFactor;
  for (const w of pre.mismatchWarnings) log(`WARNING (--allow-config-mismatch): ${w}`);
  log(
    `ttotal: probe at ${n} in flight; recovery when p95 TTFAB <= ${targetMs.toFixed(1)} ms (ladder p95 at ${n / 2} x ${recoveryFactor}) over ${settleS} s with >= ${minSamples} completions`,
  );
  if (input.dryRun) return ttotalDryRun(input, deps.clients, pre, { settleS, maxWaitS, targetMs });

  // Before anything is frozen: where the probe comes from, and whether the container takes its body.
  const check =
    deps.createTransport?.(1) ??
    createTransport(TTOTAL_TRANSPORT, {
      ...input,
      maxConcurrency: 1,
      targetUrl: null,
      loadClient: deps.loadClient,
      request: transportRequest(pre.request.shape),
    });
  let vantage: Vantage;
  try {
    vantage = await measureVantage(check, deps.vantage ?? {}, deps.signal, log);
    await checkRequestShape(
      'ttotal',
      check,
      pre.request,
      { modelName: input.modelName, configFile: input.configFile ?? CONFIG_FILE },
      { timeoutMs: TTOTAL_DEFAULTS.requestTimeoutMs, signal: deps.signal, log },
    );
  } finally {
    await check.close().catch(() => {});
  }

  return frozenRun(
    {
      ...input,
      clients: deps.clients,
      commandLine:
        input.commandLine ?? `scalegate ttotal --model ${input.modelName} --qmax ${input.qmaxFile}`,
      runId,
      onJournal: deps.onJournal,
      pollIntervalMs: pollS * 1000,
      waitTimeoutS: maxWaitS,
      signal: deps.signal,
      handleSignals: deps.handleSignals,
      log,
      logRestore: (restore) =>
        log(
          `ttotal: restored ${restore.actions.join('; ')}${restore.errors.length > 0 ? `; FAILED: ${restore.errors.join('; ')}` : ''}`,
        ),
    },
    {
      measure: async ({ signal, freeze }) => {
        const fromInstances = (freeze as Freeze).frozenCapacity.current ?? 1;
        const toInstances = fromInstances + 1;
        const outcomes: ScaleOutOutcome[] = [];
        for (let i = 0; i < repeat; i++) {
          if (i > 0) await restoreCapacity(input, deps, fromInstances, { pollS, maxWaitS }, signal, log);
          if (repeat > 1) log(`ttotal: scale-out ${i + 1} of ${repeat}`);
          const outcome = await measureScaleOut(
            input,
            deps,
            { n, settleS, pollS, maxWaitS, minSamples, targetMs, toInstances, request: pre.request },
            signal,
            log,
            progress,
          );
          outcomes.push(outcome);
          if (outcome.kind === 'failed') break;
        }
        return { outcomes, fromInstances, toInstances };
      },
      finish: async ({ outcomes, fromInstances, toInstances }, ctx) => {
        const freeze = ctx.freeze as Freeze;
        const restore = ctx.restore as RestoreReport;
        const restoreRecord = journalRestoreRecordOf(freeze, restore);
        const failed = outcomes.find((o) => o.kind === 'failed');
        if (failed?.kind === 'failed') {
          const done = outcomes.length - 1;
          const outcome = {
            ...failed,
            failure: {
              ...failed.failure,
              reason:
                repeat > 1
                  ? `scale-out ${outcomes.length} of ${repeat}: ${failed.failure.reason} (${done} completed before it; none is written, a repeated run is judged whole)`
                  : failed.failure.reason,
            },
          };
          return {
            artifact: null,
            report: renderTtotalFailure({
              modelName: input.modelName,
              endpoint: input.endpoint,
              failure: outcome.failure,
              restore: restoreRecord,
              journalFile: restore.journalDeleted ? null : freeze.journalFile,
            }),
            exitCode: 1,
            written: [],
          };
        }
        const single = (outcome: ScaleOutOutcome & { kind: 'ok' }) =>
          assembleTtotalArtifact({
            modelName: input.modelName,
            endpoint: input.endpoint,
            runId,
            fingerprint: pre.fingerprint,
            transport: TTOTAL_TRANSPORT,
            trigger: TRIGGER,
            qmax: pre.qmax,
            lag: pre.lag,
            instanceId: outcome.stream?.instanceId ?? null,
            fromInstances,
            toInstances,
            probeConcurrency: n,
            obs: outcome.obs,
            before: outcome.before,
            after: outcome.after,
            targetMs,
            mismatchWarnings: pre.mismatchWarnings,
            settings: {
              probe_concurrency: n,
              recovery_window_s: settleS,
              recovery_min_samples: minSamples,
              recovery_target_factor: recoveryFactor,
              poll_s: pollS,
              max_wait_s: maxWaitS,
              pre_trigger_s: settleS,
              publication_delay_s: input.publicationDelayS ?? null,
            },
            quota: pre.quota,
            restore: restoreRecord,
            keptJournal: restore.errors.length > 0 ? freeze.journalFile : null,
            tool: `scalegate ${version}`,
          });
        const completed = outcomes.filter((o): o is ScaleOutOutcome & { kind: 'ok' } => o.kind === 'ok');
        const artifact =
          repeat > 1
            ? combineRepeats(completed.map(single))
            : single(completed[0] as ScaleOutOutcome & { kind: 'ok' });
        artifact.vantage = vantage;
        const outFile =
          input.outFile ??
          join(
            input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
            ttotalFileName(input.modelName, TRIGGER, pre.fingerprint),
          );
        writeArtifact('ttotal', outFile, artifact);
        return {
          artifact,
          report: renderTtotalReport(artifact, outFile),
          // A lower-bound T_total (it ends at in_service) would under-size headroom if planned on.
          exitCode: restore.errors.length > 0 || isLowerBound(artifact) ? 1 : 0,
          written: [outFile],
        };
      },
    },
  );
}
