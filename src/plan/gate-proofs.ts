/**
 * The proofs a release needs, judged without trusting what they say of themselves. Pure.
 *
 * - `validated`: the committed validate is of this very plan (model, run id, fingerprint), taken on
 *   this model's calibration endpoint (or, deploying to the local SageMaker, on a local endpoint)
 *   in the region being deployed to, after the plan was made, and its rows are exactly the rows the
 *   re-derived plan expects on that endpoint (src/plan/policy-diff.ts `expectedRows`), each
 *   deployed as expected: a clean verdict over other rows, or over none, proves nothing.
 * - `drilled` (with `require_drill`): a drill of this plan whose verdict follows from its own
 *   stored windows and observations (src/analysis/drill-merge.ts `completeDrill`, the judgement
 *   the drill ran), judged against this plan's SLO and promises, at no smaller a surge than the
 *   plan was sized for, and whose SLO held.
 */
import { completeDrill } from '../analysis/drill-merge.js';
import { drillPrediction } from '../analysis/drill-phases.js';
import {
  type DrillArtifact,
  type Fingerprint,
  fingerprintDifferences,
  isUsageError,
  LOCAL_REGION,
  type ModelConfig,
  type PlanArtifact,
  type PlanProofs,
  type ValidateArtifact,
} from '../model/index.js';
import { failCheck, type GateCheckOf, passCheck } from './gate-check.js';
import { drillFix, validateFix } from './gate-fixes.js';
import { expectedIcRows } from './inference-component-rows.js';
import { expectedRows, valuesEqual } from './policy-diff.js';
import { calibrationEndpointName, expectedPolicyShape } from './policy-shape.js';

export type ProofCheck = GateCheckOf<'validated' | 'drilled'>;

export interface ProofInput {
  modelName: string;
  model: ModelConfig;
  planFile: string;
  deployRegion: string;
}

/** Fields on which a proof's recorded fingerprint differs from the plan's (region compared exactly). */
function fingerprintMismatch(plan: Fingerprint, recorded: Fingerprint): string[] {
  const fields = fingerprintDifferences(plan, recorded).map((d) => d.field as string);
  if (plan.region !== recorded.region && !fields.includes('region')) fields.push('region');
  return fields;
}

const show = (v: unknown): string => (v === null || v === undefined ? 'none' : JSON.stringify(v));

/** The endpoints a validate may have been taken on: the calibration copy; locally, the model's own too. */
export function validateEndpoints(model: ModelConfig, deployRegion: string): string[] {
  const calibration = calibrationEndpointName(model.endpoint);
  return deployRegion === LOCAL_REGION ? [calibration, model.endpoint] : [calibration];
}

/**
 * Where a validate's rows are not the rows the plan expects on its endpoint, each deployed as
 * expected (empty: they are). Rows the plan does not expect count unless only a `warn`.
 */
export function validateRowProblems(
  v: ValidateArtifact,
  judged: PlanArtifact,
  modelName: string,
  variant: string,
): string[] {
  let expected: ReturnType<typeof expectedRows>;
  try {
    // An inference-component plan deploys its component's rows, not a variant's.
    expected = judged.inference_component
      ? expectedIcRows(judged.inference_component)
      : expectedRows(expectedPolicyShape({ modelName, endpoint: v.endpoint, variant }, judged));
  } catch (e) {
    if (!isUsageError(e)) throw e;
    return [`the plan deploys no policy to compare with (${e.message})`];
  }
  const byParameter = new Map(v.rows.map((r) => [r.parameter, r]));
  const problems: string[] = [];
  const absent = expected.filter((row) => !byParameter.has(row.parameter)).map((row) => row.parameter);
  if (absent.length > 0)
    problems.push(
      `${absent.length} of the ${expected.length} rows the plan expects are not in it (${absent.slice(0, 5).join(', ')}${absent.length > 5 ? ', …' : ''})`,
    );
  for (const row of expected) {
    const got = byParameter.get(row.parameter);
    if (!got) continue;
    if (!valuesEqual(row.value, got.expected))
      problems.push(
        `${row.parameter} expected ${show(got.expected)} (recorded) vs ${show(row.value)} (this plan)`,
      );
    else if (got.verdict !== 'match' || !valuesEqual(row.value, got.deployed))
      problems.push(
        `${row.parameter} deployed ${show(got.deployed)}, the plan's ${show(row.value)} (${got.verdict})`,
      );
  }
  const names = new Set(expected.map((row) => row.parameter));
  const extra = v.rows.filter((r) => !names.has(r.parameter) && r.verdict !== 'warn').map((r) => r.parameter);
  if (extra.length > 0)
    problems.push(
      `rows the plan does not deploy: ${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', …' : ''}`,
    );
  return problems;
}

