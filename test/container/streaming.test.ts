// The streaming device (infra/container/src/streaming.ts) on an injected clock: every instant is
// exact, so the chunk cadence, the sharing and the SLO break points are checked to the ms.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import type { DeviceProfile } from '../../infra/container/src/device-config.js';
import type { Job } from '../../infra/container/src/pool.js';
import { type DeviceClock, StreamingDeviceExecutor } from '../../infra/container/src/streaming.js';
import { ROOT } from './harness.js';

/** A clock whose timers fire exactly at their instant, or late when `lagMs` says so. */
class FakeClock implements DeviceClock {
  t = 0;
  lagMs = 0;
  /** Time that passes on every reading, as a real clock moves while the device works. */
  tickMs = 0;
  private seq = 0;
  private readonly timers = new Map<number, { at: number; fn: () => void }>();
  now(): number {
    this.t += this.tickMs;
    return this.t;
  }
  setTimeout(fn: () => void, ms: number): unknown {
    this.seq += 1;
    this.timers.set(this.seq, { at: this.t + ms + this.lagMs, fn });
    return this.seq;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Fires every timer due up to `until`, in order, moving the clock to each. */
  run(until = Number.POSITIVE_INFINITY): void {
    for (;;) {
      let next: [number, { at: number; fn: () => void }] | undefined;
      for (const entry of this.timers) if (!next || entry[1].at < next[1].at) next = entry;
      if (!next || next[1].at > until) break;
      this.timers.delete(next[0]);
      this.t = Math.max(this.t, next[1].at);
      next[1].fn();
    }
    if (Number.isFinite(until)) this.t = Math.max(this.t, until);
  }
}

/** 1 kHz 16-bit mono: 2 bytes of PCM per ms of audio, so byte counts read as ms. */
const SAMPLE_RATE = 1000;
const pcmOf = (audioMs: number): Buffer => {
  const pcm = Buffer.alloc(audioMs * 2);
  for (let i = 0; i < pcm.length; i++) pcm[i] = i % 251;
  return pcm;
};

interface Trace {
  submittedAt: number;
  startedAt?: number;
  /** [instant, audio ms] of each chunk as it left. */
  chunks: Array<[number, number]>;
  bytes: Buffer[];
  endedAt?: number;
  cancelled?: boolean;
}

function device(
  streaming: NonNullable<DeviceProfile['streaming']>,
  lanes: number,
  { sigma = 0, timeScale = 1 } = {},
) {
  const clock = new FakeClock();
  const texts = new Map<string, Buffer>();
  const profile: DeviceProfile = {
    source: 'test',
    lanes,
    service_mean_ms: 1,
    service_sigma: sigma,
    first_audio_fraction: 1,
    streaming,
  };
  const engine = {
    load: async () => ({ sampleRate: SAMPLE_RATE, voices: ['en'] }),
    warmup: async () => [],
    close: async () => {},
  };
  /** Texts not synthesised yet: `get` resolves when the test says so. */
  const pending = new Map<string, { pcm: Buffer; resolve: () => void; done: Promise<void> }>();
  const cache = {
    cached: (text: string) => texts.get(text),
    get: async (text: string) => {
      const miss = pending.get(text);
      if (miss) {
        await miss.done;
        texts.set(text, miss.pcm);
      }
      return texts.get(text) as Buffer;
    },
  };
  const notCached = (audioMs: number): (() => Promise<void>) => {
    let resolve = () => {};
    const done = new Promise<void>((r) => {
      resolve = r;
    });
    pending.set(`utterance of ${audioMs} ms`, { pcm: pcmOf(audioMs), resolve, done });
    return async () => {
      resolve();
      await done;
      await new Promise((r) => setImmediate(r)); // the cache's continuation, then the device's
    };
  };
  const executor = new StreamingDeviceExecutor(profile, timeScale, 1, engine, cache, clock);
  /** Submits an utterance of `audioMs` (cached) now; `then` runs when it ends (closed loop). */
  const submit = (audioMs: number, then?: (trace: Trace) => void): { trace: Trace; job: Job } => {
    const text = `utterance of ${audioMs} ms`;
    if (!texts.has(text) && !pending.has(text)) texts.set(text, pcmOf(audioMs));
    const trace: Trace = { submittedAt: clock.now(), chunks: [], bytes: [] };
    const job = executor.submit(text, 'en', {
      onStart: ({ queueWaitMs }) => {
        trace.startedAt = trace.submittedAt + queueWaitMs;
      },
      onChunk: (pcm) => {
        trace.chunks.push([clock.now(), pcm.length / 2]);
        trace.bytes.push(pcm);
      },
      onEnd: ({ cancelled }) => {
        trace.endedAt = clock.now();
        trace.cancelled = cancelled;
        then?.(trace);
      },
      onError: (error) => {
        throw error;
      },
    });
    return { trace, job };
  };
  const ready = async () => {
    await executor.load();
    await executor.warmup();
  };
  return { clock, executor, submit, ready, notCached };
}

const PROCESSOR = { rtf: 0.1, chunk_audio_ms: 160, sharing: 'processor' } as const;
const gaps = (trace: Trace): number[] =>
  trace.chunks.slice(1).map(([at], i) => at - (trace.chunks[i] as [number, number])[0]);

describe('streaming device: chunk cadence from the real-time factor', () => {
  test('a stream alone produces each chunk in chunk_audio_ms x rtf, the last pro rata, and replays the utterance byte for byte', async () => {
    const d = device(PROCESSOR, 16);
    await d.ready();
    const { trace } = d.submit(400); // 160 + 160 + 80 ms of audio
    d.clock.run();
    expect(trace.chunks).toEqual([
      [16, 160],
      [32, 160],
      [40, 80],
    ]);
    expect(Buffer.concat(trace.bytes).equals(pcmOf(400))).toBe(true);
    expect(trace.endedAt).toBe(40);
  });

  test('processor sharing: k streams each produce a chunk every k x chunk x rtf (a device that ignored sharing would never underrun)', async () => {
    const d = device(PROCESSOR, 16);
    await d.ready();
    const traces = Array.from({ length: 12 }, () => d.submit(1600).trace);
    d.clock.run();
    for (const trace of traces) {
      expect(trace.chunks[0]?.[0]).toBeCloseTo(12 * 16, 9);
      for (const gap of gaps(trace)) expect(gap).toBeCloseTo(12 * 16, 9); // 192 ms > 160 ms of audio
    }
  });

  test('when k changes mid-chunk the remaining work is recomputed at the new rate (not the rate the chunk began at)', async () => {
    const d = device(PROCESSOR, 16);
    await d.ready();
    const a = d.submit(160).trace; // one chunk: 16 ms alone
    d.clock.run(10); // 10 of its 16 ms done alone
    const b = d.submit(160).trace;
    d.clock.run();
    // a: 6 ms of work left at half speed -> 10 + 12 = 22; b then alone: 16 - 6 = 10 ms left -> 32.
    expect(a.chunks[0]?.[0]).toBeCloseTo(22, 9);
    expect(b.chunks[0]?.[0]).toBeCloseTo(32, 9);
  });

  test("'lanes' sharing: k streams each keep the single-stream cadence", async () => {
    const d = device({ ...PROCESSOR, sharing: 'lanes' }, 8);
    await d.ready();
    const traces = Array.from({ length: 8 }, () => d.submit(800).trace);
    d.clock.run();
    for (const trace of traces) expect(trace.chunks.map(([at]) => at)).toEqual([16, 32, 48, 64, 80]);
  });

  test('beyond `lanes` streams wait in FIFO; first audio = queue wait + first chunk', async () => {
    const d = device(PROCESSOR, 2);
    await d.ready();
    const [a, b, c] = [d.submit(320).trace, d.submit(320).trace, d.submit(320).trace];
    expect(d.executor.queued).toBe(1);
    expect(d.executor.executing).toBe(2);
    d.clock.run();
    // a and b share the device (2 x 16 ms a chunk): both end at 64; c then runs alone.
    expect(a.endedAt).toBeCloseTo(64, 9);
    expect(b.endedAt).toBeCloseTo(64, 9);
    expect(c.startedAt).toBeCloseTo(64, 9);
    expect(c.chunks[0]?.[0]).toBeCloseTo(64 + 16, 9);
  });

  test('a text not synthesised yet joins the device once its audio exists, on a clock that moves meanwhile (it must not wait forever)', async () => {
    const d = device(PROCESSOR, 16);
    await d.ready();
    d.clock.tickMs = 0.001;
    const synthesised = d.notCached(320);
    const { trace } = d.submit(320);
    d.clock.run(5);
    expect(trace.startedAt).toBeUndefined();
    await synthesised();
    d.clock.run();
    expect(trace.chunks.length).toBe(2);
    expect(trace.startedAt).toBeGreaterThanOrEqual(5);
    expect((trace.chunks[0] as [number, number])[0] - (trace.startedAt as number)).toBeCloseTo(16, 1);
  });

  test('a late timer loses no device time: completions and the next start keep their own instants', async () => {
    const d = device({ ...PROCESSOR, sharing: 'lanes' }, 1);
    await d.ready();
    const a = d.submit(320).trace; // chunks due at 16 and 32
    const b = d.submit(320).trace; // then 48 and 64
    // The timer already set (for 16) fires on time; every timer set from then on fires 50 ms
    // late: the wake-up for a's second chunk (due 32) comes at 82.
    d.clock.lagMs = 50;
    d.clock.run();
    expect(a.chunks.map(([at]) => at)).toEqual([16, 82]);
    // b started when a ended on the device (32), not at the late wake-up, so its chunks, due at 48
    // and 64, are already produced then: one wake-up at 82 sends them all, nothing accumulates.
    expect(b.startedAt).toBe(32);
    expect(b.chunks.map(([at]) => at)).toEqual([82, 82]);
    expect(b.endedAt).toBe(82);
  });

  test('a cancelled stream leaves the device at once: the others speed up', async () => {
    const d = device(PROCESSOR, 16);
    await d.ready();
    const a = d.submit(320);
    const b = d.submit(320).trace;
    d.clock.run(16); // both at half speed: 8 of 16 ms done
    d.executor.cancel(a.job);
    d.clock.run();
    expect(a.trace.cancelled).toBe(true);
    expect(a.trace.chunks).toEqual([]);
    expect(b.chunks[0]?.[0]).toBeCloseTo(24, 9); // 8 ms left, now alone
    expect(b.endedAt).toBeCloseTo(40, 9);
  });

  test('the time scale multiplies device time only: the audio per chunk is unchanged', async () => {
    const d = device(PROCESSOR, 16, { timeScale: 0.5 });
    await d.ready();
    const { trace } = d.submit(320);
    d.clock.run();
    expect(trace.chunks).toEqual([
      [8, 160],
      [16, 160],
    ]);
  });
});

// ---- The two committed profiles, and where each breaks each SLO --------------------------------

const readProfile = (name: string): DeviceProfile =>
  JSON.parse(readFileSync(join(ROOT, 'infra', 'container', 'profiles', name), 'utf8')) as DeviceProfile;

interface Slo {
  /** p95 of time to first audio, ms. */
  ttfabMs: number;
  /** p95 of per-stream playback stall (client buffer 0: playback starts with the first chunk), ms. */
  stallMs: number;
}

/** Playback stall of one stream: each chunk plays for its audio ms; a late chunk stalls the player. */
function stallOf(trace: Trace): number {
  let playedUntil = Number.NEGATIVE_INFINITY;
  let stall = 0;
  for (const [at, audioMs] of trace.chunks) {
    if (playedUntil !== Number.NEGATIVE_INFINITY) stall += Math.max(0, at - playedUntil);
    playedUntil = Math.max(at, playedUntil) + audioMs;
  }
  return stall;
}

const p95 = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.ceil(0.95 * sorted.length) - 1] as number;
};

