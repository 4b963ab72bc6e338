/**
 * `scalegate goodput`: lambda_max, the highest Poisson arrival rate one instance holds with p95
 * TTFAB from the intended send time inside the SLO (overflows and errors within their stated
 * fractions), bracketed by a measured breach, on an endpoint frozen at one instance exactly as qmax
 * freezes it (src/commands/freeze.ts: journal first, signal guard, restore on every exit path).
 * Orchestration only: the engine and the ladder are src/load, the decision src/stats (through
 * src/load/goodput-judge.ts), the artifact src/analysis/goodput.ts, the text src/report.
 *
 * Shards (`--shard i/n --start-at T --rates r1,r2,...`): every shard runs the same fixed ladder on
 * the same seeded schedules, rung j starting at T + j (hold + gap), and sends its share of each.
 * Shard 0 freezes and restores the endpoint; the others wait (read-only) until they see it frozen.
 * A shard file holds `pending` verdicts: `scalegate merge` adds the shards' windows and decides.
 */
import { join } from 'node:path';
import {
  assembleGoodputArtifact,
  type GoodputSchedule,
  type GoodputSettings,
  goodputRung,
  goodputSchedule,
} from '../analysis/goodput.js';
import { alignedRungStart, METRIC_LEVEL_PERIOD_S } from '../analysis/goodput-metric.js';
import type { AwsClients } from '../aws/clients.js';
import { describeVariantCapacity } from '../aws/endpoint.js';
import { readDeployedFingerprint } from '../aws/fingerprint.js';
import { variantResourceId } from '../aws/scaling.js';
import { type Clock, realClock } from '../load/clock.js';
import { judgeRung } from '../load/goodput-judge.js';
import { GoodputLadder, summarizeGoodput, worstCaseRateRungs } from '../load/goodput-ladder.js';
import { createHttpTransport } from '../load/http-transport.js';
import { runOpenRung } from '../load/open-rung.js';
import { encodePrompts } from '../load/prompts.js';
import { createLoadRuntimeClient } from '../load/response-stream-transport.js';
import { createSageMakerTransport, isSageMakerTransport } from '../load/transports.js';
import type { Transport, TransportKind } from '../load/types.js';
import type { GoodputArtifact, GoodputRung } from '../model/artifacts.js';
import { type AssetHash, modelImageDigest } from '../model/asset-hash.js';
import { configFingerprint, type Fingerprint, LOCAL_REGION } from '../model/fingerprint.js';
import { newRunId } from '../model/ids.js';
import { writeArtifact } from '../model/io.js';
import { DEFAULT_ARTIFACTS_DIR, goodputFileName } from '../model/names.js';
import { renderGoodputReport, renderGoodputSchedule } from '../report/goodput-text.js';
import { waitUntil } from '../wait.js';
import {
  awsFreezeAdapters,
  type Freeze,
  type FreezeAdapters,
  freezeAbort,
  freezeEndpoint,
  InterruptedError,
  type JournalEntryRef,
  type RestoreReport,
} from './freeze.js';
import { refuseProductionFreeze } from './freeze-guard.js';
import { cloudWatchRefusal, GOODPUT_CLOUDWATCH_WAIT_S, joinGoodputCloudWatch } from './goodput-cloudwatch.js';
import { type GoodputInput, resolveGoodput } from './goodput-input.js';
import { type CommandDeps, type CommandResult, resolveDeps } from './result.js';

export { GOODPUT_DEFAULTS, type GoodputInput, resolveGoodput } from './goodput-input.js';

export interface GoodputDeps extends CommandDeps {
  /** Needed unless the transport is http or it is a dry run. @default none */
  clients?: Pick<AwsClients, 'sagemaker' | 'autoscaling' | 'region'> &
    Partial<Pick<AwsClients, 'cloudwatch'>>;
  /** @default the AWS ones over `clients` */
  freezeAdapters?: FreezeAdapters;
  /** The content hash of a container directory, for http fingerprints. @default containerAssetHash */
  assetHash?: AssetHash;
  /** Install SIGINT/SIGTERM handlers for the duration of the freeze. @default true */
  handleSignals?: boolean;
  /** Told the thaw journal's place before it is written (the action's post step restores it). @default none */
  onJournal?: (entry: JournalEntryRef) => void;
  /** Endpoint/credentials of the load's own runtime client. @default the SDK environment */
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Transport factory (tests, benchmarks). @default the transport the input names */
  createTransport?: (kind: TransportKind, maxOutstanding: number) => Transport;
  /** The load's time source (a VirtualClock runs the ladder in simulated time). @default the real clock */
  loadClock?: Clock;
  /** Wall time now, ms (for --start-at). @default Date.now */
  now?: () => number;
}

