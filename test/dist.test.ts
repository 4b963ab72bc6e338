import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/anchor.js';

describe('dist/', () => {
  it('matches a fresh build of src/ (the action and `npx scalegate` run dist/ directly)', () => {
    const out = mkdtempSync(join(tmpdir(), 'scalegate-dist-'));
    const build = spawnSync(process.execPath, ['scripts/build.mjs', '--out', out], {
      cwd: repoRoot,
      encoding: 'utf8',
    });
    expect(build.status, build.stderr).toBe(0);
    const committed = readdirSync(join(repoRoot, 'dist')).sort();
    expect(readdirSync(out).sort()).toEqual(committed);
    for (const file of committed) {
      const fresh = readFileSync(join(out, file), 'utf8');
      const stale = readFileSync(join(repoRoot, 'dist', file), 'utf8') !== fresh;
      expect(stale, `dist/${file} is stale: run \`npm run build\` and commit dist/`).toBe(false);
    }
  }, 300_000);

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
