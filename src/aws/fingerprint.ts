/**
 * The fingerprint of what is deployed: instance type, image digest and container environment of
 * the live variant (DescribeEndpoint -> DescribeEndpointConfig -> DescribeModel), plus the region.
 */
import type { SageMakerClient } from '@aws-sdk/client-sagemaker';
import { type Fingerprint, imageDigestOf, measuredEnvironment } from '../model/fingerprint.js';
import { type CallOptions, type DeployedVariant, describeDeployedVariant } from './endpoint.js';

export interface DeployedFingerprint {
  fingerprint: Fingerprint;
  deployed: DeployedVariant;
}

export async function readDeployedFingerprint(
  sagemaker: SageMakerClient,
  endpoint: string,
  variant: string,
  region: string,
  options: CallOptions = {},
): Promise<DeployedFingerprint> {
  const deployed = await describeDeployedVariant(sagemaker, endpoint, variant, options);
  return {
    deployed,
    fingerprint: {
      instance_type: deployed.instanceType,
      image_digest: imageDigestOf(deployed.image),
      container_env: measuredEnvironment(deployed.environment),
      region,
    },
  };
}
