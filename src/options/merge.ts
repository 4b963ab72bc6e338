/** The options of `scalegate merge` (command line only: it combines files a workflow already has). */
import { outFile } from './common.js';
import type { OptionTable } from './spec.js';

export const MERGE_OPTIONS = {
  outFile: {
    ...outFile(
      'merged artifact',
      'goodput-<model>-<transport>-<slug>.json (a drill: drill-<model>-<slug>.json)',
    ),
    action: false,
  },
} as const satisfies OptionTable;
