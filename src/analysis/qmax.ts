/**
 * The pure half of qmax: what a rung's measurement means (its step record, and why it is usable
 * or not: capacity changed, client-bound, saturated, unsettled), the service time and its basis,
 * the bracket of Q_max, the CloudWatch join of one rung, the dry-run schedule and the artifact.
 * No I/O: src/commands/qmax.ts drives the ladder and the calls, this judges what they saw.
 */

import {
  type AudioFormat,
  type AudioSummary,
  isSageMakerTransport,
  type Outcome,
  type QmaxArtifact,
  type QmaxStep,
  type RestoreRecord,
  type Transport,
} from '../model/artifacts.js';
import type { Fingerprint } from '../model/fingerprint.js';
import type { ClientHealth } from '../stats/client-health.js';
import { alignDown, alignUp, joinServerConcurrency, periodsWithin } from '../stats/ladder-stats.js';
import { mean, quantileSorted, sortedAscending } from '../stats/quantiles.js';
import { CALIBRATION, DECISION_METHOD, type RungDecision } from '../stats/rung-decision.js';
import { clientHealthRecord } from './client-health.js';
import { combinedVerdict, continuityRecord } from './continuity.js';

/** CloudWatch period of ConcurrentRequestsPerModel the join reads (and adaptive windows align to), s. */
export const CW_PERIOD_S = 10;

type LadderMode = QmaxArtifact['ladder']['mode'];

/** The settings of one qmax run, once every option is resolved and checked. */
export interface QmaxSettings {
  transport: Transport;
  sloMs: number;
  ladder: { mode: LadderMode; rungs: readonly number[]; maxConcurrency: number; resolution: number };
  holdS: number;
  measureS: number;
  settleS: number;
  runs: number;
  requestTimeoutS: number;
  /** Join CloudWatch per rung (response-stream only). */
  cloudwatch: boolean;
  minSamples: number;
  prompts: { source: string; texts: readonly string[] };
  /** The container's invocations URL with --target, else null. */
  targetUrl: string | null;
  /** The continuity SLO (p95 of stall time), ms; null or absent: first audio only. */
  underrunSloMs?: number | null;
  /** The client buffer the stall is computed with, ms. @default 0 */
  clientBufferMs?: number;
}

// ---- one rung --------------------------------------------------------------------------------

/** What one rung measured (src/load/closed/rung.ts), with its clock stamps in wall-clock milliseconds. */
export interface RungObservation {
  concurrency: number;
  startedWallMs: number;
  /** From the rung's start to its end, and the judged window, ms. */
  holdMs: number;
  measureMs: number;
  windowStartWallMs: number;
  windowEndWallMs: number;
  end: QmaxStep['end_reason'];
  /** The look the rung ended on (src/stats/rung-decision.ts). */
  evaluation: RungDecision;
  /** Looks taken (the last one is `evaluation`). */
  looks: number;
  /** The p95 interval of the successful requests only, same method and level as `evaluation`. */
  okP95Interval: { low: number; high: number } | null;
  okTtfabMs: readonly number[];
  okLatencyMs: readonly number[];
  outcomeCounts: Partial<Record<Outcome, number>>;
  completed: number;
  ok: number;
  rejected: number;
  failed: number;
  censored: number;
  achievedRps: number;
  inFlight: { mean: number; peak: number; shortfall: number };
  loopDelayP99Ms: number | null;
  loopUtilization: number | null;
  /** The client over the rung (src/stats/client-health.ts); absent: not sampled. */
  clientHealth?: ClientHealth | null;
  /** Playback continuity and audio throughput of the window; absent or null: none accounted. */
  audio?: AudioSummary | null;
  audioFormat?: AudioFormat | null;
  /** The continuity judge's look (src/stats/rung-decision.ts on stall samples); null: not judged. */
  continuity?: RungDecision | null;
}

/** A step as recorded and the measurement it came from (the service time needs its latencies). */
export interface StepRecord {
  step: QmaxStep;
  observation: RungObservation;
}

const round3 = (v: number): number => Math.round(v * 1000) / 1000;
const orNull = (v: number | null | undefined): number | null =>
  v === null || v === undefined || !Number.isFinite(v) ? null : v;

/**
 * A client whose event loop ran later than this share of the SLO (p99 of its timer delay) stamps
 * audio too late to judge the SLO: a starved client (a shared machine) could turn a pass into a
 * fail. Lateness below it moves a p95 by less than a quarter of the SLO.
 */
