import { z } from 'zod';
import { fingerprintSchema } from '../fingerprint.js';
import { outcomeSchema } from '../outcomes.js';
import { boundedNumber, endpointNameSchema, LIMITS, safeString } from '../safe.js';
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
  rungVerdictSchema,
  runId,
  SCHEMA_VERSION,
  seconds,
  transportSchema,
} from './common.js';

export const qmaxStepSchema = z.object({
  run_index: z.number().int().nonnegative(),
  step_index: z.number().int().nonnegative(),
  concurrency: concurrency('concurrency').int().positive(),
  started_at: isoTime.nullable(),
  hold_s: seconds('hold_s').nullable(),
  measure_s: seconds('measure_s').nullable(),
  achieved_rps: rps('achieved_rps'),
  completed: count('completed'),
  ok: count('ok'),
  rejected: count('rejected'),
  outcome_counts: z.partialRecord(outcomeSchema, count('outcome count')),
  ttfab_p50_ms: ms('ttfab_p50_ms').nullable(),
  ttfab_p95_ms: ms('ttfab_p95_ms').nullable(),
  /**
   * Confidence interval of the p95 of successful requests at `ci_level` (batch sectioning, valid for
   * closed-loop data; before `decision_method` was recorded: order statistics assuming independent
   * samples); null when too few batches.
   */
  ttfab_p95_ci_ms: intervalSchema.nullable(),
  ttfab_p99_ms: ms('ttfab_p99_ms').nullable(),
  latency_p95_ms: ms('latency_p95_ms').nullable(),
  s_mean_s: seconds('s_mean_s').nullable(),
  s_p95_s: seconds('s_p95_s').nullable(),
  concurrency_mean: concurrency('concurrency_mean'),
  concurrency_peak: concurrency('concurrency_peak'),
  ttfab_drift_ms: boundedNumber(-LIMITS.ms, LIMITS.ms, 'ttfab_drift_ms').nullable(),
  verdict: rungVerdictSchema,
  meets_slo: z.boolean(),
  saturated: z.boolean(),
  settled: z.boolean(),
  client_bound: z.boolean(),
  capacity_changed: z.boolean(),
  usable: z.boolean(),
  unusable_reason: safeString.nullable(),
  instance_counts: z.array(instances('instance count')),
  server_concurrency_mean: concurrency('server_concurrency_mean').nullable(),
  server_concurrency_peak: concurrency('server_concurrency_peak').nullable(),
  server_model_latency_p95_ms: ms('server_model_latency_p95_ms').nullable(),
  server_5xx_total: boundedNumber(0, LIMITS.count, 'server_5xx_total').nullable(),
  /** R(N): CloudWatch ConcurrentRequestsPerModel Maximum / client mean in-flight. */
  cw_ratio: boundedNumber(0, LIMITS.ratio, 'cw_ratio').positive().nullable(),
  // Additive (qmax engine): why the verdict, how the rung ended, and how trustworthy the client was.
  verdict_reason: safeString.nullable().optional(),
  /**
   * `decisive`: ended early on a settled, decisive window; `near_slo`: ended early undecided, its
   * interval inside +-5 % of the SLO (futility); `hold`: ran to its hold limit.
   */
  end_reason: z.enum(['decisive', 'near_slo', 'hold']).nullable().optional(),
  /** 1 - client mean in-flight / concurrency over the window (0 = exactly N outstanding throughout). */
  in_flight_shortfall: z.number().nonnegative().nullable().optional(),
  client_loop_delay_p99_ms: z.number().nonnegative().nullable().optional(),
  /** Share of the rung the client's event loop was busy (near 1: the client limits the load). */
  client_event_loop_utilization: z.number().min(0).max(1).nullable().optional(),
  /** Whole 10 s CloudWatch periods inside the measure window that the join used. */
  cw_periods: z.number().int().nonnegative().nullable().optional(),
  // Additive (rung decision valid for closed-loop data); absent in older artifacts.
  /** How the verdict was reached: `batch-sectioning` (src/stats/rung-decision.ts). */
  decision_method: safeString.nullable().optional(),
  /** Two-sided confidence of the reported interval at the look the rung ended on. */
  ci_level: z.number().min(0).max(1).nullable().optional(),
  /** Confidence that the intervals of every look of the rung hold together (Bonferroni). */
  ci_family_level: z.number().min(0).max(1).nullable().optional(),
  /** Effective sample size: the number of batches (0 when too few for an interval). */
  effective_sample_size: z.number().int().nonnegative().nullable().optional(),
  /** Mean batch length, samples. */
  batch_size: z.number().nonnegative().nullable().optional(),
  /** Looks the rung took (the verdict is the last one's). */
  looks: z.number().int().nonnegative().nullable().optional(),
  /** Samples the verdict judged, misses included. */
  verdict_samples: z.number().int().nonnegative().nullable().optional(),
  /** Undecided with its interval inside +-5 % of the SLO (not measured again); absent before. */
  near_slo: z.boolean().nullable().optional(),
  /** One-sided alphas of the look the rung ended on (pass side = upper end); absent before. */
  ci_tails: z
    .object({ pass: z.number().min(0).max(1), fail: z.number().min(0).max(1) })
    .nullable()
    .optional(),
  /** Dependence checks of the look the rung ended on (src/stats/rung-decision.ts); absent before. */
  dependence: z
    .object({
      /** Batches the sample count allowed before any lengthening. */
      initial_batches: z.number().int().nonnegative(),
      /** Times the batches were doubled because their p95s were dependent. */
      lengthened: z.number().int().nonnegative(),
      /** von Neumann ratio of the batch p95s used and its critical value (below: dependent). */
      von_neumann: z.number().nonnegative().nullable(),
      von_neumann_critical: z.number().nullable(),
      /** se from half as many batches of twice the size / se from the batches used. */
      half_batch_se_ratio: z.number().nonnegative().nullable(),
      /** false: dependent even at 5 batches, so the look could not be decisive. */
      independent: z.boolean(),
    })
    .nullable()
    .optional(),
  /** Additive: the client during the rung (a pass it could not keep the schedule for is undecided). */
  client_health: clientHealthSchema.nullable().optional(),
  /** Additive: playback continuity and audio throughput of the rung; absent before it was recorded. */
  audio: audioSummarySchema.nullable().optional(),
  /** Additive: the rung's verdict on the continuity SLO alone (`verdict` combines both SLOs). */
  continuity_verdict: rungVerdictSchema.nullable().optional(),
  /** Additive: the rung's verdict on first audio alone, recorded beside `continuity_verdict`. */
  first_audio_verdict: rungVerdictSchema.nullable().optional(),
});
export type QmaxStep = z.infer<typeof qmaxStepSchema>;