/** c closed-loop clients, `rounds` requests each (the first one, the ramp, not counted). */
async function closedLoop(profile: DeviceProfile, c: number, lengthsMs: number[], rounds = 4) {
  const d = device(profile.streaming as NonNullable<DeviceProfile['streaming']>, profile.lanes);
  await d.ready();
  const counted: Trace[] = [];
  let n = 0;
  const client = (round: number) => {
    const length = lengthsMs[n++ % lengthsMs.length] as number;
    d.submit(length, (trace) => {
      if (round > 0) counted.push(trace);
      if (round + 1 < rounds) client(round + 1);
    });
  };
  for (let i = 0; i < c; i++) client(0);
  d.clock.run();
  return {
    ttfabP95: p95(counted.map((t) => (t.chunks[0] as [number, number])[0] - t.submittedAt)),
    stallP95: p95(counted.map(stallOf)),
  };
}

/** The lowest concurrency (up to `max`) at which the device fails the SLO in a closed loop. */
async function simulatedBreak(profile: DeviceProfile, slo: Slo, lengthsMs: number[], candidates: number[]) {
  const result = { ttfab: null as number | null, continuity: null as number | null };
  for (const c of candidates) {
    const { ttfabP95, stallP95 } = await closedLoop(profile, c, lengthsMs);
    if (result.ttfab === null && ttfabP95 > slo.ttfabMs) result.ttfab = c;
    if (result.continuity === null && stallP95 > slo.stallMs) result.continuity = c;
  }
  return result;
}

