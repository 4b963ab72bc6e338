// What dist/ is built from, as one digest: every file under src/ and infra/lib/ (the CDK export), the lockfile (the exact
// dependencies and ncc), the TypeScript config and the build script. `npm run build` records it
// in dist/build-inputs.json with each bundle's own digest; the test suite recomputes both, so a
// source change without a rebuild (or a hand-edited bundle) fails in seconds. The byte-for-byte
// rebuild comparison runs in CI (.github/workflows/ci.yml, job dist) and `npm run check:dist`.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

export const BUILD_INPUTS_FILE = 'build-inputs.json';

/**
 * The bundles: each entry becomes `dist/<name>.mjs`; with `declarations`, its type declarations
 * become `dist/<name>.d.ts` (the package's `exports` point at both; test/package checks it).
 */
export const ENTRIES = [
  { name: 'cli', source: 'src/cli.ts' },
  { name: 'main', source: 'src/action/main.ts' },
  { name: 'post', source: 'src/action/post.ts' },
  { name: 'cdk', source: 'infra/lib/scalegate-scaling.ts', declarations: true },
];

/** Every file a build writes into dist/, build-inputs.json aside. */
export const BUILD_OUTPUTS = ENTRIES.flatMap((e) =>
  e.declarations ? [`${e.name}.mjs`, `${e.name}.d.ts`] : [`${e.name}.mjs`],
);
const ROOT_FILES = ['package-lock.json', 'tsconfig.json', 'scripts/build.mjs', 'scripts/build-inputs.mjs'];

function listFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? listFiles(path) : entry.isFile() ? [path] : [];
  });
}

/** sha256 over (path, content) of every input, in path order: the same on every checkout. */
export function inputsDigest(root) {
  const files = [
    ...listFiles(join(root, 'src')),
    ...listFiles(join(root, 'infra', 'lib')),
    ...ROOT_FILES.map((f) => join(root, f)),
  ]
    .map((file) => relative(root, file).split(sep).join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files) {
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(root, file)))
      .update('\0');
  }
  return hash.digest('hex');
}

export const fileDigest = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');
