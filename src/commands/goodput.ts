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
import { judgedWithClientHealth } from '../analysis/client-health.js';
import {
  assembleGoodputArtifact,
  type GoodputSchedule,
  type GoodputSettings,
  goodputRung,
  goodputSchedule,
} from '../analysis/goodput.js';
import { judgeAudioRung, liveStop } from '../analysis/goodput-continuity.js';
import { alignedRungStart, METRIC_LEVEL_PERIOD_S } from '../analysis/goodput-metric.js';
import type { AwsClients } from '../aws/clients.js';
import { type Clock, realClock } from '../load/clock.js';
import { createEventsWriter, type EventsWriter, openLoopEventLine } from '../load/events.js';
import { GoodputLadder, summarizeGoodput, worstCaseRateRungs } from '../load/open/goodput-ladder.js';
import type { ScoutOutcome } from '../load/open/goodput-scout.js';
import type { OpenLoopRecord } from '../load/open/open-loop.js';
import { type RungLooks, runOpenRung } from '../load/open/open-rung.js';
import { isSageMakerTransport } from '../load/transport/transports.js';
import type { GoodputArtifact, GoodputRung } from '../model/artifacts.js';
import { newRunId } from '../model/ids.js';
import { writeArtifact } from '../model/io.js';
import { DEFAULT_ARTIFACTS_DIR, goodputFileName } from '../model/names.js';
import { FREEZE_DEFAULTS } from '../options/common.js';
import { renderGoodputReport, renderGoodputSchedule } from '../report/goodput-text.js';
import { judgeClientHealth } from '../stats/client-health.js';
import { lookSpans } from '../stats/open-loop-decision.js';
import { lookLagMs } from '../stats/open-loop-rung-sim.js';
import {
  awaitFrozen,
  frozenRun,
  type LoadCommandDeps,
  loadTransport,
  measuredFingerprint,
  restoreFailed,
  restoreRecordOf,
} from './frozen-run.js';
import { cloudWatchRefusal, GOODPUT_CLOUDWATCH_WAIT_S, joinGoodputCloudWatch } from './goodput-cloudwatch.js';
import { type GoodputInput, resolveGoodput } from './goodput-input.js';
import { runGoodputScout, scoutRecord } from './goodput-scout.js';
import { audioAccounting, prepareLoad, transportRequest } from './load-start.js';
import { icGoodputRecord } from './qmax-component.js';
import { type CommandResult, resolveDeps } from './result.js';

export { GOODPUT_DEFAULTS, type GoodputInput, resolveGoodput } from './goodput-input.js';

export interface GoodputDeps
  extends LoadCommandDeps<
    Pick<AwsClients, 'sagemaker' | 'autoscaling' | 'region'> & Partial<Pick<AwsClients, 'cloudwatch'>>
  > {
  /** The load's time source (a VirtualClock runs the ladder in simulated time). @default the real clock */
  loadClock?: Clock;
  /** Wall time now, ms (for --start-at). @default Date.now */
  now?: () => number;
}

/** The rates a run will measure: the fixed list, or the adaptive ladder's next one. */
class RatePlan {
  private index = 0;
  private readonly ladder: GoodputLadder | null;
  constructor(
    private readonly s: GoodputSettings,
    scouted: ScoutOutcome | null,
  ) {
    this.ladder =
      s.rates === null
        ? new GoodputLadder({
            startRate: scouted?.startRate ?? s.startRate,
            maxRate: s.maxRate,
            minRate: Math.min(s.minRate, scouted?.startRate ?? s.minRate),
            resolution: s.resolution,
            sloMs: s.sloMs,
            ...(scouted?.overRate != null ? { overRate: scouted.overRate } : {}),
          })
        : null;
  }
  next(): number | null {
    if (this.ladder) return this.ladder.next();
    return (this.s.rates as number[])[this.index] ?? null;
  }
  record(
    rate: number,
    verdict: 'pass' | 'fail' | 'undecided',
    reason: string,
    p95: number | null,
    headroom?: number,
  ): void {
    this.index++;
    this.ladder?.record({ rate, verdict, reason, p95, ...(headroom !== undefined ? { headroom } : {}) });
  }
}

