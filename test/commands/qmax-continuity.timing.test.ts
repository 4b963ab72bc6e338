/**
 * qmax with the continuity SLO against a loopback container that streams slower than real time
 * under load: first audio stays fast at every concurrency, but the gaps between audio chunks grow
 * with the requests in flight until playback runs dry. With --underrun-slo-ms the rung that
 * stutters fails and Q_max is bounded by continuity; without it first audio alone decides.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArtifact } from '../../src/model/index.js';
import { configFile } from '../helpers/anchor.js';
import { runCli } from '../helpers/cli.js';
import { streamingWavHeader } from '../helpers/wav.js';

/** 16 kHz mono 16-bit: 32 bytes a millisecond. */
const RATE = 16_000;
/**
 * How a stream is sent, chosen when it starts by the streams in flight. Up to 3 (the low rung):
 * chunks of 2000 ms of audio 15 ms apart, so the player is always seconds ahead: no late timer
 * of the server nor late read of the client can stall it (a stall needs a delay of 2 s, where the
 * client's own health check refuses the rung first). Beyond 3 (the high rung): chunks of 40 ms of
 * audio 80 ms apart, slower than real time: with a 30 ms client buffer playback runs dry 10 ms
 * before the second chunk and 40 ms before the third: 50 ms of stall at least (a late timer only
 * adds to it).
 */
const CHUNKS = 3;
const LOW = { chunkAudioMs: 2000, gapMs: 15 };
const HIGH = { chunkAudioMs: 40, gapMs: 80 };
const modeFor = (streams: number) => (streams > 3 ? HIGH : LOW);

const streamingHeader = (): Buffer => streamingWavHeader(RATE);

let server: Server;
let url: string;
let inFlight = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      inFlight += 1;
      const mode = modeFor(inFlight);
      const audio = Buffer.alloc(mode.chunkAudioMs * 32);
      res.writeHead(200, { 'Content-Type': 'audio/wav' });
      res.write(Buffer.concat([streamingHeader(), audio]));
      let sent = 1;
      const next = () => {
        if (sent === CHUNKS) {
          inFlight -= 1;
          res.end();
          return;
        }
        sent += 1;
        res.write(audio);
        setTimeout(next, mode.gapMs);
      };
      setTimeout(next, mode.gapMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const qmax = (extra: string[]) => {
  const out = join(mkdtempSync(join(tmpdir(), 'scalegate-qmax-continuity-')), 'qmax.json');
  const args = [
    'qmax',
    '--config',
    configFile,
    '--target',
    url,
    '--slo-ms',
    '300',
    '--ladder',
    'fixed',
    '--rungs',
    '2,16',
    '--hold-s',
    '7.5',
    '--measure-s',
    '7',
    '--client-buffer-ms',
    '30',
    '--settle-s',
    '0.5',
    '--min-samples',
    '72',
    '--out',
    out,
    ...extra,
  ];
  return { out, run: runCli(args) };
};

describe('qmax decides each rung on first audio and on playback continuity', () => {
  it('with --underrun-slo-ms, bounds Q_max by continuity where streams stutter although first audio passes (bounded_by: continuity)', async () => {
    const { out, run } = qmax(['--underrun-slo-ms', '20']);
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    const artifact = readArtifact('qmax', out);
    const [low, high] = artifact.steps;
    // At 16 in flight the gaps (80 ms) outlast the buffer and each chunk's 20 ms of audio: 50 ms of stall.
    // First audio stays far inside its SLO there (never its failure that bounds Q_max).
    expect(high?.first_audio_verdict).not.toBe('fail');
    expect(high?.ttfab_p95_ms).toBeLessThan(300);
    expect(high?.continuity_verdict).toBe('fail');
    expect(high?.verdict).toBe('fail');
    expect(high?.audio?.stall_p50_ms).toBeGreaterThan(20);
    expect(high?.audio?.underrun_share).toBeGreaterThan(0.9);
    // At 2 in flight each chunk is seconds ahead of the player: playback never runs dry.
    expect(low?.verdict).toBe('pass');
    expect(low?.continuity_verdict).toBe('pass');
    expect(low?.audio).toMatchObject({ stall_p95_ms: 0, underrun_share: 0, single_chunk: 0 });
    expect(low?.audio?.audio_s_mean).toBeCloseTo((CHUNKS * LOW.chunkAudioMs) / 1000, 9);
    expect(artifact.q_max).toBe(2);
    expect(artifact.continuity).toMatchObject({
      underrun_slo_ms: 20,
      client_buffer_ms: 30,
      bounded_by: 'continuity',
      format: { container: 'wav', sample_rate_hz: RATE, channels: 1, bits_per_sample: 16, origin: 'header' },
    });
    expect(result.stdout).toMatch(/bounded by continuity/);
    expect(result.stdout).toMatch(/stall p95/);
  }, 25_000);

  it('without --underrun-slo-ms, decides on first audio alone: the stuttering rung is never failed (pass, or undecided only by the dependence check), the audio is still recorded (measured)', async () => {
    const { out, run } = qmax([]);
    const result = await run;
    expect(result.exitCode, result.stderr).toBe(0);
    const artifact = readArtifact('qmax', out);
    expect(artifact.continuity ?? null).toBeNull();
    const high = artifact.steps[1];
    // Stutter never fails it without an underrun SLO. Its sub-millisecond first-audio batches can
    // look dependent to the rung's von Neumann check in a 7 s hold, which holds it undecided (the
    // check guards every PASS); only then is Q_max the low rung.
    expect(high?.verdict).not.toBe('fail');
    if (high?.verdict === 'undecided') expect(high.verdict_reason).toMatch(/von Neumann ratio/);
    expect(artifact.q_max).toBe(high?.verdict === 'pass' ? 16 : 2);
    expect(high?.continuity_verdict ?? null).toBeNull();
    expect(high?.audio?.stall_p50_ms).toBeGreaterThan(20);
  }, 25_000);
});
