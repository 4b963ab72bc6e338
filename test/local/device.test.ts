/**
 * Emulated accelerators on the local SageMaker, through the real SDK v3 clients: the device
 * derived from the committed Kokoro-82M ml.g5.xlarge ladder, at time scale 1 (at 17.9 requests/s
 * the host adds little noise even on a busy 2-core machine; a smaller scale multiplies its stalls
 * against the device times): the fingerprint records it, each instance adds a device's capacity,
 * and a short fixed ladder reproduces the real table. A replayed start-up (--startup) holds a new
 * instance out of service for the measured stages.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveDeviceProfile, deriveStartupProfile } from '../../src/analysis/device-profile.js';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import { readDeployedFingerprint } from '../../src/aws/fingerprint.js';
import { runQmax } from '../../src/commands/qmax.js';
import { ClosedLoopEngine, now } from '../../src/load/engine.js';
import { defaultPromptSet, encodePrompts } from '../../src/load/prompts.js';
import {
  createLoadRuntimeClient,
  createResponseStreamTransport,
} from '../../src/load/response-stream-transport.js';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import {
  fingerprintDifferences,
  parseConfig,
  type QmaxArtifact,
  readArtifact,
} from '../../src/model/index.js';
import { fidelityRows } from '../helpers/device-fidelity.js';

const ROOT = join(import.meta.dirname, '..', '..');
const KOKORO = join(ROOT, 'artifacts', 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
const KOKORO_TTOTAL = join(ROOT, 'artifacts', 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
const real = readArtifact('qmax', KOKORO);
const derived = deriveDeviceProfile(real, KOKORO);
const SCALE = 1;
const ENDPOINT = 'speech-kokoro-82m';

const dir = mkdtempSync(join(tmpdir(), 'scalegate-device-'));
const configFile = join(dir, 'scalegate.config.json');
const configText = JSON.stringify({
  models: {
    'kokoro-82m': {
      endpoint: ENDPOINT,
      region: 'local',
      instance_type: 'ml.g5.xlarge',
      container_dir: 'infra/container',
      slo_ms: 3000,
      surge_ratio: 1.25,
      peak_rps: 200,
      trough_rps: 2,
    },
  },
});
const model = parseConfig(configText, configFile).models['kokoro-82m'];

describe('an endpoint whose instances each emulate the Kokoro-82M ml.g5.xlarge device (time scale 1)', () => {
  let handle: LocalSageMakerHandle;
  let clients: AwsClients;

  beforeAll(async () => {
    handle = await startLocalSageMaker({
      endpointName: ENDPOINT,
      instances: 2,
      quota: 4,
      provisionDelayS: 0.2,
      maxQueueDepth: 10_000,
      device: { profile: derived.profile, timeScale: SCALE, startup: null },
    });
    const local = clientConfigFor(handle);
    clients = createAwsClients({
      region: local.region,
      endpoint: local.endpoint,
      credentials: local.credentials,
      maxConcurrency: 64,
    });
  }, 60_000);

  afterAll(async () => {
    if (clients) destroyAwsClients(clients);
    await handle?.close();
  }, 60_000);

  it('records the device and its time scale in the fingerprint (DescribeModel), so its measurements never pair with a real accelerator or another scale', async () => {
    const { fingerprint } = await readDeployedFingerprint(clients.sagemaker, ENDPOINT, 'AllTraffic', 'local');
    expect(fingerprint.container_env.DEVICE_TIME_SCALE).toBe('1');
    expect(JSON.parse(fingerprint.container_env.DEVICE_PROFILE as string)).toMatchObject({
      source: 'kokoro-82m ml.g5.xlarge qmax b8fa8ef48043',
      lanes: 1,
    });
    const hostCpu = { ...fingerprint, container_env: {} };
    expect(fingerprintDifferences(fingerprint, hostCpu).map((d) => d.field)).toEqual(['container_env']);
    const otherScale = {
      ...fingerprint,
      container_env: { ...fingerprint.container_env, DEVICE_TIME_SCALE: '0.25' },
    };
    expect(fingerprintDifferences(fingerprint, otherScale).map((d) => d.field)).toEqual(['container_env']);
    expect(fingerprintDifferences(fingerprint, real.fingerprint).map((d) => d.field)).toContain(
      'container_env',
    );
  });

  it('adds one device of capacity per instance: two instances serve twice 17.9 requests/s (shared host cores would not)', async () => {
    const local = clientConfigFor(handle);
    const runtime = createLoadRuntimeClient({
      region: 'local',
      endpoint: local.endpoint,
      credentials: local.credentials,
      maxConcurrency: 32,
    });
    const transport = createResponseStreamTransport({ runtime, endpoint: ENDPOINT, ownsClient: true });
    const engine = new ClosedLoopEngine({
      transport,
      bodies: encodePrompts(defaultPromptSet()),
      requestTimeoutMs: 30_000,
    });
    try {
      const epoch = engine.setConcurrency(20);
      // Wait out the warm-up by completions, not by the clock: every text synthesised once on both.
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (engine.finished(epoch).length >= 60) {
            clearInterval(check);
            resolve();
          }
        }, 20);
      });
      const from = now();
      const start = engine.finished(epoch).length;
      await new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (engine.finished(epoch).length - start >= 200) {
            clearInterval(check);
            resolve();
          }
        }, 20);
      });
      const done = engine.finished(epoch).slice(start);
      const rps = (done.length * 1000) / (now() - from);
      expect(done.every((r) => r.outcome === 'ok')).toBe(true);
      expect(rps / ((2 * derived.x_plateau_rps) / SCALE)).toBeGreaterThan(0.9);
      expect(rps / ((2 * derived.x_plateau_rps) / SCALE)).toBeLessThan(1.1);
    } finally {
      await engine.stop();
      await transport.close();
    }
  }, 60_000);

  it('reproduces the real ladder on one instance: p95 TTFAB within 10 % from rung 5, 17.9 requests/s within 5 %, Q_max 50 bracketed by 60', async () => {
    const result = await runQmax(
      {
        modelName: 'kokoro-82m',
        model: model as NonNullable<typeof model>,
        configFile,
        endpoint: ENDPOINT,
        variant: 'AllTraffic',
        region: 'local',
        sloMs: real.slo_ms * SCALE,
        ladder: 'fixed',
        rungs: [1, 5, 50, 60],
        // Settled once every client has cycled (3.4 s at 60); ~100 samples a rung.
        holdS: 10,
        measureS: 6,
        settleS: 4,
        cloudwatch: false,
        out: join(dir, 'qmax.json'),
        stateDir: join(dir, 'state'),
        pollIntervalMs: 100,
      },
      {
        clients,
        handleSignals: false,
        loadClient: { endpoint: handle.url, credentials: clientConfigFor(handle).credentials },
      },
    );
    const emulated = result.artifact as QmaxArtifact;
    const rows = fidelityRows(real, emulated, SCALE);
    expect(rows.map((r) => r.concurrency)).toEqual([1, 5, 50, 60]);
    for (const row of rows.filter((r) => r.concurrency >= 5)) {
      expect(row.p95Ratio, `p95 at ${row.concurrency}`).toBeGreaterThan(0.9);
      expect(row.p95Ratio, `p95 at ${row.concurrency}`).toBeLessThan(1.1);
      expect(Math.abs(row.emulatedRps / derived.x_plateau_rps - 1), `rps at ${row.concurrency}`).toBeLessThan(
        0.05,
      );
    }
    // At concurrency 1 nothing hides this host's own loopback path (client, emulator, container: a
    // few ms against 65): the device must be no faster than measured, and the host may add up to 25 %.
    const single = (rows[0] as (typeof rows)[number]).p95Ratio;
    expect(single).toBeGreaterThan(0.9);
    expect(single).toBeLessThan(1.25);
    expect([emulated.q_max, emulated.q_max_upper_bound]).toEqual([50, 60]);
    expect(emulated.fingerprint.container_env.DEVICE_TIME_SCALE).toBe('1');
  }, 180_000);
});

describe('a replayed start-up (--startup, the Kokoro-82M scale-out at time scale 0.01)', () => {
  const startup = deriveStartupProfile(readArtifact('ttotal', KOKORO_TTOTAL), KOKORO_TTOTAL);
  const scale = 0.01;
  let handle: LocalSageMakerHandle;
  const lines: string[] = [];

  beforeAll(async () => {
    handle = await startLocalSageMaker({
      endpointName: 'speech-startup',
      instances: 1,
      device: { profile: null, timeScale: scale, startup },
      onContainerLine: (_id, line) => lines.push(line),
    });
  }, 60_000);
  afterAll(async () => {
    await handle?.close();
  }, 60_000);

  it('provisions, paces the stage markers and holds InService for the measured durations x the scale', () => {
    const [instance] = handle.instances();
    expect(instance?.state).toBe('InService');
    const elapsed = Object.fromEntries(
      lines.flatMap((l) => {
        const m = /^=== STAGE (\w+) .* elapsed_s=([\d.]+) ===$/.exec(l);
        return m ? [[m[1], Number(m[2])]] : [];
      }),
    );
    expect(elapsed.weights_ready).toBeGreaterThanOrEqual(startup.weights_ready_s * scale);
    expect(elapsed.ready).toBeGreaterThanOrEqual(startup.ready_s * scale);
    const total = (startup.provision_s + startup.ready_s + startup.in_service_after_ready_s) * scale * 1000;
    expect((instance?.inServiceAtMs as number) - (instance?.launchedAtMs as number)).toBeGreaterThanOrEqual(
      total,
    );
    expect(JSON.parse(instance?.environment.DEVICE_STARTUP as string)).toMatchObject({
      ready_s: startup.ready_s,
    });
    expect(instance?.environment.DEVICE_PROFILE).toBeUndefined();
  });
});
