import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runDrift } from '../commands/drift.js';
import { addModelOptions, jsonOption, loadModelContext, type ModelOptions, present } from './shared.js';

interface DriftFlags extends ModelOptions {
  plan?: string;
  out?: string;
  json?: boolean;
}

export function registerDrift(program: Command): void {
  const command = program
    .command('drift')
    .summary('read-only preflight: is the deployed scaling state what the repo declares? (preflight-ok)')
    .description(
      'Read-only preflight, run before every measurement and deploy. Drift: the endpoint not InService or desired != current, any scaling suspension flag set, a thaw journal left behind by an aborted run, scaling policies or scalegate alarms that belong to no declared model, scalable targets with scalegate policies on endpoints the config does not declare; with --plan also a missing scalable target and every deployed policy parameter that differs from the plan. Alarms in INSUFFICIENT_DATA are warnings. Prints `preflight-ok` when clean. Writes artifacts/drift-<model>.json. Exit codes: 0 preflight-ok, 1 drift (each finding with its remediation), 2 refused input.',
    );
  addModelOptions(command);
  command
    .option(
      '--plan <file>',
      'also compare every deployed policy parameter with this plan (from `scalegate plan`)',
    )
    .option('--out <file>', 'where to write the drift artifact (default: artifacts/drift-<model>.json)')
    .addOption(jsonOption())
    .action(async (flags: DriftFlags) => {
      const context = loadModelContext(flags);
      await withAwsClients({ region: context.region }, async (clients) => {
        const result = await runDrift({
          clients,
          config: context.config,
          modelName: context.modelName,
          endpoint: context.endpoint,
          variant: context.variant,
          region: context.region,
          planFile: flags.plan,
          outFile: flags.out,
        });
        present(result, { json: flags.json });
      });
    });
}