export const ladderSchema = z.object({
  mode: z.enum(['adaptive', 'fixed']),
  rungs: z.array(concurrency('rung').int().positive()).nullable(),
  max_concurrency: concurrency('max_concurrency').int().positive().nullable(),
  resolution: concurrency('resolution').int().positive().nullable(),
  hold_s: seconds('hold_s'),
  measure_s: seconds('measure_s'),
  /** null when the source did not record it (legacy). */
  settle_s: seconds('settle_s').nullable(),
  runs: boundedNumber(1, 1000, 'runs').int(),
});

export const qmaxArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('qmax'),
  model_name: safeString,
  endpoint: endpointNameSchema.nullable(),
  run_id: runId,
  measured_at: recordedAt,
  fingerprint: fingerprintSchema,
  /** Where the load came from (runner, region, host, RTT floor); absent in artifacts written before it was recorded. */
  vantage: vantageSchema.optional(),
  transport: transportSchema,
  slo_ms: ms('slo_ms').positive(),
  /** Highest passing concurrency; 0 when even concurrency 1 misses the SLO. */
  q_max: concurrency('q_max').int(),
  q_max_per_run: z.array(concurrency('q_max_per_run').int()),
  q_max_bracketed: z.boolean(),
  /** Lowest concurrency measured above the SLO (the bracket), null when none was. */
  q_max_upper_bound: concurrency('q_max_upper_bound').int().positive().nullable(),
  ttfab_p95_at_q_max_ms: ms('ttfab_p95_at_q_max_ms').nullable(),
  ttfab_p95_at_c1_ms: ms('ttfab_p95_at_c1_ms').nullable(),
  s_mean_s: seconds('s_mean_s'),
  s_p95_s: seconds('s_p95_s'),
  frozen: z.boolean(),
  unbounded_queue: z.boolean(),
  instance_counts_observed: z.array(instances('instance count')),
  non_monotone: z.array(safeString),
  ladder: ladderSchema,
  total_rung_seconds: boundedNumber(0, LIMITS.seconds * 1000, 'total_rung_seconds').nullable(),
  cloudwatch: z.object({ joined: z.boolean(), error: safeString.nullable() }),
  steps: z.array(qmaxStepSchema).min(1),
  provenance: provenanceSchema,
  // Additive (qmax engine): what was driven, with what, and what the freeze restored.
  target: safeString.nullable().optional(),
  prompts: z.object({ source: safeString, count: z.number().int().positive() }).nullable().optional(),
  request_timeout_s: seconds('request_timeout_s').positive().nullable().optional(),
  restore: restoreRecordSchema.nullable().optional(),
  /** Where the search ended against what it promised; absent in older artifacts. */
  search: z
    .object({
      /** Lowest measured breach above Q_max (a fail, never an undecided rung); null: none. */
      upper_bound: z.number().int().positive().nullable(),
      /** The requested --resolution (adaptive); null for a fixed ladder. */
      resolution: z.number().int().positive().nullable(),
      /** upper_bound - Q_max <= resolution; false when not bracketed or stopped short; null: fixed. */
      resolution_met: z.boolean().nullable(),
      /** Concurrencies that stayed undecided (after their one re-measurement). */
      undecided_rungs: z.array(z.number().int().positive()),
    })
    .nullable()
    .optional(),
  /**
   * What a PASS verdict promises, as simulated: P(PASS | true p95 = SLO) <= bound and coverage of
   * the reported interval >= coverage, over the class of simulated servers named. Absent in older
   * artifacts (they stated only nominal levels).
   */
  false_pass_bound: z
    .object({
      /** Pooled over the cells of the class. */
      bound: z.number().min(0).max(1),
      /** The worst cell of the class. */
      worst_cell: z.number().min(0).max(1),
      coverage: z.number().min(0).max(1),
      worst_cell_coverage: z.number().min(0).max(1),
      decision_method: safeString,
      calibrated_over: safeString,
    })
    .nullable()
    .optional(),
  /** The rung S_mean/S_p95 come from; absent in older artifacts. */
  service_time_basis: z
    .object({
      concurrency: z.number().int().positive(),
      /** false: no usable rung had latencies, so an unusable one was taken. */
      usable: z.boolean(),
      /** true: not a usable rung at concurrency 1 (not the uncontended service time). */
      fallback: z.boolean(),
      /** Why concurrency 1 was not used; null when it was. */
      reason: safeString.nullable(),
    })
    .nullable()
    .optional(),
  /** Additive: the continuity SLO and which SLO bounded Q_max; absent: first audio only. */
  continuity: continuitySchema.nullable().optional(),
  /** An inference component measured at a pinned copy count; absent: a variant's instance. */
  inference_component: z
    .object({
      component: safeString,
      /** Copies pinned while measuring (measured: the component served exactly these). */
      copies: z.number().int().positive(),
      copies_per_instance: z.number().int().positive(),
      /** Instances the copies occupy: ceil(copies / copies_per_instance) (computed: placement fills an instance first). */
      instances: z.number().int().positive(),
      /** Q_max / copies: the in-flight requests one copy holds inside the SLO (computed). */
      q_max_per_copy: z.number().nonnegative(),
      /**
       * Additive: the copies one device serves (computed: 1 when a copy reserves accelerators, else
       * the copies packed on one instance, which share its device). Absent in older artifacts.
       */
      copies_sharing_device: z.number().int().positive().optional(),
      /** How the copies share an instance's accelerator, in words (what the measurement can and cannot show). */
      sharing: safeString,
    })
    .optional(),
});
export type QmaxArtifact = z.infer<typeof qmaxArtifactSchema>;
