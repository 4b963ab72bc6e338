/**
 * The layout, drawn from the imports themselves (DESIGN.md, "Layout"): dependencies point down
 * the list, there is no circle, the pure core does no I/O, the local SageMaker imports nothing of
 * the product and only `rehearse` and `local up` import it, and no command grows past ~600 lines.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers/anchor.js';

const SRC = join(repoRoot, 'src');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

const files = sources(SRC).map((f) => relative(SRC, f));

/** Each module's imports of other modules of src (static and dynamic), as paths relative to src. */
const imports = new Map<string, string[]>(
  files.map((file) => {
    const text = readFileSync(join(SRC, file), 'utf8');
    const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1] as string);
    const targets = specifiers.map((s) =>
      relative(SRC, resolve(dirname(join(SRC, file)), s)).replace(/\.js$/, '.ts'),
    );
    return [file, targets];
  }),
);

/** The layer of a module: its directory under src (top-level files are leaves). */
const layerOf = (file: string): string => (file.includes('/') ? (file.split('/')[0] as string) : 'leaf');

/** Down the list: a layer may import its own and the ones before it. */
const ORDER = [
  'leaf',
  'model',
  'stats',
  'analysis',
  'plan',
  'load',
  'aws',
  'report',
  'commands',
  'options',
  'action',
  'cli',
];

describe('the import graph of src', () => {
  it('points down the layout list only (report never imports commands, action never imports cli)', () => {
    const upward: string[] = [];
    for (const [file, targets] of imports) {
      const from = layerOf(file);
      if (from === 'local' || file === 'cli.ts') continue;
      for (const target of targets) {
        const to = layerOf(target);
        if (to === 'local') continue; // judged below
        if (ORDER.indexOf(to) > ORDER.indexOf(from)) upward.push(`${file} -> ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no circle', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (file: string, path: string[]) => {
      if (state.get(file) === 'done') return;
      if (state.get(file) === 'open') {
        cycles.push([...path.slice(path.indexOf(file)), file].join(' -> '));
        return;
      }
      state.set(file, 'open');
      for (const target of imports.get(file) ?? []) visit(target, [...path, file]);
      state.set(file, 'done');
    };
    for (const file of files) visit(file, []);
    expect(cycles).toEqual([]);
  });

  it('keeps the local SageMaker apart: it imports nothing of the product, and only rehearse and local up import it', () => {
    const outOfLocal = [...imports]
      .filter(([file]) => layerOf(file) === 'local')
      .flatMap(([file, targets]) =>
        targets.filter((t) => layerOf(t) !== 'local').map((t) => `${file} -> ${t}`),
      );
    expect(outOfLocal).toEqual([]);
    const importers = [...imports]
      .filter(([file, targets]) => layerOf(file) !== 'local' && targets.some((t) => layerOf(t) === 'local'))
      .map(([file]) => file)
      .sort();
    expect(importers).toEqual(['cli/local.ts', 'commands/rehearse.ts']);
  });

  it('keeps the pure core (stats, analysis, plan) free of I/O', () => {
    const io = files
      .filter((f) => ['stats', 'analysis', 'plan'].includes(layerOf(f)))
      .filter((f) =>
        /from '(node:(fs|http|https|net|child_process|timers\/promises)|@aws-sdk\/[^']+)'/.test(
          readFileSync(join(SRC, f), 'utf8').replace(/import type [^;]+;/g, ''),
        ),
      );
    expect(io).toEqual([]);
  });

  it('keeps every command an orchestrator: no file in src/commands over 600 lines', () => {
    const long = files
      .filter((f) => layerOf(f) === 'commands')
      .map((f) => ({ f, lines: readFileSync(join(SRC, f), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
  });
});
