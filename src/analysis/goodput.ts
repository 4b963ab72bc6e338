/**
 * The pure half of goodput: a rung's record from what it measured and how it was judged, the
 * artifact, the dry-run schedule, and the checks `merge` makes before it adds shard files. No
 * I/O: src/commands/goodput.ts drives the ladder, src/load judges the windows.
 */

import type {
  AudioSummary,
  GoodputArtifact,
  GoodputRung,
  OpenLoopHistograms,
  OpenLoopOutcome,
  Transport,
} from '../model/index.js';
import {
  type Fingerprint,
  fingerprintDifferences,
  fingerprintSlug,
  isSageMakerTransport,
  UsageError,
} from '../model/index.js';
import type { ClientHealth } from '../stats/client-health.js';
import { FALSE_PASS_BOUND, FALSE_PASS_BOUND_CLASS, FIRST_LOOK_S } from '../stats/open-loop-decision.js';
import { checkHold } from '../stats/validated-holds.js';
import { clientHealthRecord } from './client-health.js';
import { goodputContinuityRecord } from './continuity.js';

/** The settings of one goodput run, once every option is resolved and checked. */
export interface GoodputSettings {
  transport: Transport;
  sloMs: number;
  /** The continuity SLO (p95 of per-stream stall time, ms); null or absent: first audio only. */
  underrunSloMs?: number | null;
  clientBufferMs?: number;
  mode: 'adaptive' | 'fixed';
  /** A fixed ladder's rates (shards run one). */
  rates: number[] | null;
  startRate: number;
  /** Adaptive without --start-rate: a scout places the start (src/load/open/goodput-scout.ts). */
  scout: boolean;
  maxRate: number;
  minRate: number;
  resolution: number;
  holdS: number;
  settleS: number;
  seed: number;
  windowMs: number;
  maxOutstanding: number;
  limits: { maxOverflowFraction: number; maxErrorFraction: number };
  requestTimeoutS: number;
  minSamples: number;
  prompts: { source: string; texts: readonly string[] };
  targetUrl: string | null;
  shard: { index: number; count: number } | null;
  /** Wall time (ms) of the first rung's schedule start, shared by shards; null: as soon as ready. */
  startAtMs: number | null;
  /** Pause between the end of one rung's schedule and the next one's start (shards: a fixed grid). */
  rungGapS: number;
}

/** How a rung was judged (src/load/goodput-judge.ts `JudgedRung` extends it). */
export interface RungJudgement {
  verdict: 'pass' | 'fail' | 'undecided';
  reason: string;
  /** With a continuity SLO: first audio alone (`verdict` combines both SLOs). */
  firstAudioVerdict?: 'pass' | 'fail' | 'undecided';
  /** The continuity decision's verdict; null: no underrun SLO or no multi-chunk stream. */
  continuity?: { verdict: 'pass' | 'fail' | 'undecided' } | null;
  /** Playback continuity and audio throughput of the judged windows (null: no accounted audio). */
  audio?: AudioSummary | null;
  decision: {
    method: string;
    interval: { low: number; high: number } | null;
    level: number;
    batches: number;
    batchSize: number;
    minBatchSize: number;
    meanInSystem: number;
    /** The group-sequential record (absent: a decision without looks). */
    misses?: number;
    correlationWindows?: number;
    fluctuation?: number;
    vonNeumann?: number | null;
    sensitivity?: number | null;
    stoppedAtS?: number;
    looks?: Array<{
      span_s: number;
      n: number;
      alpha_pass: number;
      alpha_fail: number;
      verdict: 'pass' | 'fail' | 'undecided';
      stop: boolean;
      batches: number;
      von_neumann: number | null;
      sensitivity: number | null;
    }>;
  };
  offered: number;
  sent: number;
  ok: number;
  outcomeCounts: Partial<Record<OpenLoopOutcome, number>>;
  overflowFraction: number;
  errorFraction: number;
  sentRps: number;
  goodputRps: number;
  ttfabP50Ms: number | null;
  ttfabP95Ms: number | null;
  ttfabP99Ms: number | null;
  ttfabSentP95Ms: number | null;
  latencyP95Ms: number | null;
  sendLagP99Ms: number | null;
}

export interface RungRun {
  rate: number;
  startedAt: string;
  histograms: OpenLoopHistograms;
  peakOutstanding: number | null;
  loopUtilization: number | null;
  instanceCounts: number[];
  /** The client over the rung (one process, or the worst shard when merged); absent: not sampled. */
  clientHealth?: ClientHealth | null;
}

