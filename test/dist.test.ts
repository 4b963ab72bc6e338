import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs build script, without type declarations
import { BUILD_INPUTS_FILE, fileDigest, inputsDigest } from '../scripts/build-inputs.mjs';
import { repoRoot } from './helpers/anchor.js';

const dist = join(repoRoot, 'dist');
const recorded = JSON.parse(readFileSync(join(dist, BUILD_INPUTS_FILE), 'utf8')) as {
  inputs_sha256: string;
  bundles_sha256: Record<string, string>;
};

describe('dist/ (the action and `npx scalegate` run it directly)', () => {
  it('was built from the sources as they are now (a change to src/, the lockfile or the build without `npm run build` fails here)', () => {
    expect(
      inputsDigest(repoRoot) === recorded.inputs_sha256,
      'dist/ is stale: src/, package-lock.json, tsconfig.json or the build script changed since the last build: run `npm run build` and commit dist/',
    ).toBe(true);
  });

  it('holds exactly the bundles that build made, unedited', () => {
    expect(readdirSync(dist).sort()).toEqual(
      [BUILD_INPUTS_FILE, ...Object.keys(recorded.bundles_sha256)].sort(),
    );
    for (const [file, sha] of Object.entries(recorded.bundles_sha256)) {
      expect(
        fileDigest(join(dist, file)),
        `dist/${file} differs from what the build made: run \`npm run build\``,
      ).toBe(sha);
    }
  });

  it.each([['--help'], ['plan', '--help']])(
    'runs `scalegate %s` from the checkout (bin -> dist)',
    (...args) => {
      const run = spawnSync(process.execPath, ['bin/scalegate.mjs', ...args], {
        cwd: repoRoot,
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toContain('Usage: scalegate');
    },
  );
});
