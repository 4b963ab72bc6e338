/**
 * One option table per command, two surfaces: the commander flags (src/cli/options.ts) and the
 * action inputs (src/action/inputs.ts) come from the same spec, so a value means the same on both
 * and a bad value is refused with the same words, naming the option the way each surface spells it.
 */
import { Command, CommanderError } from 'commander';
import { describe, expect, it } from 'vitest';
import { readOptionInputs } from '../../src/action/inputs.js';
import { addOptions, optionValues } from '../../src/cli/options.js';
import { isUsageError, opt, subject, UsageError, usage } from '../../src/model/errors.js';
import { PLAN_OPTIONS } from '../../src/options/plan.js';
import { QMAX_OPTIONS } from '../../src/options/qmax.js';
import type { OptionTable } from '../../src/options/spec.js';
import { THAW_OPTIONS } from '../../src/options/thaw.js';
import { TTOTAL_OPTIONS } from '../../src/options/ttotal.js';
import { VALIDATE_OPTIONS } from '../../src/options/validate.js';

/** The values `argv` gives through the commander flags derived from `table` (or the refusal). */
function fromFlags(table: OptionTable, argv: string[]): { values?: Record<string, unknown>; error?: string } {
  let seen: Record<string, unknown> | undefined;
  const errors: string[] = [];
  const program = new Command('t')
    .exitOverride()
    .configureOutput({ writeErr: (s) => errors.push(s), writeOut: () => {} });
  addOptions(program, table).action((flags: Record<string, unknown>) => {
    seen = optionValues(table, flags);
  });
  try {
    program.parse(argv, { from: 'user' });
  } catch (e) {
    if (!(e instanceof CommanderError)) throw e;
    return { error: errors.join('') };
  }
  return { values: seen };
}

function refusal(run: () => unknown): UsageError {
  try {
    run();
  } catch (e) {
    if (isUsageError(e)) return e;
    throw e;
  }
  throw new Error('not refused');
}

const env = (inputs: Record<string, string>) =>
  Object.fromEntries(Object.entries(inputs).map(([k, v]) => [`INPUT_${k.toUpperCase()}`, v]));

