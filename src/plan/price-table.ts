/**
 * The committed fallback table of on-demand SageMaker real-time inference (hosting) prices, USD
 * per instance-hour: what a plan prices with when the Price List API cannot be asked (offline,
 * no `pricing:GetProducts` permission, unreachable) or does not know the instance type. Pure data
 * and a lookup; source `fallback-table`, dated `PRICE_TABLE_AS_OF`.
 *
 * Where the rows come from. AWS's own pricing page renders its tables client-side, so its text
 * carries no figures to copy; the rows below are the on-demand us-east-1 hosting prices that
 * independent public sources agreed on when the table was compiled:
 * - ml.g5.xlarge 1.408: the article "The real cost of running AI models on AWS SageMaker inference"
 *   (zircon.tech, us-east-1, October 2025: "about $1.41/hour"), and several public cost tools
 *   quoting 1.408 for SageMaker hosting in us-east-1.
 * - ml.g5.2xlarge 1.515, ml.g6.xlarge 1.127, ml.g6.2xlarge 1.222: public cost tools quoting the
 *   us-east-1 SageMaker offer file (`pricing.us-east-1.amazonaws.com/offers/v1.0/aws/AmazonSageMaker/
 *   current/us-east-1/index.json`, checked August 2026), agreeing with each other.
 * - ml.g4dn.xlarge 0.736, ml.m5.xlarge 0.23, ml.m5.2xlarge 0.461, ml.c5.xlarge 0.204,
 *   ml.c5.2xlarge 0.408: the same figures in many independent public SageMaker cost tables.
 * Left out because the sources disagreed or only one was found: ml.g4dn.2xlarge, the ml.inf2.*,
 * ml.c6i.* and ml.c7i.* sizes, and every region but us-east-1. For those the plan says the table
 * has no row and prices nothing unless the API answers or the config states `instance_hourly_usd`.
 */
import type { InstancePrice } from '../model/index.js';

/** The day the table was compiled (its rows' sources are dated October 2025 to August 2026). */
export const PRICE_TABLE_AS_OF = '2026-12-02';

/** USD per instance-hour, on demand, SageMaker real-time inference, by region then instance type. */
export const PRICE_TABLE: Readonly<Record<string, Readonly<Record<string, number>>>> = {
  'us-east-1': {
    'ml.g4dn.xlarge': 0.736,
    'ml.g5.xlarge': 1.408,
    'ml.g5.2xlarge': 1.515,
    'ml.g6.xlarge': 1.127,
    'ml.g6.2xlarge': 1.222,
    'ml.m5.xlarge': 0.23,
    'ml.m5.2xlarge': 0.461,
    'ml.c5.xlarge': 0.204,
    'ml.c5.2xlarge': 0.408,
  },
};

/** The table's row for `instanceType` in `region`, as an InstancePrice; null when it has none. */
export function tablePrice(instanceType: string, region: string): InstancePrice | null {
  const usd = PRICE_TABLE[region]?.[instanceType];
  if (usd === undefined) return null;
  return {
    instance_type: instanceType,
    region,
    hourly_usd: usd,
    source: 'fallback-table',
    as_of: PRICE_TABLE_AS_OF,
    reference: `src/plan/price-table.ts ${region} ${instanceType}`,
  };
}

/** Every row of one region (the local SageMaker's Pricing API answers from these by default). */
export function tableRows(region = 'us-east-1'): Record<string, number> {
  return { ...(PRICE_TABLE[region] ?? {}) };
}
