/** The options of `scalegate deploy|destroy <model>` (command line only). */
import { CONFIG_FILE } from '../model/index.js';
import { choice, flag, type OptionTable, text } from './spec.js';

export const DEPLOY_OPTIONS = {
  configFile: text('config', '<file>', 'scalegate config file', { default: CONFIG_FILE }),
  calibration: flag(
    'calibration',
    "the model's calibration endpoint (<endpoint>-calibration) instead of the production one",
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
  allowLowerBound: flag(
    'allow-lower-bound',
    'let the gate pass a plan whose T_total is only a lower bound (-c scalegate:allowLowerBound=<model>; warns)',
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
