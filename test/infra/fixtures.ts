/**
 * Plan fixtures for the gate and infra tests: a schema-valid plan with the Kokoro-82M values
 * published with the anchor artifacts (../shared/anchor-artifacts), built here so these tests do
 * not depend on `src/plan`'s derivation. `kokoroPlan(overrides)` changes any part of it.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ModelConfig,
  modelConfigSchema,
  type PlanArtifact,
  planArtifactSchema,
} from '../../src/model/index.js';

export const KOKORO_DIGEST = '8b1b96bc4dc0b30ddd84d8fe37af7c490937333c44a9f8f7d77b918c3d7eaced';
export const KOKORO_INSTANCE = 'ml.g5.xlarge';

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends object | null ? DeepPartial<NonNullable<T[K]>> | T[K] : T[K];
};

function merge<T>(base: T, patch: DeepPartial<T> | undefined): T {
  if (patch === undefined) return base;
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return patch as T;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [key, value] of Object.entries(patch as Record<string, unknown>)) {
    const current = out[key];
    out[key] =
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value) &&
      current !== null &&
      typeof current === 'object'
        ? merge(current, value as DeepPartial<typeof current>)
        : value;
  }
  return out as T;
}

const kokoroFingerprint = {
  instance_type: KOKORO_INSTANCE,
  image_digest: KOKORO_DIGEST,
  container_env: {},
  region: null,
};

export function kokoroPlan(overrides?: DeepPartial<PlanArtifact>): PlanArtifact {
  const base: PlanArtifact = {
    schema_version: 1,
    kind: 'plan',
    model_name: 'kokoro-82m',
    run_id: 'fixture00001',
    created_at: '2026-08-20T12:00:00.000Z',
    verdict: 'warn',
    warn_count: 2,
    fingerprint: kokoroFingerprint,
    inputs: {
      qmax: {
        file: 'artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
        run_id: 'a1b2c3d4e5f6',
        slug: 'g5xlarge-8b1b96bc',
        fingerprint: kokoroFingerprint,
      },
      ttotal: {
        file: 'artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
        run_id: 'f6e5d4c3b2a1',
        slug: 'g5xlarge-8b1b96bc',
        fingerprint: kokoroFingerprint,
      },
      t_total_stated_s: null,
      config_mismatch_allowed: false,
      mismatch_warnings: [],
    },
    chosen: {
      slo_ms: 3000,
      surge_ratio: 1.25,
      peak: { unit: 'rps', value: 5000 },
      trough: { unit: 'rps', value: 10 },
      min_instances_floor: 1,
      invocation_ceiling_s: 60,
      instance_hourly_usd: 1.41,
      instance_quota: null,
    },
    measured: {
      q_max: 50,
      q_max_bracketed: true,
      s_mean_s: 0.0613,
      s_p95_s: 0.0661,
      ttfab_p95_at_c1_ms: 65.37,
      t_total_s: 260.25,
      t_total_origin: 'measured',
      policy_lag_s: 60,
      policy_lag_bounded: true,
      cw_ratio: 1,
      cw_ratio_rung: 40,
    },
    derived: {
      t_plan_s: 320.25,
      h: 0.25,
      c_scale_max: 37.5,
      c_scale_min: 25,
      r: 1.5,
      min_safe_instances: 3,
      w_max_s: 2.934,
      x_target_rps: 17.9,
      peak_instances: 280,
      trough_instances: 1,
      naive_peak_instances: 9,
      surge_overflow_probability: 0.3,
      surge_fluid_overflow_s: 120,
    },
    deployable: {
      min_instances: 1,
      max_instances: 280,
      scaling_target_value: 37.5,
      scale_in_threshold: 25,
      queue_max_depth: 50,
      scale_out_cooldown_s: 30,
      scale_in_cooldown_s: 960,
      slo_ms: 3000,
      service_time_alarm_ms: 65.37,
    },
    findings: [
      { name: 'surge_survival', verdict: 'warn', detail: 'fixture', fix: null },
      { name: 'scale_in_safety', verdict: 'warn', detail: 'fixture', fix: 'raise min_instances_floor to 3' },
    ],
    provenance: { origin: 'measured', tool: 'scalegate test fixture', note: null },
  };
  return planArtifactSchema.parse(merge(base, overrides));
}

/** A plan whose derivation stopped (slo_budget), otherwise kokoro's. */
export const stopPlan = (): PlanArtifact =>
  kokoroPlan({
    verdict: 'stop',
    findings: [
      {
        name: 'slo_budget',
        verdict: 'stop',
        detail: 'S_p95 3.2 s >= SLO 3 s',
        fix: 'raise slo_ms or use a faster instance type',
      },
    ],
  });

/** A plan without a CloudWatch/client ratio: nothing deployable to scale on. */
export const noThresholdPlan = (): PlanArtifact =>
  kokoroPlan({
    measured: { cw_ratio: null, cw_ratio_rung: null },
    deployable: { scaling_target_value: null, scale_in_threshold: null },
  });

export const kokoroModel = (overrides: Partial<ModelConfig> = {}): ModelConfig =>
  modelConfigSchema.parse({
    endpoint: 'speech-kokoro-82m',
    variant: 'AllTraffic',
    region: 'us-east-1',
    instance_type: KOKORO_INSTANCE,
    image_uri: `{account}.dkr.ecr.{region}.amazonaws.com/speech-kokoro-82m@sha256:${KOKORO_DIGEST}`,
    container_env: {},
    slo_ms: 3000,
    surge_ratio: 1.25,
    peak_rps: 5000,
    trough_rps: 10,
    min_instances_floor: 1,
    invocation_ceiling_s: 60,
    ...overrides,
  });

/** A temp directory with `plan-<model>.json` for each plan given (null: no file). */
export function artifactsDirWith(plans: Record<string, PlanArtifact | string | null>): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-artifacts-'));
  for (const [model, plan] of Object.entries(plans)) {
    if (plan === null) continue;
    writeFileSync(
      join(dir, `plan-${model}.json`),
      typeof plan === 'string' ? plan : `${JSON.stringify(plan, null, 2)}\n`,
    );
  }
  return dir;
}
