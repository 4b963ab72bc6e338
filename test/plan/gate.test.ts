/**
 * evaluateGate, pure: each check, in order, passes or fails on its own with a fix that names the
 * scalegate command to run.
 */
import { describe, expect, it } from 'vitest';
import type { PlanArtifact } from '../../src/model/index.js';
import { evaluateGate, GATE_CHECKS, type GateInput, gateFailureMessage } from '../../src/plan/gate.js';
import { KOKORO_DIGEST, kokoroModel, kokoroPlan, noThresholdPlan, stopPlan } from '../infra/fixtures.js';

const input = (overrides: Partial<GateInput> = {}): GateInput => ({
  modelName: 'kokoro-82m',
  model: kokoroModel(),
  planFile: 'artifacts/plan-kokoro-82m.json',
  plan: kokoroPlan(),
  deployImageDigest: KOKORO_DIGEST,
  deployRegion: 'us-east-1',
  ...overrides,
});
const failed = (i: GateInput) =>
  evaluateGate(i)
    .checks.filter((c) => !c.ok)
    .map((c) => c.check);
const check = (i: GateInput, name: string) => evaluateGate(i).checks.find((c) => c.check === name);
const withPlan = (plan: PlanArtifact) => input({ plan });

describe('evaluateGate', () => {
  it('passes the measured kokoro plan for its own image and instance type, every check in order', () => {
    const result = evaluateGate(input());
    expect(result.passed).toBe(true);
    expect(result.checks.map((c) => c.check)).toEqual([...GATE_CHECKS]);
    expect(result.checks.every((c) => c.fix === null)).toBe(true);
  });

  it('passes a legacy plan without a region, saying so', () => {
    expect(check(input(), 'region')).toMatchObject({
      ok: true,
      detail: expect.stringContaining('legacy plan'),
    });
  });

  it('fails only plan_readable when the plan could not be read, with the reader message and the measuring commands', () => {
    const result = evaluateGate(
      input({
        plan: null,
        planError: 'artifacts/plan-kokoro-82m.json: cannot read the plan artifact (no such file).',
      }),
    );
    expect(result.passed).toBe(false);
    expect(result.checks).toHaveLength(1);
    expect(result.checks[0]?.detail).toContain('no such file');
    expect(result.checks[0]?.fix).toContain('scalegate deploy kokoro-82m --calibration');
    expect(result.checks[0]?.fix).toContain(
      'scalegate qmax --model kokoro-82m --endpoint speech-kokoro-82m-calibration',
    );
    expect(result.checks[0]?.fix).toContain(
      'scalegate plan --model kokoro-82m --qmax artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
    );
  });

  it('fails verdict on a stop plan with the stop finding and a re-plan command from the plan inputs', () => {
    expect(failed(withPlan(stopPlan()))).toEqual(['verdict']);
    const c = check(withPlan(stopPlan()), 'verdict');
    expect(c?.detail).toContain('slo_budget');
    expect(c?.fix).toContain(
      'scalegate plan --model kokoro-82m --qmax artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json --ttotal artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
    );
  });

  it('passes a warn plan (warn is deployable), counting its warnings', () => {
    expect(check(input(), 'verdict')).toMatchObject({ ok: true, detail: 'warn (2 warnings)' });
  });

  it('fails deployable_threshold when no CloudWatch ratio was measured', () => {
    expect(failed(withPlan(noThresholdPlan()))).toEqual(['deployable_threshold']);
  });

  it('fails instance_type when the config deploys another instance type than measured', () => {
    expect(failed(input({ model: kokoroModel({ instance_type: 'ml.g6.xlarge' }) }))).toEqual([
      'instance_type',
    ]);
  });

  it('fails image_digest when the image being deployed is not the measured one', () => {
    const i = input({ deployImageDigest: 'f'.repeat(64) });
    expect(failed(i)).toEqual(['image_digest']);
    expect(check(i, 'image_digest')?.fix).toContain(`@sha256:${KOKORO_DIGEST}`);
  });

  it('fails container_env when the config environment differs from the measured one (ambient keys ignored)', () => {
    expect(failed(input({ model: kokoroModel({ container_env: { VOICE: 'af_heart' } }) }))).toEqual([
      'container_env',
    ]);
    expect(
      failed(input({ model: kokoroModel({ container_env: { MAX_QUEUE_DEPTH: '9', AWS_REGION: 'x' } }) })),
    ).toEqual([]);
  });

  it('never passes a local-SageMaker plan for a real region, but does for the local one', () => {
    const local = kokoroPlan({ fingerprint: { region: 'local' } });
    expect(failed(withPlan(local))).toEqual(['region']);
    expect(check(withPlan(local), 'region')?.detail).toContain('local SageMaker');
    expect(failed(input({ plan: local, deployRegion: 'local' }))).toEqual([]);
  });

  it('fails region for a plan measured in another real region', () => {
    expect(failed(withPlan(kokoroPlan({ fingerprint: { region: 'us-west-2' } })))).toEqual(['region']);
    expect(failed(withPlan(kokoroPlan({ fingerprint: { region: 'us-east-1' } })))).toEqual([]);
  });

  it('fails plan_model for a plan written for another model', () => {
    expect(failed(withPlan(kokoroPlan({ model_name: 'chatterbox' })))).toEqual(['plan_model']);
  });

  it('reports several failures at once', () => {
    const i = input({ plan: stopPlan(), model: kokoroModel({ instance_type: 'ml.g6.xlarge' }) });
    expect(failed(i)).toEqual(['verdict', 'instance_type']);
    const message = gateFailureMessage('kokoro-82m', 'artifacts/plan-kokoro-82m.json', evaluateGate(i));
    expect(message).toContain('✗ verdict');
    expect(message).toContain('✗ instance_type');
    expect(message.match(/ {4}fix: /g)).toHaveLength(2);
  });
});
