import { z } from 'zod';
import { fingerprintSchema } from '../fingerprint.js';
import { openLoopHistogramsSchema, openLoopOutcomeSchema } from '../histograms.js';
import { boundedNumber, endpointNameSchema, safeString } from '../safe.js';
import { vantageSchema } from '../vantage.js';
import { audioSummarySchema, continuitySchema } from './audio.js';
import { clientHealthSchema } from './client-health.js';
import {
  concurrency,
  count,
  instances,
  intervalSchema,
  isoTime,
  ms,
  provenanceSchema,
  recordedAt,
  restoreRecordSchema,
  rps,
  runId,
  SCHEMA_VERSION,
  seconds,
  transportSchema,
} from './common.js';

/** How a goodput rung was judged: pass/fail/undecided by the decision; `pending` in a shard file. */
export const rateVerdictSchema = z.enum(['pass', 'fail', 'undecided', 'pending']);

/**
 * What ConcurrentRequestsPerModel showed at one Poisson rate (goodput's CloudWatch join): the
 * per-period Maximum over the whole 10 s periods of the measure window, its median and spread, the
 * mean in flight (Little: the rate x the measured mean time in system) and the open-loop R (p50 /
 * mean in flight; 1.0 under a closed loop, far above it under random arrivals).
 */
export const goodputMetricLevelSchema = z.object({
  metric: z.literal('ConcurrentRequestsPerModel'),
  statistic: z.literal('Maximum'),
  period_s: seconds('metric_level period_s').int().positive(),
  /** Whole periods inside the measure window that had a datapoint. */
  periods: count('metric_level periods').positive(),
  p10: concurrency('metric_level p10'),
  p50: concurrency('metric_level p50'),
  p90: concurrency('metric_level p90'),
  mean_in_flight: concurrency('metric_level mean_in_flight'),
  /** p50 / mean_in_flight; null when nothing was in flight on average. */
  open_loop_r: z.number().nonnegative().nullable(),
  origin: z.literal('measured'),
});
export type GoodputMetricLevel = z.infer<typeof goodputMetricLevelSchema>;

