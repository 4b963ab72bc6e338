/**
 * The action's inputs, read the way the runner passes them (`INPUT_<NAME>` with the name
 * upper-cased and hyphens kept). Each command's inputs are its option table (src/options), the
 * same table its command-line flags come from; a bad input is the table's UsageError, naming the
 * input, so the step exits 2 with a message that says which `with:` key to fix. Besides them the
 * action has its own: `command`, and how it publishes (`comment`, `github-token`).
 */
import { usage } from '../model/index.js';
import { ATTEST_INPUTS, type AttestWhen } from '../options/attest.js';
import { ACTION_COMMANDS, ACTION_TABLES, type ActionCommand } from '../options/commands.js';
import { inAction, type OptionSpec, type OptionTable, type OptionValues, text } from '../options/spec.js';

export { ACTION_COMMANDS, ACTION_TABLES, type ActionCommand };

export type Env = Record<string, string | undefined>;

/** The action's own inputs (not a command's options): which command, how the step publishes. */
export const COMMAND_INPUT = text(
  'command',
  '<command>',
  `the scalegate command to run: ${ACTION_COMMANDS.join(' | ')}. A command this version of the action cannot run is refused (exit 2, "not available in this version"), never imitated`,
);

export const PUBLISH_INPUTS = {
  comment: text(
    'comment',
    '<when>',
    "post or update the model's PR comment: true, false, or auto (on for pull_request and pull_request_target events)",
    { default: 'auto' },
  ),
  githubToken: text(
    'github-token',
    '<token>',
    "token for the PR comment and the base branch's plan (pull-requests write, contents read); the comment is found by its hidden marker and this token's identity",
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, evaluated by the runner
    { default: '${{ github.token }}' },
  ),
  ...ATTEST_INPUTS,
} as const satisfies OptionTable;

/** What core.getInput does, over an explicit environment (tests and the runner alike). */
export function rawInput(env: Env, name: string): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** One input: empty means not given (its literal default, if it has one); else the table's parse. */
function readInput(env: Env, spec: OptionSpec<unknown>): unknown {
  const raw = rawInput(env, spec.name);
  if (raw === '') return spec.default;
  return spec.parse(raw);
}

/** The inputs of a command's option table, as the fields of its input. */
export function readOptionInputs<T extends OptionTable>(env: Env, table: T): OptionValues<T> {
  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(table)) {
    if (!inAction(spec)) continue;
    const value = readInput(env, spec);
    if (value !== undefined) values[key] = value;
  }
  return values as OptionValues<T>;
}

export function readCommand(env: Env): ActionCommand {
  const command = rawInput(env, COMMAND_INPUT.name);
  if (command === '') throw usage`input command: required (one of ${ACTION_COMMANDS.join(', ')}).`;
  if (!(ACTION_COMMANDS as readonly string[]).includes(command)) {
    throw usage`input command: one of ${ACTION_COMMANDS.join(', ')}, got "${command}".`;
  }
  return command as ActionCommand;
}

export interface PublishInputs {
  /** `auto` (the default) means: on for pull_request events, off otherwise. */
  comment: 'auto' | boolean;
  githubToken: string | undefined;
  /** Attest the artifacts the step writes: auto (when the job can get an OIDC token), true, false. */
  attest: AttestWhen;
}

export function readPublishInputs(env: Env): PublishInputs {
  const comment = rawInput(env, 'comment') || 'auto';
  if (!['auto', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE'].includes(comment)) {
    throw usage`input comment: needs true, false or auto, got "${comment}".`;
  }
  return {
    comment: comment === 'auto' ? 'auto' : comment.toLowerCase() === 'true',
    githubToken: rawInput(env, 'github-token') || undefined,
    attest: ATTEST_INPUTS.attest.parse(rawInput(env, 'attest') || 'auto'),
  };
}

/** Pull-request events, where `comment: auto` comments. */
export const PULL_REQUEST_EVENTS: ReadonlySet<string> = new Set(['pull_request', 'pull_request_target']);

export function commentEnabled(
  inputs: Pick<PublishInputs, 'comment'>,
  eventName: string | undefined,
): boolean {
  if (inputs.comment === 'auto') return eventName !== undefined && PULL_REQUEST_EVENTS.has(eventName);
  return inputs.comment;
}
