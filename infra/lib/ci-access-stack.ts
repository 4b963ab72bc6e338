/**
 * The CI access of scalegate, as code: the GitHub OIDC roles the workflows assume, and every IAM
 * resource of calibration (calibration-iam.ts), created here once per account by an operator,
 * never by a stack a pull request deploys.
 *
 * - Calibration role: trusted only for jobs of this repository that run in the GitHub environment
 *   `calibration`. It measures and freezes only the calibration endpoints (Application Auto
 *   Scaling only on the `sagemaker` namespace, the variant's DesiredInstanceCount dimension, and a
 *   target tagged as calibration's; the thaw journal's own tag keys on those endpoints), reads what
 *   the measurement needs, and deploys only through the calibration bootstrap (qualifier `sgcal`,
 *   template `infra/bootstrap/calibration-bootstrap.yaml`): its deploy and publishing roles, never
 *   a lookup role, never the default CDK bootstrap roles production's stacks are deployed with.
 * - Calibration SageMaker execution role (`scalegate-calibration-endpoint`): the one role every
 *   calibration endpoint of the account runs with; calibration stacks import it by ARN.
 * - Calibration CloudFormation execution policy (`scalegate-calibration-cfn-execution`), the
 *   boundary of the execution role (`scalegate-calibration-boundary`) and the boundary of every
 *   `sgcal` bootstrap role (`scalegate-calibration-bootstrap-boundary`).
 * - Release role: trusted only for jobs in the GitHub environment `production` on the protected
 *   refs given (default `refs/heads/main` only: tags are trusted only when listed, and then must
 *   be protected by a tag ruleset). It reads the production endpoint (validate) and deploys
 *   through the default CDK bootstrap. It cannot freeze or scale anything.
 *
 * The subject claim: AWS reads only `sub` and `aud` of a GitHub token. With the repository's OIDC
 * subject template set to include the ref (`include_claim_keys: ["repo", "context", "ref"]`, the
 * default here) a job's sub is `repo:OWNER/REPO:environment:NAME:ref:REF`, so the protected refs
 * are checked by IAM itself. With GitHub's default template (`-c scalegate:oidcSubject=default`)
 * the sub has no ref and the protected refs rest on the `production` environment's deployment
 * branch and tag rules alone.
 *
 * Immutable subjects: GitHub's immutable subject claims (the default for repositories created or
 * renamed after mid-2026, opt-in before) append the owner's and the repository's numeric IDs to
 * their names, `repo:OWNER@OWNER_ID/REPO@REPO_ID:...`; a subject template built from the claim
 * keys `repository_owner_id` and `repository_id` gives `repository_owner_id:OWNER_ID:repository_id:
 * REPO_ID:...`. With `scalegate:githubOwnerId` and `scalegate:githubRepositoryId` the roles trust
 * both forms besides the name form, each with the same environment and ref suffix (see
 * docs/security.md). The changelog's spelling with `-` (`repo:OWNER-ID/REPO-ID:...`) is not
 * trusted: `-` is legal in names, so another account named `OWNER-ID` could mint it.
 *
 * Context (with `-c scalegate:ciAccess=OWNER/REPO`): `scalegate:oidcProviderArn` (an existing
 * GitHub provider of the account; default: create one), `scalegate:productionRefs` (comma list),
 * `scalegate:oidcSubject` (`repo-context-ref` | `default`), `scalegate:githubOwnerId` and
 * `scalegate:githubRepositoryId` (numeric IDs, both or neither). One stack per account: production's
 * (`scalegate-ci-access`) and, when a model calibrates in another account (the recommended
 * setup), one there (`scalegate-ci-access-calibration-<account>`).
 */

