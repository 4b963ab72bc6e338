/** The options of `scalegate drift` (command line and action). */
import { ENDPOINT_OPTIONS, MODEL_OPTIONS, outFile } from './common.js';
import { type OptionTable, text } from './spec.js';

export const DRIFT_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  planFile: text(
    'plan',
    '<file>',
    'also compare every deployed policy parameter with this plan (from `scalegate plan`)',
  ),
  outFile: outFile('drift artifact', 'drift-<model>.json'),
} as const satisfies OptionTable;
