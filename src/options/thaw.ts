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
  force: flag(
    'force',
    "thaw even though the journal's run is still measuring (its heartbeat on the endpoint is fresh, from any host, or its process runs here); that measurement is then invalid",
    { action: false },
  ),
  clearSuspension: flag(
    'clear-suspension',
    "with no thaw journal (on the endpoint or local), clear every suspension flag of the variant's scalable target; without it nothing is changed",
  ),
  dryRun: flag(
    'dry-run',
    'read the thaw journals and the endpoint and print what thaw would restore (desired count, suspension flags, journal tags and file); changes nothing',
    { action: false },
  ),
} as const satisfies OptionTable;
