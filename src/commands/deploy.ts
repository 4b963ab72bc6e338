/**
 * `scalegate deploy <model>` / `scalegate destroy <model>`: the aws-cdk CLI of this repository,
 * run in infra/, over the model's stacks in dependency order. One `cdk synth` into a per-model
 * cloud assembly (the gate runs there, once), then one `cdk deploy --app <assembly>
 * --exclusively` per stack: foundation -> model cache -> endpoint. Destroy goes in reverse and
 * leaves the weights bucket (retained) and the image repository. `--calibration` applies only
 * the calibration-owned stack instead (`<endpoint>-calibration`, in the
 * calibration account/region, through the calibration bootstrap), ungated: nothing of
 * production is synthesized or deployed, so a pull request's code cannot change it; destroying
 * it removes exactly those. `--calibration --with-plan [file]` deploys the calibration endpoint
 * with that plan's policy, through the production constructs (gated on the plan's checks, not on
 * its validate/drill proofs, which this deploy exists to produce). `dryRun` returns the
 * invocations without running any.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import {
  candidateCalibrationEndpoint,
  candidateCalibrationStack,
  checkCandidateIndex,
  DEFAULT_ARTIFACTS_DIR,
  type ModelConfig,
  opt,
  planFileName,
  UsageError,
  usage,
} from '../model/index.js';
import type { DeployReport } from '../model/reports.js';
import { stackNames } from '../plan/policy-shape.js';
import { deployHeadline, renderDeployDryRun, renderDeployRun } from '../report/deploy-text.js';
import type { CommandDeps, CommandResult } from './result.js';

export type { DeployReport } from '../model/reports.js';

export interface CdkInvocation {
  /** Absolute path of the cdk executable. */
  command: string;
  args: string[];
  /** infra/ of the repository. */
  cwd: string;
}

/** Runs one invocation to completion (output to the terminal); resolves to its exit code. */
export type CdkRunner = (invocation: CdkInvocation) => Promise<number>;

export interface DeployInput {
  action: 'deploy' | 'destroy';
  modelName: string;
  model: ModelConfig;
  /** scalegate.config.json: its directory is the repository root (infra/, node_modules/.bin/cdk). */
  configFile: string;
  /** The model's calibration endpoint instead of the production one. @default false */
  calibration?: boolean;
  /**
   * Calibration only: which candidate instance type (`scalegate compare`): 0 the model's own on
   * `<endpoint>-calibration`, n its `candidates[n - 1]` on `<endpoint>-cal-<n>`. @default 0
   */
  candidate?: number;
  /** Print the invocations without running them. @default false */
  dryRun?: boolean;
  /** `scalegate:artifactsDir` for the synth. @default the app's, `<repo>/artifacts` */
  artifactsDir?: string;
  /** Deploy only: `-c scalegate:allowUnmeasured=<model>` (fixed capacity when the gate fails). @default false */
  allowUnmeasured?: boolean;
  /**
   * Calibration deploy only: the plan whose policy the calibration endpoint gets (`true`: the
   * default `<artifactsDir>/plan-<model>.json`). @default none (the measuring calibration endpoint)
   */
  withPlan?: string | boolean;
  /** Deploy only: `-c scalegate:allowLowerBound=<model>` (a plan on a lower-bound T_total passes the gate). @default false */
  allowLowerBound?: boolean;
  /** Deploy only: `-c scalegate:trustedRoot=<file>` (the synth gate verifies the proofs' attestations). */
  trustedRoot?: string;
  /** Deploy only: `-c scalegate:offline=true` (the synth gate skips the attestation check, warned). @default false */
  offline?: boolean;
  /** cdk deploy --require-approval (scalegate deploy runs in workflows). @default `never` */
  requireApproval?: 'never' | 'any-change' | 'broadening';
}

export interface DeployDeps extends CommandDeps {
  /** Runs one cdk invocation with the terminal attached; resolves to its exit code. */
  run: CdkRunner;
}

const shellQuote = (arg: string): string =>
  /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", `'\\''`)}'`;

export const renderInvocation = (inv: CdkInvocation): string =>
  `(cd ${shellQuote(inv.cwd)} && ${[inv.command, ...inv.args].map(shellQuote).join(' ')})`;

/** The stacks the action applies, in the order it applies them. */
export function stacksFor(
  action: 'deploy' | 'destroy',
  modelName: string,
  calibration: boolean,
  candidate = 0,
): string[] {
  const names = stackNames(modelName);
  if (calibration) {
    return [candidateCalibrationStack(modelName, candidate)];
  }
  const ordered = [names.foundation, names.modelCache, names.endpoint];
  return action === 'deploy' ? ordered : ordered.reverse();
}

/** The plan file `--with-plan` names (its default when given without one); null when not given. */
export function withPlanFile(input: Omit<DeployInput, 'dryRun'>): string | null {
  if (input.withPlan === undefined || input.withPlan === false) return null;
  if (input.action !== 'deploy' || input.calibration !== true) {
    throw usage`${opt('with-plan')} deploys a plan to the calibration endpoint: use it with \`scalegate deploy ${input.modelName} --calibration\` (a production deploy always deploys artifacts/plan-${input.modelName}.json, gated).`;
  }
  return input.withPlan === true
    ? join(input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR, planFileName(input.modelName))
    : input.withPlan;
}

/** The calibration candidate the input names (0 when none); refuses one without --calibration or undeclared. */
export function candidateOf(
  input: Pick<DeployInput, 'modelName' | 'model' | 'calibration' | 'candidate'>,
): number {
  if (input.candidate === undefined) return 0;
  if (input.calibration !== true) {
    throw usage`${opt('candidate', input.candidate)} names a calibration endpoint: use it with ${opt('calibration')} (production deploys the model's own instance_type; \`scalegate compare\` tells which candidate to make it).`;
  }
  checkCandidateIndex(input.modelName, input.model, input.candidate);
  return input.candidate;
}

