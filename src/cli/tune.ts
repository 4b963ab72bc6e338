import type { Command } from 'commander';
import { runTune } from '../commands/tune.js';
import { loadModelContext } from '../model/index.js';
import { TUNE_OPTIONS } from '../options/tune.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present, stderrProgress } from './shared.js';

export function registerTune(program: Command): void {
  const command = program
    .command('tune')
    .summary(
      'score candidate scaling policies on a traffic trace with the fleet simulator (never touches AWS)',
    )
    .description(
      "Derive the plan's policy from a qmax and a ttotal artifact, form candidates around it (targets on both tracked metrics, minimum instances, scale-in cooldown, a step scale-out, scheduled pre-scaling where the trace ramps faster than a policy follows) and score each, the seed's closed-loop rule and the perfect fleet by simulating the fleet on the trace (one seed for all). Writes tune-<model>.json and a chart, prints the Pareto table and the chosen policy (the fewest instance-hours holding --required-attainment of windows). Exit codes: 0 a candidate holds, 1 none holds, 2 refused input.",
    );
  addOptions(command, TUNE_OPTIONS)
    .addOption(jsonOption())
    .action((flags: Record<string, unknown>) => {
      const values = optionValues(TUNE_OPTIONS, flags);
      const { modelName, model } = loadModelContext({
        modelName: values.modelName,
        configFile: values.configFile,
      });
      present(runTune({ ...values, modelName, model }, { progress: stderrProgress() }), {
        json: flags.json === true,
      });
    });
}
