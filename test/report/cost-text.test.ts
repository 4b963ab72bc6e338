import { describe, expect, it } from 'vitest';
import type { InstancePrice, PlanCost } from '../../src/model/index.js';
import { costSection, costTextLines, usd } from '../../src/report/cost-text.js';

const apiPrice: InstancePrice = {
  instance_type: 'ml.g5.xlarge',
  region: 'us-east-1',
  hourly_usd: 1.44,
  source: 'price-list-api',
  as_of: '2026-12-01',
  reference: 'ABCDEFGHABCDEFGH',
};

const measured: PlanCost = {
  price: apiPrice,
  characters_per_request: 115,
  audio_s_per_request: 5.75,
  audio_origin: 'measured',
  characters_from: 'qmax',
  points: [
    {
      at: 'target',
      rate_rps: 2,
      characters_per_s: 230,
      audio_s_per_s: 11.5,
      usd_per_million_characters: 1.73913,
      usd_per_audio_hour: 0.125217,
      origin: 'computed',
    },
    {
      at: 'surge_safe',
      rate_rps: 1.5,
      characters_per_s: 172.5,
      audio_s_per_s: 8.625,
      usd_per_million_characters: 2.318841,
      usd_per_audio_hour: 0.166957,
      origin: 'computed',
    },
  ],
  references: [{ name: 'Managed TTS', usd_per_million_characters: 16, origin: 'stated' }],
  note: null,
};

describe('the cost block in the plan report', () => {
  it('shows the price with its provenance, per-request inputs and both points labelled computed', () => {
    const text = costTextLines(measured).join('\n');
    expect(text).toContain('cost (one instance, on demand)');
    expect(text).toContain(
      '$1.44/instance-hour, ml.g5.xlarge in us-east-1 (Price List API, 2026-12-01, SKU ABCDEFGHABCDEFGH)',
    );
    expect(text).toMatch(/characters per request +115 \(computed from the prompts the qmax sent/);
    expect(text).toMatch(/audio per request +5\.75 s \(measured\)/);
    expect(text).toMatch(
      /at the target X_target \(2 requests\/s\) +\$1\.74 per 1M characters, \$0\.1252 per audio-hour \(computed\)/,
    );
    expect(text).toMatch(
      /at the surge-safe load lambda_safe \(1\.5 requests\/s\) +\$2\.32 per 1M characters, \$0\.167 per audio-hour \(computed\)/,
    );
  });

  it('sets a stated reference price beside it with the ratio at the surge-safe load the fleet is sized for (2.318841 / 16)', () => {
    const text = costTextLines(measured).join('\n');
    expect(text).toMatch(/vs Managed TTS +\$16\.00 per 1M characters \(stated\); this plan 0\.145x of it/);
  });

  it('names the fallback table and the config as sources in the PR comment, escaped', () => {
    const table = costSection({
      ...measured,
      price: { ...apiPrice, source: 'fallback-table', as_of: '2026-12-02' },
    }).join('\n');
    expect(table).toContain('### Cost (one instance, on demand)');
    expect(table).toContain(
      '| instance price | \\$1.44/instance-hour, ml.g5.xlarge in us-east-1 (fallback table of 2026-12-02) |',
    );
    const stated = costSection({
      ...measured,
      price: { ...apiPrice, source: 'stated', as_of: null },
    }).join('\n');
    expect(stated).toContain('(stated in config)');
  });

  it('says none and the reason when there is no price (never an empty block)', () => {
    const text = costTextLines({
      ...measured,
      price: null,
      points: [],
      note: 'not priced (price source none)',
    }).join('\n');
    expect(text).toMatch(/instance price +none/);
    expect(text).toMatch(/note +not priced \(price source none\)/);
    expect(text).not.toContain('per 1M characters, ');
  });

  it('formats dollars to the cent above $1 and to four significant digits below', () => {
    expect(usd(573.874)).toBe('$573.87');
    expect(usd(0.355793)).toBe('$0.3558');
    expect(usd(0)).toBe('$0');
  });
});