export function cdkInvocations(input: Omit<DeployInput, 'dryRun'>): CdkInvocation[] {
  const root = dirname(resolve(input.configFile));
  const cwd = join(root, 'infra');
  const command = join(root, 'node_modules', '.bin', 'cdk');
  const { modelName, action } = input;
  const calibration = input.calibration === true;
  const candidate = candidateOf(input);
  const assembly = `cdk.out/${calibration ? candidateCalibrationStack(modelName, candidate) : `scalegate-${modelName}`}`;
  const context = ['-c', `scalegate:config=${resolve(input.configFile)}`];
  if (input.artifactsDir) context.push('-c', `scalegate:artifactsDir=${resolve(input.artifactsDir)}`);
  if (calibration) context.push('-c', `scalegate:calibration=${modelName}`);
  if (candidate > 0) context.push('-c', `scalegate:candidate=${candidate}`);
  const plan = withPlanFile(input);
  if (plan) context.push('-c', `scalegate:withPlan=${resolve(plan)}`);
  else context.push('-c', `scalegate:model=${modelName}`);
  // Destroy must work whatever the plan says: the gate decides what is deployed, never what may
  // be removed, and the stack names do not depend on it.
  if (!calibration && (action === 'destroy' || input.allowUnmeasured)) {
    context.push('-c', `scalegate:allowUnmeasured=${modelName}`);
  }
  if (!calibration && action === 'deploy' && input.allowLowerBound) {
    context.push('-c', `scalegate:allowLowerBound=${modelName}`);
  }
  if (!calibration && action === 'deploy' && input.trustedRoot) {
    context.push('-c', `scalegate:trustedRoot=${resolve(input.trustedRoot)}`);
  }
  if (!calibration && action === 'deploy' && input.offline) context.push('-c', 'scalegate:offline=true');
  const synth: CdkInvocation = { command, cwd, args: ['synth', '--quiet', '--output', assembly, ...context] };
  const perStack = stacksFor(action, modelName, calibration, candidate).map(
    (stack): CdkInvocation =>
      action === 'deploy'
        ? {
            command,
            cwd,
            args: [
              'deploy',
              '--app',
              assembly,
              '--exclusively',
              '--require-approval',
              input.requireApproval ?? 'never',
              stack,
            ],
          }
        : { command, cwd, args: ['destroy', '--app', assembly, '--exclusively', '--force', stack] },
  );
  return [synth, ...perStack];
}

function leftInPlace(input: DeployInput): string[] {
  if (input.action !== 'destroy') return [];
  if (input.calibration) {
    return [
      "the image in the calibration bootstrap's asset repository (CDK's garbage collection removes unused images)",
    ];
  }
  return [
    'the weights bucket (retained on destroy: delete it by hand if you mean to lose the cached weights)',
    input.model.container_dir
      ? "the image in the CDK bootstrap asset repository (shared by every CDK app of the account; CDK's garbage collection removes unused images)"
      : `the image repository of ${input.model.image_uri} (not created by scalegate)`,
  ];
}

export async function runDeploy(input: DeployInput, deps: DeployDeps): Promise<CommandResult<DeployReport>> {
  const calibration = input.calibration === true;
  const plan = withPlanFile(input);
  if (plan !== null && !existsSync(plan)) {
    throw usage`${opt('with-plan', plan)}: no such plan file. Produce it with \`scalegate plan --model ${input.modelName}\` (or name another).`;
  }
  const invocations = cdkInvocations(input);
  const candidate = candidateOf(input);
  const stacks = stacksFor(input.action, input.modelName, calibration, candidate);
  const rendered = invocations.map(renderInvocation);
  const report: DeployReport = {
    kind: input.action,
    model_name: input.modelName,
    calibration,
    with_plan: plan,
    dry_run: input.dryRun === true,
    stacks,
    invocations: rendered,
    completed: 0,
    failed: null,
    left_in_place: leftInPlace(input),
  };
  const target = calibration
    ? candidateCalibrationEndpoint(input.model.endpoint, candidate)
    : input.model.endpoint;
  const region = calibration ? (input.model.calibration?.region ?? input.model.region) : input.model.region;
  const account = calibration ? (input.model.calibration?.account ?? null) : null;
  const headline = deployHeadline(report, target, region, account);

  if (input.dryRun) {
    return { artifact: report, report: renderDeployDryRun(report, headline), exitCode: 0, written: [] };
  }

  const first = invocations[0] as CdkInvocation;
  if (!existsSync(join(first.cwd, 'cdk.json'))) {
    throw new UsageError(
      `${first.cwd}: no CDK app here. \`scalegate deploy\` applies the CDK app of a scalegate checkout (infra/ beside ${input.configFile}); ` +
        'run it from a checkout, or deploy the plan with your own infrastructure code: `scalegate/cdk` in a CDK app (docs/cdk.md), or `scalegate gate` then `scalegate plan --from <plan> --format tfvars` for Terraform (docs/terraform.md).',
    );
  }
  if (!existsSync(first.command)) {
    throw new UsageError(
      `${first.command}: the aws-cdk CLI is not installed in this checkout; run \`npm ci\` in ${dirname(first.cwd)}.`,
    );
  }
  for (const [i, invocation] of invocations.entries()) {
    const code = await deps.run(invocation);
    if (code !== 0) {
      report.failed = rendered[i] as string;
      return { artifact: report, report: renderDeployRun(report, headline, code), exitCode: 1, written: [] };
    }
    report.completed = i + 1;
  }
  return { artifact: report, report: renderDeployRun(report, headline, null), exitCode: 0, written: [] };
}
