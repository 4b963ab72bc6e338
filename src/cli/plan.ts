import { type Command, Option } from 'commander';
import { runPlan } from '../commands/plan.js';
import { UsageError } from '../model/index.js';
import { VERSION } from '../version.js';
import {
  addModelOptions,
  jsonOption,
  loadModelContext,
  nonNegativeNumber,
  parseNumber,
  positiveInteger,
  positiveNumber,
  present,
} from './shared.js';

interface PlanFlags {
  model?: string;
  config?: string;
  qmax: string;
  ttotal?: string;
  assumeTTotal?: number;
  peakRps?: number;
  peakStreams?: number;
  troughRps?: number;
  troughStreams?: number;
  surgeRatio?: number;
  sloMs?: number;
  minInstancesFloor?: number;
  allowConfigMismatch?: boolean;
  out?: string;
  json?: boolean;
  failOn?: string;
}

export function registerPlan(program: Command): void {
  const command = program
    .command('plan')
    .summary(
      'derive thresholds, cooldowns, fleet size and findings from the measurements (never touches AWS)',
    )
    .description(
      "Derive every scaling parameter from a qmax artifact and a ttotal artifact (or a stated T_total) plus the operator's choices in scalegate.config.json (flags override them). Writes the plan artifact and prints the report: measured / chosen / derived, every finding with its fix, and the deployable values. Exit codes: 0 ok or warn, 1 verdict stop (or warn with --fail-on warn), 2 refused input.",
    );
  addModelOptions(command, { endpoint: false });
  command
    .requiredOption('--qmax <file>', 'qmax artifact (from `scalegate qmax`)')
    .option('--ttotal <file>', 'ttotal artifact (from `scalegate ttotal`)')
    .option(
      '--assume-t-total <seconds>',
      'state T_total instead of measuring it (labelled stated)',
      positiveNumber('--assume-t-total'),
    )
    .option('--peak-rps <n>', 'peak load, requests/s', positiveNumber('--peak-rps'))
    .option('--peak-streams <n>', 'peak load, concurrent streams', positiveNumber('--peak-streams'))
    .option('--trough-rps <n>', 'trough load, requests/s', nonNegativeNumber('--trough-rps'))
    .option('--trough-streams <n>', 'trough load, concurrent streams', nonNegativeNumber('--trough-streams'))
    .option(
      '--surge-ratio <k>',
      'traffic growth to absorb within one T_total, 1 <= k < 1.5',
      parseNumber('--surge-ratio'),
    )
    .option(
      '--slo-ms <ms>',
      'p95 TTFAB SLO; must equal the one the ladder was judged against',
      positiveNumber('--slo-ms'),
    )
    .option(
      '--min-instances-floor <n>',
      'never fewer instances than this',
      positiveInteger('--min-instances-floor'),
    )
    .option(
      '--allow-config-mismatch',
      'plan from qmax and ttotal of different fingerprints (warns; recorded in the plan)',
    )
    .option('--out <file>', 'where to write the plan artifact (default: artifacts/plan-<model>.json)')
    .addOption(jsonOption())
    .addOption(
      new Option('--fail-on <level>', 'exit 1 on this verdict or worse')
        .choices(['stop', 'warn'])
        .default('stop'),
    )
    .action((flags: PlanFlags) => {
      const context = loadModelContext({ model: flags.model, config: flags.config });
      if (flags.peakRps !== undefined && flags.peakStreams !== undefined) {
        throw new UsageError('--peak-rps and --peak-streams both given: state peak load in one unit.');
      }
      const result = runPlan({
        modelName: context.modelName,
        model: context.model,
        qmaxFile: flags.qmax,
        ttotalFile: flags.ttotal,
        assumeTTotalS: flags.assumeTTotal,
        overrides: {
          peakRps: flags.peakRps,
          peakStreams: flags.peakStreams,
          troughRps: flags.troughRps,
          troughStreams: flags.troughStreams,
          surgeRatio: flags.surgeRatio,
          sloMs: flags.sloMs,
          minInstancesFloor: flags.minInstancesFloor,
        },
        allowConfigMismatch: flags.allowConfigMismatch === true,
        outFile: flags.out,
        failOnWarn: flags.failOn === 'warn',
        version: VERSION,
      });
      present(result, { json: flags.json });
    });
}
