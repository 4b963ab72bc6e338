/**
 * The plan's choices must be the config's (a plan at SLO 60 000 ms is no plan for a config that says
 * 3 000), and a plan made with --allow-config-mismatch is refused at release but still deployed for
 * calibration.
 */
import { describe, expect, it } from 'vitest';
import type { PlanArtifact } from '../../src/model/index.js';
import { evaluateGate, GATE_CHECKS, type GateInput } from '../../src/plan/gate.js';
import { planConfigDifferences } from '../../src/plan/gate-config.js';
import {
  cleanValidate,
  KOKORO_DIGEST,
  kokoroModel,
  kokoroPlan,
  measuredPlan,
  measurementsOf,
} from '../infra/fixtures.js';

function gate(plan: PlanArtifact, overrides: Partial<GateInput> = {}) {
  const m = measurementsOf(plan) as NonNullable<ReturnType<typeof measurementsOf>>;
  return evaluateGate({
    modelName: 'kokoro-82m',
    model: kokoroModel(),
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
    proofs: {
      validateFile: 'v.json',
      validate: cleanValidate(plan),
      validateError: null,
      drills: [],
      drillErrors: [],
    },
    ...overrides,
  });
}
const checkOf = (r: ReturnType<typeof evaluateGate>, name: string) => r.checks.find((c) => c.check === name);
const failed = (r: ReturnType<typeof evaluateGate>) => r.checks.filter((c) => !c.ok).map((c) => c.check);

describe('plan_config: the plan was made for the requirements the config states', () => {
  it('passes a plan made from the config', () => {
    expect(checkOf(gate(kokoroPlan()), 'plan_config')).toMatchObject({ ok: true, fix: null });
    expect(planConfigDifferences(kokoroPlan(), kokoroModel())).toEqual([]);
  });

  it('refuses a plan at SLO 60 000 ms where the config says 3 000 ms (prevents a PR planning against a lax SLO of its own)', () => {
    const lax = measuredPlan({ sloMs: 60000 });
    const r = gate(lax);
    expect(failed(r)).toEqual(['plan_config']);
    expect(checkOf(r, 'plan_config')?.detail).toContain('slo_ms 60000 (plan) vs 3000 (config)');
    expect(checkOf(r, 'plan_config')?.fix).toContain('scalegate plan --model kokoro-82m --qmax');
    // The same plan passes against a config that states that SLO.
    expect(failed(gate(lax, { model: kokoroModel({ slo_ms: 60000 }) }))).toEqual([]);
  });

  it('names every chosen value that differs: surge ratio, loads, floor, overflow tolerance, price, quota', () => {
    const model = kokoroModel({
      surge_ratio: 1.4,
      peak_rps: 9000,
      trough_rps: 20,
      min_instances_floor: 3,
      max_overflow_probability: 0.01,
      instance_hourly_usd: 2,
      instance_quota: 500,
    });
    expect(planConfigDifferences(kokoroPlan(), model)).toEqual([
      'surge_ratio 1.25 (plan) vs 1.4 (config)',
      'peak 5000 rps (plan) vs 9000 rps (config)',
      'trough 10 rps (plan) vs 20 rps (config)',
      'min_instances_floor 1 (plan) vs 3 (config)',
      'instance_hourly_usd 1.41 (plan) vs 2 (config)',
      'instance_quota none (plan) vs 500 (config)',
      'max_overflow_probability 0.05 (plan) vs 0.01 (config)',
    ]);
  });

  it('refuses the seed rule (a comparison plan), which `scalegate plan` never chooses from the config', () => {
    expect(planConfigDifferences(measuredPlan({ policyRule: 'seed' }), kokoroModel())).toEqual([
      'policy_rule seed (plan) vs surge-safe (config)',
    ]);
  });
});

describe('config_mismatch: a plan made with --allow-config-mismatch', () => {
  const mismatched = measuredPlan({ mismatchedTtotal: true });

  it('is refused at release, naming the mismatch', () => {
    expect(mismatched.inputs.config_mismatch_allowed).toBe(true);
    const r = gate(mismatched);
    expect(failed(r)).toEqual(['config_mismatch']);
    expect(checkOf(r, 'config_mismatch')?.detail).toContain('the plan was made with --allow-config-mismatch');
    expect(checkOf(r, 'config_mismatch')?.detail).toContain('container_env');
  });

  it('is still deployed for calibration (no proofs judged, no config_mismatch check)', () => {
    const r = gate(mismatched, { proofs: null });
    expect(r.passed).toBe(true);
    expect(r.checks.map((c) => c.check)).toEqual(
      GATE_CHECKS.filter(
        (c) => c !== 'config_mismatch' && c !== 'validated' && c !== 'drilled' && c !== 'attested',
      ),
    );
  });
});
