import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runValidate } from '../commands/validate.js';
import { addModelOptions, jsonOption, loadModelContext, type ModelOptions, present } from './shared.js';

interface ValidateFlags extends ModelOptions {
  plan: string;
  out?: string;
  json?: boolean;
}

export function registerValidate(program: Command): void {
  const command = program
    .command('validate')
    .summary('read-only: does every deployed scaling parameter equal the plan?')
    .description(
      "Read-only check after a deploy: min/max capacity, no suspension, the scale-out policy's metric, TargetValue, ScaleOutCooldown and DisableScaleIn, the scale-in policy's adjustment, Cooldown and its alarm (metric, statistic, period, evaluation periods, threshold, comparison, missing data, and that it invokes the policy), the container's MAX_QUEUE_DEPTH, the observability alarms (service time at the measured TTFAB p95 at concurrency 1), the routing strategy, and the deployed image and instance type against the plan's fingerprint. Policies or scalegate alarms the plan does not declare count as mismatches. Writes artifacts/validate-<model>.json. Exit codes: 0 clean, 1 mismatch (each parameter named), 2 refused input.",
    );
  addModelOptions(command);
  command
    .requiredOption('--plan <file>', 'the plan that was deployed (from `scalegate plan`)')
    .option('--out <file>', 'where to write the validate artifact (default: artifacts/validate-<model>.json)')
    .addOption(jsonOption())
    .action(async (flags: ValidateFlags) => {
      const context = loadModelContext(flags);
      await withAwsClients({ region: context.region }, async (clients) => {
        const result = await runValidate({
          clients,
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
