/**
 * The measured-plan gate: may this plan's scaling be deployed onto this model's image, instance
 * type and region? The same checks run at `cdk synth` (infra/) and in `scalegate gate` (what the
 * release workflow runs before `cdk deploy`). Pure: the caller reads the plan (or passes the read
 * error) and the measurements it names, and computes the digest of the image being deployed.
 *
 * The plan file is never trusted as written: the gate derives the plan again from the qmax and
 * ttotal artifacts it names (the derivation is deterministic, its simulation seeded) with the
 * plan's own recorded choices, refuses a plan whose values differ (naming each), and judges every
 * later check on the re-derived plan.
 *
 * A release also needs the plan proven where it was measured: a committed clean validate of that
 * very plan (same run id and fingerprint: its policy was deployed and read back equal), and, for a
 * model with `require_drill`, a drill of it whose SLO held (`slo_held`). A calibration deploy of the plan is what
 * produces those proofs, so it runs the gate without them (`proofs: null`).
 */
import {
  configFingerprint,
  drillFileName,
  type Fingerprint,
  fingerprintDifferences,
  fingerprintSlug,
  isUsageError,
  LOCAL_REGION,
  type ModelConfig,
  measuredEnvironment,
  type PlanArtifact,
  type PlanMeasurements,
  type PlanProofs,
  REGION_FROM_CONFIG,
  validateFileName,
} from '../model/index.js';
import { type AttestationEvidence, attestedCheck } from './attestation.js';
import { derivePlan } from './derive.js';
import { planDifferences } from './plan-differences.js';
import { calibrationEndpointName } from './policy-shape.js';
import { remeasure } from './remeasure.js';
import { requestShapeCheck } from './request-check.js';

export { planDifferences } from './plan-differences.js';

export const GATE_CHECKS = [
  'plan_readable',
  'plan_model',
  'measurements',
  'rederived',
  'verdict',
  't_total_complete',
  'deployable_threshold',
  'instance_type',
  'image_digest',
  'container_env',
  'request_shape',
  'region',
  'validated',
  'drilled',
  'attested',
] as const;
export type GateCheckName = (typeof GATE_CHECKS)[number];

export interface GateCheck {
  check: GateCheckName;
  ok: boolean;
  detail: string;
  /** The scalegate command (or config change) that fixes a failed check; null when ok. */
  fix: string | null;
}

export interface GateInput {
  modelName: string;
  model: ModelConfig;
  /** Where the plan was (to be) read from, for messages. */
  planFile: string;
  /** The parsed plan, or null when reading failed (then `planError` says why). */
  plan: PlanArtifact | null;
  planError?: string | null;
  /** The qmax/ttotal artifacts the plan names (src/model findPlanMeasurements); null: not looked for. */
  measurements: PlanMeasurements | null;
  /** Digest of the image being deployed: the CDK asset hash of container_dir, or image_uri's digest. */
  deployImageDigest: string;
  /** Region being deployed to (`local` for the local SageMaker). */
  deployRegion: string;
  /**
   * The proofs committed beside the plan (src/model findPlanProofs), judged by the `validated` and
   * `drilled` checks; null for the deploy that produces them (the calibration endpoint with the
   * plan), which then has neither check.
   */
  proofs: PlanProofs | null;
  /**
   * Deploy a plan whose T_total is only a lower bound (`--allow-lower-bound`, CDK context
   * `scalegate:allowLowerBound`); the check still says so. @default false
   */
  allowLowerBound?: boolean;
  /** Every file the gate read, with its bundle (src/plan/attestation.ts); null: not judged (offline, a calibration deploy). */
  attestation?: AttestationEvidence | null;
}

/** How a lower-bound T_total is allowed through, per surface (for the refusal's fix). */
export const ALLOW_LOWER_BOUND_HINT = (modelName: string): string =>
  `\`scalegate gate --allow-lower-bound\` (action input allow-lower-bound: true; at synth -c scalegate:allowLowerBound=${modelName})`;

export interface GateResult {
  passed: boolean;
  /**
   * In GATE_CHECKS order; after an unreadable plan only that check (nothing else can be judged);
   * without its measurements, no `rederived` check (there is nothing to derive from); without
   * proofs to judge (a calibration deploy), no `validated` or `drilled` check.
   */
  checks: GateCheck[];
  /** The plan derived again from its measurements (what the later checks judged); null when it could not be. */
  rederived: PlanArtifact | null;
}

