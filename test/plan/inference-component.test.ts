// Inference-component models: the config's cross-field rules, the packing in the fingerprint, and
// the plan's IC block derived from the anchor measurements (real AWS numbers).
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runPlan } from '../../src/commands/plan.js';
import {
  type ComparisonRow,
  configFingerprint,
  fingerprintDifferences,
  type InferenceComponentConfig,
  type InferenceComponentPlan,
  inferenceComponentConfigSchema,
  type ModelConfig,
  modelConfigSchema,
  type PlanArtifact,
  parseConfig,
  readArtifact,
  type ValidateArtifact,
} from '../../src/model/index.js';
import { sharesDevice } from '../../src/model/inference-component.js';
import { evaluateGate } from '../../src/plan/gate.js';
import { validateRowProblems } from '../../src/plan/gate-proofs.js';
import {
  attachInferenceComponent,
  containerStagesS,
  deriveInferenceComponentPlan,
} from '../../src/plan/inference-component.js';
import { expectedIcRows } from '../../src/plan/inference-component-rows.js';
import { renderPlanReport } from '../../src/report/plan-text.js';
import { modelConfig, workspace } from '../commands/local-apply-fixtures.js';
import { anchorQmaxFile, anchorTtotalFile } from '../helpers/anchor.js';
import { KOKORO_DIGEST, kokoroModel, measuredPlan, measurementsOf } from '../infra/fixtures.js';

const base = {
  endpoint: 'speech-tts',
  region: 'us-east-1',
  instance_type: 'ml.g5.xlarge',
  image_uri: '1.dkr.ecr.us-east-1.amazonaws.com/tts@sha256:abc',
  slo_ms: 3000,
  surge_ratio: 1.25,
};
const block = {
  copies_per_instance: 2,
  cpu_cores: 2,
  memory_mb: 4096,
  min_copies: 0,
  max_copies: 8,
  instance_bounds: { min: 0, max: 4 },
};
const parseModel = (extra: Record<string, unknown>) => modelConfigSchema.safeParse({ ...base, ...extra });
const messages = (extra: Record<string, unknown>) => {
  const r = parseModel(extra);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('inference-component model config', () => {
  it('reads a model without kind as a variant, so every existing config keeps its meaning', () => {
    const r = parseModel({});
    expect(r.success && r.data.kind).toBe('variant');
  });

  it('accepts a scale-to-zero component and fills the wake and retry defaults', () => {
    const r = parseModel({ kind: 'inference-component', inference_component: block });
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data.inference_component).toMatchObject({
      wake_tolerance_s: 60,
      idle_scale_in_minutes: 15,
      client_retry_attempts: 5,
      client_retry_backoff_s: 10,
    });
  });

  it('refuses min_copies 0 with an instance floor, which would bill idle instances holding no copy', () => {
    expect(
      messages({
        kind: 'inference-component',
        inference_component: { ...block, instance_bounds: { min: 1, max: 4 } },
      }),
    ).toEqual([
      expect.stringMatching(
        /^inference_component\.instance_bounds\.min: min_copies 0 \(scale to zero\) needs instance_bounds\.min 0/,
      ),
    ]);
  });

  it('refuses more copies than the instances can pack, which could never be placed', () => {
    expect(
      messages({ kind: 'inference-component', inference_component: { ...block, max_copies: 9 } }),
    ).toEqual([
      'inference_component.max_copies: max_copies 9 exceeds instance_bounds.max 4 x copies_per_instance 2 = 8: copies beyond it never find room',
    ]);
  });

  it('refuses a multi-model endpoint with a message saying one model per endpoint', () => {
    expect(
      messages({ kind: 'inference-component', inference_component: { ...block, models: ['other'] } }),
    ).toEqual([
      expect.stringMatching(/^inference_component\.models: multi-model endpoints are not supported/),
    ]);
  });

  it('refuses a fraction of an accelerator, which SageMaker refuses at deploy (NumberOfAcceleratorDevicesRequired >= 1), naming how copies share a device', () => {
    expect(
      messages({ kind: 'inference-component', inference_component: { ...block, accelerators: 0.5 } }),
    ).toEqual([
      expect.stringMatching(
        /^inference_component\.accelerators: accelerators 0\.5: .*leave accelerators out and state cpu_cores/,
      ),
    ]);
    expect(
      messages({ kind: 'inference-component', inference_component: { ...block, accelerators: 1 } }),
    ).toEqual([]);
  });

  it('refuses a block without its kind and a kind without its block, so neither is silently ignored', () => {
    expect(messages({ inference_component: block })).toEqual([
      "kind: an inference_component block needs kind 'inference-component'",
    ]);
    expect(messages({ kind: 'inference-component' })).toEqual([
      "inference_component: kind 'inference-component' needs an inference_component block",
    ]);
  });

  it('reports the offending file through parseConfig, so the user finds the bad block', () => {
    const text = JSON.stringify({
      models: {
        m: { ...base, kind: 'inference-component', inference_component: { ...block, min_copies: 9 } },
      },
    });
    expect(() => parseConfig(text, 'x.json')).toThrow(
      /x\.json: invalid scalegate config:[\s\S]*min_copies 9 exceeds max_copies 8/,
    );
  });
});

