// The byte-for-byte proof that the committed dist/ is what the sources build: builds into a
// temporary directory and compares every file. Slow (three ncc bundles, about a minute); the test
// suite checks the recorded build inputs instead (test/dist.test.ts).
// Usage: node scripts/check-dist.mjs   (npm run check:dist)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const out = mkdtempSync(join(tmpdir(), 'scalegate-dist-'));
try {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--out', out], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (build.status !== 0) process.exit(1);
  const committed = readdirSync(join(root, 'dist')).sort();
  const fresh = readdirSync(out).sort();
  const stale = [...new Set([...committed, ...fresh])].filter((file) => {
    try {
      return !readFileSync(join(out, file)).equals(readFileSync(join(root, 'dist', file)));
    } catch {
      return true;
    }
  });
  if (stale.length > 0) {
    console.error(
      `check-dist: stale or missing: ${stale.map((f) => `dist/${f}`).join(', ')}: run \`npm run build\` and commit dist/`,
    );
    process.exit(1);
  }
  console.log(`check-dist: dist/ equals a fresh build (${committed.join(', ')})`);
} finally {
  rmSync(out, { recursive: true, force: true });
}
