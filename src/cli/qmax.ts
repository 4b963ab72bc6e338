import { existsSync } from 'node:fs';
import type { Command } from 'commander';
import { withLoadClients } from '../aws/clients.js';
import { InterruptedError } from '../commands/freeze.js';
import { LADDER_DEFAULTS, type QmaxInput, runQmax } from '../commands/qmax.js';
import { loadsThroughAws } from '../load/transport/transports.js';
import {
  CONFIG_FILE,
  directTargetContext,
  loadModelContext,
  type ModelContext,
  readConfigFile,
} from '../model/index.js';
import { QMAX_OPTIONS } from '../options/qmax.js';
import type { OptionValues } from '../options/spec.js';
import { addOptions, optionValues } from './options.js';
import {
  artifactsDirFor,
  commandLine,
  jsonOption,
  present,
  presentInterruption,
  stderrProgress,
} from './shared.js';

export function registerQmax(program: Command): void {
  const command = program
    .command('qmax')
    .summary('measure Q_max: the highest concurrency one instance holds inside the p95 TTFAB SLO')
    .description(
      'Closed-loop concurrency ladder against one frozen instance of the endpoint (InvokeEndpointWithResponseStream), ' +
        'or against a container directly with --target. Adaptive by default: concurrency 1, then x2 until a rung fails, ' +
        'then bisection to --resolution; each rung ends once its window is settled and, at one of at most three looks, the ' +
        'confidence interval of its p95 (batch sectioning; 95 % for all looks together) lies wholly inside or outside the SLO. ' +
        'The endpoint is frozen (thaw journal first, scaling suspended, one ' +
        "instance) and restored on every exit, SIGINT and SIGTERM included. The model's own (production) endpoint is refused " +
        'before any AWS call unless --allow-production (the local SageMaker, AWS_ENDPOINT_URL on loopback, is exempt), and so ' +
        'is an endpoint another run has frozen or whose scaling is already suspended, unless --force. With --target and no ' +
        '--model, a config that declares several models is not needed: the measurement is recorded under a neutral name ' +
        'from the target (direct-HOST-PORT) and --slo-ms gives the SLO. Progress goes to stderr. ' +
        'Exit codes: 0 measured, 1 the ladder could not run (or a restore failed), 2 refused input, 3 an AWS call or the network failed (docs/exit-codes.md); 130/143 interrupted (restored).',
    );
  addOptions(command, QMAX_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(QMAX_OPTIONS, flags);
      const context = qmaxContext(values);
      const input: QmaxInput = { ...values, ...context, commandLine: commandLine() };
      const throughAws = loadsThroughAws(values);
      const maxConcurrency = values.maxConcurrency ?? LADDER_DEFAULTS.adaptive.maxConcurrency;
      try {
        const result = await withLoadClients(
          throughAws,
          { region: context.region, maxConcurrency },
          async (clients) =>
            runQmax(
              { ...input, ...(await artifactsDirFor(values.artifactsDir, clients, values.outFile)) },
              { progress: stderrProgress(), ...(clients ? { clients } : {}) },
            ),
        );
        present(result, { json: flags.json === true });
      } catch (e) {
        if (e instanceof InterruptedError) return presentInterruption('qmax', e);
        throw e;
      }
    });
}

/**
 * The model a qmax measures for. A container measured directly (--target) needs no model of the
 * config: without --model it is the config's only model, else (several, or no config file) a
 * neutral one named after the target, which claims nothing of any configured model.
 */
function qmaxContext(values: OptionValues<typeof QMAX_OPTIONS>): ModelContext & { imageDigest?: string } {
  if (!values.target || values.modelName) return loadModelContext(values);
  const file = values.configFile ?? CONFIG_FILE;
  if (file !== CONFIG_FILE || existsSync(file)) {
    if (Object.keys(readConfigFile(file).models).length === 1) return loadModelContext(values);
  }
  return directTargetContext(values.target, values.sloMs);
}
