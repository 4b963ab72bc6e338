import { describe, expect, it } from 'vitest';
import { type PriceLookup, resolveOfflinePrice, resolvePlanPrice } from '../../src/commands/plan-price.js';
import { OperationalError } from '../../src/model/errors.js';
import type { InstancePrice, ModelConfig, QmaxArtifact } from '../../src/model/index.js';
import { planCostSchema } from '../../src/model/index.js';
import { audioPerRequest, fleetCostFinding, meanCharacters, planCost } from '../../src/plan/cost.js';
import { PRICE_TABLE_AS_OF, tablePrice } from '../../src/plan/price-table.js';

/** Two rungs' audio summaries: 10 streams of 100 chars / 5 s, 30 streams of 120 chars / 6 s. */
const qmaxWithAudio = {
  steps: [
    { audio: { streams: 10, characters_mean: 100, audio_s_mean: 5 } },
    { audio: null },
    { audio: { streams: 30, characters_mean: 120, audio_s_mean: 6 } },
  ],
} as unknown as Pick<QmaxArtifact, 'steps'>;

const price = (hourly: number, source: InstancePrice['source'] = 'price-list-api'): InstancePrice => ({
  instance_type: 'ml.g5.xlarge',
  region: 'us-east-1',
  hourly_usd: hourly,
  source,
  as_of: source === 'stated' ? null : '2026-12-01',
  reference: 'SKU1',
});

describe('cost per million characters (hand-computed)', () => {
  it('weights characters and audio per request by streams over the rungs that recorded audio (an unweighted mean would be 110 chars)', () => {
    const a = audioPerRequest(qmaxWithAudio);
    expect(a?.characters).toBeCloseTo(115, 9); // (10*100 + 30*120) / 40
    expect(a?.audioS).toBeCloseTo(5.75, 9); // (10*5 + 30*6) / 40
    expect(audioPerRequest({ steps: [{ audio: null }] } as unknown as QmaxArtifact)).toBeNull();
  });

  it('prices 1M characters and one audio-hour at the target and at lambda_safe from the hourly price (prevents a wrong unit: per second vs per hour)', () => {
    const cost = planCost({
      price: price(1.44),
      priceNote: null,
      qmax: qmaxWithAudio,
      promptCharacters: null,
      xTargetRps: 2,
      lambdaSafeRps: 1.5,
      references: [{ name: 'Managed TTS', usd_per_million_characters: 16 }],
    });
    expect(planCostSchema.parse(cost)).toEqual(cost);
    const [target, safe] = cost.points;
    // target: 2 rps x 115 chars = 230 chars/s; 1.44 / (230 x 3600) x 1e6 = 1.739130...
    expect(target?.at).toBe('target');
    expect(target?.characters_per_s).toBe(230);
    expect(target?.usd_per_million_characters).toBeCloseTo(1.73913, 5);
    // 2 x 5.75 = 11.5 audio-s/s; 1.44 / 11.5 = 0.125217 $/audio-hour
    expect(target?.audio_s_per_s).toBe(11.5);
    expect(target?.usd_per_audio_hour).toBeCloseTo(0.125217, 5);
    // surge-safe: 1.5 x 115 = 172.5 chars/s -> 2.318841 $/1M; 8.625 audio-s/s -> 0.166957 $/audio-hour
    expect(safe?.at).toBe('surge_safe');
    expect(safe?.usd_per_million_characters).toBeCloseTo(2.318841, 5);
    expect(safe?.usd_per_audio_hour).toBeCloseTo(0.166957, 5);
    expect(cost.points.every((p) => p.origin === 'computed')).toBe(true);
    expect(cost.audio_origin).toBe('measured');
    expect(cost.characters_from).toBe('qmax');
    expect(cost.references).toEqual([
      { name: 'Managed TTS', usd_per_million_characters: 16, origin: 'stated' },
    ]);
    expect(cost.note).toBeNull();
  });

  it('without audio in the qmax costs characters from the prompts and leaves audio-hours null with a note (prevents an invented audio length)', () => {
    expect(meanCharacters(['abcd', 'éé'])).toBe(3); // code points, not UTF-16 units or bytes
    const cost = planCost({
      price: price(1.44),
      priceNote: null,
      qmax: { steps: [{ audio: null }] } as unknown as QmaxArtifact,
      promptCharacters: 100,
      xTargetRps: 2,
      lambdaSafeRps: null,
      references: [],
    });
    expect(planCostSchema.parse(cost)).toEqual(cost);
    expect(cost.points).toHaveLength(1);
    expect(cost.points[0]?.usd_per_million_characters).toBe(2); // 1.44 / (200 x 3600) x 1e6
    expect(cost.points[0]?.usd_per_audio_hour).toBeNull();
    expect(cost.audio_s_per_request).toBeNull();
    expect(cost.characters_from).toBe('prompts');
    expect(cost.note).toMatch(
      /no audio: characters per request from its prompts \(computed\), no audio-hour/,
    );
  });

  it('without a price or characters there are no figures and the note says why (never a silent empty block)', () => {
    const priceless = planCost({
      price: null,
      priceNote: 'the fallback table has no row for ml.zz.xlarge in us-east-1',
      qmax: qmaxWithAudio,
      promptCharacters: null,
      xTargetRps: 2,
      lambdaSafeRps: 1,
      references: [],
    });
    expect(priceless.points).toEqual([]);
    expect(priceless.note).toContain('no row for ml.zz.xlarge');
    const charless = planCost({
      price: price(1),
      priceNote: null,
      qmax: { steps: [] } as unknown as QmaxArtifact,
      promptCharacters: null,
      xTargetRps: 2,
      lambdaSafeRps: 1,
      references: [],
    });
    expect(charless.points).toEqual([]);
    expect(charless.note).toMatch(/no audio and no readable prompts: no characters per request/);
  });

  it('fleet_cost uses the resolved price and names its provenance; suppressed with the reason without one', () => {
    expect(fleetCostFinding(price(1.5, 'fallback-table'), null, 2, 10)).toEqual({
      name: 'fleet_cost',
      verdict: 'ok',
      detail:
        '$3.00/h at min (2), $15.00/h at max (10) at $1.500/instance-hour (fallback table of 2026-12-01)',
      fix: null,
    });
    const none = fleetCostFinding(null, 'the Price List API failed (x)', 1, 2);
    expect(none.verdict).toBe('suppressed');
    expect(none.detail).toContain('the Price List API failed (x)');
  });
});

