/**
 * qmax with the continuity SLO on the local SageMaker, each instance a streaming device from the
 * committed profiles (infra/container/profiles/, as `scalegate local up --device <file>` loads
 * them), over the real SDK clients and InvokeEndpointWithResponseStream. The expected break
 * points are computed here from each profile's arithmetic (docs/local-sagemaker.md "Streaming
 * devices"), and a fixed ladder of two rungs, one well below and one well above, brackets them:
 * - processor sharing, 16 streams: chunks come chunk x rtf x k ms apart, slower than playback
 *   beyond 1/rtf streams, while first audio stays one chunk long: Q_max bounded by continuity;
 * - Kokoro, serial: each stream outruns playback (it never stalls), queueing delays first audio:
 *   Q_max bounded by first audio.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_PROFILES, locateBundled, resolveDevice } from '../../src/commands/device.js';
import { runQmax } from '../../src/commands/qmax.js';
import { clientConfigFor } from '../../src/local/index.js';
import { parseConfig, type QmaxArtifact } from '../../src/model/index.js';
import { startTestEndpoint, type TestEndpoint } from '../helpers/local-endpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-qmax-streaming-'));
/**
 * One short text (about 0.39 s of audio: 3 chunks), so a rung completes the 200 requests its
 * decision needs (5 batches of >= max(40, 4 N)) within its hold.
 */
const promptsFile = join(dir, 'prompts.txt');
writeFileSync(promptsFile, 'Yes.\n');
const NO_SUSPENSION = {
  DynamicScalingInSuspended: false,
  DynamicScalingOutSuspended: false,
  ScheduledScalingSuspended: false,
};

function configFor(name: string, sloMs: number) {
  const configFile = join(dir, `${name}.config.json`);
  const text = JSON.stringify({
    models: {
      [name]: {
        endpoint: `speech-${name}`,
        region: 'local',
        instance_type: 'ml.g5.xlarge',
        container_dir: 'infra/container',
        slo_ms: sloMs,
        surge_ratio: 1.25,
        peak_rps: 50,
        trough_rps: 1,
      },
    },
  });
  writeFileSync(configFile, text);
  return { configFile, model: parseConfig(text, configFile).models[name] as NonNullable<unknown> };
}

async function measure(
  name: string,
  profile: string,
  timeScale: number,
  run: { sloMs: number; underrunSloMs: number; rungs: number[]; holdS: number },
): Promise<{ artifact: QmaxArtifact; device: ReturnType<typeof resolveDevice>['device'] }> {
  const { device } = resolveDevice({ device: locateBundled(profile), timeScale });
  const endpoint: TestEndpoint = await startTestEndpoint(
    { endpointName: `speech-${name}`, instances: 1, quota: 2, device },
    NO_SUSPENSION,
  );
  try {
    const { configFile, model } = configFor(name, run.sloMs);
    const local = clientConfigFor(endpoint.handle);
    const result = await runQmax(
      {
        modelName: name,
        model: model as Parameters<typeof runQmax>[0]['model'],
        configFile,
        endpoint: endpoint.handle.endpointName,
        variant: endpoint.handle.variantName,
        region: endpoint.handle.region,
        ladder: 'fixed',
        rungs: run.rungs,
        holdS: run.holdS,
        measureS: run.holdS - 1.5,
        settleS: 1,
        minSamples: 72,
        underrunSloMs: run.underrunSloMs,
        promptsFile,
        outFile: join(dir, `${name}.json`),
        stateDir: join(dir, `state-${name}`),
        cloudwatch: false,
        pollIntervalMs: 200,
      },
      {
        clients: endpoint.clients,
        handleSignals: false,
        loadClient: { endpoint: local.endpoint, credentials: local.credentials },
      },
    );
    expect(result.exitCode).toBe(0);
    return { artifact: result.artifact as QmaxArtifact, device };
  } finally {
    await endpoint.close();
  }
}