/** The rates a run will measure: the fixed list, or the adaptive ladder's next one. */
class RatePlan {
  private index = 0;
  private readonly ladder: GoodputLadder | null;
  constructor(private readonly s: GoodputSettings) {
    this.ladder =
      s.rates === null
        ? new GoodputLadder({
            startRate: s.startRate,
            maxRate: s.maxRate,
            minRate: s.minRate,
            resolution: s.resolution,
          })
        : null;
  }
  next(): number | null {
    if (this.ladder) return this.ladder.next();
    return (this.s.rates as number[])[this.index] ?? null;
  }
  record(rate: number, verdict: 'pass' | 'fail' | 'undecided', reason: string): void {
    this.index++;
    this.ladder?.record({ rate, verdict, reason });
  }
}

type GoodputClients = NonNullable<GoodputDeps['clients']>;

/** What the ladder summary is told about a recorded rung (`pending` never reaches it). */
export const rateResultOf = (g: GoodputRung) => ({
  rate: g.rate_rps,
  verdict: g.verdict === 'pass' || g.verdict === 'fail' ? g.verdict : ('undecided' as const),
  reason: g.reason,
});

/**
 * A shard other than 0 never freezes: it waits, read-only, until it sees the endpoint frozen by
 * shard 0 (one InService instance, every scaling flag suspended), at the latest until the start.
 */
async function awaitFrozen(
  adapters: FreezeAdapters,
  endpoint: string,
  variant: string,
  untilMs: number,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  const resourceId = variantResourceId(endpoint, variant);
  const frozen = await waitUntil(
    `shard 0 to freeze ${endpoint}/${variant}`,
    async () => {
      const capacity = await adapters.describeVariantCapacity({ abortSignal: signal });
      const target = await adapters.describeScalableTarget(resourceId, { abortSignal: signal });
      const suspended =
        target === null ||
        (target.suspended.dynamic_scaling_in_suspended &&
          target.suspended.dynamic_scaling_out_suspended &&
          target.suspended.scheduled_scaling_suspended);
      return capacity.endpointStatus === 'InService' &&
        capacity.current === 1 &&
        capacity.desired === 1 &&
        suspended
        ? true
        : undefined;
    },
    { deadline: untilMs, interval: 2000, signal, log: (line) => log(`shard: ${line}`) },
  ).catch((e) => {
    if (signal.aborted) throw e;
    return undefined;
  });
  if (!frozen) {
    throw new Error(
      `refusing to measure: ${endpoint}/${variant} was not frozen at one instance before the agreed start; start shard 0 (it freezes the endpoint) with the same --start-at`,
    );
  }
}

