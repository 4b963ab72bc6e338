/**
 * The three stacks per model and the calibration stacks: names and order, least-privilege role
 * with no fixed names, retained weights bucket, the one-time weights sync, and a calibration copy
 * that is measured (one instance, registered scalable target) but never scaled or gated, and that
 * owns everything it deploys (no production stack is even synthesized in calibration mode).
 */
import { type App, DefaultStackSynthesizer, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import {
  CALIBRATION_BOOTSTRAP_QUALIFIER,
  CALIBRATION_EXECUTION_ROLE_NAME,
  CALIBRATION_ROLE_PATH,
  CALIBRATION_TAG_KEY,
} from '../../infra/lib/calibration.js';
import { CALIBRATION_MAX_QUEUE_DEPTH } from '../../infra/lib/endpoint-stack.js';
import { stackNames } from '../../src/plan/policy-shape.js';
import { artifactsDirWith, kokoroModel, kokoroPlan } from './fixtures.js';
import { buildTestApp } from './helpers.js';

const weights = { 'kokoro-82m': { repo: 'hexgrad/Kokoro-82M', revision: 'abc123' } };
const production = buildTestApp({
  models: { 'kokoro-82m': kokoroModel() },
  artifactsDir: artifactsDirWith({ 'kokoro-82m': kokoroPlan() }),
  weights,
});
const built = production.stacks[0];
if (!built?.foundation || !built.modelCache) throw new Error('no production stacks');
const model = { ...built, foundation: built.foundation, modelCache: built.modelCache };

describe('stacks per model', () => {
  it('are foundation -> model cache -> endpoint, named after the model, each depending on the one before', () => {
    const names = stackNames('kokoro-82m');
    expect(model.ordered.map((s) => s.stackName)).toEqual([
      names.foundation,
      names.modelCache,
      names.endpoint,
    ]);
    expect(model.modelCache.dependencies).toContain(model.foundation);
    expect(model.endpoint?.dependencies).toContain(model.modelCache);
    expect(model.ordered.every((s) => s.region === 'us-east-1')).toBe(true);
  });

  it('foundation: the weights bucket survives a destroy and nothing has a fixed name (two regions can coexist)', () => {
    const t = Template.fromStack(model.foundation);
    t.hasResource('AWS::S3::Bucket', { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    t.hasResourceProperties('AWS::S3::Bucket', Match.not(Match.objectLike({ BucketName: Match.anyValue() })));
    t.hasResourceProperties('AWS::IAM::Role', Match.not(Match.objectLike({ RoleName: Match.anyValue() })));
    t.hasResourceProperties('AWS::IAM::Role', {
      AssumeRolePolicyDocument: {
        Statement: [Match.objectLike({ Principal: { Service: 'sagemaker.amazonaws.com' } })],
      },
    });
    // No managed policies (no AmazonSageMakerFullAccess): only what the endpoint needs.
    t.hasResourceProperties(
      'AWS::IAM::Role',
      Match.not(Match.objectLike({ ManagedPolicyArns: Match.anyValue() })),
    );
  });

  it('foundation: the execution role writes only its own endpoint log groups and reads only its weights prefix', () => {
    const policy = JSON.stringify(Template.fromStack(model.foundation).findResources('AWS::IAM::Policy'));
    expect(policy).toContain('log-group:/aws/sagemaker/Endpoints/speech-kokoro-82m"');
    // The calibration copy has its own role: production's never serves a pull request's container.
    expect(policy).not.toContain('speech-kokoro-82m-calibration');
    expect(policy).not.toContain('log-group:*');
    expect(policy).toContain('/models/kokoro-82m/*');
    expect(policy).not.toMatch(/"Action":"s3:\*"|"s3:PutObject"/);
  });

  it('endpoint: the role may pull exactly the deployed image repository', () => {
    const t = Template.fromStack(model.endpoint as never);
    t.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          Match.objectLike({
            Action: ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'],
            Resource: Match.objectLike({
              'Fn::Join': ['', Match.arrayWith([':ecr:us-east-1:111122223333:repository/speech-kokoro-82m'])],
            }),
          }),
        ],
      },
    });
  });

  it('model cache: a CodeBuild project syncs the declared revision once, and the deploy waits for it', () => {
    const t = Template.fromStack(model.modelCache);
    t.resourceCountIs('AWS::CodeBuild::Project', 1);
    t.hasResourceProperties('AWS::CodeBuild::Project', {
      Environment: Match.objectLike({
        EnvironmentVariables: Match.arrayWith([
          { Name: 'HF_REPO', Type: 'PLAINTEXT', Value: 'hexgrad/Kokoro-82M' },
          { Name: 'HF_REVISION', Type: 'PLAINTEXT', Value: 'abc123' },
        ]),
      }),
    });
    t.hasResourceProperties('AWS::CloudFormation::CustomResource', {
      Repo: 'hexgrad/Kokoro-82M',
      Revision: 'abc123',
    });
    t.resourceCountIs('AWS::StepFunctions::StateMachine', 1); // the provider's isComplete waiter
  });

  it('model cache: a model without a weights source gets a no-op stack, not an invalid empty template', () => {
    const { stacks } = buildTestApp({
      models: { 'kokoro-82m': kokoroModel() },
      artifactsDir: artifactsDirWith({ 'kokoro-82m': kokoroPlan() }),
    });
    const t = Template.fromStack(stacks[0]?.modelCache as never);
    t.resourceCountIs('AWS::CodeBuild::Project', 0);
    t.resourceCountIs('AWS::CloudFormation::WaitConditionHandle', 1);
  });
});

