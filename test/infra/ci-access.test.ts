/**
 * The CI access as code (infra/lib/ci-access-stack.ts), asserted on the synthesized template: who
 * may assume each role (trust conditions) and what each may do (policy conditions). Each test
 * names the escalation it prevents.
 */
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_BOOTSTRAP_BOUNDARY_POLICY,
  CALIBRATION_BOUNDARY_POLICY,
  CALIBRATION_EXECUTION_POLICY,
  CALIBRATION_TAG_KEY,
} from '../../infra/lib/calibration.js';
import { buildCiAccess, type CiAccessStack } from '../../infra/lib/ci-access-stack.js';
import type { ScalegateConfig } from '../../src/model/index.js';
import { kokoroModel } from './fixtures.js';
import { TEST_ACCOUNT } from './helpers.js';

const SUB = 'token.actions.githubusercontent.com:sub';
const AUD = 'token.actions.githubusercontent.com:aud';

interface Statement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action: string | string[];
  Resource?: unknown;
  Condition?: Record<string, Record<string, unknown>>;
  Principal?: Record<string, unknown>;
}

function build(config: ScalegateConfig, context: Record<string, string> = {}): CiAccessStack[] {
  const app = new App();
  return buildCiAccess(app, config, 'acme/speech', { account: TEST_ACCOUNT, context: (k) => context[k] });
}

const config: ScalegateConfig = { models: { 'kokoro-82m': kokoroModel() } };
const [stack] = build(config);
if (!stack) throw new Error('no CI-access stack');
const template = Template.fromStack(stack);

