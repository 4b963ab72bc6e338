import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runLocalApply } from '../commands/local-apply.js';
import { loadModelContext } from '../model/index.js';
import { LOCAL_APPLY_OPTIONS } from '../options/local-apply.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present, stderrProgress } from './shared.js';

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
      "Deploys the plan onto the local SageMaker's endpoint through the AWS APIs a CDK deploy uses: the plan's MAX_QUEUE_DEPTH through a new model (CreateModel: the deployed image and environment with MAX_QUEUE_DEPTH set), CreateEndpointConfig and UpdateEndpoint (blue/green, the variant keeps its instance count; waits until the endpoint is InService again), then RegisterScalableTarget (min/max, suspension cleared), PutScalingPolicy (target tracking scale-out, step scale-in), PutMetricAlarm (the scale-in alarm invoking the step policy, the observability alarms). Then reads everything back and compares it with the plan. Works against a `scalegate local up` running in another shell: point it there with AWS_ENDPOINT_URL. Exit codes: 0 applied and equal to the plan, 1 something still differs (e.g. the update rolled back), 2 refused input, 3 an AWS call or the network failed (docs/exit-codes.md).",
    );
  addOptions(command, LOCAL_APPLY_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(LOCAL_APPLY_OPTIONS, flags);
      const context = loadModelContext(values);
      const result = await withAwsClients({ region: context.region }, (clients) =>
        runLocalApply(
          { ...values, ...context, planFile: values.planFile as string },
          { clients, progress: stderrProgress() },
        ),
      );
      present(result, { json: flags.json === true });
    });
  command.exitOverride();
  return command;
}
