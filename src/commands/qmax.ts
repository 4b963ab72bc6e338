/**
 * `scalegate qmax`: the highest concurrency one instance holds with p95 TTFAB inside the SLO,
 * measured with a closed-loop ladder (adaptive by default, fixed for the reference method), with
 * confidence intervals, usability, the CloudWatch join (R), and the freeze of a live endpoint.
 * Orchestration only: the engine is src/load, statistics src/stats, AWS calls src/aws.
 */
import { dirname, join, resolve } from 'node:path';
import type { AwsClients } from '../aws/clients.js';
import { describeVariantCapacity } from '../aws/endpoint.js';
import { readDeployedFingerprint } from '../aws/fingerprint.js';
import { getVariantMetricData } from '../aws/metrics.js';
import { ClosedLoopEngine, wallOf } from '../load/engine.js';
import { createEventsWriter, type EventContext, type EventsWriter } from '../load/events.js';
import { createHttpTransport, invocationsUrl } from '../load/http-transport.js';
import {
  DEFAULT_FIXED_RUNGS,
  type LadderMode,
  LadderPlanner,
  type LadderSettings,
  type RungResult,
  searchRecord,
  summarizeLadder,
  worstCaseRungs,
} from '../load/ladder.js';
import { type ProgressSink, silentProgress } from '../load/progress.js';
import { defaultPromptSet, encodePrompts, loadPrompts, type PromptSet } from '../load/prompts.js';
import { createLoadRuntimeClient, createResponseStreamTransport } from '../load/response-stream-transport.js';
import { type RungMeasurement, runRung, validateRungTimes } from '../load/rung.js';
import { parseTransportKind } from '../load/transports.js';
import type { Transport, TransportKind } from '../load/types.js';
import type { QmaxArtifact, QmaxStep } from '../model/artifacts.js';
import type { ModelConfig } from '../model/config.js';
import { UsageError } from '../model/errors.js';
import { type Fingerprint, imageDigestOf, measuredEnvironment } from '../model/fingerprint.js';
import { newRunId } from '../model/ids.js';
import { writeArtifact } from '../model/io.js';
import { DEFAULT_ARTIFACTS_DIR, qmaxFileName } from '../model/names.js';
import { alignDown, alignUp, joinServerConcurrency, periodsWithin } from '../stats/ladder-stats.js';
import { mean, quantileSorted, sortedAscending } from '../stats/quantiles.js';
import { VERSION } from '../version.js';
import {
  awsFreezeAdapters,
  type Freeze,
  type FreezeAdapters,
  freezeEndpoint,
  InterruptedError,
  installSignalGuard,
  type RestoreReport,
  type SignalGuard,
} from './freeze.js';
import type { CommandResult } from './result.js';

export const CW_PERIOD_S = 10;

export const LADDER_DEFAULTS = {
  fixed: { holdS: 240, measureS: 60, settleS: 30 },
  adaptive: { holdS: 120, measureS: 30, settleS: 10, maxConcurrency: 128, resolution: 2 },
} as const;

export interface QmaxOptions {
  modelName: string;
  model: ModelConfig;
  /** The config file the model came from (container_dir is relative to it). */
  configFile: string;
  endpoint: string;
  variant: string;
  region: string;
  /** `http://HOST:PORT`: measure a container directly (http transport, no AWS). */
  target?: string;
  /** `response-stream` | `http` (default: http with --target, else response-stream). */
  transport?: string;
  sloMs?: number;
  ladder?: LadderMode;
  rungs?: number[];
  maxConcurrency?: number;
  resolution?: number;
  holdS?: number;
  measureS?: number;
  settleS?: number;
  runs?: number;
  promptsFile?: string;
  eventsFile?: string;
  cloudwatch?: boolean;
  /** Longest wait for CloudWatch datapoints after the ladder (default 180 s; metrics arrive late on AWS). */
  cloudwatchWaitS?: number;
  dryRun?: boolean;
  /** Artifact path (default `<outDir>/qmax-<model>-<transport>-<slug>.json`). */
  out?: string;
  /** Directory of the default artifact name (default `artifacts`). */
  outDir?: string;
  /** Client timeout per request (default: the model's invocation ceiling). */
  requestTimeoutS?: number;
  /** A rung is never decisive with fewer samples (default 100). */
  minSamples?: number;
  /** Longest wait for the frozen endpoint to have one InService instance (default 1200 s). */
  freezeTimeoutS?: number;
  /** DescribeEndpoint polling while freezing (default 2000 ms). */
  pollIntervalMs?: number;
  stateDir?: string;
  /** The command line, for the thaw journal. */
  commandLine?: string;
}

export interface QmaxDeps {
  /** Needed unless the transport is http or it is a dry run. */
  clients?: Pick<AwsClients, 'sagemaker' | 'autoscaling' | 'cloudwatch' | 'region'> & {
    runtime?: AwsClients['runtime'];
  };
  /** Overrides the freeze adapters (tests); default: the AWS ones over `clients`. */
  freezeAdapters?: FreezeAdapters;
  /** The content hash of a container directory (src/local/asset-hash.ts) for http fingerprints. */
  containerAssetHash?: (dir: string) => string | Promise<string>;
  progress?: ProgressSink;
  /** External abort (tests); SIGINT/SIGTERM abort too while the endpoint is frozen. */
  signal?: AbortSignal;
  /** Install SIGINT/SIGTERM handlers for the duration of the freeze (default true). */
  handleSignals?: boolean;
  /** Endpoint/credentials of the load's own runtime client (default: the SDK environment, AWS_ENDPOINT_URL). */
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Transport factory override (tests, benchmarks). */
  createTransport?: (kind: TransportKind, maxConcurrency: number) => Transport;
}