export const LATE_CLIENT_SLO_SHARE = 0.25;
/**
 * Before a client-bound rung is measured again, the client's event loop must be late by at most
 * this share of the SLO (p99 over one window): half the late limit, so the second measurement
 * does not start on a client still at its edge.
 */
export const CALM_CLIENT_SLO_SHARE = LATE_CLIENT_SLO_SHARE / 2;

/** The client's event loop was late by more than LATE_CLIENT_SLO_SHARE of the SLO (p99). */
export const isLateClient = (loopDelayP99Ms: number | null | undefined, sloMs: number | null): boolean =>
  sloMs !== null &&
  loopDelayP99Ms !== null &&
  loopDelayP99Ms !== undefined &&
  loopDelayP99Ms > sloMs * LATE_CLIENT_SLO_SHARE;

/**
 * The client limited the load or could not time it: it could not keep N outstanding (rejections
 * return at once, so a saturated rung's shortfall is the server's doing), its event loop was busy
 * nearly all the time, or (given the SLO) its event loop ran late against the SLO (starved).
 */
export function isClientBound(
  o: Pick<RungObservation, 'inFlight' | 'rejected' | 'loopUtilization'> & { loopDelayP99Ms?: number | null },
  sloMs: number | null = null,
): boolean {
  const saturated = o.rejected > 0;
  return (
    (o.inFlight.shortfall > 0.02 && !saturated) ||
    (o.loopUtilization !== null && o.loopUtilization > 0.9) ||
    isLateClient(o.loopDelayP99Ms, sloMs)
  );
}

/**
 * The frozen endpoint changed size during the rung. Unknown (every DescribeEndpoint failed) is not
 * a change; two counts, or one that is not 1, is. A container measured directly never changes.
 */
export function capacityChanged(instanceCounts: readonly number[], liveEndpoint: boolean): boolean {
  return (
    liveEndpoint && (instanceCounts.length > 1 || (instanceCounts.length === 1 && instanceCounts[0] !== 1))
  );
}

/** Why a rung cannot be used for Q_max, in order of precedence; null when it is usable. */
export function unusableReason(
  o: RungObservation,
  instanceCounts: readonly number[],
  liveEndpoint: boolean,
  sloMs: number | null = null,
): string | null {
  if (capacityChanged(instanceCounts, liveEndpoint))
    return `capacity changed (instance counts seen: ${instanceCounts.join(', ')})`;
  if (isClientBound(o, sloMs)) {
    const u = o.loopUtilization;
    const late = isLateClient(o.loopDelayP99Ms, sloMs)
      ? ` > ${LATE_CLIENT_SLO_SHARE * 100} % of the SLO: a starved client stamps audio late`
      : '';
    return (
      `client-bound (in-flight shortfall ${(o.inFlight.shortfall * 100).toFixed(1)} %, client event loop ` +
      `${u === null ? '?' : (u * 100).toFixed(0)} % busy, delay p99 ${o.loopDelayP99Ms?.toFixed(1) ?? '?'} ms${late})`
    );
  }
  if (o.rejected > 0) return `saturated (${o.rejected} requests rejected)`;
  if (!o.evaluation.drift.settled) return `not settled (${o.evaluation.drift.reason})`;
  if (o.ok === 0) return 'no successful request in the window';
  return null;
}