const roleNamed = (name: string) => {
  const found = Object.values(template.findResources('AWS::IAM::Role')).find(
    (r) => (r as { Properties: { RoleName?: string } }).Properties.RoleName === name,
  ) as { Properties: { AssumeRolePolicyDocument: { Statement: Statement[] } } } | undefined;
  if (!found) throw new Error(`no role ${name}`);
  return found.Properties;
};
/** Every statement of the inline policies attached to a role (by its logical id prefix). */
const statementsOf = (logicalPrefix: string): Statement[] =>
  Object.entries(template.findResources('AWS::IAM::Policy'))
    .filter(([, r]) =>
      JSON.stringify((r as { Properties: { Roles: unknown } }).Properties.Roles).includes(logicalPrefix),
    )
    .flatMap(
      ([, r]) =>
        (r as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument
          .Statement,
    );
const managedPolicy = (name: string): Statement[] => {
  const found = Object.values(template.findResources('AWS::IAM::ManagedPolicy')).find(
    (r) => (r as { Properties: { ManagedPolicyName: string } }).Properties.ManagedPolicyName === name,
  ) as { Properties: { PolicyDocument: { Statement: Statement[] } } } | undefined;
  if (!found) throw new Error(`no managed policy ${name}`);
  return found.Properties.PolicyDocument.Statement;
};
const actions = (s: Statement): string[] => (Array.isArray(s.Action) ? s.Action : [s.Action]);
const withAction = (statements: Statement[], action: string) =>
  statements.filter((s) => actions(s).includes(action));
const json = (x: unknown) => JSON.stringify(x);

describe('trust: who may assume the roles', () => {
  it('creates the GitHub OIDC provider for the sts.amazonaws.com audience', () => {
    template.hasResourceProperties('Custom::AWSCDKOpenIdConnectProvider', {
      Url: 'https://token.actions.githubusercontent.com',
      ClientIDList: ['sts.amazonaws.com'],
    });
  });

  it('trusts the calibration role only for environment:calibration of this repository (no pull_request, no branch wildcard)', () => {
    const trust = roleNamed('scalegate-calibration').AssumeRolePolicyDocument.Statement;
    expect(trust).toHaveLength(1);
    const [statement] = trust as [Statement];
    expect(statement.Action).toBe('sts:AssumeRoleWithWebIdentity');
    expect(statement.Condition).toEqual({
      StringEquals: { [AUD]: 'sts.amazonaws.com' },
      StringLike: { [SUB]: ['repo:acme/speech:environment:calibration:ref:*'] },
    });
    expect(json(trust)).not.toMatch(/pull_request|ref:refs\/heads\/\*|repo:acme\/speech:\*/);
  });

  it('trusts the release role only for environment:production on the default branch (no tag unless listed: a tag anyone with write access can push is not a protected ref)', () => {
    const [statement] = roleNamed('scalegate-release').AssumeRolePolicyDocument.Statement as [Statement];
    expect(statement.Condition).toEqual({
      StringEquals: { [AUD]: 'sts.amazonaws.com' },
      StringLike: { [SUB]: ['repo:acme/speech:environment:production:ref:refs/heads/main'] },
    });
  });

  it('trusts release tags only when listed explicitly (-c scalegate:productionRefs)', () => {
    const [listed] = build(config, { 'scalegate:productionRefs': 'refs/heads/main,refs/tags/v*' });
    const t = Template.fromStack(listed as CiAccessStack);
    const release = Object.values(t.findResources('AWS::IAM::Role')).find(
      (r) => (r as { Properties: { RoleName?: string } }).Properties.RoleName === 'scalegate-release',
    );
    expect(json(release)).toContain('"repo:acme/speech:environment:production:ref:refs/tags/v*"');
  });

  it('with GitHub’s default subject template, trusts exactly the environment subjects', () => {
    const [other] = build(config, { 'scalegate:oidcSubject': 'default' });
    const t = Template.fromStack(other as CiAccessStack);
    const subs = Object.values(t.findResources('AWS::IAM::Role')).map((r) =>
      json((r as { Properties: { AssumeRolePolicyDocument: unknown } }).Properties.AssumeRolePolicyDocument),
    );
    expect(subs.join()).toContain('"repo:acme/speech:environment:calibration"');
    expect(subs.join()).toContain('"repo:acme/speech:environment:production"');
  });

  describe('with the repository’s numeric IDs (immutable subject claims)', () => {
    const ids = { 'scalegate:githubOwnerId': '123456', 'scalegate:githubRepositoryId': '456789' };
    const [withIds] = build(config, ids);
    const t = Template.fromStack(withIds as CiAccessStack);
    const trustOf = (name: string): Statement => {
      const found = Object.values(t.findResources('AWS::IAM::Role')).find(
        (r) => (r as { Properties: { RoleName?: string } }).Properties.RoleName === name,
      ) as { Properties: { AssumeRolePolicyDocument: { Statement: Statement[] } } };
      const statements = found.Properties.AssumeRolePolicyDocument.Statement;
      expect(statements).toHaveLength(1);
      return statements[0] as Statement;
    };
    const PREFIXES = [
      'repo:acme/speech:',
      'repo:acme@123456/speech@456789:',
      'repository_owner_id:123456:repository_id:456789:',
    ];

    it('trusts the release role for the name form, the owner@id/repo@id form and the ID claim-key form, each only on environment:production and the protected refs', () => {
      const statement = trustOf('scalegate-release');
      expect(statement.Condition?.StringEquals).toEqual({ [AUD]: 'sts.amazonaws.com' });
      const subs = statement.Condition?.StringLike?.[SUB] as string[];
      expect([...subs].sort()).toEqual(
        PREFIXES.map((p) => `${p}environment:production:ref:refs/heads/main`).sort(),
      );
    });

    it('trusts the calibration role for the three forms of environment:calibration and nothing broader (no repo:*, no other owner, no `-` spelling)', () => {
      const statement = trustOf('scalegate-calibration');
      const subs = statement.Condition?.StringLike?.[SUB] as string[];
      expect([...subs].sort()).toEqual(PREFIXES.map((p) => `${p}environment:calibration:ref:*`).sort());
      for (const sub of subs) {
        // The only wildcard is the ref's; the repository part is spelled out exactly.
        expect(
          PREFIXES.some((p) => sub.startsWith(p)),
          sub,
        ).toBe(true);
        expect(sub.indexOf('*') === -1 || sub.endsWith(':ref:*'), sub).toBe(true);
      }
      const text = json(statement);
      expect(text).not.toMatch(/repo:\*|repo:acme\/\*|repository_owner_id:\*|:repository_id:\*|pull_request/);
      expect(text).not.toContain('repo:acme-123456/speech-456789');
    });

    it('trusts the ID forms with GitHub’s default template too (environment subjects without a ref)', () => {
      const [other] = build(config, { ...ids, 'scalegate:oidcSubject': 'default' });
      const text = json(Template.fromStack(other as CiAccessStack).findResources('AWS::IAM::Role'));
      for (const p of PREFIXES) expect(text).toContain(`"${p}environment:production"`);
    });

    it('refuses one ID without the other and an ID that is not a number (a wildcard would widen the trust)', () => {
      expect(() => build(config, { 'scalegate:githubOwnerId': '123456' })).toThrow(/go together/);
      expect(() =>
        build(config, { 'scalegate:githubOwnerId': '*', 'scalegate:githubRepositoryId': '456789' }),
      ).toThrow(/-c scalegate:githubOwnerId=\*: give GitHub's numeric ID/);
    });
  });

  it('refuses every-branch production refs (refs/heads/*) and a malformed repository', () => {
    expect(() => build(config, { 'scalegate:productionRefs': 'refs/heads/*' })).toThrow(
      /not a protected ref pattern/,
    );
    expect(() =>
      buildCiAccess(new App(), config, 'acme', { account: TEST_ACCOUNT, context: () => undefined }),
    ).toThrow(/OWNER\/REPO/);
  });
});

describe('the calibration role: measures the calibration endpoint, changes nothing of production', () => {
  const statements = statementsOf('CalibrationRole');

  it('conditions RegisterScalableTarget on the sagemaker namespace, the variant dimension and the calibration tag', () => {
    const register = withAction(statements, 'application-autoscaling:RegisterScalableTarget');
    expect(register).toHaveLength(1);
    expect(register[0]?.Condition).toEqual({
      StringEquals: {
        'application-autoscaling:service-namespace': 'sagemaker',
        'application-autoscaling:scalable-dimension': 'sagemaker:variant:DesiredInstanceCount',
        [`aws:ResourceTag/${CALIBRATION_TAG_KEY}`]: ['kokoro-82m'],
      },
    });
    expect(json(register[0]?.Resource)).toContain(
      ':application-autoscaling:us-east-1:111122223333:scalable-target/*',
    );
  });

  it('invokes and pins only the calibration endpoint (never the production one)', () => {
    const write = withAction(statements, 'sagemaker:UpdateEndpointWeightsAndCapacities');
    expect(write).toHaveLength(1);
    expect(json(write[0]?.Resource)).toContain(
      ':sagemaker:us-east-1:111122223333:endpoint/speech-kokoro-82m-calibration',
    );
    expect(json(withAction(statements, 'sagemaker:InvokeEndpoint'))).not.toMatch(
      /endpoint\/speech-kokoro-82m"/,
    );
  });

  it('writes and removes only the thaw journal’s and the freeze claims’ tag keys, only on the calibration endpoint (a freeze cannot retag anything else)', () => {
    const write = withAction(statements, 'sagemaker:AddTags');
    expect(write).toHaveLength(1);
    expect(actions(write[0] as Statement).sort()).toEqual(['sagemaker:AddTags', 'sagemaker:DeleteTags']);
    expect(write[0]?.Condition).toEqual({
      'ForAllValues:StringLike': {
        'aws:TagKeys': ['scalegate:thaw-journal', 'scalegate:thaw-journal:*', 'scalegate:freeze:*'],
      },
    });
    expect(json(write[0]?.Resource)).toContain(
      ':sagemaker:us-east-1:111122223333:endpoint/speech-kokoro-82m-calibration',
    );
    expect(json(write[0]?.Resource)).not.toMatch(/endpoint\/speech-kokoro-82m"/);
    const read = withAction(statements, 'sagemaker:ListTags');
    expect(json(read[0]?.Resource)).toContain('endpoint/speech-kokoro-82m-calibration');
  });

  it('assumes only the calibration bootstrap’s deploy and publishing roles: never the default (admin) CDK bootstrap, never a lookup role (ReadOnlyAccess over the account)', () => {
    const assume = withAction(statements, 'sts:AssumeRole');
    expect(assume).toHaveLength(1);
    expect(json(assume)).toContain('cdk-sgcal-deploy-role-111122223333-us-east-1');
    expect(json(assume)).toContain('cdk-sgcal-file-publishing-role-111122223333-us-east-1');
    expect(json(assume)).toContain('cdk-sgcal-image-publishing-role-111122223333-us-east-1');
    expect(json(assume)).not.toContain('lookup');
    expect(json(assume)).not.toContain('cfn-exec');
    expect(json(statements)).not.toContain('hnb659fds');
    expect(json(statements)).not.toContain('cdk-*');
  });

  it('has no wildcard action and no write action without a resource or condition', () => {
    expect(statements.length).toBeGreaterThan(5);
    for (const s of statements) {
      expect(actions(s).every((a) => !a.endsWith('*'))).toBe(true);
      if (json(s.Resource) === '"*"') expect(s.Condition, s.Sid).toBeDefined();
    }
  });
});

describe('the release role: deploys through the production bootstrap, freezes nothing', () => {
  const statements = statementsOf('ReleaseRole');

  it('reads the production endpoint and assumes the default bootstrap roles, and nothing that changes scaling', () => {
    expect(json(withAction(statements, 'sts:AssumeRole'))).toContain(
      'cdk-hnb659fds-deploy-role-111122223333-us-east-1',
    );
    for (const write of [
      'application-autoscaling:RegisterScalableTarget',
      'sagemaker:UpdateEndpointWeightsAndCapacities',
      'sagemaker:InvokeEndpoint',
    ]) {
      expect(withAction(statements, write)).toEqual([]);
    }
    expect(json(withAction(statements, 'sagemaker:DescribeEndpoint'))).toContain(
      'endpoint/speech-kokoro-82m"',
    );
  });
});

describe('the calibration CloudFormation execution policy (instead of AdministratorAccess)', () => {
  const policy = managedPolicy(CALIBRATION_EXECUTION_POLICY);

  it('creates endpoints only named *-calibration, and models/configs only tagged as calibration’s', () => {
    const create = withAction(policy, 'sagemaker:CreateEndpoint').filter((s) => s.Effect === 'Allow');
    const endpointResources = create.map((s) => json(s.Resource)).join();
    expect(endpointResources).toContain('endpoint/speech-kokoro-82m-calibration');
    expect(endpointResources).not.toMatch(/endpoint\/speech-kokoro-82m"/);
    const createModel = withAction(policy, 'sagemaker:CreateModel');
    expect(createModel[0]?.Condition).toEqual({
      StringEquals: { [`aws:RequestTag/${CALIBRATION_TAG_KEY}`]: ['kokoro-82m'] },
    });
  });

  it('denies endpoint configs on instance types the config does not name', () => {
    const deny = policy.find(
      (s) => s.Effect === 'Deny' && actions(s).includes('sagemaker:CreateEndpointConfig'),
    );
    expect(deny?.Condition).toEqual({
      'ForAnyValue:StringNotEquals': { 'sagemaker:InstanceTypes': ['ml.g5.xlarge'] },
    });
  });

  it('creates no role, policy or trust (a pull request’s stack cannot make a role an outside account may assume): IAM writes are denied, and only the one calibration execution role may be passed, only to SageMaker', () => {
    const allowed = policy.filter((s) => s.Effect === 'Allow').flatMap(actions);
    expect(allowed.filter((a) => a.startsWith('iam:')).sort()).toEqual([
      'iam:CreateServiceLinkedRole',
      'iam:PassRole',
    ]);
    const deny = policy.find((s) => s.Effect === 'Deny' && actions(s).includes('iam:CreateRole'));
    expect(actions(deny as Statement)).toEqual(
      expect.arrayContaining([
        'iam:CreateRole',
        'iam:PutRolePolicy',
        'iam:AttachRolePolicy',
        'iam:UpdateAssumeRolePolicy',
        'iam:DeleteRolePermissionsBoundary',
      ]),
    );
    expect(deny?.Resource).toBe('*');
    const pass = withAction(policy, 'iam:PassRole');
    expect(pass).toHaveLength(1);
    expect(json(pass[0]?.Resource)).toMatch(
      /:iam::111122223333:role\/scalegate-calibration\/scalegate-calibration-endpoint"\]\]\}$/,
    );
    expect(pass[0]?.Condition).toEqual({
      StringEquals: { 'iam:PassedToService': 'sagemaker.amazonaws.com' },
    });
  });

  it('denies every SageMaker action on the production endpoint, whatever else it allows', () => {
    const deny = policy.find((s) => s.Sid === 'NeverAProductionEndpoint');
    expect(deny?.Effect).toBe('Deny');
    expect(deny?.Action).toBe('sagemaker:*');
    expect(json(deny?.Resource)).toContain(':sagemaker:us-east-1:111122223333:endpoint/speech-kokoro-82m"');
  });

  it('registers scalable targets only in the sagemaker namespace, variant dimension, tagged', () => {
    const register = withAction(policy, 'application-autoscaling:RegisterScalableTarget');
    expect(register).toHaveLength(2); // creating (request tag) and updating (resource tag)
    for (const s of register) {
      const equals = s.Condition?.StringEquals ?? {};
      expect(equals['application-autoscaling:service-namespace']).toBe('sagemaker');
      expect(equals['application-autoscaling:scalable-dimension']).toBe(
        'sagemaker:variant:DesiredInstanceCount',
      );
      expect(Object.keys(equals).some((k) => k.endsWith(`/${CALIBRATION_TAG_KEY}`))).toBe(true);
    }
  });

  it('deploys a plan policy (--with-plan) only onto the calibration endpoint: scaling policies on tagged targets, alarms and dashboards named for it', () => {
    const policies = withAction(policy, 'application-autoscaling:PutScalingPolicy');
    expect(policies).toHaveLength(1);
    expect(policies[0]?.Condition?.StringEquals).toMatchObject({
      'application-autoscaling:service-namespace': 'sagemaker',
      [`aws:ResourceTag/${CALIBRATION_TAG_KEY}`]: ['kokoro-82m'],
    });
    const alarms = withAction(policy, 'cloudwatch:PutMetricAlarm');
    expect(alarms).toHaveLength(1);
    expect(json(alarms[0]?.Resource)).toContain(':alarm:scalegate-speech-kokoro-82m-calibration-*');
    expect(json(alarms[0]?.Resource)).not.toMatch(/alarm:scalegate-speech-kokoro-82m-\*/);
    const dashboards = withAction(policy, 'cloudwatch:PutDashboard');
    expect(json(dashboards[0]?.Resource)).toContain(':dashboard/scalegate-speech-kokoro-82m-calibration-*');
  });

  it('grants no wildcard action and nothing on CloudFormation, S3 or Lambda', () => {
    for (const s of policy.filter((p) => p.Effect === 'Allow')) {
      expect(actions(s).every((a) => !a.endsWith('*'))).toBe(true);
    }
    expect(json(policy)).not.toMatch(/"(cloudformation|s3|lambda|codebuild):/);
  });
});

describe('the calibration SageMaker execution role (created here once, imported by calibration stacks)', () => {
  const role = roleNamed('scalegate-calibration-endpoint') as unknown as {
    Path: string;
    PermissionsBoundary: unknown;
    AssumeRolePolicyDocument: { Statement: Statement[] };
  };
  const statements = statementsOf('CalibrationExecutionRole');

  it('is trusted by SageMaker only, under the calibration path, within the calibration boundary', () => {
    expect(role.Path).toBe('/scalegate-calibration/');
    expect(role.AssumeRolePolicyDocument.Statement).toEqual([
      expect.objectContaining({
        Principal: { Service: 'sagemaker.amazonaws.com' },
        Action: 'sts:AssumeRole',
      }),
    ]);
    expect(json(role.PermissionsBoundary)).toContain('CalibrationBoundary');
  });

  it('pulls only the calibration images’ repositories (never ecr pulls on *), in its policy and in its boundary', () => {
    const boundary = managedPolicy(CALIBRATION_BOUNDARY_POLICY);
    for (const doc of [statements, boundary]) {
      const pulls = withAction(doc, 'ecr:BatchGetImage');
      expect(pulls).toHaveLength(1);
      expect(pulls[0]?.Resource).not.toBe('*');
      expect(json(pulls[0]?.Resource)).toContain(':ecr:us-east-1:111122223333:repository/speech-kokoro-82m');
      const star = doc.filter((s) => s.Resource === '*').flatMap(actions);
      expect(star.sort()).toEqual(['cloudwatch:PutMetricData', 'ecr:GetAuthorizationToken']);
    }
  });

  it('pulls a container_dir image only from the calibration bootstrap’s asset repository', () => {
    const [withAsset] = build({
      models: { 'kokoro-82m': kokoroModel({ image_uri: undefined, container_dir: 'infra/container' }) },
    });
    const t = Template.fromStack(withAsset as CiAccessStack);
    expect(json(t.findResources('AWS::IAM::Policy'))).toContain(
      ':ecr:us-east-1:111122223333:repository/cdk-sgcal-container-assets-111122223333-us-east-1',
    );
  });

  it('writes only the calibration endpoints’ log groups', () => {
    const logs = withAction(statements, 'logs:PutLogEvents');
    expect(json(logs[0]?.Resource)).toContain(
      'log-group:/aws/sagemaker/Endpoints/speech-kokoro-82m-calibration',
    );
    expect(json(logs[0]?.Resource)).not.toMatch(/Endpoints\/speech-kokoro-82m"|Endpoints\/\*/);
  });
});

describe('the boundary of every calibration bootstrap role', () => {
  const boundary = managedPolicy(CALIBRATION_BOOTSTRAP_BOUNDARY_POLICY);
  const deny = (sid: string) =>
    boundary.find((s) => s.Sid === sid && s.Effect === 'Deny') as Statement & {
      NotResource?: unknown;
    };

  it('denies IAM writes and role assumption whatever a role’s own policy says', () => {
    expect(actions(deny('NoIamWrite'))).toEqual(
      expect.arrayContaining([
        'iam:CreateRole',
        'iam:PutRolePolicy',
        'iam:AttachRolePolicy',
        'iam:UpdateAssumeRolePolicy',
      ]),
    );
    expect(actions(deny('NoRoleAssumption'))).toContain('sts:AssumeRole');
  });

  it('denies changing any stack not named scalegate-*-calibration, and the CI-access and toolkit stacks that name would match', () => {
    expect(json(deny('OnlyCalibrationStacks').NotResource)).toContain(':stack/scalegate-*-calibration/*');
    expect(actions(deny('OnlyCalibrationStacks'))).toEqual(
      expect.arrayContaining([
        'cloudformation:UpdateStack',
        'cloudformation:DeleteStack',
        'cloudformation:ExecuteChangeSet',
      ]),
    );
    const never = json(deny('NeverTheCiAccessOrToolkitStacks').Resource);
    expect(never).toContain(':stack/scalegate-ci-access*/*');
    expect(never).toContain(':stack/CDKToolkit*/*');
  });

  it('denies passing any role but the sgcal execution role and the calibration SageMaker role, and any SageMaker action on production endpoints', () => {
    const pass = json(deny('PassOnlyTheCalibrationRoles').NotResource);
    expect(pass).toContain(':role/cdk-sgcal-cfn-exec-role-111122223333-*');
    expect(pass).toContain(':role/scalegate-calibration/scalegate-calibration-endpoint');
    expect(json(deny('NeverAProductionEndpoint').Resource)).toContain('endpoint/speech-kokoro-82m"');
  });
});

describe('calibration in another account', () => {
  it('puts the calibration role in that account’s own stack, and only the release role in production’s', () => {
    const stacks = build({
      models: { 'kokoro-82m': kokoroModel({ calibration: { account: '444455556666' } }) },
    });
    expect(stacks.map((s) => [s.stackName, s.account])).toEqual([
      ['scalegate-ci-access', TEST_ACCOUNT],
      ['scalegate-ci-access-calibration', '444455556666'],
    ]);
    expect(stacks[0]?.calibrationRole).toBeNull();
    expect(stacks[0]?.releaseRole).not.toBeNull();
    expect(stacks[1]?.releaseRole).toBeNull();
    expect(json(Template.fromStack(stacks[1] as CiAccessStack).toJSON())).toContain(
      'cdk-sgcal-deploy-role-444455556666-us-east-1',
    );
  });
});
