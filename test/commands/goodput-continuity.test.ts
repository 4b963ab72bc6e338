/**
 * goodput with the continuity SLO, in simulated time against a streaming server whose chunks
 * slow down with the arrival rate: first audio stays immediate at every rate, but above 20
 * arrivals a second the gaps between chunks outlast each chunk's audio and playback stalls. With
 * --underrun-slo-ms the stuttering rate fails and lambda_max is bounded by continuity; without
 * it first audio alone decides; shards merged carry the stall histograms and decide the same.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { type GoodputInput, runGoodput } from '../../src/commands/goodput.js';
import { runMerge } from '../../src/commands/merge.js';
import { VirtualClock } from '../../src/load/clock.js';
import type { InvokeResult, Transport } from '../../src/load/types.js';
import { type GoodputArtifact, parseConfig } from '../../src/model/index.js';
import { streamingWavHeader } from '../helpers/wav.js';

/** 16 kHz mono 16-bit: 32 bytes a millisecond. */
const RATE = 16_000;
const CHUNKS = 3;
const CHUNK_AUDIO_MS = 20;
const FIRST_AUDIO_MS = 10;
/**
 * The gap between two chunks: 1 ms per arrival of the last second. At 5/s about 5 ms (far inside
 * each chunk's 20 ms of audio: playback never runs dry unless over 20 arrivals fall in one second,
 * odds below 1e-7 a request); at 40/s about 40 ms: about 20 ms of stall at each of the 2 gaps (28
 * to 52 arrivals a second: 16 to 64 ms a stream). Short streams keep few requests in the system,
 * so the decision needs few arrivals.
 */
const GAP_MS_PER_ARRIVAL = 1;
const UNDERRUN_SLO_MS = 15;

const streamingHeader = (): Uint8Array => new Uint8Array(streamingWavHeader(RATE));

/** A streaming TTS server in simulated time (one for every shard: they share its arrival rate). */
function streamingServer(clock: VirtualClock): Transport {
  const audio = new Uint8Array(CHUNK_AUDIO_MS * 32);
  const first = new Uint8Array([...streamingHeader(), ...audio]);
  const recent: number[] = [];
  return {
    kind: 'http',
    target: 'simulated streaming server',
    invoke(_body, probe, signal) {
      const t0 = clock.now();
      recent.push(t0);
      while ((recent[0] as number) <= t0 - 1000) recent.shift();
      const gap = GAP_MS_PER_ARRIVAL * recent.length;
      return new Promise<InvokeResult>((resolve) => {
        const cancels: (() => void)[] = [];
        let done = false;
        const finish = (r: InvokeResult) => {
          if (done) return;
          done = true;
          for (const c of cancels) c();
          resolve(r);
        };
        signal.addEventListener('abort', () => finish({ outcome: 'error', status: null, error: 'aborted' }), {
          once: true,
        });
        for (let k = 0; k < CHUNKS; k++) {
          cancels.push(
            clock.at(t0 + FIRST_AUDIO_MS + k * gap, () => {
              probe.payload(k === 0 ? first : audio);
              if (k === CHUNKS - 1) finish({ outcome: 'ok', status: 200, error: null });
            }),
          );
        }
      });
    },
    close: async () => {},
  };
}

const dir = mkdtempSync(join(tmpdir(), 'scalegate-goodput-continuity-'));
const configFile = join(dir, 'scalegate.config.json');
writeFileSync(
  configFile,
  JSON.stringify({
    models: {
      'test-tts': {
        endpoint: 'speech-test',
        region: 'us-east-1',
        instance_type: 'ml.g5.xlarge',
        image_uri:
          '123456789012.dkr.ecr.us-east-1.amazonaws.com/test@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
        slo_ms: 500,
        surge_ratio: 1.25,
        peak_rps: 100,
      },
    },
  }),
);
const model = parseConfig(readFileSync(configFile, 'utf8'), configFile).models[
  'test-tts'
] as GoodputInput['model'];
const T0 = Date.parse('2026-11-30T12:00:00.000Z');

const input = (overrides: Partial<GoodputInput>): GoodputInput => ({
  modelName: 'test-tts',
  model,
  configFile,
  endpoint: 'speech-test',
  variant: 'AllTraffic',
  region: 'us-east-1',
  target: 'http://127.0.0.1:9',
  rates: [5, 40],
  holdS: 120,
  settleS: 10,
  seed: 3,
  rungGapS: 0,
  ...overrides,
});

/** Runs commands on one virtual clock and one simulated streaming server until they resolve. */
async function simulated<T>(runs: (deps: Parameters<typeof runGoodput>[1]) => Promise<T>[]): Promise<T[]> {
  const clock = new VirtualClock();
  const server = streamingServer(clock);
  const all = Promise.all(
    runs({ createTransport: () => server, loadClock: clock, now: () => T0 + clock.now() }),
  );
  let done = false;
  const settle = () => {
    done = true;
  };
  all.then(settle, settle);
  while (!done) {
    await clock.run();
    await new Promise((r) => setImmediate(r));
  }
  return all;
}

let judged: { artifact: GoodputArtifact; report: string };
let firstAudioOnly: GoodputArtifact;

beforeAll(async () => {
  const [a, b] = await simulated((deps) => [
    runGoodput(input({ underrunSloMs: UNDERRUN_SLO_MS, outFile: join(dir, 'judged.json') }), deps),
  ]).then(async (first) => [
    first[0],
    ...(await simulated((deps) => [runGoodput(input({ outFile: join(dir, 'plain.json') }), deps)])),
  ]);
  judged = { artifact: a?.artifact as GoodputArtifact, report: a?.report ?? '' };
  firstAudioOnly = b?.artifact as GoodputArtifact;
}, 60_000);