/** Interval ends are recorded up to an hour (a look at a tiny alpha may reach further). */
const MAX_MS = 3_600_000;
const round3 = (v: number): number => Math.round(v * 1000) / 1000;
const orNull = (v: number | null): number | null => (v === null || !Number.isFinite(v) ? null : round3(v));

/** The artifact's record of one rung; `pending` for a shard file (decided only once merged). */
export function goodputRung(
  run: RungRun,
  judged: RungJudgement,
  s: Pick<GoodputSettings, 'holdS' | 'settleS' | 'shard'>,
  pending: boolean,
): GoodputRung {
  const d = judged.decision;
  return {
    rate_rps: run.rate,
    started_at: run.startedAt,
    hold_s: s.holdS,
    settle_s: s.settleS,
    verdict: pending ? 'pending' : judged.verdict,
    reason: pending
      ? `shard ${s.shard?.index}/${s.shard?.count}: decided only after \`scalegate merge\` of every shard`
      : judged.reason,
    offered: judged.offered,
    sent: judged.sent,
    ok: judged.ok,
    outcome_counts: judged.outcomeCounts,
    overflow_fraction: judged.overflowFraction,
    error_fraction: judged.errorFraction,
    sent_rps: round3(judged.sentRps),
    goodput_rps: round3(judged.goodputRps),
    ttfab_p50_ms: orNull(judged.ttfabP50Ms),
    ttfab_p95_ms: orNull(judged.ttfabP95Ms),
    ttfab_p99_ms: orNull(judged.ttfabP99Ms),
    ttfab_p95_ci_ms:
      pending || d.interval === null
        ? null
        : { low: round3(Math.min(d.interval.low, MAX_MS)), high: round3(Math.min(d.interval.high, MAX_MS)) },
    ttfab_sent_p95_ms: orNull(judged.ttfabSentP95Ms),
    latency_p95_ms: orNull(judged.latencyP95Ms),
    send_lag_p99_ms: orNull(judged.sendLagP99Ms),
    mean_in_system: round3(d.meanInSystem),
    decision_method: d.method,
    ci_level: d.level,
    effective_sample_size: pending ? 0 : d.batches,
    batch_size: round3(d.batchSize),
    min_batch_size: d.minBatchSize,
    peak_outstanding: run.peakOutstanding,
    client_event_loop_utilization: run.loopUtilization,
    instance_counts: run.instanceCounts,
    histograms: run.histograms,
    ...(d.looks && !pending
      ? {
          sequential: {
            stopped_at_s: d.stoppedAtS ?? s.holdS - s.settleS,
            stopped_early: (d.stoppedAtS ?? s.holdS - s.settleS) < s.holdS - s.settleS - 1e-9,
            misses: d.misses ?? 0,
            correlation_windows: round3(d.correlationWindows ?? 0),
            fluctuation: round3(d.fluctuation ?? 0),
            von_neumann: d.vonNeumann == null ? null : round3(Math.max(0, d.vonNeumann)),
            sensitivity: d.sensitivity == null ? null : round3(Math.max(0, d.sensitivity)),
            looks: d.looks.map((l) => ({
              ...l,
              von_neumann: l.von_neumann === null ? null : round3(Math.max(0, l.von_neumann)),
              sensitivity: l.sensitivity === null ? null : round3(Math.max(0, l.sensitivity)),
            })),
          },
        }
      : {}),
    ...(run.clientHealth !== undefined
      ? { client_health: run.clientHealth ? clientHealthRecord(run.clientHealth) : null }
      : {}),
    ...(judged.audio !== undefined ? { audio: judged.audio } : {}),
    ...(judged.continuity !== undefined
      ? {
          continuity_verdict: pending ? null : (judged.continuity?.verdict ?? null),
          first_audio_verdict: pending ? null : (judged.firstAudioVerdict ?? null),
        }
      : {}),
  };
}

/** What the ladder concluded (src/load/goodput-ladder.ts summarizeGoodput). */
export interface GoodputConclusion {
  lambdaMax: number;
  bracketed: boolean;
  breachRate: number | null;
  nonMonotone: string[];
}

export interface GoodputRecord {
  modelName: string;
  endpoint: string;
  variant: string;
  settings: GoodputSettings;
  runId: string;
  measuredAt: string;
  fingerprint: Fingerprint;
  rungs: GoodputRung[];
  /** null for a shard file (nothing decided yet). */
  conclusion: GoodputConclusion | null;
  live: boolean;
  restore: { actions: string[]; errors: string[] } | null;
  target: string;
  tool: string;
  /** Shards this file holds. */
  shards: Array<{ index: number; count: number }>;
  /** The per-rate CloudWatch join (absent: not attempted, e.g. a merge). */
  cloudwatch?: { joined: boolean; error: string | null };
}

