/**
 * Candidate plans for the compare tests: the committed Kokoro plan (real measurements) with the
 * fingerprint of one candidate instance type and a cost block priced at a stated $/h, so the
 * figures compare ranks by are known exactly.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readConfigFile } from '../../src/model/config.js';
import {
  type ModelConfig,
  modelFromConfig,
  type PlanArtifact,
  type PlanCost,
} from '../../src/model/index.js';
import { configFile, repoRoot } from '../helpers/anchor.js';

export const MODEL = 'kokoro-82m';
export const anchorPlanFile = join(repoRoot, 'artifacts', 'plan-kokoro-82m.json');

/** The Kokoro model with candidates: [0] its own ml.g5.xlarge, [1] ml.g6.xlarge, [2] ml.g4dn.xlarge. */
export function candidateModel(extra: Partial<ModelConfig> = {}): ModelConfig {
  const [, model] = modelFromConfig(readConfigFile(configFile), MODEL, configFile);
  return {
    ...model,
    candidates: [
      { instance_type: 'ml.g6.xlarge', container_env: {} },
      { instance_type: 'ml.g4dn.xlarge', container_env: { DEVICE_LANES: '2' } },
    ],
    ...extra,
  };
}

/** A cost block at `hourly` $/h with the given $ per 1M characters at the target and surge-safe. */
export function costBlock(instanceType: string, hourly: number, target: number, surgeSafe: number): PlanCost {
  const point = (at: 'target' | 'surge_safe', usdPerM: number) => ({
    at,
    rate_rps: 10,
    characters_per_s: (hourly / 3600 / usdPerM) * 1e6,
    audio_s_per_s: 20,
    usd_per_million_characters: usdPerM,
    usd_per_audio_hour: 1,
    origin: 'computed' as const,
  });
  return {
    price: {
      instance_type: instanceType,
      region: 'us-east-1',
      hourly_usd: hourly,
      source: 'stated',
      as_of: null,
      reference: 'instance_hourly_usd',
    },
    characters_per_request: 120,
    audio_s_per_request: 8,
    audio_origin: 'measured',
    points: [point('target', target), point('surge_safe', surgeSafe)],
    references: [],
    note: null,
  };
}

export interface CandidateSpec {
  instanceType: string;
  containerEnv?: Record<string, string>;
  hourly: number;
  /** $ per 1M characters at the target; surge-safe is 1.25 x it. */
  usdPerM: number;
  peakInstances?: number;
  edit?: (plan: PlanArtifact) => void;
}

/** Writes the candidate's plan as `<dir>/<name>/plan-kokoro-82m.json` (as the workflow's compare job lays them out). */
export function candidatePlan(dir: string, name: string, spec: CandidateSpec): string {
  const plan = JSON.parse(readFileSync(anchorPlanFile, 'utf8')) as PlanArtifact;
  plan.fingerprint = {
    ...plan.fingerprint,
    instance_type: spec.instanceType,
    container_env: spec.containerEnv ?? {},
  };
  plan.run_id = `run-${name}`;
  plan.derived.peak_instances = spec.peakInstances ?? 3;
  plan.cost = costBlock(spec.instanceType, spec.hourly, spec.usdPerM, spec.usdPerM * 1.25);
  spec.edit?.(plan);
  const sub = join(dir, name);
  mkdirSync(sub, { recursive: true });
  const file = join(sub, `plan-${MODEL}.json`);
  writeFileSync(file, `${JSON.stringify(plan, null, 2)}\n`);
  return file;
}
