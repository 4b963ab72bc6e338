// Writes the inputs sections of action.yml and actions/<step>/action.yml (and each composite's
// `with:` block) from the option tables in src/options, so every input is declared where its flag
// is. Part of `npm run build`; test/action/action-yml.test.ts fails when a file is stale.
// Usage: tsx scripts/action-yml.ts
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPOSITE_STEPS, syncCompositeActionYml, syncRootActionYml } from '../src/action/action-yml.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function sync(file: string, render: (text: string) => string): void {
  const path = join(root, file);
  const before = readFileSync(path, 'utf8');
  const after = render(before);
  if (after !== before) {
    writeFileSync(path, after);
    console.log(`action-yml: wrote ${file}`);
  }
}

sync('action.yml', syncRootActionYml);
for (const step of COMPOSITE_STEPS)
  sync(`actions/${step}/action.yml`, (text) => syncCompositeActionYml(step, text));
