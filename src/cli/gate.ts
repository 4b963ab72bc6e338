import type { Command } from 'commander';
import { runGate } from '../commands/gate.js';
import { containerAssetHash } from '../local/asset-hash.js';
import { jsonOption, loadModelContext, present } from './shared.js';

interface GateFlags {
  model?: string;
  config?: string;
  plan?: string;
  region?: string;
  json?: boolean;
}

export function registerGate(program: Command): void {
  program
    .command('gate')
    .summary(
      'may the measured plan be deployed onto this image, instance type and region? (never touches AWS)',
    )
    .description(
      'The measured-plan gate, the same checks `cdk synth` runs: the plan exists and is valid, its verdict is not stop, it has a deployable CloudWatch threshold, and its fingerprint matches the configured instance type, container environment, region and the image being deployed (container_dir: its CDK asset hash; image_uri: its pinned digest). A plan measured on the local SageMaker never passes for a real region. Exit codes: 0 passes, 1 refused (each failed check with its fix), 2 usage error.',
    )
    .option('--model <name>', 'model name from scalegate.config.json')
    .option('--config <file>', 'scalegate config file', 'scalegate.config.json')
    .option('--plan <file>', 'plan artifact (default: artifacts/plan-<model>.json)')
    .option(
      '--region <region>',
      "region being deployed to (default: the model's region, as the CDK stacks use)",
    )
    .addOption(jsonOption())
    .action(async (flags: GateFlags) => {
      const context = loadModelContext({ model: flags.model, config: flags.config });
      const result = await runGate({
        modelName: context.modelName,
        model: context.model,
        configFile: context.configFile,
        planFile: flags.plan,
        region: flags.region ?? context.model.region,
        containerAssetHash,
      });
      present(result, { json: flags.json });
    });
}
