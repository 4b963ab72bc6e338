/**
 * Plan fixtures for the gate and infra tests. `kokoroPlan()` is the plan `scalegate plan` derives
 * from the Kokoro-82M anchor measurements (committed under artifacts/)
 * with the region they were made in recorded (us-east-1; the legacy files did not record it), and
 * the Kokoro config's choices. The gate derives every plan again from its measurements, so each
 * fixture plan carries its measurements, and `artifactsDirWith` writes them beside it.
 * `kokoroPlan(overrides)` is that plan edited by hand afterwards (what the gate must refuse);
 * `measuredPlan(options)` is a plan really derived from other measurements or choices. A release
 * also needs the plan's proofs: `artifactsDirWith` writes a clean validate of each plan beside it
 * unless told otherwise (`cleanValidate`, `drillOf` build them).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { drillPrediction } from '../../src/analysis/drill-phases.js';
import {
  type DrillArtifact,
  drillFileName,
  fingerprintSlug,
  type ModelConfig,
  modelConfigSchema,
  type PlanArtifact,
  planArtifactSchema,
  type QmaxArtifact,
  qmaxFileName,
  readArtifact,
  type TtotalArtifact,
  ttotalFileName,
  type ValidateArtifact,
  validateFileName,
  writeArtifact,
} from '../../src/model/index.js';
import { derivePlan } from '../../src/plan/derive.js';
import { expectedRows } from '../../src/plan/policy-diff.js';
import { calibrationEndpointName, expectedPolicyShape } from '../../src/plan/policy-shape.js';
import { DECISION_METHOD } from '../../src/stats/rung-decision.js';
import { anchorQmaxFile, anchorTtotalFile } from '../helpers/anchor.js';
import { buildDrill, observerWith, windowsWith } from '../helpers/drill-data.js';

export const KOKORO_DIGEST = '8b1b96bc4dc0b30ddd84d8fe37af7c490937333c44a9f8f7d77b918c3d7eaced';
export const KOKORO_INSTANCE = 'ml.g5.xlarge';
/** Where the anchor measurements were made (not recorded by the legacy files). */
export const KOKORO_REGION = 'us-east-1';

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

export interface Measurements {
  qmax: QmaxArtifact;
  ttotal: TtotalArtifact | null;
}

export interface MeasuredPlanOptions {
  modelName?: string;
  /** The region the measurements record (null: a legacy measurement that recorded none). */
  region?: string | null;
  /** The config's region a plan of a legacy measurement takes (null: none taken). */
  legacyRegion?: string | null;
  imageDigest?: string;
  containerEnv?: Record<string, string>;
  /** No CloudWatch/client ratio measured: no deployable threshold. */
  noCloudWatchRatio?: boolean;
  /** S_p95 of the measurement, seconds (above the SLO: a stop plan). */
  serviceP95S?: number;
  qMax?: number;
  ttfabAtC1Ms?: number;
  tTotalS?: number;
  /** A policy lag read from a deployed policy (not the 60 s bound). */
  policyLagS?: number;
  /** The ttotal's probe never recovered: T_total ends at in_service, a lower bound. */
  lowerBoundTtotal?: boolean;
  peakRps?: number;
  troughRps?: number;
  surgeRatio?: number;
  minInstancesFloor?: number;
  /** The rule the deployable values follow. @default 'surge-safe' */
  policyRule?: 'surge-safe' | 'seed';
  /** The SLO the ladder was judged against and the plan chose. @default 3000 */
  sloMs?: number;
  /** The ttotal measured another container environment; planned with --allow-config-mismatch. */
  mismatchedTtotal?: boolean;
}

