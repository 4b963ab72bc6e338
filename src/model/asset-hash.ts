/**
 * The content hash of a Docker image directory, computed exactly as the CDK's `DockerImageAsset`
 * computes `assetHash` (aws-cdk-lib/aws-ecr-assets/lib/image-asset.js, AssetStaging): a
 * fingerprint of the directory with the `.dockerignore` lines as excludes (plus `!.dockerignore`,
 * `!Dockerfile`, `.is_custom_resource`), Docker ignore semantics, and the asset's extra hash
 * `{"version":"1.21.0"}` (no build args, target, file or platform). It is the image tag the CDK
 * deploys: the digest a `container_dir` model's measurements carry, what `scalegate gate` checks
 * and what the local SageMaker reports when the product starts it.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type * as Cdk from 'aws-cdk-lib';
import type { ModelConfig } from './config.js';
import { UsageError } from './errors.js';
import { imageDigestOf } from './fingerprint.js';
import { READ_LIMITS, readBoundedFile } from './read.js';

/**
 * aws-cdk-lib is loaded at run time, from node_modules, through a require whose argument a
 * bundler cannot see: bundling it into dist/cli.mjs (ncc) would add ~57 MB and extra asset files.
 */
function loadAtRuntime<T>(specifier: string): T {
  return createRequire(import.meta.url)(specifier) as T;
}

/** The `extraHash` DockerImageAsset passes when no build option is set (aws-cdk-lib 2.276.0). */
const DOCKER_ASSET_EXTRA_HASH = JSON.stringify({ version: '1.21.0' });

export function containerAssetHash(dir: string, dockerfile = 'Dockerfile'): string {
  const ignoreFile = join(dir, '.dockerignore');
  let exclude: string[] = [];
  if (existsSync(ignoreFile)) {
    // Bounded like every input: a .dockerignore linked to /dev/zero is refused, not read forever.
    const text = readBoundedFile(ignoreFile, {
      maxBytes: READ_LIMITS.config,
      label: 'the .dockerignore of a container_dir',
    });
    exclude = [...text.split('\n').filter((line) => !!line), '!.dockerignore'];
  }
  exclude.push(`!${dockerfile}`);
  let cdk: typeof Cdk;
  try {
    cdk = loadAtRuntime<typeof Cdk>('aws-cdk-lib');
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' &&
      /aws-cdk-lib/.test((e as Error).message)
    ) {
      throw new UsageError(
        `${dir} is a container_dir model, whose image digest is its CDK asset hash, and aws-cdk-lib is not installed where scalegate runs. ` +
          'Install it beside scalegate (`npm install --save-dev scalegate aws-cdk-lib`, an optional peer dependency; a checkout of the repository has it after `npm ci`), ' +
          'or pin the model by `image_uri` (`...@sha256:<digest>`), which needs no CDK.',
      );
    }
    throw e;
  }
  const { FileSystem, IgnoreMode } = cdk;
  return FileSystem.fingerprint(dir, {
    // AssetStaging puts this one first.
    exclude: ['.is_custom_resource', ...exclude],
    ignoreMode: IgnoreMode.DOCKER,
    extraHash: DOCKER_ASSET_EXTRA_HASH,
  });
}

/** A content hash of a directory (`containerAssetHash`, or a stand-in in tests). */
export type AssetHash = (dir: string) => string;

/**
 * The digest of the image a model deploys, from the config side: the CDK asset hash of
 * `container_dir` (resolved against the config file's directory), or the digest `image_uri` pins.
 */
export function modelImageDigest(
  model: Pick<ModelConfig, 'container_dir' | 'image_uri'>,
  configFile: string,
  assetHash: AssetHash = containerAssetHash,
): string {
  if (model.container_dir) return assetHash(resolve(dirname(resolve(configFile)), model.container_dir));
  return imageDigestOf(model.image_uri as string);
}