describe('packing in the fingerprint', () => {
  const icModel = (ic: Partial<InferenceComponentConfig>) =>
    ({
      instance_type: 'ml.g5.xlarge',
      container_env: {},
      kind: 'inference-component',
      inference_component: inferenceComponentConfigSchema.parse({ ...block, ...ic }),
    }) as ModelConfig;

  it('names the packing when two fingerprints differ only there, so a plan for one packing never pairs with another', () => {
    const a = configFingerprint(icModel({}), 'abc', 'us-east-1');
    const b = configFingerprint(icModel({ copies_per_instance: 4, max_copies: 8 }), 'abc', 'us-east-1');
    expect(fingerprintDifferences(a, b).map((d) => d.field)).toEqual(['inference_component']);
    expect(fingerprintDifferences(a, a)).toEqual([]);
  });

  it('distinguishes an IC fingerprint from a variant one, and leaves variant fingerprints unchanged', () => {
    const variant = configFingerprint(
      { instance_type: 'ml.g5.xlarge', container_env: {} },
      'abc',
      'us-east-1',
    );
    expect(variant).not.toHaveProperty('inference_component');
    const ic = configFingerprint(icModel({}), 'abc', 'us-east-1');
    expect(fingerprintDifferences(variant, ic).map((d) => d.field)).toEqual(['inference_component']);
  });
});

