import type { Command } from 'commander';
import { runGate } from '../commands/gate.js';
import { loadModelContext } from '../model/index.js';
import { GATE_OPTIONS } from '../options/gate.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present } from './shared.js';

export function registerGate(program: Command): void {
  const command = program
    .command('gate')
    .summary(
      'may the measured, proven plan be deployed onto this image, instance type and region? (never touches AWS)',
    )
    .description(
      'The measured-plan gate, the same checks `cdk synth` runs: the plan exists and is valid, it follows from its own measurements, its verdict is not stop, its T_total is not only a lower bound (unless --allow-lower-bound), it has a deployable CloudWatch threshold, and its fingerprint matches the configured instance type, container environment, region and the image being deployed (container_dir: its CDK asset hash; image_uri: its pinned digest). A plan measured on the local SageMaker never passes for a real region. A release also needs the plan proven: a committed clean validate of that very plan (validate-<model>.json naming its run id and fingerprint, from the calibration endpoint deployed with `scalegate deploy <model> --calibration --with-plan`) and, for a model with require_drill, a drill of it whose SLO held (slo_held); each missing proof is refused with the commands that produce it. Every file it reads (the plan, its measurements, its proofs) must be attested by the calibrate workflow run from the default branch (artifacts/attestations/<file>.sigstore.json, verified against --trusted-root; the signer from the attestation block of the config): without --trusted-root it refuses (exit 2) unless --offline, which skips that check and says OFFLINE beside the verdict. Exit codes: 0 passes, 1 refused (each failed check with its fix), 2 usage error.',
    );
  addOptions(command, GATE_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(GATE_OPTIONS, flags);
      // The region deployed to is the model's (as the CDK stacks use), not the SDK environment's.
      const { modelName, model, configFile, config } = loadModelContext({
        modelName: values.modelName,
        configFile: values.configFile,
      });
      const result = await runGate({
        ...values,
        modelName,
        model,
        configFile,
        attestationConfig: config.attestation,
        githubRepository: process.env.GITHUB_REPOSITORY,
      });
      present(result, { json: flags.json === true });
    });
}
