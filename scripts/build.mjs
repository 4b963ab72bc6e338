// Bundles each entry point with @vercel/ncc into one self-contained ESM file under dist/
// (the action runner and `npx scalegate` execute these directly, without node_modules).
// Usage: node scripts/build.mjs [--out DIR] [--only NAME]   (tests build into a temp dir to prove dist/ is fresh)
import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_INPUTS_FILE, BUILD_OUTPUTS, ENTRIES, fileDigest, inputsDigest } from './build-inputs.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const outFlag = process.argv.indexOf('--out');
const outDir = outFlag >= 0 ? resolve(process.argv[outFlag + 1]) : join(root, 'dist');
/** `--only <name>`: that entry alone, and no build record (for working on one entry). */
const onlyFlag = process.argv.indexOf('--only');
const only = onlyFlag >= 0 ? process.argv[onlyFlag + 1] : null;

export const entries = ENTRIES;

/**
 * Not bundled: the CDK (only the asset hash of a container directory, the CDK app and the
 * `scalegate/cdk` export use it, and it loads files of its own at run time). It resolves from the
 * node_modules where scalegate runs: the checkout's, or the consuming app's (an optional peer
 * dependency of the package).
 */
const externals = ['aws-cdk-lib', 'constructs'];

/**
 * ncc matches externals exactly, so each `aws-cdk-lib/<module>` the sources import is named too
 * (bundling one would put a second copy of the CDK beside the app's, whose constructs the app's
 * Stack would not recognise).
 */
function cdkSubpaths() {
  const files = ['src', join('infra', 'lib')].flatMap((dir) =>
    readdirSync(join(root, dir), { recursive: true })
      .filter((f) => String(f).endsWith('.ts'))
      .map((f) => join(root, dir, String(f))),
  );
  const found = new Set();
  for (const file of files) {
    for (const m of readFileSync(file, 'utf8').matchAll(/from '((?:aws-cdk-lib|constructs)\/[^']+)'/g))
      found.add(m[1]);
  }
  return [...found].sort();
}

/**
 * `dist/<name>.d.ts`: the entry's declarations, emitted by tsc. They must stand alone (name only
 * packages, never a module of this repository), since nothing else of the sources is shipped.
 */
function writeDeclarations(entry, typesOut) {
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const args = [
    ...['--declaration', '--emitDeclarationOnly', '--outDir', typesOut, '--rootDir', root],
    ...['--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--target', 'ES2022'],
    ...['--strict', '--skipLibCheck', '--types', 'node', '--verbatimModuleSyntax', '--resolveJsonModule'],
    entry.source,
  ];
  const result = spawnSync(process.execPath, [tsc, ...args], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) {
    console.error(`build: tsc failed to emit the declarations of ${entry.source}`);
    process.exit(1);
  }
  const text = readFileSync(join(typesOut, entry.source.replace(/\.ts$/, '.d.ts')), 'utf8');
  const relative = [...text.matchAll(/from\s+'(\.[^']*)'/g)].map((m) => m[1]);
  if (relative.length > 0) {
    console.error(
      `build: the declarations of ${entry.source} import ${relative.join(', ')}: its public types must name only packages`,
    );
    process.exit(1);
  }
  writeFileSync(join(outDir, `${entry.name}.d.ts`), text);
}

mkdirSync(outDir, { recursive: true });
const work = mkdtempSync(join(tmpdir(), 'scalegate-build-'));
try {
  for (const entry of entries) {
    if (!existsSync(join(root, entry.source)) || (only && entry.name !== only)) continue;
    const entryOut = join(work, entry.name);
    const ncc = join(root, 'node_modules', '@vercel', 'ncc', 'dist', 'ncc', 'cli.js');
    const args = ['build', entry.source, '-o', entryOut, '-q', '--target', 'es2022'];
    for (const external of [...externals, ...cdkSubpaths()]) args.push('-e', external);
    const result = spawnSync(process.execPath, [ncc, ...args], {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    if (result.status !== 0) {
      console.error(`build: ncc failed on ${entry.source}`);
      process.exit(1);
    }
    const emitted = readdirSync(entryOut).filter((f) => f !== 'package.json');
    const chunks = emitted.filter((f) => /^\d+\.index\.js$/.test(f));
    if (!emitted.includes('index.js') || emitted.length !== chunks.length + 1) {
      console.error(`build: ${entry.source} emitted unexpected files (${emitted.join(', ')})`);
      process.exit(1);
    }
    let bundle = readFileSync(join(entryOut, 'index.js'), 'utf8');
    for (const old of readdirSync(outDir).filter((f) => f.startsWith(`${entry.name}-chunk-`)))
      rmSync(join(outDir, old));
    if (chunks.length > 0) {
      // A dependency's lazy import() (cacache's p-map, under @actions/attest) becomes a chunk that the
      // bundle loads as "./<id>.index.js" beside itself: named after its entry instead, so the
      // entries sharing dist/ cannot collide.
      const template = 'return "" + chunkId + ".index.js";';
      if (bundle.split(template).length !== 2) {
        console.error(`build: ${entry.source}: the chunk file name template was not found exactly once`);
        process.exit(1);
      }
      bundle = bundle.replace(template, `return "${entry.name}-chunk-" + chunkId + ".mjs";`);
      for (const chunk of chunks) {
        renameSync(join(entryOut, chunk), join(outDir, `${entry.name}-chunk-${chunk.split('.')[0]}.mjs`));
      }
    }
    writeFileSync(join(outDir, `${entry.name}.mjs`), bundle);
    if (entry.declarations) writeDeclarations(entry, join(work, `${entry.name}-types`));
  }
  if (!only) {
    // What this build was made from, and what it made (test/dist.test.ts checks both).
    const outputs = [
      ...BUILD_OUTPUTS,
      ...readdirSync(outDir).filter((f) => /-chunk-\d+\.mjs$/.test(f)),
    ].sort();
    const bundles = Object.fromEntries(outputs.map((file) => [file, fileDigest(join(outDir, file))]));
    const record = { inputs_sha256: inputsDigest(root), bundles_sha256: bundles };
    writeFileSync(join(outDir, BUILD_INPUTS_FILE), `${JSON.stringify(record, null, 2)}\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
