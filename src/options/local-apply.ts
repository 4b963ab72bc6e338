/** The options of `scalegate local apply` (command line only: the action never touches the local SageMaker). */
import { ENDPOINT_OPTIONS, MODEL_OPTIONS } from './common.js';
import { flag, type OptionTable, text } from './spec.js';

export const LOCAL_APPLY_OPTIONS = {
  ...MODEL_OPTIONS,
  ...ENDPOINT_OPTIONS,
  planFile: text('plan', '<file>', 'the plan to deploy (from `scalegate plan`)', { cli: { required: true } }),
  allowConfigMismatch: flag(
    'allow-config-mismatch',
    'apply a plan measured on another image or instance type (warns; the deploy gate would refuse it)',
  ),
} as const satisfies OptionTable;