/** The artifact's record of one rung. */
export function qmaxStep(
  o: RungObservation,
  runIndex: number,
  stepIndex: number,
  sloMs: number,
  instanceCounts: number[],
  liveEndpoint: boolean,
): QmaxStep {
  const okSorted = sortedAscending(o.okTtfabMs);
  const latSorted = sortedAscending(o.okLatencyMs);
  const ev = o.evaluation;
  // The interval of the p95 of successful requests, matching ttfab_p95_ms; the verdict's own
  // interval (misses included) is in verdict_reason.
  const unusable = unusableReason(o, instanceCounts, liveEndpoint, sloMs);
  return {
    run_index: runIndex,
    step_index: stepIndex,
    concurrency: o.concurrency,
    started_at: new Date(o.startedWallMs).toISOString(),
    hold_s: round3(o.holdMs / 1000),
    measure_s: round3(o.measureMs / 1000),
    achieved_rps: o.achievedRps,
    completed: o.completed,
    ok: o.ok,
    rejected: o.rejected,
    outcome_counts: o.outcomeCounts,
    ttfab_p50_ms: quantileSorted(okSorted, 0.5),
    ttfab_p95_ms: quantileSorted(okSorted, 0.95),
    ttfab_p95_ci_ms: o.okP95Interval,
    ttfab_p99_ms: quantileSorted(okSorted, 0.99),
    latency_p95_ms: quantileSorted(latSorted, 0.95),
    s_mean_s: latSorted.length > 0 ? (mean(latSorted) as number) / 1000 : null,
    s_p95_s: latSorted.length > 0 ? (quantileSorted(latSorted, 0.95) as number) / 1000 : null,
    concurrency_mean: o.inFlight.mean,
    concurrency_peak: o.inFlight.peak,
    ttfab_drift_ms: orNull(ev.drift.driftMs),
    verdict: combinedVerdict(ev.verdict, o.continuity?.verdict),
    meets_slo: ev.p95 !== null && ev.p95 <= sloMs,
    saturated: o.rejected > 0,
    settled: ev.drift.settled,
    client_bound: isClientBound(o, sloMs),
    capacity_changed: capacityChanged(instanceCounts, liveEndpoint),
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
      (o.failed + o.censored > 0
        ? ` (${o.failed} failed outright, ${o.censored} still without audio past the SLO at the window end)`
        : '') +
      `; ${ev.drift.reason}` +
      (o.continuity ? `; continuity: ${o.continuity.reason}` : ''),
    end_reason: o.end,
    in_flight_shortfall: o.inFlight.shortfall,
    client_loop_delay_p99_ms: o.loopDelayP99Ms,
    client_event_loop_utilization: o.loopUtilization,
    cw_periods: null,
    decision_method: ev.method,
    ci_level: ev.level,
    ci_family_level: ev.familyLevel,
    effective_sample_size: ev.batches,
    batch_size: round3(ev.batchSize),
    looks: o.looks,
    verdict_samples: ev.n,
    client_health: o.clientHealth ? clientHealthRecord(o.clientHealth) : null,
    near_slo: ev.nearSlo,
    ci_tails: ev.tails,
    dependence: {
      initial_batches: ev.dependence.initialBatches,
      lengthened: ev.dependence.lengthened,
      von_neumann: ev.dependence.vonNeumann === null ? null : round3(ev.dependence.vonNeumann),
      von_neumann_critical:
        ev.dependence.vonNeumannCritical === null ? null : round3(ev.dependence.vonNeumannCritical),
      half_batch_se_ratio:
        ev.dependence.halfBatchSeRatio === null ? null : round3(ev.dependence.halfBatchSeRatio),
      independent: ev.dependence.independent,
    },
    audio: o.audio ?? null,
    continuity_verdict: o.continuity?.verdict ?? null,
    first_audio_verdict: ev.verdict,
  };
}

/**
 * What a PASS promises (src/stats/rung-decision.ts `CALIBRATION`): the simulated bound, recorded
 * for the adaptive ladder it was calibrated for; null for a fixed ladder (not calibrated).
 */
export function falsePassBoundRecord(mode: 'adaptive' | 'fixed'): QmaxArtifact['false_pass_bound'] {
  if (mode !== 'adaptive') return null;
  return {
    bound: CALIBRATION.falsePassBound,
    worst_cell: CALIBRATION.worstCellFalsePass,
    coverage: CALIBRATION.coverage,
    worst_cell_coverage: CALIBRATION.worstCellCoverage,
    decision_method: DECISION_METHOD,
    calibrated_over: CALIBRATION.class,
  };
}

/** What the ladder planner is told about a step (src/load/closed/ladder.ts `RungResult`). */
export const rungResultOf = (step: QmaxStep) => ({
  concurrency: step.concurrency,
  verdict: step.verdict,
  usable: step.usable,
  invalid: step.client_bound || step.capacity_changed,
  p95Ms: step.ttfab_p95_ms,
  nearSlo: step.near_slo === true || step.end_reason === 'near_slo',
  heldUndecided:
    step.verdict === 'undecided' &&
    step.end_reason === 'hold' &&
    step.usable &&
    narrowInterval(step.ttfab_p95_ci_ms) &&
    (step.effective_sample_size ?? 0) > 0 &&
    step.dependence?.independent !== false,
});

/** Within +-10 % of its middle: an undecided rung with a wider interval is not at the boundary. */
const narrowInterval = (ci: { low: number; high: number } | null): boolean =>
  ci !== null && Number.isFinite(ci.high) && ci.high - ci.low <= 0.2 * ((ci.high + ci.low) / 2);

