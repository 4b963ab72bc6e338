/**
 * The `inputs:` sections of action.yml and of each actions/<step>/action.yml, and the `with:`
 * block through which a composite passes its inputs to the root action, rendered from the option
 * tables (src/options) the entry reads. scripts/action-yml.ts writes them (`npm run build`);
 * test/action/action-yml.test.ts fails when a file no longer says what the tables say.
 */
import { COMPOSITE_STEPS } from '../options/commands.js';
import { documentedDefault, inAction, type OptionSpec, type OptionTable, text } from '../options/spec.js';
import {
  ACTION_COMMANDS,
  ACTION_TABLES,
  type ActionCommand,
  COMMAND_INPUT,
  PUBLISH_INPUTS,
} from './inputs.js';

/** Inputs only the composite actions have (read by their shell steps): what they do with the files written. */
export const COMPOSITE_INPUTS = {
  'commit-token': text(
    'commit-token',
    '<token>',
    'token the commit step pushes with (contents write), given to that step alone and never persisted: check out with `persist-credentials: false`. A GitHub App token makes the artifact commit start workflows (CI on it); the calibrate workflow skips pushes by bots',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a GitHub expression, evaluated by the runner
    { default: '${{ github.token }}' },
  ),
  commit: text(
    'commit',
    '<bool>',
    'commit new or changed artifacts to the branch the run is about (skipped on fork PRs, tags, and when nothing changed)',
    { default: true },
  ),
  upload: text('upload', '<bool>', 'upload the artifacts the step wrote as a workflow artifact', {
    default: true,
  }),
} as const satisfies OptionTable;

/** The steps that have a composite action (thaw runs in the post step instead). */
export { COMPOSITE_STEPS };

interface InputEntry {
  name: string;
  description: string;
  required: boolean;
  default: string | boolean | undefined;
}

/** A sentence for action.yml: capitalised (unless it starts with a name), the default said after it. */
function sentence(spec: OptionSpec<unknown>): string {
  const text =
    /^[a-z]+\b/.test(spec.description) && !/^(qmax|ttotal|plan|drift)\b/.test(spec.description)
      ? spec.description.charAt(0).toUpperCase() + spec.description.slice(1)
      : spec.description;
  const choices = spec.choices ? ` (${spec.choices.join(' | ')})` : '';
  const words = documentedDefault(spec, 'action');
  return words ? `${text}${choices}. Default - ${words}.` : `${text}${choices}.`;
}

const entry = (spec: OptionSpec<unknown>, description = sentence(spec)): InputEntry => ({
  name: spec.name,
  description,
  required: false,
  default: spec.default,
});

const actionSpecs = (table: OptionTable): OptionSpec<unknown>[] => Object.values(table).filter(inAction);

/** The inputs of the composite action of `step`: its options, then how it publishes, commits and uploads. */
export function compositeInputs(step: ActionCommand): InputEntry[] {
  return [
    ...actionSpecs(ACTION_TABLES[step]).map((spec) => entry(spec)),
    ...Object.values(PUBLISH_INPUTS).map((spec) => entry(spec)),
    ...Object.values(COMPOSITE_INPUTS).map((spec) => entry(spec)),
  ];
}

/**
 * The inputs of the root action: `command`, every command's options (an input not every command
 * takes says which do, `qmax, ttotal - ...`, and each meaning where they differ), then how it publishes.
 */
export function rootInputs(): InputEntry[] {
  const byName = new Map<string, { spec: OptionSpec<unknown>; uses: { command: string; text: string }[] }>();
  for (const command of ACTION_COMMANDS) {
    for (const spec of actionSpecs(ACTION_TABLES[command])) {
      const seen = byName.get(spec.name);
      if (seen && seen.spec.default !== spec.default) {
        throw new Error(`input ${spec.name}: ${command} gives it another default than the other commands`);
      }
      const use = { command, text: sentence(spec) };
      if (seen) seen.uses.push(use);
      else byName.set(spec.name, { spec, uses: [use] });
    }
  }
  const options = [...byName.values()].map(({ spec, uses }) => {
    const texts = [...new Set(uses.map((u) => u.text))];
    const description =
      texts.length === 1 && uses.length === ACTION_COMMANDS.length
        ? (texts[0] as string)
        : texts
            .map(
              (t) =>
                `${uses
                  .filter((u) => u.text === t)
                  .map((u) => u.command)
                  .join(', ')} - ${t}`,
            )
            .join(' ');
    return entry(spec, description);
  });
  return [
    { name: COMMAND_INPUT.name, description: sentence(COMMAND_INPUT), required: true, default: undefined },
    ...options,
    ...Object.values(PUBLISH_INPUTS).map((spec) => entry(spec)),
  ];
}

function yamlScalar(value: string | boolean | undefined): string {
  if (value === undefined) return '""';
  if (typeof value === 'boolean') return `"${value}"`;
  if (value === '' || ['true', 'false', 'null', 'yes', 'no'].includes(value) || /^[\d.+-]/.test(value)) {
    return JSON.stringify(value);
  }
  return /^[\w./${} -]+$/.test(value) ? value : JSON.stringify(value);
}

/** The `inputs:` section, up to (not including) the blank line before `outputs:`. */
export function renderInputs(inputs: readonly InputEntry[]): string {
  const lines = ['inputs:'];
  for (const i of inputs) {
    lines.push(`  ${i.name}:`, '    description: >-', `      ${i.description}`);
    lines.push(`    required: ${i.required}`);
    if (!i.required) lines.push(`    default: ${yamlScalar(i.default)}`);
  }
  return lines.join('\n');
}

/** The `with:` lines a composite passes to the root action: its command, then every input it forwards. */
export function renderWith(step: ActionCommand): string {
  const forwarded = [
    ...actionSpecs(ACTION_TABLES[step]).map((s) => s.name),
    ...Object.values(PUBLISH_INPUTS).map((s) => s.name),
  ];
  return [`        command: ${step}`, ...forwarded.map((n) => `        ${n}: \${{ inputs.${n} }}`)].join(
    '\n',
  );
}

function replaceBetween(text: string, start: RegExp, end: RegExp, replacement: string, file: string): string {
  const s = start.exec(text);
  if (!s) throw new Error(`${file}: no ${start} to replace`);
  const rest = text.slice(s.index);
  const e = end.exec(rest);
  if (!e) throw new Error(`${file}: no end ${end} after ${start}`);
  return text.slice(0, s.index) + replacement + rest.slice(e.index);
}

/** action.yml with its inputs section rendered from the tables. */
export function syncRootActionYml(text: string): string {
  return replaceBetween(text, /^inputs:\n/m, /\n\noutputs:\n/, renderInputs(rootInputs()), 'action.yml');
}

/** actions/<step>/action.yml with its inputs section and `with:` block rendered from the tables. */
export function syncCompositeActionYml(step: ActionCommand, text: string): string {
  const file = `actions/${step}/action.yml`;
  const inputs = replaceBetween(
    text,
    /^inputs:\n/m,
    /\n\noutputs:\n/,
    renderInputs(compositeInputs(step)),
    file,
  );
  return replaceBetween(inputs, /^ {8}command: [a-z]+\n/m, /\n\n/, renderWith(step), file);
}
