// The reference TTS container (infra/container) against the container contract of infra/container/README.md:
// the real built server, spawned as a process, spoken to over HTTP on loopback.
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  type Container,
  ensureContainerBuilt,
  type InvokeResult,
  invoke,
  killAll,
  newAgent,
  parseWavHeader,
  ping,
  STAGE_LINE,
  STAGE_NAMES,
  startContainer,
  waitForInFlight,
} from './harness.js';

const SENTENCE = 'The quick brown fox jumps over the lazy dog while the band plays on.';
// Hundreds of ms of synthesis on one warm worker: keeps requests in flight long enough to observe.
const LONG_TEXT =
  'Scalegate measures how many concurrent requests one instance holds inside its latency objective, ' +
  'and how long it takes to add another instance, then derives the scaling policy from both numbers. ' +
  'This paragraph is long on purpose, so that its synthesis keeps a worker busy for a while and the ' +
  'requests behind it have to wait in the queue, exactly as they would on a busy GPU server.';
// Close to the 1000-character limit: the longest single request there is.
const LONGEST_TEXT = `${LONG_TEXT} ${LONG_TEXT.replaceAll('This paragraph', 'This second paragraph')}`.slice(
  0,
  1000,
);

// One warm-up utterance instead of six: a faster start for tests whose subject is not warmth
// (the stage-marker test runs the default start-up).
const QUICK = { WARMUP_RUNS: '1' };

beforeAll(() => {
  ensureContainerBuilt();
});

afterEach(async () => {
  await killAll();
});

afterAll(async () => {
  await killAll();
});

describe('start-up', () => {
  test('prints all five stage markers once each, in order, in the exact format, with non-decreasing elapsed_s (ttotal parses them)', async () => {
    const container = await startContainer({}, { args: ['serve'] });
    const markerLines = container.lines.filter((line) => line.startsWith('=== STAGE'));
    for (const line of markerLines) expect(line).toMatch(STAGE_LINE);
    expect(container.stages.map((marker) => marker.stage)).toEqual([...STAGE_NAMES]);
    expect(container.lines[0]).toBe(container.stages[0]?.line); // container_start is the very first line

    const elapsed = container.stages.map((marker) => marker.elapsedS);
    const wall = container.stages.map((marker) => Date.parse(marker.t));
    for (let i = 1; i < elapsed.length; i += 1) {
      expect(elapsed[i]).toBeGreaterThanOrEqual(elapsed[i - 1] as number);
      expect(wall[i]).toBeGreaterThanOrEqual(wall[i - 1] as number);
    }
    // t and elapsed_s tell the same story (both seconds): catches a ms/s mix-up in either.
    const wallSpanS = ((wall[4] as number) - (wall[0] as number)) / 1000;
    const elapsedSpanS = (elapsed[4] as number) - (elapsed[0] as number);
    expect(Math.abs(wallSpanS - elapsedSpanS)).toBeLessThan(0.25);
    // t is UTC "now": within a minute of this machine's clock.
    expect(Math.abs(Date.now() - (wall[4] as number))).toBeLessThan(60_000);
  });

  test('GET /ping answers 503 while starting and 200 once ready (SageMaker must not route to a cold instance)', async () => {
    const container = await startContainer(QUICK, { waitReady: false });
    await container.waitForStage('framework_init');
    // The HTTP server listens from framework_init on; the engine loads for >100 ms after it.
    const early = await ping(container.port);
    expect(early).toBe(503);
    const beforeReady = await invoke(container.port, { text: SENTENCE });
    expect(beforeReady.status).toBe(503);
    expect(JSON.parse(beforeReady.body.toString())).toMatchObject({ error: 'not_ready' });
    expect(container.stages.map((marker) => marker.stage)).not.toContain('ready');
    await container.waitForStage('ready');
    expect(await ping(container.port)).toBe(200);
  });

  test.each(STAGE_NAMES)(
    'FAIL_AT_STAGE=%s exits 1 right after printing that marker (the emulator models a failed start with it)',
    async (stage) => {
      const container = await startContainer({ ...QUICK, FAIL_AT_STAGE: stage }, { waitReady: false });
      const exit = await container.exited;
      expect(exit).toEqual({ code: 1, signal: null });
      const index = STAGE_NAMES.indexOf(stage);
      expect(container.stages.map((marker) => marker.stage)).toEqual(STAGE_NAMES.slice(0, index + 1));
    },
  );
});