const short = (digest: string): string => (digest.length > 16 ? `${digest.slice(0, 12)}…` : digest);

/** How a model gets a plan measured on exactly what is being deployed. */
export function measureFix(modelName: string, model: ModelConfig, deployImageDigest: string): string {
  const slug = fingerprintSlug({ instance_type: model.instance_type, image_digest: deployImageDigest });
  const calibration = calibrationEndpointName(model.endpoint);
  const qmaxFile = `artifacts/qmax-${modelName}-response-stream-${slug}.json`;
  const ttotalFile = `artifacts/ttotal-${modelName}-force-desired-${slug}.json`;
  return (
    `measure this image on ${model.instance_type} in ${model.region}: run the calibrate workflow for ${modelName}, or by hand ` +
    `\`scalegate deploy ${modelName} --calibration\`, \`scalegate qmax --model ${modelName} --endpoint ${calibration} --out ${qmaxFile}\`, ` +
    `\`scalegate ttotal --model ${modelName} --endpoint ${calibration} --qmax ${qmaxFile} --out ${ttotalFile}\`, ` +
    `then \`scalegate plan --model ${modelName} --qmax ${qmaxFile} --ttotal ${ttotalFile}\` and commit artifacts/plan-${modelName}.json`
  );
}

/** The kinds of measurement a plan was made from, as a fix names them ("qmax/ttotal/drill"). */
function measuredKinds(plan: PlanArtifact): string {
  const { ttotal, drill, goodput } = plan.inputs;
  return ['qmax', ttotal && 'ttotal', drill && 'drill', goodput && 'goodput'].filter(Boolean).join('/');
}

/** `scalegate plan` from the plan's own inputs (re-planning without re-measuring). */
function replanFix(modelName: string, plan: PlanArtifact): string {
  const ttotal = plan.inputs.ttotal
    ? ` --ttotal ${plan.inputs.ttotal.file}`
    : plan.inputs.t_total_stated_s !== null
      ? ` --assume-t-total ${plan.inputs.t_total_stated_s}`
      : '';
  const drill = plan.inputs.drill ? ` --drill ${plan.inputs.drill.file}` : '';
  const goodput = plan.inputs.goodput ? ` --goodput ${plan.inputs.goodput.file}` : '';
  return `\`scalegate plan --model ${modelName} --qmax ${plan.inputs.qmax.file}${ttotal}${drill}${goodput}\``;
}

const pass = (check: GateCheckName, detail: string): GateCheck => ({ check, ok: true, detail, fix: null });
const fail = (check: GateCheckName, detail: string, fix: string): GateCheck => ({
  check,
  ok: false,
  detail,
  fix,
});