describe('the plan of an inference-component model', () => {
  const icConfig = (ic: Record<string, unknown> = {}) =>
    inferenceComponentConfigSchema.parse({
      ...block,
      max_copies: 400,
      instance_bounds: { min: 0, max: 200 },
      ...ic,
    });
  const plan = (ic: Record<string, unknown> = {}) => {
    const dir = workspace('ic-plan');
    const model = {
      ...modelConfig(),
      kind: 'inference-component' as const,
      inference_component: icConfig(ic),
    };
    const r = runPlan(
      {
        modelName: 'kokoro-82m',
        model,
        qmaxFile: anchorQmaxFile,
        ttotalFile: anchorTtotalFile,
        allowConfigMismatch: true,
        outFile: join(dir, 'plan.json'),
        failOn: 'stop',
        priceSource: 'config',
      },
      { version: 'test' },
    );
    if (!r.artifact) throw new Error(r.report);
    return { ...r, artifact: r.artifact };
  };

  it('bounds the warm path by the ttotal container stages (container_started to traffic_recovered)', () => {
    // 14:47:56.267 -> 14:49:11.956 in the anchor ttotal.
    expect(containerStagesS(readArtifact('ttotal', anchorTtotalFile))).toBeCloseTo(75.689, 3);
  });

  it('tells copies sharing a device (no accelerator reserved, accelerated instance, more than one a instance) from copies with their own compute, so a shared device is never counted twice', () => {
    expect(sharesDevice({ copies_per_instance: 2 }, 'ml.g5.xlarge')).toBe(true);
    expect(sharesDevice({ copies_per_instance: 2, accelerators: 1 }, 'ml.g5.12xlarge')).toBe(false);
    expect(sharesDevice({ copies_per_instance: 1 }, 'ml.g5.xlarge')).toBe(false);
    expect(sharesDevice({ copies_per_instance: 4 }, 'ml.c5.2xlarge')).toBe(false);
    expect(sharesDevice({ copies_per_instance: 2 }, 'ml.inf2.xlarge')).toBe(true);
  });

  it('derives the copy target, copy and instance bounds, per-path T_plan and the one-request wake alarm (2 copies sharing one device: each holds half of it)', () => {
    const r = plan();
    const ic = r.artifact.inference_component;
    expect(ic).toBeTruthy();
    if (!ic) return;
    const p = r.artifact;
    expect(ic.copies).toEqual({
      min: 0,
      max: 400,
      peak: 2 * p.derived.peak_instances,
      trough: 2 * p.derived.trough_instances,
    });
    expect(ic.instances).toEqual({ min: 0, max: 200 });
    const candidate = p.policy?.candidates.find((c) => c.metric === 'ConcurrentRequestsPerModel');
    expect(ic.copy_target.value).toBeCloseTo((candidate?.target_value ?? Number.NaN) / 2, 1);
    expect(ic.copy_target.lambda_safe_per_copy_rps).toBeCloseTo(
      (p.derived.lambda_safe_rps ?? Number.NaN) / 2,
      2,
    );
    expect(ic.assumptions[0]).toMatch(/divided among the 2 copies that share it/);
    expect(ic.copy_target.predefined_metric).toBe(
      'SageMakerInferenceComponentConcurrentRequestsPerCopyHighResolution',
    );
    expect(ic.paths.cold.t_plan_s).toBeCloseTo(p.derived.t_plan_s, 1);
    expect(ic.paths.warm.origin).toBe('bound');
    // The anchor's policy lag is the 60 s bound (no deployed policy read): the cold path is a bound too.
    expect([p.measured.policy_lag_s, p.measured.policy_lag_bounded]).toEqual([60, true]);
    expect(ic.paths.cold.origin).toBe('bound');
    expect(ic.paths.warm.t_plan_s).toBeCloseTo(p.measured.policy_lag_s + 75.7, 1);
    expect(ic.paths.warm.t_plan_s).toBeLessThan(ic.paths.cold.t_plan_s);
    const wake = ic.scale_to_zero?.wake.alarm;
    expect(wake).toMatchObject({
      metric: 'NoCapacityInvocationFailures',
      statistic: 'Sum',
      period_s: 60,
      evaluation_periods: 1,
      datapoints_to_alarm: 1,
      threshold: 1,
      comparison: 'GreaterThanOrEqualToThreshold',
    });
    expect(ic.scale_to_zero?.wake_s).toBeCloseTo(60 + p.measured.t_total_s, 0);
    expect(ic.assumptions.join(' ')).toMatch(/measured as one copy on one instance/);
    expect(p.fingerprint.inference_component).toEqual(ic.packing);
    expect(ic.packing).toEqual({
      copies_per_instance: 2,
      accelerators: null,
      cpu_cores: 2,
      memory_mb: 4096,
    });
    expect(renderPlanReport(p, null, false)).toMatch(
      /copy target\s+[\d.]+ ConcurrentRequestsPerCopy \(computed\)/,
    );
  });

  it('warns when the wake exceeds the tolerance and the retries cannot cover it, naming the attempts needed', () => {
    const r = plan({ wake_tolerance_s: 30, client_retry_attempts: 2, client_retry_backoff_s: 10 });
    const byName = new Map((r.artifact?.findings ?? []).map((f) => [f.name, f]));
    expect(byName.get('ic_wake_tolerance')?.verdict).toBe('warn');
    const retry = byName.get('ic_retry_budget');
    expect(retry?.verdict).toBe('warn');
    const needed = Math.ceil((r.artifact?.inference_component?.scale_to_zero?.wake_s ?? 0) / 10);
    expect(retry?.fix).toContain(`at least ${needed}`);
    expect(r.artifact?.verdict).not.toBe('ok');
  });

  it('accepts measured per-path T_total through the seam, labelling them measured', () => {
    const p = plan().artifact;
    const { block: ic } = deriveInferenceComponentPlan({
      plan: p,
      ttotal: null,
      endpoint: 'e',
      variant: 'AllTraffic',
      config: icConfig(),
      measuredPaths: { warmS: 20, coldS: 200, zeroS: 250 },
    });
    expect([ic.paths.warm.origin, ic.paths.cold.origin, ic.paths.zero?.origin]).toEqual([
      'measured',
      'measured',
      'measured',
    ]);
    expect(ic.paths.warm.t_plan_s).toBeCloseTo(p.measured.policy_lag_s + 20, 1);
    expect(ic.scale_to_zero?.wake_s).toBe(250);
  });

  it('has no scale-to-zero rules when min_copies > 0, so validate expects no wake alarm', () => {
    const ic = plan({ min_copies: 1, instance_bounds: { min: 1, max: 200 } }).artifact.inference_component;
    expect(ic?.scale_to_zero).toBeNull();
    expect(ic && expectedIcRows(ic).some((r) => r.parameter.includes('wake'))).toBe(false);
    // A component that keeps a copy scales in by its target tracking, as a variant does.
    expect(ic?.copy_target.disable_scale_in).toBe(false);
  });

  it('never lets a policy undo a wake: scale to zero turns the copy tracking scale-out only and removes copies by a 15-minute rule that counts missing minutes as not breaching and leaves idle minutes to the idle rule', () => {
    const ic = plan().artifact.inference_component;
    if (!ic?.scale_to_zero) throw new Error('the plan has no scale-to-zero block');
    expect(ic.copy_target.disable_scale_in).toBe(true);
    const rule = ic.scale_to_zero.copy_scale_in;
    const threshold = Math.round(ic.copy_target.value * 0.9 * 100) / 100;
    expect(rule?.alarm).toMatchObject({
      metric: 'ConcurrentRequestsPerCopy',
      statistic: 'Maximum',
      period_s: 60,
      evaluation_periods: 15,
      datapoints_to_alarm: 15,
      threshold,
      comparison: 'LessThanThreshold',
      // Missing minutes (no copy, or before a wake) never count towards removing the woken copy.
      missing_data: 'notBreaching',
    });
    // Busiest copy >= 1 in some minute: one copy fewer; never busy: no change (the idle rule's).
    const traffic = Math.round((0.5 - threshold) * 100) / 100;
    expect(rule?.steps).toEqual([
      { lower: traffic, upper: 0, adjustment: -1 },
      { lower: null, upper: traffic, adjustment: 0 },
    ]);
    expect(rule?.cooldown_s).toBe(ic.copy_target.scale_in_cooldown_s);
    const rows = new Map(expectedIcRows(ic).map((r) => [r.parameter, r.value]));
    expect(rows.get('inference_component.copy_target.disable_scale_in')).toBe(true);
    expect(rows.get('inference_component.copy_scale_in.alarm.missing_data')).toBe('notBreaching');
    expect(rows.get('inference_component.copy_scale_in.policy.steps')).toBe(
      [`${traffic}..0:-1`, `..${traffic}:0`].sort().join(' '),
    );
    expect(renderPlanReport(plan().artifact, null, false)).toMatch(
      /copy scale-in\s+-1 copy after 15 minutes .*missing minutes not breaching/,
    );
  });
});

