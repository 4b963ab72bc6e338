// Device mode of the reference container (DEVICE_PROFILE, DEVICE_STARTUP, DEVICE_TIME_SCALE): an
// emulated accelerator that serves real speech from a cache at a measured pace. The real built
// server, spawned as a process, spoken to over HTTP.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { mulberry32, serviceTimeSampler } from '../../infra/container/src/device.js';
import type { DeviceProfile } from '../../infra/container/src/device-config.js';
import {
  ensureContainerBuilt,
  invoke,
  killAll,
  newAgent,
  pingDetails,
  startContainer,
  waitForInFlight,
} from './harness.js';

const SENTENCE = 'The quick brown fox jumps over the lazy dog while the band plays on.';
const QUICK = { WARMUP_RUNS: '1' };
const LONG_TEXT =
  'Scalegate measures how many concurrent requests one instance holds inside its latency objective, ' +
  'and how long it takes to add another instance, then derives the scaling policy from both numbers. ' +
  'This paragraph is long on purpose, so that its synthesis keeps the engine busy for a while.';

const profile = (overrides: Partial<DeviceProfile> = {}): string =>
  JSON.stringify({
    source: 'test',
    lanes: 1,
    service_mean_ms: 50,
    service_sigma: 0,
    first_audio_fraction: 1,
    ...overrides,
  });

beforeAll(() => {
  ensureContainerBuilt();
});
afterEach(async () => {
  await killAll();
});
afterAll(async () => {
  await killAll();
});

describe('service-time draws (pure)', () => {
  test('are seeded: the same seed gives the same service times, another seed other ones (instances differ, runs repeat)', () => {
    const p = JSON.parse(profile({ service_sigma: 0.2 })) as DeviceProfile;
    const a = serviceTimeSampler(p, 1, 7);
    const b = serviceTimeSampler(p, 1, 7);
    const c = serviceTimeSampler(p, 1, 8);
    const first = Array.from({ length: 5 }, () => a());
    expect(Array.from({ length: 5 }, () => b())).toEqual(first);
    expect(Array.from({ length: 5 }, () => c())).not.toEqual(first);
  });

  test('keep the profile mean times the time scale and its log-normal p95/p50 (a wrong mu or sigma shifts throughput)', () => {
    const p = JSON.parse(profile({ service_mean_ms: 55.87, service_sigma: 0.1 })) as DeviceProfile;
    const draw = serviceTimeSampler(p, 0.5, 1);
    const xs = Array.from({ length: 40_000 }, () => draw()).sort((x, y) => x - y);
    const mean = xs.reduce((s, x) => s + x, 0) / xs.length;
    expect(mean / (55.87 * 0.5)).toBeCloseTo(1, 2);
    const ratio = (xs[Math.floor(0.95 * xs.length)] as number) / (xs[Math.floor(0.5 * xs.length)] as number);
    expect(ratio).toBeCloseTo(Math.exp(1.6449 * 0.1), 2);
  });

  test('mulberry32 stays in [0, 1)', () => {
    const random = mulberry32(123);
    for (let i = 0; i < 10_000; i++) {
      const u = random();
      expect(u >= 0 && u < 1).toBe(true);
    }
  });
});