/** One arrival rate of the lambda_max ladder: what was offered, what came back, the verdict. */
export const goodputRungSchema = z.object({
  /** Poisson arrival rate offered to the instance (all shards together), requests/s. */
  rate_rps: rps('rate_rps').positive(),
  /** Schedule start of this rung (wall time of offset 0). */
  started_at: isoTime,
  hold_s: seconds('hold_s').positive(),
  settle_s: seconds('settle_s'),
  verdict: rateVerdictSchema,
  reason: safeString,
  /** Arrivals of the measure window (client_dropped included), and how they ended. */
  offered: count('offered'),
  sent: count('sent'),
  ok: count('ok'),
  outcome_counts: z.partialRecord(openLoopOutcomeSchema, count('outcome count')),
  /** 503 queue_saturated and 429 over the arrivals of the measure window. */
  overflow_fraction: boundedNumber(0, 1, 'overflow_fraction'),
  /** Every other failure (5xx, model errors, timeouts, client_dropped) over the arrivals. */
  error_fraction: boundedNumber(0, 1, 'error_fraction'),
  /** Sent and ok requests per second of the measure window. */
  sent_rps: rps('sent_rps'),
  goodput_rps: rps('goodput_rps'),
  /** TTFAB of ok requests from the intended send time (coordinated-omission correct). */
  ttfab_p50_ms: ms('ttfab_p50_ms').nullable(),
  ttfab_p95_ms: ms('ttfab_p95_ms').nullable(),
  ttfab_p99_ms: ms('ttfab_p99_ms').nullable(),
  /** Interval of ttfab_p95_ms at ci_level (null: too few batches). */
  ttfab_p95_ci_ms: intervalSchema.nullable(),
  /** The naive figure from the actual send, for comparison only (it hides client stalls). */
  ttfab_sent_p95_ms: ms('ttfab_sent_p95_ms').nullable(),
  latency_p95_ms: ms('latency_p95_ms').nullable(),
  /** Actual minus intended send time, p99: how well the client kept the schedule. */
  send_lag_p99_ms: ms('send_lag_p99_ms').nullable(),
  /** Mean requests in the system over the measure window (Little), which sets the batch length. */
  mean_in_system: concurrency('mean_in_system'),
  decision_method: safeString,
  ci_level: z.number().min(0).max(1),
  /** Effective sample size: batches (0 without an interval). */
  effective_sample_size: z.number().int().nonnegative(),
  batch_size: z.number().nonnegative(),
  min_batch_size: z.number().nonnegative(),
  peak_outstanding: count('peak_outstanding').nullable(),
  client_event_loop_utilization: z.number().min(0).max(1).nullable(),
  instance_counts: z.array(instances('instance count')),
  /** The serialised HDR windows of the whole rung (settle included), mergeable across shards. */
  histograms: openLoopHistogramsSchema,
  /**
   * Additive: the tracked metric's level at this rate, from goodput's CloudWatch join over the
   * whole periods of the measure window; null when not joined (the artifact's `cloudwatch.error`
   * says why), absent in older files.
   */
  metric_level: goodputMetricLevelSchema.nullable().optional(),
  /**
   * Additive (absent in older files): the group-sequential record. `stopped_at_s`: seconds of
   * measure window at the look that ended the rung (the hold's when none did); `misses`: arrivals
   * counted at +infinity in the p95 (overflows, errors, timeouts, drops); the dependence
   * diagnostics of the last look; every look taken.
   */
  sequential: z
    .object({
      stopped_at_s: seconds('stopped_at_s'),
      stopped_early: z.boolean(),
      misses: count('misses'),
      correlation_windows: z.number().nonnegative(),
      fluctuation: z.number().nonnegative(),
      von_neumann: z.number().nonnegative().nullable(),
      sensitivity: z.number().nonnegative().nullable(),
      looks: z.array(
        z.object({
          span_s: seconds('span_s'),
          n: count('n'),
          alpha_pass: boundedNumber(0, 1, 'alpha_pass'),
          alpha_fail: boundedNumber(0, 1, 'alpha_fail'),
          verdict: z.enum(['pass', 'fail', 'undecided']),
          stop: z.boolean(),
          batches: z.number().int().nonnegative(),
          von_neumann: z.number().nonnegative().nullable(),
          sensitivity: z.number().nonnegative().nullable(),
        }),
      ),
    })
    .optional(),
  /** Additive: the client during the rung (a pass it could not keep the schedule for is undecided). */
  client_health: clientHealthSchema.nullable().optional(),
  /** Additive: playback continuity and audio throughput at this rate; absent before it was recorded. */
  audio: audioSummarySchema.nullable().optional(),
  /** Additive: the rate's verdict on the continuity SLO alone (`verdict` combines both SLOs). */
  continuity_verdict: rateVerdictSchema.nullable().optional(),
  /** Additive: the rate's verdict on first audio alone (recorded with `continuity_verdict`). */
  first_audio_verdict: rateVerdictSchema.nullable().optional(),
});
export type GoodputRung = z.infer<typeof goodputRungSchema>;

