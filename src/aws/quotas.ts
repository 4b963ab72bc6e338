/**
 * Instance quota headroom for SageMaker hosting: the account's "<instance type> for endpoint
 * usage" quota (Service Quotas, service code `sagemaker`) and the instances of that type the
 * region's endpoints hold now (ListEndpoints -> DescribeEndpoint -> DescribeEndpointConfig).
 */
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  ListEndpointsCommand,
  type SageMakerClient,
} from '@aws-sdk/client-sagemaker';
import {
  GetServiceQuotaCommand,
  ListServiceQuotasCommand,
  type ServiceQuota,
  type ServiceQuotasClient,
} from '@aws-sdk/client-service-quotas';
import type { CallOptions } from './endpoint.js';

export const SAGEMAKER_SERVICE_CODE = 'sagemaker';

/** The quota's name in Service Quotas, e.g. `ml.g5.xlarge for endpoint usage`. */
export const endpointUsageQuotaName = (instanceType: string): string => `${instanceType} for endpoint usage`;

export interface InstanceQuota {
  quotaCode: string;
  quotaName: string;
  value: number;
}

const toQuota = (q: ServiceQuota | undefined): InstanceQuota | null =>
  q?.QuotaCode && q.Value !== undefined
    ? { quotaCode: q.QuotaCode, quotaName: q.QuotaName ?? q.QuotaCode, value: q.Value }
    : null;

/**
 * The endpoint-usage quota for `instanceType`: by code when given (GetServiceQuota), else found by
 * name (ListServiceQuotas; quota codes are per instance type and not derivable). null when the
 * account has no such quota.
 */
export async function findEndpointUsageQuota(
  quotas: ServiceQuotasClient,
  instanceType: string,
  options: CallOptions & { quotaCode?: string } = {},
): Promise<InstanceQuota | null> {
  if (options.quotaCode) {
    const out = await quotas.send(
      new GetServiceQuotaCommand({ ServiceCode: SAGEMAKER_SERVICE_CODE, QuotaCode: options.quotaCode }),
      options,
    );
    return toQuota(out.Quota);
  }
  const name = endpointUsageQuotaName(instanceType);
  let nextToken: string | undefined;
  do {
    const out = await quotas.send(
      new ListServiceQuotasCommand({
        ServiceCode: SAGEMAKER_SERVICE_CODE,
        NextToken: nextToken,
        MaxResults: 100,
      }),
      options,
    );
    const found = (out.Quotas ?? []).find((q) => q.QuotaName === name);
    if (found) return toQuota(found);
    nextToken = out.NextToken;
  } while (nextToken);
  return null;
}

export interface InstancesInUse {
  total: number;
  /** One entry per variant of the instance type: max(desired, current), which the quota counts. */
  variants: { endpoint: string; variant: string; instances: number }[];
}

/** Instances of `instanceType` that the region's endpoints hold (or are about to). */
export async function countEndpointInstances(
  sagemaker: SageMakerClient,
  instanceType: string,
  options: CallOptions = {},
): Promise<InstancesInUse> {
  const names: string[] = [];
  let nextToken: string | undefined;
  do {
    const out = await sagemaker.send(
      new ListEndpointsCommand({ NextToken: nextToken, MaxResults: 100 }),
      options,
    );
    for (const e of out.Endpoints ?? []) if (e.EndpointName) names.push(e.EndpointName);
    nextToken = out.NextToken;
  } while (nextToken);
  const variants: InstancesInUse['variants'] = [];
  for (const endpoint of names) {
    const ep = await sagemaker.send(new DescribeEndpointCommand({ EndpointName: endpoint }), options);
    if (!ep.EndpointConfigName) continue;
    const config = await sagemaker.send(
      new DescribeEndpointConfigCommand({ EndpointConfigName: ep.EndpointConfigName }),
      options,
    );
    for (const pv of ep.ProductionVariants ?? []) {
      const declared = (config.ProductionVariants ?? []).find((c) => c.VariantName === pv.VariantName);
      if (declared?.InstanceType !== instanceType) continue;
      const instances = Math.max(pv.CurrentInstanceCount ?? 0, pv.DesiredInstanceCount ?? 0);
      variants.push({ endpoint, variant: pv.VariantName ?? '', instances });
    }
  }
  return { total: variants.reduce((sum, v) => sum + v.instances, 0), variants };
}
