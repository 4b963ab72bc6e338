import { type Command, InvalidArgumentError, Option } from 'commander';
import { createAwsClients, destroyAwsClients } from '../aws/clients.js';
import { InterruptedError } from '../commands/freeze.js';
import { LADDER_DEFAULTS, runQmax } from '../commands/qmax.js';
import { createProgressRenderer } from '../load/progress.js';
import { parseTransportKind, TRANSPORT_HELP } from '../load/transports.js';
import {
  addModelOptions,
  jsonOption,
  loadModelContext,
  nonNegativeNumber,
  positiveInteger,
  positiveNumber,
  present,
} from './shared.js';

interface QmaxFlags {
  model?: string;
  config?: string;
  endpoint?: string;
  region?: string;
  target?: string;
  transport?: string;
  sloMs?: number;
  ladder?: 'adaptive' | 'fixed';
  rungs?: number[];
  maxConcurrency?: number;
  resolution?: number;
  holdS?: number;
  measureS?: number;
  settleS?: number;
  runs?: number;
  prompts?: string;
  events?: string;
  cloudwatch?: boolean;
  cloudwatchWaitS?: number;
  requestTimeoutS?: number;
  minSamples?: number;
  freezeTimeoutS?: number;
  dryRun?: boolean;
  out?: string;
  json?: boolean;
}

const rungList = (value: string): number[] => {
  const parts = value.split(',').map((p) => p.trim());
  const rungs = parts.map(Number);
  if (parts.some((p) => p === '') || rungs.some((n) => !Number.isInteger(n) || n <= 0)) {
    throw new InvalidArgumentError(
      `--rungs needs comma-separated positive integers (e.g. 1,5,10,20), got "${value}".`,
    );
  }
  return rungs;
};

/**
 * The content hash of container_dir, computed as the CDK computes asset hashes (src/local), loaded
 * only when an http measurement needs it (it pulls in aws-cdk-lib).
 */
async function containerAssetHash(dir: string): Promise<string> {
  const { containerAssetHash: hash } = await import('../local/asset-hash.js');
  return hash(dir);
}

