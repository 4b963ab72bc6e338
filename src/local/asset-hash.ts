/**
 * The content hash of a Docker image directory, computed exactly as the CDK's `DockerImageAsset`
 * computes `assetHash` (aws-cdk-lib/aws-ecr-assets/lib/image-asset.js, AssetStaging): a
 * fingerprint of the directory with the `.dockerignore` lines as excludes (plus `!.dockerignore`,
 * `!Dockerfile`, `.is_custom_resource`), Docker ignore semantics, and the asset's extra hash
 * `{"version":"1.21.0"}` (no build args, target, file or platform). It is the image tag the CDK
 * deploys, so the local SageMaker's image URI matches what `cdk deploy` would run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type * as Cdk from 'aws-cdk-lib';

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
    exclude = [
      ...readFileSync(ignoreFile)
        .toString()
        .split('\n')
        .filter((line) => !!line),
      '!.dockerignore',
    ];
  }
  exclude.push(`!${dockerfile}`);
  const { FileSystem, IgnoreMode } = loadAtRuntime<typeof Cdk>('aws-cdk-lib');
  return FileSystem.fingerprint(dir, {
    // AssetStaging puts this one first.
    exclude: ['.is_custom_resource', ...exclude],
    ignoreMode: IgnoreMode.DOCKER,
    extraHash: DOCKER_ASSET_EXTRA_HASH,
  });
}
