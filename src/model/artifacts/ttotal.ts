import { z } from 'zod';
import { fingerprintSchema } from '../fingerprint.js';
import { boundedNumber, endpointNameSchema, safeString } from '../safe.js';
import { vantageSchema } from '../vantage.js';
import {
  concurrency,
  instances,
  isoTime,
  journalRestoreRecordSchema,
  ms,
  provenanceSchema,
  recordedAt,
  runId,
  SCHEMA_VERSION,
  seconds,
  signedSeconds,
  transportSchema,
} from './common.js';

export const ttotalStageNames = [
  'load_applied',
  'desired_set',
  'instance_logging',
  'container_started',
  'framework_init',
  'weights_ready',
  'warmup_done',
  'ready',
  'in_service',
  'traffic_recovered',
] as const;

export const timelineEntrySchema = z.object({
  stage: safeString,
  at: isoTime,
  source: safeString,
  /** true when `at` is an upper bound or a reconstruction, not an exact observation. */
  bounded: z.boolean(),
  note: safeString.nullable(),
});

export const durationSchema = z.object({
  from: safeString,
  to: safeString,
  seconds: signedSeconds('seconds'),
  bounded: z.boolean(),
  /** Share of T_total; null for stages outside it. */
  share: boundedNumber(-1000, 1000, 'share').nullable(),
});

/** One scale-out of a repeated ttotal (`--repeat n`): its T_total and every stage it went through. */
export const ttotalObservationSchema = z.object({
  index: z.number().int().nonnegative(),
  measured_at: recordedAt,
  t_total_s: seconds('t_total_s').positive(),
  t_total_end_stage: safeString.nullable(),
  instance_id: safeString.nullable(),
  from_instances: instances('from_instances'),
  to_instances: instances('to_instances').positive(),
  p95_before_ms: ms('p95_before_ms').nullable(),
  p95_after_ms: ms('p95_after_ms').nullable(),
  requests_before: z.number().int().nonnegative().nullable(),
  requests_after: z.number().int().nonnegative().nullable(),
  timeline: z.array(timelineEntrySchema),
  durations: z.array(durationSchema),
  dominant_stage: z
    .object({ from: safeString, to: safeString, seconds: signedSeconds('seconds') })
    .nullable(),
  missing_stages: z.array(safeString),
  notes: z.array(safeString),
});
export type TtotalObservation = z.infer<typeof ttotalObservationSchema>;

/**
 * A scale-out path of an inference component timed end to end (`ttotal --path zero`): the wake
 * from zero copies. Every figure is measured by the probe (request outcomes, their times) or by
 * polling DescribeInferenceComponent (the copy stages, bounded by the poll interval).
 */
export const icPathMeasurementSchema = z.object({
  component: safeString,
  /** zero: the wake from 0 copies; warm: one more copy onto an instance with room; cold: one that needs a new instance. */
  path: z.enum(['zero', 'warm', 'cold']),
  origin: z.literal('measured'),
  /** Copies when the probe started (0: a wake from zero). */
  copies_before: z.number().int().nonnegative(),
  copies_after: z.number().int().positive(),
  /** zero: first request sent to first success, seconds; null for warm and cold (their T_total: the copy count set to the new copy serving). */
  wake_s: seconds('wake_s').positive().nullable(),
  /** Requests the endpoint refused with the no-capacity error (every attempt, retries included). */
  no_capacity_failures: z.number().int().nonnegative(),
  /** Requests that failed otherwise. */
  other_failures: z.number().int().nonnegative(),
  /** First to last no-capacity failure (null: none). */
  failing_window: z
    .object({ first_at: isoTime, last_at: isoTime, seconds: seconds('failing_window.seconds') })
    .nullable(),
  /** The client retry budget the probe applied (null: none: each failure reached the client). */
  retry: z
    .object({
      attempts: z.number().int().nonnegative(),
      backoff_s: z.number().nonnegative(),
      client_requests: z.number().int().positive(),
      /** Client requests whose every attempt failed. */
      client_visible_failures: z.number().int().nonnegative(),
      /** Requests sent again (counted apart: a retried request is not a success of the first try). */
      retries: z.number().int().nonnegative(),
      retried_requests: z.number().int().nonnegative(),
    })
    .nullable(),
  /** The wake alarm's period the plan deployed, seconds (null: not read). */
  wake_alarm_period_s: z.number().int().positive().nullable(),
});
export type IcPathMeasurement = z.infer<typeof icPathMeasurementSchema>;

