import type { Command } from 'commander';
import { withLoadClients } from '../aws/clients.js';
import { InterruptedError } from '../commands/freeze.js';
import { GOODPUT_DEFAULTS, type GoodputInput, runGoodput } from '../commands/goodput.js';
import { loadsThroughAws } from '../load/transport/transports.js';
import { loadModelContext } from '../model/index.js';
import { GOODPUT_OPTIONS } from '../options/goodput.js';
import { addOptions, optionValues } from './options.js';
import {
  artifactsDirFor,
  commandLine,
  jsonOption,
  present,
  presentInterruption,
  stderrProgress,
} from './shared.js';

export function registerGoodput(program: Command): void {
  const command = program
    .command('goodput')
    .summary(
      'measure lambda_max: the highest Poisson arrival rate one instance holds inside the p95 TTFAB SLO',
    )
    .description(
      'Open-loop ladder of Poisson arrival rates against one frozen instance of the endpoint (or a container directly with --target). ' +
        'Requests are sent on a seeded schedule whatever the server does; TTFAB is measured from each intended send time (coordinated-omission correct). ' +
        'A rate passes when its p95 TTFAB is decided inside the SLO (log-scale sectioning into 5 batches of >= 30 (1 + L)^2 arrivals, L the mean requests in system) ' +
        'with 503 overflows and errors within --max-overflow-fraction / --max-error-fraction; lambda_max is the highest pass, bracketed by a measured breach. ' +
        'Adaptive by default (x2 from --start-rate, then bisection to --resolution); --rates for a fixed ladder. --shard i/n with --start-at runs one share of every rung ' +
        '(shard 0 freezes the endpoint); `scalegate merge` combines the shard files. The endpoint is frozen as qmax freezes it and restored on every exit, SIGINT and SIGTERM included. ' +
        'Progress goes to stderr. Exit codes: 0 measured, 1 the ladder could not run (or a restore failed), 2 refused input, 3 an AWS call or the network failed (docs/exit-codes.md); 130/143 interrupted (restored).',
    );
  addOptions(command, GOODPUT_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(GOODPUT_OPTIONS, flags);
      const context = loadModelContext(values);
      const input: GoodputInput = { ...values, ...context, commandLine: commandLine() };
      const throughAws = loadsThroughAws(values);
      const maxConcurrency = values.maxOutstanding ?? GOODPUT_DEFAULTS.maxOutstanding;
      try {
        const result = await withLoadClients(
          throughAws,
          { region: context.region, maxConcurrency },
          async (clients) =>
            runGoodput(
              { ...input, ...(await artifactsDirFor(values.artifactsDir, clients, values.outFile)) },
              { progress: stderrProgress(), ...(clients ? { clients } : {}) },
            ),
        );
        present(result, { json: flags.json === true });
      } catch (e) {
        if (e instanceof InterruptedError) return presentInterruption('goodput', e);
        throw e;
      }
    });
}
