// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub strings, not templates
/**
 * The calibration CDK bootstrap shipped in infra/bootstrap/ (qualifier sgcal), asserted on the
 * template `cdk bootstrap --template` deploys: no lookup role with ReadOnlyAccess, a deploy role
 * that acts only on calibration stacks, an execution role that carries only the restricted policy,
 * a permissions boundary on every role, and assets scoped to the qualifier. Each test names the
 * escalation it prevents; the last ones keep it a faithful restriction of the installed CLI's
 * stock template (same version, same outputs, parameters the CLI can pass).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  CALIBRATION_BOOTSTRAP_BOUNDARY_POLICY,
  CALIBRATION_BOOTSTRAP_QUALIFIER,
  CALIBRATION_BOOTSTRAP_TEMPLATE,
  CALIBRATION_EXECUTION_POLICY,
} from '../../infra/lib/calibration.js';
import { REPO } from './helpers.js';

type Json = Record<string, unknown>;
const raw = parse(readFileSync(join(REPO, CALIBRATION_BOOTSTRAP_TEMPLATE), 'utf8')) as {
  Parameters: Record<string, Json>;
  Resources: Record<string, { Type: string; Properties: Json }>;
  Outputs: Record<string, Json>;
};
const template = Template.fromJSON(raw);
const stock = parse(
  readFileSync(
    join(REPO, 'node_modules', 'aws-cdk', 'lib', 'api', 'bootstrap', 'bootstrap-template.yaml'),
    'utf8',
  ),
) as typeof raw;
const json = (x: unknown) => JSON.stringify(x);

interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource: unknown;
  Condition?: Json;
}
const actions = (s: Statement) => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const deployStatements = (): Statement[] => {
  const role = raw.Resources.DeploymentActionRole?.Properties as {
    Policies: { PolicyDocument: { Statement: Statement[] } }[];
  };
  return role.Policies.flatMap((p) => p.PolicyDocument.Statement);
};

describe('the calibration bootstrap template', () => {
  it('has no lookup role and attaches no AWS managed policy (no ReadOnlyAccess over the whole account, no AdministratorAccess)', () => {
    expect(Object.keys(raw.Resources)).not.toContain('LookupRole');
    const roles = json(template.findResources('AWS::IAM::Role'));
    expect(roles).not.toContain('lookup-role');
    expect(json(raw.Resources)).not.toMatch(/iam::aws:policy\//);
    expect(json(raw.Resources)).not.toMatch(/ReadOnlyAccess|AdministratorAccess/);
  });

  it('lets the deploy role change only stacks named scalegate-*-calibration, and only with this bootstrap’s execution role', () => {
    const statements = deployStatements().filter((s) => s.Effect === 'Allow');
    const cfn = statements.filter((s) => actions(s).some((a) => a.startsWith('cloudformation:')));
    const calibrationStacks = {
      'Fn::Sub':
        'arn:${AWS::Partition}:cloudformation:${AWS::Region}:${AWS::AccountId}:stack/scalegate-*-calibration/*',
    };
    for (const s of cfn) {
      if (actions(s).includes('cloudformation:GetTemplateSummary')) {
        // Takes no stack: the summary of a template the CLI is about to deploy.
        expect(actions(s)).toEqual(['cloudformation:GetTemplateSummary', 'sts:GetCallerIdentity']);
        continue;
      }
      if (s.Sid === 'ReadTheToolkitStack') {
        expect(actions(s)).toEqual(['cloudformation:DescribeStacks']);
        continue;
      }
      expect(s.Resource, s.Sid).toEqual(calibrationStacks);
    }
    const create = cfn.find((s) => actions(s).includes('cloudformation:CreateChangeSet'));
    expect(actions(create as Statement).sort()).toEqual([
      'cloudformation:CreateChangeSet',
      'cloudformation:CreateStack',
      'cloudformation:DeleteStack',
      'cloudformation:UpdateStack',
    ]);
    expect(create?.Condition).toEqual({
      StringEquals: { 'cloudformation:RoleArn': { 'Fn::Sub': '${CloudFormationExecutionRole.Arn}' } },
    });
  });

  it('denies the deploy role the stacks the name pattern would let through (scalegate-ci-access-calibration holds the CI roles) and the toolkit stacks', () => {
    const deny = deployStatements().find((s) => s.Sid === 'NeverTheCiAccessOrToolkitStacks') as Statement;
    expect(deny.Effect).toBe('Deny');
    expect(actions(deny)).toEqual(
      expect.arrayContaining(['cloudformation:UpdateStack', 'cloudformation:DeleteStack']),
    );
    expect(json(deny.Resource)).toContain('stack/scalegate-ci-access*/*');
    expect(json(deny.Resource)).toContain('stack/CDKToolkit*/*');
  });

  it('lets the deploy role pass only its execution role, only to CloudFormation', () => {
    const pass = deployStatements().filter((s) => actions(s).includes('iam:PassRole'));
    expect(pass).toEqual([
      expect.objectContaining({
        Resource: { 'Fn::Sub': '${CloudFormationExecutionRole.Arn}' },
        Condition: { StringEquals: { 'iam:PassedToService': 'cloudformation.amazonaws.com' } },
      }),
    ]);
  });

  it('gives the execution role only the policy passed, which must be the account’s scalegate-calibration-cfn-execution (no AdministratorAccess fallback)', () => {
    template.hasResourceProperties('AWS::IAM::Role', {
      RoleName: { 'Fn::Sub': 'cdk-${Qualifier}-cfn-exec-role-${AWS::AccountId}-${AWS::Region}' },
      ManagedPolicyArns: [{ Ref: 'CloudFormationExecutionPolicies' }],
      AssumeRolePolicyDocument: Match.objectLike({
        Statement: [Match.objectLike({ Principal: { Service: 'cloudformation.amazonaws.com' } })],
      }),
    });
    const parameter = raw.Parameters.CloudFormationExecutionPolicies as {
      AllowedPattern: string;
      Default?: string;
    };
    expect(parameter.Default).toBeUndefined();
    const allowed = new RegExp(`^(?:${parameter.AllowedPattern})$`);
    expect(allowed.test(`arn:aws:iam::111122223333:policy/${CALIBRATION_EXECUTION_POLICY}`)).toBe(true);
    for (const refused of [
      'arn:aws:iam::aws:policy/AdministratorAccess',
      'arn:aws:iam::111122223333:policy/admin',
      `arn:aws:iam::111122223333:policy/${CALIBRATION_EXECUTION_POLICY},arn:aws:iam::aws:policy/AdministratorAccess`,
    ]) {
      expect(allowed.test(refused), refused).toBe(false);
    }
  });

  it('puts the calibration bootstrap boundary on every role (whatever a role’s policy says, the boundary’s denies hold)', () => {
    const roles = template.findResources('AWS::IAM::Role');
    expect(Object.keys(roles).sort()).toEqual([
      'CloudFormationExecutionRole',
      'DeploymentActionRole',
      'FilePublishingRole',
      'ImagePublishingRole',
    ]);
    for (const [id, role] of Object.entries(roles)) {
      expect((role as { Properties: Json }).Properties.PermissionsBoundary, id).toEqual({
        'Fn::Sub': `arn:\${AWS::Partition}:iam::\${AWS::AccountId}:policy/${CALIBRATION_BOOTSTRAP_BOUNDARY_POLICY}`,
      });
    }
  });

  it('trusts only its own account, never with an external ID (no --trust, no cross-account deploys)', () => {
    expect(Object.keys(raw.Parameters)).not.toContain('TrustedAccounts');
    expect(Object.keys(raw.Parameters)).not.toContain('TrustedAccountsForLookup');
    for (const [id, role] of Object.entries(template.findResources('AWS::IAM::Role'))) {
      const trust = (role as { Properties: { AssumeRolePolicyDocument: { Statement: Json[] } } }).Properties
        .AssumeRolePolicyDocument.Statement;
      for (const s of trust) {
        expect(
          [{ AWS: { Ref: 'AWS::AccountId' } }, { Service: 'cloudformation.amazonaws.com' }],
          id,
        ).toContainEqual(s.Principal);
        if (s.Action === 'sts:AssumeRole' && json(s.Principal).includes('AWS::AccountId')) {
          expect(s.Condition, id).toEqual({ Null: { 'sts:ExternalId': 'true' } });
        }
      }
    }
  });

  it('scopes the staging bucket and the image repository to the qualifier, and each publishing role to its own', () => {
    expect(raw.Parameters.Qualifier?.AllowedValues).toEqual([CALIBRATION_BOOTSTRAP_QUALIFIER]);
    template.hasResourceProperties('AWS::S3::Bucket', {
      BucketName: { 'Fn::Sub': 'cdk-${Qualifier}-assets-${AWS::AccountId}-${AWS::Region}' },
    });
    template.hasResourceProperties('AWS::ECR::Repository', {
      RepositoryName: { 'Fn::Sub': 'cdk-${Qualifier}-container-assets-${AWS::AccountId}-${AWS::Region}' },
    });
    const policies = template.findResources('AWS::IAM::Policy');
    const file = json(policies.FilePublishingRoleDefaultPolicy);
    expect(file).toContain('${StagingBucket.Arn}');
    expect(file).not.toMatch(/"Resource":"\*"/);
    const image = (
      policies.ImagePublishingRoleDefaultPolicy as {
        Properties: { PolicyDocument: { Statement: Statement[] } };
      }
    ).Properties.PolicyDocument.Statement;
    for (const s of image) {
      if (s.Resource === '*') expect(actions(s)).toEqual(['ecr:GetAuthorizationToken']);
      else expect(s.Resource).toEqual({ 'Fn::Sub': '${ContainerAssetsRepository.Arn}' });
    }
  });

  it('is a restriction of the installed aws-cdk’s stock template: its resources, outputs and version, and only parameters `cdk bootstrap` passes', () => {
    for (const id of Object.keys(raw.Resources)) expect(Object.keys(stock.Resources), id).toContain(id);
    for (const output of ['BucketName', 'BucketDomainName', 'ImageRepositoryName', 'BootstrapVersion']) {
      expect(raw.Outputs[output], output).toEqual(stock.Outputs[output]);
    }
    expect(raw.Resources.CdkBootstrapVersion?.Properties).toEqual(
      stock.Resources.CdkBootstrapVersion?.Properties,
    );
    for (const parameter of Object.keys(raw.Parameters)) {
      expect(Object.keys(stock.Parameters), parameter).toContain(parameter);
    }
  });
});
