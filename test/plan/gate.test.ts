/**
 * evaluateGate, pure: each check, in order, passes or fails on its own with a fix that names the
 * scalegate command to run; and the plan is derived again from its own measurements, so a plan
 * edited by hand is refused with every value that differs.
 */
import { describe, expect, it } from 'vitest';
import type { PlanArtifact, PlanMeasurements, PlanProofs } from '../../src/model/index.js';
import { evaluateGate, GATE_CHECKS, type GateInput, gateFailureMessage } from '../../src/plan/gate.js';
import {
  cleanValidate,
  drillOf,
  KOKORO_DIGEST,
  kokoroModel,
  kokoroPlan,
  measuredPlan,
  measurementsOf,
  noThresholdPlan,
  stopPlan,
} from '../infra/fixtures.js';

/** The measurements the plan names, as findPlanMeasurements would hand them over. */
const measurementsFor = (plan: PlanArtifact): PlanMeasurements => {
  const m = measurementsOf(plan);
  if (!m) throw new Error('fixture plan without measurements');
  return {
    qmax: m.qmax,
    qmaxFile: plan.inputs.qmax.file,
    ttotal: m.ttotal,
    ttotalFile: plan.inputs.ttotal?.file ?? null,
    error: null,
  };
};

/** The proofs a release needs, as findPlanProofs would hand them over: a clean validate of the plan. */
const proofsFor = (plan: PlanArtifact): PlanProofs => ({
  validateFile: 'artifacts/validate-kokoro-82m.json',
  validate: cleanValidate(plan),
  validateError: null,
  drills: [],
  drillErrors: [],
});

