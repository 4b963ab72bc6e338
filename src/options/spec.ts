/**
 * An option of a command, declared once: its name (the `--flag` of the CLI and the `with:` input
 * of the action), what it sets on the command's input, its description and default, and how a
 * given value is parsed and checked. src/cli derives the commander flags from a command's table,
 * src/action reads its inputs from the same table, and the action.yml inputs sections are
 * generated from it (scripts/action-yml.ts), so an option exists in one place.
 *
 * A table is a record keyed by the field of the command's input the option sets.
 */
import { subject, type UsageError, usage } from '../model/errors.js';

export interface OptionSpec<T> {
  /** Flag and input name, kebab-case: `slo-ms` is `--slo-ms <ms>` and `with: slo-ms:`. */
  readonly name: string;
  /** The value's placeholder in --help (`<ms>`); absent for a switch (boolean). */
  readonly arg?: string;
  /** What it does, lower-case first, no final period: the --help line and the action.yml description. */
  readonly description: string;
  /** A literal default both surfaces apply (commander's default and action.yml's). @default none */
  readonly default?: string | boolean;
  /** The default in words, when the command works it out (`the model config's slo_ms`). @default none */
  readonly defaultText?: string;
  /** On the command line: absent (`false`), mandatory, or a `--no-<name>` switch for an on-by-default boolean. @default a plain optional flag */
  readonly cli?: false | { readonly required?: boolean; readonly negated?: string };
  /** In the action: absent (`false`), or with a default of its own (discovered artifacts). @default an input like the flag */
  readonly action?: false | { readonly defaultText?: string };
  /** Allowed values (commander checks them on the command line; `parse` in the action). @default any */
  readonly choices?: readonly string[];
  /** The value as given; throws a UsageError naming the option. */
  parse(raw: string): T;
}

// biome-ignore lint/suspicious/noExplicitAny: a table holds specs of every value type
export type OptionTable = Readonly<Record<string, OptionSpec<any>>>;

/** The values a table yields: each key optional (absent when not given and without a literal default). */
export type OptionValues<T extends OptionTable> = {
  -readonly [K in keyof T]?: T[K] extends OptionSpec<infer V> ? V : never;
};

type Extra = Partial<Pick<OptionSpec<unknown>, 'default' | 'defaultText' | 'cli' | 'action'>>;

const refuse = (name: string, what: string, raw: string): UsageError =>
  usage`${subject(name)} needs ${what}, got "${raw}".`;

export function text(name: string, arg: string, description: string, extra: Extra = {}): OptionSpec<string> {
  return { name, arg, description, ...extra, parse: (raw) => raw };
}

const NUMBER_CHECKS = {
  any: { test: Number.isFinite, what: 'a number' },
  positive: { test: (n: number) => n > 0, what: 'a positive number' },
  nonNegative: { test: (n: number) => n >= 0, what: 'a number >= 0' },
  positiveInteger: { test: (n: number) => Number.isInteger(n) && n > 0, what: 'a positive integer' },
} as const;

export function number(
  name: string,
  arg: string,
  check: keyof typeof NUMBER_CHECKS,
  description: string,
  extra: Extra = {},
): OptionSpec<number> {
  const { test, what } = NUMBER_CHECKS[check];
  return {
    name,
    arg,
    description,
    ...extra,
    parse: (raw) => {
      const n = Number(raw);
      if (raw.trim() === '' || !Number.isFinite(n) || !test(n)) throw refuse(name, what, raw);
      return n;
    },
  };
}

/** YAML 1.2 core-schema booleans, as the runner passes them (core.getBooleanInput). */
function parseBoolean(name: string, raw: string): boolean {
  if (['true', 'True', 'TRUE'].includes(raw)) return true;
  if (['false', 'False', 'FALSE'].includes(raw)) return false;
  throw usage`${subject(name)} needs true or false, got "${raw}".`;
}

/** Off unless given: `--dry-run` / `dry-run: true`. */
export function flag(name: string, description: string, extra: Extra = {}): OptionSpec<boolean> {
  return { name, description, default: false, ...extra, parse: (raw) => parseBoolean(name, raw) };
}

/** On unless turned off: `--no-cloudwatch` (described by `off`) / `cloudwatch: false`. */
export function toggle(name: string, description: string, off: string): OptionSpec<boolean> {
  return { name, description, default: true, cli: { negated: off }, parse: (raw) => parseBoolean(name, raw) };
}

export function choice<C extends string>(
  name: string,
  arg: string,
  choices: readonly C[],
  description: string,
  extra: Extra = {},
): OptionSpec<C> {
  return {
    name,
    arg,
    description,
    choices,
    ...extra,
    parse: (raw) => {
      if (!(choices as readonly string[]).includes(raw)) {
        throw usage`${subject(name)} one of ${choices.join(', ')}, got "${raw}".`;
      }
      return raw as C;
    },
  };
}

/** Comma-separated positive integers (`1,5,10,20`). */
export function integerList(
  name: string,
  arg: string,
  description: string,
  extra: Extra = {},
): OptionSpec<number[]> {
  return {
    name,
    arg,
    description,
    ...extra,
    parse: (raw) => {
      const parts = raw.split(',').map((p) => p.trim());
      const values = parts.map(Number);
      if (parts.some((p) => p === '') || values.some((n) => !Number.isInteger(n) || n <= 0)) {
        throw refuse(name, 'comma-separated positive integers (e.g. 1,5,10,20)', raw);
      }
      return values;
    },
  };
}

/** A spec with its own parser (e.g. a transport name checked by src/load). */
export function parsed<T>(
  name: string,
  arg: string,
  parse: (raw: string) => T,
  description: string,
  extra: Extra = {},
): OptionSpec<T> {
  return { name, arg, description, ...extra, parse };
}

export const onCli = (spec: OptionSpec<unknown>): boolean => spec.cli !== false;
export const inAction = (spec: OptionSpec<unknown>): boolean => spec.action !== false;

/** The default as a surface documents it: the literal default, else the words. */
export function documentedDefault(spec: OptionSpec<unknown>, surface: 'cli' | 'action'): string | null {
  if (surface === 'action' && spec.action && spec.action.defaultText) return spec.action.defaultText;
  return spec.defaultText ?? null;
}
