import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runDrift } from '../commands/drift.js';
import { loadModelContext } from '../model/index.js';
import { DRIFT_OPTIONS } from '../options/drift.js';
import { addOptions, optionValues } from './options.js';
import { artifactsDirFor, jsonOption, present, stderrProgress } from './shared.js';

export function registerDrift(program: Command): void {
  const command = program
    .command('drift')
    .summary('read-only preflight: is the deployed scaling state what the repo declares? (preflight-ok)')
    .description(
      'Read-only preflight, run before every measurement and deploy. Drift: the endpoint not InService or desired != current, any scaling suspension flag set, a thaw journal left behind by an aborted run, scaling policies or scalegate alarms that belong to no declared model, scalable targets with scalegate policies on endpoints the config does not declare; with --plan also a missing scalable target and every deployed policy parameter that differs from the plan. Alarms in INSUFFICIENT_DATA are warnings. Prints `preflight-ok` when clean. Writes artifacts/drift-<model>.json. Exit codes: 0 preflight-ok, 1 drift (each finding with its remediation), 2 refused input, 3 an AWS call or the network failed (docs/exit-codes.md).',
    );
  addOptions(command, DRIFT_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(DRIFT_OPTIONS, flags);
      const context = loadModelContext(values);
      const result = await withAwsClients({ region: context.region }, async (clients) =>
        runDrift(
          { ...values, ...context, ...(await artifactsDirFor(values.artifactsDir, clients, values.outFile)) },
          { clients, progress: stderrProgress() },
        ),
      );
      present(result, { json: flags.json === true });
    });
}