export interface ResolvedQmax {
  transport: TransportKind;
  sloMs: number;
  ladder: LadderSettings;
  holdS: number;
  measureS: number;
  settleS: number;
  runs: number;
  requestTimeoutS: number;
  cloudwatch: boolean;
  minSamples: number;
  prompts: PromptSet;
  targetUrl: string | null;
}

const isPositiveInt = (n: number): boolean => Number.isInteger(n) && n > 0;

/** Every flag checked before anything is measured: a mistake costs nothing. */
export function resolveQmax(options: QmaxOptions): ResolvedQmax {
  const transport = options.transport
    ? parseTransportKind(options.transport)
    : options.target
      ? 'http'
      : 'response-stream';
  if (transport === 'http' && !options.target) {
    throw new UsageError('--transport http needs --target http://HOST:PORT (the container to measure).');
  }
  if (transport === 'response-stream' && options.target) {
    throw new UsageError(
      '--target measures a container directly over http; drop --transport response-stream, or drop --target to measure the endpoint.',
    );
  }
  const targetUrl = options.target ? invocationsUrl(options.target).toString() : null;
  const mode: LadderMode = options.ladder ?? 'adaptive';
  if (mode !== 'adaptive' && mode !== 'fixed') {
    throw new UsageError(`--ladder ${String(mode)}: use adaptive or fixed.`);
  }
  const sloMs = options.sloMs ?? options.model.slo_ms;
  if (!(sloMs > 0)) throw new UsageError('--slo-ms must be positive.');
  if (mode === 'adaptive' && options.rungs) {
    throw new UsageError(
      '--rungs lists the rungs of --ladder fixed; the adaptive ladder chooses its own (bound it with --max-concurrency).',
    );
  }
  if (mode === 'fixed' && options.resolution !== undefined) {
    throw new UsageError(
      '--resolution applies to --ladder adaptive; a fixed ladder measures exactly --rungs.',
    );
  }
  const rungs = mode === 'fixed' ? [...(options.rungs ?? DEFAULT_FIXED_RUNGS)] : [];
  for (const r of rungs) {
    if (!isPositiveInt(r)) throw new UsageError(`--rungs: ${r} is not a positive integer concurrency.`);
  }
  if (new Set(rungs).size !== rungs.length) throw new UsageError('--rungs: each concurrency at most once.');
  const defaults = mode === 'fixed' ? LADDER_DEFAULTS.fixed : LADDER_DEFAULTS.adaptive;
  const maxConcurrency =
    options.maxConcurrency ??
    (mode === 'fixed' ? Math.max(...rungs) : LADDER_DEFAULTS.adaptive.maxConcurrency);
  if (!isPositiveInt(maxConcurrency)) throw new UsageError('--max-concurrency must be a positive integer.');
  if (mode === 'fixed' && !rungs.some((r) => r <= maxConcurrency)) {
    throw new UsageError(
      `--max-concurrency ${maxConcurrency} is below every rung of --rungs ${rungs.join(',')}.`,
    );
  }
  const resolution = options.resolution ?? LADDER_DEFAULTS.adaptive.resolution;
  if (!isPositiveInt(resolution)) throw new UsageError('--resolution must be a positive integer.');
  const holdS = options.holdS ?? defaults.holdS;
  const measureS = options.measureS ?? defaults.measureS;
  const settleS = options.settleS ?? defaults.settleS;
  if (!(holdS > 0)) throw new UsageError('--hold-s must be positive.');
  if (!(settleS >= 0)) throw new UsageError('--settle-s must be >= 0.');
  const problem = validateRungTimes({ mode, holdS, measureS, settleS });
  if (problem) throw new UsageError(`${problem}.`);
  const runs = options.runs ?? 1;
  if (!isPositiveInt(runs)) throw new UsageError('--runs must be a positive integer.');
  const requestTimeoutS = options.requestTimeoutS ?? options.model.invocation_ceiling_s;
  if (!(requestTimeoutS > 0)) throw new UsageError('--request-timeout-s must be positive.');
  const minSamples = options.minSamples ?? 100;
  if (!isPositiveInt(minSamples) || minSamples < 72) {
    throw new UsageError('--min-samples must be an integer >= 72 (a 95 % interval of p95 needs 72 samples).');
  }
  const prompts = options.promptsFile ? loadPrompts(options.promptsFile) : defaultPromptSet();
  return {
    transport,
    sloMs,
    ladder: { mode, rungs, maxConcurrency, resolution, growth: 2 },
    holdS,
    measureS,
    settleS,
    runs,
    requestTimeoutS,
    cloudwatch: transport === 'response-stream' && options.cloudwatch !== false,
    minSamples,
    prompts,
    targetUrl,
  };
}