const input = (overrides: Partial<GateInput> = {}): GateInput => {
  const plan = overrides.plan === undefined ? kokoroPlan() : overrides.plan;
  return {
    proofs: plan ? proofsFor(plan) : null,
    modelName: 'kokoro-82m',
    model: kokoroModel(),
    planFile: 'artifacts/plan-kokoro-82m.json',
    plan,
    measurements: plan ? measurementsFor(plan) : null,
    deployImageDigest: KOKORO_DIGEST,
    deployRegion: 'us-east-1',
    ...overrides,
  };
};
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
    // Without attestation evidence (offline) there is no `attested` check: test/commands/gate-attested.test.ts.
    expect(result.checks.map((c) => c.check)).toEqual(GATE_CHECKS.filter((c) => c !== 'attested'));
    expect(result.checks.every((c) => c.fix === null)).toBe(true);
  });

  it('refuses a plan whose measurement recorded no region (region: null used to pass any region)', () => {
    const legacy = measuredPlan({ region: null });
    expect(failed(withPlan(legacy))).toEqual(['region']);
    expect(check(withPlan(legacy), 'region')?.detail).toContain('did not record its region');
  });

  it('a plan of a legacy measurement takes the config’s region when planned, labelled so, and passes for that region only', () => {
    const legacy = measuredPlan({ region: null, legacyRegion: 'us-east-1' });
    expect(legacy.fingerprint.region).toBe('us-east-1');
    expect(legacy.region_source).toBe('config (the legacy artifact records none)');
    expect(legacy.chosen.legacy_region).toBe('us-east-1');
    expect(legacy.inputs.qmax.fingerprint.region).toBeNull();
    expect(failed(withPlan(legacy))).toEqual([]);
    expect(check(withPlan(legacy), 'region')?.detail).toBe(
      'us-east-1 (config (the legacy artifact records none))',
    );
    // The config moved to another region later: the plan keeps the region it took, and is refused.
    const moved = input({
      plan: legacy,
      model: { ...kokoroModel(), region: 'eu-west-1' },
      deployRegion: 'eu-west-1',
    });
    expect(failed(moved)).toEqual(['region']);
    expect(check(moved, 'region')?.detail).toMatch(
      /plan's region us-east-1 \(config \(the legacy artifact records none\)/,
    );
  });

  it('refuses a legacy plan whose recorded region was edited by hand (the re-derivation follows the recorded choice, and the region check the deploy)', () => {
    const legacy = measuredPlan({ region: null, legacyRegion: 'us-east-1' });
    const edited = structuredClone(legacy);
    edited.fingerprint.region = 'eu-west-1';
    const result = evaluateGate({ ...input({ plan: legacy }), plan: edited });
    expect(result.checks.find((c) => c.check === 'rederived')?.detail).toMatch(
      /fingerprint.region "?eu-west-1"? \(plan\) vs "?us-east-1"? \(re-derived\)/,
    );
  });

  it('never takes a config region for a measurement that records its own', () => {
    const measured = measuredPlan({ region: 'us-east-1', legacyRegion: 'eu-west-1' });
    expect(measured.fingerprint.region).toBe('us-east-1');
    expect(measured.region_source).toBe('measured');
    expect(measured.chosen.legacy_region).toBeNull();
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
    expect(check(input(), 'verdict')).toMatchObject({ ok: true, detail: 'warn (3 warnings)' });
  });

  it('fails deployable_threshold when no CloudWatch ratio was measured (the seed rule it falls back to also stops, and is not the rule a release plan follows)', () => {
    // Nor can any validate be of its policy: there is none to deploy.
    expect(failed(withPlan(noThresholdPlan()))).toEqual([
      'plan_config',
      'verdict',
      'deployable_threshold',
      'validated',
    ]);
    expect(check(withPlan(noThresholdPlan()), 'plan_config')?.detail).toContain(
      'policy_rule seed (plan) vs surge-safe (config)',
    );
  });

  it('refuses a plan whose deployed policy overflows (the seed rule on a serial device: verdict stop), naming surge_survival (prevents shipping a predicted overflow)', () => {
    const seed = measuredPlan({ policyRule: 'seed' });
    expect(seed.verdict).toBe('stop');
    const verdict = check(withPlan(seed), 'verdict');
    expect(verdict?.ok).toBe(false);
    expect(verdict?.detail).toContain('surge_survival');
    expect(failed(withPlan(seed))).toContain('verdict');
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

  it('fails request_shape when the plan was measured with another body than the config sends (an old plan reads as the default shape)', () => {
    const speechApi = { body_template: '{"input":"{{text}}","voice":"af_heart"}' };
    const i = input({ model: kokoroModel({ request: speechApi }) });
    expect(failed(i)).toEqual(['request_shape']);
    expect(check(i, 'request_shape')?.detail).toContain(
      'the config sends {"input":"{{text}}","voice":"af_heart"}',
    );
    expect(check(input({}), 'request_shape')?.ok).toBe(true);
  });

  it('never passes a local-SageMaker plan for a real region, but does for the local one', () => {
    const local = measuredPlan({ region: 'local' });
    expect(failed(withPlan(local))).toEqual(['region']);
    expect(check(withPlan(local), 'region')?.detail).toContain('local SageMaker');
    expect(failed(input({ plan: local, deployRegion: 'local' }))).toEqual([]);
  });

  it('fails region for a plan measured in another real region', () => {
    expect(failed(withPlan(measuredPlan({ region: 'us-west-2' })))).toEqual(['region']);
    expect(failed(withPlan(measuredPlan({ region: 'us-east-1' })))).toEqual([]);
  });

  it('fails plan_model for a plan written for another model', () => {
    // Its validate is of chatterbox too: no proof of a kokoro-82m plan either.
    expect(failed(withPlan(measuredPlan({ modelName: 'chatterbox' })))).toEqual(['plan_model', 'validated']);
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

describe('a plan built on a lower-bound T_total', () => {
  const lowerBound = () => measuredPlan({ lowerBoundTtotal: true });

  it('is refused on t_total_complete alone, naming the lower bound and both ways to allow it', () => {
    const i = withPlan(lowerBound());
    expect(failed(i)).toEqual(['t_total_complete']);
    const c = check(i, 't_total_complete');
    expect(c?.detail).toContain('T_total 260.248496 s is a LOWER BOUND');
    expect(c?.detail).toContain('can only be too low');
    expect(c?.fix).toContain('scalegate ttotal --model kokoro-82m');
    expect(c?.fix).toContain('--ttotal <new ttotal artifact>');
    expect(c?.fix).toContain('-c scalegate:allowLowerBound=kokoro-82m');
    expect(gateFailureMessage('kokoro-82m', 'p.json', evaluateGate(i))).toContain('✗ t_total_complete');
  });

  it('passes when explicitly allowed, and the check still says it is a lower bound', () => {
    const result = evaluateGate(input({ plan: lowerBound(), allowLowerBound: true }));
    expect(result.passed).toBe(true);
    const c = result.checks.find((x) => x.check === 't_total_complete');
    expect(c?.detail).toMatch(/LOWER BOUND.*deployed anyway: a lower bound was explicitly allowed/);
  });

  it('cannot hide its lower bound: a plan file relabelled measured is judged on the re-derived lower-bound plan', () => {
    const plan = lowerBound();
    const relabelled = structuredClone(plan);
    relabelled.measured.t_total_origin = 'measured';
    const i: GateInput = { ...input(), plan: relabelled, measurements: measurementsFor(plan) };
    expect(failed(i)).toEqual(['rederived', 't_total_complete']);
    expect(check(i, 'rederived')?.detail).toContain(
      'measured.t_total_origin measured (plan) vs lower-bound (re-derived)',
    );
  });

  it('a complete T_total passes the check as measured', () => {
    expect(check(input(), 't_total_complete')).toMatchObject({
      ok: true,
      detail: 'T_total 260.248496 s (measured)',
    });
  });
});

describe('the gate derives the plan again from its own measurements', () => {
  it('refuses the forged plan (max 1, target 5000, queue 100000), naming each value that differs', () => {
    const forged = kokoroPlan({
      deployable: { max_instances: 1, scaling_target_value: 5000, queue_max_depth: 100000 },
    });
    const result = evaluateGate(withPlan(forged));
    expect(result.passed).toBe(false);
    // Its validate read back the forged values: not the rows the re-derived plan expects either.
    expect(failed(withPlan(forged))).toEqual(['rederived', 'validated']);
    expect(check(withPlan(forged), 'validated')?.detail).toContain(
      'scale_out.target_value expected 5000 (recorded) vs 6 (this plan)',
    );
    const detail = check(withPlan(forged), 'rederived')?.detail ?? '';
    expect(detail).toContain('max_instances 1 (plan) vs 407 (re-derived)');
    expect(detail).toContain('scaling_target_value 5000 (plan) vs 6 (re-derived)');
    expect(detail).toContain('queue_max_depth 100000 (plan) vs 50 (re-derived)');
    expect(check(withPlan(forged), 'rederived')?.fix).toContain('scalegate plan --model kokoro-82m --qmax');
  });

  it('judges the later checks on the re-derived plan: an edited verdict or region does not pass them', () => {
    const edited = kokoroPlan({ verdict: 'ok', warn_count: 0, fingerprint: { region: 'eu-west-1' } });
    const i = input({ plan: edited, deployRegion: 'eu-west-1' });
    // Its validate recorded the edited fingerprint, which is not the re-derived plan's either.
    expect(failed(i)).toEqual(['rederived', 'region', 'validated']);
    expect(check(i, 'rederived')?.detail).toMatch(/verdict ok \(plan\) vs warn \(re-derived\)/);
    expect(check(i, 'rederived')?.detail).toContain(
      'fingerprint.region eu-west-1 (plan) vs us-east-1 (re-derived)',
    );
  });

  it('refuses a plan whose measurements are absent, saying which and where', () => {
    const plan = kokoroPlan();
    const i = input({
      plan,
      measurements: {
        qmax: null,
        qmaxFile: 'x/qmax.json',
        ttotal: null,
        ttotalFile: null,
        error: "the plan's qmax measurement (run b8fa8ef48043) is not in x",
      },
    });
    expect(failed(i)).toEqual(['measurements']);
    expect(check(i, 'measurements')?.detail).toContain('run b8fa8ef48043');
    expect(evaluateGate(i).checks.map((c) => c.check)).not.toContain('rederived');
  });

  it('passes a genuinely derived plan: every value follows from its measurements', () => {
    expect(check(input(), 'rederived')).toMatchObject({ ok: true });
    expect(evaluateGate(input()).rederived?.deployable).toEqual(kokoroPlan().deployable);
  });
});

describe('the proofs a release needs: a clean validate of this very plan, and a passing drill when required', () => {
  const plan = kokoroPlan();
  const proofs = (overrides: Partial<PlanProofs> = {}): PlanProofs => ({ ...proofsFor(plan), ...overrides });
  const drillModel = kokoroModel({ require_drill: true });

  it('refuses a plan with no validate committed, naming the commands that deploy and validate it on the calibration endpoint', () => {
    const i = input({
      plan,
      proofs: proofs({ validate: null, validateError: 'artifacts/validate-kokoro-82m.json: no such file' }),
    });
    expect(failed(i)).toEqual(['validated']);
    const c = check(i, 'validated');
    expect(c?.detail).toContain(
      'no validate of this plan is committed (artifacts/validate-kokoro-82m.json: no such file)',
    );
    expect(c?.fix).toContain(
      '`scalegate deploy kokoro-82m --calibration --with-plan artifacts/plan-kokoro-82m.json`',
    );
    expect(c?.fix).toContain(
      '`scalegate validate --model kokoro-82m --endpoint speech-kokoro-82m-calibration --plan artifacts/plan-kokoro-82m.json`',
    );
    expect(c?.fix).toContain('commit artifacts/validate-kokoro-82m.json');
  });

  it('refuses the validate of another plan run, of another fingerprint, without a recorded fingerprint, or that was not clean', () => {
    const otherRun = cleanValidate(plan, { plan: { ...cleanValidate(plan).plan, run_id: 'another0001' } });
    expect(check(input({ plan, proofs: proofs({ validate: otherRun }) }), 'validated')?.detail).toContain(
      'validated plan run another0001, not this plan (run fixture00001)',
    );
    const otherImage = cleanValidate(plan, {
      plan: {
        ...cleanValidate(plan).plan,
        fingerprint: { ...plan.fingerprint, image_digest: 'f'.repeat(64) },
      },
    });
    expect(check(input({ plan, proofs: proofs({ validate: otherImage }) }), 'validated')?.detail).toContain(
      'a plan of another fingerprint (image_digest differ)',
    );
    const unrecorded = cleanValidate(plan, { plan: { file: 'x', run_id: plan.run_id } });
    expect(check(input({ plan, proofs: proofs({ validate: unrecorded }) }), 'validated')?.detail).toContain(
      'does not record the fingerprint',
    );
    const mismatch = cleanValidate(plan, {
      verdict: 'mismatch',
      rows: [{ parameter: 'container.max_queue_depth', expected: 50, deployed: 64, verdict: 'mismatch' }],
    });
    const m = check(input({ plan, proofs: proofs({ validate: mismatch }) }), 'validated');
    expect(m?.ok).toBe(false);
    expect(m?.detail).toContain(
      'did not equal this plan on speech-kokoro-82m-calibration (container.max_queue_depth)',
    );
    for (const validate of [otherRun, otherImage, unrecorded, mismatch])
      expect(failed(input({ plan, proofs: proofs({ validate }) }))).toEqual(['validated']);
  });

  it('does not require a drill unless the model sets require_drill', () => {
    const c = check(input({ plan }), 'drilled');
    expect(c).toMatchObject({ ok: true, fix: null });
    expect(c?.detail).toContain('not required');
  });

  it('with require_drill, refuses until a drill of this plan whose SLO held is committed, naming the drill command', () => {
    const none = input({ plan, model: drillModel });
    expect(failed(none)).toEqual(['drilled']);
    expect(check(none, 'drilled')?.detail).toContain('no drill of this plan (run fixture00001) is committed');
    expect(check(none, 'drilled')?.fix).toContain(
      '`scalegate drill --model kokoro-82m --plan artifacts/plan-kokoro-82m.json --endpoint speech-kokoro-82m-calibration`',
    );
    expect(check(none, 'drilled')?.fix).toContain('commit artifacts/drill-kokoro-82m-g5xlarge-8b1b96bc.json');
    const at = (drill: ReturnType<typeof drillOf>) => ({
      file: 'artifacts/drill-kokoro-82m-g5xlarge-8b1b96bc.json',
      drill,
    });
    const failing = input({
      plan,
      model: drillModel,
      proofs: proofs({ drills: [at(drillOf(plan, { sloBroken: true }))] }),
    });
    expect(check(failing, 'drilled')?.detail).toContain('the drill of this plan broke the SLO');
    const mismatched = input({
      plan,
      model: drillModel,
      proofs: proofs({ drills: [at(drillOf(plan, { mismatchAllowed: true }))] }),
    });
    expect(check(mismatched, 'drilled')?.detail).toContain('--allow-policy-mismatch');
    const otherImage = input({
      plan,
      model: drillModel,
      proofs: proofs({
        drills: [at(drillOf(plan, { fingerprint: { ...plan.fingerprint, image_digest: 'e'.repeat(64) } }))],
      }),
    });
    expect(check(otherImage, 'drilled')?.ok).toBe(false);
    const passing = input({ plan, model: drillModel, proofs: proofs({ drills: [at(drillOf(plan))] }) });
    expect(evaluateGate(passing).passed).toBe(true);
    expect(check(passing, 'drilled')?.detail).toContain('passed on speech-kokoro-82m-calibration');
    expect(check(passing, 'drilled')?.detail).toContain(
      'the SLO held in all 16 full steady and surge windows',
    );
  });

  it('with require_drill, refuses a drill whose SLO broke even where the plan predicted the breach (prevents "as predicted" proving a policy that does not hold the SLO)', () => {
    // The seed rule's plan predicts overflow even without a surge: its steady breaches are "as predicted".
    const seed = measuredPlan({ policyRule: 'seed' });
    const drill = drillOf(seed, { sloBroken: true });
    expect(drill).toMatchObject({ slo_held: false, as_predicted: true, broken_windows: [] });
    const result = input({
      plan: seed,
      model: drillModel,
      proofs: {
        ...proofsFor(seed),
        drills: [{ file: 'artifacts/drill-kokoro-82m-g5xlarge-8b1b96bc.json', drill }],
      },
    });
    expect(evaluateGate(result).passed).toBe(false);
    const c = check(result, 'drilled');
    expect(c?.ok).toBe(false);
    expect(c?.detail).toContain(
      'broke the SLO in 3 of 16 full steady and surge windows (steady 3, surge 0), as the plan predicted',
    );
    expect(c?.detail).toContain('require_drill needs a drill whose SLO held (slo_held true)');
    expect(c?.fix).toContain('`scalegate drill --model kokoro-82m --plan artifacts/plan-kokoro-82m.json');
    // Even with a pass verdict written over it: the gate reads slo_held, not the verdict.
    const forged = input({
      plan: seed,
      model: drillModel,
      proofs: { ...proofsFor(seed), drills: [{ file: 'd.json', drill: { ...drill, verdict: 'pass' } }] },
    });
    expect(check(forged, 'drilled')?.ok).toBe(false);
  });

  it('with require_drill, refuses a drill without slo_held (an older scalegate), saying so and naming the drill command (prevents an old "predicted = pass" verdict standing as proof)', () => {
    const older = drillOf(plan, { older: true });
    expect(older.slo_held).toBeUndefined();
    expect(older.verdict).toBe('pass');
    const result = input({
      plan,
      model: drillModel,
      proofs: proofs({ drills: [{ file: 'artifacts/drill-old.json', drill: older }] }),
    });
    const c = check(result, 'drilled');
    expect(c?.ok).toBe(false);
    expect(c?.detail).toMatch(
      /^artifacts\/drill-old\.json: recorded by an older scalegate that did not judge whether the SLO held \(no slo_held; its verdict pass/,
    );
    expect(c?.detail).toContain('not proof the SLO held');
    expect(c?.fix).toMatch(
      /^drill again with this scalegate: .*`scalegate drill --model kokoro-82m --plan artifacts\/plan-kokoro-82m.json --endpoint speech-kokoro-82m-calibration`/,
    );
    // A drill of another plan run is no proof of this one, whatever it recorded.
    const otherRun = input({
      plan,
      model: drillModel,
      proofs: proofs({ drills: [{ file: 'd.json', drill: drillOf(plan, { plan_run_id: 'an0therrun00' }) }] }),
    });
    expect(check(otherRun, 'drilled')?.ok).toBe(false);
  });

  it('judges no proofs for the calibration deploy of the plan (it is what produces them)', () => {
    const result = evaluateGate(input({ plan, proofs: null, model: drillModel }));
    expect(result.passed).toBe(true);
    expect(result.checks.map((c) => c.check)).toEqual(
      GATE_CHECKS.filter(
        (c) => c !== 'config_mismatch' && c !== 'validated' && c !== 'drilled' && c !== 'attested',
      ),
    );
  });
});
