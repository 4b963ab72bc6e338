import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runValidate } from '../commands/validate.js';
import { loadModelContext } from '../model/index.js';
import { VALIDATE_OPTIONS } from '../options/validate.js';
import { addOptions, optionValues } from './options.js';
import { artifactsDirFor, jsonOption, present, stderrProgress } from './shared.js';

export function registerValidate(program: Command): void {
  const command = program
    .command('validate')
    .summary('read-only: does every deployed scaling parameter equal the plan?')
    .description(
      "Read-only check after a deploy: min/max capacity, no suspension, the scale-out policy's metric, TargetValue, ScaleOutCooldown and DisableScaleIn, the scale-in policy's adjustment, Cooldown and its alarm (metric, statistic, period, evaluation periods, threshold, comparison, missing data, and that it invokes the policy), the container's MAX_QUEUE_DEPTH, the observability alarms (service time at the measured TTFAB p95 at concurrency 1), the routing strategy, and the deployed image and instance type against the plan's fingerprint. Policies or scalegate alarms the plan does not declare count as mismatches. Writes artifacts/validate-<model>.json. Exit codes: 0 clean, 1 mismatch (each parameter named), 2 refused input, 3 an AWS call or the network failed (docs/exit-codes.md).",
    );
  addOptions(command, VALIDATE_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(VALIDATE_OPTIONS, flags);
      const context = loadModelContext(values);
      const result = await withAwsClients({ region: context.region }, async (clients) =>
        runValidate(
          { ...values, ...context, ...(await artifactsDirFor(values.artifactsDir, clients, values.outFile)) },
          { clients, progress: stderrProgress() },
        ),
      );
      present(result, { json: flags.json === true });
    });
}
