/** The options of `scalegate deploy|destroy <model>` (command line only). */
import { CONFIG_FILE, subject, usage } from '../model/index.js';
import { choice, flag, type OptionTable, parsed, text } from './spec.js';

export const DEPLOY_OPTIONS = {
  configFile: text('config', '<file>', 'scalegate config file', { default: CONFIG_FILE }),
  calibration: flag(
    'calibration',
    'only the calibration-owned stack (scalegate-<model>-calibration with the <endpoint>-calibration copy), in the calibration account/region, through the calibration bootstrap (qualifier sgcal); ungated, and nothing of production is synthesized or changed',
  ),
  candidate: parsed(
    'candidate',
    '<n>',
    (raw) => {
      if (!/^\d{1,2}$/.test(raw.trim())) {
        throw usage`${subject('candidate')} needs a candidate index (0: the model's own instance_type, n: its candidates[n - 1]), got "${raw}".`;
      }
      return Number(raw.trim());
    },
    "with --calibration: candidate n of the model's candidates[] (0: its own instance_type) on its own calibration endpoint <endpoint>-cal-<n> (stack scalegate-<model>-cal-<n>-calibration), with the candidate's instance type and container environment (-c scalegate:candidate=<n>)",
    { defaultText: '0' },
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
  // `--with-plan` alone (commander gives `true`) means the default plan file.
  withPlan: parsed<string | boolean>(
    'with-plan',
    '[file]',
    (raw) => raw,
    "with --calibration: deploy the calibration endpoint with this plan's policy (autoscaling, alarms, MAX_QUEUE_DEPTH, fleet), as production would get it, to validate and drill it there",
    { defaultText: 'artifacts/plan-<model>.json' },
  ),
  allowLowerBound: flag(
    'allow-lower-bound',
    'let the gate pass a plan whose T_total is only a lower bound (-c scalegate:allowLowerBound=<model>; warns)',
  ),
  trustedRoot: text(
    'trusted-root',
    '<file>',
    "the Sigstore trust root the synth gate verifies the proofs' attestations against (-c scalegate:trustedRoot=<file>; `gh attestation trusted-root > trusted_root.jsonl`); a production deploy needs it unless --offline",
  ),
  offline: flag(
    'offline',
    "skip the synth gate's attestation check (-c scalegate:offline=true): a development deploy, warned in the synth output; a release never passes it",
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
