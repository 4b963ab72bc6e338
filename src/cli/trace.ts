/**
 * `scalegate trace import | shape | show`, registered under the `trace` command group (created by
 * whichever registers first): traffic traces for `scalegate tune` (docs/traces.md).
 */
import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runTraceImport, runTraceShape, runTraceShow } from '../commands/trace.js';
import { loadModelContext } from '../model/index.js';
import { TRACE_IMPORT_OPTIONS, TRACE_SHAPE_OPTIONS, TRACE_SHOW_OPTIONS } from '../options/trace.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present, stderrProgress } from './shared.js';

const EXIT_CODES =
  'Exit codes: 0 written or shown, 2 refused input (naming the file, the line or the flag and the fix).';

function traceGroup(program: Command): Command {
  const found = program.commands.find((c) => c.name() === 'trace');
  if (found) return found;
  const group = program
    .command('trace')
    .summary(
      "traffic traces for `scalegate tune`: import the endpoint's CloudWatch history, write a built-in shape, show a trace",
    )
    .description(
      'Traffic traces: a rate (`t_s,rps` rows) or request timestamps (`t_s` rows, or JSON lines), what `scalegate tune` replays through the fleet simulator. See docs/traces.md.',
    );
  group.exitOverride();
  return group;
}

export function registerTraceImport(program: Command): void {
  const command = traceGroup(program)
    .command('import')
    .summary("write the endpoint's traffic from CloudWatch as a rate trace (Invocations Sum per minute)")
    .description(
      "Reads AWS/SageMaker Invocations (Sum per 60 s; per 300 s beyond 15 days, per 3600 s beyond 63 days, as CloudWatch keeps it) of the model's endpoint variant from --from to --to (at most one day, floored to whole periods) " +
        'and writes one `t_s,rps` row per period (rps = the Sum / the period; a period without a datapoint is written as 0), anchored with `# start=`. ' +
        '`--metric concurrency` writes ConcurrentRequestsPerModel Maximum per 10 s as `t_s,concurrency` instead: informational, and CloudWatch keeps it only 3 hours. ' +
        'Exit codes: 0 written, 2 refused input, 3 a CloudWatch call or the network failed (docs/exit-codes.md).',
    );
  addOptions(command, TRACE_IMPORT_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(TRACE_IMPORT_OPTIONS, flags);
      const context = loadModelContext(values);
      const result = await withAwsClients({ region: context.region }, (clients) =>
        runTraceImport(
          {
            modelName: context.modelName,
            endpoint: context.endpoint,
            variant: values.variant ?? context.variant,
            region: context.region,
            from: values.from as string,
            to: values.to as string,
            metric: values.metric ?? 'invocations',
            outFile: values.outFile as string,
          },
          { clients, progress: stderrProgress() },
        ),
      );
      present(result, { json: flags.json === true });
    });
  command.exitOverride();
}

export function registerTraceShape(program: Command): void {
  const command = traceGroup(program)
    .command('shape')
    .summary('write a built-in traffic shape (diurnal, step, ramp, bursts) as a rate CSV')
    .argument(
      '<spec>',
      'the shape and its parameters, e.g. diurnal:peak=300,trough=60,bursts=4,burst_x=2,burst_s=120,seed=7',
    )
    .description(
      'Writes a built-in shape as `t_s,rps` rows, so a team can look at it and edit it (docs/traces.md#built-in-shapes lists every parameter). The same spec gives the same rows. ' +
        EXIT_CODES,
    );
  addOptions(command, TRACE_SHAPE_OPTIONS)
    .addOption(jsonOption())
    .action((spec: string, flags: Record<string, unknown>) => {
      const values = optionValues(TRACE_SHAPE_OPTIONS, flags);
      present(runTraceShape({ spec, outFile: values.outFile as string }), { json: flags.json === true });
    });
  command.exitOverride();
}

export function registerTraceShow(program: Command): void {
  const command = traceGroup(program)
    .command('show')
    .summary('what a trace holds: duration, peak and mean rate, arrivals, digest, start')
    .argument('<file>', 'a trace: `t_s,rps` rows, `t_s` rows or JSON lines {"t_s": ...}')
    .description(`Reads a trace as \`scalegate tune\` reads it and says what it holds. ${EXIT_CODES}`);
  addOptions(command, TRACE_SHOW_OPTIONS)
    .addOption(jsonOption())
    .action((file: string, flags: Record<string, unknown>) => {
      present(runTraceShow({ file }), { json: flags.json === true });
    });
  command.exitOverride();
}
