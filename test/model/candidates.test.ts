import { describe, expect, it } from 'vitest';
import { candidateModel, parseConfig } from '../../src/model/index.js';

const model = parseConfig(
  JSON.stringify({
    models: {
      tts: {
        endpoint: 'speech-tts',
        region: 'us-east-1',
        instance_type: 'ml.g5.xlarge',
        image_uri: `123456789012.dkr.ecr.us-east-1.amazonaws.com/tts@sha256:${'a'.repeat(64)}`,
        slo_ms: 300,
        surge_ratio: 1.25,
        instance_hourly_usd: 1.41,
        instance_quota: 8,
        container_env: { A: '1', B: '2' },
        candidates: [
          { instance_type: 'ml.g6.xlarge', container_env: { B: '3' } },
          { instance_type: 'ml.g5.2xlarge', instance_hourly_usd: 2.0, instance_quota: 4 },
        ],
      },
    },
  }),
  'scalegate.config.json',
).models.tts;

describe('candidateModel', () => {
  it('never prices or quotas a candidate with the model instance type (a cost per 1M characters would be wrong)', () => {
    const first = candidateModel(model as NonNullable<typeof model>, 1);
    expect(first.instance_type).toBe('ml.g6.xlarge');
    expect(first.instance_hourly_usd).toBeUndefined();
    expect(first.instance_quota).toBeUndefined();
    expect(first.container_env).toEqual({ A: '1', B: '3' });
    const second = candidateModel(model as NonNullable<typeof model>, 2);
    expect([second.instance_hourly_usd, second.instance_quota]).toEqual([2.0, 4]);
  });

  it('leaves candidate 0 the model itself, its stated price included', () => {
    expect(candidateModel(model as NonNullable<typeof model>, 0)).toBe(model);
  });
});
