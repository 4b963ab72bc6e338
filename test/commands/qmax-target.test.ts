/**
 * `scalegate qmax --target URL` measures a container directly: it needs no model of the config,
 * so a config that declares several models (the repository's) does not stop it. Without --model
 * the measurement is recorded under a neutral name from the target and claims nothing of any
 * configured model (instance type, image, region).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArtifact, readConfigFile } from '../../src/model/index.js';
import { configFile } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { type CapacityServer, startCapacityServer } from '../load/fixtures/capacity-server.js';

let server: CapacityServer;
beforeAll(async () => {
  server = await startCapacityServer({ slots: 4, periodMs: 10, gatherMs: 2 });
});
afterAll(async () => {
  await server.close();
});

describe('qmax --target with a config of several models', () => {
  it('needs no --model: the repository config declares two models and a direct measurement still runs (dry run)', async () => {
    expect(Object.keys(readConfigFile(configFile).models).length).toBeGreaterThan(1);
    const run = await runCli([
      'qmax',
      '--config',
      configFile,
      '--target',
      server.url,
      '--slo-ms',
      '500',
      '--dry-run',
    ]);
    expect(run.stderr).toBe('');
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`qmax dry run: direct-127-0-0-1-${server.port} \\(http`));
  });

  it('asks for --slo-ms when no model gives the SLO (exit 2, naming the flag)', async () => {
    const run = await runCli(['qmax', '--config', configFile, '--target', server.url, '--dry-run']);
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/--target without --model: .*--slo-ms/);
  });

  it('records the measurement under the neutral name and claims no configured model’s instance type, image or region', async () => {
    const out = join(mkdtempSync(join(tmpdir(), 'scalegate-qmax-target-')), 'qmax.json');
    const run = await runCli([
      'qmax',
      '--config',
      configFile,
      '--target',
      server.url,
      '--slo-ms',
      '500',
      '--ladder',
      'fixed',
      '--rungs',
      '1',
      '--hold-s',
      '1.6',
      '--measure-s',
      '1.2',
      '--settle-s',
      '0.2',
      '--min-samples',
      '72',
      '--out',
      out,
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    const artifact = readArtifact('qmax', out);
    expect(artifact.model_name).toBe(`direct-127-0-0-1-${server.port}`);
    expect(artifact.fingerprint).toEqual({
      instance_type: 'ml.unknown.direct',
      image_digest: 'unknown',
      container_env: {},
      region: 'local',
      request: { body: '{"text":"{{text}}"}', content_type: 'application/json', accept: 'audio/wav' },
    });
    expect(artifact.steps.map((s) => s.concurrency)).toEqual([1]);
  }, 30_000);

  it('still takes the model given with --model (its image and instance type are what the measurement stands for)', async () => {
    const run = await runCli([
      'qmax',
      '--config',
      configFile,
      '--model',
      'kokoro-82m',
      '--target',
      server.url,
      '--dry-run',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/qmax dry run: kokoro-82m \(http/);
  });
});