export function assembleGoodputArtifact(r: GoodputRecord): GoodputArtifact {
  const s = r.settings;
  const c = r.conclusion;
  const continuity = goodputContinuityRecord(s, r.rungs, c?.breachRate ?? null);
  const counts = [...new Set(r.rungs.flatMap((g) => g.instance_counts))].sort((a, b) => a - b);
  const undecided = r.rungs.filter((g) => g.verdict === 'undecided').map((g) => g.rate_rps);
  const resolutionMet =
    s.mode === 'fixed' || c === null
      ? null
      : c.breachRate !== null && c.breachRate - c.lambdaMax <= s.resolution * c.breachRate + 1e-9;
  const notes = [
    `${s.mode} Poisson ladder over ${s.transport}`,
    r.live ? `endpoint ${r.endpoint}/${r.variant} frozen at one instance` : `target ${r.target}`,
    `prompts: ${s.prompts.source} (${s.prompts.texts.length})`,
    ...(s.shard ? [`shard ${s.shard.index}/${s.shard.count} of one seeded schedule`] : []),
  ];
  return {
    schema_version: 1,
    kind: 'goodput',
    model_name: r.modelName,
    endpoint: r.live ? r.endpoint : null,
    run_id: r.runId,
    measured_at: r.measuredAt,
    fingerprint: r.fingerprint,
    transport: s.transport,
    slo_ms: s.sloMs,
    lambda_max_rps: c ? c.lambdaMax : null,
    lambda_max_bracketed: c ? c.bracketed : false,
    breach_rate_rps: c ? c.breachRate : null,
    limits: {
      max_overflow_fraction: s.limits.maxOverflowFraction,
      max_error_fraction: s.limits.maxErrorFraction,
    },
    ladder: {
      mode: s.mode,
      rates: s.rates,
      start_rps: s.mode === 'adaptive' ? s.startRate : null,
      max_rps: s.mode === 'adaptive' ? s.maxRate : null,
      min_rps: s.mode === 'adaptive' ? s.minRate : null,
      resolution: s.mode === 'adaptive' ? s.resolution : null,
      hold_s: s.holdS,
      settle_s: s.settleS,
      seed: s.seed,
      window_ms: s.windowMs,
      max_outstanding: s.maxOutstanding,
    },
    search: { resolution_met: resolutionMet, undecided_rates: undecided },
    non_monotone: c ? c.nonMonotone : [],
    shards: r.shards,
    decided: c !== null,
    start_at: s.startAtMs === null ? null : new Date(s.startAtMs).toISOString(),
    frozen: r.live,
    instance_counts_observed: counts,
    rungs: r.rungs,
    validated_hold: checkHold('open-loop', s.holdS, s.settleS).validated,
    provenance: { origin: 'measured', tool: r.tool, note: notes.join('; ') },
    target: r.target,
    prompts: { source: s.prompts.source, count: s.prompts.texts.length },
    request_timeout_s: s.requestTimeoutS,
    restore: r.restore,
    ...(r.cloudwatch ? { cloudwatch: r.cloudwatch } : {}),
    false_pass_bound: {
      value: FALSE_PASS_BOUND,
      origin: 'bound',
      basis: `simulated over class: ${FALSE_PASS_BOUND_CLASS}`,
    },
    ...(continuity ? { continuity } : {}),
  };
}

// ---- the dry run -----------------------------------------------------------------------------

export interface GoodputSchedule {
  kind: 'goodput-schedule';
  model_name: string;
  endpoint: string | null;
  target: string | null;
  transport: Transport;
  slo_ms: number;
  mode: 'adaptive' | 'fixed';
  /** fixed: the rates; adaptive: the longest sequence the ladder could walk. */
  rates: number[];
  hold_s: number;
  settle_s: number;
  seed: number;
  shard: string | null;
  worst_case_rungs: number;
  /** Requests the worst case offers (all shards), at the rates' expected counts. */
  worst_case_requests: number;
  worst_case_duration_s: number;
  instance_minutes: number;
  instance_hourly_usd: number | null;
  estimated_cost_usd: number | null;
  notes: string[];
}