// ---- the whole ladder ------------------------------------------------------------------------

/** The lowest measured failure above Q_max in any run (the bracket), or null. */
export function qmaxUpperBound(steps: readonly QmaxStep[], qMax: number): number | null {
  let upper: number | null = null;
  for (const r of steps.map(rungResultOf)) {
    if (
      r.verdict === 'fail' &&
      !r.invalid &&
      r.concurrency > qMax &&
      (upper === null || r.concurrency < upper)
    ) {
      upper = r.concurrency;
    }
  }
  return upper;
}

/**
 * The steps the service time is measured on: the usable ones with latencies (all runs pooled),
 * else every step with latencies; of those, the lowest concurrency.
 */
export function serviceTimeBasis(records: readonly StepRecord[]): StepRecord[] {
  const withLatencies = records.filter((s) => s.observation.okLatencyMs.length > 0);
  const usable = withLatencies.filter((s) => s.step.usable);
  const basis = usable.length > 0 ? usable : withLatencies;
  if (basis.length === 0) return [];
  const lowest = Math.min(...basis.map((s) => s.step.concurrency));
  return basis.filter((s) => s.step.concurrency === lowest);
}

/**
 * What S_mean/S_p95 were measured on, for the artifact: a usable rung at concurrency 1 is the
 * uncontended service time; anything else is flagged (`fallback`), with why concurrency 1 was not
 * used. null when no rung had latencies.
 */
export function serviceTimeBasisRecord(records: readonly StepRecord[]): QmaxArtifact['service_time_basis'] {
  const basis = serviceTimeBasis(records);
  const first = basis[0];
  if (!first) return null;
  const concurrency = first.step.concurrency;
  const usable = first.step.usable;
  if (concurrency === 1 && usable) return { concurrency, usable, fallback: false, reason: null };
  const atOne = records.filter((r) => r.step.concurrency === 1);
  const reason =
    atOne.length === 0
      ? 'the ladder has no rung at concurrency 1'
      : atOne.some((r) => r.observation.okLatencyMs.length > 0)
        ? `concurrency 1 was unusable: ${[...new Set(atOne.map((r) => r.step.unusable_reason ?? 'unusable'))].join('; ')}`
        : 'no request at concurrency 1 completed';
  return { concurrency, usable, fallback: true, reason };
}

/** S_mean and S_p95 (seconds): whole-response latency on the service-time basis; 0 without one. */
export function serviceTime(records: readonly StepRecord[]): { sMeanS: number; sP95S: number } {
  const basis = serviceTimeBasis(records);
  if (basis.length === 0) return { sMeanS: 0, sP95S: 0 };
  const latencies = sortedAscending(basis.flatMap((s) => s.observation.okLatencyMs));
  return {
    sMeanS: (mean(latencies) as number) / 1000,
    sP95S: (quantileSorted(latencies, 0.95) as number) / 1000,
  };
}

export function ladderRecord(s: QmaxSettings): QmaxArtifact['ladder'] {
  const adaptive = s.ladder.mode === 'adaptive';
  return {
    mode: s.ladder.mode,
    rungs: adaptive ? null : [...s.ladder.rungs],
    max_concurrency: s.ladder.maxConcurrency,
    resolution: adaptive ? s.ladder.resolution : null,
    hold_s: s.holdS,
    measure_s: s.measureS,
    settle_s: s.settleS,
    runs: s.runs,
  };
}

export interface QmaxRecord {
  modelName: string;
  endpoint: string;
  variant: string;
  settings: QmaxSettings;
  runId: string;
  measuredAt: string;
  fingerprint: Fingerprint;
  steps: StepRecord[];
  /** Q_max of each run (src/load/closed/ladder.ts `summarizeLadder`). */
  perRun: number[];
  /** Non-monotone notes of each run, in run order. */
  nonMonotonePerRun: string[][];
  cloudwatch: { joined: boolean; error: string | null };
  live: boolean;
  /** The deployed container environment (MAX_QUEUE_DEPTH bounds the queue); empty over http. */
  deployedEnv: Record<string, string>;
  restore: RestoreRecord | null;
  /** How the search ended (src/load/closed/ladder.ts `searchRecord`). */
  search: QmaxArtifact['search'];
  target: string;
  tool: string;
}