/** The anchor measurements, as they would be written today for `options`. */
export function kokoroMeasurements(options: MeasuredPlanOptions = {}): Measurements {
  const modelName = options.modelName ?? 'kokoro-82m';
  const fingerprint = {
    instance_type: KOKORO_INSTANCE,
    image_digest: options.imageDigest ?? KOKORO_DIGEST,
    container_env: options.containerEnv ?? {},
    region: options.region === undefined ? KOKORO_REGION : options.region,
  };
  const qmax = readArtifact('qmax', anchorQmaxFile);
  qmax.model_name = modelName;
  qmax.fingerprint = fingerprint;
  // As the qmax engine writes it today: each rung records its decision (the gate judges a rung
  // without one as legacy, accepted only as the committed file itself).
  qmax.provenance = { origin: 'measured', tool: 'scalegate test fixture', note: null };
  for (const step of qmax.steps) step.decision_method = DECISION_METHOD;
  const atC1 = qmax.steps.find((s) => s.concurrency === 1) as QmaxArtifact['steps'][number];
  if (options.noCloudWatchRatio) for (const step of qmax.steps) step.cw_ratio = null;
  // Every edit is made to the rungs too, so that the artifact follows from its rungs.
  if (options.serviceP95S !== undefined) {
    qmax.s_p95_s = options.serviceP95S;
    atC1.s_p95_s = options.serviceP95S;
  }
  if (options.qMax !== undefined) {
    const q = options.qMax;
    const top = Math.max(...qmax.steps.filter((s) => s.concurrency <= q).map((s) => s.concurrency));
    for (const step of qmax.steps) {
      if (step.concurrency === top) step.concurrency = q;
      else if (step.concurrency > q) {
        step.verdict = 'fail';
        step.meets_slo = false;
      }
    }
    qmax.q_max = q;
    qmax.q_max_per_run = [q];
    qmax.q_max_upper_bound = Math.min(
      ...qmax.steps.filter((s) => s.concurrency > q).map((s) => s.concurrency),
    );
    qmax.ttfab_p95_at_q_max_ms = qmax.steps.find((s) => s.concurrency === q)?.ttfab_p95_ms ?? null;
  }
  if (options.ttfabAtC1Ms !== undefined) {
    qmax.ttfab_p95_at_c1_ms = options.ttfabAtC1Ms;
    atC1.ttfab_p95_ms = options.ttfabAtC1Ms;
  }
  const ttotal = readArtifact('ttotal', anchorTtotalFile);
  ttotal.model_name = modelName;
  ttotal.fingerprint = fingerprint;
  const stage = (name: string) =>
    ttotal.timeline.find((t) => t.stage === name) as TtotalArtifact['timeline'][number];
  // Edits move the timeline with them: the gate derives T_total again from it.
  if (options.tTotalS !== undefined) {
    ttotal.t_total_s = options.tTotalS;
    stage('traffic_recovered').at = new Date(
      Date.parse(stage('desired_set').at) + options.tTotalS * 1000,
    ).toISOString();
  }
  if (options.sloMs !== undefined) qmax.slo_ms = options.sloMs;
  if (options.mismatchedTtotal) ttotal.fingerprint = { ...fingerprint, container_env: { VOICE: 'bf_emma' } };
  if (options.policyLagS !== undefined) {
    ttotal.policy_lag_s = options.policyLagS;
    ttotal.policy_lag_bounded = false;
  }
  if (options.lowerBoundTtotal) {
    // Traffic never recovered: the clock stopped when the instance came into service.
    stage('in_service').at = stage('traffic_recovered').at;
    ttotal.timeline = ttotal.timeline.filter((t) => t.stage !== 'traffic_recovered');
    ttotal.t_total_end_stage = 'in_service';
    ttotal.missing_stages = [...ttotal.missing_stages, 'traffic_recovered'];
  }
  return { qmax, ttotal };
}

const measurementsByPlan = new WeakMap<PlanArtifact, Measurements>();

/** The measurements a fixture plan was derived from (null for a plan built otherwise). */
export const measurementsOf = (plan: PlanArtifact): Measurements | null =>
  measurementsByPlan.get(plan) ?? null;

