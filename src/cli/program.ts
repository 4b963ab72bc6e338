/**
 * The `scalegate` program. Each command's flags and presentation live in src/cli/<command>.ts; the
 * work itself in src/commands. Exit codes: 0 ok or warn, 1 the finding the command exists to
 * catch, 2 usage error or refused input (never a stack trace), 3 an operational failure (an AWS call
 * or the network: the message names the operation, the resource and the region). See
 * docs/exit-codes.md.
 */
import { Command, CommanderError } from 'commander';
import { isOperationalError, isUsageError } from '../model/errors.js';
import { COMMAND_NAMES, type CommandName } from '../options/commands.js';
import { VERSION } from '../version.js';
import { registerCompare } from './compare.js';
import { registerDeploy } from './deploy.js';
import { registerDrift } from './drift.js';
import { registerDrill } from './drill.js';
import { registerGate } from './gate.js';
import { registerGoodput } from './goodput.js';
import { registerLocalUp } from './local.js';
import { registerLocalApply } from './local-apply.js';
import { registerMerge } from './merge.js';
import { registerPlan } from './plan.js';
import { registerQmax } from './qmax.js';
import { registerRehearse } from './rehearse.js';
import { registerThaw } from './thaw.js';
import { registerTraceImport, registerTraceShape, registerTraceShow } from './trace.js';
import { registerTtotal } from './ttotal.js';
import { registerTune } from './tune.js';
import { registerValidate } from './validate.js';

/** How each command of the registry (src/options/commands.ts) is put on the command line. */
const REGISTER: Record<CommandName, (program: Command) => void> = {
  rehearse: registerRehearse,
  drift: registerDrift,
  qmax: registerQmax,
  goodput: registerGoodput,
  merge: registerMerge,
  ttotal: registerTtotal,
  plan: registerPlan,
  tune: registerTune,
  compare: registerCompare,
  validate: registerValidate,
  drill: registerDrill,
  thaw: registerThaw,
  gate: registerGate,
  deploy: registerDeploy,
  local: registerLocalUp,
  'local-apply': registerLocalApply,
  'trace-import': registerTraceImport,
  'trace-shape': registerTraceShape,
  'trace-show': registerTraceShow,
};

export function buildProgram(): Command {
  const program = new Command('scalegate')
    .description(
      'Measured autoscaling for latency-sensitive SageMaker endpoints: measure Q_max and T_total, derive the policy, gate the deploy.',
    )
    .version(VERSION)
    .showHelpAfterError('(run with --help for usage)')
    // A command's options end where its subcommand begins (`drill merge ... --out F` is the merge's).
    .enablePositionalOptions()
    .exitOverride()
    .configureOutput({ outputError: (text, write) => write(`scalegate: ${text.replace(/^error: /, '')}`) });
  // In the order of the chain: drift -> qmax (goodput, merge) -> ttotal -> plan -> (deploy) -> validate -> drill.
  for (const name of COMMAND_NAMES) REGISTER[name](program);
  for (const command of program.commands) command.exitOverride();
  return program;
}

export async function main(argv: string[]): Promise<void> {
  try {
    await buildProgram().parseAsync(argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // Help and version are not errors; every other commander error is a usage mistake.
      process.exitCode =
        e.code === 'commander.helpDisplayed' || e.code === 'commander.version' ? 0 : e.exitCode === 0 ? 0 : 2;
      return;
    }
    if (isUsageError(e)) {
      process.stderr.write(`scalegate: ${e.message}\n`);
      process.exitCode = 2;
      return;
    }
    if (isOperationalError(e)) {
      const kind = e.name === 'OperationalError' ? '' : ` (${e.name})`;
      process.stderr.write(`scalegate: operational error: ${e.message}${kind}\n`);
      if (process.env.SCALEGATE_DEBUG) process.stderr.write(`${e.stack}\n`);
      process.exitCode = 3;
      return;
    }
    process.stderr.write(`scalegate: ${(e as Error).message ?? String(e)}\n`);
    if (process.env.SCALEGATE_DEBUG) process.stderr.write(`${(e as Error).stack}\n`);
    process.exitCode = 1;
  }
}
