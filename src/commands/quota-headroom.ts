/**
 * ttotal's quota preflight: is there room in the account's endpoint-usage quota for the one more
 * instance the run forces? Frozen at one instance, then one more: the instances on other
 * endpoints + 2 must fit, or the run is refused (exit 2) before anything changes.
 */
import type { AwsClients } from '../aws/clients.js';
import type { VariantCapacity } from '../aws/endpoint.js';
import { countEndpointInstances, findEndpointUsageQuota } from '../aws/quotas.js';
import type { CompareQuota, ModelConfig, TtotalArtifact } from '../model/index.js';
import { usage } from '../model/index.js';

export async function quotaHeadroom(
  input: { model: Pick<ModelConfig, 'instance_quota'>; quotaCode?: string },
  clients: Pick<AwsClients, 'quotas' | 'sagemaker'>,
  instanceType: string,
  capacity: VariantCapacity,
): Promise<NonNullable<TtotalArtifact['quota']>> {
  let quotaName: string | null = null;
  let quotaValue: number | null = null;
  let source: string;
  try {
    const found = await findEndpointUsageQuota(clients.quotas, instanceType, { quotaCode: input.quotaCode });
    if (found) {
      quotaName = found.quotaName;
      quotaValue = found.value;
      source = `Service Quotas ${found.quotaCode} (${found.quotaName})`;
    } else {
      source = `Service Quotas has no "${instanceType} for endpoint usage" quota`;
    }
  } catch (e) {
    source = `Service Quotas unreadable (${(e as Error).name}: ${(e as Error).message})`;
  }
  if (quotaValue === null && input.model.instance_quota !== undefined) {
    quotaValue = input.model.instance_quota;
    quotaName = `${instanceType} for endpoint usage`;
    source = `${source}; instance_quota ${quotaValue} from the config`;
  }
  let inUse: Awaited<ReturnType<typeof countEndpointInstances>> | null = null;
  try {
    inUse = await countEndpointInstances(clients.sagemaker, instanceType);
  } catch (e) {
    source = `${source}; instances in use unreadable (${(e as Error).name}: ${(e as Error).message}), headroom not checked`;
  }
  if (quotaValue !== null && inUse !== null) {
    const ours = Math.max(capacity.current ?? 0, capacity.desired ?? 0);
    const others = Math.max(0, inUse.total - ours);
    // Frozen at one instance, then one more: others + 2 must fit.
    const needed = others + 2;
    if (needed > quotaValue) {
      const holders = inUse.variants.map((v) => `${v.endpoint}/${v.variant}: ${v.instances}`).join(', ');
      throw usage`no quota headroom for one more ${instanceType}: the quota "${quotaName}" is ${quotaValue} instances and ${inUse.total} are in use (${holders || 'none'}); the run needs ${needed} (${others} on other endpoints, 1 frozen here, 1 forced). Request a quota increase in Service Quotas (${source}), or free instances on the other endpoints, then re-run.`;
    }
  }
  return { quota_name: quotaName, quota_value: quotaValue, instances_in_use: inUse?.total ?? null, source };
}

/**
 * compare's quota check, before any deploy: can the account's endpoint-usage quota for
 * `instanceType` hold a fleet of `needed` instances besides what other endpoints of the region
 * hold (the model's own endpoints, `ownEndpoints`, are not counted: the plan replaces them)?
 * Never throws: an unreadable quota is recorded as not checked (`holds: null`) with why.
 */
export async function quotaForPeak(
  model: Pick<ModelConfig, 'instance_quota'>,
  clients: Pick<AwsClients, 'quotas' | 'sagemaker'>,
  instanceType: string,
  needed: number,
  ownEndpoints: ReadonlySet<string>,
): Promise<CompareQuota> {
  let quotaName: string | null = null;
  let quotaValue: number | null = null;
  let source: string;
  try {
    const found = await findEndpointUsageQuota(clients.quotas, instanceType);
    if (found) {
      quotaName = found.quotaName;
      quotaValue = found.value;
      source = `Service Quotas ${found.quotaCode} (${found.quotaName})`;
    } else {
      source = `Service Quotas has no "${instanceType} for endpoint usage" quota`;
    }
  } catch (e) {
    source = `Service Quotas unreadable (${(e as Error).name}: ${(e as Error).message})`;
  }
  if (quotaValue === null && model.instance_quota !== undefined) {
    quotaValue = model.instance_quota;
    quotaName = `${instanceType} for endpoint usage`;
    source = `${source}; instance_quota ${quotaValue} from the config (stated)`;
  }
  let elsewhere: number | null = null;
  try {
    const inUse = await countEndpointInstances(clients.sagemaker, instanceType);
    elsewhere = inUse.variants
      .filter((v) => !ownEndpoints.has(v.endpoint))
      .reduce((sum, v) => sum + v.instances, 0);
  } catch (e) {
    source = `${source}; instances in use unreadable (${(e as Error).name}: ${(e as Error).message})`;
  }
  const holds = quotaValue === null ? null : needed + (elsewhere ?? 0) <= quotaValue;
  if (quotaValue === null) source = `${source}: not checked`;
  return {
    quota_name: quotaName,
    quota_value: quotaValue,
    instances_elsewhere: elsewhere,
    needed,
    holds,
    source,
  };
}
