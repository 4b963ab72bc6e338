/**
 * The request shape through the local SageMaker and the real SDK clients: a reference container
 * whose model environment demands `{"input", "voice"}` as application/json (REQUEST_CONTRACT,
 * REQUEST_CONTENT_TYPE, as a real model's container definition would carry them) is measured
 * with --body-template and refuses the default body and a wrong content type before anything is
 * frozen or written; and a recording container shows the exact bytes and headers a template
 * sends. The artifacts record the shape in their fingerprint and the vantage with its RTT floor.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkRequestShape, planRequests } from '../../src/commands/load-start.js';
import { runQmax } from '../../src/commands/qmax.js';
import { createTransport } from '../../src/load/transport/transports.js';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import {
  isUsageError,
  parseConfig,
  type QmaxArtifact,
  qmaxArtifactSchema,
  readArtifact,
} from '../../src/model/index.js';
import { thawJournalPath } from '../../src/model/journal.js';
import { startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';

const TEMPLATE = '{"input":"{{text}}","voice":"af_heart"}';
const dir = mkdtempSync(join(tmpdir(), 'scalegate-request-shape-'));
const stateDir = join(dir, 'state');
const promptsFile = join(dir, 'prompts.txt');
writeFileSync(promptsFile, 'Hello.\nYes, thanks.\nGood morning.\n');
const configFile = join(dir, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    'speech-api': {
      endpoint: 'speech-input-voice',
      region: 'local',
      instance_type: 'ml.g5.xlarge',
      container_dir: 'infra/container',
      container_env: { REQUEST_CONTRACT: 'input-voice', REQUEST_CONTENT_TYPE: 'application/json' },
      slo_ms: 1000,
      surge_ratio: 1.25,
      peak_rps: 50,
      trough_rps: 2,
    },
  },
});
writeFileSync(configFile, configText);
const model = parseConfig(configText, configFile).models['speech-api'] as NonNullable<
  ReturnType<typeof parseConfig>['models'][string]
>;

let endpoint: TestEndpoint | undefined;
let handle: LocalSageMakerHandle;

beforeAll(async () => {
  endpoint = await startTestEndpoint(
    {
      endpointName: 'speech-input-voice',
      instances: 1,
      quota: 2,
      // The model's container definition: the contract the container demands.
      environment: { REQUEST_CONTRACT: 'input-voice', REQUEST_CONTENT_TYPE: 'application/json' },
    },
    { DynamicScalingInSuspended: false, DynamicScalingOutSuspended: false, ScheduledScalingSuspended: false },
  );
  handle = endpoint.handle;
}, 90_000);

afterAll(async () => {
  await endpoint?.close();
}, 60_000);

const loadClient = () => {
  const local = clientConfigFor(handle);
  return { endpoint: local.endpoint, credentials: local.credentials };
};

const qmaxInput = (extra: Record<string, unknown>, out: string) => ({
  modelName: 'speech-api',
  model,
  configFile,
  endpoint: handle.endpointName,
  variant: handle.variantName,
  region: handle.region,
  maxConcurrency: 4,
  resolution: 1,
  holdS: 20,
  measureS: 5,
  settleS: 0.5,
  minSamples: 80,
  promptsFile,
  outFile: out,
  stateDir,
  cloudwatch: false,
  pollIntervalMs: 200,
  ...extra,
});

async function scalingSuspended(): Promise<boolean | undefined> {
  const out = await (endpoint as TestEndpoint).clients.autoscaling.send(
    new DescribeScalableTargetsCommand({
      ServiceNamespace: 'sagemaker',
      ResourceIds: [(endpoint as TestEndpoint).resourceId],
    }),
  );
  return out.ScalableTargets?.[0]?.SuspendedState?.DynamicScalingInSuspended;
}

describe('a container that demands {"input", "voice"} (local SageMaker, real SDK clients)', () => {
  it('the default {"text"} body is refused with the container\'s words and the fix, before any freeze or artifact (not measured as failures)', async () => {
    const out = join(dir, 'qmax-default.json');
    const error = await runQmax(qmaxInput({}, out), {
      clients: (endpoint as TestEndpoint).clients,
      handleSignals: false,
      loadClient: loadClient(),
    }).catch((e: unknown) => e);
    expect(isUsageError(error)).toBe(true);
    const message = (error as Error).message;
    expect(message).toMatch(/refused the request shape \(HTTP 400 from the container/);
    expect(message).toContain(
      '(HTTP 400 from the container: this container reads {"input": ..., "voice": ...}; "text" is not a field of its contract)',
    );
    expect(message).toContain('Sent {"text":"Hello."} as application/json');
    expect(message).toContain('--body-template');
    expect(message).toContain('nothing was measured');
    expect(existsSync(out)).toBe(false);
    expect(existsSync(thawJournalPath(handle.endpointName, stateDir))).toBe(false);
    expect(await scalingSuspended()).toBe(false);
  }, 60_000);

  it('a content type the container does not read is refused (415) naming --content-type', async () => {
    const out = join(dir, 'qmax-plain.json');
    const error = await runQmax(qmaxInput({ bodyTemplate: TEMPLATE, contentType: 'text/plain' }, out), {
      clients: (endpoint as TestEndpoint).clients,
      handleSignals: false,
      loadClient: loadClient(),
    }).catch((e: unknown) => e);
    expect(isUsageError(error)).toBe(true);
    expect((error as Error).message).toMatch(/HTTP 415 from the container/);
    expect((error as Error).message).toContain('--content-type');
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  describe('measured with --body-template', () => {
    let artifact: QmaxArtifact;
    const out = join(dir, 'qmax-input-voice.json');

    beforeAll(async () => {
      const result = await runQmax(qmaxInput({ bodyTemplate: TEMPLATE }, out), {
        clients: (endpoint as TestEndpoint).clients,
        handleSignals: false,
        loadClient: loadClient(),
        vantage: { env: { GITHUB_ACTIONS: 'true', RUNNER_ENVIRONMENT: 'github-hosted' }, host: 'runner-1' },
      });
      artifact = result.artifact as QmaxArtifact;
      expect(result.exitCode).toBe(0);
      // The figure the test measured (reported with the run).
      console.log(
        `request-shape-local: Q_max ${artifact.q_max} (measured, input-voice container, ${artifact.steps.length} rungs, RTT floor ${artifact.vantage?.rtt_floor?.tcp_ms} ms)`,
      );
    }, 240_000);

    it('succeeds: every rung was answered with audio, and Q_max is a measured concurrency', () => {
      expect(qmaxArtifactSchema.safeParse(readArtifact('qmax', out)).success).toBe(true);
      expect(artifact.q_max).toBeGreaterThanOrEqual(1);
      expect(artifact.steps.length).toBeGreaterThanOrEqual(2);
      for (const step of artifact.steps) {
        // Every request answered with audio: none refused as a malformed body.
        expect(step.outcome_counts.model_error ?? 0).toBe(0);
        expect(step.outcome_counts.error ?? 0).toBe(0);
        expect(step.ok).toBeGreaterThan(0);
      }
    });

    it('the fingerprint records the request shape, canonical, with its content type and accept', () => {
      expect(artifact.fingerprint.request).toEqual({
        body: TEMPLATE,
        content_type: 'application/json',
        accept: 'audio/wav',
      });
      expect(artifact.fingerprint.container_env).toMatchObject({ REQUEST_CONTRACT: 'input-voice' });
    });

    it('the vantage says where the load came from and its RTT floor to the loopback runtime host (measured)', () => {
      const v = artifact.vantage;
      expect(v).toMatchObject({ runner: 'github-hosted', region: null, host: 'runner-1' });
      expect(v?.rtt_floor?.provenance).toBe('measured');
      expect(v?.rtt_floor?.target).toBe(`127.0.0.1:${handle.port}`);
      expect(v?.rtt_floor?.completed).toBe(5);
      expect(v?.rtt_floor?.tcp_ms).toBeGreaterThan(0);
      expect(v?.rtt_floor?.tls_ms).toBeNull();
    });
  });
});

describe('the bytes a body template sends (recording container behind the local SageMaker)', () => {
  let recorder: LocalSageMakerHandle;
  const received: string[] = [];

  beforeAll(async () => {
    recorder = await startLocalSageMaker({
      endpointName: 'speech-recorder',
      provisionDelayS: 0.1,
      container: {
        command: [
          process.execPath,
          fileURLToPath(new URL('./fixtures/recording-container.mjs', import.meta.url)),
        ],
      },
      onContainerLine: (_, line) => {
        if (line.startsWith('[received] ')) received.push(line.slice('[received] '.length));
      },
    });
  }, 60_000);

  afterAll(async () => {
    await recorder?.close();
  }, 30_000);

  it('the container receives the template with the prompt JSON-escaped, and the content type and accept asked for', async () => {
    const prompts = join(dir, 'tricky.txt');
    writeFileSync(prompts, 'She said "hi" \\ then – ünïcode.\n');
    const plan = planRequests(
      {
        modelName: 'speech-api',
        configFile,
        promptsFile: prompts,
        bodyTemplate: '{ "input": "{{text}}",  "voice": "af_heart", "speed": 1.0 }',
        accept: 'audio/mpeg',
      },
      {},
    );
    const local = clientConfigFor(recorder);
    const transport = createTransport('response-stream', {
      maxConcurrency: 1,
      targetUrl: null,
      endpoint: recorder.endpointName,
      variant: recorder.variantName,
      region: local.region,
      loadClient: { endpoint: local.endpoint, credentials: local.credentials },
      request: { contentType: plan.shape.content_type, accept: plan.shape.accept },
    });
    try {
      await checkRequestShape(
        'qmax',
        transport,
        plan,
        { modelName: 'speech-api', configFile },
        {
          timeoutMs: 10_000,
          log: () => {},
        },
      );
    } finally {
      await transport.close();
    }
    expect(received).toHaveLength(1);
    const record = JSON.parse(received[0] as string) as Record<string, string>;
    const body = Buffer.from(record.body_base64 as string, 'base64').toString('utf8');
    expect(body).toBe('{"input":"She said \\"hi\\" \\\\ then – ünïcode.","voice":"af_heart","speed":1}');
    expect(JSON.parse(body)).toEqual({
      input: 'She said "hi" \\ then – ünïcode.',
      voice: 'af_heart',
      speed: 1,
    });
    expect(record.content_type).toBe('application/json');
    expect(record.accept).toBe('audio/mpeg');
  }, 30_000);
});