export interface QmaxSchedule {
  kind: 'qmax-schedule';
  model_name: string;
  endpoint: string | null;
  target: string | null;
  transport: TransportKind;
  slo_ms: number;
  ladder: QmaxArtifact['ladder'];
  /** fixed: the rungs; adaptive: the longest sequence the planner could walk. */
  rungs: number[];
  worst_case_rungs: number;
  worst_case_rung_seconds: number;
  worst_case_duration_s: number;
  instance_minutes: number;
  instance_hourly_usd: number | null;
  estimated_cost_usd: number | null;
  notes: string[];
}

export function qmaxSchedule(options: QmaxOptions, resolved: ResolvedQmax): QmaxSchedule {
  const worst = worstCaseRungs(resolved.ladder);
  const perRung =
    resolved.ladder.mode === 'adaptive' && resolved.cloudwatch
      ? Math.max(resolved.holdS, resolved.settleS + 2 * CW_PERIOD_S)
      : resolved.holdS;
  const rungSeconds = worst.rungs * perRung * resolved.runs;
  const live = resolved.transport === 'response-stream';
  const instanceMinutes = live ? rungSeconds / 60 : 0;
  const hourly = options.model.instance_hourly_usd ?? null;
  const notes: string[] = [];
  if (resolved.ladder.mode === 'adaptive') {
    notes.push(
      'adaptive: concurrency 1, then x2 until a rung fails (at most --max-concurrency), then bisection to --resolution; ' +
        'a rung ends as soon as its window is settled and decisive, so most runs take a fraction of the worst case',
    );
  }
  if (live) {
    notes.push(
      'not counted: waiting for the frozen endpoint to reach one InService instance, and the CloudWatch join',
    );
  } else {
    notes.push('http transport: the container is measured directly; no endpoint instance is billed');
  }
  if (live && hourly === null) notes.push('no instance_hourly_usd in the model config: no cost estimate');
  return {
    kind: 'qmax-schedule',
    model_name: options.modelName,
    endpoint: live ? options.endpoint : null,
    target: resolved.targetUrl,
    transport: resolved.transport,
    slo_ms: resolved.sloMs,
    ladder: ladderRecord(resolved),
    rungs: worst.example,
    worst_case_rungs: worst.rungs * resolved.runs,
    worst_case_rung_seconds: rungSeconds,
    worst_case_duration_s: rungSeconds,
    instance_minutes: instanceMinutes,
    instance_hourly_usd: hourly,
    estimated_cost_usd: live && hourly !== null ? (instanceMinutes / 60) * hourly : null,
    notes,
  };
}

function ladderRecord(resolved: ResolvedQmax): QmaxArtifact['ladder'] {
  const adaptive = resolved.ladder.mode === 'adaptive';
  return {
    mode: resolved.ladder.mode,
    rungs: adaptive ? null : [...resolved.ladder.rungs],
    max_concurrency: resolved.ladder.maxConcurrency,
    resolution: adaptive ? resolved.ladder.resolution : null,
    hold_s: resolved.holdS,
    measure_s: resolved.measureS,
    settle_s: resolved.settleS,
    runs: resolved.runs,
  };
}

function scheduleReport(s: QmaxSchedule): string {
  const lines = [
    `qmax dry run: ${s.model_name} (${s.transport}${s.endpoint ? `, endpoint ${s.endpoint}` : ''}${s.target ? `, target ${s.target}` : ''}), SLO p95 TTFAB ${s.slo_ms} ms`,
    `ladder: ${s.ladder.mode}${s.ladder.mode === 'fixed' ? ` rungs ${s.rungs.join(', ')}` : `, max concurrency ${s.ladder.max_concurrency}, resolution ${s.ladder.resolution}`}; ` +
      `hold ${s.ladder.hold_s} s, measure ${s.ladder.measure_s} s, settle ${s.ladder.settle_s} s; ${s.ladder.runs} run(s)`,
  ];
  if (s.ladder.mode === 'adaptive') lines.push(`longest possible rung sequence: ${s.rungs.join(', ')}`);
  lines.push(
    `worst case: ${s.worst_case_rungs} rungs, ${s.worst_case_duration_s.toFixed(0)} s (${(s.worst_case_duration_s / 60).toFixed(1)} min)`,
    `instance-minutes: ${s.instance_minutes.toFixed(1)}`,
    `estimated cost: ${s.estimated_cost_usd === null ? 'n/a' : `$${s.estimated_cost_usd.toFixed(2)} at $${s.instance_hourly_usd}/instance-hour`}`,
  );
  for (const note of s.notes) lines.push(`note: ${note}`);
  lines.push('no AWS call was made.');
  return lines.join('\n');
}

/** Fingerprint of a container measured directly: from the model config, region `local`. */
export async function configFingerprint(
  model: ModelConfig,
  configFile: string,
  assetHash: ((dir: string) => string | Promise<string>) | undefined,
): Promise<Fingerprint> {
  let digest: string;
  if (model.container_dir) {
    if (!assetHash) throw new Error('no container asset hash function to fingerprint container_dir');
    digest = await assetHash(resolve(dirname(resolve(configFile)), model.container_dir));
  } else {
    digest = imageDigestOf(model.image_uri as string);
  }
  return {
    instance_type: model.instance_type,
    image_digest: digest,
    container_env: measuredEnvironment(model.container_env),
    region: 'local',
  };
}

