// The local image tag must be the very hash `cdk deploy` would tag the container image with,
// or artifacts measured locally would claim a different image than the one deployed.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { DockerImageAsset } from 'aws-cdk-lib/aws-ecr-assets';
import { afterAll, describe, expect, it } from 'vitest';
import { containerAssetHash } from '../../src/local/asset-hash.js';
import { findContainerDir } from '../../src/local/index.js';

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
});
