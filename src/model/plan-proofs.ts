/**
 * The proofs committed beside a plan that the release gate requires: the validate of its deployed
 * policy (`validate-<model>.json`, a fixed name) and the drills of it (`drill-<model>-<slug>.json`,
 * found by the plan run id they name). Reading only; judging them is the gate's (src/plan/gate.ts).
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { PlanArtifact, ValidateArtifact } from './artifacts.js';
import type { DrillArtifact } from './drill.js';
import { isUsageError } from './errors.js';
import { readArtifact } from './io.js';
import { validateFileName } from './names.js';

export interface PlanProofs {
  /** Where the validate was looked for. */
  validateFile: string;
  validate: ValidateArtifact | null;
  /** Why there is no usable validate (no file, unreadable); null when read. */
  validateError: string | null;
  /** The drills of this plan (by plan run id), with their files, newest first. */
  drills: Array<{ file: string; drill: DrillArtifact }>;
  /** drill-<model>-*.json files that could not be read, with why. */
  drillErrors: string[];
}

export function findPlanProofs(plan: PlanArtifact, artifactsDir: string): PlanProofs {
  const validateFile = join(artifactsDir, validateFileName(plan.model_name));
  let validate: ValidateArtifact | null = null;
  let validateError: string | null = null;
  if (!existsSync(validateFile)) {
    validateError = `${validateFile}: no such file`;
  } else {
    try {
      validate = readArtifact('validate', validateFile);
    } catch (e) {
      if (!isUsageError(e)) throw e;
      validateError = e.message;
    }
  }
  let names: string[] = [];
  try {
    names = readdirSync(artifactsDir).sort();
  } catch {
    // No directory: no drill either.
  }
  const drills: PlanProofs['drills'] = [];
  const drillErrors: string[] = [];
  for (const name of names) {
    if (!name.startsWith(`drill-${plan.model_name}-`) || !name.endsWith('.json')) continue;
    const file = join(artifactsDir, name);
    try {
      const drill = readArtifact('drill', file);
      if (drill.plan_run_id === plan.run_id) drills.push({ file, drill });
    } catch (e) {
      if (!isUsageError(e)) throw e;
      drillErrors.push(e.message);
    }
  }
  drills.sort((a, b) => b.drill.measured_at.localeCompare(a.drill.measured_at));
  return { validateFile, validate, validateError, drills, drillErrors };
}
