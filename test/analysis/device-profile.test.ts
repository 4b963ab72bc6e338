/**
 * The emulated device derived from a real qmax ladder (src/analysis/device-profile.ts): the
 * derivation on the committed Kokoro-82M ml.g5.xlarge artifact, a seeded closed-loop simulation of
 * the derived device that must reproduce that artifact's table, other curve shapes, and refusals.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  type DeviceProfile,
  deriveDeviceProfile,
  deriveStartupProfile,
  lognormalSigmaForSpread,
} from '../../src/analysis/device-profile.js';
import { type QmaxArtifact, type QmaxStep, readArtifact } from '../../src/model/index.js';

const ROOT = join(import.meta.dirname, '..', '..');
const KOKORO = join(ROOT, 'artifacts', 'qmax-kokoro-82m-response-stream-g5xlarge-8b1b96bc.json');
const KOKORO_TTOTAL = join(ROOT, 'artifacts', 'ttotal-kokoro-82m-force-desired-g5xlarge-8b1b96bc.json');
const kokoro = readArtifact('qmax', KOKORO);

/** mulberry32, as the container seeds its draws. */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * N closed-loop clients against the device model of the module: each request spends half the
 * client share d getting to the device, waits FIFO for one of `lanes` lanes, holds it a
 * log-normal service time, and its first byte reaches the client half of d after it left.
 * Returns the p95 TTFAB and the throughput over `requests` completions after a warm-up.
 */
function simulate(p: DeviceProfile, concurrency: number, shareMs: number, seed: number, requests = 4000) {
  const random = mulberry32(seed);
  const mu = Math.log(p.service_mean_ms) - p.service_sigma ** 2 / 2;
  const draw = () => {
    const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return Math.exp(mu + p.service_sigma * z);
  };
  const laneFree = new Array<number>(p.lanes).fill(0);
  // Arrival times at the device of the next request of each client, served in arrival order.
  let arrivals = Array.from({ length: concurrency }, () => shareMs / 2);
  const ttfab: number[] = [];
  let firstEnd = 0;
  let lastEnd = 0;
  const warmup = 2 * concurrency;
  for (let n = 0; n < requests + warmup; n++) {
    arrivals.sort((a, b) => a - b);
    const arrived = arrivals.shift() as number;
    const lane = laneFree.indexOf(Math.min(...laneFree));
    const start = Math.max(arrived, laneFree[lane] as number);
    const service = draw();
    const end = start + service;
    laneFree[lane] = end;
    if (n === warmup) firstEnd = end;
    if (n >= warmup) {
      ttfab.push(start + p.first_audio_fraction * service + shareMs / 2 - (arrived - shareMs / 2));
      lastEnd = end;
    }
    arrivals = [...arrivals, end + shareMs];
  }
  ttfab.sort((a, b) => a - b);
  return {
    p95: ttfab[Math.floor(0.95 * ttfab.length)] as number,
    rps: ((requests - 1) * 1000) / (lastEnd - firstEnd),
  };
}

describe('the device derived from the committed Kokoro-82M ml.g5.xlarge ladder', () => {
  const derived = deriveDeviceProfile(kokoro, KOKORO);

  it('is serial (one lane): the throughput is flat at 17.9 requests/s from concurrency 5 (a parallel device would overstate capacity)', () => {
    expect(derived.profile.lanes).toBe(1);
    expect(derived.lanes_ratio).toBeCloseTo(17.9 / 16.0833, 3);
    expect(derived.plateau_rungs).toEqual([5, 10, 20, 30, 40, 50, 60]);
    expect(derived.x_plateau_rps).toBeCloseTo(17.9, 6);
  });

  it('serves a request in 1/17.9 s = 55.87 ms: S at concurrency 1 (62.2 ms a cycle) minus the 6.3 ms client/network share', () => {
    expect(derived.profile.service_mean_ms).toBeCloseTo(1000 / 17.9, 6);
    expect(derived.client_share_ms).toBeCloseTo(1000 / 16.083333 - 1000 / 17.9, 3);
  });

  it('spreads service times so that their p95 - p50 is the 5.35 ms TTFAB spread at concurrency 1', () => {
    const { service_mean_ms: mean, service_sigma: sigma } = derived.profile;
    const p50 = mean * Math.exp(-(sigma ** 2) / 2);
    expect(p50 * (Math.exp(1.6449 * sigma) - 1)).toBeCloseTo(65.3717 - 60.021, 2);
  });

  it('emits the whole utterance at the end of its service (non-autoregressive: TTFAB p95 is 98.8 % of the response)', () => {
    expect(derived.emits).toBe('after_utterance');
    expect(derived.profile.first_audio_fraction).toBe(1);
    expect(derived.profile.source).toBe('kokoro-82m ml.g5.xlarge qmax b8fa8ef48043');
  });

  it('reproduces the real table in a seeded closed-loop simulation: p95 within 10 % per rung, 17.9 requests/s within 5 % from 5, Q_max 50 bracketed by 60', () => {
    const share = derived.client_share_ms ?? 0;
    let qmax = 0;
    let bracket: number | null = null;
    for (const step of kokoro.steps) {
      const sim = simulate(derived.profile, step.concurrency, share, 1000 + step.concurrency);
      expect(sim.p95 / (step.ttfab_p95_ms as number), `p95 at ${step.concurrency}`).toBeGreaterThan(0.9);
      expect(sim.p95 / (step.ttfab_p95_ms as number), `p95 at ${step.concurrency}`).toBeLessThan(1.1);
      if (step.concurrency >= 5)
        expect(Math.abs(sim.rps / 17.9 - 1), `rps at ${step.concurrency}`).toBeLessThan(0.05);
      if (sim.p95 <= kokoro.slo_ms && bracket === null) qmax = step.concurrency;
      else bracket ??= step.concurrency;
    }
    expect([qmax, bracket]).toEqual([50, 60]);
  });
});