describe('the committed device profiles: which SLO bounds Q_max', () => {
  const SLO_CONTINUITY_MS = 100;

  test('processor-sharing-16: continuity breaks at floor(1/rtf) + 1 = 11 streams, first audio only at lanes + 1 = 17: continuity bounds', async () => {
    const profile = readProfile('processor-sharing-16.json');
    const s = profile.streaming as NonNullable<DeviceProfile['streaming']>;
    expect(s.sharing).toBe('processor');
    const slo: Slo = { ttfabMs: 300, stallMs: SLO_CONTINUITY_MS };
    // Whole chunks (13..37 of 160 ms): each full-chunk gap at k streams is chunk x rtf x k.
    const lengths = [13, 19, 25, 31, 37].map((n) => n * s.chunk_audio_ms);
    const shortestGaps = 13 - 1;
    // Arithmetic. Continuity: at k active streams each gap stalls chunk x (rtf x k - 1) when
    // positive; the shortest utterance has 12 gaps.
    const stallAt = (k: number) => shortestGaps * s.chunk_audio_ms * Math.max(0, s.rtf * k - 1);
    let continuity = 1;
    while (!(stallAt(continuity) > slo.stallMs)) continuity += 1;
    // First audio: chunk x rtf x k while k <= lanes (256 ms at 16 <= 300); at lanes + 1 a request
    // also waits for a departure, one every mean-length x rtf (~400 ms) >> the 44 ms of slack left.
    const firstChunkAtLanes = s.chunk_audio_ms * s.rtf * profile.lanes;
    expect(firstChunkAtLanes).toBeLessThanOrEqual(slo.ttfabMs);
    const meanLength = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    expect(meanLength * s.rtf).toBeGreaterThan(slo.ttfabMs - firstChunkAtLanes);
    const ttfab = profile.lanes + 1;
    expect({ continuity, ttfab }).toEqual({ continuity: 11, ttfab: 17 });
    expect(Math.floor(1 / s.rtf) + 1).toBe(continuity);
    // The device, simulated: the same break points.
    const simulated = await simulatedBreak(profile, slo, lengths, [10, 11, 16, 17]);
    expect(simulated).toEqual({ continuity, ttfab });
  });

  test('kokoro-g5-serial-streaming: first audio breaks at 55 (queueing), continuity never (each stream outruns playback): first audio bounds', async () => {
    const profile = { ...readProfile('kokoro-g5-serial-streaming.json'), service_sigma: 0 };
    const s = profile.streaming as NonNullable<DeviceProfile['streaming']>;
    expect(profile.lanes).toBe(1);
    const slo: Slo = { ttfabMs: 3000, stallMs: SLO_CONTINUITY_MS };
    const length = 28 * s.chunk_audio_ms; // 4.48 s: the built-in prompts' typical utterance
    // Arithmetic. One stream at a time, alone: chunk x rtf = 2 ms per 160 ms of audio, no stall
    // at any concurrency. First audio at c clients = (c - 1) whole utterances ahead + one chunk.
    expect(s.chunk_audio_ms * s.rtf).toBeLessThan(s.chunk_audio_ms);
    const ttfabAt = (c: number) => (c - 1) * length * s.rtf + s.chunk_audio_ms * s.rtf;
    let ttfab = 1;
    while (!(ttfabAt(ttfab) > slo.ttfabMs)) ttfab += 1;
    expect(ttfab).toBe(55);
    // Its mean service alone matches the measured one the profile came from (55.87 ms).
    expect(length * s.rtf).toBeCloseTo(profile.service_mean_ms, -1);
    const simulated = await simulatedBreak(profile, slo, [length], [1, 54, 55, 80]);
    expect(simulated).toEqual({ continuity: null, ttfab });
  });
});