export function goodputSchedule(
  run: { modelName: string; endpoint: string; instanceHourlyUsd: number | null },
  s: GoodputSettings,
  worst: { rungs: number; example: number[] },
): GoodputSchedule {
  const perRung = s.holdS + (s.shard ? s.rungGapS : 0);
  const duration = worst.rungs * perRung;
  const live = isSageMakerTransport(s.transport);
  const instanceMinutes = live ? duration / 60 : 0;
  const hourly = run.instanceHourlyUsd;
  const notes: string[] = [];
  if (s.mode === 'adaptive') {
    notes.push(
      'adaptive: the start rate, then x2 while rungs pass, then bisection to --resolution between the highest pass and the lowest breach; an undecided rung bounds the search and one rate above it is measured so lambda_max is bracketed by a measured breach',
    );
  }
  notes.push(
    `a rung ends at its first decisive look (from ${FIRST_LOOK_S} s of measuring) and decides only with 5 batches of 30 (1 + L)^2 arrivals (L: mean requests in system, measured); near saturation L grows and a rung of up to ${s.holdS} s may stay undecided (a longer --hold-s decides it); the worst case below counts every rung at its whole hold`,
  );
  if (live) {
    notes.push(
      'not counted: waiting for the frozen endpoint to reach one InService instance, and the drain of each rung (up to the request timeout)',
    );
  } else notes.push('http transport: the container is measured directly; no endpoint instance is billed');
  if (live && hourly === null) notes.push('no instance_hourly_usd in the model config: no cost estimate');
  return {
    kind: 'goodput-schedule',
    model_name: run.modelName,
    endpoint: live ? run.endpoint : null,
    target: s.targetUrl,
    transport: s.transport,
    slo_ms: s.sloMs,
    mode: s.mode,
    rates: worst.example,
    hold_s: s.holdS,
    settle_s: s.settleS,
    seed: s.seed,
    shard: s.shard ? `${s.shard.index}/${s.shard.count}` : null,
    worst_case_rungs: worst.rungs,
    worst_case_requests: Math.round(worst.example.reduce((a, rate) => a + rate * s.holdS, 0)),
    worst_case_duration_s: duration,
    instance_minutes: instanceMinutes,
    instance_hourly_usd: hourly,
    estimated_cost_usd: live && hourly !== null ? (instanceMinutes / 60) * hourly : null,
    notes,
  };
}

// ---- merge ----------------------------------------------------------------------------------

export interface LabelledGoodput {
  file: string;
  artifact: GoodputArtifact;
}

/**
 * Refuses shard files that cannot be one run: different fingerprints (a merge of measurements of
 * different containers or instance types means nothing), models, SLOs, transports, ladders or
 * limits. The schedule, start and shard coverage are checked by the histogram merge itself.
 * Throws a UsageError naming the file.
 */
export function checkMergeable(parts: readonly LabelledGoodput[]): void {
  const first = parts[0];
  if (!first) throw new UsageError('merge: no files given: name the shard artifacts to combine.');
  if (parts.length < 2 && first.artifact.decided) {
    throw new UsageError(`merge: ${first.file} is a whole run already; name every shard file of one run.`);
  }
  const ref = first.artifact;
  for (const { file, artifact } of parts) {
    const differences = fingerprintDifferences(ref.fingerprint, artifact.fingerprint);
    if (differences.length > 0) {
      throw new UsageError(
        `${file}: measured on ${fingerprintSlug(artifact.fingerprint)}, ${first.file} on ${fingerprintSlug(ref.fingerprint)} (${differences.map((d) => `${d.field} ${d.right} vs ${d.left}`).join('; ')}): shards of one run measure one configuration; merge only files of the same fingerprint.`,
      );
    }
    const same = (what: string, a: unknown, b: unknown) => {
      if (JSON.stringify(a) !== JSON.stringify(b)) {
        throw new UsageError(
          `${file}: ${what} ${JSON.stringify(b)}, ${first.file} ${JSON.stringify(a)}: shards of one run share it.`,
        );
      }
    };
    same('model', ref.model_name, artifact.model_name);
    same('slo_ms', ref.slo_ms, artifact.slo_ms);
    same('transport', ref.transport, artifact.transport);
    if (artifact.ladder.seed !== ref.ladder.seed) {
      throw new UsageError(
        `${file}: schedule seed ${artifact.ladder.seed}, ${first.file} seed ${ref.ladder.seed}: shards of one run follow one seeded schedule; run every shard with the same --seed.`,
      );
    }
    same('ladder', ref.ladder, artifact.ladder);
    same('limits', ref.limits, artifact.limits);
    same('start_at', ref.start_at, artifact.start_at);
    same(
      'rates',
      ref.rungs.map((g) => g.rate_rps),
      artifact.rungs.map((g) => g.rate_rps),
    );
  }
}
