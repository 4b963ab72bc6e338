/**
 * A seeded, pure simulator of playback stalls in a closed loop of streaming requests, to prove
 * the continuity decision (the first-audio rung decision applied to per-stream stall times:
 * src/load/closed/rung.ts, docs/statistics.md §1c) on the data it judges: many exact zeros and a
 * tail, dependent through the device's own slow spells.
 *
 * The device produces audio chunk by chunk on `lanes` lanes; N requests are outstanding (the
 * client sends a new one the instant one ends), a request waits for a free lane, and every lane
 * streams one response at a time. Producing one chunk takes chunk audio x rtf x (1 + sharing
 * (k - 1)) x a lognormal noise of CV `chunkCv` x the slow-spell factor when a spell is on, k the
 * streams being produced at once (min(N, lanes): in a closed loop without think time a lane is
 * never idle). Playback starts at the first chunk plus the client buffer, plays each chunk's audio
 * and pauses whenever the next chunk has not arrived; a stream's stall is its total pause, kept by
 * the product's own `StreamAudio` (src/stats/continuity.ts), known when the stream ends.
 */
import { type ClosedLoopSamples, lognormalSampler } from './closed-loop-sim.js';
import { byteRate, configuredFormat, type PcmFormat, StreamAudio } from './continuity.js';
import { mulberry32 } from './prng.js';
import { quantileSorted } from './quantiles.js';

/** The simulated streams' raw audio: 16 kHz mono 16-bit PCM (32 bytes a millisecond). */
const PCM: PcmFormat = { sample_rate_hz: 16_000, channels: 1, bits_per_sample: 16 };

export interface StreamingServer {
  /** Streams produced at once; further requests wait for a lane. */
  lanes: number;
  /** Mean time from taking a lane to the first chunk, ms. */
  firstChunkMs: number;
  /** Audio in one chunk, ms. */
  chunkAudioMs: number;
  /** Production time over audio time for a stream produced alone. */
  rtf: number;
  /** Each further stream produced at once slows every stream by this share. */
  sharing: number;
  /** Coefficient of variation of one chunk's production time (lognormal). */
  chunkCv: number;
  /** Chunks per response, uniform in [min, max] (at least 2: a single chunk cannot stall). */
  chunks: { min: number; max: number };
  /** Slow spells: production takes `slowdown` x as long while one is on (exponential spells). */
  regime?: { slowdown: number; meanSlowS: number; meanNormalS: number };
}

export interface StreamingRun {
  outstanding: number;
  durationS: number;
  seed: number;
  /** Client buffer before playback starts, ms. @default 0 */
  bufferMs?: number;
}

/** Per lane, per unit of production: the factor the device's state applies at instant t (ms). */
function spellFactor(
  server: StreamingServer,
  durationMs: number,
  random: () => number,
): (t: number) => number {
  const regime = server.regime;
  if (!regime) return () => 1;
  // Alternating spells, starting in a random state; switch instants precomputed.
  const switches: number[] = [];
  let slow = random() < regime.meanSlowS / (regime.meanSlowS + regime.meanNormalS);
  const startsSlow = slow;
  let t = 0;
  while (t < durationMs) {
    const mean = (slow ? regime.meanSlowS : regime.meanNormalS) * 1000;
    t += -Math.log(1 - random()) * mean;
    switches.push(t);
    slow = !slow;
  }
  let at = 0;
  return (time: number) => {
    while (at < switches.length && (switches[at] as number) <= time) at++;
    // Each lane asks in time order through its own cursor, so the cursor only moves forward.
    const isSlow = at % 2 === 0 ? startsSlow : !startsSlow;
    return isSlow ? regime.slowdown : 1;
  };
}

/**
 * Simulates `durationS` of the closed loop and returns the streams in the order they ended:
 * `atMs` the end (when the client knows the stall), `ttfabMs` the stall, ms. The shape the rung
 * harness (src/stats/closed-loop-sim.ts `simulateRung`) judges.
 */