interface StepRecord {
  step: QmaxStep;
  measurement: RungMeasurement;
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;
const orNull = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v;

function buildStep(
  m: RungMeasurement,
  runIndex: number,
  stepIndex: number,
  sloMs: number,
  instanceCounts: number[],
  liveEndpoint: boolean,
): QmaxStep {
  const okSorted = sortedAscending(m.okTtfabMs);
  const latSorted = sortedAscending(m.okLatencyMs);
  const ev = m.evaluation;
  // The interval of the p95 of successful requests, matching ttfab_p95_ms; the verdict's own
  // interval (misses included) is in verdict_reason.
  const okCi = m.okP95Interval;
  const rejected = m.rejected;
  const saturated = rejected > 0;
  const loopDelay = m.loopDelayP99Ms;
  const utilization = m.loopUtilization;
  const shortfall = m.inFlight.shortfall;
  // The client limits the load when it cannot keep N outstanding (rejections return at once, so a
  // saturated rung's shortfall is the server's doing) or its event loop is busy nearly all the time.
  const clientBound = (shortfall > 0.02 && !saturated) || (utilization !== null && utilization > 0.9);
  // Unknown (every DescribeEndpoint failed) is not a change; two counts, or one that is not 1, is.
  const capacityChanged =
    liveEndpoint && (instanceCounts.length > 1 || (instanceCounts.length === 1 && instanceCounts[0] !== 1));
  const settled = ev.drift.settled;
  let unusable: string | null = null;
  if (capacityChanged) unusable = `capacity changed (instance counts seen: ${instanceCounts.join(', ')})`;
  else if (clientBound) {
    unusable =
      `client-bound (in-flight shortfall ${(shortfall * 100).toFixed(1)} %, client event loop ` +
      `${utilization === null ? '?' : (utilization * 100).toFixed(0)} % busy, delay p99 ${loopDelay?.toFixed(1) ?? '?'} ms)`;
  } else if (saturated) unusable = `saturated (${rejected} requests rejected)`;
  else if (!settled) unusable = `not settled (${ev.drift.reason})`;
  else if (m.ok === 0) unusable = 'no successful request in the window';
  const p95All = ev.p95;
  return {
    run_index: runIndex,
    step_index: stepIndex,
    concurrency: m.concurrency,
    started_at: new Date(wallOf(m.startedAt)).toISOString(),
    hold_s: round3((m.endedAt - m.startedAt) / 1000),
    measure_s: round3((m.windowEnd - m.windowStart) / 1000),
    achieved_rps: m.achievedRps,
    completed: m.completed,
    ok: m.ok,
    rejected,
    outcome_counts: m.outcomeCounts,
    ttfab_p50_ms: quantileSorted(okSorted, 0.5),
    ttfab_p95_ms: quantileSorted(okSorted, 0.95),
    ttfab_p95_ci_ms: okCi,
    ttfab_p99_ms: quantileSorted(okSorted, 0.99),
    latency_p95_ms: quantileSorted(latSorted, 0.95),
    s_mean_s: latSorted.length > 0 ? (mean(latSorted) as number) / 1000 : null,
    s_p95_s: latSorted.length > 0 ? (quantileSorted(latSorted, 0.95) as number) / 1000 : null,
    concurrency_mean: m.inFlight.mean,
    concurrency_peak: m.inFlight.peak,
    ttfab_drift_ms: orNull(ev.drift.driftMs),
    verdict: ev.verdict,
    meets_slo: p95All !== null && p95All <= sloMs,
    saturated,
    settled,
    client_bound: clientBound,
    capacity_changed: capacityChanged,
    usable: unusable === null,
    unusable_reason: unusable,
    instance_counts: instanceCounts,
    server_concurrency_mean: null,
    server_concurrency_peak: null,
    server_model_latency_p95_ms: null,
    server_5xx_total: null,
    cw_ratio: null,
    verdict_reason:
      `${ev.reason}` +
      (m.failed + m.censored > 0
        ? ` (${m.failed} failed outright, ${m.censored} still without audio past the SLO at the window end)`
        : '') +
      `; ${ev.drift.reason}`,
    end_reason: m.end,
    in_flight_shortfall: shortfall,
    client_loop_delay_p99_ms: loopDelay,
    client_event_loop_utilization: utilization,
    cw_periods: null,
    decision_method: ev.method,
    ci_level: ev.level,
    ci_family_level: ev.familyLevel,
    effective_sample_size: ev.batches,
    batch_size: round3(ev.batchSize),
    looks: m.looks,
    verdict_samples: ev.n,
  };
}

const rungResultOf = (step: QmaxStep): RungResult => ({
  concurrency: step.concurrency,
  verdict: step.verdict,
  usable: step.usable,
  invalid: step.client_bound || step.capacity_changed,
});

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolveSleep) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolveSleep();
    }
    if (signal?.aborted) done();
    else signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Joins each rung's measure window with CloudWatch: ConcurrentRequestsPerModel Maximum and Average
 * over the whole 10 s periods inside the window (R = Maximum / client mean in-flight), ModelLatency
 * p95 and Invocation5XXErrors over the 60 s periods overlapping it. Waits (up to `waitS`) for late
 * datapoints. Never throws: a failed join is reported in the returned error.
 */