export async function runGoodput(
  input: GoodputInput,
  deps: GoodputDeps = {},
): Promise<CommandResult<GoodputArtifact | GoodputSchedule>> {
  const now = deps.now ?? Date.now;
  const resolved = resolveGoodput(input, now());
  if (input.dryRun) {
    const worst = resolved.rates
      ? { rungs: resolved.rates.length, example: resolved.rates }
      : worstCaseRateRungs({
          startRate: resolved.startRate,
          maxRate: resolved.maxRate,
          minRate: resolved.minRate,
          resolution: resolved.resolution,
        });
    const schedule = goodputSchedule(
      {
        modelName: input.modelName,
        endpoint: input.endpoint,
        instanceHourlyUsd: input.model.instance_hourly_usd ?? null,
      },
      resolved,
      worst,
    );
    return { artifact: schedule, report: renderGoodputSchedule(schedule), exitCode: 0, written: [] };
  }
  const { log, clock, version } = resolveDeps(deps);
  const live = isSageMakerTransport(resolved.transport);
  const clients = deps.clients;
  if (live && !clients) throw new Error('goodput over a SageMaker transport needs AWS clients');
  // Every shard: shard 0 freezes, the others load the endpoint it froze.
  if (live) await refuseProductionFreeze('goodput', input, clients as GoodputClients, log);
  const runId = newRunId();
  const measuredAt = clock().toISOString();

  // Fingerprint first (read-only): a measurement is only worth anything if we know what of.
  let fingerprint: Fingerprint;
  if (live) {
    const c = clients as GoodputClients;
    fingerprint = (await readDeployedFingerprint(c.sagemaker, input.endpoint, input.variant, c.region))
      .fingerprint;
    log(
      `fingerprint: ${fingerprint.instance_type}, image ${fingerprint.image_digest.slice(0, 12)}, region ${fingerprint.region}`,
    );
  } else {
    const digest = modelImageDigest(input.model, input.configFile, deps.assetHash);
    fingerprint = configFingerprint(input.model, digest, LOCAL_REGION);
  }

  const transport = deps.createTransport
    ? deps.createTransport(resolved.transport, resolved.maxOutstanding)
    : isSageMakerTransport(resolved.transport)
      ? createSageMakerTransport(resolved.transport, {
          runtime: createLoadRuntimeClient({
            region: input.region,
            maxConcurrency: resolved.maxOutstanding,
            ...deps.loadClient,
          }),
          endpoint: input.endpoint,
          variant: input.variant,
          ownsClient: true,
        })
      : createHttpTransport({ url: resolved.targetUrl as string, maxConcurrency: resolved.maxOutstanding });
  const bodies = encodePrompts(resolved.prompts);
  const loadClock = deps.loadClock ?? realClock;
  const shard = resolved.shard ?? { index: 0, count: 1 };
  // The per-rate CloudWatch join: rates start so that whole 10 s periods fill each measure window.
  const cloudwatchOn =
    cloudWatchRefusal({ live, enabled: input.cloudwatch !== false, cloudwatch: clients?.cloudwatch }) ===
    null;

  const abort = freezeAbort(deps.signal, live && deps.handleSignals !== false, log);
  const signal = abort.signal;
  let freeze: Freeze | null = null;
  let restoreReport: RestoreReport | null = null;
  const rungs: GoodputRung[] = [];
  let ladderError: unknown = null;
  const adapters = live
    ? (deps.freezeAdapters ?? awsFreezeAdapters(clients as GoodputClients, input.endpoint, input.variant))
    : null;

  try {
    // The same freeze as qmax (journal, suspension, one instance); only shard 0 of a split freezes.
    if (adapters && shard.index === 0) {
      freeze = await freezeEndpoint({
        endpoint: input.endpoint,
        variant: input.variant,
        region: input.region,
        adapters,
        stateDir: input.stateDir,
        commandLine: input.commandLine ?? `scalegate goodput --model ${input.modelName}`,
        runId,
        force: input.force,
        onJournal: deps.onJournal,
        waitTimeoutS: input.freezeTimeoutS,
        pollIntervalMs: input.pollIntervalMs,
        signal,
        log,
      });
    } else if (adapters) {
      await awaitFrozen(
        adapters,
        input.endpoint,
        input.variant,
        resolved.startAtMs ?? now() + (input.freezeTimeoutS ?? 1200) * 1000,
        signal,
        log,
      );
    }
    const observeCapacity = async (): Promise<number[]> => {
      if (!live || !clients) return [1];
      try {
        const c = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant, {
          abortSignal: signal,
        });
        return c.current === null ? [] : [c.current];
      } catch (e) {
        if (signal.aborted) throw e;
        log(`capacity check failed: ${(e as Error).message}`);
        return [];
      }
    };

    const plan = new RatePlan(resolved);
    for (let rate = plan.next(), i = 0; rate !== null; rate = plan.next(), i++) {
      if (signal.aborted) throw signal.reason;
      // Shards: rung i starts on a fixed grid from --start-at; otherwise as soon as the last drained.
      const startWall =
        resolved.startAtMs !== null
          ? resolved.startAtMs + i * (resolved.holdS + resolved.rungGapS) * 1000
          : cloudwatchOn && resolved.holdS - resolved.settleS >= METRIC_LEVEL_PERIOD_S
            ? alignedRungStart(now() + 50, resolved.settleS)
            : now() + 50;
      // A grid start already past (the previous rung drained late) keeps the grid: the engine sends
      // the missed arrivals at once and their send lag records it, so shards stay aligned.
      const startAt = loadClock.now() + (startWall - now());
      log(
        `rung ${i + 1}: ${rate}/s Poisson for ${resolved.holdS} s (settle ${resolved.settleS} s), seed ${resolved.seed + i}${resolved.shard ? `, shard ${shard.index}/${shard.count}` : ''}`,
      );
      const before = await observeCapacity();
      const rungRun = runOpenRung({
        rate,
        seed: resolved.seed + i,
        holdS: resolved.holdS,
        settleS: resolved.settleS,
        sloMs: resolved.sloMs,
        transport,
        bodies,
        requestTimeoutMs: resolved.requestTimeoutS * 1000,
        maxOutstanding: resolved.maxOutstanding,
        startAt,
        startAtWall: new Date(startWall).toISOString(),
        windowMs: resolved.windowMs,
        shard,
        signal,
        ...(deps.loadClock ? { clock: deps.loadClock } : {}),
      });
      const measured = await rungRun;
      const after = await observeCapacity();
      const judged = judgeRung(
        measured.histograms,
        rate,
        {
          sloMs: resolved.sloMs,
          holdS: resolved.holdS,
          settleS: resolved.settleS,
          limits: resolved.limits,
          minSamples: resolved.minSamples,
        },
        `rung ${i + 1}`,
      );
      const pending = shard.count > 1;
      const rung = goodputRung(
        {
          rate,
          startedAt: new Date(startWall).toISOString(),
          histograms: measured.histograms,
          peakOutstanding: measured.peakOutstanding,
          loopUtilization: measured.loopUtilization,
          instanceCounts: [...new Set([...before, ...after])].sort((a, b) => a - b),
        },
        judged,
        resolved,
        pending,
      );
      rungs.push(rung);
      plan.record(rate, judged.verdict, judged.reason);
      const p95 = rung.ttfab_p95_ms === null ? '-' : `${rung.ttfab_p95_ms.toFixed(0)} ms`;
      const ci = rung.ttfab_p95_ci_ms
        ? ` [${rung.ttfab_p95_ci_ms.low.toFixed(0)}, ${rung.ttfab_p95_ci_ms.high.toFixed(0)}]`
        : '';
      log(
        `rung ${i + 1}: ${rate}/s ${rung.verdict}: p95 TTFAB ${p95}${ci} from the intended send, sent ${rung.sent_rps.toFixed(2)}/s, goodput ${rung.goodput_rps.toFixed(2)}/s, ` +
          `overflow ${(rung.overflow_fraction * 100).toFixed(2)} %, errors ${(rung.error_fraction * 100).toFixed(2)} %, send lag p99 ${rung.send_lag_p99_ms ?? '-'} ms, L ${rung.mean_in_system}`,
      );
    }
  } catch (e) {
    ladderError = e;
  } finally {
    await transport.close();
    if (freeze) {
      restoreReport = await freeze.restore();
      for (const action of restoreReport.actions) log(`restore: ${action}`);
      for (const error of restoreReport.errors) log(`restore FAILED: ${error}`);
    }
  }

  try {
    if (ladderError !== null || signal.aborted) {
      if (abort.received) {
        const interrupted = new InterruptedError(abort.received);
        interrupted.restore =
          restoreReport ?? (ladderError as { restore?: RestoreReport } | null)?.restore ?? null;
        throw interrupted;
      }
      throw ladderError ?? new Error('aborted');
    }
    if (rungs.length === 0) throw new Error('the ladder measured no rung');
    // After the restore (it needs no freeze, only time stamps): each rate's metric level.
    const cloudwatch = await joinGoodputCloudWatch(rungs, {
      live,
      enabled: input.cloudwatch !== false,
      cloudwatch: clients?.cloudwatch,
      endpoint: input.endpoint,
      variant: input.variant,
      waitS: input.cloudwatchWaitS ?? GOODPUT_CLOUDWATCH_WAIT_S,
      signal,
      log,
    });
    if (cloudwatch.error) log(`cloudwatch: ${cloudwatch.error}`);
    const decided = shard.count === 1;
    const summary = decided ? summarizeGoodput(rungs.map(rateResultOf)) : null;
    const artifact = assembleGoodputArtifact({
      modelName: input.modelName,
      endpoint: input.endpoint,
      variant: input.variant,
      settings: resolved,
      runId,
      measuredAt,
      fingerprint,
      rungs,
      conclusion: summary,
      live,
      restore: restoreReport ? { actions: restoreReport.actions, errors: restoreReport.errors } : null,
      target: live ? input.endpoint : (resolved.targetUrl as string),
      tool: `scalegate ${version}`,
      shards: [shard],
      cloudwatch,
    });
    const defaultName = goodputFileName(input.modelName, resolved.transport, fingerprint);
    const file =
      input.outFile ??
      join(
        input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
        shard.count > 1
          ? defaultName.replace(/\.json$/, `.shard-${shard.index}-of-${shard.count}.json`)
          : defaultName,
      );
    writeArtifact('goodput', file, artifact);
    const restoreFailed = restoreReport !== null && restoreReport.errors.length > 0;
    return {
      artifact,
      report: renderGoodputReport(artifact, file, restoreReport),
      exitCode: restoreFailed ? 1 : 0,
      written: [file],
    };
  } finally {
    abort.dispose();
  }
}
