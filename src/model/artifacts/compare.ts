/**
 * `scalegate compare`: one model's candidate plans (one per instance type, each measured on its
 * own calibration endpoint) ranked by what a million characters cost at the deployed operating
 * point, among the candidates that hold both SLOs; the cheapest that holds (and whose quota holds
 * its peak) is chosen. Every figure carries its origin: `measured` (read from a measurement the plan
 * carries), `computed` (derived by the plan or here), `stated` (the operator's config) or `bound`.
 */
import { z } from 'zod';
import { fingerprintSchema } from '../fingerprint.js';
import { boundedNumber, LIMITS, safeString } from '../safe.js';
import { instances, provenanceSchema, recordedAt, runId, SCHEMA_VERSION } from './common.js';
import { instancePriceSchema } from './cost.js';

/** A figure of the comparison with where it comes from; null value: not available (see the note). */
const figure = (what: string, max: number) =>
  z.object({
    value: boundedNumber(-max, max, what).nullable(),
    origin: z.enum(['measured', 'computed', 'stated', 'bound', 'lower bound']),
  });

/** Service Quotas for the candidate's instance type against its plan's peak, checked before any deploy. */
export const compareQuotaSchema = z.object({
  quota_name: safeString.nullable(),
  quota_value: instances('quota_value').nullable(),
  /** Instances of the type held by other endpoints of the region (the model's own are not counted). */
  instances_elsewhere: instances('instances_elsewhere').nullable(),
  /** Instances the plan's fleet needs at peak (computed by the plan). */
  needed: instances('needed'),
  /** false: the quota cannot hold the peak; null: not checked (no quota found, or unreadable). */
  holds: z.boolean().nullable(),
  source: safeString,
});
export type CompareQuota = z.infer<typeof compareQuotaSchema>;

export const compareCandidateSchema = z.object({
  /** `candidate <n>` (n: its place in the config, 0 the model's own instance type) or `unlisted`. */
  label: safeString.max(100),
  /** Its place in the config (0: the model's own `instance_type`); null when no declared candidate matches. */
  index: z.number().int().min(0).max(10).nullable(),
  file: safeString,
  run_id: runId,
  fingerprint: fingerprintSchema,
  instance_type: safeString,
  plan_verdict: z.enum(['ok', 'warn', 'stop']),
  q_max: figure('q_max', LIMITS.concurrency),
  lambda_safe_rps: figure('lambda_safe_rps', LIMITS.rps),
  /** goodput's lambda_max (measured; `lower bound` when no breach bracketed it), or null. */
  lambda_max_rps: figure('lambda_max_rps', LIMITS.rps),
  peak_instances: figure('peak_instances', LIMITS.instances),
  usd_per_hour_at_peak: figure('usd_per_hour_at_peak', LIMITS.usd * LIMITS.instances),
  usd_per_million_characters_target: figure('usd_per_million_characters_target', 1e12),
  usd_per_million_characters_surge_safe: figure('usd_per_million_characters_surge_safe', 1e12),
  price: instancePriceSchema.nullable(),
  /**
   * 1 - lambda_safe / capacity: the share of the instance's capacity inside the SLO the operating
   * point leaves unused (capacity: goodput's lambda_max when the plan has it, else the highest
   * throughput the qmax ladder measured inside the SLO). Computed; see `slo_margin_method`.
   */
  slo_margin: figure('slo_margin', 1),
  slo_margin_method: safeString,
  /** The plan's policy holds (overflow within tolerance with and without the surge). */
  policy_holds: z.boolean(),
  /** `ok`, `failed` (a continuity finding stopped the plan), or `not judged` (first audio only). */
  continuity: z.enum(['ok', 'failed', 'not judged']),
  /** Both SLOs hold: plan verdict not stop, policy holds, continuity not failed. */
  holds: z.boolean(),
  quota: compareQuotaSchema,
  /** Holds, its quota holds its peak, it has a cost per 1M characters, and the config declares it. */
  choosable: z.boolean(),
  /** On the Pareto frontier of cost per 1M characters (lower) vs SLO margin (higher), among those holding. */
  pareto: z.boolean(),
  /** 1-based rank by cost per 1M characters at the surge-safe load among the choosable; null when not choosable. */
  rank: z.number().int().positive().max(100).nullable(),
  /** Why it does not hold or cannot be chosen (empty when choosable). */
  reasons: z.array(safeString).max(20),
});
export type CompareCandidate = z.infer<typeof compareCandidateSchema>;

export const compareArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('compare'),
  model_name: safeString,
  run_id: runId,
  created_at: recordedAt,
  candidates: z.array(compareCandidateSchema).min(1).max(11),
  /** The chosen candidate's label and fingerprint; null when none is choosable. */
  chosen: z
    .object({ label: safeString.max(100), file: safeString, fingerprint: fingerprintSchema, run_id: runId })
    .nullable(),
  /** Where the chosen plan was copied (the model's committed plan path), or null. */
  chosen_plan_file: safeString.nullable(),
  findings: z.array(z.object({ name: safeString, detail: safeString, fix: safeString.nullable() })).max(50),
  provenance: provenanceSchema,
});
export type CompareArtifact = z.infer<typeof compareArtifactSchema>;