export function evaluateGate(input: GateInput): GateResult {
  const { modelName, model, plan, planFile, deployImageDigest, deployRegion } = input;
  const measure = measureFix(modelName, model, deployImageDigest);

  if (plan === null) {
    const why = input.planError ?? `${planFile}: no plan`;
    return {
      passed: false,
      checks: [fail('plan_readable', `no usable measured plan: ${why}`, measure)],
      rederived: null,
    };
  }

  const checks: GateCheck[] = [pass('plan_readable', `${planFile} (run ${plan.run_id}, ${plan.created_at})`)];

  checks.push(
    plan.model_name === modelName
      ? pass('plan_model', `plan is for ${modelName}`)
      : fail(
          'plan_model',
          `${planFile} is a plan for ${plan.model_name}, not ${modelName}`,
          `point --plan at artifacts/plan-${modelName}.json, or ${measure}`,
        ),
  );

  const again = rederive(modelName, plan, planFile, input.measurements);
  checks.push(...again.checks);
  // Every later check judges the plan as its measurements give it, never the file as written.
  const judged = again.plan ?? plan;

  if (judged.verdict === 'stop') {
    const stops = judged.findings.filter((f) => f.verdict === 'stop');
    const list = stops.map((f) => `${f.name}: ${f.detail}`).join('; ') || 'verdict stop';
    const fixes = stops
      .map((f) => f.fix)
      .filter((f): f is string => Boolean(f))
      .join('; ');
    checks.push(
      fail(
        'verdict',
        `plan verdict is stop (${list})`,
        `${fixes ? `${fixes}; then ` : ''}re-run ${replanFix(modelName, plan)} (or re-measure: ${measure})`,
      ),
    );
  } else {
    checks.push(
      pass('verdict', judged.verdict === 'warn' ? `warn (${judged.warn_count} warnings)` : judged.verdict),
    );
  }

  checks.push(tTotalComplete(modelName, judged, input.allowLowerBound === true));

  const d = judged.deployable;
  if (d.scaling_target_value === null || d.scale_in_threshold === null) {
    checks.push(
      fail(
        'deployable_threshold',
        'the plan has no CloudWatch threshold (scaling_target_value is null: no CloudWatch/client ratio R was measured, so the concurrency target cannot be stated in CloudWatch units)',
        `re-measure with the CloudWatch join (sagemaker transport, without --no-cloudwatch): ${measure}`,
      ),
    );
  } else {
    checks.push(
      pass(
        'deployable_threshold',
        `scale out at ${d.scaling_target_value}, scale in at ${d.scale_in_threshold} (${d.scaling_metric} ${d.scaling_metric === 'InvocationsPerInstance' ? 'Sum per 60 s' : 'Maximum'})`,
      ),
    );
  }

  const fp = judged.fingerprint;
  checks.push(
    fp.instance_type === model.instance_type
      ? pass('instance_type', fp.instance_type)
      : fail(
          'instance_type',
          `plan measured on ${fp.instance_type}, the config deploys ${model.instance_type}`,
          `set instance_type back to ${fp.instance_type} in scalegate.config.json, or ${measure}`,
        ),
  );

  checks.push(
    fp.image_digest === deployImageDigest
      ? pass('image_digest', `measured image ${short(fp.image_digest)} is the image being deployed`)
      : fail(
          'image_digest',
          `plan measured on image ${short(fp.image_digest)}, deploying image ${short(deployImageDigest)}${model.container_dir ? ` (CDK asset hash of ${model.container_dir})` : ''}`,
          model.container_dir
            ? `the container changed since it was measured: ${measure}`
            : `pin image_uri to the measured digest (…@sha256:${fp.image_digest}), or ${measure}`,
        ),
  );

  const want = configFingerprint(model, deployImageDigest, deployRegion);
  const wantEnv = JSON.stringify(want.container_env);
  const gotEnv = JSON.stringify(measuredEnvironment(fp.container_env));
  checks.push(
    wantEnv === gotEnv
      ? pass('container_env', `container environment ${gotEnv}`)
      : fail(
          'container_env',
          `plan measured with container environment ${gotEnv}, the config deploys ${wantEnv}`,
          `restore container_env to ${gotEnv} in scalegate.config.json, or ${measure}`,
        ),
    requestShapeCheck(fp.request, want.request, measure),
  );

  if (fp.region === null) {
    checks.push(
      fail(
        'region',
        `the measurement did not record its region (a legacy artifact) and the plan took none from the config, so nothing says it was made in ${deployRegion}`,
        `re-plan (a plan of a legacy measurement takes the model config's region, labelled as such): ${replanFix(modelName, plan)}; or re-measure (current measurements record their region): ${measure}`,
      ),
    );
  } else if (fp.region === LOCAL_REGION && deployRegion !== LOCAL_REGION) {
    checks.push(
      fail(
        'region',
        `plan measured on the local SageMaker (region ${LOCAL_REGION}); a local measurement never sets scaling for a real region (${deployRegion})`,
        measure,
      ),
    );
  } else if (fp.region !== deployRegion) {
    checks.push(
      fail(
        'region',
        judged.region_source === REGION_FROM_CONFIG
          ? `plan's region ${fp.region} (${REGION_FROM_CONFIG}: the model config's when the plan was made), deploying to ${deployRegion}`
          : `plan measured in ${fp.region}, deploying to ${deployRegion}`,
        `set region back to ${fp.region} in scalegate.config.json, or ${measure}`,
      ),
    );
  } else {
    checks.push(
      pass(
        'region',
        judged.region_source === 'measured' ? fp.region : `${fp.region} (${judged.region_source})`,
      ),
    );
  }

  if (input.proofs) checks.push(...proofChecks(input, plan, judged, input.proofs));
  if (input.attestation) checks.push({ check: 'attested', ...attestedCheck(input.attestation) });

  return { passed: checks.every((c) => c.ok), checks, rederived: again.plan };
}

