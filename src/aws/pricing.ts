/**
 * The on-demand price of one SageMaker real-time inference instance-hour from the AWS Price List
 * API: GetProducts on service code `AmazonSageMaker`, filtered to the hosting product of the
 * instance type in the model's region (`instanceName`, `regionCode`, `component: Hosting`), the
 * OnDemand term's hourly USD dimension read. The Price List API answers in a few regions only
 * (us-east-1, eu-central-1, ap-south-1): the client is made for one of them whatever the model's
 * region is, and a failed call is operational (exit 3) naming GetProducts, the instance type and
 * the Pricing API's region.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { GetProductsCommand, PricingClient } from '@aws-sdk/client-pricing';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { InstancePrice } from '../model/index.js';
import type { ClientOptions } from './clients.js';
import type { CallOptions } from './endpoint.js';
import { classifyFailures } from './operational.js';

export const PRICING_SERVICE_CODE = 'AmazonSageMaker';

/** The regions the Price List API is served from. */
export const PRICING_API_REGIONS = ['us-east-1', 'eu-central-1', 'ap-south-1'] as const;

/** The Pricing API region nearest the model's: eu-central-1 for Europe, ap-south-1 for Asia Pacific. */
export function pricingApiRegion(modelRegion: string): (typeof PRICING_API_REGIONS)[number] {
  if (modelRegion.startsWith('eu-') || modelRegion.startsWith('me-') || modelRegion.startsWith('af-')) {
    return 'eu-central-1';
  }
  if (modelRegion.startsWith('ap-')) return 'ap-south-1';
  return 'us-east-1';
}

/**
 * A Price List client for the Pricing API region of `modelRegion` (the endpoint override points
 * it at the local SageMaker like every other client); its failures are operational.
 */
export function createPricingClient(
  options: Omit<ClientOptions, 'region' | 'maxConcurrency'> & { modelRegion: string },
): PricingClient {
  const region = pricingApiRegion(options.modelRegion);
  const client = new PricingClient({
    region,
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.credentials ? { credentials: options.credentials } : {}),
    // A plan must not hang on an unreachable Pricing API: auto falls back to the table, saying so.
    requestHandler: new NodeHttpHandler({
      connectionTimeout: 5_000,
      requestTimeout: 15_000,
      httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 4 }),
      httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 4 }),
    }),
  });
  classifyFailures(client as never, region);
  return client;
}

interface PriceDimension {
  unit?: string;
  pricePerUnit?: { USD?: string };
}
interface OnDemandTerm {
  effectiveDate?: string;
  priceDimensions?: Record<string, PriceDimension>;
}
interface PriceListEntry {
  product?: { sku?: string; attributes?: Record<string, string> };
  terms?: { OnDemand?: Record<string, OnDemandTerm> };
  publicationDate?: string;
}

const dateOf = (iso: string | undefined): string | null => {
  const m = /^(\d{4}-\d{2}-\d{2})/.exec(iso ?? '');
  return m ? (m[1] as string) : null;
};

/**
 * The hourly USD price an entry states: its hosting product's OnDemand term with one positive
 * `Hrs` dimension in USD; null when the entry is no such product (another component, no USD).
 */
export function parseHostingPrice(entry: string, instanceType: string, region: string): InstancePrice | null {
  let doc: PriceListEntry;
  try {
    doc = JSON.parse(entry) as PriceListEntry;
  } catch {
    return null;
  }
  const attrs = doc.product?.attributes ?? {};
  if (attrs.instanceName !== instanceType || (attrs.component ?? '').toLowerCase() !== 'hosting') return null;
  for (const term of Object.values(doc.terms?.OnDemand ?? {})) {
    for (const dim of Object.values(term.priceDimensions ?? {})) {
      const usd = Number(dim.pricePerUnit?.USD);
      if ((dim.unit ?? '').toLowerCase().startsWith('hr') && Number.isFinite(usd) && usd > 0) {
        return {
          instance_type: instanceType,
          region,
          hourly_usd: usd,
          source: 'price-list-api',
          as_of: dateOf(term.effectiveDate) ?? dateOf(doc.publicationDate),
          reference: doc.product?.sku ?? null,
        };
      }
    }
  }
  return null;
}

/**
 * The on-demand hourly price of `instanceType` hosting in `region`; null when the Price List has
 * no such product (an instance type SageMaker does not sell there, or a misspelt one). Throws an
 * OperationalError when the API cannot be asked.
 */
export async function fetchInstancePrice(
  pricing: PricingClient,
  instanceType: string,
  region: string,
  options: CallOptions = {},
): Promise<InstancePrice | null> {
  let nextToken: string | undefined;
  do {
    const out = await pricing.send(
      new GetProductsCommand({
        ServiceCode: PRICING_SERVICE_CODE,
        FormatVersion: 'aws_v1',
        Filters: [
          { Type: 'TERM_MATCH', Field: 'instanceName', Value: instanceType },
          { Type: 'TERM_MATCH', Field: 'regionCode', Value: region },
          { Type: 'TERM_MATCH', Field: 'component', Value: 'Hosting' },
        ],
        MaxResults: 100,
        NextToken: nextToken,
      }),
      options,
    );
    // The SDK hands each entry over as a JSON string (a String object: its lazy JSON string).
    const list: unknown[] = Array.isArray(out.PriceList) ? out.PriceList : [];
    for (const entry of list) {
      const text =
        typeof entry === 'string' || entry instanceof String ? String(entry) : JSON.stringify(entry);
      const price = parseHostingPrice(text, instanceType, region);
      if (price) return price;
    }
    nextToken = out.NextToken;
  } while (nextToken);
  return null;
}

/**
 * Runs `body` with a Price List client for `modelRegion` (where `to` points it: the local
 * SageMaker; default AWS, or AWS_ENDPOINT_URL) and always releases its sockets.
 */
export async function withPricingClient<T>(
  modelRegion: string,
  to: Pick<ClientOptions, 'endpoint' | 'credentials'>,
  body: (pricing: PricingClient) => Promise<T>,
): Promise<T> {
  const pricing = createPricingClient({ modelRegion, ...to });
  try {
    return await body(pricing);
  } finally {
    pricing.destroy();
  }
}