async function joinCloudWatch(
  steps: StepRecord[],
  clients: NonNullable<QmaxDeps['clients']>,
  endpoint: string,
  variant: string,
  waitS: number,
  signal: AbortSignal | undefined,
  log: (line: string) => void,
): Promise<{ joined: boolean; error: string | null }> {
  const deadline = Date.now() + waitS * 1000;
  const pending = new Set(steps.map((_, i) => i));
  const problems = new Map<number, string>();
  let lastError: string | null = null;
  let announced = false;
  for (;;) {
    for (const i of [...pending]) {
      const { step, measurement: m } = steps[i] as StepRecord;
      const startWall = wallOf(m.windowStart);
      const endWall = wallOf(m.windowEnd);
      const wholePeriods = Math.floor(
        (alignDown(endWall, CW_PERIOD_S) - alignUp(startWall, CW_PERIOD_S)) / (CW_PERIOD_S * 1000),
      );
      if (wholePeriods < 1) {
        pending.delete(i);
        problems.set(
          i,
          `c=${step.concurrency}: measure window shorter than one whole ${CW_PERIOD_S} s period`,
        );
        continue;
      }
      try {
        const series = await getVariantMetricData(
          clients.cloudwatch,
          endpoint,
          variant,
          [
            { id: 'cmax', metricName: 'ConcurrentRequestsPerModel', stat: 'Maximum', periodS: CW_PERIOD_S },
            { id: 'cavg', metricName: 'ConcurrentRequestsPerModel', stat: 'Average', periodS: CW_PERIOD_S },
            { id: 'lat', metricName: 'ModelLatency', stat: 'p95', periodS: 60 },
            { id: 'e5xx', metricName: 'Invocation5XXErrors', stat: 'Sum', periodS: 60 },
          ],
          alignDown(startWall, 60),
          alignUp(endWall, 60),
          signal ? { abortSignal: signal } : {},
        );
        const byId = new Map(series.map((s) => [s.id, s]));
        const cmax = byId.get('cmax');
        const cavg = byId.get('cavg');
        const maxima = cmax
          ? periodsWithin(cmax.timestamps, cmax.values, CW_PERIOD_S, startWall, endWall)
          : [];
        const averages = cavg
          ? periodsWithin(cavg.timestamps, cavg.values, CW_PERIOD_S, startWall, endWall)
          : [];
        if (maxima.length === 0) {
          problems.set(i, `c=${step.concurrency}: no ConcurrentRequestsPerModel datapoint inside the window`);
          continue;
        }
        const join = joinServerConcurrency(maxima, averages, step.concurrency_mean);
        step.server_concurrency_peak = join.serverPeak;
        step.server_concurrency_mean = join.serverMean;
        step.cw_ratio = join.ratio;
        step.cw_periods = join.periods;
        const lat = byId.get('lat');
        const overlapping = (s: { timestamps: number[]; values: number[] } | undefined) =>
          s
            ? s.values.filter(
                (_, k) =>
                  (s.timestamps[k] as number) + 60_000 > startWall && (s.timestamps[k] as number) < endWall,
              )
            : [];
        const latencies = overlapping(lat);
        step.server_model_latency_p95_ms = latencies.length > 0 ? Math.max(...latencies) / 1000 : null;
        const errors = overlapping(byId.get('e5xx'));
        step.server_5xx_total = errors.length > 0 ? errors.reduce((a, b) => a + b, 0) : null;
        problems.delete(i);
        pending.delete(i);
      } catch (e) {
        lastError = (e as Error).message;
        problems.set(i, `c=${step.concurrency}: ${(e as Error).name}: ${lastError}`);
      }
    }
    if (pending.size === 0 || Date.now() >= deadline || signal?.aborted) break;
    if (!announced) {
      log(`cloudwatch: waiting up to ${waitS} s for datapoints of ${pending.size} rung(s)`);
      announced = true;
    }
    await sleep(Math.min(15_000, Math.max(0, deadline - Date.now())), signal);
  }
  const joinedAny = steps.some((s) => s.step.cw_ratio !== null);
  const messages = [...problems.values()];
  if (signal?.aborted && pending.size > 0) messages.unshift('interrupted before every rung was joined');
  return { joined: joinedAny, error: messages.length > 0 ? messages.join('; ') : null };
}

function fmtMs(v: number | null): string {
  return v === null ? '-' : `${v.toFixed(1)}`;
}

