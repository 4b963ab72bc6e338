/** The options of `scalegate gate` (command line and action). */
import { MODEL_OPTIONS } from './common.js';
import { flag, type OptionTable, text } from './spec.js';

export const GATE_OPTIONS = {
  ...MODEL_OPTIONS,
  planFile: text('plan', '<file>', 'the plan to gate on', {
    defaultText: 'artifacts/plan-<model>.json',
    action: { defaultText: '`<artifacts-dir>/plan-<model>.json`' },
  }),
  region: text('region', '<region>', 'region being deployed to', {
    defaultText: "the model's region, as the CDK stacks use",
  }),
  allowLowerBound: flag(
    'allow-lower-bound',
    "pass a plan whose T_total is only a lower bound (the ttotal probe never recovered): its cooldowns and surge probability can only be too low; the gate's report says so",
  ),
  trustedRootFile: text(
    'trusted-root',
    '<file>',
    "the Sigstore trust root the proofs' attestations are verified against: a TrustedRoot JSON, or the JSON lines `gh attestation trusted-root > trusted_root.jsonl` prints; required unless offline",
  ),
  offline: flag(
    'offline',
    'skip the attestation check: a development run, labelled OFFLINE beside the verdict (a release never passes it); runs against the local SageMaker are offline anyway (nothing is attested there)',
  ),
} as const satisfies OptionTable;
