/**
 * The Price List adapter against the local SageMaker's Pricing API, with the real SDK client, and
 * the plan command costing the published Kokoro-82M measurements through it.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PricingClient } from '@aws-sdk/client-pricing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPricingClient, fetchInstancePrice, pricingApiRegion } from '../../src/aws/pricing.js';
import { runPlanPriced } from '../../src/commands/plan.js';
import { priceListLookup } from '../../src/commands/plan-price.js';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { isOperationalError, loadModelContext, type ModelConfig } from '../../src/model/index.js';
import { renderReport } from '../../src/report/markdown.js';
import { anchorQmaxFile, anchorTtotalFile, configFile } from '../helpers/anchor.js';
import { fakeContainer } from '../local/helpers.js';

describe('Price List API through the local SageMaker', () => {
  let handle: LocalSageMakerHandle;
  let pricing: PricingClient;
  let model: ModelConfig;
  let dir: string;

  beforeAll(async () => {
    handle = await startLocalSageMaker({
      container: fakeContainer(),
      provisionDelayS: 0,
      prices: { 'ml.g5.xlarge': 1.408, 'ml.emu.large': 0.5 },
    });
    const local = clientConfigFor(handle);
    pricing = createPricingClient({
      modelRegion: 'us-east-1',
      endpoint: local.endpoint,
      credentials: local.credentials,
    });
    // The published model, its stated price removed: the plan has to find one.
    const ctx = loadModelContext({ modelName: 'kokoro-82m', configFile });
    model = { ...ctx.model, instance_hourly_usd: undefined };
    dir = mkdtempSync(join(tmpdir(), 'scalegate-cost-'));
  }, 30_000);

  afterAll(async () => {
    pricing?.destroy();
    await handle?.close();
  });

  it('asks the Pricing API in one of its own regions whatever the model region is', () => {
    expect(pricingApiRegion('us-west-2')).toBe('us-east-1');
    expect(pricingApiRegion('eu-west-1')).toBe('eu-central-1');
    expect(pricingApiRegion('ap-northeast-1')).toBe('ap-south-1');
  });

  it('finds the hosting price of an instance type with its SKU and publication date (source price-list-api)', async () => {
    const price = await fetchInstancePrice(pricing, 'ml.g5.xlarge', 'us-east-1');
    expect(price).toMatchObject({
      instance_type: 'ml.g5.xlarge',
      region: 'us-east-1',
      hourly_usd: 1.408,
      source: 'price-list-api',
      as_of: '2026-12-01',
    });
    expect(price?.reference).toMatch(/^[A-Z]{16}$/);
    // An emulated instance type priced by the local option.
    expect((await fetchInstancePrice(pricing, 'ml.emu.large', 'eu-west-1'))?.hourly_usd).toBe(0.5);
  });

  it('an instance type the Price List does not sell is no price (null), not a crash', async () => {
    expect(await fetchInstancePrice(pricing, 'ml.zz9.xlarge', 'us-east-1')).toBeNull();
  });

  it('a failing Pricing API is operational (exit 3) naming GetProducts, the instance type and the Pricing region', async () => {
    handle.faults = { throttle: { 'Pricing.GetProducts': 1 } };
    try {
      const error = await fetchInstancePrice(pricing, 'ml.g5.xlarge', 'us-east-1').catch((e: unknown) => e);
      expect(isOperationalError(error)).toBe(true);
      expect((error as { exitCode: number }).exitCode).toBe(3);
      expect((error as Error).message).toMatch(
        /^GetProducts price of ml\.g5\.xlarge \(AmazonSageMaker, us-east-1\) in us-east-1: /,
      );
    } finally {
      handle.faults = {};
    }
  });

  it('plan --price-source auto costs the Kokoro-82M measurements at the Price List price, and falls back to the table with a note when the API fails', async () => {
    // The published qmax recorded no audio: characters per request come from the prompts given.
    const prompts = join(dir, 'prompts.txt');
    writeFileSync(prompts, `${'a'.repeat(100)}\n${'b'.repeat(140)}\n`);
    const input = {
      modelName: 'kokoro-82m',
      model,
      qmaxFile: anchorQmaxFile,
      ttotalFile: anchorTtotalFile,
      promptsFile: prompts,
      outFile: join(dir, 'plan.json'),
    };
    const priced = await runPlanPriced(input, { priceLookup: priceListLookup(pricing) });
    const cost = priced.artifact?.cost;
    expect(cost?.price).toMatchObject({ source: 'price-list-api', hourly_usd: 1.408 });
    expect(cost?.characters_per_request).toBe(120);
    expect(cost?.characters_from).toBe('prompts');
    const x = priced.artifact?.derived.x_target_rps as number;
    const target = cost?.points.find((p) => p.at === 'target');
    expect(target?.usd_per_million_characters).toBeCloseTo((1.408 / (x * 120 * 3600)) * 1e6, 5);
    expect(target?.usd_per_audio_hour).toBeNull();
    expect(priced.report).toContain('instance price');
    expect(priced.report).toMatch(
      /\$1\.408\/instance-hour, ml\.g5\.xlarge in us-east-1 \(Price List API, 2026-12-01, SKU/,
    );
    expect(priced.report).toMatch(
      /at the target X_target \(17\.89 requests\/s\) +\$0\.\d+ per 1M characters \(computed\)/,
    );
    const fleet = priced.artifact?.findings.find((f) => f.name === 'fleet_cost');
    expect(fleet?.detail).toContain('(Price List API, 2026-12-01)');

    handle.faults = { throttle: { 'Pricing.GetProducts': 1 } };
    try {
      const fallback = await runPlanPriced(
        { ...input, outFile: join(dir, 'plan-fallback.json') },
        { priceLookup: priceListLookup(pricing) },
      );
      expect(fallback.artifact?.cost?.price).toMatchObject({ source: 'fallback-table', hourly_usd: 1.408 });
      expect(fallback.artifact?.cost?.note).toMatch(
        /^the Price List API failed \(GetProducts .*\): priced from the fallback table/,
      );
      expect(fallback.report).toMatch(/fallback table of \d{4}-\d{2}-\d{2}/);
      const md = renderReport({
        modelName: 'kokoro-82m',
        command: 'plan',
        exitCode: 0,
        version: 'test',
        plan: { artifact: fallback.artifact as NonNullable<typeof fallback.artifact>, file: 'plan.json' },
      });
      expect(md).toContain('### Cost (one instance, on demand)');
      expect(md).toMatch(
        /\| instance price \| \\\$1\.408\/instance-hour, ml\.g5\.xlarge in us-east-1 \(fallback table of /,
      );
      expect(md).toContain('per 1M characters (computed)');
    } finally {
      handle.faults = {};
    }
    expect(JSON.parse(readFileSync(join(dir, 'plan.json'), 'utf8')).cost.price.source).toBe('price-list-api');
  }, 30_000);
});
