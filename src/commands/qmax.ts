/**
 * `scalegate qmax`: the highest concurrency one instance holds with p95 TTFAB inside the SLO,
 * measured with a closed-loop ladder (adaptive by default, fixed for the reference method), with
 * confidence intervals, usability, the CloudWatch join (R), and the freeze of a live endpoint.
 * Orchestration only: the engine is src/load, the judging src/analysis/qmax.ts, statistics
 * src/stats, AWS calls src/aws, the text src/report/qmax-text.ts.
 */
import { join } from 'node:path';
import {
  assembleQmaxArtifact,
  CALM_CLIENT_SLO_SHARE,
  CLOUDWATCH_QUERIES,
  CW_PERIOD_S,
  cloudWatchRange,
  joinStepWithCloudWatch,
  type QmaxSchedule,
  type QmaxSettings,
  qmaxSchedule,
  qmaxStep,
  type RungObservation,
  rungResultOf,
  type StepRecord,
  wholeCloudWatchPeriods,
} from '../analysis/qmax.js';
import type { AwsClients } from '../aws/clients.js';
import { getVariantMetricData } from '../aws/metrics.js';
import { awaitCalmClient } from '../load/client-calm.js';
import { ClosedLoopEngine, wallOf } from '../load/closed/engine.js';
import {
  DEFAULT_FIXED_RUNGS,
  type LadderMode,
  LadderPlanner,
  type LadderSettings,
  searchRecord,
  summarizeLadder,
  worstCaseRungs,
} from '../load/closed/ladder.js';
import { type RungMeasurement, runRung, validateRungTimes } from '../load/closed/rung.js';
import { createEventsWriter, type EventContext, type EventsWriter } from '../load/events.js';
import type { PromptSet } from '../load/prompts.js';
import { chooseTransport, isSageMakerTransport } from '../load/transport/transports.js';
import type { TransportKind } from '../load/types.js';
import type { QmaxArtifact, QmaxStep } from '../model/artifacts.js';
import { opt, usage } from '../model/errors.js';
import { newRunId } from '../model/ids.js';
import { writeArtifact } from '../model/io.js';
import { DEFAULT_ARTIFACTS_DIR, qmaxFileName } from '../model/names.js';
import { CLOUDWATCH_WAIT_S, LADDER_DEFAULTS, QMAX_DEFAULTS, type QMAX_OPTIONS } from '../options/qmax.js';
import type { OptionValues } from '../options/spec.js';
import { renderCalmClientLine, renderQmaxReport, renderQmaxSchedule } from '../report/qmax-text.js';
import { waitUntil } from '../wait.js';
import { checkFreezeTarget } from './freeze-guard.js';
import {
  frozenRun,
  type LoadCommandDeps,
  loadTransport,
  measuredFingerprint,
  restoreFailed,
} from './frozen-run.js';
import type { LoadCommandInput } from './load-input.js';
import {
  audioAccounting,
  planRequests,
  prepareLoad,
  type RequestPlan,
  resolveContinuity,
  transportRequest,
} from './load-start.js';
import { icQmaxRecord, pinnedComponent } from './qmax-component.js';
import { type CommandResult, resolveDeps } from './result.js';

export { CW_PERIOD_S, type QmaxSchedule } from '../analysis/qmax.js';
export { CLOUDWATCH_WAIT_S, LADDER_DEFAULTS } from '../options/qmax.js';

/**
 * What qmax is given: what every load command is given, and the values of its option table
 * (src/options/qmax.ts: each option's default is declared there, once).
 */
export interface QmaxInput
  extends LoadCommandInput,
    Omit<OptionValues<typeof QMAX_OPTIONS>, keyof LoadCommandInput> {
  /** The image digest a direct (`target`) measurement records. @default the model config's image */
  imageDigest?: string;
}

export interface QmaxDeps
  extends LoadCommandDeps<Pick<AwsClients, 'sagemaker' | 'autoscaling' | 'cloudwatch' | 'region'>> {}

