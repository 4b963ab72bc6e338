/**
 * Config loading and the config-side fingerprint, in src/model where the CLI and the action both
 * read them: which region a command acts in, a missing file refused with its fix, and the one
 * fingerprint a config promises (what the gate, the http transport and discovery compare with).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  configFingerprint,
  fingerprintDifferences,
  isUsageError,
  LOCAL_REGION,
  loadModelContext,
  readConfigFile,
} from '../../src/model/index.js';

const model = {
  endpoint: 'speech-x',
  region: 'eu-west-1',
  instance_type: 'ml.g5.xlarge',
  image_uri: `r.dkr.ecr.eu-west-1.amazonaws.com/x@sha256:${'a'.repeat(64)}`,
  container_env: { VOICE: 'af', AWS_REGION: 'eu-west-1', MAX_QUEUE_DEPTH: '8' },
  slo_ms: 1000,
  surge_ratio: 1.25,
  peak_rps: 10,
};

function configFile(models: Record<string, unknown> = { x: model }): string {
  const file = join(mkdtempSync(join(tmpdir(), 'scalegate-config-')), 'scalegate.config.json');
  writeFileSync(file, JSON.stringify({ models }));
  return file;
}

describe('the model context', () => {
  it('acts in the region given, else AWS_REGION (how the local SageMaker is reached), else the config', () => {
    const file = configFile();
    expect(loadModelContext({ configFile: file, region: 'us-east-2' }, { AWS_REGION: 'local' }).region).toBe(
      'us-east-2',
    );
    expect(loadModelContext({ configFile: file }, { AWS_REGION: 'local' }).region).toBe('local');
    expect(loadModelContext({ configFile: file }, {})).toMatchObject({
      region: 'eu-west-1',
      modelName: 'x',
      endpoint: 'speech-x',
      variant: 'AllTraffic',
    });
    expect(loadModelContext({ configFile: file, endpoint: 'speech-x-calibration' }, {}).endpoint).toBe(
      'speech-x-calibration',
    );
  });

  it('refuses a missing file and an ambiguous or unknown model, naming the option to fix', () => {
    const missing = (() => {
      try {
        readConfigFile('/nonexistent/scalegate.config.json');
      } catch (e) {
        return e;
      }
    })();
    expect(isUsageError(missing)).toBe(true);
    expect((missing as Error).message).toMatch(
      /no such config file\. Create scalegate\.config\.json .* --config\./,
    );
    const two = configFile({ x: model, y: model });
    expect(() => loadModelContext({ configFile: two }, {})).toThrow(
      /declares 2 models \(x, y\): choose one with --model/,
    );
    expect(() => loadModelContext({ configFile: two, modelName: 'z' }, {})).toThrow(
      /--model z: no such model/,
    );
  });
});

describe('the config-side fingerprint', () => {
  it('is what a measurement of the model must carry: instance type, image digest, measured environment, region, request shape', () => {
    const fp = configFingerprint(model, 'a'.repeat(64), LOCAL_REGION);
    expect(fp).toEqual({
      instance_type: 'ml.g5.xlarge',
      image_digest: 'a'.repeat(64),
      container_env: { VOICE: 'af' },
      region: 'local',
      request: { body: '{"text":"{{text}}"}', content_type: 'application/json', accept: 'audio/wav' },
    });
    expect(fingerprintDifferences(fp, { ...fp, container_env: { VOICE: 'bf' } }).map((d) => d.field)).toEqual(
      ['container_env'],
    );
  });
});
