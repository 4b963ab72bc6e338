/**
 * Emulated accelerators on the local SageMaker, through the real SDK v3 clients: the device
 * derived from the committed Kokoro-82M ml.g5.xlarge ladder is recorded in the fingerprint, and a
 * replayed start-up (--startup) holds a new instance out of service for the measured stages. (Its
 * timing against the real table: device-fidelity.timing.test.ts.)
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStartupProfile } from '../../src/analysis/device-profile.js';
import { type AwsClients, createAwsClients, destroyAwsClients } from '../../src/aws/clients.js';
import { readDeployedFingerprint } from '../../src/aws/fingerprint.js';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { fingerprintDifferences, readArtifact } from '../../src/model/index.js';
import { KOKORO_QMAX_FILE, kokoroDevice, startDeviceEndpoint } from '../helpers/local-endpoint.js';

const ROOT = join(import.meta.dirname, '..', '..');
const KOKORO_TTOTAL = join(ROOT, 'artifacts', 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
const real = readArtifact('qmax', KOKORO_QMAX_FILE);
const SCALE = 0.25;
const ENDPOINT = 'speech-kokoro-82m';

describe('an endpoint whose instances each emulate the Kokoro-82M ml.g5.xlarge device (time scale 0.25)', () => {
  let endpoint: Awaited<ReturnType<typeof startDeviceEndpoint>>;
  let clients: AwsClients;

  beforeAll(async () => {
    endpoint = await startDeviceEndpoint({ endpointName: ENDPOINT, instances: 1, timeScale: SCALE });
    ({ clients } = endpoint);
  }, 60_000);

  afterAll(async () => {
    await endpoint?.close();
  }, 60_000);

  it('records the device and its time scale in the fingerprint (DescribeModel), so its measurements never pair with a real accelerator or another scale', async () => {
    const { fingerprint } = await readDeployedFingerprint(clients.sagemaker, ENDPOINT, 'AllTraffic', 'local');
    expect(fingerprint.container_env.DEVICE_TIME_SCALE).toBe('0.25');
    expect(JSON.parse(fingerprint.container_env.DEVICE_PROFILE as string)).toMatchObject({
      source: 'kokoro-82m ml.g5.xlarge qmax b8fa8ef48043',
      lanes: 1,
    });
    const hostCpu = { ...fingerprint, container_env: {} };
    expect(fingerprintDifferences(fingerprint, hostCpu).map((d) => d.field)).toEqual(['container_env']);
    const otherScale = {
      ...fingerprint,
      container_env: { ...fingerprint.container_env, DEVICE_TIME_SCALE: '1' },
    };
    expect(fingerprintDifferences(fingerprint, otherScale).map((d) => d.field)).toEqual(['container_env']);
    expect(fingerprintDifferences(fingerprint, real.fingerprint).map((d) => d.field)).toContain(
      'container_env',
    );
  });
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

describe("a model environment's own DEVICE_PROFILE (a compare candidate with twice the lanes)", () => {
  it('wins over --device, so two candidates of one model can run two devices (and fingerprint apart)', async () => {
    const twice = { ...kokoroDevice.profile, lanes: kokoroDevice.profile.lanes * 2 };
    const handle = await startLocalSageMaker({
      endpointName: 'speech-kokoro-82m-cal-1',
      provisionDelayS: 0,
      device: { profile: kokoroDevice.profile, timeScale: SCALE, startup: null },
      environment: { DEVICE_PROFILE: JSON.stringify(twice) },
    });
    const local = clientConfigFor(handle);
    const clients = createAwsClients({
      region: local.region,
      endpoint: local.endpoint,
      credentials: local.credentials,
    });
    try {
      const { fingerprint } = await readDeployedFingerprint(
        clients.sagemaker,
        'speech-kokoro-82m-cal-1',
        'AllTraffic',
        'local',
      );
      expect(JSON.parse(fingerprint.container_env.DEVICE_PROFILE as string).lanes).toBe(
        kokoroDevice.profile.lanes * 2,
      );
      // The rest of --device still applies.
      expect(fingerprint.container_env.DEVICE_TIME_SCALE).toBe('0.25');
    } finally {
      destroyAwsClients(clients);
      await handle.close();
    }
  }, 60_000);
});
