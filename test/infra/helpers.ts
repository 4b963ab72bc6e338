/**
 * Building the scalegate CDK app in a test: the context of infra/cdk.json (what `cdk synth`
 * uses), a config and an artifacts directory of the test's choosing, and a container directory
 * that needs no Docker (synth only stages it).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { buildScalegateApp, type ModelStacks } from '../../infra/lib/app.js';
import type { WeightsSource } from '../../infra/lib/weights.js';
import type { ModelConfig } from '../../src/model/index.js';

export const REPO = resolve(import.meta.dirname, '..', '..');
export const TEST_ACCOUNT = '111122223333';

const cdkJson = JSON.parse(readFileSync(join(REPO, 'infra', 'cdk.json'), 'utf8')) as {
  context: Record<string, unknown>;
};

export interface TestAppOptions {
  models: Record<string, ModelConfig>;
  artifactsDir: string;
  context?: Record<string, string>;
  weights?: Record<string, WeightsSource>;
}

export interface TestApp {
  app: App;
  stacks: ModelStacks[];
}

/** Builds the app; a refused gate throws from here, as it does from `cdk synth`. */
export function buildTestApp(options: TestAppOptions): TestApp {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-cdk-'));
  const configFile = join(dir, 'scalegate.config.json');
  writeFileSync(configFile, JSON.stringify({ models: options.models }, null, 2));
  const app = new App({
    outdir: join(dir, 'cdk.out'),
    context: {
      ...cdkJson.context,
      'scalegate:config': configFile,
      'scalegate:artifactsDir': options.artifactsDir,
      // The proofs' attestations are judged by the tests that give a trust root (gate-attested.test.ts).
      'scalegate:offline': 'true',
      ...options.context,
    },
  });
  const stacks = buildScalegateApp(app, {
    repoRoot: REPO,
    account: TEST_ACCOUNT,
    weights: options.weights ?? {},
  });
  return { app, stacks };
}

export const templateOf = (stack: import('aws-cdk-lib').Stack): Template => Template.fromStack(stack);

/** A container directory with a Dockerfile: enough for a DockerImageAsset to stage and hash. */
export function containerDir(content = 'v1'): string {
  const dir = mkdtempSync(join(tmpdir(), 'scalegate-container-'));
  writeFileSync(join(dir, 'Dockerfile'), 'FROM scratch\nCOPY model.txt /model.txt\n');
  writeFileSync(join(dir, 'model.txt'), `${content}\n`);
  mkdirSync(join(dir, 'ignored'));
  writeFileSync(join(dir, 'ignored', 'big.bin'), 'not part of the image\n');
  writeFileSync(join(dir, '.dockerignore'), 'ignored/\n');
  return dir;
}

/** Resources of one type as [logicalId, Properties] pairs. */
export function resourcesOf(template: Template, type: string): [string, Record<string, unknown>][] {
  return Object.entries(template.findResources(type)).map(([id, r]) => [
    id,
    (r as { Properties: Record<string, unknown> }).Properties,
  ]);
}