/** A plan `scalegate plan` really derives from (possibly other) measurements and choices. */
export function measuredPlan(options: MeasuredPlanOptions = {}): PlanArtifact {
  const modelName = options.modelName ?? 'kokoro-82m';
  const m = kokoroMeasurements(options);
  const plan = derivePlan({
    modelName,
    qmax: m.qmax,
    qmaxFile: `artifacts/${qmaxFileName(modelName, m.qmax.transport, m.qmax.fingerprint)}`,
    ttotal: m.ttotal,
    ttotalFile: m.ttotal
      ? `artifacts/${ttotalFileName(modelName, m.ttotal.trigger, m.ttotal.fingerprint)}`
      : null,
    tTotalStatedS: null,
    choices: {
      sloMs: options.sloMs ?? 3000,
      surgeRatio: options.surgeRatio ?? 1.25,
      peak: { unit: 'rps', value: options.peakRps ?? 5000 },
      trough: { unit: 'rps', value: options.troughRps ?? 10 },
      minInstancesFloor: options.minInstancesFloor ?? 1,
      invocationCeilingS: 60,
      instanceHourlyUsd: 1.41,
      instanceQuota: null,
      legacyRegion: options.legacyRegion ?? null,
      policyRule: options.policyRule ?? 'surge-safe',
    },
    allowConfigMismatch: options.mismatchedTtotal === true,
    runId: 'fixture00001',
    createdAt: '2026-08-20T12:00:00.000Z',
    tool: 'scalegate test fixture',
  });
  measurementsByPlan.set(plan, m);
  return plan;
}

/**
 * The Kokoro plan; with `overrides`, the same plan edited by hand afterwards (its measurements
 * unchanged, so the gate's re-derivation refuses it).
 */
export function kokoroPlan(overrides?: DeepPartial<PlanArtifact>): PlanArtifact {
  const derived = measuredPlan();
  if (overrides === undefined) return derived;
  const edited = planArtifactSchema.parse(merge(structuredClone(derived), overrides));
  measurementsByPlan.set(edited, measurementsOf(derived) as Measurements);
  return edited;
}

/** A plan whose derivation stopped (slo_budget: S_p95 3.2 s >= SLO 3 s), otherwise kokoro's. */
export const stopPlan = (): PlanArtifact => measuredPlan({ serviceP95S: 3.2 });

/** No CloudWatch/client ratio was measured: no deployable threshold. */
export const noThresholdPlan = (): PlanArtifact =>
  measuredPlan({ noCloudWatchRatio: true, policyRule: 'seed' });

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
    instance_hourly_usd: 1.41,
    ...overrides,
  });

/** Every row of `plan`'s policy on the calibration endpoint, read back as deployed (none without a threshold). */
export function readBackRows(plan: PlanArtifact, endpoint = calibrationEndpointName('speech-kokoro-82m')) {
  if (plan.deployable.scaling_target_value === null) return [];
  return expectedRows(
    expectedPolicyShape({ modelName: plan.model_name, endpoint, variant: 'AllTraffic' }, plan),
  ).map((row) => ({
    parameter: row.parameter,
    expected: row.value,
    deployed: row.value,
    verdict: 'match' as const,
  }));
}

/** A clean validate of `plan` (its policy deployed on the calibration endpoint and read back equal). */
export function cleanValidate(
  plan: PlanArtifact,
  overrides: Partial<ValidateArtifact> = {},
): ValidateArtifact {
  return {
    schema_version: 1,
    kind: 'validate',
    model_name: plan.model_name,
    endpoint: 'speech-kokoro-82m-calibration',
    region: plan.fingerprint.region ?? KOKORO_REGION,
    run_id: 'validate00001',
    // After the plan was made (the gate refuses a validate from before it).
    checked_at: new Date(
      Math.max(Date.parse('2026-08-21T12:00:00.000Z'), Date.parse(plan.created_at) + 1),
    ).toISOString(),
    verdict: 'clean',
    plan: {
      file: `artifacts/plan-${plan.model_name}.json`,
      run_id: plan.run_id,
      fingerprint: plan.fingerprint,
    },
    rows: readBackRows(plan),
    ...overrides,
  };
}

/**
 * A drill of `plan` on the calibration endpoint (the SLO held unless overridden; `mismatchAllowed`:
 * drilled with --allow-policy-mismatch; `sloBroken`: three steady windows overflowed, as the
 * plan's no-surge baseline predicted; `older`: written before the drill judged the SLO, with no
 * slo_held).
 */
