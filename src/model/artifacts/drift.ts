import { z } from 'zod';
import { endpointNameSchema, regionSchema, safeString } from '../safe.js';
import { recordedAt, runId, SCHEMA_VERSION } from './common.js';

export const comparisonRowSchema = z.object({
  parameter: safeString,
  expected: z.union([safeString, z.number(), z.boolean(), z.null()]),
  deployed: z.union([safeString, z.number(), z.boolean(), z.null()]),
  verdict: z.enum(['match', 'mismatch', 'missing', 'extra', 'warn']),
});
export type ComparisonRow = z.infer<typeof comparisonRowSchema>;

export const driftArtifactSchema = z.object({
  schema_version: z.literal(SCHEMA_VERSION),
  kind: z.literal('drift'),
  model_name: safeString,
  endpoint: endpointNameSchema,
  region: regionSchema,
  run_id: runId,
  checked_at: recordedAt,
  verdict: z.enum(['preflight-ok', 'drift']),
  plan: z.object({ file: safeString, run_id: safeString }).nullable(),
  findings: z.array(
    z.object({
      check: safeString,
      verdict: z.enum(['ok', 'warn', 'drift']),
      detail: safeString,
      remediation: safeString.nullable(),
    }),
  ),
  rows: z.array(comparisonRowSchema),
});
export type DriftArtifact = z.infer<typeof driftArtifactSchema>;
