// The local image tag must be the very hash `cdk deploy` would tag the container image with,
// or artifacts measured locally would claim a different image than the one deployed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { DockerImageAsset } from 'aws-cdk-lib/aws-ecr-assets';
import { afterAll, describe, expect, it } from 'vitest';
import { localImageUri } from '../../src/commands/rehearse.js';
import { findContainerDir } from '../../src/local/index.js';
import { containerAssetHash, modelImageDigest } from '../../src/model/asset-hash.js';

const outdirs: string[] = [];
afterAll(() => {
  for (const d of outdirs) rmSync(d, { recursive: true, force: true });
});

function cdkAssetHash(directory: string): string {
  const outdir = mkdtempSync(join(tmpdir(), 'scalegate-cdk-'));
  outdirs.push(outdir);
  const stack = new Stack(new App({ outdir }), 'HashCheck');
  return new DockerImageAsset(stack, 'Image', { directory }).assetHash;
}

describe('containerAssetHash', () => {
  it('equals DockerImageAsset.assetHash for infra/container', () => {
    const dir = findContainerDir();
    expect(containerAssetHash(dir)).toMatch(/^[0-9a-f]{64}$/);
    expect(containerAssetHash(dir)).toBe(cdkAssetHash(dir));
  });

  it('follows .dockerignore like the CDK: ignored files do not change the hash, others do', () => {
    const dir = mkdtempSync(join(tmpdir(), 'scalegate-asset-'));
    outdirs.push(dir);
    writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\n');
    writeFileSync(join(dir, '.dockerignore'), 'node_modules/\ndist/\n*.log\n');
    writeFileSync(join(dir, 'app.js'), 'console.log(1)\n');
    const before = containerAssetHash(dir);
    expect(before).toBe(cdkAssetHash(dir));
    mkdirSync(join(dir, 'node_modules'));
    writeFileSync(join(dir, 'node_modules', 'x.js'), 'ignored');
    writeFileSync(join(dir, 'debug.log'), 'ignored');
    expect(containerAssetHash(dir)).toBe(before);
    writeFileSync(join(dir, 'app.js'), 'console.log(2)\n');
    const after = containerAssetHash(dir);
    expect(after).not.toBe(before);
    expect(after).toBe(cdkAssetHash(dir));
  });

  it('tags the image scalegate gives the local SageMaker with that hash, so a local measurement names the deployed image', () => {
    const dir = findContainerDir();
    expect(localImageUri('local', '000000000000')).toBe(
      `000000000000.dkr.ecr.local.amazonaws.com/cdk-hnb659fds-container-assets-000000000000-local:${cdkAssetHash(dir)}`,
    );
  });

  it("gives a model's image digest from the config side: container_dir hashed against the config's directory, image_uri's pinned digest", () => {
    const seen: string[] = [];
    const hash = (d: string) => {
      seen.push(d);
      return 'd'.repeat(64);
    };
    expect(modelImageDigest({ container_dir: 'infra/container' }, '/repo/scalegate.config.json', hash)).toBe(
      'd'.repeat(64),
    );
    expect(seen).toEqual(['/repo/infra/container']);
    expect(
      modelImageDigest(
        { image_uri: `r.dkr.ecr.us-east-1.amazonaws.com/x@sha256:${'e'.repeat(64)}` },
        'c.json',
        hash,
      ),
    ).toBe('e'.repeat(64));
    expect(seen).toHaveLength(1);
  });
});