export interface ResolvedQmax extends QmaxSettings {
  underrunSloMs: number | null;
  clientBufferMs: number;
  transport: TransportKind;
  ladder: LadderSettings & QmaxSettings['ladder'];
  prompts: PromptSet;
  /** The request shape and the bodies it sends. */
  request: RequestPlan;
}

const isPositiveInt = (n: number): boolean => Number.isInteger(n) && n > 0;

/** Every option checked before anything is measured: a mistake costs nothing. */
export function resolveQmax(input: QmaxInput): ResolvedQmax {
  checkFreezeTarget(input);
  const { kind: transport, targetUrl } = chooseTransport('qmax', input);
  const mode: LadderMode = input.ladder ?? 'adaptive';
  if (mode !== 'adaptive' && mode !== 'fixed') {
    throw usage`${opt('ladder', String(mode))}: use adaptive or fixed.`;
  }
  const sloMs = input.sloMs ?? input.model.slo_ms;
  if (!(sloMs > 0)) throw usage`${opt('slo-ms')} must be positive.`;
  if (mode === 'adaptive' && input.rungs) {
    throw usage`${opt('rungs')} lists the rungs of a fixed ladder; the adaptive ladder chooses its own (bound it with ${opt('max-concurrency')}).`;
  }
  if (mode === 'fixed' && input.resolution !== undefined) {
    throw usage`${opt('resolution')} applies to the adaptive ladder; a fixed ladder measures exactly its ${opt('rungs')}.`;
  }
  const rungs = mode === 'fixed' ? [...(input.rungs ?? DEFAULT_FIXED_RUNGS)] : [];
  for (const r of rungs) {
    if (!isPositiveInt(r)) throw usage`${opt('rungs')}: ${r} is not a positive integer concurrency.`;
  }
  if (new Set(rungs).size !== rungs.length) throw usage`${opt('rungs')}: each concurrency at most once.`;
  const defaults = mode === 'fixed' ? LADDER_DEFAULTS.fixed : LADDER_DEFAULTS.adaptive;
  const maxConcurrency =
    input.maxConcurrency ?? (mode === 'fixed' ? Math.max(...rungs) : LADDER_DEFAULTS.adaptive.maxConcurrency);
  if (!isPositiveInt(maxConcurrency)) throw usage`${opt('max-concurrency')} must be a positive integer.`;
  if (mode === 'fixed' && !rungs.some((r) => r <= maxConcurrency)) {
    throw usage`${opt('max-concurrency', maxConcurrency)} is below every rung of ${opt('rungs', rungs.join(','))}.`;
  }
  const resolution = input.resolution ?? LADDER_DEFAULTS.adaptive.resolution;
  if (!isPositiveInt(resolution)) throw usage`${opt('resolution')} must be a positive integer.`;
  const holdS = input.holdS ?? defaults.holdS;
  const measureS = input.measureS ?? defaults.measureS;
  const settleS = input.settleS ?? defaults.settleS;
  if (!(holdS > 0)) throw usage`${opt('hold-s')} must be positive.`;
  if (!(settleS >= 0)) throw usage`${opt('settle-s')} must be >= 0.`;
  const problem = validateRungTimes({ mode, holdS, measureS, settleS });
  if (problem) throw problem;
  const runs = input.runs ?? QMAX_DEFAULTS.runs;
  if (!isPositiveInt(runs)) throw usage`${opt('runs')} must be a positive integer.`;
  const requestTimeoutS = input.requestTimeoutS ?? input.model.invocation_ceiling_s;
  if (!(requestTimeoutS > 0)) throw usage`${opt('request-timeout-s')} must be positive.`;
  const minSamples = input.minSamples ?? QMAX_DEFAULTS.minSamples;
  if (!isPositiveInt(minSamples) || minSamples < 72) {
    throw usage`${opt('min-samples')} must be an integer >= 72 (a 95 % interval of p95 needs 72 samples).`;
  }
  const request = planRequests(input, input.model);
  const prompts = request.prompts;
  const continuity = resolveContinuity(input, input.model);
  return {
    ...continuity,
    request,
    transport,
    sloMs,
    ladder: { mode, rungs, maxConcurrency, resolution, growth: 2, sloMs },
    holdS,
    measureS,
    settleS,
    runs,
    requestTimeoutS,
    cloudwatch: isSageMakerTransport(transport) && input.cloudwatch !== false,
    minSamples,
    prompts,
    targetUrl,
  };
}

