import { spawn } from 'node:child_process';
import type { Command } from 'commander';
import { type CdkInvocation, runDeploy } from '../commands/deploy.js';
import { loadModelContext } from '../model/index.js';
import { DEPLOY_ONLY_OPTIONS, DEPLOY_OPTIONS } from '../options/deploy.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present } from './shared.js';

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
        ? 'Runs the aws-cdk CLI of this checkout in infra/: one `cdk synth` (the measured-plan gate runs there and refuses a plan that does not match), then `cdk deploy --exclusively` per stack in dependency order. --calibration applies only the calibration-owned stack instead: `scalegate-<model>-calibration` (the fixed-capacity `<endpoint>-calibration` copy, its model, config and tagged scalable target, run by the calibration execution role of the CI-access stack), in the calibration account/region through the calibration bootstrap (qualifier sgcal). Ungated (it is where the measurement is made), and nothing of production is synthesized or deployed, so a pull request cannot change it; --dry-run lists those stacks. --calibration --with-plan [file] deploys that copy with the policy of the plan through the production constructs (gated on the checks of the plan), where the plan is validated and drilled before a release. Exit codes: 0 done, 1 a cdk step failed (the gate, or the deploy), 2 usage error.'
        : 'Runs the aws-cdk CLI of this checkout in infra/: `cdk destroy --exclusively` per stack in reverse dependency order. The weights bucket (retained) and the image repository are left in place. --calibration removes only the calibration-owned stacks. Exit codes: 0 done, 1 a cdk step failed, 2 usage error.',
    );
  addOptions(command, DEPLOY_OPTIONS);
  if (action === 'deploy') addOptions(command, DEPLOY_ONLY_OPTIONS);
  command.addOption(jsonOption()).action(async (modelName: string, flags: Record<string, unknown>) => {
    const values = { ...optionValues(DEPLOY_OPTIONS, flags), ...optionValues(DEPLOY_ONLY_OPTIONS, flags) };
    const context = loadModelContext({ modelName, configFile: values.configFile });
    const result = await runDeploy(
      {
        ...values,
        action,
        modelName: context.modelName,
        model: context.model,
        configFile: context.configFile,
      },
      { run: runCdk },
    );
    present(result, { json: flags.json === true });
  });
}

export function registerDeploy(program: Command): void {
  register(program, 'deploy');
  register(program, 'destroy');
}