import type { App } from 'aws-cdk-lib';
import { Aws, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import {
  candidateCalibrationEndpoint,
  candidateModel,
  type ModelConfig,
  type ScalegateConfig,
  UsageError,
} from '../../src/model/index.js';
import { calibrationEndpointName } from '../../src/plan/policy-shape.js';
import {
  CALIBRATION_BOOTSTRAP_QUALIFIER,
  CALIBRATION_BOOTSTRAP_TEMPLATE,
  CALIBRATION_TOOLKIT_STACK,
  calibrationEnv,
} from './calibration.js';
import {
  CalibrationArns,
  type CiEndpoint,
  calibrationBootstrapBoundary,
  calibrationBoundary,
  calibrationExecutionPolicy,
  calibrationExecutionRole,
  calibrationRoleStatements,
} from './calibration-iam.js';
import { imageUriRepository } from './image.js';

export type { CiEndpoint } from './calibration-iam.js';

export const CI_ACCESS_CONTEXT = {
  repository: 'scalegate:ciAccess',
  oidcProviderArn: 'scalegate:oidcProviderArn',
  productionRefs: 'scalegate:productionRefs',
  oidcSubject: 'scalegate:oidcSubject',
  githubOwnerId: 'scalegate:githubOwnerId',
  githubRepositoryId: 'scalegate:githubRepositoryId',
} as const;

/** The numeric IDs GitHub's immutable subject claims carry (`gh api repos/OWNER/REPO --jq '.owner.id, .id'`). */
export interface GitHubIds {
  readonly ownerId: string;
  readonly repositoryId: string;
}

export const GITHUB_OIDC_HOST = 'token.actions.githubusercontent.com';
export const GITHUB_OIDC_AUDIENCE = 'sts.amazonaws.com';
/** The GitHub environments the workflows run their AWS jobs in. */
export const CALIBRATION_ENVIRONMENT = 'calibration';
export const PRODUCTION_ENVIRONMENT = 'production';
/** The default branch only: a tag is trusted only when listed, and protected by a tag ruleset. */
export const DEFAULT_PRODUCTION_REFS = ['refs/heads/main'] as const;
/** The default CDK bootstrap qualifier: production's stacks are deployed through it. */
export const DEFAULT_BOOTSTRAP_QUALIFIER = 'hnb659fds';

export type OidcSubjectTemplate = 'repo-context-ref' | 'default';

export interface CiAccessStackProps extends StackProps {
  /** `owner/repo` of the repository whose workflows assume the roles. */
  readonly repository: string;
  /** An existing GitHub OIDC provider of this account (there can be only one per URL). */
  readonly oidcProviderArn?: string;
  readonly oidcSubject?: OidcSubjectTemplate;
  /** With them, the immutable subject forms are trusted too. */
  readonly githubIds?: GitHubIds;
  /** Calibration endpoints in this account (none: no calibration role here). */
  readonly calibration: CiEndpoint[];
  /** Production endpoints in this account that calibration is denied (its boundaries say so). */
  readonly productionInAccount?: CiEndpoint[];
  /** Production endpoints in this account (none: no release role here). */
  readonly release: CiEndpoint[];
  readonly productionRefs?: readonly string[];
}

const REPOSITORY = /^[A-Za-z0-9_.-]+\/[A-Za-z0-9_.-]+$/;
const unique = <T>(values: T[]): T[] => [...new Set(values)];

const NUMERIC_ID = /^[1-9][0-9]{0,19}$/;

/**
 * How this repository is named at the start of a `sub`: `repo:OWNER/REPO`, and with its IDs also
 * `repo:OWNER@OWNER_ID/REPO@REPO_ID` (immutable subject claims) and
 * `repository_owner_id:OWNER_ID:repository_id:REPO_ID` (a template of the ID claim keys).
 */
export function subjectPrefixes(repository: string, ids?: GitHubIds): string[] {
  const prefixes = [`repo:${repository}`];
  if (!ids) return prefixes;
  const [owner, repo] = repository.split('/') as [string, string];
  return [
    ...prefixes,
    `repo:${owner}@${ids.ownerId}/${repo}@${ids.repositoryId}`,
    `repository_owner_id:${ids.ownerId}:repository_id:${ids.repositoryId}`,
  ];
}

/** The `sub` values a role trusts: an environment of this repository, and (with the ref template) those refs. */
export function trustedSubjects(
  repository: string,
  environment: string,
  refs: readonly string[] | null,
  template: OidcSubjectTemplate,
  ids?: GitHubIds,
): string[] {
  return subjectPrefixes(repository, ids).flatMap((prefix) => {
    const base = `${prefix}:environment:${environment}`;
    if (template === 'default') return [base];
    return (refs ?? ['*']).map((ref) => `${base}:ref:${ref}`);
  });
}

export class CiAccessStack extends Stack {
  readonly calibrationRole: iam.Role | null = null;
  readonly releaseRole: iam.Role | null = null;
  readonly executionPolicy: iam.ManagedPolicy | null = null;
  readonly boundary: iam.ManagedPolicy | null = null;
  readonly bootstrapBoundary: iam.ManagedPolicy | null = null;
  /** The SageMaker execution role of the calibration endpoints. */
  readonly calibrationExecutionRole: iam.Role | null = null;

  constructor(scope: Construct, id: string, props: CiAccessStackProps) {
    super(scope, id, props);
    if (!REPOSITORY.test(props.repository)) {
      throw new UsageError(
        `-c ${CI_ACCESS_CONTEXT.repository}=${props.repository}: give the repository as OWNER/REPO.`,
      );
    }
    if (props.githubIds) {
      for (const [key, id] of [
        [CI_ACCESS_CONTEXT.githubOwnerId, props.githubIds.ownerId],
        [CI_ACCESS_CONTEXT.githubRepositoryId, props.githubIds.repositoryId],
      ] as const) {
        if (!NUMERIC_ID.test(id)) {
          throw new UsageError(
            `-c ${key}=${id}: give GitHub's numeric ID (gh api repos/OWNER/REPO --jq '.owner.id, .id').`,
          );
        }
      }
    }
    const template = props.oidcSubject ?? 'repo-context-ref';
    const providerArn =
      props.oidcProviderArn ??
      new iam.OpenIdConnectProvider(this, 'GitHubOidc', {
        url: `https://${GITHUB_OIDC_HOST}`,
        clientIds: [GITHUB_OIDC_AUDIENCE],
      }).openIdConnectProviderArn;
    const principal = (subjects: string[]) =>
      new iam.WebIdentityPrincipal(providerArn, {
        StringEquals: { [`${GITHUB_OIDC_HOST}:aud`]: GITHUB_OIDC_AUDIENCE },
        StringLike: { [`${GITHUB_OIDC_HOST}:sub`]: subjects },
      });

    if (props.calibration.length > 0) {
      const at = new CalibrationArns(this);
      const production = props.productionInAccount ?? [];
      this.boundary = calibrationBoundary(this, at, props.calibration);
      this.bootstrapBoundary = calibrationBootstrapBoundary(this, at, production);
      this.executionPolicy = calibrationExecutionPolicy(this, at, props.calibration, production);
      this.calibrationExecutionRole = calibrationExecutionRole(this, at, props.calibration, this.boundary);
      this.calibrationRole = new iam.Role(this, 'CalibrationRole', {
        roleName: 'scalegate-calibration',
        description: `scalegate calibrate workflow of ${props.repository}: measures the calibration endpoints, deploys calibration-owned stacks only`,
        assumedBy: principal(
          trustedSubjects(props.repository, CALIBRATION_ENVIRONMENT, null, template, props.githubIds),
        ),
        // deploy + ladder + scale-out + teardown (the workflow asks for 3 h)
        maxSessionDuration: Duration.hours(4),
      });
      for (const statement of calibrationRoleStatements(at, props.calibration)) {
        this.calibrationRole.addToPolicy(statement);
      }
      new CfnOutput(this, 'CalibrationRoleArn', { value: this.calibrationRole.roleArn });
      new CfnOutput(this, 'CalibrationExecutionRoleArn', { value: this.calibrationExecutionRole.roleArn });
      new CfnOutput(this, 'CalibrationBootstrap', {
        value: `cdk bootstrap aws://${this.account}/REGION --template ${CALIBRATION_BOOTSTRAP_TEMPLATE} --qualifier ${CALIBRATION_BOOTSTRAP_QUALIFIER} --toolkit-stack-name ${CALIBRATION_TOOLKIT_STACK} --cloudformation-execution-policies ${this.executionPolicy.managedPolicyArn}`,
      });
    }
    if (props.release.length > 0) {
      const refs = props.productionRefs ?? DEFAULT_PRODUCTION_REFS;
      this.releaseRole = new iam.Role(this, 'ReleaseRole', {
        roleName: 'scalegate-release',
        description: `scalegate release workflow of ${props.repository}: environment ${PRODUCTION_ENVIRONMENT} on ${refs.join(', ')}`,
        assumedBy: principal(
          trustedSubjects(props.repository, PRODUCTION_ENVIRONMENT, refs, template, props.githubIds),
        ),
      });
      for (const statement of this.releaseStatements(props.release)) this.releaseRole.addToPolicy(statement);
      new CfnOutput(this, 'ReleaseRoleArn', { value: this.releaseRole.roleArn });
    }
  }

  private arn(service: string, region: string, resource: string): string {
    return `arn:${Aws.PARTITION}:${service}:${region}:${this.account}:${resource}`;
  }

  /** SageMaker ARNs carry the resource name in lower case. */
  private endpointArn(e: CiEndpoint): string {
    return this.arn('sagemaker', e.region, `endpoint/${e.endpoint.toLowerCase()}`);
  }

  private bootstrapRoles(qualifier: string, regions: string[]): string[] {
    return regions.flatMap((region) =>
      ['deploy', 'file-publishing', 'image-publishing', 'lookup'].map(
        (kind) =>
          `arn:${Aws.PARTITION}:iam::${this.account}:role/cdk-${qualifier}-${kind}-role-${this.account}-${region}`,
      ),
    );
  }

  private releaseStatements(endpoints: CiEndpoint[]): iam.PolicyStatement[] {
    const regions = unique(endpoints.map((e) => e.region));
    return [
      new iam.PolicyStatement({
        sid: 'ValidateReadsTheProductionEndpoint',
        actions: ['sagemaker:DescribeEndpoint'],
        resources: endpoints.map((e) => this.endpointArn(e)),
      }),
      new iam.PolicyStatement({
        sid: 'ReadTheDeployedConfig',
        actions: ['sagemaker:DescribeEndpointConfig', 'sagemaker:DescribeModel'],
        resources: regions.flatMap((r) => [
          this.arn('sagemaker', r, 'endpoint-config/*'),
          this.arn('sagemaker', r, 'model/*'),
        ]),
      }),
      new iam.PolicyStatement({
        sid: 'ReadScaling',
        actions: [
          'application-autoscaling:DescribeScalableTargets',
          'application-autoscaling:DescribeScalingPolicies',
        ],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:RequestedRegion': regions } },
      }),
      new iam.PolicyStatement({
        sid: 'ReadAlarms',
        actions: ['cloudwatch:DescribeAlarms'],
        resources: regions.map((r) => this.arn('cloudwatch', r, 'alarm:*')),
      }),
      new iam.PolicyStatement({
        sid: 'DeployThroughTheProductionBootstrap',
        actions: ['sts:AssumeRole'],
        resources: this.bootstrapRoles(DEFAULT_BOOTSTRAP_QUALIFIER, regions),
      }),
    ];
  }
}

export interface BuildCiAccessOptions {
  account: string | undefined;
  context: (key: string) => string | undefined;
}

/** Where the endpoint pulls its image: the bootstrap's asset repository, or the `image_uri`'s. */
function imageOf(model: ModelConfig): CiEndpoint['image'] {
  const uri = model.image_uri ? imageUriRepository(model.image_uri) : null;
  if (!uri) return { kind: 'asset' };
  return {
    kind: 'uri',
    repository: uri.repository,
    ...(uri.account === '{account}' ? {} : { account: uri.account }),
    ...(uri.region === '{region}' ? {} : { region: uri.region }),
  };
}

const endpointOf = (modelName: string, model: ModelConfig, calibration: boolean): CiEndpoint => ({
  modelName,
  endpoint: calibration ? calibrationEndpointName(model.endpoint) : model.endpoint,
  variant: model.variant,
  region: calibration ? calibrationEnv(model, undefined).region : model.region,
  instanceType: model.instance_type,
  image: imageOf(model),
});

/**
 * The calibration endpoints of a model: its own `<endpoint>-calibration`, then one per declared
 * compare candidate, `<endpoint>-cal-<n>` with the candidate's instance type (`scalegate deploy
 * --calibration --candidate <n>`).
 */
const calibrationEndpointsOf = (modelName: string, model: ModelConfig): CiEndpoint[] => [
  endpointOf(modelName, model, true),
  ...model.candidates.map((_, i) => ({
    ...endpointOf(modelName, candidateModel(model, i + 1), true),
    endpoint: candidateCalibrationEndpoint(model.endpoint, i + 1),
  })),
];

/**
 * The CI-access stacks of a config: `scalegate-ci-access` in production's account (release role,
 * and the calibration role for models that calibrate there), plus one per other calibration
 * account.
 */
export function buildCiAccess(
  app: App,
  config: ScalegateConfig,
  repository: string,
  options: BuildCiAccessOptions,
): CiAccessStack[] {
  const subject = options.context(CI_ACCESS_CONTEXT.oidcSubject) ?? 'repo-context-ref';
  if (subject !== 'repo-context-ref' && subject !== 'default') {
    throw new UsageError(
      `-c ${CI_ACCESS_CONTEXT.oidcSubject}=${subject}: one of repo-context-ref (the repository's OIDC subject template includes repo, context and ref) or default.`,
    );
  }
  const refs = options
    .context(CI_ACCESS_CONTEXT.productionRefs)
    ?.split(',')
    .map((r) => r.trim())
    .filter(Boolean);
  for (const ref of refs ?? []) {
    if (!/^refs\/(heads|tags)\/[A-Za-z0-9._/*-]+$/.test(ref) || ref === 'refs/heads/*') {
      throw new UsageError(
        `-c ${CI_ACCESS_CONTEXT.productionRefs}: ${ref} is not a protected ref pattern (refs/heads/<branch> or refs/tags/<pattern>; never every branch).`,
      );
    }
  }
  const ownerId = options.context(CI_ACCESS_CONTEXT.githubOwnerId);
  const repositoryId = options.context(CI_ACCESS_CONTEXT.githubRepositoryId);
  if ((ownerId === undefined) !== (repositoryId === undefined)) {
    throw new UsageError(
      `-c ${CI_ACCESS_CONTEXT.githubOwnerId} and -c ${CI_ACCESS_CONTEXT.githubRepositoryId} go together: the immutable subject carries both IDs.`,
    );
  }
  const models = Object.entries(config.models);
  const byAccount = new Map<string, CiEndpoint[]>();
  for (const [name, model] of models) {
    const elsewhere = model.calibration?.account;
    const key = elsewhere && elsewhere !== options.account ? elsewhere : '';
    byAccount.set(key, [...(byAccount.get(key) ?? []), ...calibrationEndpointsOf(name, model)]);
  }
  const region = models[0]?.[1].region;
  const common = {
    repository,
    oidcProviderArn: options.context(CI_ACCESS_CONTEXT.oidcProviderArn),
    oidcSubject: subject as OidcSubjectTemplate,
    productionRefs: refs,
    ...(ownerId !== undefined && repositoryId !== undefined
      ? { githubIds: { ownerId: ownerId.trim(), repositoryId: repositoryId.trim() } }
      : {}),
  };
  const stacks = [
    new CiAccessStack(app, 'scalegate-ci-access', {
      ...common,
      stackName: 'scalegate-ci-access',
      env: { account: options.account, region },
      description: `scalegate CI access of ${repository}: GitHub OIDC release and calibration roles`,
      calibration: byAccount.get('') ?? [],
      release: models.map(([name, model]) => endpointOf(name, model, false)),
      productionInAccount: models.map(([name, model]) => endpointOf(name, model, false)),
    }),
  ];
  for (const [account, endpoints] of byAccount) {
    if (account === '') continue;
    stacks.push(
      new CiAccessStack(app, `scalegate-ci-access-calibration-${account}`, {
        ...common,
        // The production account's provider ARN does not exist in this account.
        oidcProviderArn: undefined,
        stackName: 'scalegate-ci-access-calibration',
        env: { account, region: endpoints[0]?.region },
        description: `scalegate CI access of ${repository}: GitHub OIDC calibration role (calibration account)`,
        calibration: endpoints,
        release: [],
      }),
    );
  }
  return stacks;
}
