import { spawn } from 'node:child_process';
import { type Command, Option } from 'commander';
import { type CdkInvocation, runDeploy } from '../commands/deploy.js';
import { jsonOption, loadModelContext, present } from './shared.js';

interface DeployFlags {
  config?: string;
  calibration?: boolean;
  dryRun?: boolean;
  artifactsDir?: string;
  allowUnmeasured?: boolean;
  requireApproval?: 'never' | 'any-change' | 'broadening';
  json?: boolean;
}

/** Runs cdk with the terminal attached (its progress and prompts are the user's). */
const runCdk = (invocation: CdkInvocation): Promise<number> =>
  new Promise((resolveCode, reject) => {
    const child = spawn(invocation.command, invocation.args, { cwd: invocation.cwd, stdio: 'inherit' });
    child.on('error', reject);
    child.on('close', (code, signal) => resolveCode(code ?? (signal ? 128 : 1)));
  });

function register(program: Command, action: 'deploy' | 'destroy'): void {
  const command = program
    .command(`${action} <model>`)
    .summary(
      action === 'deploy'
        ? "apply the model's stacks in order (foundation -> model cache -> endpoint), gated on its measured plan"
        : "remove the model's stacks in reverse order (leaves the weights bucket and the image repository)",
    )
    .description(
      action === 'deploy'
        ? 'Runs the aws-cdk CLI of this checkout in infra/: one `cdk synth` (the measured-plan gate runs there and refuses a plan that does not match), then `cdk deploy --exclusively` per stack in dependency order. --calibration deploys the fixed-capacity `<endpoint>-calibration` copy instead (ungated: it is where the measurement is made). Exit codes: 0 done, 1 a cdk step failed (the gate, or the deploy), 2 usage error.'
        : 'Runs the aws-cdk CLI of this checkout in infra/: `cdk destroy --exclusively` per stack in reverse dependency order. The weights bucket (retained) and the image repository are left in place. --calibration removes only the calibration endpoint. Exit codes: 0 done, 1 a cdk step failed, 2 usage error.',
    )
    .option('--config <file>', 'scalegate config file', 'scalegate.config.json')
    .option(
      '--calibration',
      "the model's calibration endpoint (<endpoint>-calibration) instead of the production one",
    )
    .option('--dry-run', 'print the exact cdk invocations without running them');
  if (action === 'deploy') {
    command
      .option('--artifacts-dir <dir>', 'where the gate reads plan-<model>.json (default: artifacts)')
      .option(
        '--allow-unmeasured',
        'when the gate refuses, deploy fixed capacity with no scaling (bootstrap; warns)',
      )
      .addOption(
        new Option('--require-approval <level>', 'passed to cdk deploy')
          .choices(['never', 'any-change', 'broadening'])
          .default('never'),
      );
  }
  command.addOption(jsonOption()).action(async (modelName: string, flags: DeployFlags) => {
    const context = loadModelContext({ model: modelName, config: flags.config });
    const result = await runDeploy({
      action,
      modelName: context.modelName,
      model: context.model,
      configFile: context.configFile,
      calibration: flags.calibration === true,
      dryRun: flags.dryRun === true,
      artifactsDir: flags.artifactsDir,
      allowUnmeasured: flags.allowUnmeasured === true,
      requireApproval: flags.requireApproval,
      run: runCdk,
    });
    present(result, { json: flags.json });
  });
}

export function registerDeploy(program: Command): void {
  register(program, 'deploy');
  register(program, 'destroy');
}
