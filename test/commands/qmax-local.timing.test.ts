/**
 * qmax against the local SageMaker with the reference TTS container, over the real SDK clients
 * and InvokeEndpointWithResponseStream: the freeze is visible while the ladder runs and restored
 * exactly afterwards, the CloudWatch join brings R into the artifact, and plan consumes it.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeScalableTargetsCommand } from '@aws-sdk/client-application-auto-scaling';
import { DescribeEndpointCommand } from '@aws-sdk/client-sagemaker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AwsClients } from '../../src/aws/clients.js';
import { runPlan } from '../../src/commands/plan.js';
import { runQmax } from '../../src/commands/qmax.js';
import type { ProgressEvent } from '../../src/load/progress.js';
import { clientConfigFor, type LocalSageMakerHandle } from '../../src/local/index.js';
import { parseConfig, type QmaxArtifact, qmaxArtifactSchema, readArtifact } from '../../src/model/index.js';
import { thawJournalPath } from '../../src/model/journal.js';
import { startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-qmax-local-'));
const stateDir = join(dir, 'state');
const promptsFile = join(dir, 'prompts.txt');
writeFileSync(promptsFile, 'Hello.\nYes, thanks.\nGood morning.\n');
const configFile = join(dir, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    'reference-tts': {
      endpoint: 'speech-reference-tts',
      region: 'local',
      instance_type: 'ml.g5.xlarge',
      container_dir: 'infra/container',
      slo_ms: 1000,
      surge_ratio: 1.25,
      peak_rps: 200,
      trough_rps: 2,
    },
  },
});
writeFileSync(configFile, configText);
const model = parseConfig(configText, configFile).models['reference-tts'];

let endpoint: TestEndpoint | undefined;
let handle: LocalSageMakerHandle;
let clients: AwsClients;
const resourceId = 'endpoint/speech-reference-tts/variant/AllTraffic';
// What the run must put back exactly: a mix of flags, and two instances.
const ORIGINAL = {
  DynamicScalingInSuspended: false,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: true,
};

async function suspendedState() {
  const out = await clients.autoscaling.send(
    new DescribeScalableTargetsCommand({ ServiceNamespace: 'sagemaker', ResourceIds: [resourceId] }),
  );
  return out.ScalableTargets?.[0]?.SuspendedState;
}

beforeAll(async () => {
  endpoint = await startTestEndpoint(
    { endpointName: 'speech-reference-tts', instances: 2, quota: 4 },
    ORIGINAL,
  );
  ({ handle, clients } = endpoint);
}, 90_000);

afterAll(async () => {
  await endpoint?.close();
}, 60_000);

describe('qmax on the local SageMaker (response-stream transport)', () => {
  let artifact: QmaxArtifact;
  let duringRun: unknown;
  let instancesDuringRun: unknown;
  const out = join(dir, 'qmax.json');

  beforeAll(async () => {
    let probe: Promise<void> | null = null;
    const progress = (e: ProgressEvent) => {
      if (e.type === 'rung-start' && !probe) {
        // While the ladder runs: what does Application Auto Scaling say about the target?
        probe = (async () => {
          duringRun = await suspendedState();
          const ep = await clients.sagemaker.send(
            new DescribeEndpointCommand({ EndpointName: handle.endpointName }),
          );
          instancesDuringRun = ep.ProductionVariants?.[0]?.CurrentInstanceCount;
        })();
      }
    };
    const local = clientConfigFor(handle);
    {
      const result = await runQmax(
        {
          modelName: 'reference-tts',
          model: model as NonNullable<typeof model>,
          configFile,
          endpoint: handle.endpointName,
          variant: handle.variantName,
          region: handle.region,
          maxConcurrency: 2,
          resolution: 2,
          holdS: 30,
          measureS: 5,
          settleS: 0.5,
          minSamples: 80,
          promptsFile,
          outFile: out,
          // ORIGINAL has an operator's flag set: measuring over it is a forced freeze (restored exactly).
          force: true,
          stateDir,
          cloudwatchWaitS: 10,
          pollIntervalMs: 200,
        },
        {
          clients,
          progress,
          handleSignals: false,
          loadClient: { endpoint: local.endpoint, credentials: local.credentials },
        },
      );
      expect(result.exitCode).toBe(0);
      artifact = result.artifact as QmaxArtifact;
    }
    await probe;
  }, 120_000);

  it('freezes the endpoint while it measures: every suspension flag set, one instance', () => {
    expect(duringRun).toEqual({
      DynamicScalingInSuspended: true,
      DynamicScalingOutSuspended: true,
      ScheduledScalingSuspended: true,
    });
    expect(instancesDuringRun).toBe(1);
    expect(artifact.frozen).toBe(true);
    expect(artifact.instance_counts_observed).toEqual([1]);
  });

  it('restores exactly what it found afterwards (flags and desired count) and deletes the thaw journal', async () => {
    expect(await suspendedState()).toEqual(ORIGINAL);
    const ep = await clients.sagemaker.send(
      new DescribeEndpointCommand({ EndpointName: handle.endpointName }),
    );
    expect(ep.ProductionVariants?.[0]?.DesiredInstanceCount).toBe(2);
    expect(existsSync(thawJournalPath(handle.endpointName, stateDir))).toBe(false);
    expect(artifact.restore?.errors).toEqual([]);
  });

  it('joins CloudWatch per rung: R = ConcurrentRequestsPerModel Maximum / client mean in-flight lands in the artifact', () => {
    expect(artifact.cloudwatch).toEqual({ joined: true, error: null });
    for (const step of artifact.steps) {
      expect(step.cw_ratio).not.toBeNull();
      expect(step.server_concurrency_peak).toBe(step.concurrency);
      expect(step.cw_ratio as number).toBeGreaterThan(0.95);
      expect(step.cw_ratio as number).toBeLessThan(1.1);
      expect(step.server_model_latency_p95_ms).toBeGreaterThan(0);
      expect(step.server_5xx_total).toBe(0);
    }
  });

  it('fingerprints the live endpoint (DescribeEndpoint -> config -> model) and writes a valid artifact', () => {
    expect(qmaxArtifactSchema.safeParse(artifact).success).toBe(true);
    expect(readArtifact('qmax', out)).toEqual(artifact);
    expect(artifact.transport).toBe('response-stream');
    expect(artifact.fingerprint.instance_type).toBe('ml.g5.xlarge');
    expect(handle.imageUri.endsWith(`:${artifact.fingerprint.image_digest}`)).toBe(true);
    expect(artifact.fingerprint.region).toBe('local');
    expect(artifact.fingerprint.container_env).not.toHaveProperty('MAX_QUEUE_DEPTH');
    // The client is part of the measurement: each rung records what it did; a pass needs a healthy one.
    for (const step of artifact.steps) {
      expect(step.client_health?.wall_s).toBeGreaterThan(0);
      expect(step.client_health?.cpu_share).not.toBeNull();
      expect(step.client_health?.send_lag_p99_ms).toBeNull();
      if (step.client_health?.healthy === false) expect(step.verdict).not.toBe('pass');
    }
    expect(artifact.steps.map((s) => s.concurrency)).toEqual([1, 2]);
    expect(artifact.q_max).toBe(2);
    expect(artifact.unbounded_queue).toBe(true);
  });

  it('plan consumes the artifact qmax wrote (R gives deployable CloudWatch thresholds)', () => {
    const result = runPlan(
      {
        modelName: 'reference-tts',
        model: model as NonNullable<typeof model>,
        qmaxFile: out,
        assumeTTotalS: 120,
        allowConfigMismatch: false,
        outFile: join(dir, 'plan.json'),
        failOn: 'stop',
      },
      { version: 'test' },
    );
    expect(result.exitCode).not.toBe(2);
    expect(result.artifact?.measured.q_max).toBe(2);
    expect(result.artifact?.measured.cw_ratio).not.toBeNull();
    expect(result.artifact?.deployable.scaling_target_value).not.toBeNull();
  });
});
