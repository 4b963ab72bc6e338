/** The options of `scalegate thaw` (command line and action). */
import { ENDPOINT_OPTIONS, MODEL_OPTIONS } from './common.js';
import { flag, type OptionTable, text } from './spec.js';

export const THAW_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  variant: text('variant', '<name>', 'production variant', {
    defaultText: 'the model config, else AllTraffic',
    action: false,
  }),
  force: flag('force', "thaw even though the journal's process still seems to be running", { action: false }),
} as const satisfies OptionTable;
