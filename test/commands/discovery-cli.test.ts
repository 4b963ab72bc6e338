/**
 * The CLI finds the measurements it is not given the way the action does (one function,
 * src/commands/discover.ts): plan without --qmax/--ttotal takes the newest qmax whose
 * fingerprint fits the config and its ttotal, ttotal without --qmax the newest qmax, and each
 * says on stderr which file it chose and why.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolvePlanInputs } from '../../src/commands/discover.js';
import { loadModelContext, readArtifact, writeArtifact } from '../../src/model/index.js';
import { repoRoot } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';

const CONFIG = join(repoRoot, 'scalegate.config.json');
const QMAX = 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json';
const TTOTAL = 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json';
const SLUG = 'g5xlarge-8b1b96bc';

let cwd: string;
beforeEach(() => {
  cwd = process.cwd();
  const scratch = mkdtempSync(join(tmpdir(), 'scalegate-discovery-'));
  process.chdir(scratch);
  mkdirSync('artifacts');
  copyFileSync(join(repoRoot, 'artifacts', QMAX), join('artifacts', QMAX));
  copyFileSync(join(repoRoot, 'artifacts', TTOTAL), join('artifacts', TTOTAL));
});
afterEach(() => process.chdir(cwd));

/** A copy of the committed qmax, as another run measured at `at`. */
function olderQmax(name: string, at: string) {
  const artifact = readArtifact('qmax', join('artifacts', QMAX));
  writeArtifact('qmax', join('artifacts', name), { ...artifact, measured_at: at, run_id: 'a0a0a0a0a0a0' });
}

describe('scalegate plan without --qmax', () => {
  it('uses the newest qmax of the config’s fingerprint and its ttotal, and names both on stderr', async () => {
    olderQmax(`qmax-kokoro-82m-response-stream-${SLUG}-old.json`, '2020-01-01T00:00:00.000Z');
    const run = await runCli(['plan', '--config', CONFIG, '--model', 'kokoro-82m']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain(
      `scalegate: qmax: using artifacts/${QMAX} (newest for model kokoro-82m, fingerprint ${SLUG})`,
    );
    expect(run.stderr).toContain(
      `scalegate: ttotal: using artifacts/${TTOTAL} (newest with the qmax's fingerprint ${SLUG})`,
    );
    const plan = JSON.parse(readFileSync(join('artifacts', 'plan-kokoro-82m.json'), 'utf8'));
    expect(plan.inputs.qmax.file).toBe(`artifacts/${QMAX}`);
    expect(plan.inputs.ttotal.file).toBe(`artifacts/${TTOTAL}`);
  });

  it('chooses exactly what the action chooses (one function for both)', () => {
    olderQmax(`qmax-kokoro-82m-response-stream-${SLUG}-old.json`, '2020-01-01T00:00:00.000Z');
    const { modelName, model } = loadModelContext({ configFile: CONFIG, modelName: 'kokoro-82m' });
    const found = resolvePlanInputs({}, 'artifacts', modelName, model);
    expect(found.qmax.file).toBe(join('artifacts', QMAX));
    expect(found.ttotal?.file).toBe(join('artifacts', TTOTAL));
    expect(found.chosen).toHaveLength(2);
  });

  it('takes no ttotal when a T_total is stated, and says nothing of one', async () => {
    const run = await runCli([
      'plan',
      '--config',
      CONFIG,
      '--model',
      'kokoro-82m',
      '--assume-t-total',
      '300',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toContain('scalegate: qmax: using');
    expect(run.stderr).not.toContain('ttotal: using');
  });

  it('refuses (exit 2) when no qmax fits, naming --qmax, and writes nothing', async () => {
    const run = await runCli(['plan', '--config', CONFIG, '--model', 'reference-tts']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/no qmax artifact for reference-tts in artifacts .*name the file with --qmax/);
  });
});

describe('scalegate ttotal without --qmax', () => {
  it('names the qmax it found before it touches AWS (here: an unreachable one, exit 3)', async () => {
    const server = createServer();
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((done) => server.close(() => done()));
    const keys = [
      'AWS_ENDPOINT_URL',
      'AWS_REGION',
      'AWS_ACCESS_KEY_ID',
      'AWS_SECRET_ACCESS_KEY',
      'AWS_MAX_ATTEMPTS',
    ];
    const saved = keys.map((k) => process.env[k]);
    // The SageMaker URL is on loopback, so the run counts as local: it reads and writes
    // artifacts/local/, where discovery then looks.
    mkdirSync(join('artifacts', 'local'));
    copyFileSync(join('artifacts', QMAX), join('artifacts', 'local', QMAX));
    Object.assign(process.env, {
      AWS_ENDPOINT_URL: `http://127.0.0.1:${port}`,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'x',
      AWS_SECRET_ACCESS_KEY: 'y',
      AWS_MAX_ATTEMPTS: '1',
    });
    try {
      const run = await runCli([
        'ttotal',
        '--config',
        CONFIG,
        '--model',
        'kokoro-82m',
        '--endpoint',
        'speech-kokoro-82m-calibration',
      ]);
      expect(run.stderr).toContain(
        `scalegate: qmax: using artifacts/local/${QMAX} (newest for model kokoro-82m, fingerprint ${SLUG})`,
      );
      expect(run.exitCode, run.stderr).toBe(3);
    } finally {
      keys.forEach((k, i) => {
        if (saved[i] === undefined) delete process.env[k];
        else process.env[k] = saved[i];
      });
    }
  });
});
