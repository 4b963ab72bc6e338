/**
 * `scalegate local up`: the local SageMaker as a long-running process. Flags here; the work in
 * src/local/up.ts.
 */
import { type Command, InvalidArgumentError } from 'commander';
import { resolveDevice } from '../commands/device.js';
import { localImageUri } from '../commands/rehearse.js';
import { runLocalUp } from '../local/up.js';
import { UsageError } from '../model/errors.js';
import { deviceOptions } from '../options/device.js';
import { tableRows } from '../plan/price-table.js';
import { addOptions, optionValues } from './options.js';

const integer =
  (flag: string, min: number, max = Number.MAX_SAFE_INTEGER) =>
  (value: string): number => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || n < min || n > max)
      throw new InvalidArgumentError(`${flag} needs an integer in ${min}..${max}, got "${value}".`);
    return n;
  };

const seconds =
  (flag: string) =>
  (value: string): number => {
    const n = Number(value);
    if (value.trim() === '' || !Number.isFinite(n) || n < 0)
      throw new InvalidArgumentError(`${flag} needs a number of seconds >= 0, got "${value}".`);
    return n;
  };

const endpointName = (value: string): string => {
  // SageMaker's endpoint name rule.
  if (!/^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/.test(value))
    throw new InvalidArgumentError(
      `--endpoint needs a SageMaker endpoint name (letters, digits, hyphens; up to 63), got "${value}".`,
    );
  return value;
};

const LOCAL_UP_DEVICE_OPTIONS = deviceOptions({ device: 'cpu', timeScale: '1' });

interface LocalUpFlags {
  port?: number;
  endpoint?: string;
  instances?: number;
  provisionDelayS?: number;
  maxQueueDepth?: number;
  workers?: number;
  quota?: number;
  verbose?: boolean;
  env?: Record<string, string>;
  price?: Record<string, number>;
}

/** `--env KEY=VALUE`, repeatable: model environment of the endpoint's containers. */
function envPair(raw: string, previous: Record<string, string> = {}): Record<string, string> {
  const m = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(raw);
  if (!m) throw new UsageError(`--env ${raw}: give KEY=VALUE (e.g. --env REQUEST_CONTRACT=input-voice).`);
  return { ...previous, [m[1] as string]: m[2] as string };
}

/** `--price ml.x.y=1.23`, repeatable: the Price List API's USD per instance-hour of one instance type. */
function pricePair(raw: string, previous: Record<string, number> = {}): Record<string, number> {
  const m = /^(ml\.[a-z0-9]+\.[a-z0-9]+)=(\d+(?:\.\d+)?)$/.exec(raw.trim());
  const usd = m ? Number(m[2]) : Number.NaN;
  if (!m || !(usd > 0)) {
    throw new UsageError(
      `--price ${raw}: give <instance type>=<USD per hour> (e.g. --price ml.g5.xlarge=1.408).`,
    );
  }
  return { ...previous, [m[1] as string]: usd };
}

/** Adds `local up` (and the `local` group) to the program. */
export function registerLocalUp(program: Command): void {
  const local =
    program.commands.find((c) => c.name() === 'local') ??
    program
      .command('local')
      .summary('the local SageMaker: AWS APIs and a fleet of real containers on loopback, no AWS account')
      .description(
        'The local SageMaker: SageMaker, SageMaker Runtime, Application Auto Scaling, CloudWatch, CloudWatch Logs, Service Quotas and the Price List API on loopback, backed by real reference TTS container processes.',
      );
  const command = local
    .command('up')
    .summary('start the local SageMaker with one endpoint and run until SIGINT/SIGTERM')
    .description(
      'Start the local SageMaker with one endpoint (variant AllTraffic, region local) backed by reference TTS containers, ' +
        'and print one JSON line {"aws_endpoint_url","region","endpoint_name","variant"} on stdout once it is InService ' +
        '(progress on stderr). Point any AWS SDK or scalegate command at it with AWS_ENDPOINT_URL=<aws_endpoint_url> ' +
        'AWS_REGION=local and any credentials. Runs until SIGINT/SIGTERM, then stops every container it started. ' +
        'Exit codes: 0 stopped cleanly, 1 could not start, 2 bad flag.',
    )
    .option('--port <n>', 'TCP port on 127.0.0.1 (0 = any free port)', integer('--port', 0, 65535), 0)
    .option('--endpoint <name>', 'endpoint name', endpointName, 'speech-kokoro-82m')
    .option('--instances <n>', 'initial instance count', integer('--instances', 1, 64), 1)
    .option(
      '--provision-delay-s <s>',
      'seconds from a capacity request to the instance process starting (the instance "boot")',
      seconds('--provision-delay-s'),
      2,
    )
    .option(
      '--max-queue-depth <n>',
      'MAX_QUEUE_DEPTH of the model environment',
      integer('--max-queue-depth', 1),
      64,
    )
    .option(
      '--workers <n>',
      'WORKERS of the model environment (synthesis threads per instance)',
      integer('--workers', 1, 64),
      1,
    )
    .option('--quota <n>', "the '<instance type> for endpoint usage' quota", integer('--quota', 1, 1000), 4)
    .option(
      '--env <KEY=VALUE>',
      'model environment of the containers, repeatable (e.g. REQUEST_CONTRACT=input-voice: the reference container then reads {"input","voice"})',
      envPair,
    )
    .option(
      '--price <type=usd>',
      "the Price List API's on-demand USD per instance-hour of one instance type, repeatable (default: the committed fallback table's us-east-1 rows, answered for any region)",
      pricePair,
    )
    .option('--verbose', 'echo container output on stderr');
  addOptions(command, LOCAL_UP_DEVICE_OPTIONS).action(
    async (flags: LocalUpFlags & Record<string, unknown>) => {
      if ((flags.instances ?? 1) > (flags.quota ?? 4)) {
        throw new UsageError(
          `--instances ${flags.instances} exceeds --quota ${flags.quota}: raise --quota or start fewer instances.`,
        );
      }
      const { device: choice = 'cpu', timeScale, startup } = optionValues(LOCAL_UP_DEVICE_OPTIONS, flags);
      const { device } = resolveDevice({ device: choice, timeScale, startup });
      // The image the endpoint reports: infra/container's CDK asset URI, as `cdk deploy` tags it.
      const code = await runLocalUp(
        {
          ...flags,
          device,
          imageUri: localImageUri(),
          ...(flags.env ? { environment: flags.env } : {}),
          prices: { ...tableRows('us-east-1'), ...(flags.price ?? {}) },
        },
        {
          stdout: (line) => process.stdout.write(`${line}\n`),
          stderr: (line) => process.stderr.write(`${line}\n`),
        },
      );
      process.exitCode = code;
    },
  );
}
