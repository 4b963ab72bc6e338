import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import {
  ACTION_COMMANDS,
  COMMAND_NAMES,
  COMPOSITE_STEPS,
  FREEZING_COMMANDS,
} from '../../src/options/commands.js';
import { repoRoot } from '../helpers/anchor.js';

describe('the command registry', () => {
  it('is the CLI: every command registered once, in the registry order (local apply after it, trace import, shape and show in their group)', () => {
    // `deploy` registers its inverse `destroy` too; `local-apply` is `local apply`; the `trace`
    // group has no row of its own, only its subcommands (`trace-import` is `trace import`).
    const names = buildProgram().commands.flatMap((c) =>
      c.name() === 'destroy'
        ? []
        : c.name() === 'local'
          ? ['local', ...c.commands.filter((s) => s.name() === 'apply').map(() => 'local-apply')]
          : c.name() === 'trace'
            ? c.commands.map((s) => `trace-${s.name()}`)
            : [c.name()],
    );
    expect(names).toEqual(COMMAND_NAMES);
  });

  it('derives the action list, the composite actions and the freezing commands', () => {
    expect(ACTION_COMMANDS).toEqual([
      'drift',
      'qmax',
      'goodput',
      'ttotal',
      'plan',
      'tune',
      'validate',
      'drill',
      'thaw',
      'gate',
    ]);
    expect(FREEZING_COMMANDS).toEqual(['qmax', 'goodput', 'ttotal']);
    const dirs = readdirSync(join(repoRoot, 'actions'), { withFileTypes: true })
      .filter((d) => d.isDirectory() && existsSync(join(repoRoot, 'actions', d.name, 'action.yml')))
      .map((d) => d.name);
    for (const step of COMPOSITE_STEPS) expect(dirs).toContain(step);
  });
});
