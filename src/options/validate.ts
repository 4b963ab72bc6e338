/** The options of `scalegate validate` (command line and action). */
import { ENDPOINT_OPTIONS, MODEL_OPTIONS, outFile } from './common.js';
import { type OptionTable, text } from './spec.js';

export const VALIDATE_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  planFile: text('plan', '<file>', 'the plan that was deployed (from `scalegate plan`)', {
    cli: { required: true },
    action: { defaultText: '`<artifacts-dir>/plan-<model>.json`' },
  }),
  outFile: outFile('validate artifact', 'validate-<model>.json'),
} as const satisfies OptionTable;
