/**
 * Commander flags derived from a command's option table (src/options), and the values the flags
 * yield, keyed by the command input's fields. A bad value is refused by the table's own parser,
 * with the message the action gives too (the option spelled `--name`).
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { isUsageError } from '../model/errors.js';
import {
  documentedDefault,
  type OptionSpec,
  type OptionTable,
  type OptionValues,
  onCli,
} from '../options/spec.js';

/** commander's attribute for `--assume-t-total` (`assumeTTotal`) and `--no-cloudwatch` (`cloudwatch`). */
const attributeOf = (spec: OptionSpec<unknown>): string =>
  spec.name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase());

function cliOption(spec: OptionSpec<unknown>): Option {
  const negated = spec.cli ? spec.cli.negated : undefined;
  if (negated) return new Option(`--no-${spec.name}`, negated);
  const words = documentedDefault(spec, 'cli');
  const option = new Option(
    spec.arg ? `--${spec.name} ${spec.arg}` : `--${spec.name}`,
    words ? `${spec.description} (default: ${words})` : spec.description,
  );
  if (spec.arg) {
    if (spec.choices) option.choices(spec.choices);
    else
      option.argParser((raw: string) => {
        try {
          return spec.parse(raw);
        } catch (e) {
          if (isUsageError(e)) throw new InvalidArgumentError(e.messageFor('cli'));
          throw e;
        }
      });
    if (typeof spec.default === 'string') option.default(spec.default);
  }
  if (spec.cli !== undefined && spec.cli !== false && spec.cli.required) option.makeOptionMandatory();
  return option;
}

/** Adds every command-line option of `table` to `command`, in table order. */
export function addOptions(command: Command, table: OptionTable): Command {
  for (const spec of Object.values(table)) if (onCli(spec)) command.addOption(cliOption(spec));
  return command;
}

/** The parsed flags as the command input's fields (absent when not given and without a default). */
export function optionValues<T extends OptionTable>(
  table: T,
  flags: Record<string, unknown>,
): OptionValues<T> {
  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(table)) {
    if (!onCli(spec)) continue;
    const value = flags[attributeOf(spec)];
    if (value !== undefined) values[key] = value;
  }
  return values as OptionValues<T>;
}
