/**
 * The measured-plan gate at synth: every way a plan can fail to match what is deployed stops the
 * synth with its own check and fix; the bootstrap flag gives fixed capacity and a warning, never
 * silently; and a container directory's asset hash is the digest the plan must carry.
 */
import { join } from 'node:path';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { GateRefusedError } from '../../infra/lib/synth-gate.js';
import { containerAssetHash } from '../../src/model/asset-hash.js';
import {
  artifactsDirWith,
  KOKORO_DIGEST,
  kokoroModel,
  kokoroPlan,
  measuredPlan,
  noThresholdPlan,
  type PlanEntry,
  stopPlan,
} from './fixtures.js';
import { buildTestApp, containerDir, REPO } from './helpers.js';

const refusal = (
  models: Parameters<typeof buildTestApp>[0]['models'],
  plans: Record<string, PlanEntry>,
  context: Record<string, string> = {},
) => {
  try {
    buildTestApp({ models, artifactsDir: artifactsDirWith(plans), context });
  } catch (e) {
    if (e instanceof GateRefusedError) return e;
    throw e;
  }
  throw new Error('synth was not refused');
};

/** The checks a refusal names as failed. */
const failedChecks = (e: GateRefusedError): string[] =>
  e.result.checks.filter((c) => !c.ok).map((c) => c.check);