export function simulateStreamingClosedLoop(server: StreamingServer, run: StreamingRun): ClosedLoopSamples {
  if (server.chunks.min < 2 || server.chunks.max < server.chunks.min) {
    throw new Error('streaming server: chunks per response must be at least 2');
  }
  const random = mulberry32(run.seed);
  const durationMs = run.durationS * 1000;
  const bufferMs = run.bufferMs ?? 0;
  const k = Math.min(run.outstanding, server.lanes);
  const perChunk = server.chunkAudioMs * server.rtf * (1 + server.sharing * (k - 1));
  const noise = lognormalSampler(1, server.chunkCv, random);
  const firstNoise = lognormalSampler(server.firstChunkMs, server.chunkCv, random);
  const ends: Array<[number, number]> = [];
  const chunkBytes = new Uint8Array(
    Math.round((byteRate(configuredFormat(PCM)) * server.chunkAudioMs) / 1000),
  );
  // Each lane streams back to back (a request is always waiting when N >= lanes); the spell state
  // is global, so every lane reads the same spells through its own cursor.
  const regimeSeed = Math.floor(random() * 2 ** 31);
  for (let lane = 0; lane < k; lane++) {
    // Spells drawn a minute past the run: the last streams end after it.
    const factor = spellFactor(server, durationMs + 60_000, mulberry32(regimeSeed));
    let t = 0;
    while (t < durationMs) {
      const chunks = server.chunks.min + Math.floor(random() * (server.chunks.max - server.chunks.min + 1));
      // The listener's account is the product's own (StreamAudio, as every load path keeps it).
      const audio = new StreamAudio(PCM, bufferMs);
      let arrival = t + firstNoise() * factor(t);
      audio.chunk(arrival, chunkBytes);
      for (let c = 1; c < chunks; c++) {
        arrival += perChunk * noise() * factor(arrival);
        audio.chunk(arrival, chunkBytes);
      }
      ends.push([arrival, audio.result().stallMs as number]);
      t = arrival;
    }
  }
  ends.sort((a, b) => a[0] - b[0]);
  return {
    atMs: Float64Array.from(ends, ([at]) => at),
    ttfabMs: Float64Array.from(ends, ([, stall]) => stall),
  };
}

/** The true p95 stall of a configuration: the p95 of one long run (default 400,000 streams). */
export function trueStallP95(
  server: StreamingServer,
  outstanding: number,
  options: { streams?: number; seed?: number; bufferMs?: number } = {},
): number {
  const streams = options.streams ?? 400_000;
  const k = Math.min(outstanding, server.lanes);
  const meanChunks = (server.chunks.min + server.chunks.max) / 2;
  const streamMs =
    server.firstChunkMs +
    (meanChunks - 1) * server.chunkAudioMs * server.rtf * (1 + server.sharing * (k - 1));
  const run = simulateStreamingClosedLoop(server, {
    outstanding,
    durationS: ((streams / k) * streamMs) / 1000,
    seed: options.seed ?? 0x57a1,
    ...(options.bufferMs !== undefined ? { bufferMs: options.bufferMs } : {}),
  });
  const sorted = Float64Array.from(run.ttfabMs).sort();
  return quantileSorted(sorted as unknown as number[], 0.95) as number;
}

export interface StallCell {
  label: string;
  server: StreamingServer;
  /** N: requests outstanding (the judge's concurrency). */
  n: number;
  family: 'iid' | 'regime';
}

/**
 * The class the continuity decision is simulated over: 4 and 16 lanes (processor sharing 25 % per
 * further stream), N = lanes and 2 x lanes (requests waiting for a lane), production at 0.9 / 1.0 /
 * 1.05 x real time for k streams at once (stalls rare to common: 5-90 % of streams), chunk noise
 * CV 0.1 / 0.3, without and with 30 % slower spells (2 s of 6 s, 5 s of 15 s on average). Chunks of
 * 160 ms audio, 2-12 a response, first chunk after 60 ms. `reduced`: the test suite's cells.
 */
export function stallClass(grid: 'full' | 'reduced'): StallCell[] {
  const cells: StallCell[] = [];
  const full = grid === 'full';
  const spells = [
    { name: 'iid', regime: undefined },
    { name: 'spells 2/6 s', regime: { slowdown: 1.3, meanSlowS: 2, meanNormalS: 4 } },
    { name: 'spells 5/15 s', regime: { slowdown: 1.3, meanSlowS: 5, meanNormalS: 10 } },
  ] as const;
  for (const lanes of full ? [4, 16] : [16]) {
    for (const n of full ? [lanes, 2 * lanes] : [lanes]) {
      for (const pace of full ? [0.9, 1, 1.05] : [0.9, 1.05]) {
        for (const cv of full ? [0.1, 0.3] : [0.3]) {
          for (const spell of full ? spells : [spells[0], spells[2]]) {
            const k = Math.min(n, lanes);
            cells.push({
              label: `${lanes} lanes pace ${pace} cv ${cv} ${spell.name}`,
              n,
              family: spell.regime ? 'regime' : 'iid',
              server: {
                lanes,
                firstChunkMs: 60,
                chunkAudioMs: 160,
                rtf: pace / (1 + 0.25 * (k - 1)),
                sharing: 0.25,
                chunkCv: cv,
                chunks: { min: 2, max: 12 },
                ...(spell.regime ? { regime: spell.regime } : {}),
              },
            });
          }
        }
      }
    }
  }
  return cells;
}
