/**
 * `scalegate tune`: candidate scaling policies scored by the fleet simulator (src/sim) on one
 * traffic trace. Every scored entry (the candidates, the seed's closed-loop rule and the perfect
 * fleet) carries the same figures, all `computed` by simulation on the trace named by its digest.
 */
import { z } from 'zod';
import { fingerprintSchema } from '../fingerprint.js';
import { safeString } from '../safe.js';
import { count, instances, ms, provenanceSchema, recordedAt, runId, SCHEMA_VERSION, seconds } from './common.js';
import { scalingMetricSchema } from './plan.js';
import { scheduledActionSchema, stepScaleOutSchema } from './scaling-actions.js';

const share = z.number().min(0).max(1);
const capacity = instances('capacity');

/** What a candidate deploys: the scaling parameters a plan's `deployable` takes from it. */
export const tunedPolicySchema = z.object({
  scaling_metric: scalingMetricSchema,
  /** In the metric's own units (as plan deployable.scaling_target_value). */
  target_value: z.number().positive().max(1e9),
  scale_in_threshold: z.number().min(0).max(1e9),
  scale_out_cooldown_s: seconds('scale-out cooldown'),
  scale_in_cooldown_s: seconds('scale-in cooldown'),
  min_instances: capacity,
  max_instances: capacity,
  step_scale_out: stepScaleOutSchema.nullable(),
  scheduled_actions: z.array(scheduledActionSchema).max(200),
});
export type TunedPolicy = z.infer<typeof tunedPolicySchema>;

/** A policy's score on the trace. */
export const tuneScoreSchema = z.object({
  /** Share of full 10 s windows inside the SLO (the drill's window rule). */
  slo_attainment: share,
  /** Share of all arrivals answered within the SLO (overflows and failures count as misses). */
  request_attainment: share,
  windows: count('windows'),
  windows_outside_slo: count('windows'),
  requests: count('requests'),
  overflows: count('overflows'),
  instance_hours: z.number().min(0).max(1e9),
  peak_instances: capacity,
  scale_outs: count('scale-outs'),
  scale_ins: count('scale-ins'),
  /** p95 TTFAB over every arrival (misses at +infinity: null when above the answered ones), ms. */
  p95_ttfab_ms: ms('p95').nullable(),
});
export type TuneScore = z.infer<typeof tuneScoreSchema>;

export const tuneEntrySchema = z.object({
  label: safeString.min(1).max(200),
  /** null for the perfect fleet, which is not a policy (capacity set to ceil(lambda(t) / lambda_safe) at once). */
  policy: tunedPolicySchema.nullable(),
  score: tuneScoreSchema,
  /** Share of windows and cost both at least as good as another entry's, one strictly: not on the frontier. */
  pareto: z.boolean(),
  /** Why this entry is what it is (how the candidate was formed; for the perfect fleet, what it bounds). */
  note: safeString.max(2000),
});
export type TuneEntry = z.infer<typeof tuneEntrySchema>;

export const traceRefSchema = z.object({
  /** The file as given, or `shape:<name>(<parameters>)` for a built-in shape. */
  source: safeString.max(1000),
  /** sha256 of the trace's canonical CSV (`t_s,rps` rows as the simulator replays them), hex. */
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  kind: z.enum(['rate', 'timestamps', 'shape', 'cloudwatch']),
  duration_s: seconds('trace duration'),
  /** Arrivals the simulator drew from it (timestamps: the file's own). */
  requests: count('requests'),
  peak_rps: z.number().min(0).max(1e9),
  mean_rps: z.number().min(0).max(1e9),
  /** Epoch-anchored start (ISO), when the trace says when it began: scheduled actions are placed by it. */
  start: z.string().datetime({ offset: true }).nullable(),
});
export type TraceRef = z.infer<typeof traceRefSchema>;

const inputRef = z.object({ file: safeString, run_id: safeString });

export const tuneArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('tune'),
  model_name: safeString,
  run_id: runId,
  created_at: recordedAt,
  /** The measurements' fingerprint (the qmax's): what the chosen policy may be deployed onto. */
  fingerprint: fingerprintSchema,
  inputs: z.object({
    qmax: inputRef,
    ttotal: inputRef,
    goodput: inputRef.nullable(),
    drill: inputRef.nullable(),
  }),
  trace: traceRefSchema,
  settings: z.object({
    seed: z.number().int().min(0).max(2 ** 32 - 1),
    window_s: z.number().positive().max(3600),
    slo_ms: ms('slo'),
    max_overflow_probability: share,
    /** Seconds between alarm evaluations in the simulation (AWS: about one per period). */
    evaluation_interval_s: z.number().positive().max(600),
    /**
     * Seconds between a period's end and its datapoint reaching the alarms, per tracked metric: the
     * plan's policy lag less the scale-out alarm's own periods (so the simulated lag is the plan's).
     */
    metric_delay_s: z.partialRecord(scalingMetricSchema, z.number().min(0).max(3600)).optional(),
    /** The surge-safe per-instance rate the perfect fleet is sized with, requests/s (computed by the plan's method). */
    lambda_safe_rps: z.number().positive().max(1e9),
    /** The attainment a candidate must reach to be chosen (share of windows). */
    required_slo_attainment: share,
    t_plan_s: seconds('T_plan'),
  }),
  candidates: z.array(tuneEntrySchema).max(10_000),
  /** The cheapest candidate whose window attainment reaches required_slo_attainment (else the best attainment). */
  chosen: tuneEntrySchema,
  /** Whether `chosen` reached required_slo_attainment. */
  chosen_holds: z.boolean(),
  /** The seed's closed-loop rule (target 0.75 x Q_max on concurrency), scored the same way. */
  seed_rule: tuneEntrySchema,
  /** The lower bound on instance-hours: ceil(lambda(t) / lambda_safe) instances at every moment. */
  perfect_fleet: tuneEntrySchema,
  provenance: provenanceSchema,
});
export type TuneArtifact = z.infer<typeof tuneArtifactSchema>;
