/**
 * The layout, drawn from the imports themselves (README, "Architecture"): dependencies point down
 * the list, there is no circle, the pure core does no I/O, the alarm and scaling rules
 * (src/autoscaling) import nothing else, the local SageMaker imports only itself and those rules and
 * only `rehearse` and `local up` import it, and no command grows past ~600 lines.
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

/**
 * Down the list: a layer may import its own and the ones before it. The option tables are data
 * (flags, inputs, defaults) below the commands, which read their defaults from them.
 */
const ORDER = [
  'leaf',
  'autoscaling',
  'model',
  'stats',
  'analysis',
  'plan',
  'sim',
  'load',
  'aws',
  'report',
  'options',
  'commands',
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

  it('keeps the local SageMaker apart: it imports only itself and src/autoscaling, and only rehearse and local up import it', () => {
    const outOfLocal = [...imports]
      .filter(([file]) => layerOf(file) === 'local')
      .flatMap(([file, targets]) =>
        targets.filter((t) => !['local', 'autoscaling'].includes(layerOf(t))).map((t) => `${file} -> ${t}`),
      );
    expect(outOfLocal).toEqual([]);
    const importers = [...imports]
      .filter(([file, targets]) => layerOf(file) !== 'local' && targets.some((t) => layerOf(t) === 'local'))
      .map(([file]) => file)
      .sort();
    expect(importers).toEqual(['cli/local.ts', 'commands/rehearse.ts']);
  });

  it('keeps the scaling rules one self-contained layer: src/autoscaling imports nothing outside itself', () => {
    const outside = [...imports]
      .filter(([file]) => layerOf(file) === 'autoscaling')
      .flatMap(([file, targets]) =>
        targets.filter((t) => layerOf(t) !== 'autoscaling').map((t) => `${file} -> ${t}`),
      );
    expect(outside).toEqual([]);
    const packages = files
      .filter((f) => layerOf(f) === 'autoscaling')
      .filter((f) => /from '(?!\.)[^']+'/.test(readFileSync(join(SRC, f), 'utf8')));
    expect(packages).toEqual([]);
  });

  it('keeps the pure core (autoscaling, stats, analysis, plan, sim) free of I/O', () => {
    const io = files
      .filter((f) => ['autoscaling', 'stats', 'analysis', 'plan', 'sim'].includes(layerOf(f)))
      .filter((f) =>
        /from '(node:(fs|http|https|net|child_process|timers\/promises)|@aws-sdk\/[^']+)'/.test(
          readFileSync(join(SRC, f), 'utf8').replace(/import type [^;]+;/g, ''),
        ),
      );
    expect(io).toEqual([]);
  });

  it('keeps the engines apart from the judging: src/load imports only model, stats and the leaves', () => {
    const judged = [...imports]
      .filter(([file]) => layerOf(file) === 'load')
      .flatMap(([file, targets]) =>
        targets
          .filter((t) => !['leaf', 'model', 'stats', 'load'].includes(layerOf(t)))
          .map((t) => `${file} -> ${t}`),
      );
    expect(judged).toEqual([]);
  });

  it('keeps the load families apart: closed loop, open loop and transports import none of each other', () => {
    const family = (file: string): string | null =>
      /^load\/(closed|open|transport)\//.exec(file)?.[1] ?? null;
    const across = [...imports].flatMap(([file, targets]) => {
      const from = family(file);
      if (from === null) return [];
      return targets.filter((t) => family(t) !== null && family(t) !== from).map((t) => `${file} -> ${t}`);
    });
    expect(across).toEqual([]);
  });

  /**
   * The one known exception: src/aws/policy.ts reads the policy shape of src/plan and the lag of
   * src/analysis/ttotal.ts. Its plan-side mapping belongs above src/aws; until it moves there,
   * these three arrows are the only ones allowed and any new one fails.
   */
  const AWS_KNOWN = [
    'aws/policy.ts -> analysis/ttotal.ts',
    'aws/policy.ts -> plan/deployed-rows.ts',
    'aws/policy.ts -> plan/policy-shape.ts',
  ];

  it('keeps src/aws thin: calls only, over model and the leaves (no plan, no analysis)', () => {
    const thick = [...imports]
      .filter(([file]) => layerOf(file) === 'aws')
      .flatMap(([file, targets]) =>
        targets.filter((t) => !['leaf', 'model', 'aws'].includes(layerOf(t))).map((t) => `${file} -> ${t}`),
      );
    expect(thick.filter((arrow) => !AWS_KNOWN.includes(arrow))).toEqual([]);
  });

  it('keeps the option tables data: they import no command (a default is declared in its table)', () => {
    const fromCommands = [...imports]
      .filter(([file]) => layerOf(file) === 'options')
      .flatMap(([file, targets]) =>
        targets.filter((t) => layerOf(t) === 'commands').map((t) => `${file} -> ${t}`),
      );
    expect(fromCommands).toEqual([]);
  });

  it('has no orphan: every module of src is imported by another, or is an entry point', () => {
    const entries = new Set([
      'cli.ts',
      'action/main.ts',
      'action/post.ts',
      // scripts/action-yml.ts (npm run build) and bench/coverage-openloop.ts run these.
      'action/action-yml.ts',
      'stats/open-loop-sim.ts',
      // bench/coverage.ts and test/stats/rung-decision-coverage.test.ts run the calibration class.
      'stats/closed-loop-class.ts',
      // bench/coverage-stall.ts and test/stats/stall-decision-coverage.test.ts run the stall class.
      'stats/stall-sim.ts',
      // Tested parsers waiting for the schedule/replay option (see the file's header).
      'load/open/schedule-file.ts',
    ]);
    const imported = new Set([...imports.values()].flat());
    const orphans = files.filter((f) => !imported.has(f) && !entries.has(f));
    expect(orphans).toEqual([]);
  });

  it('keeps every command an orchestrator: no file in src/commands over 600 lines', () => {
    const long = files
      .filter((f) => layerOf(f) === 'commands')
      .map((f) => ({ f, lines: readFileSync(join(SRC, f), 'utf8').split('\n').length }))
      .filter(({ lines }) => lines > 600);
    expect(long).toEqual([]);
  });
});
