/**
 * The command registry: every command once, in the order of the chain (drift -> qmax (goodput,
 * merge) -> ttotal -> plan -> (deploy) -> validate -> drill), with its option table and where it
 * runs. The CLI registers its commands in this order, the action runs the ones marked `action`,
 * action.yml lists them, a composite action exists for each `composite` one, and the commands
 * that freeze an endpoint are the `freezes` ones. A new command is one more row here.
 */
import { COMPARE_OPTIONS } from './compare.js';
import { DEPLOY_OPTIONS } from './deploy.js';
import { DRIFT_OPTIONS } from './drift.js';
import { DRILL_OPTIONS } from './drill.js';
import { GATE_OPTIONS } from './gate.js';
import { GOODPUT_OPTIONS } from './goodput.js';
import { LOCAL_APPLY_OPTIONS } from './local-apply.js';
import { MERGE_OPTIONS } from './merge.js';
import { PLAN_OPTIONS } from './plan.js';
import { QMAX_OPTIONS } from './qmax.js';
import { REHEARSE_OPTIONS } from './rehearse.js';
import type { OptionTable } from './spec.js';
import { THAW_OPTIONS } from './thaw.js';
import { TRACE_IMPORT_OPTIONS, TRACE_SHAPE_OPTIONS, TRACE_SHOW_OPTIONS } from './trace.js';
import { TTOTAL_OPTIONS } from './ttotal.js';
import { TUNE_OPTIONS } from './tune.js';
import { VALIDATE_OPTIONS } from './validate.js';

export interface CommandDeclaration {
  /** Its option table (the CLI's flags, the action's inputs). null: no table of its own. */
  readonly options: OptionTable | null;
  /** The action runs it (`with: command:`). */
  readonly action: boolean;
  /** It has a composite action, actions/<command>/action.yml (thaw runs in the post step instead). */
  readonly composite: boolean;
  /** It freezes the endpoint while it measures (journal first, restored on every exit). */
  readonly freezes: boolean;
}

const cliOnly = (options: OptionTable | null) =>
  ({ options, action: false, composite: false, freezes: false }) as const;
const step = <F extends boolean = false>(options: OptionTable, freezes = false as F) =>
  ({ options, action: true, composite: true, freezes }) as const;

/** Every command, in the order of the chain (the CLI's --help order). */
export const COMMANDS = {
  rehearse: cliOnly(REHEARSE_OPTIONS),
  drift: step(DRIFT_OPTIONS),
  qmax: step(QMAX_OPTIONS, true as const),
  goodput: step(GOODPUT_OPTIONS, true as const),
  merge: cliOnly(MERGE_OPTIONS),
  ttotal: step(TTOTAL_OPTIONS, true as const),
  plan: step(PLAN_OPTIONS),
  tune: step(TUNE_OPTIONS),
  compare: cliOnly(COMPARE_OPTIONS),
  validate: step(VALIDATE_OPTIONS),
  drill: step(DRILL_OPTIONS),
  thaw: { ...step(THAW_OPTIONS), composite: false as const },
  gate: step(GATE_OPTIONS),
  deploy: cliOnly(DEPLOY_OPTIONS),
  local: cliOnly(null),
  'local-apply': cliOnly(LOCAL_APPLY_OPTIONS),
  'trace-import': cliOnly(TRACE_IMPORT_OPTIONS),
  'trace-shape': cliOnly(TRACE_SHAPE_OPTIONS),
  'trace-show': cliOnly(TRACE_SHOW_OPTIONS),
} as const satisfies Record<string, CommandDeclaration>;

export type CommandName = keyof typeof COMMANDS;

/** Every command name, in the chain's order. */
export const COMMAND_NAMES = Object.keys(COMMANDS) as CommandName[];

/** The names of the commands whose declaration has `flag` true. */
type Where<K extends 'action' | 'composite' | 'freezes'> = {
  [N in CommandName]: (typeof COMMANDS)[N][K] extends true ? N : never;
}[CommandName];

const namesWhere = <K extends 'action' | 'composite' | 'freezes'>(flag: K): readonly Where<K>[] =>
  COMMAND_NAMES.filter((name) => COMMANDS[name][flag]) as Where<K>[];

/** The commands the action runs, in the chain's order. */
export type ActionCommand = Where<'action'>;
export const ACTION_COMMANDS = namesWhere('action');

/** The steps that have a composite action. */
export const COMPOSITE_STEPS = namesWhere('composite');

/** The commands that freeze an endpoint while they measure. */
export type FreezingCommand = Where<'freezes'>;
export const FREEZING_COMMANDS = namesWhere('freezes');

/** The option table of each command the action can run. */
export const ACTION_TABLES = Object.fromEntries(
  ACTION_COMMANDS.map((name) => [name, COMMANDS[name].options]),
) as Record<ActionCommand, OptionTable>;
