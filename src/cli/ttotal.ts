import type { Command } from 'commander';
import { createAwsClients, destroyAwsClients } from '../aws/clients.js';
import { InterruptedError, installSignalGuard } from '../commands/freeze.js';
import { runTtotal, TTOTAL_DEFAULTS } from '../commands/ttotal.js';
import { VERSION } from '../version.js';
import {
  addModelOptions,
  jsonOption,
  loadModelContext,
  type ModelOptions,
  nonNegativeNumber,
  positiveInteger,
  positiveNumber,
  present,
} from './shared.js';

interface TtotalFlags extends ModelOptions {
  qmax: string;
  probeConcurrency?: number;
  maxWaitS?: number;
  settleS?: number;
  pollS?: number;
  minWindowSamples?: number;
  recoveryFactor?: number;
  publicationDelayS?: number;
  quotaCode?: string;
  allowConfigMismatch?: boolean;
  out?: string;
  json?: boolean;
}

export function registerTtotal(program: Command): void {
  const command = program
    .command('ttotal')
    .summary('time one forced scale-out, stage by stage (T_total)')
    .description(
      "Measure T_total: freeze the endpoint at one instance (thaw journal first), run a closed-loop probe at N in flight, force one more instance (UpdateEndpointWeightsAndCapacities) and timestamp every stage: desired_set (the clock starts), instance_logging (first event of the new instance's log stream), the container's stage markers, in_service (DescribeEndpoint), traffic_recovered (first window whose probe p95 TTFAB falls to the ladder's p95 at N/2 x 1.25). The policy's detection lag is read from the deployed scale-out alarms (else a 60 s bound, labelled). The fleet size and suspension flags are always restored. Refuses (exit 2) a qmax artifact of another fingerprint (unless --allow-config-mismatch), another transport, without usable rungs at N and N/2, or no instance quota headroom. Exit codes: 0 measured, 1 the scale-out never completed (diagnosed) or the restore failed, 2 refused input.",
    );
  addModelOptions(command);
  command
    .requiredOption('--qmax <file>', 'qmax artifact of this endpoint (from `scalegate qmax`)')
    .option(
      '--probe-concurrency <n>',
      'probe N in flight (default: the highest usable rung <= Q_max whose half is a usable rung)',
      positiveInteger('--probe-concurrency'),
    )
    .option(
      '--max-wait-s <s>',
      `longest wait for the scale-out (default ${TTOTAL_DEFAULTS.maxWaitS})`,
      positiveNumber('--max-wait-s'),
    )
    .option(
      '--settle-s <s>',
      `recovery window length, also the probe hold before the trigger (default ${TTOTAL_DEFAULTS.settleS})`,
      positiveNumber('--settle-s'),
    )
    .option(
      '--poll-s <s>',
      `DescribeEndpoint poll interval: the bound on in_service (default ${TTOTAL_DEFAULTS.pollS})`,
      positiveNumber('--poll-s'),
    )
    .option(
      '--min-window-samples <n>',
      `completions a recovery window needs (default ${TTOTAL_DEFAULTS.minWindowSamples})`,
      positiveInteger('--min-window-samples'),
    )
    .option(
      '--recovery-factor <k>',
      `recovered when the probe p95 <= k x the ladder's p95 at N/2 (default ${TTOTAL_DEFAULTS.recoveryFactor}; recorded in the artifact)`,
      positiveNumber('--recovery-factor'),
    )
    .option(
      '--publication-delay-s <s>',
      'CloudWatch publication delay added to the alarm period x datapoints (default: one period, labelled assumed)',
      nonNegativeNumber('--publication-delay-s'),
    )
    .option(
      '--quota-code <code>',
      'Service Quotas code of "<instance type> for endpoint usage" (default: found by name)',
    )
    .option(
      '--allow-config-mismatch',
      'measure although the qmax fingerprint differs from the endpoint (warns; recorded)',
    )
    .option(
      '--out <file>',
      'where to write the artifact (default: artifacts/ttotal-<model>-force-desired-<slug>.json)',
    )
    .addOption(jsonOption())
    .action(async (flags: TtotalFlags) => {
      const context = loadModelContext(flags);
      const clients = createAwsClients({ region: context.region });
      const controller = new AbortController();
      const log = (line: string) => process.stderr.write(`${line}\n`);
      const guard = installSignalGuard(controller, log);
      try {
        const result = await runTtotal({
          clients,
          modelName: context.modelName,
          model: context.model,
          endpoint: context.endpoint,
          variant: context.variant,
          region: context.region,
          qmaxFile: flags.qmax,
          probeConcurrency: flags.probeConcurrency,
          maxWaitS: flags.maxWaitS,
          settleS: flags.settleS,
          pollS: flags.pollS,
          minWindowSamples: flags.minWindowSamples,
          recoveryFactor: flags.recoveryFactor,
          publicationDelayS: flags.publicationDelayS,
          quotaCode: flags.quotaCode,
          allowConfigMismatch: flags.allowConfigMismatch === true,
          outFile: flags.out,
          signal: controller.signal,
          log,
          command: `scalegate ${process.argv.slice(2).join(' ')}`,
          version: VERSION,
        });
        present(result, { json: flags.json });
      } catch (e) {
        if (guard.received || e instanceof InterruptedError) {
          const signal = guard.received ?? (e as InterruptedError).signal;
          log(`scalegate ttotal: interrupted by ${signal}; the endpoint was restored (see above)`);
          process.exitCode = signal === 'SIGINT' ? 130 : 143;
          return;
        }
        throw e;
      } finally {
        guard.remove();
        destroyAwsClients(clients);
      }
    });
}
