import { afterEach, describe, expect, it } from 'vitest';
import { ClosedLoopEngine } from '../../../src/load/closed/engine.js';
import { encodePrompts } from '../../../src/load/prompts.js';
import {
  createLoadRuntimeClient,
  createResponseStreamTransport,
  createSdkResponseStreamTransport,
} from '../../../src/load/transport/response-stream-transport.js';
import type { RequestRecord } from '../../../src/load/types.js';
import { type StreamServer, startStreamServer } from '../fixtures/stream-server.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Kind = 'response-stream' | 'sdk';

async function drive(
  kind: Kind,
  server: StreamServer,
  texts: string[],
  count: number,
  timeoutMs = 2000,
): Promise<RequestRecord[]> {
  const runtime = createLoadRuntimeClient({
    region: 'local',
    endpoint: server.url,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
    maxConcurrency: 1,
  });
  const create = kind === 'sdk' ? createSdkResponseStreamTransport : createResponseStreamTransport;
  const transport = create({
    runtime,
    endpoint: 'speech-test',
    variant: 'AllTraffic',
    ownsClient: true,
  });
  const records: RequestRecord[] = [];
  let done: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const engine = new ClosedLoopEngine({
    transport,
    bodies: encodePrompts({ source: 'test', texts }),
    requestTimeoutMs: timeoutMs,
    onRecord: (r) => {
      records.push(r);
      if (records.length === count) done();
    },
  });
  engine.setConcurrency(1);
  await finished;
  await engine.stop({ abort: true });
  await transport.close();
  return records.slice(0, count);
}

describe.each<Kind>(['response-stream', 'sdk'])(
  '%s transport (event-stream framing; sdk = the real SDK client)',
  (kind) => {
    it('stamps TTFAB at the first non-empty PayloadPart, not at the response headers or an empty part', async () => {
      const server = await startStreamServer({ firstAudioDelayMs: 60 });
      cleanups.push(() => server.close());
      const [ok] = await drive(kind, server, ['ok'], 1);
      expect(ok?.outcome).toBe('ok');
      expect(ok?.bytes).toBe(150);
      // The headers and an empty PayloadPart arrive at once; audio only after the 60 ms delay.
      expect(ok?.ttfabMs).toBeGreaterThanOrEqual(50);
      // The socket opened for it (the SDK's through the timed agent): setup is recorded apart.
      expect(ok?.connectMs).not.toBeNull();
      expect(server.paths[0]).toBe('/endpoints/speech-test/invocations-response-stream');
    });

    it('maps every SageMaker failure to the outcome the SDK error maps to, once each (no retries)', async () => {
      const server = await startStreamServer({ firstAudioDelayMs: 1 });
      cleanups.push(() => server.close());
      const texts = [
        'saturate',
        'throttle',
        'model-error',
        'queue-model',
        'internal',
        'stream-error',
        'hang',
      ];
      const records = await drive(kind, server, texts, texts.length, 400);
      expect(records.map((r) => [texts[r.promptIndex], r.outcome])).toEqual([
        ['saturate', 'saturated_503'],
        ['throttle', 'throttled_429'],
        ['model-error', 'model_error'],
        ['queue-model', 'saturated_503'],
        ['internal', 'server_5xx'],
        ['stream-error', 'model_error'],
        ['hang', 'client_timeout'],
      ]);
      expect(server.received).toBe(texts.length);
      expect(records.every((r) => r.ttfabMs === null)).toBe(true);
    });
  },
);
