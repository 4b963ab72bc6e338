/**
 * The calibration role's reach for a config: synthesizes the CI-access stack(s) of the config,
 * reads the calibration bootstrap template (`infra/bootstrap/calibration-bootstrap.yaml`) as
 * `cdk bootstrap` would deploy it in each calibration region, lists what production owns there,
 * and runs the reachability check of iam-reach.ts from each calibration role.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { parse } from 'yaml';
import type { ScalegateConfig } from '../../src/model/index.js';
import { stackNames } from '../../src/plan/policy-shape.js';
import {
  bootstrapRoleName,
  CALIBRATION_BOOTSTRAP_QUALIFIER,
  CALIBRATION_BOOTSTRAP_TEMPLATE,
  CALIBRATION_EXECUTION_POLICY,
  CALIBRATION_TOOLKIT_STACK,
  calibrationEnv,
} from './calibration.js';
import { buildCiAccess, DEFAULT_BOOTSTRAP_QUALIFIER } from './ci-access-stack.js';
import { type CfnTemplate, type ProductionTarget, type ReachReport, reachFrom } from './iam-reach.js';

export const CALIBRATION_ROLE_NAME = 'scalegate-calibration';
/** Stack ids are never known in advance; a fixed one stands for any. */
const ANY_STACK_ID = '00000000-0000-0000-0000-000000000000';

export interface CalibrationReachOptions {
  /** Production's account (the CI-access stack's). */
  account: string;
  repoRoot: string;
  /** The bootstrap template to check. @default the calibration bootstrap of the repository */
  bootstrapTemplate?: CfnTemplate;
  /** Parameters it is deployed with. @default the documented `cdk bootstrap` command's */
  bootstrapParameters?: (account: string) => Record<string, string>;
}

export interface AccountReach {
  account: string;
  regions: string[];
  report: ReachReport;
}

export const readBootstrapTemplate = (repoRoot: string): CfnTemplate =>
  parse(readFileSync(join(repoRoot, CALIBRATION_BOOTSTRAP_TEMPLATE), 'utf8')) as CfnTemplate;

/** The parameters of the documented bootstrap command. */
export const documentedBootstrapParameters = (account: string): Record<string, string> => ({
  Qualifier: CALIBRATION_BOOTSTRAP_QUALIFIER,
  CloudFormationExecutionPolicies: `arn:aws:iam::${account}:policy/${CALIBRATION_EXECUTION_POLICY}`,
});

/** What production owns (and what calibration's deploys must not touch) in these accounts. */
export function productionTargets(
  config: ScalegateConfig,
  productionAccount: string,
  accounts: string[],
): ProductionTarget[] {
  const regions = [
    ...new Set(
      Object.values(config.models).flatMap((m) => [m.region, calibrationEnv(m, productionAccount).region]),
    ),
  ];
  const stack = (account: string, region: string, name: string) =>
    `arn:aws:cloudformation:${region}:${account}:stack/${name}/${ANY_STACK_ID}`;
  const targets: ProductionTarget[] = [];
  for (const [name, model] of Object.entries(config.models)) {
    const names = stackNames(name);
    for (const s of [names.foundation, names.modelCache, names.endpoint]) {
      targets.push({ arn: stack(productionAccount, model.region, s), what: `production stack ${s}` });
    }
    targets.push({
      arn: `arn:aws:sagemaker:${model.region}:${productionAccount}:endpoint/${model.endpoint.toLowerCase()}`,
      what: `production endpoint ${model.endpoint}`,
    });
  }
  targets.push({
    arn: `arn:aws:iam::${productionAccount}:role/scalegate-release`,
    what: 'the release role',
  });
  for (const account of accounts) {
    for (const region of regions) {
      for (const kind of ['deploy', 'file-publishing', 'image-publishing', 'lookup', 'cfn-exec'] as const) {
        const role = bootstrapRoleName(DEFAULT_BOOTSTRAP_QUALIFIER, kind, account, region);
        targets.push({
          arn: `arn:aws:iam::${account}:role/${role}`,
          what: `default CDK bootstrap role ${role}`,
        });
      }
      for (const s of [
        'scalegate-ci-access',
        'scalegate-ci-access-calibration',
        'CDKToolkit',
        CALIBRATION_TOOLKIT_STACK,
      ]) {
        targets.push({
          arn: stack(account, region, s),
          what: `stack ${s} (not calibration's)`,
          writesOnly: true,
        });
      }
    }
  }
  return targets;
}

/** The reach of the calibration role of every CI-access stack of the config that has one. */
export function calibrationReach(config: ScalegateConfig, options: CalibrationReachOptions): AccountReach[] {
  const app = new App();
  const stacks = buildCiAccess(app, config, 'owner/repository', {
    account: options.account,
    context: () => undefined,
  });
  const assembly = app.synth();
  const bootstrap = options.bootstrapTemplate ?? readBootstrapTemplate(options.repoRoot);
  const parameters = options.bootstrapParameters ?? documentedBootstrapParameters;
  const accounts = [...new Set(stacks.map((s) => s.account))];
  const targets = productionTargets(config, options.account, accounts);
  return stacks
    .filter((s) => s.calibrationRole !== null)
    .map((s) => {
      const regions = [
        ...new Set(
          Object.values(config.models)
            .filter((m) => (m.calibration?.account ?? options.account) === s.account)
            .map((m) => calibrationEnv(m, options.account).region),
        ),
      ];
      const inputs = [
        {
          name: s.stackName,
          template: assembly.getStackArtifact(s.artifactId).template as CfnTemplate,
          account: s.account,
          region: s.region,
        },
        ...regions.map((region) => ({
          name: `${CALIBRATION_TOOLKIT_STACK} (${region})`,
          template: bootstrap,
          account: s.account,
          region,
          parameters: parameters(s.account),
        })),
      ];
      return { account: s.account, regions, report: reachFrom(CALIBRATION_ROLE_NAME, inputs, targets) };
    });
}
