import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runCompare } from '../commands/compare.js';
import { loadModelContext } from '../model/index.js';
import { COMPARE_OPTIONS } from '../options/compare.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present, stderrProgress } from './shared.js';

export function registerCompare(program: Command): void {
  const command = program
    .command('compare')
    .summary('rank candidate instance types of a model by $ per 1M characters inside both SLOs')
    .description(
      "Read one model's candidate plans (the model's instance_type and each of its candidates[], each measured on its own calibration endpoint; every plan needs its cost block), check each instance type's endpoint-usage quota in Service Quotas against its plan's peak, and rank the candidates by $ per 1M characters at the surge-safe load (where the deployed fleet runs) among those that hold both SLOs (plan verdict not stop, the policy holds, playback continuity not failed). Writes compare-<model>.json and a frontier chart (cost per 1M characters vs SLO margin), prints the table, and copies the chosen plan to the model's committed plan path. Refuses (exit 2) a plan of another model, two plans of one fingerprint and a plan without a cost block. Exit codes: 0 a candidate is chosen, 1 none holds or none can be chosen, 2 refused input, 3 an AWS call failed.",
    );
  addOptions(command, COMPARE_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(COMPARE_OPTIONS, flags);
      const context = loadModelContext(values);
      const result = await withAwsClients({ region: context.region }, (clients) =>
        runCompare(
          {
            ...values,
            modelName: context.modelName,
            model: context.model,
            planFiles: values.planFiles ?? [],
          },
          { clients, progress: stderrProgress() },
        ),
      );
      present(result, { json: flags.json === true });
    });
}
