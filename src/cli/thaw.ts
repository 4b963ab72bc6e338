import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { runThaw } from '../commands/thaw.js';
import { CONFIG_FILE, loadModelContext, opt, readConfigFile, usage } from '../model/index.js';
import type { OptionValues } from '../options/spec.js';
import { THAW_OPTIONS } from '../options/thaw.js';
import { addOptions, optionValues } from './options.js';
import { jsonOption, present, stderrProgress } from './shared.js';

interface Target {
  endpoint: string;
  variant: string;
  region: string;
}

/** --model (endpoint from the config) or --endpoint (variant and region from a model that names it, else flags). */
function resolveTarget(values: OptionValues<typeof THAW_OPTIONS>): Target {
  if (values.modelName || !values.endpoint) {
    const ctx = loadModelContext(values);
    return { endpoint: ctx.endpoint, variant: values.variant ?? ctx.variant, region: ctx.region };
  }
  let variant = values.variant;
  let region = values.region ?? process.env.AWS_REGION;
  try {
    const config = readConfigFile(values.configFile ?? CONFIG_FILE);
    const model = Object.values(config.models).find((m) => m.endpoint === values.endpoint);
    variant ??= model?.variant;
    region ??= model?.region;
  } catch {
    // No config: thaw works from flags alone.
  }
  if (!region)
    throw usage`${opt('region')} (or AWS_REGION) is needed to thaw an endpoint the config does not declare.`;
  return { endpoint: values.endpoint, variant: variant ?? 'AllTraffic', region };
}

export function registerThaw(program: Command): void {
  const command = program
    .command('thaw')
    .summary(
      'restore what a qmax, goodput or ttotal freeze recorded in its thaw journal (idempotent, from any machine)',
    )
    .description(
      "Restores the endpoint variant from its thaw journal, the one the freeze left on the endpoint (its tags, so this works from any machine after a lost runner) or on this machine: the desired instance count and the exact suspension flags captured before the freeze; then deletes the journal. It refuses an endpoint whose freezing run is still measuring (its heartbeat on the endpoint is younger than three periods, from any host) unless --force. Without a journal it changes nothing (suspension flags an operator set stay set) and says what it sees; --clear-suspension then clears every suspension flag of the variant's scalable target. Running it again changes nothing. Exit codes: 0 restored or nothing to do, 1 a restore call failed (journal kept), 2 usage error, 3 an AWS call or the network failed (docs/exit-codes.md).",
    );
  addOptions(command, THAW_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(THAW_OPTIONS, flags);
      const target = resolveTarget(values);
      const result = await withAwsClients({ region: target.region }, (clients) =>
        runThaw(
          {
            endpoint: target.endpoint,
            variant: target.variant,
            force: values.force,
            clearSuspension: values.clearSuspension,
            dryRun: values.dryRun,
          },
          { clients, progress: stderrProgress() },
        ),
      );
      present(result, { json: flags.json === true });
    });
}
