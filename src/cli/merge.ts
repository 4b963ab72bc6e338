import type { Command } from 'commander';
import { runMerge } from '../commands/merge.js';
import { MERGE_OPTIONS } from '../options/merge.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present } from './shared.js';

export function registerMerge(program: Command): void {
  const command = program
    .command('merge')
    .summary(
      'combine the shard files of one goodput run or one drill (counts add, windows align, percentiles from the merged histograms)',
    )
    .argument(
      '<files...>',
      'the shard artifacts of one run (from `scalegate goodput --shard i/n` or `scalegate drill --shard i/n`)',
    )
    .description(
      'Adds the HDR windows of the shards of one goodput run and decides every rung from the merged windows, as a single process would. ' +
        'Refuses (exit 2, naming the file; nothing written) files of different fingerprints, models, SLOs, ladders or limits, shards that disagree on the schedule seed or start, ' +
        'and shards that do not cover 0..n-1 exactly once. Drill shard files are merged as `scalegate drill merge` merges them (the same command). ' +
        'Exit codes: 0 merged, 2 refused input (a drill: as `scalegate drill`).',
    );
  addOptions(command, MERGE_OPTIONS)
    .addOption(jsonOption())
    .action((files: string[], flags: Record<string, unknown>) => {
      const values = optionValues(MERGE_OPTIONS, flags);
      present(runMerge({ ...values, files }), { json: flags.json === true });
    });
}
