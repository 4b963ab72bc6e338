import type { Command } from 'commander';
import { withPricingClient } from '../aws/pricing.js';
import { resolvePlanInputs } from '../commands/discover.js';
import { runPlan, runPlanPriced } from '../commands/plan.js';
import { priceListLookup } from '../commands/plan-price.js';
import { DEFAULT_ARTIFACTS_DIR, loadModelContext, UsageError } from '../model/index.js';
import { PLAN_OPTIONS } from '../options/plan.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present } from './shared.js';

export function registerPlan(program: Command): void {
  const command = program
    .command('plan')
    .summary(
      'derive thresholds, cooldowns, fleet size, cost and findings from the measurements (its one AWS call: the Price List API, for the cost)',
    )
    .description(
      "Derive every scaling parameter from a qmax artifact and a ttotal artifact (or a stated T_total) plus the operator's choices in scalegate.config.json (flags override them). Writes the plan artifact and prints the report: measured / chosen / derived, every finding with its fix, and the deployable values. Exit codes: 0 ok or warn, 1 verdict stop (or warn with --fail-on warn), 2 refused input.",
    );
  addOptions(command, PLAN_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(PLAN_OPTIONS, flags);
      if (flags.json === true && values.format !== undefined && values.format !== 'text') {
        throw new UsageError(
          `--json prints the plan artifact and --format ${values.format} the deployable values: give one of them.`,
        );
      }
      const { modelName, model } = loadModelContext({
        modelName: values.modelName,
        configFile: values.configFile,
      });
      if (values.fromFile !== undefined) {
        present(runPlan({ ...values, modelName, model }), { json: flags.json === true });
        return;
      }
      // The files not named are found as the action finds them (src/commands/discover.ts).
      const artifactsDir = values.artifactsDir ?? DEFAULT_ARTIFACTS_DIR;
      const found = resolvePlanInputs(values, artifactsDir, modelName, model);
      for (const line of [...found.notes, ...found.chosen]) process.stderr.write(`scalegate: ${line}\n`);
      const input = {
        ...values,
        modelName,
        model,
        qmaxFile: found.qmax.file,
        ...(found.ttotal ? { ttotalFile: found.ttotal.file } : {}),
        ...(found.goodputFile ? { goodputFile: found.goodputFile } : {}),
      };
      // The Price List API is asked only when the price source may need it (auto, api).
      const asksApi = (values.priceSource ?? 'auto') === 'auto' || values.priceSource === 'api';
      const result = asksApi
        ? await withPricingClient(model.region, {}, (pricing) =>
            runPlanPriced(input, { priceLookup: priceListLookup(pricing) }),
          )
        : runPlan(input);
      present(result, { json: flags.json === true });
    });
}