describe('option tables', () => {
  it('gives the same values from flags and from action inputs (a value cannot mean two things)', () => {
    const flags = fromFlags(TTOTAL_OPTIONS, [
      '--qmax',
      'q.json',
      '--recovery-factor',
      '1.5',
      '--settle-s',
      '30',
      '--allow-config-mismatch',
    ]);
    const inputs = readOptionInputs(
      env({ qmax: 'q.json', 'recovery-factor': '1.5', 'settle-s': '30', 'allow-config-mismatch': 'true' }),
      TTOTAL_OPTIONS,
    );
    expect(flags.values).toMatchObject({
      qmaxFile: 'q.json',
      recoveryFactor: 1.5,
      settleS: 30,
      allowConfigMismatch: true,
    });
    expect(inputs).toMatchObject({
      qmaxFile: 'q.json',
      recoveryFactor: 1.5,
      settleS: 30,
      allowConfigMismatch: true,
    });
  });

  it('applies the literal defaults on both surfaces and leaves computed ones to the command', () => {
    expect(fromFlags(QMAX_OPTIONS, []).values).toEqual({
      configFile: 'scalegate.config.json',
      ladder: 'adaptive',
      cloudwatch: true,
    });
    expect(readOptionInputs(env({}), QMAX_OPTIONS)).toEqual({
      configFile: 'scalegate.config.json',
      artifactsDir: 'artifacts',
      ladder: 'adaptive',
      cloudwatch: true,
      allowProduction: false,
      dryRun: false,
    });
    expect(fromFlags(QMAX_OPTIONS, ['--no-cloudwatch']).values?.cloudwatch).toBe(false);
    expect(readOptionInputs(env({ cloudwatch: 'false' }), QMAX_OPTIONS).cloudwatch).toBe(false);
  });

  it('refuses a bad value with the same words on both surfaces, naming --flag or the input', () => {
    expect(fromFlags(TTOTAL_OPTIONS, ['--qmax', 'q', '--recovery-factor', '0']).error).toMatch(
      /--recovery-factor needs a positive number, got "0"/,
    );
    expect(() => readOptionInputs(env({ 'recovery-factor': '0' }), TTOTAL_OPTIONS)).toThrow(UsageError);
    const refused = refusal(() => readOptionInputs(env({ 'recovery-factor': '0' }), TTOTAL_OPTIONS));
    expect(refused.messageFor('action')).toBe('input recovery-factor: needs a positive number, got "0".');
    expect(() => readOptionInputs(env({ rungs: '1,,2' }), QMAX_OPTIONS)).toThrow(
      /rungs needs comma-separated positive integers/,
    );
    expect(() => readOptionInputs(env({ 'fail-on': 'never' }), PLAN_OPTIONS)).toThrow(
      /one of stop, warn, got "never"/,
    );
  });

  it('checks each command against its own table: settle-s is a window for ttotal (> 0) but a discarded start for qmax (>= 0)', () => {
    expect(readOptionInputs(env({ 'settle-s': '0' }), QMAX_OPTIONS).settleS).toBe(0);
    expect(() => readOptionInputs(env({ 'settle-s': '0' }), TTOTAL_OPTIONS)).toThrow(
      /settle-s needs a positive number/,
    );
  });

  it('keeps a command-line-only option off the action, and a required flag mandatory only on the command line', () => {
    expect(readOptionInputs(env({ target: 'http://x', prompts: 'p.txt' }), QMAX_OPTIONS)).not.toHaveProperty(
      'target',
    );
    expect(fromFlags(VALIDATE_OPTIONS, []).error).toMatch(/required option '--plan <file>' not specified/);
    expect(readOptionInputs(env({}), VALIDATE_OPTIONS)).not.toHaveProperty('planFile');
    // ttotal's --qmax is found when not given, on both surfaces (src/commands/discover.ts).
    expect(fromFlags(TTOTAL_OPTIONS, []).error).toBeUndefined();
    expect(readOptionInputs(env({}), TTOTAL_OPTIONS)).not.toHaveProperty('qmaxFile');
  });

  it('lets qmax and ttotal freeze production only when asked on either surface, and --force only on the command line', () => {
    for (const table of [QMAX_OPTIONS, TTOTAL_OPTIONS]) {
      const argv = table === TTOTAL_OPTIONS ? ['--qmax', 'q.json'] : [];
      expect(fromFlags(table, [...argv, '--allow-production']).values?.allowProduction).toBe(true);
      expect(fromFlags(table, argv).values?.allowProduction).toBeUndefined();
      expect(readOptionInputs(env({ 'allow-production': 'true' }), table).allowProduction).toBe(true);
      expect(readOptionInputs(env({}), table).allowProduction).toBe(false);
      expect(fromFlags(table, [...argv, '--force']).values?.force).toBe(true);
      expect(readOptionInputs(env({ force: 'true' }), table)).not.toHaveProperty('force');
    }
    expect(readOptionInputs(env({ 'clear-suspension': 'true' }), THAW_OPTIONS).clearSuspension).toBe(true);
    expect(readOptionInputs(env({}), THAW_OPTIONS).clearSuspension).toBe(false);
  });
});

describe('messages that name options', () => {
  it('spell an option --flag on the command line and as an input in the action, from one wording', () => {
    const e = usage`qmax: ${opt('rungs')} lists the rungs of a fixed ladder (${opt('ladder', 'fixed')}).`;
    expect(e.message).toBe('qmax: --rungs lists the rungs of a fixed ladder (--ladder fixed).');
    expect(e.messageFor('cli')).toBe(e.message);
    expect(e.messageFor('action')).toBe(
      'qmax: input rungs lists the rungs of a fixed ladder (input ladder (fixed)).',
    );
    expect(usage`${subject('slo-ms')} needs a positive number.`.messageFor('action')).toBe(
      'input slo-ms: needs a positive number.',
    );
    expect(new UsageError('plain text').messageFor('action')).toBe('plain text');
  });
});