function report(artifact: QmaxArtifact, file: string | null, restore: RestoreReport | null): string {
  const lines: string[] = [];
  lines.push(
    `qmax ${artifact.model_name} (${artifact.transport}${artifact.endpoint ? `, endpoint ${artifact.endpoint}` : ''}${artifact.target && artifact.transport === 'http' ? `, target ${artifact.target}` : ''}), ` +
      `SLO p95 TTFAB ${artifact.slo_ms} ms, ladder ${artifact.ladder.mode}, run ${artifact.run_id}`,
  );
  lines.push('');
  lines.push(
    'run rung  conc  verdict    p95 ms   95% CI ms            p50 ms  req/s   in-flight  R      usable',
  );
  for (const s of artifact.steps) {
    const ci = s.ttfab_p95_ci_ms
      ? `[${fmtMs(s.ttfab_p95_ci_ms.low)}, ${fmtMs(s.ttfab_p95_ci_ms.high)}]`
      : '-';
    lines.push(
      `${String(s.run_index + 1).padStart(3)} ${String(s.step_index + 1).padStart(4)}  ${String(s.concurrency).padStart(4)}  ` +
        `${s.verdict.padEnd(9)}  ${fmtMs(s.ttfab_p95_ms).padStart(7)}  ${ci.padEnd(19)}  ${fmtMs(s.ttfab_p50_ms).padStart(6)}  ` +
        `${s.achieved_rps.toFixed(2).padStart(6)}  ${s.concurrency_mean.toFixed(2).padStart(9)}  ${s.cw_ratio === null ? '-    ' : s.cw_ratio.toFixed(2).padEnd(5)}  ` +
        `${s.usable ? 'yes' : `no: ${s.unusable_reason}`}`,
    );
  }
  lines.push('');
  const bracket = artifact.q_max_bracketed
    ? `bracketed by ${artifact.q_max_upper_bound} (measured above the SLO)`
    : 'NOT bracketed: no higher rung was measured above the SLO (Q_max is a lower bound)';
  lines.push(`Q_max = ${artifact.q_max}, ${bracket}`);
  if (artifact.ladder.runs > 1)
    lines.push(`Q_max per run: ${artifact.q_max_per_run.join(', ')} (Q_max is the lowest)`);
  lines.push(
    `S_mean ${(artifact.s_mean_s * 1000).toFixed(1)} ms, S_p95 ${(artifact.s_p95_s * 1000).toFixed(1)} ms; ` +
      `TTFAB p95 at c=1 ${fmtMs(artifact.ttfab_p95_at_c1_ms)} ms, at Q_max ${fmtMs(artifact.ttfab_p95_at_q_max_ms)} ms`,
  );
  lines.push(`rung-seconds: ${artifact.total_rung_seconds?.toFixed(1) ?? '-'}`);
  for (const note of artifact.non_monotone) lines.push(`non-monotone: ${note}`);
  if (artifact.transport === 'response-stream') {
    lines.push(
      artifact.cloudwatch.joined
        ? `CloudWatch joined${artifact.cloudwatch.error ? ` (partly: ${artifact.cloudwatch.error})` : ''}`
        : `CloudWatch not joined: ${artifact.cloudwatch.error ?? 'unknown reason'}`,
    );
  }
  if (restore) {
    lines.push(`restore: ${restore.actions.join('; ') || 'nothing to do'}`);
    for (const e of restore.errors) lines.push(`restore FAILED: ${e}`);
    if (!restore.journalDeleted)
      lines.push('the thaw journal was kept: run `scalegate thaw` to finish restoring');
  }
  lines.push(
    `fingerprint: ${artifact.fingerprint.instance_type}, image ${artifact.fingerprint.image_digest.slice(0, 12)}, region ${artifact.fingerprint.region}`,
  );
  if (file) lines.push(`artifact: ${file}`);
  return lines.join('\n');
}