export function assembleQmaxArtifact(input: QmaxRecord): QmaxArtifact {
  const { steps, perRun, settings } = input;
  if (steps.length === 0) throw new Error('the ladder measured no rung');
  const allSteps = steps.map((s) => s.step);
  const qMax = Math.min(...perRun);
  // Bracket of the reported Q_max (the lowest run's): a measured failure above it in any run.
  const upper = qmaxUpperBound(allSteps, qMax);
  const nonMonotone = input.nonMonotonePerRun.flatMap((notes, run) =>
    notes.map((note) => (settings.runs > 1 ? `run ${run + 1}: ${note}` : note)),
  );
  const { sMeanS, sP95S } = serviceTime(steps);
  const atQmax = allSteps.find((s) => s.concurrency === qMax && s.verdict === 'pass' && s.usable);
  const atC1 =
    allSteps.find((s) => s.concurrency === 1 && s.usable) ?? allSteps.find((s) => s.concurrency === 1);
  const counts = [...new Set(allSteps.flatMap((s) => s.instance_counts))].sort((a, b) => a - b);
  const saw503 = allSteps.some((s) => (s.outcome_counts.saturated_503 ?? 0) > 0);
  const queueDepth = Number(input.deployedEnv.MAX_QUEUE_DEPTH);
  const maxMeasured = Math.max(...allSteps.map((s) => s.concurrency));
  const boundedByEnv = Number.isFinite(queueDepth) && queueDepth > 0 && queueDepth < maxMeasured;
  const notes = [
    `${settings.ladder.mode} ladder over ${settings.transport}`,
    input.live
      ? `endpoint ${input.endpoint}/${input.variant} frozen at one instance`
      : `target ${input.target}`,
    `prompts: ${settings.prompts.source} (${settings.prompts.texts.length})`,
  ];
  return {
    schema_version: 1,
    kind: 'qmax',
    model_name: input.modelName,
    endpoint: input.live ? input.endpoint : null,
    run_id: input.runId,
    measured_at: input.measuredAt,
    fingerprint: input.fingerprint,
    transport: settings.transport,
    slo_ms: settings.sloMs,
    q_max: qMax,
    q_max_per_run: perRun,
    q_max_bracketed: upper !== null,
    q_max_upper_bound: upper,
    ttfab_p95_at_q_max_ms: atQmax?.ttfab_p95_ms ?? null,
    ttfab_p95_at_c1_ms: atC1?.ttfab_p95_ms ?? null,
    s_mean_s: sMeanS,
    s_p95_s: sP95S,
    frozen: input.live,
    unbounded_queue: !saw503 && !boundedByEnv,
    instance_counts_observed: counts,
    non_monotone: nonMonotone,
    ladder: ladderRecord(settings),
    total_rung_seconds: round3(allSteps.reduce((sum, s) => sum + (s.hold_s ?? 0), 0)),
    cloudwatch: input.cloudwatch,
    steps: allSteps,
    provenance: { origin: 'measured', tool: input.tool, note: notes.join('; ') },
    target: input.target,
    prompts: { source: settings.prompts.source, count: settings.prompts.texts.length },
    request_timeout_s: settings.requestTimeoutS,
    restore: input.restore ? { actions: input.restore.actions, errors: input.restore.errors } : null,
    search: input.search,
    service_time_basis: serviceTimeBasisRecord(steps),
    false_pass_bound: falsePassBoundRecord(settings.ladder.mode),
    continuity: continuityRecord(settings, steps, upper),
  };
}

// ---- the CloudWatch join of one rung ---------------------------------------------------------

/** What the join asks CloudWatch for, per rung. */
export const CLOUDWATCH_QUERIES = [
  { id: 'cmax', metricName: 'ConcurrentRequestsPerModel', stat: 'Maximum', periodS: CW_PERIOD_S },
  { id: 'cavg', metricName: 'ConcurrentRequestsPerModel', stat: 'Average', periodS: CW_PERIOD_S },
  { id: 'lat', metricName: 'ModelLatency', stat: 'p95', periodS: 60 },
  { id: 'e5xx', metricName: 'Invocation5XXErrors', stat: 'Sum', periodS: 60 },
] as const;

/** The time range the join queries for a window: the 60 s periods overlapping it. */
export const cloudWatchRange = (o: Pick<RungObservation, 'windowStartWallMs' | 'windowEndWallMs'>) => ({
  startMs: alignDown(o.windowStartWallMs, 60),
  endMs: alignUp(o.windowEndWallMs, 60),
});