export const goodputArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('goodput'),
  model_name: safeString,
  endpoint: endpointNameSchema.nullable(),
  run_id: runId,
  measured_at: recordedAt,
  fingerprint: fingerprintSchema,
  /** Where the load came from (runner, region, host, RTT floor; a merge: the first file's); absent in artifacts written before it was recorded. */
  vantage: vantageSchema.optional(),
  transport: transportSchema,
  slo_ms: ms('slo_ms').positive(),
  /**
   * Highest Poisson arrival rate per instance whose p95 TTFAB from the intended send time was
   * decided within the SLO with overflows and errors within their limits; 0 when none was. null in
   * a shard file (decided after `scalegate merge`).
   */
  lambda_max_rps: rps('lambda_max_rps').nullable(),
  /** A measured breach (fail) lies above lambda_max. */
  lambda_max_bracketed: z.boolean(),
  /** The lowest measured breach above lambda_max. */
  breach_rate_rps: rps('breach_rate_rps').nullable(),
  limits: z.object({
    max_overflow_fraction: boundedNumber(0, 1, 'max_overflow_fraction'),
    max_error_fraction: boundedNumber(0, 1, 'max_error_fraction'),
  }),
  ladder: z.object({
    mode: z.enum(['adaptive', 'fixed']),
    /** The rates of a fixed ladder (shards run one). */
    rates: z.array(rps('rate').positive()).nullable(),
    start_rps: rps('start_rps').positive().nullable(),
    max_rps: rps('max_rps').positive().nullable(),
    min_rps: rps('min_rps').positive().nullable(),
    /** Bisect until (breach - lambda_max) <= resolution x breach. */
    resolution: boundedNumber(0, 1, 'resolution').nullable(),
    hold_s: seconds('hold_s').positive(),
    settle_s: seconds('settle_s'),
    /** Seed of rung 0's Poisson schedule; rung i uses seed + i. */
    seed: z.number().int().nonnegative(),
    window_ms: z.number().int().positive(),
    max_outstanding: z.number().int().positive(),
  }),
  search: z.object({
    /** breach - lambda_max <= resolution x breach; null for a fixed ladder. */
    resolution_met: z.boolean().nullable(),
    /** Rates that stayed undecided. */
    undecided_rates: z.array(rps('rate')),
  }),
  non_monotone: z.array(safeString),
  /** The shards of the schedule this file holds: [i/n] for one shard, all of 0..n-1 once merged. */
  shards: z.array(z.object({ index: z.number().int().nonnegative(), count: z.number().int().positive() })),
  /** Decided (single process or merged); false for a shard file, whose verdicts are `pending`. */
  decided: z.boolean(),
  /** Wall time every shard's first rung started at (--start-at), or null. */
  start_at: isoTime.nullable(),
  frozen: z.boolean(),
  instance_counts_observed: z.array(instances('instance count')),
  rungs: z.array(goodputRungSchema),
  /** Additive: the hold and settle are at least what the coverage simulations validated (false: shorter). */
  validated_hold: z.boolean().optional(),
  provenance: provenanceSchema,
  target: safeString.nullable(),
  prompts: z.object({ source: safeString, count: z.number().int().positive() }),
  request_timeout_s: seconds('request_timeout_s').positive(),
  restore: restoreRecordSchema.nullable(),
  /**
   * Additive: the per-rate CloudWatch join (each rung's metric_level): joined when at least one
   * rate has a level; error says what is missing (the http transport has no CloudWatch, disabled
   * with --no-cloudwatch, not published...). Absent in older files.
   */
  cloudwatch: z.object({ joined: z.boolean(), error: safeString.nullable() }).optional(),
  /**
   * Additive (absent in older files and with --start-rate or --rates): the scout that placed the
   * adaptive ladder's start, short Poisson steps doubling until one's p95 TTFAB (misses at
   * +infinity) was over the SLO. It decides nothing: every verdict is a rung's.
   */
  scout: z
    .object({
      step_s: seconds('scout step_s').positive(),
      steps: z.array(
        z.object({
          rate_rps: rps('scout rate_rps').positive(),
          offered: count('scout offered'),
          ok: count('scout ok'),
          /** null: no arrival, or over 5 % of them without audio. */
          p95_ms: ms('scout p95_ms').nullable(),
          over: z.boolean(),
        }),
      ),
      start_rps: rps('scout start_rps').positive(),
      over_rps: rps('scout over_rps').positive().nullable(),
    })
    .nullable()
    .optional(),
  /**
   * Additive (absent in older files): P(PASS) of one rung whose true p95 equals the SLO, as
   * supported by simulation over the class `basis` names (a bound, not the nominal alpha).
   */
  false_pass_bound: z
    .object({ value: boundedNumber(0, 1, 'false_pass_bound'), origin: z.literal('bound'), basis: safeString })
    .optional(),
  /** Additive: the continuity SLO and which SLO bounded lambda_max; absent: first audio only. */
  continuity: continuitySchema.nullable().optional(),
  /**
   * Additive: an inference component measured at a pinned copy count (`--copies`); absent: a
   * variant's instance (and in older files).
   */
  inference_component: z
    .object({
      component: safeString,
      /** Copies pinned while measuring (measured: the component served exactly these). */
      copies: z.number().int().positive(),
      copies_per_instance: z.number().int().positive(),
      /** Instances the copies occupy: ceil(copies / copies_per_instance) (computed: placement fills an instance first). */
      instances: z.number().int().positive(),
      /** lambda_max / copies: the arrival rate one copy holds inside the SLO (computed); null: undecided. */
      lambda_max_per_copy_rps: rps('lambda_max_per_copy_rps').nullable(),
      /** The copies one device serves (computed: 1 when a copy reserves accelerators, else the copies packed on one instance). */
      copies_sharing_device: z.number().int().positive(),
      /** How the copies share an instance's accelerator, in words. */
      sharing: safeString,
    })
    .optional(),
});
export type GoodputArtifact = z.infer<typeof goodputArtifactSchema>;
