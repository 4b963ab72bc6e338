/**
 * `scalegate deploy <model> --calibration --candidate <n>` (context scalegate:candidate): candidate
 * n of the model's candidates[] on its own calibration endpoint `<endpoint>-cal-<n>`, in the stack
 * `scalegate-<model>-cal-<n>-calibration` (inside the calibration stack pattern), with the
 * candidate's instance type and container environment; the CI-access stack lets the calibration
 * role and execution policy act on exactly those endpoints and instance types. An index the config
 * does not declare is refused before anything runs.
 */
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { CALIBRATION_EXECUTION_POLICY, CALIBRATION_STACK_PATTERN } from '../../infra/lib/calibration.js';
import { buildCiAccess } from '../../infra/lib/ci-access-stack.js';
import { cdkInvocations, runDeploy } from '../../src/commands/deploy.js';
import { isUsageError, type ModelConfig } from '../../src/model/index.js';
import { runCli } from '../helpers/cli.js';
import { artifactsDirWith, kokoroModel } from './fixtures.js';
import { buildTestApp, REPO, TEST_ACCOUNT } from './helpers.js';

const withCandidates = (): ModelConfig =>
  kokoroModel({
    container_env: { LOG_LEVEL: 'info', DEVICE_LANES: '1' },
    candidates: [
      { instance_type: 'ml.g6.xlarge', container_env: {} },
      { instance_type: 'ml.g5.2xlarge', container_env: { DEVICE_LANES: '2' } },
    ],
  });

const synth = (context: Record<string, string>) =>
  buildTestApp({
    models: { 'kokoro-82m': withCandidates() },
    artifactsDir: artifactsDirWith({}),
    context: { 'scalegate:calibration': 'kokoro-82m', ...context },
  });

const refusal = (fn: () => unknown): Error => {
  try {
    fn();
  } catch (e) {
    return e as Error;
  }
  throw new Error('not refused');
};

describe('the CDK app with -c scalegate:candidate=<n>', () => {
  const { stacks } = synth({ 'scalegate:candidate': '2' });
  const stack = stacks[0]?.calibration;
  if (!stack) throw new Error('no calibration stack');
  const template = Template.fromStack(stack);

  it('synthesizes only scalegate-<model>-cal-<n>-calibration, a name the calibration stack pattern covers', () => {
    expect(stacks[0]?.ordered.map((s) => s.stackName)).toEqual(['scalegate-kokoro-82m-cal-2-calibration']);
    const pattern = new RegExp(`^${CALIBRATION_STACK_PATTERN.replace('*', '.+')}$`);
    expect(stack.stackName).toMatch(pattern);
    expect(stack.scaling).toBe('calibration');
    expect(stack.gate).toBeNull();
  });

  it("deploys the candidate's instance type and environment (its keys over the model's) on <endpoint>-cal-<n>", () => {
    expect(stack.endpointName).toBe('speech-kokoro-82m-cal-2');
    template.hasResourceProperties('AWS::SageMaker::Endpoint', { EndpointName: 'speech-kokoro-82m-cal-2' });
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [{ InstanceType: 'ml.g5.2xlarge', InitialInstanceCount: 1 }],
    });
    const models = Object.values(template.findResources('AWS::SageMaker::Model'));
    expect(models).toHaveLength(1);
    const env = (models[0] as { Properties: { PrimaryContainer: { Environment: Record<string, string> } } })
      .Properties.PrimaryContainer.Environment;
    expect(env).toMatchObject({ LOG_LEVEL: 'info', DEVICE_LANES: '2' });
    // Its service-time metrics are the candidate endpoint's, not the model's calibration copy's.
    expect(JSON.stringify(env)).toContain('speech-kokoro-82m-cal-2');
    expect(JSON.stringify(template.toJSON())).not.toMatch(/speech-kokoro-82m-calibration/);
  });

  it('candidate 0 (the default) is the model itself on <endpoint>-calibration', () => {
    const zero = synth({ 'scalegate:candidate': '0' }).stacks[0]?.calibration;
    expect(zero?.stackName).toBe('scalegate-kokoro-82m-calibration');
    expect(zero?.endpointName).toBe('speech-kokoro-82m-calibration');
    Template.fromStack(zero as never).hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [{ InstanceType: 'ml.g5.xlarge' }],
    });
  });

  it('refuses an index the config does not declare, a malformed one, and a candidate without calibration', () => {
    const three = refusal(() => synth({ 'scalegate:candidate': '3' }));
    expect(isUsageError(three)).toBe(true);
    expect(three.message).toMatch(/has no candidate 3: it declares candidates 1 to 2/);
    expect(refusal(() => synth({ 'scalegate:candidate': 'x' })).message).toMatch(/a candidate index/);
    const production = refusal(() =>
      buildTestApp({
        models: { 'kokoro-82m': withCandidates() },
        artifactsDir: artifactsDirWith({}),
        context: { 'scalegate:candidate': '1' },
      }),
    );
    expect(production.message).toMatch(/-c scalegate:calibration=<model> too/);
  });
});