const step = (concurrency: number, rps: number, p50: number, p95: number, latencyP95: number): QmaxStep => ({
  ...(kokoro.steps[0] as QmaxStep),
  concurrency,
  achieved_rps: rps,
  ttfab_p50_ms: p50,
  ttfab_p95_ms: p95,
  latency_p95_ms: latencyP95,
});

const ladder = (steps: QmaxStep[]): QmaxArtifact => ({ ...kokoro, steps });

describe('other curve shapes', () => {
  it('a rising curve is a parallel device: X 9.5 -> 40 requests/s saturating from 8 is 4 lanes of 100 ms', () => {
    const derived = deriveDeviceProfile(
      ladder([
        step(1, 9.5, 100, 110, 400),
        step(2, 19, 100, 112, 400),
        step(4, 38, 101, 115, 402),
        step(8, 40, 190, 215, 500),
        step(16, 40, 390, 420, 700),
      ]),
      'x',
    );
    expect(derived.profile.lanes).toBe(4);
    expect(derived.profile.service_mean_ms).toBeCloseTo(100, 6);
    expect(derived.emits).toBe('streaming');
    expect(derived.profile.first_audio_fraction).toBeCloseTo(110 / 400, 6);
  });

  it('combines repeated runs of a rung by their median, and ignores unusable rungs', () => {
    const unusable = { ...step(1, 1, 10, 10, 10), usable: false };
    const derived = deriveDeviceProfile(
      ladder([
        unusable,
        step(1, 16, 60, 65, 66),
        step(1, 17, 61, 66, 67),
        step(1, 18, 62, 67, 68),
        step(5, 20, 250, 260, 261),
      ]),
      'x',
    );
    expect(derived.x_lowest_rps).toBe(17);
    expect(derived.rungs).toEqual([1, 5]);
  });

  it('derives the lognormal shape from a spread exactly, and no spread as a constant service time', () => {
    const sigma = lognormalSigmaForSpread(50, 10);
    expect(50 * Math.exp(-(sigma ** 2) / 2) * (Math.exp(1.6448536269514722 * sigma) - 1)).toBeCloseTo(10, 6);
    expect(lognormalSigmaForSpread(50, 0)).toBe(0);
  });
});

describe('refusals (exit 2 naming the file)', () => {
  it('a ladder without a usable rung: no device can be derived from it', () => {
    const none = ladder([
      { ...step(1, 16, 60, 65, 66), usable: false },
      { ...step(5, 0, 0, 0, 0), ok: 0 },
    ]);
    expect(() => deriveDeviceProfile(none, '--device q.json')).toThrowError(
      expect.objectContaining({
        name: 'UsageError',
        message: expect.stringMatching(/^--device q\.json: no usable rung/),
      }),
    );
  });
});

describe('the start-up derived from the committed Kokoro-82M scale-out', () => {
  const ttotal = readArtifact('ttotal', KOKORO_TTOTAL);

  it('replays 184.6 s of provisioning, the container stages at their elapsed_s, and 20.7 s from ready to in service', () => {
    const startup = deriveStartupProfile(ttotal, 'x');
    expect(startup.provision_s).toBeCloseTo(184.56, 2);
    expect(startup.framework_init_s).toBeCloseTo(0.014, 3);
    expect(startup.weights_ready_s).toBeCloseTo(6.489, 3);
    expect(startup.warmup_done_s).toBeCloseTo(7.535, 3);
    expect(startup.ready_s).toBeCloseTo(7.535, 3);
    expect(startup.in_service_after_ready_s).toBeCloseTo(20.713, 3);
  });

  it('refuses a timeline that never reached in_service, naming the file', () => {
    const broken = { ...ttotal, timeline: ttotal.timeline.filter((t) => t.stage !== 'in_service') };
    expect(() => deriveStartupProfile(broken, '--startup t.json')).toThrowError(
      /^--startup t\.json: .*no in_service stage/,
    );
  });
});
