import { describe, expect, it } from 'vitest';
import {
  fingerprintDifferences,
  fingerprintSlug,
  imageDigestOf,
  measuredEnvironment,
  qmaxFileName,
  ttotalFileName,
} from '../../src/model/index.js';

const digest = '8b1b96bc4dc0b30ddd84d8fe37af7c490937333c44a9f8f7d77b918c3d7eaced';
const base = { instance_type: 'ml.g5.xlarge', image_digest: digest, container_env: {}, region: 'us-east-1' };

describe('fingerprint', () => {
  it('slugs instance type and digest as the artifact names expect (g5xlarge-8b1b96bc)', () => {
    expect(fingerprintSlug(base)).toBe('g5xlarge-8b1b96bc');
    expect(qmaxFileName('kokoro-82m', 'response-stream', base)).toBe(
      'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json',
    );
    expect(ttotalFileName('kokoro-82m', 'force-desired', base)).toBe(
      'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json',
    );
  });

  it('takes the digest after @sha256:, else the tag (CDK asset tags are content hashes)', () => {
    expect(imageDigestOf(`123.dkr.ecr.us-east-1.amazonaws.com/repo@sha256:${digest}`)).toBe(digest);
    expect(imageDigestOf('123.dkr.ecr.us-east-1.amazonaws.com/cdk-assets:abc123')).toBe('abc123');
    expect(imageDigestOf('localhost:5000/repo')).toBe('latest');
  });

  it('ignores AWS_* and ambient variables so platform noise never splits a fingerprint', () => {
    expect(
      measuredEnvironment({
        AWS_REGION: 'x',
        PATH: '/bin',
        MAX_QUEUE_DEPTH: '50',
        MODEL_DTYPE: 'fp16',
        BATCH: '1',
      }),
    ).toEqual({ BATCH: '1', MODEL_DTYPE: 'fp16' });
  });

  it('reports each differing field, so a mismatch message can say what changed', () => {
    const other = { ...base, instance_type: 'ml.g6.xlarge', container_env: { MODEL_DTYPE: 'fp16' } };
    expect(fingerprintDifferences(base, other).map((d) => d.field)).toEqual([
      'instance_type',
      'container_env',
    ]);
  });

  it('does not call an unknown (legacy) region a difference, but does call two known regions one', () => {
    expect(fingerprintDifferences(base, { ...base, region: null })).toEqual([]);
    expect(fingerprintDifferences(base, { ...base, region: 'local' }).map((d) => d.field)).toEqual([
      'region',
    ]);
  });
});
