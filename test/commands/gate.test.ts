/**
 * `scalegate gate`: the CLI face of the measured-plan gate. Exit 0 when the plan may be deployed,
 * 1 with every failed check and its fix otherwise; the image digest comes from the config
 * (image_uri's pinned digest, or the container directory's CDK asset hash).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runGate } from '../../src/commands/gate.js';
import { runPlan } from '../../src/commands/plan.js';
import { readArtifact, writeArtifact } from '../../src/model/index.js';
import {
  artifactsDirWith,
  cleanValidate,
  KOKORO_DIGEST,
  kokoroMeasurements,
  kokoroModel,
  kokoroPlan,
  measuredPlan,
  stopPlan,
} from '../infra/fixtures.js';

const planIn = (plan: Parameters<typeof artifactsDirWith>[0][string]) =>
  join(artifactsDirWith({ 'kokoro-82m': plan }), 'plan-kokoro-82m.json');
const noHashing = () => {
  throw new Error('an image_uri model must not hash a directory');
};

describe('scalegate gate', () => {
  it('passes (exit 0) for the kokoro plan and the pinned anchor image, printing every check', async () => {
    const result = await runGate(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        configFile: 'scalegate.config.json',
        planFile: planIn(kokoroPlan()),
        region: 'us-east-1',
        offline: true,
      },
      { assetHash: noHashing },
    );
    expect(result.exitCode).toBe(0);
    expect(result.artifact?.passed).toBe(true);
    expect(result.artifact?.image_digest).toBe(KOKORO_DIGEST);
    expect(result.report).toContain('scalegate gate kokoro-82m: PASS');
    for (const check of [
      'plan_readable',
      'verdict',
      'deployable_threshold',
      'instance_type',
      'image_digest',
      'region',
    ]) {
      expect(result.report).toMatch(new RegExp(`✓ ${check}`));
    }
  });

  it('refuses (exit 1) a stop plan, naming the check and its fix', async () => {
    const result = await runGate(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        configFile: 'scalegate.config.json',
        planFile: planIn(stopPlan()),
        region: 'us-east-1',
        offline: true,
      },
      { assetHash: noHashing },
    );
    expect(result.exitCode).toBe(1);
    expect(result.report).toContain('REFUSED');
    expect(result.report).toMatch(/✗ verdict +plan verdict is stop/);
    expect(result.report).toContain('fix: a faster instance type or model, or an SLO above the service time');
  });

  it('refuses (exit 1) a missing plan with the commands that measure one', async () => {
    const result = await runGate(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        configFile: 'scalegate.config.json',
        planFile: planIn(null),
        region: 'us-east-1',
        offline: true,
      },
      { assetHash: noHashing },
    );
    expect(result.exitCode).toBe(1);
    expect(result.report).toContain('no such file');
    expect(result.report).toContain('scalegate deploy kokoro-82m --calibration');
  });

  it('hashes a container_dir model with the CDK asset hash, resolved against the config directory', async () => {
    const root = artifactsDirWith({});
    const configFile = join(root, 'scalegate.config.json');
    writeFileSync(configFile, '{}');
    const seen: string[] = [];
    const digest = 'c'.repeat(64);
    const result = await runGate(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel({ image_uri: undefined, container_dir: 'infra/container' }),
        configFile,
        planFile: planIn(measuredPlan({ imageDigest: digest })),
        region: 'us-east-1',
        offline: true,
      },
      {
        assetHash: (dir) => {
          seen.push(dir);
          return digest;
        },
      },
    );
    expect(seen).toEqual([join(root, 'infra', 'container')]);
    expect(result.exitCode).toBe(0);
    expect(result.artifact?.image_source).toBe('container_dir');
  });

  it('refuses a local-SageMaker plan for the model region', async () => {
    const result = await runGate(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        configFile: 'scalegate.config.json',
        planFile: planIn(measuredPlan({ region: 'local' })),
        region: 'us-east-1',
        offline: true,
      },
      { assetHash: noHashing },
    );
    expect(result.exitCode).toBe(1);
    expect(result.report).toMatch(/✗ region +plan measured on the local SageMaker/);
  });

  it('refuses (exit 1) the forged plan (max 1, target 5000, queue 100000), naming the differing values', async () => {
    const forged = kokoroPlan({
      deployable: { max_instances: 1, scaling_target_value: 5000, queue_max_depth: 100000 },
    });
    const result = await runGate(
      {
        modelName: 'kokoro-82m',
        model: kokoroModel(),
        configFile: 'scalegate.config.json',
        planFile: planIn(forged),
        region: 'us-east-1',
        offline: true,
      },
      { assetHash: noHashing },
    );
    expect(result.exitCode).toBe(1);
    expect(result.artifact?.passed).toBe(false);
    expect(result.report).toMatch(/✗ rederived +.*does not follow from its own measurements/);
    expect(result.report).toContain('max_instances 1 (plan) vs 407 (re-derived)');
    expect(result.report).toContain('scaling_target_value 5000 (plan) vs 6 (re-derived)');
    expect(result.report).toContain('queue_max_depth 100000 (plan) vs 50 (re-derived)');
  });

  it('passes a plan `scalegate plan` just wrote: the gate re-derives exactly what plan derived', async () => {
    const dir = artifactsDirWith({});
    const { qmax, ttotal } = kokoroMeasurements();
    const qmaxFile = join(dir, 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
    const ttotalFile = join(dir, 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
    writeArtifact('qmax', qmaxFile, qmax);
    if (ttotal) writeArtifact('ttotal', ttotalFile, ttotal);
    const planFile = join(dir, 'plan-kokoro-82m.json');
    // The config's peak: the gate requires the plan's choices to be the config's.
    const model = kokoroModel({ peak_rps: 1200 });
    runPlan(
      {
        modelName: 'kokoro-82m',
        model,
        qmaxFile,
        ttotalFile,
        allowConfigMismatch: false,
        outFile: planFile,
      },
      { version: 'test' },
    );
    // Its proof: the plan's policy deployed and read back clean (what the calibrate workflow commits).
    writeArtifact(
      'validate',
      join(dir, 'validate-kokoro-82m.json'),
      cleanValidate(readArtifact('plan', planFile)),
    );
    const result = await runGate(
      {
        modelName: 'kokoro-82m',
        model,
        configFile: 'scalegate.config.json',
        planFile,
        region: 'us-east-1',
        offline: true,
      },
      { assetHash: noHashing },
    );
    expect(result.report).toMatch(/✓ rederived +every deployable value follows from/);
    expect(result.exitCode, result.report).toBe(0);
  });
});
