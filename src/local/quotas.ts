/**
 * Service Quotas of the local SageMaker (JSON 1.1, `ServiceQuotasV20190624.*`): the one quota the
 * tool reads, `<instance type> for endpoint usage` of service `sagemaker`, with a configurable
 * value; the fleet enforces the same value on capacity changes.
 *
 * Quota codes are AWS's where known: `L-1928E07B` is "ml.g5.xlarge for endpoint usage" (seen in
 * public quota audits and deployment scripts). For an instance type not in the table the code is
 * derived (`L-` + 8 hex of a hash of the quota name): stable, but not AWS's.
 */
import { createHash } from 'node:crypto';
import { AwsError } from './aws-error.js';
import type { OperationHandler } from './contracts.js';
import { type Input, memberReader, type Reader, unknownOperation } from './wire.js';

const KNOWN_ENDPOINT_QUOTA_CODES: Record<string, string> = {
  'ml.g5.xlarge': 'L-1928E07B',
  'ml.g6.xlarge': 'L-D470D954',
  'ml.g6e.xlarge': 'L-B0729CB4',
  'ml.g6e.2xlarge': 'L-F8D7F460',
  'ml.g6e.4xlarge': 'L-93531071',
};

export const endpointQuotaName = (instanceType: string): string => `${instanceType} for endpoint usage`;

export function endpointQuotaCode(instanceType: string): string {
  return (
    KNOWN_ENDPOINT_QUOTA_CODES[instanceType] ??
    `L-${createHash('sha256').update(endpointQuotaName(instanceType)).digest('hex').slice(0, 8).toUpperCase()}`
  );
}

export interface QuotaSource {
  instanceType: string;
  value(): number;
  region: string;
  accountId: string;
}

const SERVICE_CODE = 'sagemaker';
const SERVICE_NAME = 'Amazon SageMaker';

export function createServiceQuotas(src: QuotaSource): OperationHandler {
  const invalid = (message: string) => new AwsError('IllegalArgumentException', message, 400);
  const quota = () => {
    const code = endpointQuotaCode(src.instanceType);
    return {
      ServiceCode: SERVICE_CODE,
      ServiceName: SERVICE_NAME,
      QuotaArn: `arn:aws:servicequotas:${src.region}:${src.accountId}:${SERVICE_CODE}/${code}`,
      QuotaCode: code,
      QuotaName: endpointQuotaName(src.instanceType),
      Value: src.value(),
      Unit: 'None',
      Adjustable: true,
      GlobalQuota: false,
      QuotaAppliedAtLevel: 'ACCOUNT',
    };
  };
  const checkService = (r: Reader) => {
    const service = r.str('ServiceCode');
    if (service !== SERVICE_CODE)
      throw new AwsError(
        'NoSuchResourceException',
        `The request failed because the specified service does not exist: ${service}`,
        400,
      );
  };
  const get = (input: Input) => {
    const r = memberReader(input, invalid);
    checkService(r);
    const code = r.str('QuotaCode');
    const q = quota();
    if (code !== q.QuotaCode)
      throw new AwsError(
        'NoSuchResourceException',
        `The request failed because the specified quota ${code} does not exist for service ${SERVICE_CODE}.`,
        400,
      );
    return { Quota: q };
  };
  return async (operation, input) => {
    switch (operation) {
      case 'GetServiceQuota':
        return get(input);
      case 'ListServiceQuotas': {
        const r = memberReader(input, invalid);
        checkService(r);
        const code = r.str('QuotaCode', true);
        const q = quota();
        return { Quotas: code === undefined || code === q.QuotaCode ? [q] : [] };
      }
      default:
        throw unknownOperation(operation);
    }
  };
}