describe('the release gate on an inference-component plan', () => {
  const icCfg = inferenceComponentConfigSchema.parse({
    ...block,
    max_copies: 400,
    instance_bounds: { min: 0, max: 200 },
  });
  const base = measuredPlan();
  const m = measurementsOf(base);
  if (!m) throw new Error('fixture plan without measurements');
  const icPlanOf = (p: PlanArtifact) =>
    attachInferenceComponent(p, {
      ttotal: m.ttotal,
      endpoint: 'speech-kokoro-82m',
      variant: 'AllTraffic',
      config: icCfg,
    });
  const gate = (plan: PlanArtifact, model: ModelConfig) =>
    evaluateGate({
      modelName: 'kokoro-82m',
      model,
      planFile: 'artifacts/plan-kokoro-82m.json',
      plan,
      measurements: {
        qmax: m.qmax,
        qmaxFile: plan.inputs.qmax.file,
        ttotal: m.ttotal,
        ttotalFile: plan.inputs.ttotal?.file ?? null,
        error: null,
      },
      deployImageDigest: KOKORO_DIGEST,
      deployRegion: 'us-east-1',
      // The calibration deploy's gate: the proofs are not what this checks.
      proofs: null,
    });
  const icModel = (ic: Record<string, unknown> = {}) =>
    kokoroModel({
      kind: 'inference-component',
      inference_component: inferenceComponentConfigSchema.parse({ ...icCfg, ...ic }),
    });
  const check = (r: ReturnType<typeof gate>, name: string) => r.checks.find((c) => c.check === name);

  it('derives the component block again and accepts it when the config declares the same packing', () => {
    const r = gate(icPlanOf(base), icModel());
    expect(check(r, 'rederived')?.ok).toBe(true);
    expect(check(r, 'plan_config')?.ok).toBe(true);
    expect(r.rederived?.inference_component).toEqual(icPlanOf(base).inference_component);
  });

  it('refuses a plan for another packing than the config declares, naming it', () => {
    const r = gate(icPlanOf(base), icModel({ copies_per_instance: 4 }));
    expect(check(r, 'plan_config')?.ok).toBe(false);
    expect(check(r, 'plan_config')?.detail).toMatch(
      /inference_component speech-kokoro-82m-ic: 2 copies\/instance.* \(plan\) vs speech-kokoro-82m-ic: 4 copies\/instance/,
    );
  });

  it('refuses a component block edited by hand (a copy target the measurements do not give)', () => {
    const plan = icPlanOf(base);
    const ic = plan.inference_component;
    if (!ic) throw new Error('no block');
    const edited = {
      ...plan,
      inference_component: { ...ic, copy_target: { ...ic.copy_target, value: ic.copy_target.value + 1 } },
    };
    const r = gate(edited, icModel());
    expect(check(r, 'rederived')?.ok).toBe(false);
    expect(check(r, 'rederived')?.detail).toContain('inference_component');
  });

  it('refuses a variant plan for a model now declared as a component, and the reverse', () => {
    expect(check(gate(base, icModel()), 'plan_config')?.ok).toBe(false);
    expect(check(gate(icPlanOf(base), kokoroModel()), 'plan_config')?.ok).toBe(false);
  });
});

