/**
 * action.yml and every actions/<step>/action.yml declare exactly the inputs the option tables
 * define (src/options, the tables the CLI's flags come from too): names, defaults, descriptions,
 * and each composite forwards exactly those to the root action. A table edited without
 * `npm run build` (which regenerates the yml) fails here, instead of an input being silently empty.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  COMPOSITE_STEPS,
  compositeInputs,
  rootInputs,
  syncCompositeActionYml,
  syncRootActionYml,
} from '../../src/action/action-yml.js';
import { ACTION_COMMANDS, ACTION_TABLES, PUBLISH_INPUTS } from '../../src/action/inputs.js';
import { inAction } from '../../src/options/spec.js';
import { repoRoot } from '../helpers/anchor.js';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');

/** name -> { default, description } of a yml `inputs:` section, read from the text itself. */
function declaredInputs(yaml: string): Map<string, { default: string | null; description: string }> {
  const section = yaml.slice(yaml.indexOf('\ninputs:\n'), yaml.indexOf('\noutputs:\n'));
  const inputs = new Map<string, { default: string | null; description: string }>();
  for (const block of section.split(/\n(?= {2}[a-z][a-z0-9-]*:\n)/).slice(1)) {
    const name = /^ {2}([a-z][a-z0-9-]*):/.exec(block)?.[1] as string;
    const description = /description: >-\n {6}(.*)/.exec(block)?.[1] ?? '';
    const dflt = /\n {4}default: (.*)/.exec(block)?.[1] ?? null;
    inputs.set(name, { default: dflt, description });
  }
  return inputs;
}

describe('action.yml inputs are the option tables', () => {
  it('the root action declares command, every action option of every command, and how it publishes: no more, no less', () => {
    const yml = read('action.yml');
    const declared = declaredInputs(yml);
    const fromTables = new Set<string>(['command', ...Object.values(PUBLISH_INPUTS).map((s) => s.name)]);
    for (const command of ACTION_COMMANDS) {
      for (const spec of Object.values(ACTION_TABLES[command])) if (inAction(spec)) fromTables.add(spec.name);
    }
    expect([...declared.keys()].sort()).toEqual([...fromTables].sort());
    for (const input of rootInputs()) {
      expect(declared.get(input.name)?.description, input.name).toBe(input.description);
    }
    expect(syncRootActionYml(yml), 'action.yml is stale: run `npm run build`').toBe(yml);
  });

  it.each(COMPOSITE_STEPS)(
    'actions/%s declares its command table (names, defaults, descriptions) and forwards exactly it',
    (step) => {
      const yml = read(`actions/${step}/action.yml`);
      const declared = declaredInputs(yml);
      const expected = compositeInputs(step);
      expect([...declared.keys()]).toEqual(expected.map((i) => i.name));
      for (const input of expected) {
        const got = declared.get(input.name);
        expect(got?.description, `${step} ${input.name}`).toBe(input.description);
        const want = input.default === undefined ? '""' : String(input.default);
        expect(got?.default?.replace(/^"(.*)"$/, '$1'), `${step} ${input.name} default`).toBe(
          want.replace(/^"(.*)"$/, '$1'),
        );
      }
      const forwarded = [...yml.matchAll(/^ {8}([a-z-]+): \$\{\{ inputs\.([a-z-]+) \}\}$/gm)].map(
        (m) => m[1],
      );
      const table = Object.values(ACTION_TABLES[step])
        .filter(inAction)
        .map((s) => s.name);
      expect(forwarded).toEqual([...table, ...Object.values(PUBLISH_INPUTS).map((s) => s.name)]);
      expect(
        syncCompositeActionYml(step, yml),
        `actions/${step}/action.yml is stale: run \`npm run build\``,
      ).toBe(yml);
    },
  );

  it('a table default that differs between two commands sharing an input is refused (the root action has one default)', () => {
    const names = new Map<string, unknown>();
    for (const command of ACTION_COMMANDS) {
      for (const spec of Object.values(ACTION_TABLES[command])) {
        if (!inAction(spec)) continue;
        if (names.has(spec.name)) expect(spec.default, spec.name).toBe(names.get(spec.name));
        names.set(spec.name, spec.default);
      }
    }
    expect(() => rootInputs()).not.toThrow();
  });
});