/** Fields on which a proof's recorded fingerprint differs from the plan's (region compared exactly). */
function fingerprintMismatch(plan: Fingerprint, recorded: Fingerprint): string[] {
  const fields = fingerprintDifferences(plan, recorded).map((d) => d.field as string);
  if (plan.region !== recorded.region && !fields.includes('region')) fields.push('region');
  return fields;
}

/** How a plan gets its validate: its policy deployed on the calibration endpoint and read back. */
export function validateFix(modelName: string, model: ModelConfig, planFile: string): string {
  const calibration = calibrationEndpointName(model.endpoint);
  return (
    `deploy this plan's policy to the calibration endpoint and validate it there: run the calibrate workflow for ${modelName}, or by hand ` +
    `\`scalegate deploy ${modelName} --calibration --with-plan ${planFile}\`, ` +
    `\`scalegate validate --model ${modelName} --endpoint ${calibration} --plan ${planFile}\`, ` +
    `then commit artifacts/${validateFileName(modelName)}`
  );
}

/** How a plan gets a drill: a surge through its deployed policy on the calibration endpoint. */
export function drillFix(modelName: string, model: ModelConfig, planFile: string, fp: Fingerprint): string {
  const calibration = calibrationEndpointName(model.endpoint);
  return (
    `drill this plan's policy on the calibration endpoint: run the calibrate workflow for ${modelName} with the drill on, or by hand ` +
    `\`scalegate deploy ${modelName} --calibration --with-plan ${planFile}\`, ` +
    `\`scalegate drill --model ${modelName} --plan ${planFile} --endpoint ${calibration}\`, ` +
    `then commit artifacts/${drillFileName(modelName, fp)}`
  );
}

