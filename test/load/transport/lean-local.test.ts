/**
 * The lean response-stream transport against the local SageMaker and the reference TTS
 * container, beside the SDK client: the same outcomes for the same answers (audio, the
 * container's queue_saturated wrapped in ModelError 424, throttling, an unknown endpoint), and
 * the open loop over it end to end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { constantProfile, shardArrivals } from '../../../src/load/open/arrivals.js';
import { OpenLoopEngine } from '../../../src/load/open/open-loop.js';
import { encodePrompts } from '../../../src/load/prompts.js';
import { createLoadRuntimeClient } from '../../../src/load/transport/response-stream-transport.js';
import { createSageMakerTransport } from '../../../src/load/transport/transports.js';
import type { InvokeResult, Transport } from '../../../src/load/types.js';
import { clientConfigFor, type LocalSageMakerHandle, startLocalSageMaker } from '../../../src/local/index.js';

const LONG =
  'This sentence is long on purpose so that synthesis takes a while and requests sent together are all in flight ' +
  'when the last of them reaches the container, even on a slow and busy machine with two cores.';

let h: LocalSageMakerHandle;
beforeAll(async () => {
  h = await startLocalSageMaker({
    endpointName: 'speech-lean',
    provisionDelayS: 0.2,
    maxQueueDepth: 2,
    instances: 1,
  });
}, 90_000);
afterAll(async () => {
  await h?.close();
}, 60_000);

const kinds = ['response-stream', 'sdk'] as const;

function transport(kind: (typeof kinds)[number], endpoint = 'speech-lean'): Transport {
  const local = clientConfigFor(h);
  return createSageMakerTransport(kind, {
    runtime: createLoadRuntimeClient({ ...local, maxConcurrency: 8 }),
    endpoint,
    variant: h.variantName,
    ownsClient: true,
  });
}

async function burst(
  t: Transport,
  text: string,
  n: number,
): Promise<Array<InvokeResult & { bytes: number }>> {
  const body = new Uint8Array(Buffer.from(JSON.stringify({ text })));
  return Promise.all(
    Array.from({ length: n }, async () => {
      let bytes = 0;
      const probe = {
        payload: (b: Uint8Array) => {
          bytes += b.byteLength;
        },
        connection: () => {},
      };
      const r = await t.invoke(body, probe, new AbortController().signal);
      return { ...r, bytes };
    }),
  );
}

describe.each(kinds)('%s transport on the local SageMaker', (kind) => {
  it('streams audio, and maps the container queue_saturated (ModelError 424, OriginalStatusCode 503) to saturated_503', async () => {
    const t = transport(kind);
    try {
      const results = await burst(t, LONG, 6);
      const outcomes = results.map((r) => r.outcome);
      expect(outcomes.filter((o) => o !== 'ok' && o !== 'saturated_503')).toEqual([]);
      expect(outcomes.filter((o) => o === 'ok').length).toBeGreaterThanOrEqual(1);
      expect(outcomes.filter((o) => o === 'saturated_503').length).toBeGreaterThanOrEqual(1);
      for (const r of results) {
        if (r.outcome === 'ok') expect(r.bytes).toBeGreaterThan(44);
        else expect(r.status).toBe(424);
      }
    } finally {
      await t.close();
    }
  });

  it('maps ThrottlingException to throttled_429 and an unknown endpoint (ValidationError) to error, without retrying', async () => {
    const t = transport(kind);
    const unknown = transport(kind, 'speech-missing');
    try {
      h.faults = { throttle: { 'SageMakerRuntime.InvokeEndpointWithResponseStream': 1 } };
      const throttled = await burst(t, 'Hello.', 1);
      h.faults = {};
      expect(throttled.map((r) => [r.outcome, r.status])).toEqual([['throttled_429', 400]]);
      const missing = await burst(unknown, 'Hello.', 1);
      expect(missing.map((r) => [r.outcome, r.status])).toEqual([['error', 400]]);
      expect(missing[0]?.error).toMatch(/ValidationError: Endpoint speech-missing/);
    } finally {
      h.faults = {};
      await t.close();
      await unknown.close();
    }
  });
});

describe('open loop over the lean transport on the local SageMaker', () => {
  it('sends every scheduled request and records TTFAB from the intended and the actual send', async () => {
    const t = transport('response-stream');
    try {
      const engine = new OpenLoopEngine({
        transport: t,
        bodies: encodePrompts({ source: 'test', texts: ['Hello.', 'Yes, thanks.'] }),
        requestTimeoutMs: 20_000,
        maxOutstanding: 2,
      });
      const summary = await engine.run(
        shardArrivals({ process: 'constant', profile: constantProfile(4, 2), seed: 0 }),
        performance.now(),
      );
      const outcomes = summary.windows.reduce<Record<string, number>>((acc, w) => {
        for (const [k, v] of Object.entries(w.outcomes)) acc[k] = (acc[k] ?? 0) + (v as number);
        return acc;
      }, {});
      expect(summary.offered).toBe(8);
      // Every arrival accounted for: ok, refused by the container's gate, or dropped at the client cap.
      expect(Object.values(outcomes).reduce((a, b) => a + b, 0)).toBe(8);
      expect(outcomes.ok ?? 0).toBeGreaterThan(0);
      const ttfab = summary.windows.reduce((n, w) => n + w.series.ttfab_intended.totalCount, 0);
      expect(ttfab).toBe(outcomes.ok);
    } finally {
      await t.close();
    }
  });
});