describe('device mode', () => {
  test('streams the same real eSpeak-NG speech, byte for byte, as host synthesis (the device replays audio, it does not fake it)', async () => {
    const cpu = await startContainer(QUICK);
    const fromCpu = await invoke(cpu.port, { text: SENTENCE });
    const device = await startContainer({ ...QUICK, DEVICE_PROFILE: profile() });
    const first = await invoke(device.port, { text: SENTENCE });
    const second = await invoke(device.port, { text: SENTENCE }); // from the cache
    expect(fromCpu.status).toBe(200);
    expect(first.status).toBe(200);
    expect(first.body.length).toBeGreaterThan(10_000);
    expect(first.body.equals(fromCpu.body)).toBe(true);
    expect(second.body.equals(fromCpu.body)).toBe(true);
  });

  test('serves at most `lanes` requests at once, the rest wait in FIFO (a device with more lanes would hide the queue)', async () => {
    // A long service time so that the five requests are observed in flight together.
    const device = await startContainer({
      ...QUICK,
      DEVICE_PROFILE: profile({ lanes: 2, service_mean_ms: 20_000 }),
      DEVICE_TIME_SCALE: '0.05',
    });
    const agent = newAgent();
    // A text the device has synthesised already: no lane waits for its audio.
    await invoke(device.port, { text: SENTENCE }, { agent });
    const requests = Array.from({ length: 5 }, () => invoke(device.port, { text: SENTENCE }, { agent }));
    await waitForInFlight(device.port, 5);
    const { body } = await pingDetails(device.port);
    expect(body).toMatchObject({ in_flight: 5, executing: 2, queued: 3 });
    const results = await Promise.all(requests);
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // FIFO on two lanes of one (time-scaled) service each: the first two waited for no lane, the
    // next two for one service, the fifth for two.
    const service = 20_000 * 0.05;
    const waits = results.map((r) => Number(r.headers['x-queue-wait-ms']) / service);
    expect(waits.slice(0, 2)).toEqual([0, 0]);
    for (const wait of waits.slice(2, 4)) expect(wait).toBeGreaterThan(0.5);
    for (const wait of waits.slice(2, 4)) expect(wait).toBeLessThan(1.5);
    expect(waits[4]).toBeGreaterThan(1.5);
    agent.destroy();
  });

  test('a text not synthesised yet waits outside the lanes: a cached request behind it is served first (a cold cache never idles the device)', async () => {
    const device = await startContainer({ ...QUICK, DEVICE_PROFILE: profile({ service_mean_ms: 5 }) });
    const agent = newAgent();
    await invoke(device.port, { text: SENTENCE }, { agent }); // cached from now on
    // Hundreds of ms of synthesis: far longer than the 5 ms the device takes per request.
    const cold = invoke(device.port, { text: LONG_TEXT }, { agent });
    await waitForInFlight(device.port, 1);
    const warm = await invoke(device.port, { text: SENTENCE }, { agent });
    const coldResult = await cold;
    expect([warm.status, coldResult.status]).toEqual([200, 200]);
    expect(warm.endAt).toBeLessThan(coldResult.firstByteAt as number);
    agent.destroy();
  });

  test('a streaming profile (first_audio_fraction < 1) sends its audio in several paced chunks, a non-autoregressive one (1) in one piece', async () => {
    const streaming = await startContainer({
      ...QUICK,
      DEVICE_PROFILE: profile({ first_audio_fraction: 0.2, service_mean_ms: 400 }),
      STREAM_CHUNK_BYTES: '8192',
    });
    const whole = await startContainer({ ...QUICK, DEVICE_PROFILE: profile({ service_mean_ms: 400 }) });
    await invoke(streaming.port, { text: SENTENCE }); // fills the cache: the lane then waits for no audio
    const a = await invoke(streaming.port, { text: SENTENCE });
    const b = await invoke(whole.port, { text: SENTENCE });
    expect(a.body.equals(b.body)).toBe(true);
    expect(a.chunks).toBeGreaterThanOrEqual(Math.floor(a.body.length / 8192));
    // The first audio left a fifth of the way through the service; the rest followed it.
    expect((a.endAt - (a.firstByteAt as number)) / a.totalMs).toBeGreaterThan(0.5);
    expect(b.chunks).toBeLessThanOrEqual(3);
  });

  test('DEVICE_STARTUP holds each stage marker until its measured elapsed_s x DEVICE_TIME_SCALE (a replayed start-up has the real shape)', async () => {
    const container = await startContainer({
      ...QUICK,
      DEVICE_STARTUP: JSON.stringify({
        framework_init_s: 0.5,
        weights_ready_s: 2,
        warmup_done_s: 3,
        ready_s: 3.2,
      }),
      DEVICE_TIME_SCALE: '0.5',
    });
    const at = Object.fromEntries(container.stages.map((s) => [s.stage, s.elapsedS]));
    expect(at.framework_init).toBeGreaterThanOrEqual(0.25);
    expect(at.weights_ready).toBeGreaterThanOrEqual(1);
    expect(at.warmup_done).toBeGreaterThanOrEqual(1.5);
    expect(at.ready).toBeGreaterThanOrEqual(1.6);
    expect(container.lines.some((l) => /time scale 0\.5/.test(l))).toBe(true);
  });

  test.each([
    ['DEVICE_PROFILE', 'not json', /DEVICE_PROFILE: not JSON/],
    ['DEVICE_PROFILE', profile({ lanes: 0 }), /DEVICE_PROFILE: "lanes" must be an integer/],
    ['DEVICE_PROFILE', profile({ first_audio_fraction: 1.5 }), /"first_audio_fraction" must be/],
    [
      'DEVICE_PROFILE',
      profile({
        streaming: { rtf: 0.1, chunk_audio_ms: 160, sharing: 'batched' },
      } as unknown as Partial<DeviceProfile>),
      /DEVICE_PROFILE\.streaming: "sharing" must be "processor" or "lanes"/,
    ],
    ['DEVICE_TIME_SCALE', '0', /DEVICE_TIME_SCALE=0: expected a number in \(0, 1000\]/],
    ['DEVICE_STARTUP', '{"framework_init_s":1}', /DEVICE_STARTUP: "weights_ready_s" must be/],
  ])(
    '%s=%s is a start-up failure, exit 2, naming the variable (never a silent default)',
    async (name, value, message) => {
      const env: Record<string, string> = { ...QUICK, [name]: value };
      if (name === 'DEVICE_TIME_SCALE') env.DEVICE_PROFILE = profile();
      const container = await startContainer(env, { waitReady: false });
      expect((await container.exited).code).toBe(2);
      expect(container.stderr()).toMatch(message);
    },
  );

  test('DEVICE_TIME_SCALE alone is refused: it would scale nothing and look like a device in the fingerprint', async () => {
    const container = await startContainer({ ...QUICK, DEVICE_TIME_SCALE: '0.5' }, { waitReady: false });
    expect((await container.exited).code).toBe(2);
    expect(container.stderr()).toMatch(/scales nothing without DEVICE_PROFILE or DEVICE_STARTUP/);
  });
});
