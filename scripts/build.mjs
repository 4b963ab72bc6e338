// Bundles each entry point with @vercel/ncc into one self-contained ESM file under dist/
// (the action runner and `npx scalegate` execute these directly, without node_modules).
// Usage: node scripts/build.mjs [--out DIR]   (tests build into a temp dir to prove dist/ is fresh)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INPUTS_FILE, fileDigest, inputsDigest } from './build-inputs.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const outDir = outFlag >= 0 ? resolve(process.argv[outFlag + 1]) : join(root, 'dist');

export const entries = [
  { name: 'cli', source: 'src/cli.ts' },
  { name: 'main', source: 'src/action/main.ts' },
  { name: 'post', source: 'src/action/post.ts' },
];

/**
 * Not bundled: the CDK (only the asset hash of a container directory and the CDK app use it, and
 * it loads files of its own at run time). It resolves from the checkout's node_modules.
 */
const externals = ['aws-cdk-lib', 'constructs'];

mkdirSync(outDir, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'scalegate-build-'));
try {
  for (const entry of entries) {
    if (!existsSync(join(root, entry.source))) continue;
    const entryOut = join(work, entry.name);
    const ncc = join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js');
    const args = ['build', entry.source, '-o', entryOut, '-q', '--target', 'es2022'];
    for (const external of externals) args.push('-e', external);
    const result = spawnSync(process.execPath, [ncc, ...args], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (result.status !== 0) {
      console.error(`build: ncc failed on ${entry.source}`);
      process.exit(1);
    }
    const emitted = readdirSync(entryOut).filter((f) => f !== 'package.json');
    if (emitted.length !== 1 || emitted[0] !== 'index.js') {
      console.error(
        `build: ${entry.source} emitted extra files (${emitted.join(', ')}); only a single bundle is supported`,
      );
      process.exit(1);
    }
    renameSync(join(entryOut, 'index.js'), join(outDir, `${entry.name}.mjs`));
  }
  // What this build was made from, and what it made (test/dist.test.ts checks both).
  const bundles = Object.fromEntries(
    entries.map((e) => [`${e.name}.mjs`, fileDigest(join(outDir, `${e.name}.mjs`))]),
  );
  const record = { inputs_sha256: inputsDigest(root), bundles_sha256: bundles };
  writeFileSync(join(outDir, BUILD_INPUTS_FILE), `${JSON.stringify(record, null, 2)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