/** What the ladder summary is told about a recorded rung (`pending` never reaches it). */
export const rateResultOf = (g: GoodputRung) => ({
  rate: g.rate_rps,
  verdict: g.verdict === 'pass' || g.verdict === 'fail' ? g.verdict : ('undecided' as const),
  reason: g.reason,
});

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
  const { log, progress, clock, version } = resolveDeps(deps);
  const live = isSageMakerTransport(resolved.transport);
  const clients = live ? deps.clients : undefined;
  // The per-rate CloudWatch join: rates start so that whole 10 s periods fill each measure window.
  const cloudwatchOn =
    cloudWatchRefusal({ live, enabled: input.cloudwatch !== false, cloudwatch: clients?.cloudwatch }) ===
    null;
  if (live && !clients) throw new Error('goodput over a SageMaker transport needs AWS clients');
  const runId = newRunId();
  const measuredAt = clock().toISOString();
  // Every shard: shard 0 freezes, the others load the endpoint it froze.
  const { fingerprint } = await measuredFingerprint(
    'goodput',
    input,
    clients ? { clients } : null,
    { assetHash: deps.assetHash },
    log,
    resolved.request.shape,
  );

  const transport = loadTransport(
    resolved.transport,
    {
      ...input,
      maxConcurrency: resolved.maxOutstanding,
      targetUrl: resolved.targetUrl,
      loadClient: deps.loadClient,
      request: transportRequest(resolved.request.shape),
    },
    deps.createTransport,
  );
  const vantage = await prepareLoad('goodput', transport, resolved.request, input, {
    timeoutMs: resolved.requestTimeoutS * 1000,
    signal: deps.signal,
    log,
    vantage: deps.vantage,
  });
  const bodies = resolved.request.bodies;
  const loadClock = deps.loadClock ?? realClock;
  const shard = resolved.shard ?? { index: 0, count: 1 };
  const rungs: GoodputRung[] = [];
  let scouted: ScoutOutcome | null = null;
  const events: EventsWriter | null = input.eventsFile ? createEventsWriter(input.eventsFile) : null;
  const shardLabel = resolved.shard ? `${shard.index}/${shard.count}` : null;

  // An inference component: its copies pinned at --copies (the freeze of qmax-component.ts).
  const ic = resolved.component;
  if (ic)
    log(
      `goodput: component ${ic.component} pinned at ${ic.copies} copies (per copy = lambda_max / ${ic.copies})`,
    );
  // The same freeze as qmax (journal, suspension, one instance); only shard 0 of a split freezes.
  return frozenRun(
    {
      ...input,
      clients: clients ?? null,
      adapters: deps.freezeAdapters,
      ...(ic ? { component: ic.component, pin: ic.copies } : {}),
      awaitFrozen:
        shard.index === 0
          ? undefined
          : (adapters, signal) =>
              awaitFrozen(
                adapters,
                input.endpoint,
                input.variant,
                resolved.startAtMs ?? now() + (input.freezeTimeoutS ?? FREEZE_DEFAULTS.timeoutS) * 1000,
                signal,
                log,
              ),
      commandLine: input.commandLine ?? `scalegate goodput --model ${input.modelName}`,
      runId,
      onJournal: deps.onJournal,
      waitTimeoutS: input.freezeTimeoutS,
      signal: deps.signal,
      handleSignals: deps.handleSignals,
      log,
    },
    {
      measure: async ({ signal, observeCapacity: observe, checkFreeze }) => {
        const observeCapacity = async (): Promise<number[]> => {
          if (!live) return [1];
          const current = await observe();
          return current === null ? [] : [current];
        };
        // Without --start-rate, a scout of short steps places the ladder's start (it decides nothing).
        scouted =
          resolved.mode === 'adaptive' && resolved.scout && shard.count === 1
            ? await runGoodputScout({
                resolved,
                transport,
                bodies,
                signal,
                progress,
                ...(deps.loadClock ? { loadClock: deps.loadClock } : {}),
              })
            : null;
        const plan = new RatePlan(resolved, scouted);
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
          progress({
            type: 'rate-start',
            index: i,
            rateRps: rate,
            holdS: resolved.holdS,
            settleS: resolved.settleS,
            seed: resolved.seed + i,
            shard: resolved.shard ? { index: shard.index, count: shard.count } : null,
          });
          const before = await observeCapacity();
          const judgeSettings = {
            sloMs: resolved.sloMs,
            holdS: resolved.holdS,
            settleS: resolved.settleS,
            limits: resolved.limits,
            minSamples: resolved.minSamples,
            underrunSloMs: resolved.underrunSloMs,
            clientBufferMs: resolved.clientBufferMs,
          };
          // Group-sequential: the adaptive ladder ends a rung at its first decisive look. A fixed
          // ladder (--rates, the one shards run) measures every rate for its whole hold, so a single
          // process and the merge of its shards measure the same windows.
          const looks: RungLooks | undefined =
            resolved.mode === 'adaptive' && shard.count === 1
              ? {
                  spansS: lookSpans(resolved.holdS - resolved.settleS),
                  lagMs: lookLagMs(resolved.sloMs, resolved.windowMs),
                  // Both SLOs decided, or either failed (src/analysis/goodput-continuity.ts).
                  stop: (windows, spanS, lookAtMs) =>
                    liveStop(windows, resolved.windowMs, rate, spanS, lookAtMs, judgeSettings),
                }
              : undefined;
          const rungRun = runOpenRung({
            ...(looks ? { looks } : {}),
            rate,
            seed: resolved.seed + i,
            holdS: resolved.holdS,
            settleS: resolved.settleS,
            sloMs: resolved.sloMs,
            transport,
            bodies,
            requestTimeoutMs: resolved.requestTimeoutS * 1000,
            maxOutstanding: resolved.maxOutstanding,
            ...audioAccounting(resolved, input.model),
            startAt,
            startAtWall: new Date(startWall).toISOString(),
            windowMs: resolved.windowMs,
            shard,
            signal,
            ...(deps.loadClock ? { clock: deps.loadClock } : {}),
            onHeartbeat: (beat) =>
              progress({
                type: 'load-heartbeat',
                label: `goodput rung ${i + 1} (${rate}/s)`,
                totalS: resolved.holdS,
                ...beat,
              }),
            ...(events
              ? {
                  onRecord: (r: OpenLoopRecord) =>
                    events.line(openLoopEventLine(r, { shard: shardLabel, rung_index: i, rate_rps: rate })),
                }
              : {}),
          });
          const measured = await rungRun;
          const after = await observeCapacity();
          // Another run or a person moved the endpoint during the rung: stop, nothing is written.
          await checkFreeze();
          const clientHealth = measured.clientHealth
            ? judgeClientHealth(measured.clientHealth, resolved.sloMs)
            : null;
          const judged = judgedWithClientHealth(
            judgeAudioRung(
              measured.histograms,
              rate,
              { ...judgeSettings, stoppedAtS: measured.stoppedAtS },
              `rung ${i + 1}`,
            ),
            // Shards are judged at merge, with every shard's client.
            shard.count > 1 ? null : clientHealth,
          );
          const pending = shard.count > 1;
          const rung = goodputRung(
            {
              rate,
              startedAt: new Date(startWall).toISOString(),
              histograms: measured.histograms,
              peakOutstanding: measured.peakOutstanding,
              loopUtilization: measured.loopUtilization,
              clientHealth,
              instanceCounts: [...new Set([...before, ...after])].sort((a, b) => a - b),
            },
            judged,
            resolved,
            pending,
          );
          rungs.push(rung);
          const high = judged.decision.interval?.high;
          plan.record(
            rate,
            judged.verdict,
            judged.reason,
            judged.decision.p95,
            judged.verdict === 'pass' && high !== undefined && high > 0 ? resolved.sloMs / high : undefined,
          );
          progress({
            type: 'rate-end',
            index: i,
            rateRps: rate,
            verdict: rung.verdict,
            p95Ms: rung.ttfab_p95_ms,
            ci: rung.ttfab_p95_ci_ms,
            sentRps: rung.sent_rps,
            goodputRps: rung.goodput_rps,
            overflowFraction: rung.overflow_fraction,
            errorFraction: rung.error_fraction,
            sendLagP99Ms: rung.send_lag_p99_ms,
            meanInSystem: rung.mean_in_system,
          });
        }
      },
      release: () => transport.close(),
      afterRestore: async () => {
        await events?.close().catch((e) => log(`events file: ${(e as Error).message}`));
      },
      finish: async (_, { restore }) => {
        if (rungs.length === 0) throw new Error('the ladder measured no rung');
        // After the restore (it needs no freeze, only time stamps): each rate's metric level.
        const cloudwatch = await joinGoodputCloudWatch(rungs, {
          live,
          enabled: input.cloudwatch !== false,
          cloudwatch: clients?.cloudwatch,
          endpoint: input.endpoint,
          variant: input.variant,
          waitS: input.cloudwatchWaitS ?? GOODPUT_CLOUDWATCH_WAIT_S,
          signal: deps.signal ?? new AbortController().signal,
          log,
        });
        if (cloudwatch.error) log(`cloudwatch: ${cloudwatch.error}`);
        const decided = shard.count === 1;
        const summary = decided ? summarizeGoodput(rungs.map(rateResultOf)) : null;
        const assembled = assembleGoodputArtifact({
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
          restore: restoreRecordOf(restore),
          target: live ? input.endpoint : (resolved.targetUrl as string),
          tool: `scalegate ${version}`,
          shards: [shard],
          cloudwatch,
        });
        const artifact: GoodputArtifact = {
          ...assembled,
          ...(scouted
            ? { scout: scoutRecord(scouted), ladder: { ...assembled.ladder, start_rps: scouted.startRate } }
            : {}),
          vantage,
          ...(ic ? { inference_component: icGoodputRecord(ic, assembled.lambda_max_rps) } : {}),
        };
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
        return {
          artifact,
          report: renderGoodputReport(artifact, file, restore),
          exitCode: restoreFailed(restore) ? 1 : 0,
          written: input.eventsFile ? [file, input.eventsFile] : [file],
        };
      },
    },
  );
}
