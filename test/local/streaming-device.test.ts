/**
 * The processor-sharing streaming device (infra/container/profiles/processor-sharing-16.json,
 * loaded as `--device` loads it) on the local SageMaker, through the real SDK's
 * InvokeEndpointWithResponseStream: k concurrent streams share the device, so the gap between
 * audio chunks grows k-fold and, beyond 1/rtf = 10 streams, exceeds the chunk's own audio (the
 * player would stall) while first audio stays short. Chunk arrivals are timed here, directly.
 */
import { InvokeEndpointWithResponseStreamCommand } from '@aws-sdk/client-sagemaker-runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEVICE_PROFILES, locateBundled, resolveDevice } from '../../src/commands/device.js';
import { type LocalSageMakerHandle, startLocalSageMaker } from '../../src/local/index.js';
import { clientsFor } from './helpers.js';

const TEXT = 'Your order has shipped, and it will arrive on Thursday.';
const WAV_HEADER_BYTES = 44;

let h: LocalSageMakerHandle;
let c: ReturnType<typeof clientsFor>;
const { device } = resolveDevice({ device: locateBundled(DEVICE_PROFILES.processorSharing16) });
const streaming = device.profile?.streaming as NonNullable<NonNullable<typeof device.profile>['streaming']>;

beforeAll(async () => {
  h = await startLocalSageMaker({
    endpointName: 'speech-streaming-device',
    instances: 1,
    provisionDelayS: 0.2,
    maxQueueDepth: 64,
    device,
  });
  c = clientsFor(h);
  await stream(); // synthesises the text once: from then on every stream replays it from the cache
}, 60_000);

afterAll(async () => {
  c?.destroy();
  await h?.close();
}, 60_000);

interface Arrivals {
  sentAt: number;
  /** [performance.now(), bytes] of each payload part. */
  parts: Array<[number, number]>;
}

async function stream(): Promise<Arrivals> {
  const sentAt = performance.now();
  const response = await c.runtime.send(
    new InvokeEndpointWithResponseStreamCommand({
      EndpointName: h.endpointName,
      Body: JSON.stringify({ text: TEXT }),
      ContentType: 'application/json',
    }),
  );
  const parts: Array<[number, number]> = [];
  for await (const event of response.Body ?? []) {
    const bytes = event.PayloadPart?.Bytes;
    if (bytes && bytes.length > 0) parts.push([performance.now(), bytes.length]);
  }
  return { sentAt, parts };
}

const median = (xs: number[]): number => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

/** k streams at once: each one's median inter-chunk gap (whole chunks only) and its first audio. */
async function atConcurrency(k: number) {
  const runs = await Promise.all(Array.from({ length: k }, () => stream()));
  return runs.map(({ sentAt, parts }) => {
    const gaps = parts.slice(1, -1).map(([at], i) => at - (parts[i] as [number, number])[0]);
    return { gapMs: median(gaps), firstAudioMs: (parts[0] as [number, number])[0] - sentAt, parts };
  });
}

describe('a processor-sharing streaming device on the local SageMaker (rtf 0.1, 16 slots, 160 ms chunks)', () => {
  it('spaces chunks chunk x rtf x k apart at k streams: slower than playback beyond 1/rtf streams, first audio still short', async () => {
    const chunkDeviceMs = streaming.chunk_audio_ms * streaming.rtf * device.timeScale; // 16 ms alone
    const results = new Map<number, Awaited<ReturnType<typeof atConcurrency>>>();
    for (const k of [1, 4, 12]) results.set(k, await atConcurrency(k));

    // Each payload part is one chunk of 160 ms of 22.05 kHz 16-bit audio (the first also carries the WAV header).
    const [alone] = results.get(1) ?? [];
    const chunkBytes = Math.round((22_050 * streaming.chunk_audio_ms) / 1000) * 2;
    expect(alone?.parts[0]?.[1]).toBe(WAV_HEADER_BYTES + chunkBytes);
    expect(alone?.parts.slice(1, -1).every(([, bytes]) => bytes === chunkBytes)).toBe(true);
    expect(alone?.parts.length).toBeGreaterThan(8);

    for (const [k, streams] of results) {
      const gap = median(streams.map((s) => s.gapMs));
      // k-fold: a device that did not share its throughput would keep 16 ms at every k.
      expect(gap / (chunkDeviceMs * k)).toBeGreaterThan(0.8);
      expect(gap / (chunkDeviceMs * k)).toBeLessThan(1.25);
    }
    // Beyond 1/rtf = 10 streams each chunk takes longer to produce than to play: 192 ms > 160 ms.
    const gap12 = median((results.get(12) ?? []).map((s) => s.gapMs));
    expect(gap12).toBeGreaterThan(streaming.chunk_audio_ms);
    expect(median((results.get(4) ?? []).map((s) => s.gapMs))).toBeLessThan(streaming.chunk_audio_ms);
    // First audio waited for no other stream: it is one chunk at k = 12 (192 ms), far under the
    // ~4 s the device spends on a whole utterance at that sharing.
    const chunksPerUtterance = alone?.parts.length ?? 0;
    const firstAudio = Math.max(...(results.get(12) ?? []).map((s) => s.firstAudioMs));
    expect(firstAudio).toBeLessThan((chunksPerUtterance * chunkDeviceMs * 12) / 4);
  }, 30_000);
});