export function registerQmax(program: Command): void {
  const a = LADDER_DEFAULTS.adaptive;
  const f = LADDER_DEFAULTS.fixed;
  const command = program
    .command('qmax')
    .summary('measure Q_max: the highest concurrency one instance holds inside the p95 TTFAB SLO')
    .description(
      'Closed-loop concurrency ladder against one frozen instance of the endpoint (InvokeEndpointWithResponseStream), ' +
        'or against a container directly with --target. Adaptive by default: concurrency 1, then x2 until a rung fails, ' +
        'then bisection to --resolution; each rung ends once its window is settled and the 95 % confidence interval of its ' +
        'p95 lies wholly inside or outside the SLO. The endpoint is frozen (thaw journal first, scaling suspended, one ' +
        'instance) and restored on every exit, SIGINT and SIGTERM included. Progress goes to stderr. ' +
        'Exit codes: 0 measured, 1 error (or a restore that failed), 2 refused input; 130/143 interrupted (restored).',
    );
  addModelOptions(command);
  command
    .option('--target <url>', 'measure a container directly: http://HOST:PORT (http transport, no AWS)')
    .addOption(
      new Option('--transport <kind>', `${TRANSPORT_HELP} (default: http with --target)`).argParser(
        (v: string) => parseTransportKind(v),
      ),
    )
    .option('--slo-ms <ms>', 'p95 TTFAB SLO (default: the model config)', positiveNumber('--slo-ms'))
    .addOption(
      new Option('--ladder <mode>', 'adaptive or fixed').choices(['adaptive', 'fixed']).default('adaptive'),
    )
    .option('--rungs <list>', 'fixed ladder rungs (default 1,5,10,20,30,40,50,60)', rungList)
    .option(
      '--max-concurrency <n>',
      `highest concurrency to try (adaptive default ${a.maxConcurrency})`,
      positiveInteger('--max-concurrency'),
    )
    .option(
      '--resolution <n>',
      `adaptive: bisect until Q_max is known to within n (default ${a.resolution})`,
      positiveInteger('--resolution'),
    )
    .option(
      '--hold-s <s>',
      `longest a rung runs (default adaptive ${a.holdS}, fixed ${f.holdS})`,
      positiveNumber('--hold-s'),
    )
    .option(
      '--measure-s <s>',
      `measure window (default adaptive ${a.measureS}, fixed ${f.measureS}: the last seconds of the hold)`,
      positiveNumber('--measure-s'),
    )
    .option(
      '--settle-s <s>',
      `discarded start of each rung (default adaptive ${a.settleS}, fixed ${f.settleS})`,
      nonNegativeNumber('--settle-s'),
    )
    .option(
      '--runs <n>',
      'repeat the whole ladder; Q_max is the lowest run (default 1)',
      positiveInteger('--runs'),
    )
    .option(
      '--prompts <file>',
      'texts to synthesise: JSONL {"text": ...} or plain lines (default: built-in set)',
    )
    .option('--events <file>', 'write one JSON line per request')
    .option('--no-cloudwatch', 'skip the CloudWatch join (no R)')
    .option(
      '--cloudwatch-wait-s <s>',
      'longest wait for late CloudWatch datapoints (default 180)',
      nonNegativeNumber('--cloudwatch-wait-s'),
    )
    .option(
      '--request-timeout-s <s>',
      'client timeout per request (default: invocation_ceiling_s)',
      positiveNumber('--request-timeout-s'),
    )
    .option(
      '--min-samples <n>',
      'a rung is never decided on fewer samples (default 100, at least 72)',
      positiveInteger('--min-samples'),
    )
    .option(
      '--freeze-timeout-s <s>',
      'longest wait for one InService instance (default 1200)',
      positiveNumber('--freeze-timeout-s'),
    )
    .option('--dry-run', 'print the schedule, worst-case duration, instance-minutes and cost; no AWS call')
    .option('--out <file>', 'artifact path (default artifacts/qmax-<model>-<transport>-<slug>.json)')
    .addOption(jsonOption())
    .action(async (flags: QmaxFlags) => {
      const ctx = loadModelContext(flags);
      const live = !flags.target && flags.transport !== 'http';
      const needsAws = live && !flags.dryRun;
      const clients = needsAws
        ? createAwsClients({ region: ctx.region, maxConcurrency: flags.maxConcurrency ?? a.maxConcurrency })
        : undefined;
      const progress = createProgressRenderer(process.stderr);
      try {
        const result = await runQmax(
          {
            modelName: ctx.modelName,
            model: ctx.model,
            configFile: ctx.configFile,
            endpoint: ctx.endpoint,
            variant: ctx.variant,
            region: ctx.region,
            target: flags.target,
            transport: flags.transport,
            sloMs: flags.sloMs,
            ladder: flags.ladder,
            rungs: flags.rungs,
            maxConcurrency: flags.maxConcurrency,
            resolution: flags.resolution,
            holdS: flags.holdS,
            measureS: flags.measureS,
            settleS: flags.settleS,
            runs: flags.runs,
            promptsFile: flags.prompts,
            eventsFile: flags.events,
            cloudwatch: flags.cloudwatch,
            cloudwatchWaitS: flags.cloudwatchWaitS,
            requestTimeoutS: flags.requestTimeoutS,
            minSamples: flags.minSamples,
            freezeTimeoutS: flags.freezeTimeoutS,
            dryRun: flags.dryRun,
            out: flags.out,
            commandLine: ['scalegate', ...process.argv.slice(2)].join(' '),
          },
          {
            clients,
            progress,
            containerAssetHash,
          },
        );
        present(result, { json: flags.json });
      } catch (e) {
        if (e instanceof InterruptedError) {
          const restore = e.restore;
          process.stderr.write(
            `scalegate: qmax ${e.message}; ${restore ? (restore.errors.length === 0 ? 'the endpoint was restored' : `restore FAILED (${restore.errors.join('; ')}): run \`scalegate thaw\``) : 'nothing was frozen'}\n`,
          );
          process.exitCode = e.exitCode;
          return;
        }
        throw e;
      } finally {
        if (clients) destroyAwsClients(clients);
      }
    });
}