function proofChecks(
  input: GateInput,
  plan: PlanArtifact,
  judged: PlanArtifact,
  proofs: PlanProofs,
): GateCheck[] {
  const { modelName, model, planFile } = input;
  const fp = judged.fingerprint;
  const checks: GateCheck[] = [];

  const v = proofs.validate;
  const vFix = validateFix(modelName, model, planFile);
  if (v === null) {
    checks.push(
      fail(
        'validated',
        `no validate of this plan is committed (${proofs.validateError ?? proofs.validateFile})`,
        vFix,
      ),
    );
  } else if (v.model_name !== modelName) {
    checks.push(
      fail('validated', `${proofs.validateFile} validated ${v.model_name}, not ${modelName}`, vFix),
    );
  } else if (v.plan.run_id !== plan.run_id) {
    checks.push(
      fail(
        'validated',
        `${proofs.validateFile} validated plan run ${v.plan.run_id}, not this plan (run ${plan.run_id}): the policy deployed and read back was another plan's`,
        vFix,
      ),
    );
  } else if (!v.plan.fingerprint) {
    checks.push(
      fail(
        'validated',
        `${proofs.validateFile} does not record the fingerprint of the plan it validated (written by an older scalegate)`,
        vFix,
      ),
    );
  } else if (fingerprintMismatch(fp, v.plan.fingerprint).length > 0) {
    checks.push(
      fail(
        'validated',
        `${proofs.validateFile} validated a plan of another fingerprint (${fingerprintMismatch(fp, v.plan.fingerprint).join(', ')} differ)`,
        vFix,
      ),
    );
  } else if (v.verdict !== 'clean') {
    const differing = v.rows
      .filter((r) => r.verdict !== 'match' && r.verdict !== 'warn')
      .map((r) => r.parameter);
    checks.push(
      fail(
        'validated',
        `${proofs.validateFile}: the deployed policy did not equal this plan on ${v.endpoint} (${differing.join(', ') || 'mismatch'})`,
        `fix the deployment, then ${vFix}`,
      ),
    );
  } else {
    checks.push(
      pass(
        'validated',
        `${proofs.validateFile}: clean on ${v.endpoint} (${v.region}) at ${v.checked_at}, plan run ${v.plan.run_id}`,
      ),
    );
  }

  const dFix = drillFix(modelName, model, planFile, fp);
  if (!model.require_drill) {
    checks.push(pass('drilled', `not required for ${modelName} (require_drill is not set)`));
    return checks;
  }
  const matching = proofs.drills.filter(
    ({ drill }) =>
      drill.model_name === modelName &&
      drill.plan_run_id === plan.run_id &&
      fingerprintMismatch(fp, drill.fingerprint).length === 0,
  );
  const proving = matching.filter(({ drill }) => !drill.policy.mismatch_allowed);
  // Proof is a drill that recorded the SLO holding; the verdict alone is not (older drills passed
  // what the plan predicted, breaches included).
  const passed = proving.find(({ drill }) => drill.slo_held === true);
  const sloBroken = proving.filter(({ drill }) => drill.slo_held === false);
  if (passed) {
    checks.push(
      pass(
        'drilled',
        `${passed.file}: passed on ${passed.drill.endpoint} at ${passed.drill.measured_at}, plan run ${plan.run_id}: the SLO held in all ${passed.drill.slo?.windows_judged ?? 'its'} full steady and surge windows (slo_held)`,
      ),
    );
  } else if (sloBroken.length > 0) {
    const last = sloBroken[0] as (typeof sloBroken)[number];
    const slo = last.drill.slo;
    const where = slo
      ? ` in ${slo.broken_windows.length} of ${slo.windows_judged} full steady and surge windows (steady ${slo.broken_by_phase.steady}, surge ${slo.broken_by_phase.surge})`
      : '';
    const predicted = last.drill.as_predicted
      ? ', as the plan predicted: a plan that predicts a breach is not proven by it'
      : '';
    checks.push(
      fail(
        'drilled',
        `${last.file}: the drill of this plan broke the SLO${where}${predicted}; require_drill needs a drill whose SLO held (slo_held true)`,
        `see the windows outside the SLO in ${last.file}; re-plan (or re-measure) so that the policy holds the SLO, then ${dFix}`,
      ),
    );
  } else if (proving.length > 0) {
    const last = proving[0] as (typeof proving)[number];
    checks.push(
      fail(
        'drilled',
        `${last.file}: recorded by an older scalegate that did not judge whether the SLO held (no slo_held; its verdict ${last.drill.verdict} only compared the windows with what the plan predicted), so it is not proof the SLO held; require_drill needs a drill whose SLO held`,
        `drill again with this scalegate: ${dFix}`,
      ),
    );
  } else if (matching.length > 0) {
    checks.push(
      fail(
        'drilled',
        `${(matching[0] as (typeof matching)[number]).file} drilled with --allow-policy-mismatch (whatever policy was deployed, not proof of this plan's)`,
        dFix,
      ),
    );
  } else {
    const other =
      proofs.drills.length > 0
        ? ` (${proofs.drills.map((d) => d.file).join(', ')}: another fingerprint)`
        : '';
    const unreadable = proofs.drillErrors.length > 0 ? `; unreadable: ${proofs.drillErrors.join('; ')}` : '';
    checks.push(
      fail(
        'drilled',
        `require_drill is set and no drill of this plan (run ${plan.run_id}) is committed${other}${unreadable}`,
        dFix,
      ),
    );
  }
  return checks;
}

/**
 * A plan built on a lower-bound T_total (the ttotal's probe never recovered) sizes its cooldowns
 * and surge horizon on a figure that can only be too short: refused unless explicitly allowed,
 * and said either way.
 */
function tTotalComplete(modelName: string, plan: PlanArtifact, allowed: boolean): GateCheck {
  const m = plan.measured;
  if (m.t_total_origin !== 'lower-bound') {
    return pass('t_total_complete', `T_total ${m.t_total_s} s (${m.t_total_origin})`);
  }
  const what = `T_total ${m.t_total_s} s is a LOWER BOUND (the ttotal run ${plan.inputs.ttotal?.run_id ?? '?'} never saw traffic recover; the clock stopped at in_service): the cooldowns and the surge probability derived from it can only be too low`;
  if (allowed)
    return pass('t_total_complete', `${what}; deployed anyway: a lower bound was explicitly allowed`);
  return fail(
    't_total_complete',
    what,
    `measure T_total to the end: ${remeasure('ttotal', modelName, ` --qmax ${plan.inputs.qmax.file}`)} (a longer --max-wait-s if it was still recovering), then ${replanFix(modelName, plan).replace(/ --ttotal \S+/, ' --ttotal <new ttotal artifact>')}; or deploy the lower bound knowingly with ${ALLOW_LOWER_BOUND_HINT(modelName)}`,
  );
}

