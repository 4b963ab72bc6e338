import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runLocalApply } from '../commands/local-apply.js';
import { addModelOptions, jsonOption, loadModelContext, type ModelOptions, present } from './shared.js';

interface LocalApplyFlags extends ModelOptions {
  plan: string;
  allowConfigMismatch?: boolean;
  json?: boolean;
}

/**
 * `scalegate local apply`, registered under the `local` command group (src/cli/local.ts owns the
 * group and `local up`). Pass the `local` Command; given the root program instead, it finds the
 * `local` group there (creating it when absent).
 */
export function registerLocalApply(parent: Command): Command {
  const local =
    parent.name() === 'local'
      ? parent
      : (parent.commands.find((c) => c.name() === 'local') ??
        parent.command('local').summary('the local SageMaker (no AWS account needed)'));
  const command = local
    .command('apply')
    .summary(
      "deploy a plan's scaling policy onto the local SageMaker (what the CDK construct deploys on AWS)",
    )
    .description(
      "Deploys the plan's policy shape onto the local SageMaker's endpoint through the AWS APIs the CDK resources use: RegisterScalableTarget (min/max, suspension cleared), PutScalingPolicy (target tracking scale-out, step scale-in), PutMetricAlarm (the scale-in alarm invoking the step policy, the observability alarms). Then reads everything back and compares it with the plan. MAX_QUEUE_DEPTH can only be changed in process (the local SageMaker has no CreateModel/UpdateEndpoint): a differing value is reported. Point it at the local SageMaker with AWS_ENDPOINT_URL. Exit codes: 0 applied and equal to the plan, 1 something still differs, 2 refused input.",
    );
  addModelOptions(command);
  command
    .requiredOption('--plan <file>', 'the plan to deploy (from `scalegate plan`)')
    .option(
      '--allow-config-mismatch',
      'apply a plan measured on another image or instance type (warns; the deploy gate would refuse it)',
    )
    .addOption(jsonOption())
    .action(async (flags: LocalApplyFlags) => {
      const context = loadModelContext(flags);
      await withAwsClients({ region: context.region }, async (clients) => {
        const result = await runLocalApply({
          clients,
          modelName: context.modelName,
          endpoint: context.endpoint,
          variant: context.variant,
          region: context.region,
          planFile: flags.plan,
          allowConfigMismatch: flags.allowConfigMismatch === true,
        });
        present(result, { json: flags.json });
      });
    });
  command.exitOverride();
  return command;
}
