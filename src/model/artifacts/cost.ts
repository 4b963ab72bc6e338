import { z } from 'zod';
import { boundedNumber, LIMITS, regionSchema, safeString } from '../safe.js';

/** A calendar date, YYYY-MM-DD. */
export const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'a date YYYY-MM-DD');

/** Where an instance's hourly price came from. */
export const priceSourceSchema = z.enum([
  /** The AWS Price List API (GetProducts on AmazonSageMaker), queried when the plan was made. */
  'price-list-api',
  /** The committed fallback table (src/plan/price-table.ts), dated by `as_of`. */
  'fallback-table',
  /** The model config's `instance_hourly_usd` (stated by the operator). */
  'stated',
]);
export type PriceSource = z.infer<typeof priceSourceSchema>;

export const instancePriceSchema = z.object({
  instance_type: safeString,
  region: regionSchema,
  hourly_usd: boundedNumber(0, LIMITS.usd, 'hourly_usd').positive(),
  source: priceSourceSchema,
  /** Date of the price: the Price List's publication or effective date, the table's date, or null (stated). */
  as_of: isoDate.nullable(),
  /** The API's SKU, the table row, or the config key; for readers checking the figure. */
  reference: safeString.nullable(),
});
export type InstancePrice = z.infer<typeof instancePriceSchema>;

/** Throughput and unit cost of one instance at one per-instance load. */
export const costPointSchema = z.object({
  /** `target`: the deployed operating point; `surge_safe`: lambda_safe of the chosen policy. */
  at: z.enum(['target', 'surge_safe']),
  /** Requests per second per instance at that load (computed from the measured throughput curve). */
  rate_rps: boundedNumber(0, LIMITS.rps, 'cost rate_rps'),
  characters_per_s: boundedNumber(0, 1e9, 'cost characters_per_s'),
  /** null when the qmax recorded no audio (then characters came from the prompts). */
  audio_s_per_s: boundedNumber(0, 1e9, 'cost audio_s_per_s').nullable(),
  usd_per_million_characters: boundedNumber(0, 1e12, 'usd_per_million_characters'),
  usd_per_audio_hour: boundedNumber(0, 1e12, 'usd_per_audio_hour').nullable(),
  /** `computed` from the measured rate and audio per request and the price. */
  origin: z.literal('computed'),
});
export type CostPoint = z.infer<typeof costPointSchema>;

/** A managed service's price the team would otherwise pay, from the config (stated, never fetched). */
export const referencePriceSchema = z.object({
  name: safeString.min(1).max(100),
  usd_per_million_characters: boundedNumber(0, 1e9, 'reference usd_per_million_characters').positive(),
  origin: z.literal('stated'),
});
export type ReferencePrice = z.infer<typeof referencePriceSchema>;

/** The plan's cost block: what one million characters cost on this instance type at this policy. */
export const planCostSchema = z.object({
  /** null: no price known (none stated, the API unasked or silent, no table row); `note` says why. */
  price: instancePriceSchema.nullable(),
  /** Mean characters and audio seconds per request the figures use (from the qmax's audio summary). */
  characters_per_request: boundedNumber(0, 1e7, 'characters_per_request'),
  /** null when the qmax recorded no audio. */
  audio_s_per_request: boundedNumber(0, LIMITS.seconds, 'audio_s_per_request').nullable(),
  /** `measured` when the qmax recorded audio; otherwise null (no audio-hour figures). */
  audio_origin: z.enum(['measured']).nullable(),
  /**
   * Where the characters per request came from: the qmax's audio summaries (`qmax`), or the
   * prompts file the ladder sent, read when the qmax recorded no audio (`prompts`, computed).
   */
  characters_from: z.enum(['qmax', 'prompts']).nullable().optional(),
  points: z.array(costPointSchema).max(2),
  references: z.array(referencePriceSchema).max(20),
  /** Why a figure is missing (no audio recorded, no price), or null. */
  note: safeString.nullable(),
});
export type PlanCost = z.infer<typeof planCostSchema>;
