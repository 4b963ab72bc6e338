/**
 * The release proofs judged without trusting what they say of themselves: a validate must be this
 * plan's policy read back on the calibration endpoint, in the plan's region, after the plan was
 * made, row for row; a drill's verdict must follow from its own windows, judged against this
 * plan's SLO and promises.
 */
import { describe, expect, it } from 'vitest';
import type { DrillArtifact, PlanArtifact, PlanProofs, ValidateArtifact } from '../../src/model/index.js';
import { evaluateGate, type GateInput } from '../../src/plan/gate.js';
import {
  cleanValidate,
  drillOf,
  KOKORO_DIGEST,
  kokoroModel,
  kokoroPlan,
  measuredPlan,
  measurementsOf,
  readBackRows,
} from '../infra/fixtures.js';

const plan = kokoroPlan();

function gate(
  p: PlanArtifact,
  proofs: Partial<PlanProofs>,
  overrides: Partial<GateInput> = {},
): ReturnType<typeof evaluateGate> {
  const m = measurementsOf(p) as NonNullable<ReturnType<typeof measurementsOf>>;
  return evaluateGate({
    modelName: 'kokoro-82m',
    model: kokoroModel(),
    planFile: 'artifacts/plan-kokoro-82m.json',
    plan: p,
    measurements: {
      qmax: m.qmax,
      qmaxFile: p.inputs.qmax.file,
      ttotal: m.ttotal,
      ttotalFile: p.inputs.ttotal?.file ?? null,
      error: null,
    },
    deployImageDigest: KOKORO_DIGEST,
    deployRegion: 'us-east-1',
    proofs: {
      validateFile: 'artifacts/validate-kokoro-82m.json',
      validate: cleanValidate(p),
      validateError: null,
      drills: [],
      drillErrors: [],
      ...proofs,
    },
    ...overrides,
  });
}
const checkOf = (r: ReturnType<typeof evaluateGate>, name: string) => r.checks.find((c) => c.check === name);
const failed = (r: ReturnType<typeof evaluateGate>) => r.checks.filter((c) => !c.ok).map((c) => c.check);

describe('validated: a validate is this plan read back, not a clean word', () => {
  it('passes the validate of every row the plan expects, read back equal', () => {
    const r = gate(plan, {});
    expect(checkOf(r, 'validated')).toMatchObject({ ok: true });
    expect(checkOf(r, 'validated')?.detail).toContain(
      `all ${readBackRows(plan).length} rows the plan expects`,
    );
  });

  it('refuses a hand-written validate with no rows and region local (prevents a clean verdict standing for a deployment nobody read back)', () => {
    const handWritten: ValidateArtifact = { ...cleanValidate(plan), region: 'local', rows: [] };
    const r = gate(plan, { validate: handWritten });
    expect(failed(r)).toEqual(['validated']);
    expect(checkOf(r, 'validated')?.detail).toContain(
      'was taken on the local SageMaker (region local); it proves nothing about a deployment to us-east-1',
    );
    const noRows = gate(plan, { validate: { ...cleanValidate(plan), rows: [] } });
    expect(checkOf(noRows, 'validated')?.detail).toMatch(
      /records a clean verdict, but its rows are not this plan's policy read back on speech-kokoro-82m-calibration: \d+ of the \d+ rows the plan expects are not in it/,
    );
  });

  it('refuses a validate taken on another endpoint than the calibration copy (the production endpoint included)', () => {
    const r = gate(plan, { validate: { ...cleanValidate(plan), endpoint: 'speech-kokoro-82m' } });
    expect(checkOf(r, 'validated')?.detail).toContain(
      "was taken on speech-kokoro-82m, not on kokoro-82m's calibration endpoint speech-kokoro-82m-calibration",
    );
  });

  it('refuses a validate from before the plan was made', () => {
    const r = gate(plan, { validate: { ...cleanValidate(plan), checked_at: '2026-08-19T12:00:00.000Z' } });
    expect(checkOf(r, 'validated')?.detail).toContain('before the plan was made (2026-08-20T12:00:00.000Z)');
  });

  it('refuses rows whose expected value is not this plan’s, or whose deployed value differs under a match verdict', () => {
    const rows = readBackRows(plan).map((row) =>
      row.parameter === 'scale_out.target_value' ? { ...row, expected: 60, deployed: 60 } : row,
    );
    expect(
      checkOf(gate(plan, { validate: { ...cleanValidate(plan), rows } }), 'validated')?.detail,
    ).toContain('scale_out.target_value expected 60 (recorded) vs 6 (this plan)');
    const lied = readBackRows(plan).map((row) =>
      row.parameter === 'container.max_queue_depth' ? { ...row, deployed: 100000 } : row,
    );
    expect(
      checkOf(gate(plan, { validate: { ...cleanValidate(plan), rows: lied } }), 'validated')?.detail,
    ).toContain("container.max_queue_depth deployed 100000, the plan's 50 (match)");
    const extra = [
      ...readBackRows(plan),
      { parameter: 'orphan.policy.x', expected: null, deployed: 'StepScaling', verdict: 'match' as const },
    ];
    expect(
      checkOf(gate(plan, { validate: { ...cleanValidate(plan), rows: extra } }), 'validated')?.detail,
    ).toContain('rows the plan does not deploy: orphan.policy.x');
  });

  it('accepts a local validate on the model’s own local endpoint only when deploying to the local SageMaker', () => {
    const local = measuredPlan({ region: 'local' });
    const validate = {
      ...cleanValidate(local),
      endpoint: 'speech-kokoro-82m',
      rows: readBackRows(local, 'speech-kokoro-82m'),
    };
    expect(failed(gate(local, { validate }, { deployRegion: 'local' }))).toEqual([]);
    expect(failed(gate(local, { validate }))).toEqual(['region', 'validated']);
  });
});

