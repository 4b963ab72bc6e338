/**
 * The lean response-stream transport sends the SDK's wire request: both are captured byte for
 * byte on a loopback socket, with the clock fixed so even the SigV4 date and signature match.
 */

import type { AddressInfo } from 'node:net';
import { createServer, type Server, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createLoadRuntimeClient,
  createResponseStreamTransport,
  createSdkResponseStreamTransport,
} from '../../../src/load/transport/response-stream-transport.js';
import type { InvokeProbe, Transport } from '../../../src/load/types.js';
import { payloadPart } from '../fixtures/stream-server.js';

let server: Server;
let port = 0;
const captured: Buffer[] = [];

/** Reads one whole request (head + Content-Length body), keeps its raw bytes, answers one PayloadPart. */
function onConnection(socket: Socket): void {
  let buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    buffer = Buffer.concat([buffer, chunk]);
    const headEnd = buffer.indexOf('\r\n\r\n');
    if (headEnd < 0) return;
    const head = buffer.subarray(0, headEnd).toString('latin1');
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    if (buffer.length < headEnd + 4 + length) return;
    captured.push(buffer.subarray(0, headEnd + 4 + length));
    buffer = buffer.subarray(headEnd + 4 + length);
    const frame = Buffer.from(payloadPart(new Uint8Array(Buffer.alloc(10, 7))));
    socket.write(
      `HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\nX-Amzn-SageMaker-Content-Type: audio/wav\r\nContent-Length: ${frame.length}\r\n\r\n`,
    );
    socket.write(frame);
  });
}

beforeAll(async () => {
  server = createServer(onConnection);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});
afterEach(() => {
  vi.useRealTimers();
  captured.length = 0;
});

const noProbe: InvokeProbe = { payload: () => {}, connection: () => {} };
const body = new Uint8Array(Buffer.from(JSON.stringify({ text: 'Hello there.' })));

function transports(
  lean: Parameters<typeof createResponseStreamTransport>[0] extends infer O ? Partial<O> : never,
) {
  const make = () =>
    createLoadRuntimeClient({
      region: 'eu-west-1',
      endpoint: `http://127.0.0.1:${port}`,
      credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session-token' },
      maxConcurrency: 4,
    });
  const base = { endpoint: 'speech-kokoro', variant: 'AllTraffic', ownsClient: true };
  return {
    sdk: createSdkResponseStreamTransport({ runtime: make(), ...base }),
    lean: createResponseStreamTransport({ runtime: make(), ...base, ...lean }),
  };
}

async function once(t: Transport): Promise<Buffer> {
  const before = captured.length;
  const result = await t.invoke(body, noProbe, new AbortController().signal);
  expect(result).toEqual({ outcome: 'ok', status: 200, error: null });
  await t.close();
  expect(captured.length).toBe(before + 1);
  return captured[before] as Buffer;
}

const headerLines = (raw: Buffer): string[] =>
  raw.toString('latin1').split('\r\n\r\n')[0]?.split('\r\n') ?? [];
const header = (raw: Buffer, name: string): string =>
  headerLines(raw)
    .find((l) => l.toLowerCase().startsWith(`${name}: `))
    ?.slice(name.length + 2) ?? '';