describe('goodput decides each rate on first audio and on playback continuity', () => {
  it('with --underrun-slo-ms, bounds lambda_max by continuity where streams stall although first audio passes (bounded_by: continuity)', () => {
    const { artifact } = judged;
    const [low, high] = artifact.rungs;
    expect(high?.first_audio_verdict).toBe('pass');
    expect(high?.continuity_verdict).toBe('fail');
    expect(high?.verdict).toBe('fail');
    // About 40 ms gaps against 20 ms of audio a chunk: about 20 ms of stall at each of 2 gaps.
    expect(high?.audio?.stall_p50_ms).toBeGreaterThan(UNDERRUN_SLO_MS);
    expect(high?.audio?.underrun_share).toBe(1);
    expect(low?.verdict).toBe('pass');
    expect(low?.continuity_verdict).toBe('pass');
    expect(low?.audio).toMatchObject({ stall_p95_ms: 0, underrun_share: 0, single_chunk: 0 });
    expect(low?.audio?.audio_s_mean).toBeCloseTo((CHUNKS * CHUNK_AUDIO_MS) / 1000, 9);
    expect(artifact.lambda_max_rps).toBe(5);
    expect(artifact.continuity).toMatchObject({
      underrun_slo_ms: UNDERRUN_SLO_MS,
      client_buffer_ms: 0,
      bounded_by: 'continuity',
      format: { container: 'wav', sample_rate_hz: RATE, channels: 1, bits_per_sample: 16, origin: 'header' },
    });
  });

  it('prints the audio line of each rate and which SLO bounded lambda_max, with provenance words', () => {
    expect(judged.report).toMatch(/bounded by continuity/);
    expect(judged.report).toMatch(/stall p95 .*measured/);
  });

  it('without --underrun-slo-ms, decides on first audio alone: the stalling rate passes, the audio is still recorded (measured)', () => {
    expect(firstAudioOnly.continuity ?? null).toBeNull();
    expect(firstAudioOnly.lambda_max_rps).toBe(40);
    const high = firstAudioOnly.rungs[1];
    expect(high?.verdict).toBe('pass');
    expect(high?.continuity_verdict ?? null).toBeNull();
    expect(high?.audio?.stall_p50_ms).toBeGreaterThan(UNDERRUN_SLO_MS);
  });
});

describe('the adaptive goodput ladder with the continuity SLO', () => {
  it('ends each rate once both SLOs are decided (or either failed) and brackets lambda_max by a continuity breach', async () => {
    const [result] = await simulated((deps) => [
      runGoodput(
        input({
          rates: undefined,
          startRate: 5,
          maxRate: 40,
          resolution: 0.5,
          underrunSloMs: UNDERRUN_SLO_MS,
          outFile: join(dir, 'adaptive.json'),
        }),
        deps,
      ),
    ]);
    const a = result?.artifact as GoodputArtifact;
    const at = (rate: number) => a.rungs.find((g) => g.rate_rps === rate);
    // 5/s passes both; 40/s stalls (continuity fails) while first audio stays at 10 ms.
    expect([at(5)?.first_audio_verdict, at(5)?.continuity_verdict, at(5)?.verdict]).toEqual([
      'pass',
      'pass',
      'pass',
    ]);
    expect([at(40)?.continuity_verdict, at(40)?.verdict]).toEqual(['fail', 'fail']);
    // A rung stops at a look before its hold once decided: the live looks judged both SLOs.
    expect(at(40)?.sequential?.stopped_early).toBe(true);
    expect(a.lambda_max_bracketed).toBe(true);
    expect(a.continuity?.bounded_by).toBe('continuity');
    for (const g of a.rungs) if (g.verdict === 'fail') expect(g.first_audio_verdict).not.toBe('fail');
  }, 60_000);
});

describe('goodput shards merged carry the stall histograms', () => {
  it('two shards of one schedule, merged, decide continuity on every stream as one process does', async () => {
    const start = new Date(T0 + 5000).toISOString();
    const shardInput = (i: number) =>
      input({
        underrunSloMs: UNDERRUN_SLO_MS,
        shard: `${i}/2`,
        startAt: start,
        outFile: join(dir, `shard${i}.json`),
      });
    const results = await simulated((deps) => [
      runGoodput(shardInput(0), deps),
      runGoodput(shardInput(1), deps),
    ]);
    for (const r of results) {
      const a = r.artifact as GoodputArtifact;
      expect(a.rungs.map((g) => g.verdict)).toEqual(['pending', 'pending']);
      expect(a.rungs.map((g) => g.continuity_verdict)).toEqual([null, null]);
    }
    const merged = runMerge({
      files: [join(dir, 'shard0.json'), join(dir, 'shard1.json')],
      outFile: join(dir, 'merged.json'),
    }).artifact as GoodputArtifact;
    const multi = (a: GoodputArtifact, j: number) =>
      a.rungs[j]?.histograms.windows.reduce((n, w) => n + (w.audio?.multi_chunk ?? 0), 0);
    const shards = results.map((r) => r.artifact as GoodputArtifact);
    for (const j of [0, 1]) {
      expect(multi(merged, j)).toBe(
        (multi(shards[0] as GoodputArtifact, j) ?? 0) + (multi(shards[1] as GoodputArtifact, j) ?? 0),
      );
    }
    expect(merged.rungs.map((g) => [g.first_audio_verdict, g.continuity_verdict, g.verdict])).toEqual([
      ['pass', 'pass', 'pass'],
      ['pass', 'fail', 'fail'],
    ]);
    expect(merged.lambda_max_rps).toBe(5);
    expect(merged.continuity?.bounded_by).toBe('continuity');
  }, 60_000);
});