describe('the fallback table', () => {
  it('answers its dated rows with source fallback-table and nothing for a type or region it lacks (prevents an invented price)', () => {
    expect(tablePrice('ml.g5.xlarge', 'us-east-1')).toMatchObject({
      hourly_usd: 1.408,
      source: 'fallback-table',
      as_of: PRICE_TABLE_AS_OF,
    });
    expect(tablePrice('ml.g5.xlarge', 'eu-west-1')).toBeNull();
    expect(tablePrice('ml.zz9.xlarge', 'us-east-1')).toBeNull();
  });
});

describe('price resolution order', () => {
  const model = (extra: Partial<ModelConfig> = {}): ModelConfig =>
    ({ instance_type: 'ml.g5.xlarge', region: 'us-east-1', ...extra }) as ModelConfig;
  const api: PriceLookup = async () => price(1.2);
  const calls: string[] = [];
  const counting: PriceLookup = async (type, region) => {
    calls.push(`${type}/${region}`);
    return price(1.2);
  };
  const failing: PriceLookup = async () => {
    throw new OperationalError(
      { operation: 'GetProducts', resource: 'price of ml.g5.xlarge', region: 'us-east-1' },
      new Error('AccessDeniedException'),
    );
  };
  const empty: PriceLookup = async () => null;
  const req = (m: ModelConfig, choice?: 'auto' | 'api' | 'table' | 'config' | 'none') => ({
    modelName: 'm',
    model: m,
    ...(choice ? { choice } : {}),
  });

  it('auto: the stated price wins and the API is not asked', async () => {
    calls.length = 0;
    const r = await resolvePlanPrice(req(model({ instance_hourly_usd: 2 })), counting);
    expect(r.price).toMatchObject({ hourly_usd: 2, source: 'stated', as_of: null });
    expect(calls).toEqual([]);
  });

  it('auto: the Price List API over the table when nothing is stated', async () => {
    const r = await resolvePlanPrice(req(model()), api);
    expect(r).toEqual({ price: price(1.2), note: null });
  });

  it('auto: an API failure falls back to the table with a note naming the failure (never silently)', async () => {
    const r = await resolvePlanPrice(req(model()), failing);
    expect(r.price).toMatchObject({ source: 'fallback-table', hourly_usd: 1.408 });
    expect(r.note).toMatch(
      /^the Price List API failed \(GetProducts price of ml\.g5\.xlarge in us-east-1: .*\): priced from the fallback table$/,
    );
  });

  it('auto: an instance type the API does not sell falls to the table, and to no price when the table lacks it too', async () => {
    const viaTable = await resolvePlanPrice(req(model()), empty);
    expect(viaTable.price?.source).toBe('fallback-table');
    expect(viaTable.note).toContain('has no real-time inference product ml.g5.xlarge in us-east-1');
    const none = await resolvePlanPrice(req(model({ instance_type: 'ml.zz9.xlarge' })), empty);
    expect(none.price).toBeNull();
    expect(none.note).toContain('and the fallback table has no row for ml.zz9.xlarge in us-east-1');
  });

  it('api: a failure is the run’s (exit 3), an unknown product a priceless plan with a note', async () => {
    await expect(resolvePlanPrice(req(model(), 'api'), failing)).rejects.toMatchObject({ exitCode: 3 });
    const r = await resolvePlanPrice(req(model({ instance_hourly_usd: 2 }), 'api'), empty);
    expect(r.price).toBeNull();
    expect(r.note).toContain('no real-time inference product');
  });

  it('table, config and none take that source only; config without a stated price is refused (exit 2)', async () => {
    calls.length = 0;
    expect(
      (await resolvePlanPrice(req(model({ instance_hourly_usd: 2 }), 'table'), counting)).price?.source,
    ).toBe('fallback-table');
    expect(
      (await resolvePlanPrice(req(model({ instance_hourly_usd: 2 }), 'config'), counting)).price?.source,
    ).toBe('stated');
    expect(await resolvePlanPrice(req(model(), 'none'), counting)).toEqual({
      price: null,
      note: 'not priced (price source none)',
    });
    expect(calls).toEqual([]);
    await expect(resolvePlanPrice(req(model(), 'config'), counting)).rejects.toMatchObject({ exitCode: 2 });
  });

  it('offline (no API at hand): auto notes that the API was not asked; api is refused', () => {
    const r = resolveOfflinePrice(req(model()));
    expect(r.price?.source).toBe('fallback-table');
    expect(r.note).toBe('the Price List API was not asked: priced from the fallback table');
    expect(() => resolveOfflinePrice(req(model(), 'api'))).toThrow(/price-source/);
  });
});
