// biome-ignore-all lint/suspicious/noTemplateCurlyInString: CloudFormation Fn::Sub strings, not templates
/**
 * What the calibration role can reach, from the synthesized templates (the CI-access stack and
 * the calibration bootstrap template, as `npm run iam:report` prints it): its own policy and the
 * policies of every role it may assume or pass. Fails if any reachable statement names a
 * production stack or endpoint, the default CDK bootstrap roles or the release role, or grants a
 * changing action on `*`; and shows the check catches exactly those (the stock bootstrap, a
 * missing deny, a hand-made statement).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readAppConfig } from '../../infra/lib/app.js';
import {
  calibrationReach,
  documentedBootstrapParameters,
  productionTargets,
  readBootstrapTemplate,
} from '../../infra/lib/calibration-reach.js';
import { type CfnTemplate, globMatch, reachFrom, renderReach } from '../../infra/lib/iam-reach.js';
import type { ScalegateConfig } from '../../src/model/index.js';
import { kokoroModel } from './fixtures.js';
import { REPO, TEST_ACCOUNT } from './helpers.js';

const config = readAppConfig(join(REPO, 'scalegate.config.json'));
const [reach] = calibrationReach(config, { account: TEST_ACCOUNT, repoRoot: REPO });
if (!reach) throw new Error('no calibration role');
const { report } = reach;
const names = report.principals.map((p) => p.name);

describe('the calibration role’s reach (the repository’s config)', () => {
  it('is its own role, the sgcal deploy and publishing roles, the execution role the deploy role passes, and the SageMaker role that one passes', () => {
    expect(names).toEqual([
      'scalegate-calibration',
      `cdk-sgcal-file-publishing-role-${TEST_ACCOUNT}-us-east-1`,
      `cdk-sgcal-image-publishing-role-${TEST_ACCOUNT}-us-east-1`,
      `cdk-sgcal-deploy-role-${TEST_ACCOUNT}-us-east-1`,
      `cdk-sgcal-cfn-exec-role-${TEST_ACCOUNT}-us-east-1`,
      'scalegate-calibration-endpoint',
    ]);
    expect(names.join()).not.toMatch(/lookup|hnb659fds|scalegate-release/);
  });

  it('reaches no production stack, production endpoint, default bootstrap role, release role, nor * with a changing action', () => {
    expect(report.findings).toEqual([]);
    expect(renderReach(report)).toContain('findings: none');
  });

  it('pulls images only from the calibration repositories (the asset repository of sgcal, the image_uri’s), never ecr:* on *', () => {
    const pulls = report.rows.filter((r) => r.actions.includes('ecr:BatchGetImage'));
    expect(pulls.map((r) => r.principal).sort()).toEqual(
      [`cdk-sgcal-image-publishing-role-${TEST_ACCOUNT}-us-east-1`, 'scalegate-calibration-endpoint'].sort(),
    );
    expect(pulls.flatMap((r) => r.resources).sort()).toEqual(
      [
        `arn:aws:ecr:us-east-1:${TEST_ACCOUNT}:repository/cdk-sgcal-container-assets-${TEST_ACCOUNT}-us-east-1`,
        `arn:aws:ecr:us-east-1:${TEST_ACCOUNT}:repository/cdk-sgcal-container-assets-${TEST_ACCOUNT}-us-east-1`,
        `arn:aws:ecr:us-east-1:${TEST_ACCOUNT}:repository/speech-kokoro-82m`,
      ].sort(),
    );
  });

  it('grants no IAM action but passing the two calibration roles, and the scaling service-linked role', () => {
    const iamRows = report.rows.filter(
      (r) => r.effect === 'Allow' && r.actions.some((a) => a.startsWith('iam:')),
    );
    expect(iamRows.flatMap((r) => r.actions).sort()).toEqual([
      'iam:CreateServiceLinkedRole',
      'iam:PassRole',
      'iam:PassRole',
    ]);
  });

  it('is the same in a separate calibration account, where production owns nothing', () => {
    const separate: ScalegateConfig = {
      models: { 'kokoro-82m': kokoroModel({ calibration: { account: '444455556666' } }) },
    };
    const reaches = calibrationReach(separate, { account: TEST_ACCOUNT, repoRoot: REPO });
    expect(reaches.map((r) => r.account)).toEqual(['444455556666']);
    expect(reaches[0]?.report.findings).toEqual([]);
    expect(reaches[0]?.report.principals.map((p) => p.name)).toContain(
      'cdk-sgcal-deploy-role-444455556666-us-east-1',
    );
  });
});

describe('the check fails the wrong answer', () => {
  const stock = parse(
    readFileSync(
      join(REPO, 'node_modules', 'aws-cdk', 'lib', 'api', 'bootstrap', 'bootstrap-template.yaml'),
      'utf8',
    ),
  ) as CfnTemplate;

  it('finds the stock CDK bootstrap (deployed as sgcal without an execution policy) reaching everything: AdministratorAccess, stack changes on *', () => {
    const [bad] = calibrationReach(config, {
      account: TEST_ACCOUNT,
      repoRoot: REPO,
      bootstrapTemplate: stock,
      bootstrapParameters: () => ({ Qualifier: 'sgcal', CloudFormationExecutionPolicies: '' }),
    });
    const reasons = bad?.report.findings.map((f) => `${f.action} ${f.resource} ${f.reason}`).join('\n') ?? '';
    expect(reasons).toContain('arn:aws:iam::aws:policy/AdministratorAccess an AWS managed policy');
    expect(reasons).toContain('cloudformation:UpdateStack * a changing action on *');
    expect(reasons).toContain('cloudformation:DeleteStack * a changing action on *');
  });

  it('finds the scalegate-ci-access-calibration stack when the deploy role’s deny is missing (the name pattern matches it)', () => {
    const template = structuredClone(readBootstrapTemplate(REPO)) as CfnTemplate & {
      Resources: {
        DeploymentActionRole: {
          Properties: { Policies: { PolicyDocument: { Statement: { Sid?: string }[] } }[] };
        };
      };
    };
    const policy = template.Resources.DeploymentActionRole.Properties.Policies[0]?.PolicyDocument;
    if (!policy) throw new Error('no deploy policy');
    policy.Statement = policy.Statement.filter((s) => s.Sid !== 'NeverTheCiAccessOrToolkitStacks');
    // The bootstrap boundary denies it as well: drop it from the role to see the policy alone.
    const role = template.Resources.DeploymentActionRole.Properties as { PermissionsBoundary?: unknown };
    role.PermissionsBoundary = undefined;
    const [bad] = calibrationReach(config, {
      account: TEST_ACCOUNT,
      repoRoot: REPO,
      bootstrapTemplate: template,
    });
    expect(bad?.report.findings.map((f) => f.reason)).toContain(
      "stack scalegate-ci-access-calibration (not calibration's)",
    );
    // With the boundary back, its deny alone is enough.
    role.PermissionsBoundary = {
      'Fn::Sub':
        'arn:${AWS::Partition}:iam::${AWS::AccountId}:policy/scalegate-calibration-bootstrap-boundary',
    };
    const [boundaryOnly] = calibrationReach(config, {
      account: TEST_ACCOUNT,
      repoRoot: REPO,
      bootstrapTemplate: template,
    });
    expect(boundaryOnly?.report.findings).toEqual([]);
  });

  it('flags a statement on a production endpoint or stack, a change on *, and lets reads on * and a conditioned PutMetricData pass', () => {
    const statement = (Sid: string, Action: string, Resource: string, Condition?: object) => ({
      Sid,
      Effect: 'Allow',
      Action,
      Resource,
      ...(Condition ? { Condition } : {}),
    });
    const template: CfnTemplate = {
      Resources: {
        Role: {
          Type: 'AWS::IAM::Role',
          Properties: {
            RoleName: 'scalegate-calibration',
            Policies: [
              {
                PolicyDocument: {
                  Statement: [
                    statement(
                      'Prod',
                      'sagemaker:UpdateEndpoint',
                      `arn:aws:sagemaker:us-east-1:${TEST_ACCOUNT}:endpoint/speech-*`,
                    ),
                    statement(
                      'Stack',
                      'cloudformation:DescribeStacks',
                      `arn:aws:cloudformation:us-east-1:${TEST_ACCOUNT}:stack/scalegate-kokoro-82m-endpoint/*`,
                    ),
                    statement('Admin', 'sts:AssumeRole', `arn:aws:iam::${TEST_ACCOUNT}:role/cdk-hnb659fds-*`),
                    statement('Star', 's3:PutObject', '*'),
                    statement('Read', 'sagemaker:ListEndpoints', '*'),
                    statement('Metrics', 'cloudwatch:PutMetricData', '*', {
                      StringLike: { 'cloudwatch:namespace': 'x' },
                    }),
                    statement(
                      'Calibration',
                      'sagemaker:UpdateEndpoint',
                      `arn:aws:sagemaker:us-east-1:${TEST_ACCOUNT}:endpoint/speech-kokoro-82m-calibration`,
                    ),
                  ],
                },
              },
            ],
          },
        },
      },
    };
    const targets = productionTargets(config, TEST_ACCOUNT, [TEST_ACCOUNT]);
    const found = reachFrom(
      'scalegate-calibration',
      [{ name: 't', template, account: TEST_ACCOUNT, region: 'us-east-1' }],
      targets,
    );
    expect([...new Set(found.findings.map((f) => f.sid))].sort()).toEqual(['Admin', 'Prod', 'Stack', 'Star']);
    expect(documentedBootstrapParameters(TEST_ACCOUNT).Qualifier).toBe('sgcal');
  });

  it('matches IAM wildcards across / and : like IAM does', () => {
    expect(
      globMatch(
        'arn:aws:cloudformation:*:*:stack/scalegate-*-calibration/*',
        'arn:aws:cloudformation:us-east-1:1:stack/scalegate-ci-access-calibration/x',
      ),
    ).toBe(true);
    expect(
      globMatch(
        'arn:aws:cloudformation:*:*:stack/scalegate-*-calibration/*',
        'arn:aws:cloudformation:us-east-1:1:stack/scalegate-kokoro-82m-endpoint/x',
      ),
    ).toBe(false);
    expect(
      globMatch('arn:aws:iam::1:role/cdk-sgcal-?eploy*', 'arn:aws:iam::1:role/cdk-sgcal-deploy-role'),
    ).toBe(true);
  });
});