function rederive(
  modelName: string,
  plan: PlanArtifact,
  planFile: string,
  measurements: PlanMeasurements | null,
): { plan: PlanArtifact | null; checks: GateCheck[] } {
  const replan = replanFix(modelName, plan);
  if (measurements === null || measurements.error !== null || measurements.qmax === null) {
    const why = measurements?.error ?? 'the measurements it names were not looked for';
    return {
      plan: null,
      checks: [
        fail(
          'measurements',
          `${why}: the gate derives the plan again from its own measurements and refuses without them`,
          `commit the ${measuredKinds(plan)} artifacts the plan was made from beside it, or re-plan from the ones you have: ${replan}`,
        ),
      ],
    };
  }
  const found = [
    measurements.qmaxFile,
    measurements.ttotalFile,
    measurements.drillFile,
    measurements.goodputFile,
  ]
    .filter(Boolean)
    .join(' and ');
  const checks: GateCheck[] = [pass('measurements', found)];
  let derived: PlanArtifact;
  try {
    derived = derivePlan({
      modelName: plan.model_name,
      qmax: measurements.qmax,
      qmaxFile: plan.inputs.qmax.file,
      ttotal: measurements.ttotal,
      ttotalFile: plan.inputs.ttotal?.file ?? null,
      tTotalStatedS: plan.inputs.t_total_stated_s,
      drill: measurements.drill ?? null,
      drillFile: plan.inputs.drill?.file ?? null,
      // The goodput measurement is an input too: open_loop_headroom counts in the verdict.
      goodput: measurements.goodput ?? null,
      goodputFile: plan.inputs.goodput?.file ?? null,
      choices: {
        sloMs: plan.chosen.slo_ms,
        surgeRatio: plan.chosen.surge_ratio,
        peak: plan.chosen.peak,
        trough: plan.chosen.trough,
        minInstancesFloor: plan.chosen.min_instances_floor,
        invocationCeilingS: plan.chosen.invocation_ceiling_s,
        instanceHourlyUsd: plan.chosen.instance_hourly_usd,
        instanceQuota: plan.chosen.instance_quota,
        // The region the plan took for a legacy measurement when it was made, never today's config.
        legacyRegion: plan.chosen.legacy_region,
        policyRule: plan.chosen.policy_rule,
        maxOverflowProbability: plan.chosen.max_overflow_probability,
      },
      allowConfigMismatch: plan.inputs.config_mismatch_allowed,
      runId: plan.run_id,
      createdAt: plan.created_at,
      tool: plan.provenance.tool,
    });
  } catch (e) {
    if (!isUsageError(e)) throw e;
    checks.push(
      fail(
        'rederived',
        `${planFile} does not follow from its own inputs: ${e.message}`,
        `re-plan: ${replan}`,
      ),
    );
    return { plan: null, checks };
  }
  const differences = planDifferences(plan, derived);
  checks.push(
    differences.length === 0
      ? pass('rederived', `every deployable value follows from ${found} and the plan's recorded choices`)
      : fail(
          'rederived',
          `${planFile} does not follow from its own measurements: ${differences.join('; ')}`,
          `a plan is never edited by hand: re-derive it with ${replan}`,
        ),
  );
  return { plan: derived, checks };
}

/** One block naming every failed check and its fix: the text synth fails with. */
export function gateFailureMessage(modelName: string, planFile: string, result: GateResult): string {
  const failed = result.checks.filter((c) => !c.ok);
  const lines = [
    `scalegate gate refused ${modelName}: no scaling policy is deployed that was not measured on this image and instance type (plan ${planFile}).`,
  ];
  for (const c of failed) {
    lines.push(`  ✗ ${c.check}: ${c.detail}`);
    if (c.fix) lines.push(`    fix: ${c.fix}`);
  }
  return lines.join('\n');
}