export async function runQmax(
  options: QmaxOptions,
  deps: QmaxDeps = {},
): Promise<CommandResult<QmaxArtifact | QmaxSchedule>> {
  const resolved = resolveQmax(options);
  if (options.dryRun) {
    const schedule = qmaxSchedule(options, resolved);
    return { artifact: schedule, report: scheduleReport(schedule), exitCode: 0, written: [] };
  }
  const progress = deps.progress ?? silentProgress;
  const log = (line: string) => progress({ type: 'log', line });
  const live = resolved.transport === 'response-stream';
  const clients = deps.clients;
  if (live && !clients) throw new Error('qmax over response-stream needs AWS clients');
  const runId = newRunId();
  const measuredAt = new Date().toISOString();

  // Fingerprint first (read-only): a measurement is only worth anything if we know what of.
  let fingerprint: Fingerprint;
  let deployedEnv: Record<string, string> = {};
  if (live) {
    const deployed = await readDeployedFingerprint(
      (clients as NonNullable<QmaxDeps['clients']>).sagemaker,
      options.endpoint,
      options.variant,
      (clients as NonNullable<QmaxDeps['clients']>).region,
    );
    fingerprint = deployed.fingerprint;
    deployedEnv = deployed.deployed.environment;
    log(
      `fingerprint: ${fingerprint.instance_type}, image ${fingerprint.image_digest.slice(0, 12)}, region ${fingerprint.region}`,
    );
  } else {
    fingerprint = await configFingerprint(options.model, options.configFile, deps.containerAssetHash);
  }

  const maxConcurrency = resolved.ladder.maxConcurrency;
  const transport = deps.createTransport
    ? deps.createTransport(resolved.transport, maxConcurrency)
    : live
      ? createResponseStreamTransport({
          runtime: createLoadRuntimeClient({ region: options.region, maxConcurrency, ...deps.loadClient }),
          endpoint: options.endpoint,
          variant: options.variant,
          ownsClient: true,
        })
      : createHttpTransport({ url: resolved.targetUrl as string, maxConcurrency });

  const events: EventsWriter | null = options.eventsFile ? createEventsWriter(options.eventsFile) : null;
  const epochContext = new Map<number, EventContext>();
  const engine = new ClosedLoopEngine({
    transport,
    bodies: encodePrompts(resolved.prompts),
    requestTimeoutMs: resolved.requestTimeoutS * 1000,
    onRecord: events ? (record) => events.write(record, epochContext.get(record.epoch) ?? null) : undefined,
  });

  const controller = new AbortController();
  const external = deps.signal;
  const onExternal = () => controller.abort(external?.reason ?? new Error('aborted'));
  if (external?.aborted) onExternal();
  else external?.addEventListener('abort', onExternal, { once: true });

  let guard: SignalGuard | null = null;
  let freeze: Freeze | null = null;
  let restoreReport: RestoreReport | null = null;
  const steps: StepRecord[] = [];
  const perRun: number[] = [];
  let ladderError: unknown = null;

  const adapters = live
    ? (deps.freezeAdapters ??
      awsFreezeAdapters(clients as NonNullable<QmaxDeps['clients']>, options.endpoint, options.variant))
    : null;

  try {
    if (live && adapters) {
      if (deps.handleSignals !== false) guard = installSignalGuard(controller, log);
      freeze = await freezeEndpoint({
        endpoint: options.endpoint,
        variant: options.variant,
        region: options.region,
        adapters,
        stateDir: options.stateDir,
        command: options.commandLine ?? `scalegate qmax --model ${options.modelName}`,
        runId,
        waitTimeoutS: options.freezeTimeoutS,
        pollIntervalMs: options.pollIntervalMs,
        signal: controller.signal,
        log,
      });
    }
    const observeCapacity = async (): Promise<number | null> => {
      if (!live || !clients) return null;
      try {
        const capacity = await describeVariantCapacity(clients.sagemaker, options.endpoint, options.variant, {
          abortSignal: controller.signal,
        });
        return capacity.current;
      } catch (e) {
        if (controller.signal.aborted) throw e;
        log(`capacity check failed: ${(e as Error).message}`);
        return null;
      }
    };

    for (let run = 0; run < resolved.runs; run++) {
      const planner = new LadderPlanner(resolved.ladder);
      const runSteps: QmaxStep[] = [];
      for (let c = planner.next(); c !== null; c = planner.next()) {
        const stepIndex = runSteps.length;
        progress({ type: 'rung-start', runIndex: run, stepIndex, concurrency: c });
        const before = await observeCapacity();
        const epochWillBe = engine.epoch + 1;
        epochContext.set(epochWillBe, { run_index: run, step_index: stepIndex });
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
          },
          {
            signal: controller.signal,
            onTick: (tick) => progress({ type: 'rung-tick', runIndex: run, stepIndex, tick }),
          },
        );
        const after = await observeCapacity();
        const counts = [...new Set([before, after].filter((v): v is number => v !== null))].sort(
          (a, b) => a - b,
        );
        const step = buildStep(measurement, run, stepIndex, resolved.sloMs, live ? counts : [1], live);
        runSteps.push(step);
        steps.push({ step, measurement });
        planner.record(rungResultOf(step));
        progress({
          type: 'rung-end',
          summary: {
            runIndex: run,
            stepIndex,
            concurrency: c,
            verdict: step.verdict,
            p95Ms: step.ttfab_p95_ms,
            ci: step.ttfab_p95_ci_ms,
            achievedRps: step.achieved_rps,
            inFlightMean: step.concurrency_mean,
            seconds: step.hold_s ?? 0,
            usable: step.usable,
            reason: step.unusable_reason,
          },
        });
      }
      perRun.push(summarizeLadder(runSteps.map(rungResultOf)).qMax);
    }
  } catch (e) {
    ladderError = e;
  } finally {
    await engine.stop({ abort: true });
    await transport.close();
    if (freeze) {
      restoreReport = await freeze.restore();
      for (const action of restoreReport.actions) log(`restore: ${action}`);
      for (const error of restoreReport.errors) log(`restore FAILED: ${error}`);
    }
    await events?.close().catch((e) => log(`events file: ${(e as Error).message}`));
  }

  const interruptedBy = guard?.received ?? null;
  try {
    if (ladderError !== null || controller.signal.aborted) {
      if (interruptedBy) {
        const interrupted = new InterruptedError(interruptedBy);
        // Interrupted while freezing: freezeEndpoint restored before rethrowing and says how.
        interrupted.restore =
          restoreReport ?? (ladderError as { restore?: RestoreReport } | null)?.restore ?? null;
        throw interrupted;
      }
      throw ladderError ?? new Error('aborted');
    }

    // The join runs after the restore: it needs no freeze, only time stamps (and, on AWS, patience).
    let cloudwatch: { joined: boolean; error: string | null };
    if (!live)
      cloudwatch = {
        joined: false,
        error: 'http transport: a container measured directly has no CloudWatch metrics',
      };
    else if (!resolved.cloudwatch) cloudwatch = { joined: false, error: 'disabled with --no-cloudwatch' };
    else {
      try {
        cloudwatch = await joinCloudWatch(
          steps,
          clients as NonNullable<QmaxDeps['clients']>,
          options.endpoint,
          options.variant,
          options.cloudwatchWaitS ?? 180,
          controller.signal,
          log,
        );
      } catch (e) {
        cloudwatch = { joined: false, error: (e as Error).message };
      }
    }

    const artifact = assembleArtifact({
      options,
      resolved,
      runId,
      measuredAt,
      fingerprint,
      steps,
      perRun,
      cloudwatch,
      live,
      deployedEnv,
      restore: restoreReport,
      target: live ? options.endpoint : (resolved.targetUrl as string),
    });
    const file =
      options.out ??
      join(
        options.outDir ?? DEFAULT_ARTIFACTS_DIR,
        qmaxFileName(options.modelName, resolved.transport, fingerprint),
      );
    writeArtifact('qmax', file, artifact);
    const written = [file];
    if (options.eventsFile) written.push(options.eventsFile);
    const restoreFailed = restoreReport !== null && restoreReport.errors.length > 0;
    return {
      artifact,
      report: report(artifact, file, restoreReport),
      exitCode: restoreFailed ? 1 : 0,
      written,
    };
  } finally {
    guard?.remove();
    external?.removeEventListener('abort', onExternal);
  }
}