/** The upper prediction bound for the next T_total, from the repeated observations. */
export const predictionBoundSchema = z.object({
  n: z.number().int().positive(),
  level: z.number().gt(0).lt(1),
  /** null: not available (a single observation, or an observation that is only a lower bound). */
  upper_s: seconds('upper_s').positive().nullable(),
  method: z.enum(['log-normal-t', 'order-statistic']).nullable(),
  description: safeString,
});
export type PredictionBoundRecord = z.infer<typeof predictionBoundSchema>;

export const ttotalArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('ttotal'),
  model_name: safeString,
  endpoint: endpointNameSchema.nullable(),
  run_id: runId,
  measured_at: recordedAt,
  fingerprint: fingerprintSchema,
  /** Where the probe came from (runner, region, host, RTT floor); absent in artifacts written before it was recorded. */
  vantage: vantageSchema.optional(),
  transport: transportSchema.nullable(),
  trigger: z.enum(['force-desired', 'policy']),
  qmax_run_id: safeString.nullable(),
  t_total_s: seconds('t_total_s').positive(),
  policy_lag_s: seconds('policy_lag_s'),
  /** true: policy_lag_s is a bound (no deployed policy to read), never a measurement. */
  policy_lag_bounded: z.boolean(),
  policy_lag_source: safeString,
  instance_id: safeString.nullable(),
  from_instances: instances('from_instances'),
  to_instances: instances('to_instances').positive(),
  probe_concurrency: concurrency('probe_concurrency').int().positive().nullable(),
  p95_before_ms: ms('p95_before_ms').nullable(),
  p95_recovered_target_ms: ms('p95_recovered_target_ms').nullable(),
  p95_after_ms: ms('p95_after_ms').nullable(),
  timeline: z.array(timelineEntrySchema),
  durations: z.array(durationSchema),
  dominant_stage: z
    .object({ from: safeString, to: safeString, seconds: signedSeconds('seconds') })
    .nullable(),
  missing_stages: z.array(safeString),
  notes: z.array(safeString),
  provenance: provenanceSchema,
  // Optional (absent in legacy artifacts and in those written before they existed):
  /** The stage T_total ends at: traffic_recovered, or in_service when traffic never recovered (a lower bound). */
  t_total_end_stage: safeString.optional(),
  /** The measured qmax's fingerprint differed from the live one and --allow-config-mismatch was given. */
  config_mismatch_allowed: z.boolean().optional(),
  mismatch_warnings: z.array(safeString).optional(),
  /** Completed probe requests before the trigger and in the recovery window. */
  requests_before: z.number().int().nonnegative().nullable().optional(),
  requests_after: z.number().int().nonnegative().nullable().optional(),
  /** What the run used, so a reader can judge the bounds (window, poll interval, ...). */
  settings: z
    .object({
      probe_concurrency: z.number().int().positive(),
      recovery_window_s: z.number().positive(),
      recovery_min_samples: z.number().int().positive(),
      recovery_target_factor: z.number().positive(),
      poll_s: z.number().positive(),
      max_wait_s: z.number().positive(),
      pre_trigger_s: z.number().nonnegative(),
      publication_delay_s: z.number().nonnegative().nullable(),
      /** Scale-outs timed in the run (`--repeat`); absent: 1. */
      repeat: z.number().int().positive().optional(),
    })
    .optional(),
  /** Quota headroom seen in the preflight (null fields when unknown). */
  quota: z
    .object({
      quota_name: safeString.nullable(),
      quota_value: z.number().nullable(),
      instances_in_use: z.number().int().nonnegative().nullable(),
      source: safeString,
    })
    .optional(),
  /** What was put back after the run: desired count and suspension flags (from the thaw journal). */
  restore: journalRestoreRecordSchema.optional(),
  /**
   * Every scale-out of the run in the order they ran (absent in artifacts from before `--repeat`:
   * one scale-out, the top-level fields). The top-level timeline is the representative one (the
   * median T_total, or the first lower bound).
   */
  observations: z.array(ttotalObservationSchema).optional(),
  /** Upper prediction bound for the next T_total from the observations; absent in older artifacts. */
  t_total_prediction: predictionBoundSchema.optional(),
  /** An inference component's scale-out path (`--path zero`); absent for a variant's scale-out. */
  inference_component: icPathMeasurementSchema.optional(),
});
export type TtotalArtifact = z.infer<typeof ttotalArtifactSchema>;
