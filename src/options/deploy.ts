/** The options of `scalegate deploy|destroy <model>` (command line only). */
import { CONFIG_FILE } from '../model/index.js';
import { choice, flag, type OptionTable, text } from './spec.js';

export const DEPLOY_OPTIONS = {
  configFile: text('config', '<file>', 'scalegate config file', { default: CONFIG_FILE }),
  calibration: flag(
    'calibration',
    'only the calibration-owned stacks (scalegate-<model>-calibration-foundation, then scalegate-<model>-calibration with the <endpoint>-calibration copy), in the calibration account/region, through the calibration bootstrap (qualifier sgcal); ungated, and nothing of production is synthesized or changed',
  ),
  dryRun: flag('dry-run', 'print the exact cdk invocations without running them'),
} as const satisfies OptionTable;

/** deploy only. */
export const DEPLOY_ONLY_OPTIONS = {
  artifactsDir: text('artifacts-dir', '<dir>', 'where the gate reads plan-<model>.json', {
    defaultText: 'artifacts',
  }),
  allowUnmeasured: flag(
    'allow-unmeasured',
    'when the gate refuses, deploy fixed capacity with no scaling (bootstrap; warns)',
  ),
  requireApproval: choice(
    'require-approval',
    '<level>',
    ['never', 'any-change', 'broadening'] as const,
    'passed to cdk deploy',
    {
      default: 'never',
    },
  ),
} as const satisfies OptionTable;