/** Whole CloudWatch periods inside the measure window (fewer than one: nothing to join). */
export function wholeCloudWatchPeriods(
  o: Pick<RungObservation, 'windowStartWallMs' | 'windowEndWallMs'>,
): number {
  return Math.floor(
    (alignDown(o.windowEndWallMs, CW_PERIOD_S) - alignUp(o.windowStartWallMs, CW_PERIOD_S)) /
      (CW_PERIOD_S * 1000),
  );
}

export interface MetricSeries {
  id: string;
  timestamps: number[];
  values: number[];
}

/**
 * Fills one step's server-side fields from the series CloudWatch returned: ConcurrentRequestsPerModel
 * Maximum and Average over the whole 10 s periods inside the window (R = Maximum / client mean
 * in-flight), ModelLatency p95 and Invocation5XXErrors over the 60 s periods overlapping it.
 * Returns the problem when the window has no datapoint yet (the step is left unjoined).
 */
export function joinStepWithCloudWatch(
  step: QmaxStep,
  o: RungObservation,
  series: readonly MetricSeries[],
): string | null {
  const startWall = o.windowStartWallMs;
  const endWall = o.windowEndWallMs;
  const byId = new Map(series.map((s) => [s.id, s]));
  const cmax = byId.get('cmax');
  const cavg = byId.get('cavg');
  const maxima = cmax ? periodsWithin(cmax.timestamps, cmax.values, CW_PERIOD_S, startWall, endWall) : [];
  const averages = cavg ? periodsWithin(cavg.timestamps, cavg.values, CW_PERIOD_S, startWall, endWall) : [];
  if (maxima.length === 0)
    return `c=${step.concurrency}: no ConcurrentRequestsPerModel datapoint inside the window`;
  const join = joinServerConcurrency(maxima, averages, step.concurrency_mean);
  step.server_concurrency_peak = join.serverPeak;
  step.server_concurrency_mean = join.serverMean;
  step.cw_ratio = join.ratio;
  step.cw_periods = join.periods;
  const overlapping = (s: MetricSeries | undefined) =>
    s
      ? s.values.filter(
          (_, k) => (s.timestamps[k] as number) + 60_000 > startWall && (s.timestamps[k] as number) < endWall,
        )
      : [];
  const latencies = overlapping(byId.get('lat'));
  step.server_model_latency_p95_ms = latencies.length > 0 ? Math.max(...latencies) / 1000 : null;
  const errors = overlapping(byId.get('e5xx'));
  step.server_5xx_total = errors.length > 0 ? errors.reduce((a, b) => a + b, 0) : null;
  return null;
}

// ---- the dry run -----------------------------------------------------------------------------

export interface QmaxSchedule {
  kind: 'qmax-schedule';
  model_name: string;
  endpoint: string | null;
  target: string | null;
  transport: Transport;
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

/**
 * The schedule of a dry run: the longest rung sequence the planner could walk (`worst`, from
 * src/load/closed/ladder.ts `worstCaseRungs`), its duration, instance-minutes and cost.
 */
export function qmaxSchedule(
  run: { modelName: string; endpoint: string; instanceHourlyUsd: number | null },
  s: QmaxSettings,
  worst: { rungs: number; example: number[] },
): QmaxSchedule {
  const perRung =
    s.ladder.mode === 'adaptive' && s.cloudwatch ? Math.max(s.holdS, s.settleS + 2 * CW_PERIOD_S) : s.holdS;
  const rungSeconds = worst.rungs * perRung * s.runs;
  const live = isSageMakerTransport(s.transport);
  const instanceMinutes = live ? rungSeconds / 60 : 0;
  const hourly = run.instanceHourlyUsd;
  const notes: string[] = [];
  if (s.ladder.mode === 'adaptive') {
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
    model_name: run.modelName,
    endpoint: live ? run.endpoint : null,
    target: s.targetUrl,
    transport: s.transport,
    slo_ms: s.sloMs,
    ladder: ladderRecord(s),
    rungs: worst.example,
    worst_case_rungs: worst.rungs * s.runs,
    worst_case_rung_seconds: rungSeconds,
    worst_case_duration_s: rungSeconds,
    instance_minutes: instanceMinutes,
    instance_hourly_usd: hourly,
    estimated_cost_usd: live && hourly !== null ? (instanceMinutes / 60) * hourly : null,
    notes,
  };
}
