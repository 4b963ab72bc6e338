/**
 * What calibration owns, and how it is kept apart from production.
 *
 * A pull request deploys its own container to the calibration endpoint, so everything it deploys
 * is calibration-owned: its endpoint, model, config and scalable target, in the calibration
 * account and region of the config (default: production's). It creates no IAM role: the
 * SageMaker execution role of the calibration endpoints (`CALIBRATION_EXECUTION_ROLE_NAME`) is
 * created once by the trusted CI-access stack and imported here by ARN, so nothing a pull request
 * synthesizes can write a role, a policy or a trust. The stacks are deployed through a separately
 * bootstrapped CDK environment (qualifier `CALIBRATION_BOOTSTRAP_QUALIFIER`, template
 * `infra/bootstrap/calibration-bootstrap.yaml`) whose deploy role acts only on calibration stacks
 * and whose CloudFormation execution role carries the restricted policy of the CI-access stack
 * instead of AdministratorAccess. They do no context lookups, and never use a lookup role.
 */
import { Arn, Aws, DefaultStackSynthesizer, Stack, Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { ModelConfig } from '../../src/model/index.js';

/** `cdk bootstrap --qualifier` of the calibration environment (at most 10 lower-case characters). */
export const CALIBRATION_BOOTSTRAP_QUALIFIER = 'sgcal';
/** `cdk bootstrap --toolkit-stack-name` of the calibration environment. */
export const CALIBRATION_TOOLKIT_STACK = 'CDKToolkit-scalegate-calibration';
/** The bootstrap template of the calibration environment, relative to the repository root. */
export const CALIBRATION_BOOTSTRAP_TEMPLATE = 'infra/bootstrap/calibration-bootstrap.yaml';
/** Tag on every calibration resource; the CI roles' Application Auto Scaling rights require it. */
export const CALIBRATION_TAG_KEY = 'scalegate:calibration';
/** IAM path of the calibration SageMaker execution role. */
export const CALIBRATION_ROLE_PATH = '/scalegate-calibration/';
/** The SageMaker execution role of every calibration endpoint of an account (CI-access stack). */
export const CALIBRATION_EXECUTION_ROLE_NAME = 'scalegate-calibration-endpoint';
/** Permissions boundary of the calibration SageMaker execution role (CI-access stack). */
export const CALIBRATION_BOUNDARY_POLICY = 'scalegate-calibration-boundary';
/** Permissions boundary of every role of the calibration bootstrap (CI-access stack). */
export const CALIBRATION_BOOTSTRAP_BOUNDARY_POLICY = 'scalegate-calibration-bootstrap-boundary';
/** The CloudFormation execution policy of the calibration bootstrap (CI-access stack). */
export const CALIBRATION_EXECUTION_POLICY = 'scalegate-calibration-cfn-execution';
/**
 * Every calibration stack is named `scalegate-<model>-calibration` (`stackNames`); the calibration
 * bootstrap's deploy role may act on stacks of this name only (`*` stands for the model).
 */
export const CALIBRATION_STACK_PATTERN = 'scalegate-*-calibration';
/** Stacks that match the pattern but are not calibration's (the deploy role is denied them). */
export const NOT_CALIBRATION_STACKS = ['scalegate-ci-access*', 'CDKToolkit*'] as const;

/** The roles of the calibration bootstrap, by the names `cdk bootstrap` gives them. */
export const CALIBRATION_BOOTSTRAP_ROLES = [
  'deploy',
  'file-publishing',
  'image-publishing',
  'cfn-exec',
] as const;
export type BootstrapRoleKind = (typeof CALIBRATION_BOOTSTRAP_ROLES)[number] | 'lookup';

export const bootstrapRoleName = (
  qualifier: string,
  kind: BootstrapRoleKind,
  account: string,
  region: string,
): string => `cdk-${qualifier}-${kind}-role-${account}-${region}`;

/** The container-assets repository of the calibration bootstrap (where a `container_dir` image goes). */
export const calibrationAssetRepository = (account: string, region: string): string =>
  `cdk-${CALIBRATION_BOOTSTRAP_QUALIFIER}-container-assets-${account}-${region}`;

/** The ARN calibration stacks import the calibration SageMaker execution role by. */
export const calibrationExecutionRoleArn = (scope: Construct): string =>
  Arn.format(
    {
      service: 'iam',
      region: '',
      resource: 'role',
      resourceName: `${CALIBRATION_ROLE_PATH.slice(1)}${CALIBRATION_EXECUTION_ROLE_NAME}`,
      partition: Aws.PARTITION,
    },
    Stack.of(scope),
  );

/**
 * The synthesizer of every calibration stack: the calibration bootstrap, never the default one,
 * and no lookup role (a `cdk diff` reads with the deploy role; the stacks need no lookups).
 */
export const calibrationSynthesizer = (): DefaultStackSynthesizer =>
  new DefaultStackSynthesizer({
    qualifier: CALIBRATION_BOOTSTRAP_QUALIFIER,
    useLookupRoleForStackOperations: false,
  });

/** Where a model's calibration copy lives: the config's calibration placement, else production's. */
export function calibrationEnv(model: ModelConfig, productionAccount: string | undefined) {
  return {
    account: model.calibration?.account ?? productionAccount,
    region: model.calibration?.region ?? model.region,
  };
}

/** Tags every resource of a calibration stack (the CI roles' conditions read this tag). */
export function tagCalibration(scope: Construct, modelName: string): void {
  Tags.of(scope).add(CALIBRATION_TAG_KEY, modelName);
}

/**
 * The calibration SageMaker execution role, imported (never created, never changed: the
 * CI-access stack grants it exactly the image pulls, log group and metrics it needs).
 */
export const importCalibrationExecutionRole = (scope: Construct): iam.IRole =>
  iam.Role.fromRoleArn(scope, 'CalibrationExecutionRole', calibrationExecutionRoleArn(scope), {
    mutable: false,
  });