describe('calibration mode (-c scalegate:calibration=<model>)', () => {
  // No plan at all: the calibration endpoint is what produces the measurement, so no gate.
  const { stacks } = buildTestApp({
    models: { 'kokoro-82m': kokoroModel() },
    artifactsDir: artifactsDirWith({}),
    context: { 'scalegate:calibration': 'kokoro-82m' },
    weights,
  });
  const calibration = stacks[0]?.calibration;
  const names = () => stackNames('kokoro-82m');

  it('synthesizes only the calibration-owned stack (no production foundation or model cache to update), ungated', () => {
    const names = stackNames('kokoro-82m');
    expect(stacks[0]?.endpoint).toBeNull();
    expect(stacks[0]?.foundation).toBeNull();
    expect(stacks[0]?.modelCache).toBeNull();
    expect(stacks[0]?.ordered.map((s) => s.stackName)).toEqual([names.calibration]);
    const app = stacks[0]?.calibration?.node.root;
    const all = (app?.node.children ?? [])
      .filter((c) => c instanceof Stack)
      .map((c) => (c as Stack).stackName);
    expect(all).toEqual([names.calibration]);
    expect(calibration?.scaling).toBe('calibration');
    expect(calibration?.gate).toBeNull();
  });

  it('creates no IAM resource at all: it runs with the CI-access stack’s calibration execution role, imported by ARN (a pull request cannot write a role, a policy or a trust)', () => {
    const t = Template.fromStack(calibration as never);
    const iamTypes = Object.values(t.toJSON().Resources as Record<string, { Type: string }>)
      .map((r) => r.Type)
      .filter((type) => type.startsWith('AWS::IAM::'));
    expect(iamTypes).toEqual([]);
    t.hasResourceProperties('AWS::SageMaker::Model', {
      ExecutionRoleArn: {
        'Fn::Join': [
          '',
          [
            'arn:',
            { Ref: 'AWS::Partition' },
            `:iam::111122223333:role${CALIBRATION_ROLE_PATH}${CALIBRATION_EXECUTION_ROLE_NAME}`,
          ],
        ],
      },
    });
    expect(JSON.stringify(t.toJSON())).not.toContain('Fn::ImportValue');
  });

  it('deploys through the calibration bootstrap (qualifier sgcal), never the default one production uses, and names no lookup role', () => {
    for (const stack of stacks[0]?.ordered ?? []) {
      const synthesizer = stack.synthesizer as DefaultStackSynthesizer;
      expect(synthesizer).toBeInstanceOf(DefaultStackSynthesizer);
      expect(JSON.stringify(Template.fromStack(stack).toJSON())).not.toContain('hnb659fds');
      expect(JSON.stringify(Template.fromStack(stack).toJSON())).toContain(
        `cdk-bootstrap/${CALIBRATION_BOOTSTRAP_QUALIFIER}/version`,
      );
    }
  });

  it('needs no context lookup and names no lookup role in the cloud assembly (calibration never needs the lookup role)', () => {
    if (!calibration) throw new Error('no calibration stack');
    const assembly = (calibration.node.root as App).synth();
    expect(assembly.manifest.missing ?? []).toEqual([]);
    const artifact = assembly.getStackByName(names().calibration);
    expect(artifact.lookupRole).toBeUndefined();
    expect(artifact.assumeRoleArn).toContain(`cdk-${CALIBRATION_BOOTSTRAP_QUALIFIER}-deploy-role-`);
    expect(artifact.cloudFormationExecutionRoleArn).toContain(
      `cdk-${CALIBRATION_BOOTSTRAP_QUALIFIER}-cfn-exec-role-`,
    );
  });

  it('tags the calibration endpoint, its model, config and scalable target as calibration’s', () => {
    const t = Template.fromStack(calibration as never);
    const tag = { Key: CALIBRATION_TAG_KEY, Value: 'kokoro-82m' };
    for (const type of [
      'AWS::SageMaker::Endpoint',
      'AWS::SageMaker::EndpointConfig',
      'AWS::SageMaker::Model',
    ]) {
      t.hasResourceProperties(type, { Tags: Match.arrayWith([tag]) });
    }
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', { Tags: Match.arrayWith([tag]) });
  });

  it('lives in the calibration account and region the config names', () => {
    const elsewhere = buildTestApp({
      models: {
        'kokoro-82m': kokoroModel({ calibration: { account: '444455556666', region: 'us-west-2' } }),
      },
      artifactsDir: artifactsDirWith({}),
      context: { 'scalegate:calibration': 'kokoro-82m' },
    });
    for (const stack of elsewhere.stacks[0]?.ordered ?? []) {
      expect([stack.account, stack.region]).toEqual(['444455556666', 'us-west-2']);
    }
  });

  it('is <endpoint>-calibration at one instance of the same image and instance type, with an unbounded queue', () => {
    const t = Template.fromStack(calibration as never);
    t.hasResourceProperties('AWS::SageMaker::Endpoint', {
      EndpointName: 'speech-kokoro-82m-calibration',
      RetainAllVariantProperties: false,
    });
    t.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [
        Match.objectLike({
          InstanceType: 'ml.g5.xlarge',
          InitialInstanceCount: 1,
          RoutingConfig: { RoutingStrategy: 'LEAST_OUTSTANDING_REQUESTS' },
        }),
      ],
    });
    t.hasResourceProperties('AWS::SageMaker::Model', {
      PrimaryContainer: {
        Image: Match.stringLikeRegexp('speech-kokoro-82m@sha256:8b1b96bc'),
        Environment: { MAX_QUEUE_DEPTH: CALIBRATION_MAX_QUEUE_DEPTH },
      },
    });
  });

  it('registers a scalable target (min 1, max 2) so freeze and ttotal behave as on the real endpoint, with no policies or alarms', () => {
    const t = Template.fromStack(calibration as never);
    t.hasResourceProperties('AWS::ApplicationAutoScaling::ScalableTarget', {
      ResourceId: 'endpoint/speech-kokoro-82m-calibration/variant/AllTraffic',
      MinCapacity: 1,
      MaxCapacity: 2,
    });
    t.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 0);
    t.resourceCountIs('AWS::CloudWatch::Alarm', 0);
  });
});
