import type { Command } from 'commander';
import { createAwsClients, destroyAwsClients } from '../aws/clients.js';
import { awsFreezeAdapters } from '../commands/freeze.js';
import { runThaw } from '../commands/thaw.js';
import { UsageError } from '../model/index.js';
import { addModelOptions, jsonOption, loadModelContext, present, readConfigFile } from './shared.js';

interface ThawFlags {
  model?: string;
  config?: string;
  endpoint?: string;
  region?: string;
  variant?: string;
  force?: boolean;
  json?: boolean;
}

interface Target {
  endpoint: string;
  variant: string;
  region: string;
}

/** --model (endpoint from the config) or --endpoint (variant and region from a model that names it, else flags). */
function resolveTarget(flags: ThawFlags): Target {
  if (flags.model || !flags.endpoint) {
    const ctx = loadModelContext(flags);
    return { endpoint: ctx.endpoint, variant: flags.variant ?? ctx.variant, region: ctx.region };
  }
  let variant = flags.variant;
  let region = flags.region ?? process.env.AWS_REGION;
  try {
    const config = readConfigFile(flags.config ?? 'scalegate.config.json');
    const model = Object.values(config.models).find((m) => m.endpoint === flags.endpoint);
    variant ??= model?.variant;
    region ??= model?.region;
  } catch {
    // No config: thaw works from flags alone.
  }
  if (!region)
    throw new UsageError(
      '--region (or AWS_REGION) is needed to thaw an endpoint the config does not declare.',
    );
  return { endpoint: flags.endpoint, variant: variant ?? 'AllTraffic', region };
}

export function registerThaw(program: Command): void {
  const command = program
    .command('thaw')
    .summary('restore what a qmax/ttotal freeze changed (idempotent, safe any time)')
    .description(
      "Restores the endpoint variant from its thaw journal (the desired instance count and the exact suspension flags captured before the freeze) and deletes the journal; without a journal, clears every suspension flag of the variant's scalable target. Running it again changes nothing. Exit codes: 0 restored or nothing to do, 1 a restore call failed (journal kept), 2 usage error.",
    );
  addModelOptions(command);
  command
    .option('--variant <name>', 'production variant (default: the model config, else AllTraffic)')
    .option('--force', "thaw even though the journal's process still seems to be running")
    .addOption(jsonOption())
    .action(async (flags: ThawFlags) => {
      const target = resolveTarget(flags);
      const clients = createAwsClients({ region: target.region });
      try {
        const result = await runThaw(
          { endpoint: target.endpoint, variant: target.variant, force: flags.force },
          awsFreezeAdapters(clients, target.endpoint, target.variant),
        );
        present(result, { json: flags.json });
      } finally {
        destroyAwsClients(clients);
      }
    });
}