describe('the CI-access stack with candidates', () => {
  const [ci] = buildCiAccess(new App(), { models: { 'kokoro-82m': withCandidates() } }, 'acme/speech', {
    account: TEST_ACCOUNT,
    context: () => undefined,
  });
  const t = Template.fromStack(ci as never);
  const text = JSON.stringify(t.toJSON());

  it("lets the calibration side act on every candidate's -cal-<n> endpoint, and on no other", () => {
    for (const name of [
      'speech-kokoro-82m-calibration',
      'speech-kokoro-82m-cal-1',
      'speech-kokoro-82m-cal-2',
    ]) {
      expect(text).toContain(`endpoint/${name}"`);
    }
    expect(text).not.toContain('speech-kokoro-82m-cal-3');
  });

  it("allows endpoint configs on the candidates' instance types too (and only those the config names)", () => {
    const policy = Object.values(t.findResources('AWS::IAM::ManagedPolicy')).find(
      (r) =>
        (r as { Properties: { ManagedPolicyName: string } }).Properties.ManagedPolicyName ===
        CALIBRATION_EXECUTION_POLICY,
    ) as {
      Properties: {
        PolicyDocument: { Statement: { Effect: string; Action: unknown; Condition?: unknown }[] };
      };
    };
    const deny = policy.Properties.PolicyDocument.Statement.find(
      (s) => s.Effect === 'Deny' && JSON.stringify(s.Action).includes('sagemaker:CreateEndpointConfig'),
    );
    expect(deny?.Condition).toEqual({
      'ForAnyValue:StringNotEquals': {
        'sagemaker:InstanceTypes': ['ml.g5.xlarge', 'ml.g6.xlarge', 'ml.g5.2xlarge'],
      },
    });
  });
});

describe('scalegate deploy --calibration --candidate <n>', () => {
  const configFile = join(REPO, 'scalegate.config.json');
  const base = { modelName: 'kokoro-82m', model: withCandidates(), configFile };

  it('passes -c scalegate:candidate=<n> to the synth and deploys only the candidate stack', async () => {
    const inv = cdkInvocations({ ...base, action: 'deploy', calibration: true, candidate: 1 });
    expect(inv[0]?.args).toEqual(
      expect.arrayContaining(['scalegate:calibration=kokoro-82m', 'scalegate:candidate=1']),
    );
    expect(inv[0]?.args).toContain('cdk.out/scalegate-kokoro-82m-cal-1-calibration');
    expect(inv.slice(1).map((i) => i.args.at(-1))).toEqual(['scalegate-kokoro-82m-cal-1-calibration']);
    const dry = await runDeploy(
      { ...base, action: 'destroy', calibration: true, candidate: 1, dryRun: true },
      { run: async () => 0 },
    );
    expect(dry.artifact?.stacks).toEqual(['scalegate-kokoro-82m-cal-1-calibration']);
    expect(dry.report).toContain('speech-kokoro-82m-cal-1 in us-east-1');
  });

  it('refuses (exit 2, nothing run) an undeclared candidate and a candidate without --calibration', async () => {
    let ran = 0;
    const run = async () => {
      ran += 1;
      return 0;
    };
    for (const input of [
      { ...base, action: 'deploy' as const, calibration: true, candidate: 3 },
      { ...base, action: 'deploy' as const, calibration: false, candidate: 1 },
    ]) {
      const e = await runDeploy(input, { run }).catch((x: unknown) => x as Error);
      expect(isUsageError(e)).toBe(true);
    }
    expect(ran).toBe(0);
    const cli = await runCli([
      'deploy',
      'kokoro-82m',
      '--config',
      configFile,
      '--calibration',
      '--candidate',
      '9',
      '--dry-run',
    ]);
    expect(cli.exitCode).toBe(2);
    expect(cli.stderr).toMatch(/--candidate 9: model kokoro-82m has no candidate 9/);
  });
});
