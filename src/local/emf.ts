/**
 * CloudWatch embedded metric format (EMF): a log event that is one JSON object with an `_aws`
 * block becomes metrics, as CloudWatch Logs extracts them. For each MetricDirective of
 * `_aws.CloudWatchMetrics` (Namespace, Dimensions: sets of root member names, Metrics: Name/Unit),
 * each dimension set and each metric, one datum at `_aws.Timestamp` (ms; the event's time when
 * absent). A metric's target member is a number, an array of at most 100 numbers, or a histogram
 * `{"Values": [...], "Counts": [...], "Max", "Min", "Count", "Sum"}` (at most 100 values; what
 * AWS's own EMF libraries write for distributions). A document that breaks the specification
 * yields nothing, as CloudWatch drops it (it counts it in AWS/Logs EMFValidationErrors).
 */

/**
 * Model environment naming the endpoint variant a container's service-time metrics belong to
 * (their EndpointName and VariantName dimensions): SageMaker does not tell a container which
 * endpoint it serves, so the deployment sets them (the CDK endpoint stack, and this emulator).
 */
export const SERVICE_METRICS_ENV = {
  endpoint: 'SCALEGATE_ENDPOINT_NAME',
  variant: 'SCALEGATE_VARIANT_NAME',
} as const;

export interface EmfDatum {
  namespace: string;
  metricName: string;
  dimensions: Record<string, string>;
  timestampMs: number;
  unit: string;
  /** One value, or values with their counts (a histogram or an array). */
  value?: number;
  values?: number[];
  counts?: number[];
}

const MAX_VALUES = 100;
const MAX_DIMENSIONS = 30;
const MAX_SET_SIZE = 9;
const MAX_METRICS = 100;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The values of one metric target member, or null when the member is not a valid metric target. */
function targetValues(v: unknown): Pick<EmfDatum, 'value' | 'values' | 'counts'> | null {
  if (isNumber(v)) return { value: v };
  if (Array.isArray(v)) {
    if (v.length === 0 || v.length > MAX_VALUES || !v.every(isNumber)) return null;
    return { values: v };
  }
  if (isObject(v)) {
    const { Values, Counts, Count, Sum, Max, Min } = v;
    if (!Array.isArray(Values) || !Array.isArray(Counts)) return null;
    if (Values.length === 0 || Values.length > MAX_VALUES || Values.length !== Counts.length) return null;
    if (!Values.every(isNumber) || !Counts.every((c) => isNumber(c) && c >= 0)) return null;
    if (![Count, Sum, Max, Min].every(isNumber)) return null;
    return { values: Values, counts: Counts };
  }
  return null;
}

/**
 * The metrics one log event carries; [] when it is not an EMF document or breaks the
 * specification (CloudWatch extracts nothing from it then).
 */
export function extractEmf(message: string, eventTimeMs: number): EmfDatum[] {
  const text = message.trim();
  if (!text.startsWith('{') || !text.includes('"_aws"')) return [];
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch {
    return [];
  }
  if (!isObject(root) || !isObject(root._aws)) return [];
  const meta = root._aws;
  const directives = meta.CloudWatchMetrics;
  if (!Array.isArray(directives)) return [];
  if (meta.Timestamp !== undefined && !isNumber(meta.Timestamp)) return [];
  const timestampMs = isNumber(meta.Timestamp) ? meta.Timestamp : eventTimeMs;
  const out: EmfDatum[] = [];
  for (const directive of directives) {
    if (!isObject(directive)) return [];
    const { Namespace, Dimensions, Metrics } = directive;
    if (typeof Namespace !== 'string' || Namespace.length === 0 || Namespace.length > 255) return [];
    if (Namespace.startsWith('AWS/')) return [];
    if (!Array.isArray(Dimensions) || !Array.isArray(Metrics) || Metrics.length > MAX_METRICS) return [];
    const sets: Record<string, string>[] = [];
    for (const set of Dimensions) {
      if (!Array.isArray(set) || set.length > MAX_SET_SIZE) return [];
      const dims: Record<string, string> = {};
      for (const key of set) {
        if (typeof key !== 'string') return [];
        const value = root[key];
        if (typeof value !== 'string' || value.length === 0) return [];
        dims[key] = value;
      }
      if (Object.keys(dims).length > MAX_DIMENSIONS) return [];
      sets.push(dims);
    }
    for (const metric of Metrics) {
      if (!isObject(metric) || typeof metric.Name !== 'string') return [];
      const unit = metric.Unit === undefined ? 'None' : metric.Unit;
      if (typeof unit !== 'string') return [];
      const target = targetValues(root[metric.Name]);
      if (target === null) return [];
      for (const dimensions of sets) {
        out.push({ namespace: Namespace, metricName: metric.Name, dimensions, timestampMs, unit, ...target });
      }
    }
  }
  return out;
}
