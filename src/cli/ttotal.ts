import { join } from 'node:path';
import type { Command } from 'commander';
import { withAwsClients } from '../aws/clients.js';
import { resolveQmaxFile } from '../commands/discover.js';
import { InterruptedError } from '../commands/freeze.js';
import { runTtotal } from '../commands/ttotal.js';
import { runTtotalIcPath } from '../commands/ttotal-ic-path.js';
import { runTtotalWake } from '../commands/ttotal-wake.js';
import { DEFAULT_ARTIFACTS_DIR, loadModelContext, opt, usage } from '../model/index.js';
import { TTOTAL_OPTIONS } from '../options/ttotal.js';
import { VERSION } from '../version.js';
import { addOptions, optionValues } from './options.js';
import {
  artifactsDirFor,
  commandLine,
  jsonOption,
  present,
  presentInterruption,
  stderrProgress,
} from './shared.js';

export function registerTtotal(program: Command): void {
  const command = program
    .command('ttotal')
    .summary('time one forced scale-out, stage by stage (T_total)')
    .description(
      "Measure T_total: freeze the endpoint at one instance (thaw journal first), run a closed-loop probe at N in flight, force one more instance (UpdateEndpointWeightsAndCapacities) and timestamp every stage: desired_set (the clock starts), instance_logging (first event of the new instance's log stream), the container's stage markers, in_service (DescribeEndpoint), traffic_recovered (first window whose probe p95 TTFAB falls to the ladder's p95 at N/2 x --recovery-factor). The policy's detection lag is read from the deployed scale-out alarms (else a 60 s bound, labelled). The fleet size and suspension flags are always restored. Refuses (exit 2), before any AWS call, the model's own (production) endpoint unless --allow-production (the local SageMaker, AWS_ENDPOINT_URL on loopback, is exempt); then a qmax artifact of another fingerprint (unless --allow-config-mismatch), another transport, without usable rungs at N and N/2, or no instance quota headroom; and an endpoint another run has frozen or whose scaling is already suspended, unless --force. Exit codes: 0 measured, 1 the scale-out never completed (diagnosed), traffic never recovered (T_total is then only a LOWER BOUND, written and labelled so) or the restore failed, 2 refused input, 3 an AWS call or the network failed (docs/exit-codes.md).",
    );
  addOptions(command, TTOTAL_OPTIONS)
    .addOption(jsonOption())
    .action(async (flags: Record<string, unknown>) => {
      const values = optionValues(TTOTAL_OPTIONS, flags);
      const context = loadModelContext(values);
      try {
        const result = await withAwsClients({ region: context.region }, async (clients) => {
          const dir = await artifactsDirFor(values.artifactsDir, clients, values.outFile);
          if (values.clientRetry === true && values.path !== 'zero')
            throw usage`${opt('client-retry')} applies to a wake from zero: add ${opt('path', 'zero')}.`;
          if (values.path === 'warm' || values.path === 'cold') {
            return runTtotalIcPath(
              {
                ...values,
                ...context,
                path: values.path,
                outFile:
                  values.outFile ??
                  join(
                    dir.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
                    `ttotal-${context.modelName}-${values.path}.json`,
                  ),
              },
              { clients, version: VERSION },
            );
          }
          if (values.path === 'zero') {
            return runTtotalWake(
              { ...values, ...context, ...dir, retry: values.clientRetry === true },
              { clients, version: VERSION, log: (line) => process.stderr.write(`scalegate: ${line}\n`) },
            );
          }
          // Without --qmax: found as the action finds it (src/commands/discover.ts), and said.
          const found = resolveQmaxFile(
            values.qmaxFile,
            dir.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
            context.modelName,
            context.model,
          );
          for (const line of [...found.notes, ...found.chosen]) process.stderr.write(`scalegate: ${line}\n`);
          return runTtotal(
            { ...values, ...context, ...dir, qmaxFile: found.qmaxFile, commandLine: commandLine() },
            { clients, progress: stderrProgress() },
          );
        });
        present(result, { json: flags.json === true });
      } catch (e) {
        if (e instanceof InterruptedError) return presentInterruption('ttotal', e);
        throw e;
      }
    });
}