describe('the gate refuses synth, each failure with its own message and fix', () => {
  it('refuses a plan measured on another image (pinned image_uri digest differs)', () => {
    const other = 'aa'.repeat(32);
    const e = refusal(
      {
        'kokoro-82m': kokoroModel({
          image_uri: `{account}.dkr.ecr.{region}.amazonaws.com/speech-kokoro-82m@sha256:${other}`,
        }),
      },
      { 'kokoro-82m': kokoroPlan() },
    );
    expect(failedChecks(e)).toEqual(['image_digest']);
    expect(e.message).toContain(
      '✗ image_digest: plan measured on image 8b1b96bc4dc0…, deploying image aaaaaaaaaaaa…',
    );
    expect(e.message).toContain('fix: pin image_uri to the measured digest');
  });

  it('refuses a plan measured on another image (container_dir asset hash differs from the plan digest)', () => {
    const dir = containerDir('changed');
    const e = refusal(
      { 'kokoro-82m': kokoroModel({ image_uri: undefined, container_dir: dir }) },
      { 'kokoro-82m': kokoroPlan() },
    );
    expect(failedChecks(e)).toEqual(['image_digest']);
    expect(e.message).toMatch(/deploying image [0-9a-f]{12}… \(CDK asset hash of /);
    expect(e.message).toContain('the container changed since it was measured');
    expect(e.message).toContain('scalegate deploy kokoro-82m --calibration');
  });

  it('refuses a plan measured on another instance type', () => {
    const e = refusal(
      { 'kokoro-82m': kokoroModel({ instance_type: 'ml.g5.2xlarge' }) },
      { 'kokoro-82m': kokoroPlan() },
    );
    expect(failedChecks(e)).toEqual(['instance_type']);
    expect(e.message).toContain(
      '✗ instance_type: plan measured on ml.g5.xlarge, the config deploys ml.g5.2xlarge',
    );
    expect(e.message).toContain('set instance_type back to ml.g5.xlarge');
  });

  it('refuses a stop plan, naming the stop finding and its fix', () => {
    const e = refusal({ 'kokoro-82m': kokoroModel() }, { 'kokoro-82m': stopPlan() });
    expect(failedChecks(e)).toEqual(['verdict']);
    expect(e.message).toMatch(/✗ verdict: plan verdict is stop \(slo_budget: /);
    expect(e.message).toContain(
      'scalegate plan --model kokoro-82m --qmax artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
    );
  });

  it('refuses a seed-rule plan without a CloudWatch conversion (no R: no deployable threshold; the rule also stops)', () => {
    const e = refusal({ 'kokoro-82m': kokoroModel() }, { 'kokoro-82m': noThresholdPlan() });
    // The seed rule is not what `scalegate plan` chooses for a release; and there is no policy to validate.
    expect(failedChecks(e)).toEqual(['plan_config', 'verdict', 'deployable_threshold', 'validated']);
    expect(e.message).toContain('✗ deployable_threshold: the plan has no CloudWatch threshold');
    expect(e.message).toContain('re-measure with the CloudWatch join');
  });

  it('refuses a missing plan, saying how to measure one and how to bootstrap', () => {
    const e = refusal({ 'kokoro-82m': kokoroModel() }, { 'kokoro-82m': null });
    expect(failedChecks(e)).toEqual(['plan_readable']);
    expect(e.message).toContain('plan-kokoro-82m.json: cannot read the plan artifact (no such file)');
    expect(e.message).toContain(
      'scalegate plan --model kokoro-82m --qmax artifacts/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json --ttotal artifacts/ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
    );
    expect(e.message).toContain('-c scalegate:allowUnmeasured=kokoro-82m');
  });

  it('refuses an unreadable plan file (not JSON) with the reader message', () => {
    const e = refusal({ 'kokoro-82m': kokoroModel() }, { 'kokoro-82m': '{ not json' });
    expect(failedChecks(e)).toEqual(['plan_readable']);
    expect(e.message).toContain('not valid JSON');
  });

  it('refuses a plan measured on the local SageMaker for a real region', () => {
    const local = measuredPlan({ region: 'local' });
    const e = refusal({ 'kokoro-82m': kokoroModel() }, { 'kokoro-82m': local });
    expect(failedChecks(e)).toEqual(['region']);
    expect(e.message).toContain(
      'plan measured on the local SageMaker (region local); a local measurement never sets scaling for a real region (us-east-1)',
    );
  });

  it('refuses a plan measured in another region', () => {
    const e = refusal(
      { 'kokoro-82m': kokoroModel() },
      { 'kokoro-82m': measuredPlan({ region: 'eu-west-1' }) },
    );
    expect(failedChecks(e)).toEqual(['region']);
  });

  it('refuses a plan written for another model', () => {
    const e = refusal(
      { 'kokoro-82m': kokoroModel() },
      { 'kokoro-82m': measuredPlan({ modelName: 'other-model' }) },
    );
    // Its validate is another model's too: no proof for kokoro-82m either.
    expect(failedChecks(e)).toEqual(['plan_model', 'validated']);
  });

  it('reports every refused model together when synthesizing all models', () => {
    const e = refusal(
      { 'kokoro-82m': kokoroModel(), 'other-tts': kokoroModel({ endpoint: 'speech-other' }) },
      { 'kokoro-82m': stopPlan(), 'other-tts': null },
    );
    expect(e.message).toContain('scalegate gate refused kokoro-82m');
    expect(e.message).toContain('scalegate gate refused other-tts');
  });
});

describe('allowLowerBound: a plan on a lower-bound T_total deploys only when named, never silently', () => {
  const plans = () => ({ 'kokoro-82m': measuredPlan({ lowerBoundTtotal: true }) });

  it('refuses synth on t_total_complete without the context key, saying how to allow it', () => {
    const e = refusal({ 'kokoro-82m': kokoroModel() }, plans());
    expect(failedChecks(e)).toEqual(['t_total_complete']);
    expect(e.message).toContain('✗ t_total_complete: T_total 260.248496 s is a LOWER BOUND');
    expect(e.message).toContain('-c scalegate:allowLowerBound=kokoro-82m');
  });

  it('with -c scalegate:allowLowerBound=<model> deploys the measured scaling and warns that T_total is a lower bound', () => {
    const { stacks } = buildTestApp({
      models: { 'kokoro-82m': kokoroModel() },
      artifactsDir: artifactsDirWith(plans()),
      context: { 'scalegate:allowLowerBound': 'kokoro-82m' },
    });
    const endpoint = stacks[0]?.endpoint;
    if (!endpoint) throw new Error('no endpoint stack');
    expect(endpoint.scaling).toBe('measured');
    Annotations.fromStack(endpoint).hasWarning(
      '*',
      Match.stringLikeRegexp(
        "scalegate:allowLowerBound=kokoro-82m: the plan's T_total 260.248496 s is only a LOWER BOUND",
      ),
    );
  });

  it('refuses a context key naming a model the config does not declare', () => {
    expect(() =>
      buildTestApp({
        models: { 'kokoro-82m': kokoroModel() },
        artifactsDir: artifactsDirWith(plans()),
        context: { 'scalegate:allowLowerBound': 'kokoro' },
      }),
    ).toThrow(/-c scalegate:allowLowerBound=kokoro: no such model/);
  });
});

describe('allowUnmeasured: fixed capacity for bootstrapping, never silent', () => {
  it('deploys a fixed fleet with no scaling resources and a warning annotation when the plan is missing', () => {
    const { stacks } = buildTestApp({
      models: { 'kokoro-82m': kokoroModel({ min_instances_floor: 2 }) },
      artifactsDir: artifactsDirWith({}),
      context: { 'scalegate:allowUnmeasured': 'kokoro-82m' },
    });
    const endpoint = stacks[0]?.endpoint;
    if (!endpoint) throw new Error('no endpoint stack');
    expect(endpoint.scaling).toBe('unmeasured-fixed');
    const template = Template.fromStack(endpoint);
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalableTarget', 0);
    template.resourceCountIs('AWS::ApplicationAutoScaling::ScalingPolicy', 0);
    template.resourceCountIs('AWS::CloudWatch::Alarm', 0);
    template.hasResourceProperties('AWS::SageMaker::EndpointConfig', {
      ProductionVariants: [Match.objectLike({ InitialInstanceCount: 2, InstanceType: 'ml.g5.xlarge' })],
    });
    template.hasResourceProperties('AWS::SageMaker::Endpoint', { RetainAllVariantProperties: false });
    const model = Object.values(template.findResources('AWS::SageMaker::Model'))[0] as {
      Properties: { PrimaryContainer: { Environment: Record<string, string> } };
    };
    expect(model.Properties.PrimaryContainer.Environment.MAX_QUEUE_DEPTH).toBeUndefined();
    Annotations.fromStack(endpoint).hasWarning(
      '*',
      Match.stringLikeRegexp(
        'scalegate:allowUnmeasured=kokoro-82m: deploying speech-kokoro-82m at a fixed 2 instance\\(s\\) with NO autoscaling',
      ),
    );
  });

  it('is ignored when a plan passes: a flag left behind never removes measured scaling', () => {
    const { stacks } = buildTestApp({
      models: { 'kokoro-82m': kokoroModel() },
      artifactsDir: artifactsDirWith({ 'kokoro-82m': kokoroPlan() }),
      context: { 'scalegate:allowUnmeasured': 'kokoro-82m' },
    });
    expect(stacks[0]?.endpoint?.scaling).toBe('measured');
  });

  it('refuses a flag naming a model the config does not declare', () => {
    expect(() =>
      buildTestApp({
        models: { 'kokoro-82m': kokoroModel() },
        artifactsDir: artifactsDirWith({}),
        context: { 'scalegate:allowUnmeasured': 'kokoro' },
      }),
    ).toThrow(/no such model .*declared: kokoro-82m/);
  });
});

describe('container_dir: the DockerImageAsset hash is the digest (synth stages, needs no Docker)', () => {
  const dir = containerDir('measured');
  const model = kokoroModel({ image_uri: undefined, container_dir: dir });

  it('passes with a plan whose digest is the asset hash, and deploys the image tagged with it', () => {
    const probe = buildTestApp({
      models: { 'ref-tts': model },
      artifactsDir: artifactsDirWith({}),
      context: { 'scalegate:allowUnmeasured': 'ref-tts' },
    });
    const digest = probe.stacks[0]?.endpoint?.imageDigest as string;
    expect(digest).toMatch(/^[0-9a-f]{64}$/);
    const plan = measuredPlan({ modelName: 'ref-tts', imageDigest: digest });
    const { stacks } = buildTestApp({
      models: { 'ref-tts': model },
      artifactsDir: artifactsDirWith({ 'ref-tts': plan }),
    });
    const endpoint = stacks[0]?.endpoint;
    expect(endpoint?.scaling).toBe('measured');
    const image = JSON.stringify(
      Template.fromStack(endpoint as never).findResources('AWS::SageMaker::Model'),
    );
    expect(image).toContain(`:${digest}`);
  });

  it('containerAssetHash (what `scalegate gate` uses) equals the synthesized asset hash', () => {
    const probe = buildTestApp({
      models: { 'ref-tts': model },
      artifactsDir: artifactsDirWith({}),
      context: { 'scalegate:allowUnmeasured': 'ref-tts' },
    });
    expect(containerAssetHash(dir)).toBe(probe.stacks[0]?.endpoint?.imageDigest);
  });

  it('the CLI gate and the synth gate hash the reference container (infra/container) alike', () => {
    const reference = kokoroModel({
      image_uri: undefined,
      container_dir: 'infra/container',
      endpoint: 'speech-reference-tts',
    });
    const probe = buildTestApp({
      models: { 'reference-tts': reference },
      artifactsDir: artifactsDirWith({}),
      context: { 'scalegate:allowUnmeasured': 'reference-tts' },
    });
    expect(probe.stacks[0]?.endpoint?.imageDigest).toBe(containerAssetHash(join(REPO, 'infra', 'container')));
  });

  it('the kokoro plan digest in the fixtures is the anchor digest', () => {
    expect(kokoroPlan().fingerprint.image_digest).toBe(KOKORO_DIGEST);
  });
});

describe('the synth gate derives the plan again from its measurements', () => {
  it('refuses the forged plan (max 1, target 5000, queue 100000) at synth, naming the differing values', () => {
    const forged = kokoroPlan({
      deployable: { max_instances: 1, scaling_target_value: 5000, queue_max_depth: 100000 },
    });
    const e = refusal({ 'kokoro-82m': kokoroModel() }, { 'kokoro-82m': forged });
    // Its validate read the forged policy back: not the rows of the re-derived plan either.
    expect(failedChecks(e)).toEqual(['rederived', 'validated']);
    expect(e.message).toContain('✗ rederived:');
    expect(e.message).toContain('max_instances 1 (plan) vs 407 (re-derived)');
    expect(e.message).toContain('scaling_target_value 5000 (plan) vs 6 (re-derived)');
    expect(e.message).toContain('queue_max_depth 100000 (plan) vs 50 (re-derived)');
  });

  it('refuses a plan whose qmax/ttotal artifacts are not beside it', () => {
    const e = refusal(
      { 'kokoro-82m': kokoroModel() },
      { 'kokoro-82m': { plan: kokoroPlan(), measurements: null } },
    );
    expect(failedChecks(e)).toEqual(['measurements']);
    expect(e.message).toMatch(
      /the plan's qmax measurement \(run b8fa8ef48043, recorded as artifacts\/qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc\.json\) is not in /,
    );
  });

  it('refuses a legacy measurement without a region (region: null no longer passes any region)', () => {
    const e = refusal({ 'kokoro-82m': kokoroModel() }, { 'kokoro-82m': measuredPlan({ region: null }) });
    expect(failedChecks(e)).toEqual(['region']);
  });

  it('deploys the re-derived numbers (equal to the plan that passes)', () => {
    const { stacks } = buildTestApp({
      models: { 'kokoro-82m': kokoroModel() },
      artifactsDir: artifactsDirWith({ 'kokoro-82m': kokoroPlan() }),
    });
    expect(stacks[0]?.endpoint?.gate?.rederived?.deployable).toEqual(kokoroPlan().deployable);
  });
});