describe('drilled: the drill’s verdict follows from its own windows, judged against this plan', () => {
  const model = kokoroModel({ require_drill: true });
  const at = (drill: DrillArtifact) => [{ file: 'artifacts/drill-kokoro-82m-g5xlarge-8b1b96bc.json', drill }];
  const drilled = (drill: DrillArtifact) => checkOf(gate(plan, { drills: at(drill) }, { model }), 'drilled');

  it('passes a drill of this plan whose SLO held, as judged again', () => {
    expect(drilled(drillOf(plan))).toMatchObject({ ok: true });
    expect(drilled(drillOf(plan))?.detail).toContain('judged again from its windows');
  });

  it('refuses a hand-written drill with no windows (prevents slo_held true with nothing to judge)', () => {
    const genuine = drillOf(plan);
    const empty = { ...genuine, histograms: { ...genuine.histograms, windows: [] }, load_seconds: [] };
    const c = drilled(empty);
    expect(c?.ok).toBe(false);
    expect(c?.detail).toContain('is no proof of this plan: it holds no windows of load to judge');
    expect(c?.fix).toContain('a drill is never edited by hand');
  });

  it('refuses a drill whose recorded verdict does not follow from its windows (slo_held written over broken windows)', () => {
    const broken = drillOf(plan, { sloBroken: true });
    const rewritten = { ...broken, slo_held: true, verdict: 'pass' as const };
    expect(drilled(rewritten)?.detail).toContain(
      'its recorded judgement does not follow from its own windows and observations (slo_held true vs false, verdict "pass" vs "fail")',
    );
  });

  it('refuses a drill judged against another SLO, other plan figures, or a smaller surge', () => {
    const genuine = drillOf(plan);
    const lax = { ...genuine, settings: { ...genuine.settings, slo_ms: 60000 } };
    expect(drilled(lax)?.detail).toContain("judged against an SLO of 60000 ms, the plan's is 3000 ms");
    const tolerant = { ...genuine, prediction: { ...genuine.prediction, max_overflow_probability: 0.49 } };
    expect(drilled(tolerant)?.detail).toContain(
      "its plan figures are not this plan's (max_overflow_probability 0.49 vs 0.05)",
    );
    const gentle = { ...genuine, settings: { ...genuine.settings, surge_ratio: 1 } };
    expect(drilled(gentle)?.detail).toContain("surged by 1, less than the plan's surge ratio 1.25");
  });
});
