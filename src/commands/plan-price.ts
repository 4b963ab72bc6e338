/**
 * The instance price a plan is costed with, and where it came from. Order (`--price-source auto`):
 * the config's `instance_hourly_usd` (stated) > the AWS Price List API > the committed fallback
 * table; every step down says why in the note (the API failed and how, or knows no such product,
 * or was not asked), never silently. `api`, `table`, `config` take that source only; `none` prices
 * nothing (an offline plan that states so).
 */
import type { PricingClient } from '@aws-sdk/client-pricing';
import { fetchInstancePrice } from '../aws/pricing.js';
import { type InstancePrice, type ModelConfig, opt, usage } from '../model/index.js';
import type { PriceSourceChoice } from '../options/plan.js';
import { tablePrice } from '../plan/price-table.js';

/** The price, or null, and the sentence saying how it was chosen (null: nothing to say). */
export interface PriceResolution {
  price: InstancePrice | null;
  note: string | null;
}

/** Asks the Price List API for the hourly price of `instanceType` hosting in `region`. */
export type PriceLookup = (
  instanceType: string,
  region: string,
  signal?: AbortSignal,
) => Promise<InstancePrice | null>;

/** A PriceLookup over a Price List client (`createPricingClient`). */
export const priceListLookup =
  (pricing: PricingClient): PriceLookup =>
  (instanceType, region, signal) =>
    fetchInstancePrice(pricing, instanceType, region, signal ? { abortSignal: signal } : {});

export interface PriceRequest {
  modelName: string;
  model: ModelConfig;
  /** @default 'auto' */
  choice?: PriceSourceChoice;
}

const statedPrice = (req: PriceRequest): InstancePrice | null =>
  req.model.instance_hourly_usd === undefined
    ? null
    : {
        instance_type: req.model.instance_type,
        region: req.model.region,
        hourly_usd: req.model.instance_hourly_usd,
        source: 'stated',
        as_of: null,
        reference: `instance_hourly_usd of model ${req.modelName}`,
      };

/** The table's row, or none with why; `because` is what sent the plan to the table. */
function fromTable(req: PriceRequest, because: string | null): PriceResolution {
  const { instance_type: type, region } = req.model;
  const price = tablePrice(type, region);
  if (price) return { price, note: because ? `${because}: priced from the fallback table` : null };
  const missing = `the fallback table has no row for ${type} in ${region}`;
  return { price: null, note: because ? `${because}, and ${missing}` : missing };
}

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/**
 * The price without asking the Price List API: `config`, `table`, `none`, or `auto` with the API
 * left out (stated, else the table, saying the API was not asked).
 */
export function resolveOfflinePrice(req: PriceRequest): PriceResolution {
  const choice = req.choice ?? 'auto';
  if (choice === 'api') {
    throw usage`${opt('price-source', 'api')} asks the Price List API, which this run cannot reach: use ${opt('price-source', 'table')} or ${opt('price-source', 'none')}.`;
  }
  return resolveWithout(req, choice, 'the Price List API was not asked');
}

function resolveWithout(
  req: PriceRequest,
  choice: Exclude<PriceSourceChoice, 'api'>,
  apiNote: string,
): PriceResolution {
  switch (choice) {
    case 'none':
      return { price: null, note: 'not priced (price source none)' };
    case 'config': {
      const stated = statedPrice(req);
      if (!stated) {
        throw usage`${opt('price-source', 'config')} but model ${req.modelName} states no instance_hourly_usd in the config: set it, or use ${opt('price-source', 'auto')}.`;
      }
      return { price: stated, note: null };
    }
    case 'table':
      return fromTable(req, null);
    case 'auto':
      return statedPrice(req) ? { price: statedPrice(req), note: null } : fromTable(req, apiNote);
  }
}

/** The price by `req.choice`, asking the API through `lookup` for `auto` and `api`. */
export async function resolvePlanPrice(
  req: PriceRequest,
  lookup: PriceLookup,
  signal?: AbortSignal,
): Promise<PriceResolution> {
  const choice = req.choice ?? 'auto';
  if (choice !== 'api' && choice !== 'auto') return resolveWithout(req, choice, '');
  if (choice === 'auto' && statedPrice(req)) return { price: statedPrice(req), note: null };
  const { instance_type: type, region } = req.model;
  if (choice === 'api') {
    // Asked for the API alone: its failure is the run's (exit 3); no product is a priceless plan.
    const price = await lookup(type, region, signal);
    return price
      ? { price, note: null }
      : { price: null, note: `the Price List API has no real-time inference product ${type} in ${region}` };
  }
  let price: InstancePrice | null;
  try {
    price = await lookup(type, region, signal);
  } catch (e) {
    if (signal?.aborted) throw e;
    return fromTable(req, `the Price List API failed (${reason(e)})`);
  }
  if (price) return { price, note: null };
  return fromTable(req, `the Price List API has no real-time inference product ${type} in ${region}`);
}