function validatedCheck(
  input: ProofInput,
  plan: PlanArtifact,
  judged: PlanArtifact,
  proofs: PlanProofs,
): ProofCheck {
  const { modelName, model, planFile, deployRegion } = input;
  const fp = judged.fingerprint;
  const v = proofs.validate;
  const file = proofs.validateFile;
  const vFix = validateFix(modelName, model, planFile);
  if (v === null)
    return failCheck(
      'validated',
      `no validate of this plan is committed (${proofs.validateError ?? file})`,
      vFix,
    );
  if (v.model_name !== modelName)
    return failCheck('validated', `${file} validated ${v.model_name}, not ${modelName}`, vFix);
  if (v.plan.run_id !== plan.run_id)
    return failCheck(
      'validated',
      `${file} validated plan run ${v.plan.run_id}, not this plan (run ${plan.run_id}): the policy deployed and read back was another plan's`,
      vFix,
    );
  if (!v.plan.fingerprint)
    return failCheck(
      'validated',
      `${file} does not record the fingerprint of the plan it validated (written by an older scalegate)`,
      vFix,
    );
  const mismatch = fingerprintMismatch(fp, v.plan.fingerprint);
  if (mismatch.length > 0)
    return failCheck(
      'validated',
      `${file} validated a plan of another fingerprint (${mismatch.join(', ')} differ)`,
      vFix,
    );
  const endpoints = validateEndpoints(model, deployRegion);
  if (!endpoints.includes(v.endpoint))
    return failCheck(
      'validated',
      `${file} was taken on ${v.endpoint}, not on ${modelName}'s calibration endpoint ${endpoints[0]}: a policy read back elsewhere is no proof of this plan's deployment`,
      vFix,
    );
  // The plan's region is the one deployed to (the region check): the validate must be from there.
  if (v.region !== (fp.region ?? deployRegion))
    return failCheck(
      'validated',
      v.region === LOCAL_REGION
        ? `${file} was taken on the local SageMaker (region ${LOCAL_REGION}); it proves nothing about a deployment to ${fp.region ?? deployRegion}`
        : `${file} was taken in ${v.region}, not in ${fp.region ?? deployRegion} where this plan deploys`,
      vFix,
    );
  if (!(Date.parse(v.checked_at) >= Date.parse(plan.created_at)))
    return failCheck(
      'validated',
      `${file} was taken at ${v.checked_at}, before the plan was made (${plan.created_at}): it cannot have read this plan's policy back`,
      vFix,
    );
  if (v.verdict !== 'clean') {
    const differing = v.rows
      .filter((r) => r.verdict !== 'match' && r.verdict !== 'warn')
      .map((r) => r.parameter);
    return failCheck(
      'validated',
      `${file}: the deployed policy did not equal this plan on ${v.endpoint} (${differing.join(', ') || 'mismatch'})`,
      `fix the deployment, then ${vFix}`,
    );
  }
  const rows = validateRowProblems(v, judged, modelName, model.variant);
  if (rows.length > 0)
    return failCheck(
      'validated',
      `${file} records a clean verdict, but its rows are not this plan's policy read back on ${v.endpoint}: ${rows.join('; ')}`,
      vFix,
    );
  return passCheck(
    'validated',
    `${file}: clean on ${v.endpoint} (${v.region}) at ${v.checked_at}, plan run ${v.plan.run_id}, all ${v.rows.length} rows the plan expects deployed as expected`,
  );
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/**
 * Why a drill of this plan is no proof as recorded (empty: it holds up): no windows to judge, not
 * judged against this plan's SLO and promises, a smaller surge than planned, or a verdict that does
 * not follow from its own data.
 */
export function drillProblems(
  drill: DrillArtifact,
  file: string,
  judged: PlanArtifact,
  planFile: string,
): string[] {
  if (drill.histograms.windows.length === 0 || drill.load_seconds.length === 0)
    return ['it holds no windows of load to judge (histograms.windows or load_seconds empty)'];
  const problems: string[] = [];
  if (drill.settings.slo_ms !== judged.chosen.slo_ms)
    problems.push(
      `judged against an SLO of ${drill.settings.slo_ms} ms, the plan's is ${judged.chosen.slo_ms} ms`,
    );
  if (drill.settings.surge_ratio < judged.chosen.surge_ratio)
    problems.push(
      `surged by ${drill.settings.surge_ratio}, less than the plan's surge ratio ${judged.chosen.surge_ratio}`,
    );
  try {
    const promised = drillPrediction(judged, planFile);
    const differing = (Object.keys(promised) as Array<keyof typeof promised>).filter(
      (k) => !same(promised[k], drill.prediction[k]),
    );
    if (differing.length > 0)
      problems.push(
        `its plan figures are not this plan's (${differing.map((k) => `${k} ${show(drill.prediction[k])} vs ${show(promised[k])}`).join(', ')})`,
      );
  } catch (e) {
    if (!isUsageError(e)) throw e;
    problems.push(e.message);
  }
  let again: DrillArtifact;
  try {
    const {
      kind: _k,
      shards,
      verdict: _v,
      broken_windows: _b,
      analysis: _a,
      slo_held: _h,
      as_predicted: _p,
      slo: _s,
      ...data
    } = drill;
    again = completeDrill(data, shards, file);
  } catch (e) {
    if (!isUsageError(e)) throw e;
    return [...problems, `its windows cannot be judged again: ${e.message}`];
  }
  const judgedFields: Array<keyof DrillArtifact> = [
    'slo_held',
    'verdict',
    'as_predicted',
    'broken_windows',
    'slo',
  ];
  const differ = judgedFields.filter((k) => !same(drill[k], again[k]));
  if (!same(drill.analysis.windows, again.analysis.windows)) differ.push('analysis');
  if (differ.length > 0)
    problems.push(
      `its recorded judgement does not follow from its own windows and observations (${differ
        .map((k) => (k === 'analysis' ? 'the windows' : `${k} ${show(drill[k])} vs ${show(again[k])}`))
        .join(', ')})`,
    );
  return problems;
}

function drilledCheck(
  input: ProofInput,
  plan: PlanArtifact,
  judged: PlanArtifact,
  proofs: PlanProofs,
): ProofCheck {
  const { modelName, model, planFile } = input;
  const fp = judged.fingerprint;
  const dFix = drillFix(modelName, model, planFile, fp);
  if (!model.require_drill)
    return passCheck('drilled', `not required for ${modelName} (require_drill is not set)`);
  const matching = proofs.drills.filter(
    ({ drill }) =>
      drill.model_name === modelName &&
      drill.plan_run_id === plan.run_id &&
      fingerprintMismatch(fp, drill.fingerprint).length === 0,
  );
  const proving = matching.filter(({ drill }) => !drill.policy.mismatch_allowed);
  // Proof is a drill that recorded the SLO holding, and whose record holds up; the verdict alone
  // is not (older drills passed what the plan predicted, breaches included).
  const judgedDrills = proving
    .filter(({ drill }) => drill.slo_held !== undefined)
    .map((d) => ({ ...d, problems: drillProblems(d.drill, d.file, judged, planFile) }));
  const sound = judgedDrills.filter((d) => d.problems.length === 0);
  const passed = sound.find(({ drill }) => drill.slo_held === true);
  const sloBroken = sound.filter(({ drill }) => drill.slo_held === false);
  const unsound = judgedDrills.filter((d) => d.problems.length > 0);
  if (passed) {
    return passCheck(
      'drilled',
      `${passed.file}: passed on ${passed.drill.endpoint} at ${passed.drill.measured_at}, plan run ${plan.run_id}: the SLO held in all ${passed.drill.slo?.windows_judged ?? 'its'} full steady and surge windows (slo_held, judged again from its windows)`,
    );
  }
  if (sloBroken.length > 0) {
    const last = sloBroken[0] as (typeof sloBroken)[number];
    const slo = last.drill.slo;
    const where = slo
      ? ` in ${slo.broken_windows.length} of ${slo.windows_judged} full steady and surge windows (steady ${slo.broken_by_phase.steady}, surge ${slo.broken_by_phase.surge})`
      : '';
    const predicted = last.drill.as_predicted
      ? ', as the plan predicted: a plan that predicts a breach is not proven by it'
      : '';
    return failCheck(
      'drilled',
      `${last.file}: the drill of this plan broke the SLO${where}${predicted}; require_drill needs a drill whose SLO held (slo_held true)`,
      `see the windows outside the SLO in ${last.file}; re-plan (or re-measure) so that the policy holds the SLO, then ${dFix}`,
    );
  }
  if (unsound.length > 0) {
    const first = unsound[0] as (typeof unsound)[number];
    return failCheck(
      'drilled',
      `${first.file} is no proof of this plan: ${first.problems.join('; ')}`,
      `a drill is never edited by hand: ${dFix}`,
    );
  }
  if (proving.length > 0) {
    const last = proving[0] as (typeof proving)[number];
    return failCheck(
      'drilled',
      `${last.file}: recorded by an older scalegate that did not judge whether the SLO held (no slo_held; its verdict ${last.drill.verdict} only compared the windows with what the plan predicted), so it is not proof the SLO held; require_drill needs a drill whose SLO held`,
      `drill again with this scalegate: ${dFix}`,
    );
  }
  if (matching.length > 0)
    return failCheck(
      'drilled',
      `${(matching[0] as (typeof matching)[number]).file} drilled with --allow-policy-mismatch (whatever policy was deployed, not proof of this plan's)`,
      dFix,
    );
  const other =
    proofs.drills.length > 0 ? ` (${proofs.drills.map((d) => d.file).join(', ')}: another fingerprint)` : '';
  const unreadable = proofs.drillErrors.length > 0 ? `; unreadable: ${proofs.drillErrors.join('; ')}` : '';
  return failCheck(
    'drilled',
    `require_drill is set and no drill of this plan (run ${plan.run_id}) is committed${other}${unreadable}`,
    dFix,
  );
}

/** The `validated` and `drilled` checks of a release. */
export function proofChecks(
  input: ProofInput,
  plan: PlanArtifact,
  judged: PlanArtifact,
  proofs: PlanProofs,
): ProofCheck[] {
  return [validatedCheck(input, plan, judged, proofs), drilledCheck(input, plan, judged, proofs)];
}
