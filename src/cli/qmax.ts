import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { InterruptedError } from '../commands/freeze.js';
import { LADDER_DEFAULTS, type QmaxInput, runQmax } from '../commands/qmax.js';
import { loadModelContext } from '../model/index.js';
import { QMAX_OPTIONS } from '../options/qmax.js';
import { addOptions, optionValues } from './options.js';
import { commandLine, jsonOption, present, presentInterruption, stderrProgress } from './shared.js';

export function registerQmax(program: Command): void {
  const command = program
    .command('qmax')
    .summary('measure Q_max: the highest concurrency one instance holds inside the p95 TTFAB SLO')
    .description(
      'Closed-loop concurrency ladder against one frozen instance of the endpoint (InvokeEndpointWithResponseStream), ' +
        'or against a container directly with --target. Adaptive by default: concurrency 1, then x2 until a rung fails, ' +
        'then bisection to --resolution; each rung ends once its window is settled and, at one of at most three looks, the ' +
        'confidence interval of its p95 (batch sectioning; 95 % for all looks together) lies wholly inside or outside the SLO. The endpoint is frozen (thaw journal first, scaling suspended, one ' +
        'instance) and restored on every exit, SIGINT and SIGTERM included. Progress goes to stderr. ' +
        'Exit codes: 0 measured, 1 error (or a restore that failed), 2 refused input; 130/143 interrupted (restored).',
    );
  addOptions(command, QMAX_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(QMAX_OPTIONS, flags);
      const context = loadModelContext(values);
      const input: QmaxInput = { ...values, ...context, commandLine: commandLine() };
      const live = !values.target && values.transport !== 'http';
      const deps = { progress: stderrProgress() };
      try {
        const result =
          live && !values.dryRun
            ? await withAwsClients(
                {
                  region: context.region,
                  maxConcurrency: values.maxConcurrency ?? LADDER_DEFAULTS.adaptive.maxConcurrency,
                },
                (clients) => runQmax(input, { ...deps, clients }),
              )
            : await runQmax(input, deps);
        present(result, { json: flags.json === true });
      } catch (e) {
        if (e instanceof InterruptedError) return presentInterruption('qmax', e);
        throw e;
      }
    });
}
