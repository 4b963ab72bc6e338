/**
 * What calibration owns, and how it is kept apart from production.
 *
 * A pull request deploys its own container to the calibration endpoint, so everything it deploys
 * is calibration-owned: its own execution role (never production's), its own endpoint and
 * scalable target, in the calibration account and region of the config (default: production's).
 * The stacks are deployed through a separately bootstrapped CDK environment (qualifier
 * `CALIBRATION_BOOTSTRAP_QUALIFIER`) whose CloudFormation execution role carries the restricted
 * policy of the CI-access stack instead of the AdministratorAccess default: it can create only
 * `*-calibration` endpoints, roles under `CALIBRATION_ROLE_PATH` that carry the calibration
 * permissions boundary, and scalable targets tagged `CALIBRATION_TAG_KEY`.
 */
import { Aws, DefaultStackSynthesizer, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import type { ModelConfig } from '../../src/model/index.js';
import { calibrationEndpointName } from '../../src/plan/policy-shape.js';

/** `cdk bootstrap --qualifier` of the calibration environment (at most 10 lower-case characters). */
export const CALIBRATION_BOOTSTRAP_QUALIFIER = 'sgcal';
/** Tag on every calibration resource; the CI roles' Application Auto Scaling rights require it. */
export const CALIBRATION_TAG_KEY = 'scalegate:calibration';
/** IAM path of every role a calibration stack creates. */
export const CALIBRATION_ROLE_PATH = '/scalegate-calibration/';
/** Permissions boundary every calibration-created role must carry (created by the CI-access stack). */
export const CALIBRATION_BOUNDARY_POLICY = 'scalegate-calibration-boundary';
/** The CloudFormation execution policy of the calibration bootstrap (created by the CI-access stack). */
export const CALIBRATION_EXECUTION_POLICY = 'scalegate-calibration-cfn-execution';

/** The synthesizer of every calibration stack: the calibration bootstrap, never the default one. */
export const calibrationSynthesizer = (): DefaultStackSynthesizer =>
  new DefaultStackSynthesizer({ qualifier: CALIBRATION_BOOTSTRAP_QUALIFIER });

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

export interface CalibrationFoundationStackProps extends StackProps {
  readonly modelName: string;
  readonly model: ModelConfig;
}

/**
 * The calibration endpoint's own SageMaker execution role: its calibration log group, metrics,
 * ECR login (image pulls are granted per image by the endpoint stack). Under the calibration
 * path and boundary, so the restricted CloudFormation execution role may create it, and nothing
 * a pull request puts in it can exceed the boundary.
 */
export class CalibrationFoundationStack extends Stack {
  readonly executionRole: iam.Role;

  constructor(scope: Construct, id: string, props: CalibrationFoundationStackProps) {
    super(scope, id, { ...props, synthesizer: props.synthesizer ?? calibrationSynthesizer() });
    const { modelName, model } = props;
    const endpoint = calibrationEndpointName(model.endpoint);
    tagCalibration(this, modelName);
    iam.PermissionsBoundary.of(this).apply(
      iam.ManagedPolicy.fromManagedPolicyName(this, 'Boundary', CALIBRATION_BOUNDARY_POLICY),
    );

    this.executionRole = new iam.Role(this, 'ExecutionRole', {
      assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com'),
      path: CALIBRATION_ROLE_PATH,
      description: `SageMaker execution role of ${endpoint} (calibration only; production's role is not used)`,
    });
    const logGroup = `arn:${Aws.PARTITION}:logs:${this.region}:${this.account}:log-group:/aws/sagemaker/Endpoints/${endpoint}`;
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({ actions: ['logs:CreateLogGroup'], resources: [logGroup] }),
    );
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ['logs:CreateLogStream', 'logs:PutLogEvents', 'logs:DescribeLogStreams'],
        resources: [`${logGroup}:*`],
      }),
    );
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({
        actions: ['cloudwatch:PutMetricData'],
        resources: ['*'],
        conditions: { StringLike: { 'cloudwatch:namespace': '/aws/sagemaker/*' } },
      }),
    );
    this.executionRole.addToPolicy(
      new iam.PolicyStatement({ actions: ['ecr:GetAuthorizationToken'], resources: ['*'] }),
    );
  }
}
