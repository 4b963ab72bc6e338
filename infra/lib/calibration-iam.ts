/**
 * The IAM of calibration, created once per account by the trusted CI-access stack (never by a
 * stack a pull request deploys):
 *
 * - the calibration role's own statements (measure and freeze the calibration endpoints, deploy
 *   through the calibration bootstrap's deploy and publishing roles, never its lookup role);
 * - the SageMaker execution role of the calibration endpoints (`scalegate-calibration-endpoint`):
 *   their log groups, SageMaker metrics, and image pulls only from the repositories the
 *   calibration images live in, within the boundary `scalegate-calibration-boundary`;
 * - the CloudFormation execution policy of the calibration bootstrap: calibration endpoints,
 *   tagged models, configs and scalable targets, alarms and dashboards named for the calibration
 *   endpoints; no IAM write at all, only `iam:PassRole` of that one execution role to SageMaker;
 * - the boundary of every calibration bootstrap role (`scalegate-calibration-bootstrap-boundary`):
 *   whatever a role's policy says, no IAM write, no stack but a calibration stack, no production
 *   endpoint, no role assumption, no role passed but the two calibration ones.
 */
import { Aws, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { CLAIM_TAG_PREFIX } from '../../src/model/freeze-claim.js';
import { JOURNAL_TAG } from '../../src/model/journal.js';
import {
  bootstrapRoleName,
  CALIBRATION_BOOTSTRAP_BOUNDARY_POLICY,
  CALIBRATION_BOOTSTRAP_QUALIFIER,
  type CALIBRATION_BOOTSTRAP_ROLES,
  CALIBRATION_BOUNDARY_POLICY,
  CALIBRATION_EXECUTION_POLICY,
  CALIBRATION_EXECUTION_ROLE_NAME,
  CALIBRATION_ROLE_PATH,
  CALIBRATION_STACK_PATTERN,
  CALIBRATION_TAG_KEY,
  calibrationAssetRepository,
  NOT_CALIBRATION_STACKS,
} from './calibration.js';

/** Where an endpoint's image is pulled from. */
export type ImageSource =
  /** `container_dir`: the container-assets repository of the bootstrap it is deployed through. */
  | { kind: 'asset' }
  /** `image_uri`: that ECR repository (account and region default to the endpoint's). */
  | { kind: 'uri'; account?: string; region?: string; repository: string };

/** One endpoint a role acts on. */
export interface CiEndpoint {
  modelName: string;
  endpoint: string;
  variant: string;
  region: string;
  instanceType: string;
  image: ImageSource;
}

/** IAM actions that change IAM itself; no calibration policy may grant one. */
export const IAM_WRITES = [
  'iam:CreateRole',
  'iam:DeleteRole',
  'iam:UpdateRole',
  'iam:UpdateAssumeRolePolicy',
  'iam:PutRolePolicy',
  'iam:DeleteRolePolicy',
  'iam:AttachRolePolicy',
  'iam:DetachRolePolicy',
  'iam:PutRolePermissionsBoundary',
  'iam:DeleteRolePermissionsBoundary',
  'iam:CreatePolicy',
  'iam:CreatePolicyVersion',
  'iam:SetDefaultPolicyVersion',
  'iam:DeletePolicy',
  'iam:CreateUser',
  'iam:CreateAccessKey',
  'iam:CreateInstanceProfile',
  'iam:AddRoleToInstanceProfile',
] as const;

const CFN_WRITES = [
  'cloudformation:CreateChangeSet',
  'cloudformation:CreateStack',
  'cloudformation:UpdateStack',
  'cloudformation:DeleteStack',
  'cloudformation:DeleteChangeSet',
  'cloudformation:ExecuteChangeSet',
  'cloudformation:RollbackStack',
  'cloudformation:ContinueUpdateRollback',
  'cloudformation:UpdateTerminationProtection',
  'cloudformation:SetStackPolicy',
  'cloudformation:CreateStackRefactor',
  'cloudformation:ExecuteStackRefactor',
];

const unique = <T>(values: T[]): T[] => [...new Set(values)];

/** ARN helpers bound to the CI-access stack's account. */
export class CalibrationArns {
  constructor(private readonly stack: Stack) {}

  get account(): string {
    return this.stack.account;
  }

  arn(service: string, region: string, resource: string): string {
    return `arn:${Aws.PARTITION}:${service}:${region}:${this.account}:${resource}`;
  }

  /** SageMaker ARNs carry the resource name in lower case. */
  endpoint(e: CiEndpoint): string {
    return this.arn('sagemaker', e.region, `endpoint/${e.endpoint.toLowerCase()}`);
  }

  role(name: string, path = '/'): string {
    return `arn:${Aws.PARTITION}:iam::${this.account}:role${path}${name}`;
  }

  policy(name: string): string {
    return `arn:${Aws.PARTITION}:iam::${this.account}:policy/${name}`;
  }

  get executionRole(): string {
    return this.role(CALIBRATION_EXECUTION_ROLE_NAME, CALIBRATION_ROLE_PATH);
  }

  bootstrapRole(kind: (typeof CALIBRATION_BOOTSTRAP_ROLES)[number], region: string): string {
    return this.role(bootstrapRoleName(CALIBRATION_BOOTSTRAP_QUALIFIER, kind, this.account, region));
  }

  /** The ECR repositories the calibration images are pulled from (never `*`). */
  pullRepositories(endpoints: CiEndpoint[]): string[] {
    return unique(
      endpoints.map((e) =>
        e.image.kind === 'asset'
          ? this.arn('ecr', e.region, `repository/${calibrationAssetRepository(this.account, e.region)}`)
          : `arn:${Aws.PARTITION}:ecr:${e.image.region ?? e.region}:${e.image.account ?? this.account}:repository/${e.image.repository}`,
      ),
    );
  }
}

/** An explicit deny of every SageMaker action on the production endpoints (none when there are none). */
const neverAProductionEndpoint = (production: CiEndpoint[], at: CalibrationArns): iam.PolicyStatement[] =>
  production.length === 0
    ? []
    : [
        new iam.PolicyStatement({
          sid: 'NeverAProductionEndpoint',
          effect: iam.Effect.DENY,
          actions: ['sagemaker:*'],
          resources: production.map((e) => at.endpoint(e)),
        }),
      ];

const logGroups = (arns: CiEndpoint[], at: CalibrationArns): string[] =>
  arns.flatMap((e) => {
    const group = at.arn('logs', e.region, `log-group:/aws/sagemaker/Endpoints/${e.endpoint}`);
    return [group, `${group}:*`];
  });

/** What the calibration role itself may do: measure, freeze, and deploy through sgcal only. */
export function calibrationRoleStatements(
  at: CalibrationArns,
  endpoints: CiEndpoint[],
): iam.PolicyStatement[] {
  const regions = unique(endpoints.map((e) => e.region));
  const models = unique(endpoints.map((e) => e.modelName));
  return [
    new iam.PolicyStatement({
      sid: 'MeasureAndFreezeTheCalibrationEndpoints',
      actions: [
        'sagemaker:InvokeEndpoint',
        'sagemaker:UpdateEndpointWeightsAndCapacities',
        'sagemaker:DescribeEndpoint',
      ],
      resources: endpoints.map((e) => at.endpoint(e)),
    }),
    new iam.PolicyStatement({
      // The thaw journal and each run's freeze claim travel with the endpoint as tags (a freeze
      // writes them, restore and thaw remove them): only their own keys, only on the calibration endpoints.
      sid: 'ThawJournalTagsOnTheCalibrationEndpoints',
      actions: ['sagemaker:AddTags', 'sagemaker:DeleteTags'],
      resources: endpoints.map((e) => at.endpoint(e)),
      conditions: {
        'ForAllValues:StringLike': {
          'aws:TagKeys': [JOURNAL_TAG, `${JOURNAL_TAG}:*`, `${CLAIM_TAG_PREFIX}*`],
        },
      },
    }),
    new iam.PolicyStatement({
      sid: 'ReadTheThawJournalTags',
      actions: ['sagemaker:ListTags'],
      resources: endpoints.map((e) => at.endpoint(e)),
    }),
    new iam.PolicyStatement({
      sid: 'ReadTheFingerprint',
      actions: ['sagemaker:DescribeEndpointConfig', 'sagemaker:DescribeModel'],
      resources: regions.flatMap((r) => [
        at.arn('sagemaker', r, 'endpoint-config/*'),
        at.arn('sagemaker', r, 'model/*'),
      ]),
    }),
    new iam.PolicyStatement({
      sid: 'QuotaHeadroom',
      actions: ['sagemaker:ListEndpoints', 'servicequotas:ListServiceQuotas'],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': regions } },
    }),
    new iam.PolicyStatement({
      // The plan's cost block: the on-demand price of the instance type (a read of public prices;
      // the Price List API has no resource-level permissions).
      sid: 'PriceTheInstance',
      actions: ['pricing:GetProducts'],
      resources: ['*'],
      // The regions the Price List API is served from (src/aws/pricing.ts).
      conditions: { StringEquals: { 'aws:RequestedRegion': ['us-east-1', 'eu-central-1', 'ap-south-1'] } },
    }),
    new iam.PolicyStatement({
      sid: 'ReadTheQuota',
      actions: ['servicequotas:GetServiceQuota'],
      resources: regions.map((r) => at.arn('servicequotas', r, 'sagemaker/*')),
    }),
    new iam.PolicyStatement({
      sid: 'ReadScaling',
      actions: [
        'application-autoscaling:DescribeScalableTargets',
        'application-autoscaling:DescribeScalingPolicies',
        'application-autoscaling:DescribeScalingActivities',
        'cloudwatch:GetMetricData',
      ],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': regions } },
    }),
    new iam.PolicyStatement({
      // Freeze and thaw set SuspendedState on the calibration target, and nothing else.
      sid: 'SuspendAndRestoreOnlyTheCalibrationTargets',
      actions: ['application-autoscaling:RegisterScalableTarget'],
      resources: regions.map((r) => at.arn('application-autoscaling', r, 'scalable-target/*')),
      conditions: {
        StringEquals: {
          'application-autoscaling:service-namespace': 'sagemaker',
          'application-autoscaling:scalable-dimension': 'sagemaker:variant:DesiredInstanceCount',
          [`aws:ResourceTag/${CALIBRATION_TAG_KEY}`]: models,
        },
      },
    }),
    new iam.PolicyStatement({
      sid: 'ReadAlarms',
      actions: ['cloudwatch:DescribeAlarms'],
      resources: regions.map((r) => at.arn('cloudwatch', r, 'alarm:*')),
    }),
    new iam.PolicyStatement({
      sid: 'StageMarkersOfTheNewInstance',
      actions: ['logs:DescribeLogStreams', 'logs:GetLogEvents'],
      resources: logGroups(endpoints, at),
    }),
    new iam.PolicyStatement({
      // `scalegate deploy|destroy --calibration`: the calibration bootstrap's deploy and publishing
      // roles only (not its cfn-exec role, which only CloudFormation assumes; there is no lookup role).
      sid: 'DeployThroughTheCalibrationBootstrapOnly',
      actions: ['sts:AssumeRole'],
      resources: regions.flatMap((r) =>
        (['deploy', 'file-publishing', 'image-publishing'] as const).map((kind) => at.bootstrapRole(kind, r)),
      ),
    }),
  ];
}

/** The SageMaker execution role of the calibration endpoints of this account (one, shared). */
export function calibrationExecutionRole(
  scope: Stack,
  at: CalibrationArns,
  endpoints: CiEndpoint[],
  boundary: iam.IManagedPolicy,
): iam.Role {
  const role = new iam.Role(scope, 'CalibrationExecutionRole', {
    roleName: CALIBRATION_EXECUTION_ROLE_NAME,
    path: CALIBRATION_ROLE_PATH,
    assumedBy: new iam.ServicePrincipal('sagemaker.amazonaws.com'),
    permissionsBoundary: boundary,
    description: 'SageMaker execution role of the calibration endpoints (a pull request cannot change it)',
  });
  for (const statement of executionRoleStatements(at, endpoints)) role.addToPolicy(statement);
  return role;
}

/** What a calibration endpoint's container may do (and, as its boundary, at most). */
function executionRoleStatements(at: CalibrationArns, endpoints: CiEndpoint[]): iam.PolicyStatement[] {
  return [
    new iam.PolicyStatement({
      sid: 'CalibrationEndpointLogs',
      actions: [
        'logs:CreateLogGroup',
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'logs:DescribeLogStreams',
      ],
      resources: logGroups(endpoints, at),
    }),
    new iam.PolicyStatement({
      // PutMetricData names no resource; the namespace is the only scope it has.
      sid: 'SageMakerMetrics',
      actions: ['cloudwatch:PutMetricData'],
      resources: ['*'],
      conditions: { StringLike: { 'cloudwatch:namespace': '/aws/sagemaker/*' } },
    }),
    new iam.PolicyStatement({
      sid: 'RegistryLogin',
      actions: ['ecr:GetAuthorizationToken'],
      resources: ['*'],
    }),
    new iam.PolicyStatement({
      sid: 'PullOnlyTheCalibrationImages',
      actions: ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'],
      resources: at.pullRepositories(endpoints),
    }),
  ];
}

/** The boundary of the calibration execution role: the same as its policy, nothing broader. */
export function calibrationBoundary(
  scope: Stack,
  at: CalibrationArns,
  endpoints: CiEndpoint[],
): iam.ManagedPolicy {
  return new iam.ManagedPolicy(scope, 'CalibrationBoundary', {
    managedPolicyName: CALIBRATION_BOUNDARY_POLICY,
    description: 'Permissions boundary of the calibration SageMaker execution role',
    statements: executionRoleStatements(at, endpoints),
  });
}

/**
 * The boundary of every role of the calibration bootstrap (deploy, publishing, cfn-exec): the
 * services they use, and whatever their policies say, never an IAM write, a stack other than a
 * calibration stack, a production endpoint, a role assumption, or passing another role.
 */
export function calibrationBootstrapBoundary(
  scope: Stack,
  at: CalibrationArns,
  production: CiEndpoint[],
): iam.ManagedPolicy {
  const stack = (name: string) => `arn:${Aws.PARTITION}:cloudformation:*:${at.account}:stack/${name}/*`;
  const statements = [
    new iam.PolicyStatement({
      sid: 'TheServicesOfACalibrationDeploy',
      actions: [
        'cloudformation:*',
        's3:*',
        'ecr:*',
        'sagemaker:*',
        'application-autoscaling:*',
        'cloudwatch:*',
        'ssm:GetParameter',
        'ssm:GetParameters',
        'iam:PassRole',
        'iam:CreateServiceLinkedRole',
        'sts:GetCallerIdentity',
      ],
      resources: ['*'],
    }),
    new iam.PolicyStatement({
      sid: 'NoIamWrite',
      effect: iam.Effect.DENY,
      actions: [...IAM_WRITES],
      resources: ['*'],
    }),
    new iam.PolicyStatement({
      sid: 'NoRoleAssumption',
      effect: iam.Effect.DENY,
      actions: ['sts:AssumeRole', 'sts:AssumeRoleWithWebIdentity'],
      resources: ['*'],
    }),
    new iam.PolicyStatement({
      sid: 'PassOnlyTheCalibrationRoles',
      effect: iam.Effect.DENY,
      actions: ['iam:PassRole'],
      notResources: [
        at.role(bootstrapRoleName(CALIBRATION_BOOTSTRAP_QUALIFIER, 'cfn-exec', at.account, '*')),
        at.executionRole,
      ],
    }),
    new iam.PolicyStatement({
      sid: 'OnlyCalibrationStacks',
      effect: iam.Effect.DENY,
      actions: CFN_WRITES,
      notResources: [stack(CALIBRATION_STACK_PATTERN)],
    }),
    new iam.PolicyStatement({
      sid: 'NeverTheCiAccessOrToolkitStacks',
      effect: iam.Effect.DENY,
      actions: CFN_WRITES,
      resources: NOT_CALIBRATION_STACKS.map(stack),
    }),
  ];
  statements.push(...neverAProductionEndpoint(production, at));
  return new iam.ManagedPolicy(scope, 'CalibrationBootstrapBoundary', {
    managedPolicyName: CALIBRATION_BOOTSTRAP_BOUNDARY_POLICY,
    description: 'Permissions boundary of every role of the calibration CDK bootstrap (sgcal)',
    statements,
  });
}

/** The CloudFormation execution policy of the calibration bootstrap (instead of AdministratorAccess). */
export function calibrationExecutionPolicy(
  scope: Stack,
  at: CalibrationArns,
  endpoints: CiEndpoint[],
  production: CiEndpoint[],
): iam.ManagedPolicy {
  const regions = unique(endpoints.map((e) => e.region));
  const models = unique(endpoints.map((e) => e.modelName));
  const instanceTypes = unique(endpoints.map((e) => e.instanceType));
  const tagged = { [`aws:ResourceTag/${CALIBRATION_TAG_KEY}`]: models };
  const tagging = { [`aws:RequestTag/${CALIBRATION_TAG_KEY}`]: models };
  const configsAndModels = regions.flatMap((r) => [
    at.arn('sagemaker', r, 'endpoint-config/*'),
    at.arn('sagemaker', r, 'model/*'),
  ]);
  const targets = regions.map((r) => at.arn('application-autoscaling', r, 'scalable-target/*'));
  const sagemakerScaling = {
    'application-autoscaling:service-namespace': 'sagemaker',
    'application-autoscaling:scalable-dimension': 'sagemaker:variant:DesiredInstanceCount',
  };
  const statements = [
    new iam.PolicyStatement({
      sid: 'CreateOnlyTaggedCalibrationModelsAndConfigs',
      actions: ['sagemaker:CreateModel', 'sagemaker:CreateEndpointConfig', 'sagemaker:AddTags'],
      resources: configsAndModels,
      conditions: { StringEquals: tagging },
    }),
    new iam.PolicyStatement({
      sid: 'OnlyTheConfiguredInstanceTypes',
      effect: iam.Effect.DENY,
      actions: ['sagemaker:CreateEndpointConfig'],
      resources: ['*'],
      conditions: { 'ForAnyValue:StringNotEquals': { 'sagemaker:InstanceTypes': instanceTypes } },
    }),
    new iam.PolicyStatement({
      sid: 'ManageTaggedCalibrationModelsAndConfigs',
      actions: [
        'sagemaker:DescribeModel',
        'sagemaker:DeleteModel',
        'sagemaker:DescribeEndpointConfig',
        'sagemaker:DeleteEndpointConfig',
        'sagemaker:ListTags',
        'sagemaker:DeleteTags',
      ],
      resources: configsAndModels,
      conditions: { StringEquals: tagged },
    }),
    new iam.PolicyStatement({
      sid: 'OnlyCalibrationEndpoints',
      actions: [
        'sagemaker:CreateEndpoint',
        'sagemaker:UpdateEndpoint',
        'sagemaker:DeleteEndpoint',
        'sagemaker:DescribeEndpoint',
        'sagemaker:AddTags',
        'sagemaker:ListTags',
        'sagemaker:DeleteTags',
      ],
      resources: endpoints.map((e) => at.endpoint(e)),
    }),
    new iam.PolicyStatement({
      sid: 'CreateEndpointReadsItsConfig',
      actions: ['sagemaker:CreateEndpoint', 'sagemaker:UpdateEndpoint'],
      resources: regions.map((r) => at.arn('sagemaker', r, 'endpoint-config/*')),
      conditions: { StringEquals: tagged },
    }),
    new iam.PolicyStatement({
      // The only IAM right: hand the CI-access stack's calibration execution role to SageMaker.
      sid: 'PassOnlyTheCalibrationExecutionRoleToSageMaker',
      actions: ['iam:PassRole'],
      resources: [at.executionRole],
      conditions: { StringEquals: { 'iam:PassedToService': 'sagemaker.amazonaws.com' } },
    }),
    new iam.PolicyStatement({
      // A calibration stack creates no role, policy or trust (a role trusted by another account
      // would outlive the pull request); the CI-access stack owns every calibration role.
      sid: 'NoIamWrite',
      effect: iam.Effect.DENY,
      actions: [...IAM_WRITES],
      resources: ['*'],
    }),
    new iam.PolicyStatement({
      sid: 'RegisterOnlyTaggedSageMakerVariantTargets',
      actions: ['application-autoscaling:RegisterScalableTarget', 'application-autoscaling:TagResource'],
      resources: targets,
      conditions: { StringEquals: { ...sagemakerScaling, ...tagging } },
    }),
    new iam.PolicyStatement({
      sid: 'UpdateOrRemoveOnlyTaggedSageMakerVariantTargets',
      actions: [
        'application-autoscaling:RegisterScalableTarget',
        'application-autoscaling:DeregisterScalableTarget',
        'application-autoscaling:ListTagsForResource',
      ],
      resources: targets,
      conditions: { StringEquals: { ...sagemakerScaling, ...tagged } },
    }),
    new iam.PolicyStatement({
      sid: 'ReadScalableTargets',
      actions: [
        'application-autoscaling:DescribeScalableTargets',
        'application-autoscaling:DescribeScalingPolicies',
      ],
      resources: ['*'],
      conditions: { StringEquals: { 'aws:RequestedRegion': regions } },
    }),
    // `--with-plan`: the plan's policy on the calibration endpoint (where it is validated and
    // drilled), through the same constructs as production, and nowhere else.
    new iam.PolicyStatement({
      sid: 'ScalingPoliciesOnlyOnTaggedCalibrationTargets',
      actions: ['application-autoscaling:PutScalingPolicy', 'application-autoscaling:DeleteScalingPolicy'],
      resources: targets,
      conditions: { StringEquals: { ...sagemakerScaling, ...tagged } },
    }),
    new iam.PolicyStatement({
      sid: 'AlarmsOnlyOfTheCalibrationEndpoints',
      actions: ['cloudwatch:PutMetricAlarm', 'cloudwatch:DeleteAlarms', 'cloudwatch:DescribeAlarms'],
      resources: endpoints.map((e) => at.arn('cloudwatch', e.region, `alarm:scalegate-${e.endpoint}-*`)),
    }),
    new iam.PolicyStatement({
      sid: 'DashboardsOnlyOfTheCalibrationEndpoints',
      actions: ['cloudwatch:PutDashboard', 'cloudwatch:DeleteDashboards', 'cloudwatch:GetDashboard'],
      resources: endpoints.map(
        (e) => `arn:${Aws.PARTITION}:cloudwatch::${at.account}:dashboard/scalegate-${e.endpoint}-*`,
      ),
    }),
    new iam.PolicyStatement({
      sid: 'TheScalingServiceLinkedRole',
      actions: ['iam:CreateServiceLinkedRole'],
      resources: [
        at.role(
          'AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint',
          '/aws-service-role/sagemaker.application-autoscaling.amazonaws.com/',
        ),
      ],
      conditions: {
        StringEquals: { 'iam:AWSServiceName': 'sagemaker.application-autoscaling.amazonaws.com' },
      },
    }),
    new iam.PolicyStatement({
      sid: 'TheBootstrapVersion',
      actions: ['ssm:GetParameter', 'ssm:GetParameters'],
      resources: regions.map((r) =>
        at.arn('ssm', r, `parameter/cdk-bootstrap/${CALIBRATION_BOOTSTRAP_QUALIFIER}/version`),
      ),
    }),
  ];
  statements.push(...neverAProductionEndpoint(production, at));
  return new iam.ManagedPolicy(scope, 'CalibrationExecutionPolicy', {
    managedPolicyName: CALIBRATION_EXECUTION_POLICY,
    description:
      'CloudFormation execution policy of the calibration CDK bootstrap: calibration-owned resources only',
    statements,
  });
}
