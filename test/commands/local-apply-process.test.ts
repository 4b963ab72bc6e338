/**
 * `scalegate local apply` against a `scalegate local up` running as another process (another
 * shell): the plan's MAX_QUEUE_DEPTH reaches the serving container only through the wire
 * (CreateModel, CreateEndpointConfig, UpdateEndpoint), since nothing is shared in process.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  DescribeEndpointCommand,
  DescribeEndpointConfigCommand,
  DescribeModelCommand,
} from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import { repoRoot } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { configFile, emulatorPlanFile, MODEL, workspace } from './local-apply-fixtures.js';

interface LocalUpInfo {
  aws_endpoint_url: string;
  region: string;
  endpoint_name: string;
  variant: string;
}

let child: ChildProcess;
let exited: Promise<number | null>;
let info: LocalUpInfo;
let clients: AwsClients;
const stderr: string[] = [];
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

beforeAll(async () => {
  // `node --import tsx src/cli.ts` (one process, so SIGTERM reaches `local up` itself).
  child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      join(repoRoot, 'src', 'cli.ts'),
      'local',
      'up',
      '--provision-delay-s',
      '0.2',
      '--verbose',
    ],
    { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  createInterface({ input: child.stderr as NodeJS.ReadableStream }).on('line', (l) => stderr.push(l));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`local up exited ${code}:\n${stderr.join('\n')}`)));
  });
  info = JSON.parse(line) as LocalUpInfo;
  clients = createAwsClients({ region: info.region, endpoint: info.aws_endpoint_url, credentials });
});

afterAll(async () => {
  if (clients) destroyAwsClients(clients);
  if (child && child.exitCode === null) {
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
  }
});

async function servedQueueDepth(): Promise<string | undefined> {
  const sm = clients.sagemaker;
  const ep = await sm.send(new DescribeEndpointCommand({ EndpointName: info.endpoint_name }));
  const config = await sm.send(
    new DescribeEndpointConfigCommand({ EndpointConfigName: ep.EndpointConfigName }),
  );
  const model = await sm.send(
    new DescribeModelCommand({ ModelName: config.ProductionVariants?.[0]?.ModelName }),
  );
  return model.PrimaryContainer?.Environment?.MAX_QUEUE_DEPTH;
}

describe('scalegate local apply against `scalegate local up` in another process', () => {
  it('sets the plan MAX_QUEUE_DEPTH over the wire, replaces the serving instance and reads back clean (exit 0)', async () => {
    const dir = workspace('local-apply-process');
    const access = {
      handle: { endpointName: info.endpoint_name, variantName: info.variant, region: info.region },
      clients,
    };
    const planFile = await emulatorPlanFile(access, dir);
    expect(await servedQueueDepth()).toBe('64');
    const saved = { ...process.env };
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: info.aws_endpoint_url,
      AWS_REGION: info.region,
      AWS_ACCESS_KEY_ID: credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      SCALEGATE_STATE_DIR: join(dir, 'state'),
    });
    let run: Awaited<ReturnType<typeof runCli>>;
    try {
      run = await runCli(['local', 'apply', '--config', configFile, '--model', MODEL, '--plan', planFile]);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    expect(run.stdout).toMatch(/MAX_QUEUE_DEPTH 64 -> 50 \(CreateModel .*UpdateEndpoint blue\/green/);
    expect(run.stdout).toMatch(/read back: every parameter equals the plan/);
    expect(await servedQueueDepth()).toBe('50');
    // The emulator process replaced its container: a new one, listening with max_queue_depth=50.
    const log = stderr.join('\n');
    expect(log).toMatch(/\[tts\] listening .*max_queue_depth=50/);
    expect(log).toMatch(/traffic shifted to speech-kokoro-82m-config-\w+; draining 1 old instance/);
  });
});
