/**
 * Runs against the local SageMaker never write into the committed artifacts/: a command whose
 * AWS clients reach loopback writes under artifacts/local/ by default (and says so), a plan of
 * local measurements stays beside them, a rehearsal writes there; against AWS the default stays
 * artifacts/. Each run works in a scratch directory, as a checkout would.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import { artifactsDirFor } from '../../src/cli/shared.js';
import { runPlan } from '../../src/commands/plan.js';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { LOCAL_ARTIFACTS_DIR, loadModelContext } from '../../src/model/index.js';
import { REHEARSE_OPTIONS } from '../../src/options/rehearse.js';
import { repoRoot } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { serialContainer } from './local-apply-fixtures.js';

const CONFIG = join(repoRoot, 'scalegate.config.json');
const QMAX = 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json';
const TTOTAL = 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json';

let cwd: string;
let scratch: string;
beforeEach(() => {
  cwd = process.cwd();
  scratch = mkdtempSync(join(tmpdir(), 'scalegate-local-artifacts-'));
  process.chdir(scratch);
});
afterEach(() => process.chdir(cwd));

const files = (dir: string): string[] => (existsSync(dir) ? readdirSync(dir) : []);

describe('a command against the local SageMaker', () => {
  let handle: LocalSageMakerHandle;
  const saved: Record<string, string | undefined> = {};
  beforeAll(async () => {
    handle = await startLocalSageMaker({
      provisionDelayS: 0.2,
      container: serialContainer,
      registerScalableTarget: true,
    });
    const local = clientConfigFor(handle);
    const env = {
      AWS_ENDPOINT_URL: local.endpoint,
      AWS_REGION: local.region,
      AWS_ACCESS_KEY_ID: local.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: local.credentials.secretAccessKey,
    };
    for (const [k, v] of Object.entries(env)) {
      saved[k] = process.env[k];
      process.env[k] = v;
    }
  });
  afterAll(async () => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    await handle?.close();
  });

  it('writes its artifact under artifacts/local/, not artifacts/, and says where (drift without --out)', async () => {
    process.env.SCALEGATE_STATE_DIR = join(scratch, 'state');
    try {
      const run = await runCli([
        'drift',
        '--config',
        CONFIG,
        '--model',
        'kokoro-82m',
        '--endpoint',
        handle.endpointName,
      ]);
      expect([0, 1], run.stdout + run.stderr).toContain(run.exitCode);
      expect(files(join(scratch, 'artifacts', 'local'))).toEqual(['drift-kokoro-82m.json']);
      expect(files(join(scratch, 'artifacts'))).toEqual(['local']);
      expect(run.stderr).toContain(
        'the local SageMaker (AWS_ENDPOINT_URL on loopback): artifacts go to artifacts/local/',
      );
      expect(run.stdout).toContain('artifacts/local/drift-kokoro-82m.json');
    } finally {
      delete process.env.SCALEGATE_STATE_DIR;
    }
  });

  it('still writes where --out says', async () => {
    process.env.SCALEGATE_STATE_DIR = join(scratch, 'state');
    try {
      const out = join(scratch, 'elsewhere', 'drift.json');
      await runCli([
        'drift',
        '--config',
        CONFIG,
        '--model',
        'kokoro-82m',
        '--endpoint',
        handle.endpointName,
        '--out',
        out,
      ]);
      expect(existsSync(out)).toBe(true);
      expect(files(join(scratch, 'artifacts'))).toEqual([]);
    } finally {
      delete process.env.SCALEGATE_STATE_DIR;
    }
  });
});

describe('where the artifacts go, from the clients alone (no AWS call)', () => {
  it('artifacts/local/ for loopback clients, the default for AWS, and whatever is given always', async () => {
    const local = createAwsClients({ region: 'us-east-1', endpoint: 'http://127.0.0.1:9' });
    const aws = createAwsClients({
      region: 'us-east-1',
      endpoint: 'https://sagemaker.us-east-1.amazonaws.com',
    });
    try {
      expect(await artifactsDirFor(undefined, local)).toEqual({ artifactsDir: LOCAL_ARTIFACTS_DIR });
      expect(await artifactsDirFor(undefined, aws)).toEqual({});
      expect(await artifactsDirFor(undefined, undefined)).toEqual({});
      expect(await artifactsDirFor('mine', local)).toEqual({ artifactsDir: 'mine' });
    } finally {
      destroyAwsClients(local);
      destroyAwsClients(aws);
    }
  });
});

describe('a plan and a rehearsal of local measurements', () => {
  const context = loadModelContext({ configFile: CONFIG, modelName: 'kokoro-82m' });

  it('writes the plan of artifacts/local/ measurements beside them, not into artifacts/', () => {
    mkdirSync(join('artifacts', 'local'), { recursive: true });
    copyFileSync(join(repoRoot, 'artifacts', QMAX), join('artifacts', 'local', QMAX));
    copyFileSync(join(repoRoot, 'artifacts', TTOTAL), join('artifacts', 'local', TTOTAL));
    const result = runPlan({
      modelName: context.modelName,
      model: context.model,
      qmaxFile: join('artifacts', 'local', QMAX),
      ttotalFile: join('artifacts', 'local', TTOTAL),
    });
    expect(result.written).toEqual([join('artifacts', 'local', 'plan-kokoro-82m.json')]);
    expect(files('artifacts').sort()).toEqual(['local']);
  });

  it('writes the plan of committed measurements into artifacts/ as before', () => {
    mkdirSync('artifacts');
    copyFileSync(join(repoRoot, 'artifacts', QMAX), join('artifacts', QMAX));
    const result = runPlan({
      modelName: context.modelName,
      model: context.model,
      qmaxFile: join('artifacts', QMAX),
      assumeTTotalS: 300,
    });
    expect(result.written).toEqual([join('artifacts', 'plan-kokoro-82m.json')]);
  });

  it('rehearses (npm start) into artifacts/local/ by default', () => {
    expect(REHEARSE_OPTIONS.outDir.default).toBe(LOCAL_ARTIFACTS_DIR);
  });
});
