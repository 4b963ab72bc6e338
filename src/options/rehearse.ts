/** The options of `scalegate rehearse` (command line only). */
import { CONFIG_FILE, LOCAL_ARTIFACTS_DIR } from '../model/index.js';
import { deviceOptions } from './device.js';
import { flag, number, type OptionTable, text } from './spec.js';

export const REHEARSAL_MODEL = 'reference-tts';
export const REHEARSAL_OUT = LOCAL_ARTIFACTS_DIR;

export const REHEARSE_OPTIONS = {
  modelName: text('model', '<name>', `model from ${CONFIG_FILE} whose container is rehearsed`, {
    default: REHEARSAL_MODEL,
  }),
  configFile: text('config', '<file>', 'scalegate config file', { default: CONFIG_FILE }),
  outDir: text('out', '<dir>', 'where the artifacts and previews go', { default: REHEARSAL_OUT }),
  quick: flag('quick', 'shorter holds and delays (what CI runs)'),
  provisionDelayS: number('provision-delay-s', '<s>', 'positive', 'seconds before a new instance starts', {
    action: false,
  }),
  ...deviceOptions({
    device: 'the Kokoro-82M ml.g5.xlarge measurement in artifacts/',
    timeScale: '0.25 with a device',
  }),
} as const satisfies OptionTable;
