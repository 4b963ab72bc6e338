/**
 * The AWS Price List API of the local SageMaker (JSON 1.1, `AWSPriceListService.*`): GetProducts
 * on service code `AmazonSageMaker`, answering from a price table the emulator is given (USD per
 * instance-hour by instance type; `scalegate local up` passes the committed fallback table's rows,
 * `--price` overrides them). Every priced instance type is one real-time inference (hosting)
 * product in whatever region is asked for, shaped like the real PriceList entries: a JSON string
 * with `product.attributes` (`instanceName`, `regionCode`, `component: Hosting`, `usagetype`...)
 * and `terms.OnDemand.<term>.priceDimensions.<dimension>.pricePerUnit.USD`. Filters are
 * TERM_MATCH (or EQUALS) on any attribute, values compared case-insensitively.
 */
import { createHash } from 'node:crypto';
import { AwsError } from './aws-error.js';
import type { OperationHandler } from './contracts.js';
import { type Input, memberReader, unknownOperation } from './wire.js';

export const PRICING_SERVICE_CODE = 'AmazonSageMaker';

/** The on-demand offer term code AWS uses for every on-demand term, and its hourly rate code. */
const ON_DEMAND_TERM = 'JRTCKXETXF';
const HOURLY_RATE = '6YS6EN2CT7';

const LOCATIONS: Record<string, string> = {
  'us-east-1': 'US East (N. Virginia)',
  'us-east-2': 'US East (Ohio)',
  'us-west-2': 'US West (Oregon)',
  'eu-west-1': 'EU (Ireland)',
  'eu-central-1': 'EU (Frankfurt)',
  'ap-south-1': 'Asia Pacific (Mumbai)',
  'ap-northeast-1': 'Asia Pacific (Tokyo)',
};

/** The billing prefix of a usage type (`USE1-Hosting:ml.g5.xlarge`); the region code elsewhere. */
const USAGE_PREFIX: Record<string, string> = {
  'us-east-1': 'USE1',
  'us-east-2': 'USE2',
  'us-west-2': 'USW2',
  'eu-west-1': 'EU',
  'eu-central-1': 'EUC1',
  'ap-south-1': 'APS3',
  'ap-northeast-1': 'APN1',
};

export interface PricingSource {
  /** USD per instance-hour by instance type (read on every call: a test may change it). */
  prices(): Record<string, number>;
  /** The publication date the entries carry, ISO 8601. */
  publishedAt: string;
}

const sku = (region: string, instanceType: string): string =>
  createHash('sha256')
    .update(`${region}/${instanceType}/hosting`)
    .digest('hex')
    .slice(0, 16)
    .toUpperCase()
    .replace(/[0-9]/g, (d) => 'ABCDEFGHJK'.charAt(Number(d)));

/** One PriceList entry (an object; the wire carries it as a JSON string). */
export function hostingProduct(
  instanceType: string,
  region: string,
  usdPerHour: number,
  publishedAt: string,
): Record<string, unknown> {
  const code = sku(region, instanceType);
  const term = `${code}.${ON_DEMAND_TERM}`;
  const usagetype = `${USAGE_PREFIX[region] ?? region}-Hosting:${instanceType}`;
  return {
    product: {
      productFamily: 'ML Instance',
      attributes: {
        servicecode: PRICING_SERVICE_CODE,
        servicename: 'Amazon SageMaker',
        location: LOCATIONS[region] ?? region,
        locationType: 'AWS Region',
        regionCode: region,
        instanceName: instanceType,
        instanceType: `${instanceType}-Hosting`,
        component: 'Hosting',
        usagetype,
        operation: 'RunInstance',
      },
      sku: code,
    },
    serviceCode: PRICING_SERVICE_CODE,
    terms: {
      OnDemand: {
        [term]: {
          priceDimensions: {
            [`${term}.${HOURLY_RATE}`]: {
              unit: 'Hrs',
              endRange: 'Inf',
              description: `$${usdPerHour} per Hosting ${instanceType} hour in ${LOCATIONS[region] ?? region}`,
              appliesTo: [],
              rateCode: `${term}.${HOURLY_RATE}`,
              beginRange: '0',
              pricePerUnit: { USD: usdPerHour.toFixed(10) },
            },
          },
          sku: code,
          effectiveDate: publishedAt,
          offerTermCode: ON_DEMAND_TERM,
          termAttributes: {},
        },
      },
    },
    version: publishedAt.replace(/\D/g, '').slice(0, 14),
    publicationDate: publishedAt,
  };
}

interface Filter {
  field: string;
  value: string;
}

export function createPricing(src: PricingSource): OperationHandler {
  const invalid = (message: string) => new AwsError('InvalidParameterException', message, 400);
  const getProducts = (input: Input) => {
    const r = memberReader(input, invalid);
    const service = r.str('ServiceCode');
    if (service !== PRICING_SERVICE_CODE) {
      throw new AwsError(
        'NotFoundException',
        `The requested service code ${service} is not served by the local SageMaker's Price List API (only ${PRICING_SERVICE_CODE}).`,
        400,
      );
    }
    const filters: Filter[] = (r.objList('Filters') ?? []).map((f) => {
      const fr = memberReader(f, invalid);
      fr.oneOf('Type', ['TERM_MATCH', 'EQUALS'] as const);
      return { field: fr.str('Field'), value: fr.str('Value') };
    });
    const maxResults = r.int('MaxResults', true) ?? 100;
    if (maxResults < 1 || maxResults > 100) throw invalid('MaxResults must be between 1 and 100.');
    const start = r.has('NextToken') ? Number(r.str('NextToken')) : 0;
    if (!Number.isInteger(start) || start < 0)
      throw new AwsError('InvalidNextTokenException', 'Invalid NextToken.', 400);
    // The region is whatever the filters ask for (the emulator prices every region alike).
    const region = filters.find((f) => f.field === 'regionCode')?.value ?? 'us-east-1';
    const products = Object.entries(src.prices())
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([type, usd]) => hostingProduct(type, region, usd, src.publishedAt))
      .filter((p) => {
        const product = p.product as { attributes: Record<string, string>; productFamily: string };
        const attrs: Record<string, string> = {
          ...product.attributes,
          productFamily: product.productFamily,
          ServiceCode: PRICING_SERVICE_CODE,
        };
        return filters.every((f) => attrs[f.field]?.toLowerCase() === f.value.toLowerCase());
      });
    const page = products.slice(start, start + maxResults);
    const next = start + maxResults < products.length ? String(start + maxResults) : undefined;
    return {
      FormatVersion: 'aws_v1',
      PriceList: page.map((p) => JSON.stringify(p)),
      ...(next ? { NextToken: next } : {}),
    };
  };
  return async (operation, input) => {
    switch (operation) {
      case 'GetProducts':
        return getProducts(input);
      default:
        throw unknownOperation(operation);
    }
  };
}