describe('processor-sharing streaming device (16 streams, rtf 0.1, 160 ms chunks)', () => {
  let artifact: QmaxArtifact;
  let device: ReturnType<typeof resolveDevice>['device'];
  const SLO_MS = 600;
  const UNDERRUN_SLO_MS = 30;
  beforeAll(async () => {
    ({ artifact, device } = await measure('ps16', DEVICE_PROFILES.processorSharing16, 1, {
      sloMs: SLO_MS,
      underrunSloMs: UNDERRUN_SLO_MS,
      // Two rungs below the break: a pass must hold on both SLOs and their dependence checks,
      // so one of them may honestly end undecided; Q_max is then the other.
      rungs: [3, 4, 14],
      holdS: 16,
    }));
  }, 60_000);

  it('bounds Q_max by continuity: the rung past 1/rtf streams stalls while its first audio (one chunk) passes', () => {
    const s = device.profile?.streaming as NonNullable<NonNullable<typeof device.profile>['streaming']>;
    // Computed: a chunk of c streams takes chunk x rtf x c ms; playback runs dry beyond 1/rtf streams.
    const gapAt = (c: number) => s.chunk_audio_ms * s.rtf * device.timeScale * c;
    const breaksAt = Math.floor(1 / (s.rtf * device.timeScale)) + 1;
    expect(breaksAt).toBe(11);
    const lows = artifact.steps.filter((step) => step.concurrency < breaksAt);
    const high = artifact.steps.find((step) => step.concurrency === 14);
    expect(gapAt(4)).toBeLessThan(s.chunk_audio_ms / 2);
    expect(gapAt(14) - s.chunk_audio_ms).toBeCloseTo(64, 9);
    // Measured: the low rungs never run dry, the high one stalls at every gap (64 ms each, computed).
    for (const low of lows) {
      expect(low.verdict, low.verdict_reason ?? '').not.toBe('fail');
      expect(low.audio?.stall_p95_ms).toBe(0);
    }
    const passes = lows.filter((low) => low.verdict === 'pass').map((low) => low.concurrency);
    expect(passes.length, lows.map((low) => low.verdict_reason).join(' | ')).toBeGreaterThan(0);
    expect(high?.continuity_verdict).toBe('fail');
    expect(high?.first_audio_verdict).not.toBe('fail');
    expect(high?.ttfab_p95_ms).toBeLessThan(SLO_MS);
    expect(high?.audio?.underrun_share).toBeGreaterThan(0.9);
    expect(artifact.q_max).toBe(Math.max(...passes));
    expect(artifact.q_max_bracketed).toBe(true);
    expect(artifact.q_max_upper_bound).toBe(14);
    expect(artifact.continuity?.bounded_by).toBe('continuity');
  });
});

describe('Kokoro serial streaming device (1 lane, rtf 0.0124, 160 ms chunks)', () => {
  let artifact: QmaxArtifact;
  let device: ReturnType<typeof resolveDevice>['device'];
  const SLO_MS = 150;
  const TIME_SCALE = 10;
  beforeAll(async () => {
    ({ artifact, device } = await measure(
      'kokoro-serial',
      DEVICE_PROFILES.kokoroSerialStreaming,
      TIME_SCALE,
      {
        sloMs: SLO_MS,
        underrunSloMs: 100,
        rungs: [2, 6],
        holdS: 13,
      },
    ));
  }, 60_000);

  it('bounds Q_max by first audio: streams never stall, queueing for the one lane delays first audio past the SLO', () => {
    const s = device.profile?.streaming as NonNullable<NonNullable<typeof device.profile>['streaming']>;
    const rtf = s.rtf * device.timeScale;
    // Computed: a stream outruns playback (chunk x rtf << chunk) so never stalls; with c in flight
    // each waits for c - 1 whole utterances, then one chunk: (c - 1) x audio x rtf + chunk x rtf.
    expect(s.chunk_audio_ms * rtf).toBeLessThan(s.chunk_audio_ms);
    const [low, high] = artifact.steps;
    const audioMs = (low?.audio?.audio_s_mean as number) * 1000;
    const ttfabAt = (c: number) => (c - 1) * audioMs * rtf + s.chunk_audio_ms * rtf;
    const breaksAt = Math.ceil((SLO_MS - s.chunk_audio_ms * rtf) / (audioMs * rtf) + 1 + 1e-9);
    expect(ttfabAt(2)).toBeLessThan(SLO_MS * 0.6);
    expect(ttfabAt(6)).toBeGreaterThan(SLO_MS * 1.5);
    expect(breaksAt).toBeGreaterThan(2);
    expect(breaksAt).toBeLessThanOrEqual(6);
    expect(low?.verdict, low?.verdict_reason ?? '').toBe('pass');
    expect(high?.first_audio_verdict ?? high?.verdict).toBe('fail');
    expect(high?.continuity_verdict).not.toBe('fail');
    expect(high?.audio?.stall_p95_ms).toBe(0);
    expect(artifact.q_max).toBe(2);
    expect(artifact.q_max_bracketed).toBe(true);
    expect(artifact.continuity?.bounded_by).toBe('first_audio');
  });
});