export function drillOf(
  plan: PlanArtifact,
  overrides: Partial<DrillArtifact> & {
    mismatchAllowed?: boolean;
    sloBroken?: boolean;
    older?: boolean;
  } = {},
): DrillArtifact {
  const overflowing = { offered: 100, overflow: 20, ttfabMs: 700 };
  const drill = buildDrill({
    windows: overrides.sloBroken
      ? windowsWith({ 2: overflowing, 3: overflowing, 4: overflowing })
      : windowsWith(),
    observer: overrides.sloBroken ? observerWith({ breachS: 0 }) : null,
    fingerprint: plan.fingerprint,
    planRunId: plan.run_id,
    modelName: plan.model_name,
    // Judged against this plan's SLO and promises, as `scalegate drill --plan` records them.
    sloMs: plan.chosen.slo_ms,
    prediction: drillPrediction(plan, `artifacts/plan-${plan.model_name}.json`),
  });
  const { mismatchAllowed, sloBroken: _sloBroken, older, ...rest } = overrides;
  const { slo_held: _held, as_predicted: _predicted, slo: _slo, ...before } = drill;
  const base: DrillArtifact = older
    ? {
        ...before,
        analysis: {
          ...drill.analysis,
          windows: drill.analysis.windows.map(({ slo_held: _h, slo_reason: _r, ...w }) => w),
        },
        verdict: drill.broken_windows.length > 0 ? 'fail' : 'pass',
      }
    : drill;
  return {
    ...base,
    endpoint: 'speech-kokoro-82m-calibration',
    ...(mismatchAllowed ? { policy: { ...drill.policy, mismatch_allowed: true } } : {}),
    ...rest,
  };
}

export type PlanEntry =
  | PlanArtifact
  | string
  | null
  /**
   * A plan (or raw file text) with the measurements to write beside it (null: none), its validate
   * (default: a clean one of the plan; null: none) and drills (default: none).
   */
  | {
      plan: PlanArtifact | string;
      measurements: Measurements | null;
      validate?: ValidateArtifact | null;
      drills?: DrillArtifact[];
    };

/**
 * A temp directory with `plan-<model>.json` for each plan given (null: no file) and, beside it,
 * the qmax/ttotal artifacts it was derived from under the names the plan recorded.
 */
export function artifactsDirWith(plans: Record<string, PlanEntry>): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-artifacts-'));
  for (const [model, entry] of Object.entries(plans)) {
    if (entry === null) continue;
    const plan = typeof entry === 'object' && 'plan' in entry && !('kind' in entry) ? entry.plan : entry;
    const measurements =
      typeof entry === 'object' && 'plan' in entry && !('kind' in entry)
        ? entry.measurements
        : typeof plan === 'string'
          ? null
          : measurementsOf(plan as PlanArtifact);
    writeFileSync(
      join(dir, `plan-${model}.json`),
      typeof plan === 'string' ? plan : `${JSON.stringify(plan, null, 2)}\n`,
    );
    const proofs = typeof entry === 'object' && 'plan' in entry && !('kind' in entry) ? entry : null;
    const validate =
      proofs?.validate !== undefined
        ? proofs.validate
        : typeof plan === 'string'
          ? null
          : cleanValidate(plan as PlanArtifact);
    if (validate) writeArtifact('validate', join(dir, validateFileName(model)), validate);
    for (const drill of proofs?.drills ?? [])
      writeArtifact('drill', join(dir, drillFileName(model, drill.fingerprint)), drill);
    if (!measurements) continue;
    const named = typeof plan === 'string' ? null : (plan as PlanArtifact).inputs;
    const slug = fingerprintSlug(measurements.qmax.fingerprint);
    const qmaxName = named
      ? basename(named.qmax.file)
      : `qmax-${model}-${measurements.qmax.transport}-${slug}.json`;
    writeArtifact('qmax', join(dir, qmaxName), measurements.qmax);
    if (measurements.ttotal) {
      const ttotalName = named?.ttotal
        ? basename(named.ttotal.file)
        : `ttotal-${model}-${measurements.ttotal.trigger}-${slug}.json`;
      writeArtifact('ttotal', join(dir, ttotalName), measurements.ttotal);
    }
  }
  return dir;
}