describe('the validate proof of an inference-component plan', () => {
  const icPlan = () => {
    const base = measuredPlan();
    const m = measurementsOf(base);
    return attachInferenceComponent(base, {
      ttotal: m?.ttotal ?? null,
      endpoint: 'speech-kokoro-82m',
      variant: 'AllTraffic',
      config: inferenceComponentConfigSchema.parse({
        ...block,
        max_copies: 400,
        instance_bounds: { min: 0, max: 200 },
      }),
    });
  };
  const validateOf = (plan: PlanArtifact, edit?: (rows: ComparisonRow[]) => void): ValidateArtifact => {
    const rows: ComparisonRow[] = expectedIcRows(plan.inference_component as InferenceComponentPlan).map(
      (r) => ({
        parameter: r.parameter,
        expected: r.value,
        deployed: r.value,
        verdict: 'match',
      }),
    );
    edit?.(rows);
    return {
      schema_version: 1,
      kind: 'validate',
      model_name: 'kokoro-82m',
      endpoint: 'speech-kokoro-82m',
      region: 'local',
      run_id: 'r',
      checked_at: '2026-12-02T00:00:00.000Z',
      verdict: 'clean',
      plan: { file: 'p.json', run_id: plan.run_id, fingerprint: plan.fingerprint },
      rows,
    };
  };

  it("takes a clean validate of the component's rows as the proof, and names a component row that differed", () => {
    const plan = icPlan();
    expect(validateRowProblems(validateOf(plan), plan, 'kokoro-82m', 'AllTraffic')).toEqual([]);
    const bad = validateOf(plan, (rows) => {
      const row = rows.find((r) => r.parameter === 'inference_component.copy_target.value');
      if (row) Object.assign(row, { deployed: 99, verdict: 'mismatch' });
    });
    expect(validateRowProblems(bad, plan, 'kokoro-82m', 'AllTraffic')).toEqual([
      expect.stringMatching(/^inference_component\.copy_target\.value deployed 99/),
    ]);
  });
});
