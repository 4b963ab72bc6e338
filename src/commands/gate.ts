/**
 * `scalegate gate`: the measured-plan gate from the CLI (what the release workflow runs before
 * `cdk deploy`), with the same `evaluateGate` the CDK app runs at synth. Reads the plan and works
 * out the digest of the image that would be deployed; never touches AWS.
 */
import { dirname, join, resolve } from 'node:path';
import {
  DEFAULT_ARTIFACTS_DIR,
  findPlanMeasurements,
  imageDigestOf,
  isUsageError,
  type ModelConfig,
  type PlanArtifact,
  planFileName,
  readArtifact,
} from '../model/index.js';
import { evaluateGate, type GateCheck } from '../plan/gate.js';
import type { CommandResult } from './result.js';

export interface GateCommandInput {
  modelName: string;
  model: ModelConfig;
  /** The config file: container_dir resolves against its directory (the repository root). */
  configFile: string;
  /** Default: artifacts/plan-<model>.json. */
  planFile?: string;
  /** Where the plan's qmax/ttotal artifacts are looked for (default: the plan file's directory). */
  artifactsDir?: string;
  /** Region the deploy goes to: the model's (what the CDK stacks use) unless overridden. */
  region: string;
  /** CDK asset hash of a container directory, computed without a synth (src/local/asset-hash.ts). */
  containerAssetHash: (dir: string) => string | Promise<string>;
}

export interface GateReport {
  kind: 'gate';
  model_name: string;
  plan_file: string;
  plan_run_id: string | null;
  image_source: 'container_dir' | 'image_uri';
  image_digest: string;
  instance_type: string;
  region: string;
  passed: boolean;
  checks: GateCheck[];
}

export async function runGate(input: GateCommandInput): Promise<CommandResult<GateReport>> {
  const { modelName, model } = input;
  const planFile = input.planFile ?? join(DEFAULT_ARTIFACTS_DIR, planFileName(modelName));
  const source = model.container_dir ? 'container_dir' : 'image_uri';
  const digest = model.container_dir
    ? await input.containerAssetHash(resolve(dirname(resolve(input.configFile)), model.container_dir))
    : imageDigestOf(model.image_uri as string);

  let plan: PlanArtifact | null = null;
  let planError: string | null = null;
  try {
    plan = readArtifact('plan', planFile);
  } catch (e) {
    if (!isUsageError(e)) throw e;
    planError = e.message;
  }
  const result = evaluateGate({
    modelName,
    model,
    planFile,
    plan,
    planError,
    measurements: plan ? findPlanMeasurements(plan, input.artifactsDir ?? dirname(planFile)) : null,
    deployImageDigest: digest,
    deployRegion: input.region,
  });

  const report: GateReport = {
    kind: 'gate',
    model_name: modelName,
    plan_file: planFile,
    plan_run_id: plan?.run_id ?? null,
    image_source: source,
    image_digest: digest,
    instance_type: model.instance_type,
    region: input.region,
    passed: result.passed,
    checks: result.checks,
  };
  return { artifact: report, report: renderGate(report), exitCode: result.passed ? 0 : 1, written: [] };
}

export function renderGate(r: GateReport): string {
  const origin = r.image_source === 'container_dir' ? 'CDK asset hash of container_dir' : 'image_uri digest';
  const lines = [
    `scalegate gate ${r.model_name}: ${r.passed ? 'PASS' : 'REFUSED'}`,
    `  plan ${r.plan_file}; deploying image ${r.image_digest} (${origin}) on ${r.instance_type} in ${r.region}`,
    '',
  ];
  const width = Math.max(...r.checks.map((c) => c.check.length));
  for (const c of r.checks) {
    lines.push(`  ${c.ok ? '✓' : '✗'} ${c.check.padEnd(width)}  ${c.detail}`);
    if (!c.ok && c.fix) lines.push(`    ${' '.repeat(width)}  fix: ${c.fix}`);
  }
  lines.push('');
  lines.push(
    r.passed
      ? `The plan's scaling may be deployed: \`scalegate deploy ${r.model_name}\`.`
      : 'No scaling that was not measured on this image and instance type is deployed: fix the checks above.',
  );
  return `${lines.join('\n')}\n`;
}
