import { z } from 'zod';
import { fingerprintSchema } from '../fingerprint.js';
import { endpointNameSchema, regionSchema, safeString } from '../safe.js';
import { recordedAt, runId, SCHEMA_VERSION } from './common.js';
import { comparisonRowSchema } from './drift.js';

export const validateArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('validate'),
  model_name: safeString,
  endpoint: endpointNameSchema,
  region: regionSchema,
  run_id: runId,
  checked_at: recordedAt,
  verdict: z.enum(['clean', 'mismatch']),
  plan: z.object({
    file: safeString,
    run_id: safeString,
    /** The plan's fingerprint (what it may be deployed onto); absent in validates written before it was recorded. */
    fingerprint: fingerprintSchema.optional(),
  }),
  rows: z.array(comparisonRowSchema),
});
export type ValidateArtifact = z.infer<typeof validateArtifactSchema>;
