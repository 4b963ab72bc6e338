/**
 * The model's image and its digest (what a measurement's fingerprint names): either built from
 * `container_dir` by a DockerImageAsset, whose asset hash is the digest (the CDK tags the image
 * with it), or an image built elsewhere and pinned by `image_uri` (`{account}` / `{region}`
 * placeholders become the stack's account and region).
 */
import { resolve } from 'node:path';
import { Aws, Stack } from 'aws-cdk-lib';
import { DockerImageAsset } from 'aws-cdk-lib/aws-ecr-assets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { imageDigestOf, type ModelConfig, UsageError } from '../../src/model/index.js';

export interface ModelImage {
  imageUri: string;
  /** The digest a plan's fingerprint must carry: asset hash, or the part after `@sha256:`. */
  digest: string;
  /** ECR statements the execution role needs to pull exactly this image. */
  pullStatements: iam.PolicyStatement[];
  source: 'container_dir' | 'image_uri';
}

const ECR_URI =
  /^([0-9]{12}|\{account\})\.dkr\.ecr\.([a-z0-9-]+|\{region\})\.amazonaws\.com(?:\.cn)?\/([^@:]+)/;

/** The ECR repository of an `image_uri` (null: not an ECR URI); `{account}`/`{region}` stay as given. */
export function imageUriRepository(
  uri: string,
): { account: string | '{account}'; region: string | '{region}'; repository: string } | null {
  const match = ECR_URI.exec(uri);
  if (!match) return null;
  return { account: match[1] as string, region: match[2] as string, repository: match[3] as string };
}

export function modelImage(
  scope: Construct,
  modelName: string,
  model: ModelConfig,
  repoRoot: string,
): ModelImage {
  const stack = Stack.of(scope);
  if (model.container_dir) {
    // Exactly these props: the asset hash (= digest) depends on them, and `containerAssetHash`
    // (src/model/asset-hash.ts, used by `scalegate gate`) computes the same hash without a synth.
    const asset = new DockerImageAsset(scope, 'Image', { directory: resolve(repoRoot, model.container_dir) });
    return {
      imageUri: asset.imageUri,
      digest: asset.assetHash,
      pullStatements: [
        new iam.PolicyStatement({
          actions: ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'],
          resources: [asset.repository.repositoryArn],
        }),
      ],
      source: 'container_dir',
    };
  }
  const uri = model.image_uri as string;
  const match = ECR_URI.exec(uri);
  if (!match) {
    throw new UsageError(
      `scalegate.config.json: models.${modelName}.image_uri ${uri} is not an Amazon ECR image URI (<account>.dkr.ecr.<region>.amazonaws.com/<repository>@sha256:<digest>); SageMaker pulls from ECR.`,
    );
  }
  if (!uri.includes('@sha256:')) {
    throw new UsageError(
      `scalegate.config.json: models.${modelName}.image_uri ${uri} is not pinned by digest; pin it (…@sha256:<digest>) so that the deployed image is the measured one.`,
    );
  }
  const account = match[1] === '{account}' ? stack.account : (match[1] as string);
  const region = match[2] === '{region}' ? stack.region : (match[2] as string);
  const repository = match[3] as string;
  return {
    imageUri: uri.replaceAll('{account}', stack.account).replaceAll('{region}', stack.region),
    digest: imageDigestOf(uri),
    pullStatements: [
      new iam.PolicyStatement({
        actions: ['ecr:BatchCheckLayerAvailability', 'ecr:BatchGetImage', 'ecr:GetDownloadUrlForLayer'],
        resources: [`arn:${Aws.PARTITION}:ecr:${region}:${account}:repository/${repository}`],
      }),
    ],
    source: 'image_uri',
  };
}
