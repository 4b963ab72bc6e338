// The reference container can demand another request shape, as a real model's container
// definition would: REQUEST_CONTRACT=input-voice reads {"input", "voice"} and refuses {"text"}
// (400, saying which contract it reads); REQUEST_CONTENT_TYPE refuses another media type (415).
// The real built server, spawned as a process, over loopback.
import { request } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { ensureContainerBuilt, invoke, killAll, startContainer } from './harness.js';

const CONTRACT = {
  WARMUP_RUNS: '1',
  REQUEST_CONTRACT: 'input-voice',
  REQUEST_CONTENT_TYPE: 'application/json',
};

beforeAll(() => {
  ensureContainerBuilt();
});
afterEach(async () => {
  await killAll();
});
afterAll(async () => {
  await killAll();
});

function postAs(port: number, contentType: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/invocations',
        headers: { 'Content-Type': contentType, 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (c: Buffer) => parts.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('REQUEST_CONTRACT=input-voice', () => {
  test('reads {"input", "voice"} (a Kokoro-style voice is spoken with the default voice) and streams audio', async () => {
    const c = await startContainer(CONTRACT);
    const ok = await invoke(c.port, { input: 'Hello there.', voice: 'af_heart' });
    expect(ok.status).toBe(200);
    expect(ok.headers['content-type']).toBe('audio/wav');
    expect(ok.body.length).toBeGreaterThan(44);
    expect((await invoke(c.port, { input: 'Hello.', voice: 'en-us' })).status).toBe(200);
  }, 60_000);

  test('refuses the default {"text"} body, a missing voice and an unknown one with 400 and what it reads', async () => {
    const c = await startContainer(CONTRACT);
    const text = await invoke(c.port, { text: 'Hello.' });
    expect(text.status).toBe(400);
    expect(JSON.parse(text.body.toString())).toEqual({
      error: 'bad_request',
      message: 'this container reads {"input": ..., "voice": ...}; "text" is not a field of its contract',
    });
    expect((await invoke(c.port, { input: 'Hello.' })).status).toBe(400);
    expect((await invoke(c.port, { input: 'Hello.', voice: 'klingon-x' })).status).toBe(400);
  }, 60_000);

  test('refuses another Content-Type with 415 (parameters aside)', async () => {
    const c = await startContainer(CONTRACT);
    const body = JSON.stringify({ input: 'Hello.', voice: 'af_heart' });
    const plain = await postAs(c.port, 'text/plain', body);
    expect(plain.status).toBe(415);
    expect(JSON.parse(plain.body)).toMatchObject({ error: 'unsupported_media_type' });
    expect((await postAs(c.port, 'application/json; charset=utf-8', body)).status).toBe(200);
  }, 60_000);

  test('without the variables the container keeps its {"text"} contract and any content type', async () => {
    const c = await startContainer({ WARMUP_RUNS: '1' });
    expect((await invoke(c.port, { text: 'Hello.' })).status).toBe(200);
    expect((await invoke(c.port, { input: 'Hello.', voice: 'af_heart' })).status).toBe(400);
    expect((await postAs(c.port, 'text/plain', JSON.stringify({ text: 'Hi.' }))).status).toBe(200);
  }, 60_000);

  test('an unknown contract is a start-up failure (exit 2) naming the variable', async () => {
    const c = await startContainer({ REQUEST_CONTRACT: 'grpc' }, { waitReady: false });
    const exit = await c.exited;
    expect(exit.code).toBe(2);
    expect(c.stderr()).toContain('REQUEST_CONTRACT=grpc: expected one of text, input-voice');
  }, 60_000);
});
