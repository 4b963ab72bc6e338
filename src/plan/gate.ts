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
 * Before that, the measurements themselves are derived again from what they store (Q_max and its
 * bracket from the rungs, T_total from the timeline: gate-measurements.ts), and the plan's choices
 * must be the config's (gate-config.ts).
 *
 * A release also needs the plan proven where it was measured (gate-proofs.ts): a committed clean
 * validate of that very plan (same run id and fingerprint, on the calibration endpoint, after the
 * plan was made, every row the plan expects read back equal), and, for a model with
 * `require_drill`, a drill of it whose SLO held (`slo_held`, judged again from its own windows); and
 * a plan made with `--allow-config-mismatch` is refused. A calibration deploy of the plan is what
 * produces those proofs, so it runs the gate without them (`proofs: null`).
 */
import {
  configFingerprint,
  LOCAL_REGION,
  type ModelConfig,
  measuredEnvironment,
  type PlanArtifact,
  type PlanMeasurements,
  type PlanProofs,
  REGION_FROM_CONFIG,
} from '../model/index.js';
import { type AttestationEvidence, attestedCheck } from './attestation.js';
import type { GateCheckOf } from './gate-check.js';
import { configMismatchCheck, planConfigCheck } from './gate-config.js';
import { measureFix, replanFix } from './gate-fixes.js';
import { rederive } from './gate-measurements.js';
import { proofChecks } from './gate-proofs.js';
import { remeasure } from './remeasure.js';
import { requestShapeCheck } from './request-check.js';

export { drillFix, measureFix, validateFix } from './gate-fixes.js';
export { planDifferences } from './plan-differences.js';

export const GATE_CHECKS = [
  'plan_readable',
  'plan_model',
  'measurements',
  'qmax_rederived',
  'ttotal_rederived',
  'rederived',
  'plan_config',
  'config_mismatch',
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

export type GateCheck = GateCheckOf<GateCheckName>;

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

  const again = rederive(modelName, plan, planFile, input.measurements, {
    qmax: remeasure('qmax', modelName),
    ttotal: remeasure('ttotal', modelName, ` --qmax ${plan.inputs.qmax.file}`),
  });
  checks.push(...again.checks);
  // Every later check judges the plan as its measurements give it, never the file as written.
  const judged = again.plan ?? plan;
  checks.push(planConfigCheck(modelName, judged, model, replanFix(modelName, plan)));
  if (input.proofs) checks.push(configMismatchCheck(judged, measure));

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
