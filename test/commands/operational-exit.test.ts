/**
 * Exit code 3: every command that calls AWS, pointed at an unreachable SageMaker (a closed
 * loopback port) or at a local SageMaker without the endpoint, exits 3 through the CLI with one
 * line naming the operation, the resource and the region, and no stack trace: an outage is not a
 * finding (exit 1) nor a usage error (exit 2).
 */
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { repoRoot } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { serialContainer } from './local-apply-fixtures.js';

const CONFIG = join(repoRoot, 'scalegate.config.json');
const QMAX = join(repoRoot, 'artifacts', 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
const PLAN = join(repoRoot, 'artifacts', 'plan-kokoro-82m.json');
const ENDPOINT = 'ops-missing-calibration';
const REGION = 'eu-west-3';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

const common = ['--config', CONFIG, '--model', 'kokoro-82m', '--endpoint', ENDPOINT, '--region', REGION];

/** Every AWS-touching command of the registry (src/options/commands.ts), as the CLI runs it. */
function commands(dir: string): Record<string, string[]> {
  const out = (name: string) => ['--out', join(dir, `${name}.json`)];
  return {
    drift: ['drift', ...common, ...out('drift')],
    qmax: ['qmax', ...common, ...out('qmax')],
    goodput: ['goodput', ...common, ...out('goodput')],
    ttotal: ['ttotal', ...common, '--qmax', QMAX, ...out('ttotal')],
    validate: ['validate', ...common, '--plan', PLAN, ...out('validate')],
    drill: ['drill', ...common, '--plan', PLAN, ...out('drill')],
    thaw: ['thaw', ...common, '--clear-suspension'],
    'local-apply': ['local', 'apply', ...common, '--plan', PLAN],
  };
}

const ENV_KEYS = [
  'AWS_ENDPOINT_URL',
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_MAX_ATTEMPTS',
  'SCALEGATE_STATE_DIR',
] as const;

function withEnv(values: Record<(typeof ENV_KEYS)[number], string>): () => void {
  const saved = Object.fromEntries(ENV_KEYS.map((k) => [k, process.env[k]]));
  Object.assign(process.env, values);
  return () => {
    for (const k of ENV_KEYS) {
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
    }
  };
}

function expectOperational(
  name: string,
  run: { exitCode: number; stderr: string; stdout: string },
  cause: RegExp,
) {
  const all = `${name}: ${run.stdout}${run.stderr}`;
  expect(run.exitCode, all).toBe(3);
  const line = run.stderr.split('\n').find((l) => l.startsWith('scalegate: operational error: '));
  expect(line, all).toBeDefined();
  // The operation (an AWS API name), the resource (this endpoint) and the region.
  expect(line, all).toMatch(/operational error: [A-Z][A-Za-z]+ /);
  expect(line, all).toContain(ENDPOINT);
  expect(line, all).toContain(`in ${REGION}`);
  expect(line, all).toMatch(cause);
  expect(run.stderr, all).not.toMatch(/\n\s+at /);
}

describe('an unreachable SageMaker (a closed loopback port)', () => {
  let restore: () => void;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scalegate-ops-'));
    restore = withEnv({
      AWS_ENDPOINT_URL: `http://127.0.0.1:${await closedPort()}`,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
      AWS_MAX_ATTEMPTS: '1',
      SCALEGATE_STATE_DIR: join(dir, 'state'),
    });
  });
  afterAll(() => restore());

  for (const name of Object.keys(commands('/unused'))) {
    it(`exits 3 from \`${name}\` naming the operation, the endpoint and the region (not 1, a finding)`, async () => {
      const run = await runCli(commands(dir)[name] as string[]);
      expectOperational(name, run, /ECONNREFUSED/);
    });
  }
});

describe('a local SageMaker without that endpoint', () => {
  let handle: LocalSageMakerHandle;
  let restore: () => void;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'scalegate-ops-missing-'));
    handle = await startLocalSageMaker({ provisionDelayS: 0.2, container: serialContainer });
    const local = clientConfigFor(handle);
    restore = withEnv({
      AWS_ENDPOINT_URL: local.endpoint,
      AWS_REGION: REGION,
      AWS_ACCESS_KEY_ID: local.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: local.credentials.secretAccessKey,
      AWS_MAX_ATTEMPTS: '1',
      SCALEGATE_STATE_DIR: join(dir, 'state'),
    });
  });
  afterAll(async () => {
    restore?.();
    await handle?.close();
  });

  for (const name of ['qmax', 'goodput', 'ttotal', 'drill', 'thaw', 'local-apply'] as const) {
    it(`exits 3 from \`${name}\` saying SageMaker could not find the endpoint (an operational error, not a usage error)`, async () => {
      const run = await runCli(commands(dir)[name] as string[]);
      expectOperational(name, run, /Could not find endpoint .*\(ValidationException\)$/);
    });
  }

  // drift and validate exist to compare what is deployed with what the repo declares: a missing
  // endpoint is such a difference, reported as a finding with its fix (docs/exit-codes.md).
  for (const name of ['drift', 'validate'] as const) {
    it(`reports a missing endpoint from \`${name}\` as a finding (exit 1) naming the endpoint, not as an outage`, async () => {
      const run = await runCli(commands(dir)[name] as string[]);
      expect(run.exitCode, run.stdout + run.stderr).toBe(1);
      expect(run.stdout).toContain(ENDPOINT);
      expect(run.stderr).not.toMatch(/operational error/);
    });
  }
});