/** A rung's measurement with its clock stamps on the wall clock, for src/analysis. */
const observationOf = (m: RungMeasurement): RungObservation => ({
  ...m,
  startedWallMs: wallOf(m.startedAt),
  holdMs: m.endedAt - m.startedAt,
  measureMs: m.windowEnd - m.windowStart,
  windowStartWallMs: wallOf(m.windowStart),
  windowEndWallMs: wallOf(m.windowEnd),
});

type QmaxClients = NonNullable<QmaxDeps['clients']>;

/**
 * Joins every rung's measure window with CloudWatch (src/analysis/qmax.ts), waiting up to `waitS`
 * for late datapoints. Never throws for a failed join: the returned error says what is missing.
 */
async function joinCloudWatch(
  steps: StepRecord[],
  clients: QmaxClients,
  input: Pick<QmaxInput, 'endpoint' | 'variant'>,
  waitS: number,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<{ joined: boolean; error: string | null }> {
  const pending = new Set(steps.map((_, i) => i));
  const problems = new Map<number, string>();
  const joinPending = async (): Promise<true | undefined> => {
    for (const i of [...pending]) {
      const { step, observation } = steps[i] as StepRecord;
      if (wholeCloudWatchPeriods(observation) < 1) {
        pending.delete(i);
        problems.set(
          i,
          `c=${step.concurrency}: measure window shorter than one whole ${CW_PERIOD_S} s period`,
        );
        continue;
      }
      try {
        const range = cloudWatchRange(observation);
        const series = await getVariantMetricData(
          clients.cloudwatch,
          input.endpoint,
          input.variant,
          CLOUDWATCH_QUERIES,
          range.startMs,
          range.endMs,
          { abortSignal: signal },
        );
        const problem = joinStepWithCloudWatch(step, observation, series);
        if (problem !== null) {
          problems.set(i, problem);
          continue;
        }
        problems.delete(i);
        pending.delete(i);
      } catch (e) {
        if (signal.aborted) throw e;
        problems.set(i, `c=${step.concurrency}: ${(e as Error).name}: ${(e as Error).message}`);
      }
    }
    return pending.size === 0 ? true : undefined;
  };
  try {
    await waitUntil(`CloudWatch datapoints of every rung (up to ${waitS} s)`, joinPending, {
      deadline: Date.now() + waitS * 1000,
      interval: 15_000,
      signal,
      log: (line) => log(`cloudwatch: ${line}`),
    });
  } catch (e) {
    if (!signal.aborted) throw e;
  }
  const joinedAny = steps.some((s) => s.step.cw_ratio !== null);
  const messages = [...problems.values()];
  if (signal.aborted && pending.size > 0) messages.unshift('interrupted before every rung was joined');
  return { joined: joinedAny, error: messages.length > 0 ? messages.join('; ') : null };
}

export async function runQmax(
  input: QmaxInput,
  deps: QmaxDeps = {},
): Promise<CommandResult<QmaxArtifact | QmaxSchedule>> {
  const resolved = resolveQmax(input);
  if (input.dryRun) {
    const schedule = qmaxSchedule(
      {
        modelName: input.modelName,
        endpoint: input.endpoint,
        instanceHourlyUsd: input.model.instance_hourly_usd ?? null,
      },
      resolved,
      worstCaseRungs(resolved.ladder),
    );
    return { artifact: schedule, report: renderQmaxSchedule(schedule), exitCode: 0, written: [] };
  }
  const { progress, log, clock, version } = resolveDeps(deps);
  const live = isSageMakerTransport(resolved.transport);
  const clients = live ? deps.clients : undefined;
  if (live && !clients) throw new Error('qmax over response-stream needs AWS clients');
  const runId = newRunId();
  const measuredAt = clock().toISOString();
  const { fingerprint, deployedEnv } = await measuredFingerprint(
    'qmax',
    input,
    clients ? { clients } : null,
    { imageDigest: input.imageDigest, assetHash: deps.assetHash },
    log,
    resolved.request.shape,
  );

  const transport = loadTransport(
    resolved.transport,
    {
      ...input,
      maxConcurrency: resolved.ladder.maxConcurrency,
      targetUrl: resolved.targetUrl,
      loadClient: deps.loadClient,
      request: transportRequest(resolved.request.shape),
    },
    deps.createTransport,
  );
  const vantage = await prepareLoad('qmax', transport, resolved.request, input, {
    timeoutMs: resolved.requestTimeoutS * 1000,
    signal: deps.signal,
    log,
    vantage: deps.vantage,
  });
  const events: EventsWriter | null = input.eventsFile ? createEventsWriter(input.eventsFile) : null;
  const epochContext = new Map<number, EventContext>();
  const engine = new ClosedLoopEngine({
    transport,
    bodies: resolved.request.bodies,
    requestTimeoutMs: resolved.requestTimeoutS * 1000,
    ...audioAccounting(resolved, input.model),
    onRecord: events ? (record) => events.write(record, epochContext.get(record.epoch) ?? null) : undefined,
  });

  const steps: StepRecord[] = [];
  const perRun: number[] = [];
  const nonMonotonePerRun: string[][] = [];

  const ic = pinnedComponent(input);
  if (ic)
    log(
      `qmax: component ${ic.component} pinned at ${ic.copies} copies (per copy = in flight / ${ic.copies})`,
    );
  return frozenRun(
    {
      ...input,
      clients: clients ?? null,
      adapters: deps.freezeAdapters,
      ...(ic ? { component: ic.component, pin: ic.copies } : {}),
      commandLine: input.commandLine ?? `scalegate qmax --model ${input.modelName}`,
      runId,
      onJournal: deps.onJournal,
      waitTimeoutS: input.freezeTimeoutS,
      signal: deps.signal,
      handleSignals: deps.handleSignals,
      log,
    },
    {
      measure: async ({ signal, observeCapacity, checkFreeze }) => {
        for (let run = 0; run < resolved.runs; run++) {
          const planner = new LadderPlanner(resolved.ladder);
          const runSteps: QmaxStep[] = [];
          for (let c = planner.next(); c !== null; c = planner.next()) {
            const stepIndex = runSteps.length;
            // A rung the client was too late to judge is measured again once the client is calm.
            if (runSteps.some((s) => s.concurrency === c && s.client_bound)) {
              const calm = await awaitCalmClient({
                calmDelayMs: CALM_CLIENT_SLO_SHARE * resolved.sloMs,
                signal,
                log,
              });
              log(renderCalmClientLine(c, calm));
            }
            progress({ type: 'rung-start', runIndex: run, stepIndex, concurrency: c });
            const before = await observeCapacity();
            epochContext.set(engine.epoch + 1, { run_index: run, step_index: stepIndex });
            const measurement = await runRung(
              engine,
              {
                concurrency: c,
                mode: resolved.ladder.mode,
                holdS: resolved.holdS,
                measureS: resolved.measureS,
                settleS: resolved.settleS,
                sloMs: resolved.sloMs,
                minSamples: resolved.minSamples,
                alignPeriodS: resolved.cloudwatch ? CW_PERIOD_S : null,
                underrunSloMs: resolved.underrunSloMs,
                clientBufferMs: resolved.clientBufferMs,
              },
              { signal, onTick: (tick) => progress({ type: 'rung-tick', runIndex: run, stepIndex, tick }) },
            );
            const after = await observeCapacity();
            // Another run or a person moved the endpoint during the rung: stop, nothing is written.
            await checkFreeze();
            const counts = [...new Set([before, after].filter((v): v is number => v !== null))].sort(
              (a, b) => a - b,
            );
            const observation = observationOf(measurement);
            // A container measured directly (http) has no endpoint: no instance count is observed.
            const step = qmaxStep(observation, run, stepIndex, resolved.sloMs, live ? counts : [], live);
            runSteps.push(step);
            steps.push({ step, observation });
            planner.record(rungResultOf(step));
            progress({ type: 'rung-end', summary: rungSummaryOf(step, c) });
          }
          const summary = summarizeLadder(runSteps.map(rungResultOf));
          perRun.push(summary.qMax);
          nonMonotonePerRun.push(summary.nonMonotone);
        }
      },
      release: async () => {
        await engine.stop({ abort: true });
        await transport.close();
      },
      afterRestore: async () => {
        await events?.close().catch((e) => log(`events file: ${(e as Error).message}`));
      },
      finish: async (_, { signal, restore }) => {
        // The join runs after the restore: it needs no freeze, only time stamps (and, on AWS, patience).
        const cloudwatch = await cloudWatchOf(steps, clients, resolved, input, signal, log);
        const assembled = assembleQmaxArtifact({
          modelName: input.modelName,
          endpoint: input.endpoint,
          variant: input.variant,
          settings: resolved,
          runId,
          measuredAt,
          fingerprint,
          steps,
          perRun,
          nonMonotonePerRun,
          cloudwatch,
          live,
          deployedEnv,
          restore,
          search:
            perRun.length > 0
              ? searchRecord(
                  steps.map((s) => rungResultOf(s.step)),
                  Math.min(...perRun),
                  resolved.ladder,
                )
              : null,
          target: live ? input.endpoint : (resolved.targetUrl as string),
          tool: `scalegate ${version}`,
        });
        const artifact: QmaxArtifact = {
          ...assembled,
          vantage,
          ...(ic ? { inference_component: icQmaxRecord(ic, assembled.q_max) } : {}),
        };
        const file =
          input.outFile ??
          join(
            input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
            qmaxFileName(input.modelName, resolved.transport, fingerprint),
          );
        writeArtifact('qmax', file, artifact);
        const written = [file];
        if (input.eventsFile) written.push(input.eventsFile);
        return {
          artifact,
          report: renderQmaxReport(artifact, file, restore),
          exitCode: restoreFailed(restore) ? 1 : 0,
          written,
        };
      },
    },
  );
}

/** What the ladder's progress is told of a finished rung. */
const rungSummaryOf = (step: QmaxStep, concurrency: number) => ({
  runIndex: step.run_index,
  stepIndex: step.step_index,
  concurrency,
  verdict: step.verdict,
  p95Ms: step.ttfab_p95_ms,
  ci: step.ttfab_p95_ci_ms,
  achievedRps: step.achieved_rps,
  inFlightMean: step.concurrency_mean,
  seconds: step.hold_s ?? 0,
  usable: step.usable,
  reason: step.unusable_reason,
});

/** The CloudWatch join, or why there is none; never throws but for an abort. */
async function cloudWatchOf(
  steps: StepRecord[],
  clients: QmaxClients | undefined,
  resolved: ResolvedQmax,
  input: QmaxInput,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<{ joined: boolean; error: string | null }> {
  if (!clients)
    return {
      joined: false,
      error: 'http transport: a container measured directly has no CloudWatch metrics',
    };
  if (!resolved.cloudwatch) return { joined: false, error: 'disabled with --no-cloudwatch' };
  try {
    return await joinCloudWatch(
      steps,
      clients,
      input,
      input.cloudwatchWaitS ?? CLOUDWATCH_WAIT_S,
      signal,
      log,
    );
  } catch (e) {
    return { joined: false, error: (e as Error).message };
  }
}
