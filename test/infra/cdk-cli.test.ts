/**
 * `npx cdk synth` from infra/, offline, with the repository's own scalegate.config.json: Kokoro
 * (image pinned to the anchor digest) synthesizes with its plan; the reference container's model,
 * which has no real-AWS measurement, fails with the gate's message. This is the CLI path the
 * release workflow and `scalegate deploy` take.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { artifactsDirWith, kokoroPlan } from './fixtures.js';
import { REPO } from './helpers.js';

function cdkSynth(context: Record<string, string>) {
  const out = mkdtempSync(join(tmpdir(), 'scalegate-cdk-cli-'));
  const args = ['synth', '--quiet', '--output', out];
  for (const [key, value] of Object.entries(context)) args.push('-c', `${key}=${value}`);
  const result = spawnSync(join(REPO, 'node_modules', '.bin', 'cdk'), args, {
    cwd: join(REPO, 'infra'),
    encoding: 'utf8',
    timeout: 60_000,
    env: {
      ...process.env,
      CDK_DISABLE_VERSION_CHECK: '1',
      AWS_EC2_METADATA_DISABLED: 'true',
      CDK_DEFAULT_ACCOUNT: '',
      AWS_PROFILE: '',
    },
  });
  return { ...result, out };
}

describe('cdk synth from infra/ (offline)', () => {
  it('synthesizes kokoro-82m from the repository config once its plan exists', () => {
    const artifacts = artifactsDirWith({ 'kokoro-82m': kokoroPlan() });
    const r = cdkSynth({
      'scalegate:model': 'kokoro-82m',
      'scalegate:artifactsDir': artifacts,
      // Attestations at synth are judged in test/commands/gate-attested.test.ts; this one proves the synth itself.
      'scalegate:offline': 'true',
    });
    expect(r.stderr).not.toContain('gate refused');
    expect(r.status).toBe(0);
    const template = JSON.parse(
      readFileSync(join(r.out, 'scalegate-kokoro-82m-endpoint.template.json'), 'utf8'),
    );
    const types = Object.values(template.Resources as Record<string, { Type: string }>).map((x) => x.Type);
    expect(types).toContain('AWS::ApplicationAutoScaling::ScalableTarget');
    expect(types.filter((t) => t === 'AWS::ApplicationAutoScaling::ScalingPolicy')).toHaveLength(2);
  });

  it('fails for reference-tts with the gate message and its fix, without a stack trace', () => {
    const r = cdkSynth({
      'scalegate:model': 'reference-tts',
      'scalegate:artifactsDir': artifactsDirWith({}),
    });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain('scalegate gate refused reference-tts');
    expect(r.stderr).toContain('✗ plan_readable');
    expect(r.stderr).toContain('fix: measure this image on ml.g5.xlarge in us-east-1');
    expect(r.stderr).toContain('-c scalegate:allowUnmeasured=reference-tts');
    expect(r.stderr).not.toMatch(/\n\s+at .+\(.+:\d+:\d+\)/);
  });

  it('synthesizes the CI-access stack (-c scalegate:ciAccess=OWNER/REPO) and nothing else', () => {
    const r = cdkSynth({ 'scalegate:ciAccess': 'acme/speech' });
    expect(r.stderr).not.toContain('gate refused');
    expect(r.status, r.stderr).toBe(0);
    const template = readFileSync(join(r.out, 'scalegate-ci-access.template.json'), 'utf8');
    expect(template).toContain('repo:acme/speech:environment:calibration:ref:*');
    expect(template).toContain('scalegate-calibration-cfn-execution');
  });
});