interface AssembleInput {
  options: QmaxOptions;
  resolved: ResolvedQmax;
  runId: string;
  measuredAt: string;
  fingerprint: Fingerprint;
  steps: StepRecord[];
  perRun: number[];
  cloudwatch: { joined: boolean; error: string | null };
  live: boolean;
  deployedEnv: Record<string, string>;
  restore: RestoreReport | null;
  target: string;
}

function assembleArtifact(input: AssembleInput): QmaxArtifact {
  const { steps, perRun, resolved } = input;
  if (steps.length === 0) throw new Error('the ladder measured no rung');
  const allSteps = steps.map((s) => s.step);
  const qMax = Math.min(...perRun);
  const results = allSteps.map(rungResultOf);
  // Bracket of the reported Q_max (the lowest run's): a measured failure above it in any run.
  let upper: number | null = null;
  for (const r of results) {
    if (
      r.verdict === 'fail' &&
      !r.invalid &&
      r.concurrency > qMax &&
      (upper === null || r.concurrency < upper)
    ) {
      upper = r.concurrency;
    }
  }
  const nonMonotone: string[] = [];
  for (let run = 0; run < resolved.runs; run++) {
    const runResults = allSteps.filter((s) => s.run_index === run).map(rungResultOf);
    for (const note of summarizeLadder(runResults).nonMonotone) {
      nonMonotone.push(resolved.runs > 1 ? `run ${run + 1}: ${note}` : note);
    }
  }

  // Service time: whole-response latency at the lowest usable rung (all runs pooled).
  const usable = steps.filter((s) => s.step.usable && s.measurement.okLatencyMs.length > 0);
  const basis = usable.length > 0 ? usable : steps.filter((s) => s.measurement.okLatencyMs.length > 0);
  let sMean = 0;
  let sP95 = 0;
  if (basis.length > 0) {
    const lowest = Math.min(...basis.map((s) => s.step.concurrency));
    const latencies = sortedAscending(
      basis.filter((s) => s.step.concurrency === lowest).flatMap((s) => s.measurement.okLatencyMs),
    );
    sMean = (mean(latencies) as number) / 1000;
    sP95 = (quantileSorted(latencies, 0.95) as number) / 1000;
  }
  const atQmax = allSteps.find((s) => s.concurrency === qMax && s.verdict === 'pass' && s.usable);
  const atC1 =
    allSteps.find((s) => s.concurrency === 1 && s.usable) ?? allSteps.find((s) => s.concurrency === 1);
  const counts = [...new Set(allSteps.flatMap((s) => s.instance_counts))].sort((a, b) => a - b);
  const saw503 = allSteps.some((s) => (s.outcome_counts.saturated_503 ?? 0) > 0);
  const queueDepth = Number(input.deployedEnv.MAX_QUEUE_DEPTH);
  const maxMeasured = Math.max(...allSteps.map((s) => s.concurrency));
  const boundedByEnv = Number.isFinite(queueDepth) && queueDepth > 0 && queueDepth < maxMeasured;
  const notes = [
    `${resolved.ladder.mode} ladder over ${input.resolved.transport}`,
    input.live
      ? `endpoint ${input.options.endpoint}/${input.options.variant} frozen at one instance`
      : `target ${input.target}`,
    `prompts: ${resolved.prompts.source} (${resolved.prompts.texts.length})`,
  ];
  return {
    schema_version: 1,
    kind: 'qmax',
    model_name: input.options.modelName,
    endpoint: input.live ? input.options.endpoint : null,
    run_id: input.runId,
    measured_at: input.measuredAt,
    fingerprint: input.fingerprint,
    transport: resolved.transport,
    slo_ms: resolved.sloMs,
    q_max: qMax,
    q_max_per_run: perRun,
    q_max_bracketed: upper !== null,
    q_max_upper_bound: upper,
    ttfab_p95_at_q_max_ms: atQmax?.ttfab_p95_ms ?? null,
    ttfab_p95_at_c1_ms: atC1?.ttfab_p95_ms ?? null,
    s_mean_s: sMean,
    s_p95_s: sP95,
    frozen: input.live,
    unbounded_queue: !saw503 && !boundedByEnv,
    instance_counts_observed: counts,
    non_monotone: nonMonotone,
    ladder: ladderRecord(resolved),
    total_rung_seconds: round3(allSteps.reduce((sum, s) => sum + (s.hold_s ?? 0), 0)),
    cloudwatch: input.cloudwatch,
    steps: allSteps,
    provenance: { origin: 'measured', tool: `scalegate ${VERSION}`, note: notes.join('; ') },
    target: input.target,
    prompts: { source: resolved.prompts.source, count: resolved.prompts.texts.length },
    request_timeout_s: resolved.requestTimeoutS,
    restore: input.restore ? { actions: input.restore.actions, errors: input.restore.errors } : null,
    search: searchRecord(results, qMax, resolved.ladder),
  };
}
