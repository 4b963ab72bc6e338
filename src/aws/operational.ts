/**
 * Every failed AWS call of a control-plane client becomes an `OperationalError` naming the
 * operation (`DescribeEndpoint`), the resource it was about (read from the call's input) and the
 * region: one middleware per client, outermost, so it sees the failure after the SDK's own
 * retries. The runtime client (the load itself) is left alone: its failures are measurements.
 * An aborted call (a signal) passes through unchanged.
 */
import type { InitializeMiddleware, MiddlewareStack } from '@smithy/types';
import { isOperationalError, isUsageError, OperationalError } from '../model/errors.js';

type Input = Record<string, unknown>;

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** `endpoint/<name>/variant/<variant>` (Application Auto Scaling's resource id) in words. */
function scalableResource(id: string): string {
  const m = /^endpoint\/([^/]+)\/variant\/([^/]+)$/.exec(id);
  return m ? `endpoint ${m[1]} variant ${m[2]}` : `resource ${id}`;
}

/** Endpoint and variant named by CloudWatch dimensions (GetMetricData, PutMetricAlarm). */
function fromDimensions(dimensions: unknown): string | null {
  if (!Array.isArray(dimensions)) return null;
  const value = (name: string) =>
    str((dimensions as { Name?: string; Value?: string }[]).find((d) => d.Name === name)?.Value);
  const endpoint = value('EndpointName');
  if (!endpoint) return null;
  const variant = value('VariantName');
  return variant ? `endpoint ${endpoint} variant ${variant}` : `endpoint ${endpoint}`;
}

/** The product a Price List GetProducts asked for: `price of <instance> (<service>, <region>)`. */
function pricedProduct(input: Input): string | null {
  if (!Array.isArray(input.Filters)) return null;
  const value = (field: string) =>
    str((input.Filters as { Field?: string; Value?: string }[]).find((f) => f.Field === field)?.Value);
  const instance = value('instanceName');
  if (!instance) return null;
  const region = value('regionCode');
  return `price of ${instance} (${str(input.ServiceCode) ?? 'service'}${region ? `, ${region}` : ''})`;
}

/** What a call was about, from its input: the endpoint (and variant) when it names one. */
export function resourceOf(input: Input): string | null {
  const endpoint = str(input.EndpointName);
  if (endpoint) {
    const variants = input.DesiredWeightsAndCapacities;
    const variant = Array.isArray(variants) ? str((variants[0] as Input | undefined)?.VariantName) : null;
    return variant ? `endpoint ${endpoint} variant ${variant}` : `endpoint ${endpoint}`;
  }
  const resourceId = str(input.ResourceId);
  if (resourceId) return scalableResource(resourceId);
  const ids = input.ResourceIds;
  if (Array.isArray(ids) && typeof ids[0] === 'string') return scalableResource(ids[0]);
  if (str(input.EndpointConfigName)) return `endpoint config ${input.EndpointConfigName}`;
  if (str(input.ModelName)) return `model ${input.ModelName}`;
  if (str(input.ResourceArn)) return `resource ${input.ResourceArn}`;
  if (str(input.logGroupName)) {
    return str(input.logStreamName)
      ? `log stream ${input.logGroupName}/${input.logStreamName}`
      : `log group ${input.logGroupName}`;
  }
  const dims = fromDimensions(input.Dimensions);
  if (dims) return dims;
  if (Array.isArray(input.MetricDataQueries)) {
    for (const q of input.MetricDataQueries as { MetricStat?: { Metric?: { Dimensions?: unknown } } }[]) {
      const found = fromDimensions(q.MetricStat?.Metric?.Dimensions);
      if (found) return found;
    }
  }
  if (str(input.AlarmName)) return `alarm ${input.AlarmName}`;
  if (Array.isArray(input.AlarmNames) && input.AlarmNames.length > 0) {
    return `alarm ${input.AlarmNames[0]}${input.AlarmNames.length > 1 ? ` (+${input.AlarmNames.length - 1})` : ''}`;
  }
  if (str(input.AlarmNamePrefix)) return `alarms ${input.AlarmNamePrefix}*`;
  const priced = pricedProduct(input);
  if (priced) return priced;
  if (str(input.ServiceCode)) {
    return str(input.QuotaCode)
      ? `quota ${input.ServiceCode}/${input.QuotaCode}`
      : `service ${input.ServiceCode}`;
  }
  return null;
}

const isAbort = (e: unknown): boolean => e instanceof Error && e.name === 'AbortError';

/** Wraps one failure of `operation` (no-op for aborts and errors already classified). */
export function operationalFailure(
  e: unknown,
  operation: string,
  input: Input,
  region: string | null,
): unknown {
  if (isAbort(e) || isOperationalError(e) || isUsageError(e)) return e;
  return new OperationalError({ operation, resource: resourceOf(input), region }, e);
}

const OPTIONS = {
  step: 'initialize',
  name: 'scalegateOperationalErrors',
  priority: 'high',
} as const;

/** Adds the classifying middleware to one SDK v3 client (idempotent). */
export function classifyFailures(
  client: { middlewareStack: MiddlewareStack<object, object> },
  region: string,
): void {
  const middleware: InitializeMiddleware<object, object> = (next, context) => async (args) => {
    try {
      return await next(args);
    } catch (e) {
      const name = String((context as { commandName?: string }).commandName ?? 'AWS call').replace(
        /Command$/,
        '',
      );
      throw operationalFailure(e, name, (args.input ?? {}) as Input, region);
    }
  };
  client.middlewareStack.remove(OPTIONS.name);
  client.middlewareStack.add(middleware, OPTIONS);
}