describe('streaming', () => {
  let container: Container;

  test('the first chunk carries the WAV header (PCM, mono, 22050 Hz, 16-bit) together with audio, never the header alone', async () => {
    container = await startContainer(QUICK);
    const result = await invoke(container.port, { text: LONGEST_TEXT, voice: 'en-us', format: 'wav' });
    expect(result.status).toBe(200);
    expect(result.headers['content-type']).toBe('audio/wav');
    expect(result.headers['transfer-encoding']).toBe('chunked');
    expect(result.headers['content-length']).toBeUndefined();
    expect(result.headers['x-queue-depth-at-admission']).toBe('0');

    const first = result.firstChunk as Buffer;
    expect(first.length).toBeGreaterThan(44); // header + audio in one piece: TTFAB is time to audio
    const header = parseWavHeader(first);
    expect(header).toEqual({
      riff: 'RIFF',
      riffSize: 0xffffffff, // streaming: length unknown when the header is sent
      wave: 'WAVE',
      fmt: 'fmt ',
      fmtSize: 16,
      audioFormat: 1,
      channels: 1,
      sampleRate: 22050,
      byteRate: 44100,
      blockAlign: 2,
      bitsPerSample: 16,
      data: 'data',
      dataSize: 0xffffffff,
    });
    expect(result.body.length).toBeGreaterThan(44);
    expect((result.body.length - 44) % 2).toBe(0);
    // Real audio, not silence.
    let peak = 0;
    for (let offset = 44; offset + 1 < result.body.length; offset += 2) {
      peak = Math.max(peak, Math.abs(result.body.readInt16LE(offset)));
    }
    expect(peak).toBeGreaterThan(1000);
    // Streamed as synthesised: the first audio arrives while most of the utterance is still being
    // synthesised. A server that buffered the whole utterance would send its first byte about when
    // its last (the transfer itself takes about a millisecond on loopback).
    expect(result.ttfabMs as number).toBeLessThan(result.totalMs / 2);
    expect(result.chunks).toBeGreaterThan(5);
  });
});

describe('admission', () => {
  test('MAX_QUEUE_DEPTH=4 with 6 concurrent requests: exactly 2 get an immediate 503 queue_saturated with the exact JSON shape', async () => {
    const container = await startContainer({ ...QUICK, MAX_QUEUE_DEPTH: '4', WORKERS: '1' });
    const agent = newAgent();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => invoke(container.port, { text: LONGEST_TEXT }, { agent })),
    );
    agent.destroy();
    const ok = results.filter((result) => result.status === 200);
    const refused = results.filter((result) => result.status === 503);
    expect(ok).toHaveLength(4);
    expect(refused).toHaveLength(2);
    for (const result of refused) {
      expect(result.headers['content-type']).toBe('application/json');
      expect(JSON.parse(result.body.toString())).toEqual({
        error: 'queue_saturated',
        queue_depth: 4,
        max_queue_depth: 4,
      });
      // Refused immediately, not after waiting for the queue: before any admitted one finished.
      expect(result.endAt).toBeLessThan(Math.min(...ok.map((admitted) => admitted.endAt)));
    }
    expect(ok.map((result) => result.headers['x-queue-depth-at-admission']).sort()).toEqual([
      '0',
      '1',
      '2',
      '3',
    ]);
  });

  test('100 malformed requests are 400 bad_request and hold no slot: with MAX_QUEUE_DEPTH=1 a valid request still succeeds', async () => {
    const container = await startContainer({ ...QUICK, MAX_QUEUE_DEPTH: '1' });
    const malformed: string[] = [
      '',
      '{',
      'not json',
      'null',
      '[]',
      '"text"',
      '42',
      '{}',
      '{"text":5}',
      '{"text":null}',
      '{"text":""}',
      '{"text":["a"]}',
      JSON.stringify({ text: 'x'.repeat(1001) }),
      '{"text":"hello","voice":7}',
      '{"text":"hello","voice":"no-such-voice"}',
      '{"text":"hello","format":"mp3"}',
      '{"text":"hello","format":null}',
      '{"text":"hello"',
    ];
    const agent = newAgent();
    const bodies = Array.from({ length: 100 }, (_, i) => malformed[i % malformed.length] as string);
    // Ten at a time, so some are in the server together.
    for (let i = 0; i < bodies.length; i += 10) {
      const batch = await Promise.all(
        bodies.slice(i, i + 10).map((body) => invoke(container.port, body, { agent })),
      );
      for (const result of batch) {
        expect(result.status).toBe(400);
        const parsed = JSON.parse(result.body.toString()) as { error: string; message: string };
        expect(parsed.error).toBe('bad_request');
        expect(parsed.message.length).toBeGreaterThan(0);
      }
    }
    const valid = await invoke(container.port, { text: SENTENCE }, { agent });
    agent.destroy();
    expect(valid.status).toBe(200);
    expect(valid.headers['x-queue-depth-at-admission']).toBe('0');
  });

  test('a client that disconnects mid-stream frees its slot (MAX_QUEUE_DEPTH=1: the next request is admitted)', async () => {
    const container = await startContainer({ ...QUICK, MAX_QUEUE_DEPTH: '1' });
    const agent = newAgent();
    const aborted = invoke(container.port, { text: LONGEST_TEXT }, { agent, onChunk: () => agent.destroy() });
    await expect(aborted).rejects.toThrow();
    // The worker stops that utterance at its next audio block and the slot is released (the
    // server says so on stdout) long before the utterance would have ended.
    await container.waitForLine(/^\[tts\] client went away: job \d+ aborted, slot released$/);
    const result = await invoke(container.port, { text: SENTENCE });
    expect(result.headers['x-queue-depth-at-admission']).toBe('0');
    expect(result.status).toBe(200);
  });
});