describe('lean response-stream transport: the SDK wire request', () => {
  it('is byte for byte the SDK client signed request (same clock, client name and invocation id), so a signing or header drift fails', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date('2026-11-30T12:34:56.789Z'));
    const { sdk } = transports({});
    const reference = await once(sdk);
    const { lean } = transports({
      userAgent: {
        userAgent: header(reference, 'user-agent'),
        xAmzUserAgent: header(reference, 'x-amz-user-agent'),
      },
      invocationId: () => header(reference, 'amz-sdk-invocation-id'),
    });
    const ours = await once(lean);
    expect(header(reference, 'authorization')).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261130\/eu-west-1\/sagemaker\/aws4_request/,
    );
    expect(ours.toString('latin1')).toBe(reference.toString('latin1'));
    expect(ours.equals(reference)).toBe(true);
  });

  it('with its own client name differs from the SDK only in the client-identifying headers and the signature over them', async () => {
    const { sdk, lean } = transports({});
    const reference = headerLines(await once(sdk));
    const ours = headerLines(await once(lean));
    const name = (l: string) => l.split(':')[0]?.toLowerCase();
    // Same header names, in the same order.
    expect(ours.map(name)).toEqual(reference.map(name));
    const differing = ours.filter((l, i) => l !== reference[i]).map(name);
    const allowed = [
      'user-agent',
      'x-amz-user-agent',
      'amz-sdk-invocation-id',
      'authorization',
      'x-amz-date',
    ];
    expect(differing.filter((n) => !allowed.includes(n as string))).toEqual([]);
    expect(differing).toContain('authorization');
  });

  it('reports a stream cut inside an event-stream message as an error, never as a complete ok response', async () => {
    const cut = createServer((socket) => {
      socket.once('data', () => {
        const frame = Buffer.from(payloadPart(new Uint8Array(Buffer.alloc(100, 7))));
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\nTransfer-Encoding: chunked\r\n\r\n',
        );
        const half = frame.subarray(0, 60);
        socket.end(`${half.length.toString(16)}\r\n${half.toString('latin1')}\r\n0\r\n\r\n`, 'latin1');
      });
    });
    await new Promise<void>((r) => cut.listen(0, '127.0.0.1', r));
    try {
      const t = createResponseStreamTransport({
        runtime: createLoadRuntimeClient({
          region: 'eu-west-1',
          endpoint: `http://127.0.0.1:${(cut.address() as AddressInfo).port}`,
          credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
          maxConcurrency: 1,
        }),
        endpoint: 'speech-kokoro',
        ownsClient: true,
      });
      let bytes = 0;
      const result = await t.invoke(
        body,
        {
          payload: (b: Uint8Array) => {
            bytes += b.byteLength;
          },
          connection: () => {},
        },
        new AbortController().signal,
      );
      await t.close();
      expect(result.outcome).toBe('error');
      expect(result.error).toMatch(/cut mid-message/);
      expect(bytes).toBe(0);
    } finally {
      await new Promise<void>((r) => cut.close(() => r()));
    }
  });

  it('reassembles event-stream messages split across TCP reads (and several in one read): every audio byte counted once, first audio at the first whole message', async () => {
    const frames = [10, 20, 30].map((n) => Buffer.from(payloadPart(new Uint8Array(Buffer.alloc(n, 1)))));
    const wire = Buffer.concat(frames);
    // Pieces cut inside the prelude, inside a body, and across two messages.
    const cuts = [3, 25, (frames[0]?.length ?? 0) + 5, wire.length - 4];
    const split = createServer((socket) => {
      socket.once('data', async () => {
        socket.write(
          'HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\nConnection: close\r\n\r\n',
        );
        let from = 0;
        for (const to of [...cuts, wire.length]) {
          await new Promise((r) => setTimeout(r, 15));
          socket.write(wire.subarray(from, to));
          from = to;
        }
        socket.end();
      });
    });
    await new Promise<void>((r) => split.listen(0, '127.0.0.1', r));
    try {
      const t = createResponseStreamTransport({
        runtime: createLoadRuntimeClient({
          region: 'eu-west-1',
          endpoint: `http://127.0.0.1:${(split.address() as AddressInfo).port}`,
          credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
          maxConcurrency: 1,
        }),
        endpoint: 'speech-kokoro',
        ownsClient: true,
      });
      const parts: number[] = [];
      const result = await t.invoke(
        body,
        {
          payload: (b: Uint8Array) => {
            parts.push(b.byteLength);
          },
          connection: () => {},
        },
        new AbortController().signal,
      );
      await t.close();
      expect(result).toEqual({ outcome: 'ok', status: 200, error: null });
      expect(parts).toEqual([10, 20, 30]);
    } finally {
      await new Promise<void>((r) => split.close(() => r()));
    }
  });
});