describe('serving', () => {
  test('WORKERS=1 is serial: of 3 concurrent requests, the third gets its first audio only after the first has completely finished', async () => {
    const container = await startContainer({ ...QUICK, WORKERS: '1' });
    const agent = newAgent();
    const results = await Promise.all(
      Array.from({ length: 3 }, () => invoke(container.port, { text: LONG_TEXT }, { agent })),
    );
    agent.destroy();
    for (const result of results) expect(result.status).toBe(200);
    const byFirstAudio = [...results].sort((a, b) => (a.ttfabMs as number) - (b.ttfabMs as number));
    const [first, , third] = byFirstAudio as [InvokeResult, InvokeResult, InvokeResult];
    // All three were sent at once. Serial: the third waits for two whole utterances, so its first
    // audio comes after the first response has ended (with a whole utterance, the second, in
    // between). A server synthesising in parallel would start all three at once, and the third's
    // first audio would come long before the first's last. An order, not a wall-clock threshold.
    expect(third.ttfabMs as number).toBeGreaterThan(first.totalMs);
    expect(third.firstByteAt as number).toBeGreaterThan(first.endAt);
    // The server agrees: each waited longer in its queue than the one before.
    const waits = byFirstAudio.map((result) => Number(result.headers['x-queue-wait-ms']));
    expect(waits[1]).toBeGreaterThan(waits[0] as number);
    expect(waits[2]).toBeGreaterThan(waits[1] as number);
  });

  test('SIGTERM drains: new work is refused 503, the executing and queued requests stream to completion, then exit 0', async () => {
    const container = await startContainer({ ...QUICK, WORKERS: '1' });
    const agent = newAgent();
    const reference = await invoke(container.port, { text: LONGEST_TEXT }, { agent });
    expect(reference.status).toBe(200);

    let streaming: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      streaming = resolve;
    });
    const executing = invoke(container.port, { text: LONGEST_TEXT }, { agent, onChunk: () => streaming() });
    const queued = invoke(container.port, { text: SENTENCE }, { agent });
    await started; // the first is streaming...
    await waitForInFlight(container.port, 2); // ...and the second is admitted, behind it
    container.child.kill('SIGTERM');
    const drainingLine = await container.waitForLine(/^\[tts\] SIGTERM: draining/);

    const refused = await invoke(container.port, { text: SENTENCE });
    expect(refused.status).toBe(503);
    expect(JSON.parse(refused.body.toString())).toMatchObject({ error: 'shutting_down' });
    expect(await ping(container.port)).toBe(503);

    const [first, second] = await Promise.all([executing, queued]);
    expect(first.status).toBe(200);
    // The whole utterance, not cut short (eSpeak-NG's length varies by a few samples run to run).
    expect(first.body.length).toBeGreaterThan(reference.body.length * 0.98);
    expect(second.status).toBe(200);
    expect(second.body.length).toBeGreaterThan(44);
    agent.destroy();
    expect(await container.exited).toEqual({ code: 0, signal: null });
    expect(drainingLine).toMatch(/in_flight=2$/);
  });
});
