import { describe, expect, it } from 'vitest';
import {
  type AudioSample,
  parseWavHeader,
  StreamAudio,
  stallSamples,
  summarizeAudio,
} from '../../src/stats/continuity.js';

/** 16 kHz mono 16-bit: 32 bytes of audio per millisecond. */
const RATE = 16_000;
const BYTES_PER_MS = 32;

function fmtChunk(rate = RATE, channels = 1, bits = 16, code = 1): Buffer {
  const b = Buffer.alloc(24);
  b.write('fmt ', 0, 'ascii');
  b.writeUInt32LE(16, 4);
  b.writeUInt16LE(code, 8);
  b.writeUInt16LE(channels, 10);
  b.writeUInt32LE(rate, 12);
  b.writeUInt32LE((rate * channels * bits) / 8, 16);
  b.writeUInt16LE((channels * bits) / 8, 20);
  b.writeUInt16LE(bits, 22);
  return b;
}

function chunkHeader(id: string, size: number): Buffer {
  const b = Buffer.alloc(8);
  b.write(id, 0, 'ascii');
  b.writeUInt32LE(size, 4);
  return b;
}

/** RIFF/WAVE header up to the data chunk's header; `extra` chunks go between fmt and data. */
function wavHeader(dataSize: number, extra: Buffer[] = [], fmt = fmtChunk()): Buffer {
  const body = Buffer.concat([Buffer.from('WAVE', 'ascii'), fmt, ...extra, chunkHeader('data', dataSize)]);
  return Buffer.concat([
    chunkHeader('RIFF', dataSize === 0xffffffff ? 0xffffffff : body.length + dataSize),
    body,
  ]);
}

const audioMs = (ms: number): Buffer => Buffer.alloc(ms * BYTES_PER_MS);

describe('parseWavHeader', () => {
  it('reads a plain 44-byte header: format, where the data starts, its declared size (a wrong offset would count header bytes as audio)', () => {
    const read = parseWavHeader(wavHeader(3200));
    expect(read).toEqual({
      status: 'ok',
      format: { container: 'wav', sample_rate_hz: 16000, channels: 1, bits_per_sample: 16, origin: 'header' },
      dataOffset: 44,
      dataBytes: 3200,
    });
  });

  it('tolerates a streaming header whose sizes are 0xFFFFFFFF or 0 (the data runs to the end of the stream)', () => {
    const huge = parseWavHeader(wavHeader(0xffffffff));
    const zero = parseWavHeader(wavHeader(0));
    expect(huge.status === 'ok' && huge.dataBytes).toBeNull();
    expect(zero.status === 'ok' && zero.dataBytes).toBeNull();
  });

  it('skips chunks between fmt and data, with the pad byte of an odd size (a LIST chunk must not shift the data offset)', () => {
    const list = Buffer.concat([chunkHeader('LIST', 5), Buffer.from('abcde'), Buffer.alloc(1)]);
    const read = parseWavHeader(wavHeader(0xffffffff, [list], fmtChunk(24_000, 2, 24)));
    expect(read.status).toBe('ok');
    if (read.status !== 'ok') return;
    expect(read.dataOffset).toBe(12 + 24 + 14 + 8);
    expect(read.format).toMatchObject({ sample_rate_hz: 24000, channels: 2, bits_per_sample: 24 });
  });

  it('asks for more bytes on a partial header, says not_wav for raw samples, invalid for nonsense', () => {
    const full = wavHeader(0);
    expect(parseWavHeader(full.subarray(0, 2)).status).toBe('need_more');
    expect(parseWavHeader(full.subarray(0, 30)).status).toBe('need_more');
    expect(parseWavHeader(Buffer.from([1, 2, 3, 4, 5])).status).toBe('not_wav');
    const dataFirst = Buffer.concat([chunkHeader('RIFF', 0), Buffer.from('WAVE'), chunkHeader('data', 0)]);
    expect(parseWavHeader(dataFirst).status).toBe('invalid');
    expect(parseWavHeader(wavHeader(0, [], fmtChunk(RATE, 1, 12))).status).toBe('invalid');
  });
});

describe('StreamAudio: the stall a listener hears', () => {
  it('counts the pause when the next chunk arrives after playback ran dry (0 buffer: 100 ms plays, next at 300 ms: 200 ms stall)', () => {
    const s = new StreamAudio(null, 0);
    s.chunk(0, Buffer.concat([wavHeader(0xffffffff), audioMs(100)]));
    expect(s.stallAt(250)).toBe(150);
    s.chunk(300, audioMs(100));
    s.chunk(350, audioMs(100));
    const r = s.result();
    expect(r.stallMs).toBe(200);
    expect(r.audioS).toBeCloseTo(0.3, 12);
    expect(r.audioChunks).toBe(3);
    expect(r.maxGapMs).toBe(300);
  });

  it('lets the client buffer absorb a gap: the same stream stalls 50 ms without a buffer and 0 with 60 ms', () => {
    const play = (bufferMs: number) => {
      const s = new StreamAudio(null, bufferMs);
      s.chunk(0, Buffer.concat([wavHeader(0), audioMs(100)]));
      s.chunk(50, audioMs(100));
      s.chunk(250, audioMs(100));
      return s.result().stallMs;
    };
    expect(play(0)).toBe(50);
    expect(play(60)).toBe(0);
  });

  it('starts playback at the first chunk carrying samples, not at a header-only chunk, and reads a header split across chunks', () => {
    const s = new StreamAudio(null, 0);
    const header = wavHeader(0xffffffff);
    s.chunk(0, header.subarray(0, 20));
    s.chunk(5, header.subarray(20));
    s.chunk(10, audioMs(100));
    s.chunk(110, audioMs(100));
    expect(s.result()).toMatchObject({ stallMs: 0, audioChunks: 2 });
  });

  it('marks a single-chunk stream not applicable (stall null), never as ok', () => {
    const s = new StreamAudio(null, 0);
    s.chunk(0, Buffer.concat([wavHeader(3200), audioMs(100)]));
    expect(s.result()).toMatchObject({ stallMs: null, audioChunks: 1, audioS: 0.1 });
  });

  it('stops counting audio at the declared data size (a trailing chunk is not audio)', () => {
    const s = new StreamAudio(null, 0);
    s.chunk(0, Buffer.concat([wavHeader(3200), audioMs(100), chunkHeader('LIST', 4), Buffer.alloc(4)]));
    expect(s.result().audioS).toBeCloseTo(0.1, 12);
  });

  it('uses the configured PCM format for raw samples, and accounts nothing without one', () => {
    const pcm = new StreamAudio({ sample_rate_hz: RATE, channels: 1, bits_per_sample: 16 }, 0);
    pcm.chunk(0, audioMs(100));
    pcm.chunk(200, audioMs(100));
    expect(pcm.result()).toMatchObject({ stallMs: 100, format: { container: 'pcm', origin: 'configured' } });
    const unknown = new StreamAudio(null, 0);
    unknown.chunk(0, audioMs(100));
    unknown.chunk(200, audioMs(100));
    expect(unknown.result()).toMatchObject({ format: null, stallMs: null, audioS: 0 });
  });
});

describe('summarizeAudio', () => {
  const stream = (stallMs: number | null, audioS: number, chunks: number) => ({
    format: {
      container: 'wav',
      sample_rate_hz: RATE,
      channels: 1,
      bits_per_sample: 16,
      origin: 'header',
    } as const,
    audioS,
    audioChunks: chunks,
    stallMs,
    maxGapMs: chunks > 1 ? 120 : null,
  });
  const samples: AudioSample[] = [
    { audio: stream(50, 0.3, 3), characters: 30, totalMs: 350 },
    { audio: stream(0, 0.2, 2), characters: 20, totalMs: 100 },
    { audio: stream(null, 0.1, 1), characters: 10, totalMs: 50 },
    { audio: null, characters: 40, totalMs: null },
  ];

  it('counts a failed request as a miss (+Infinity) in the stall samples and leaves single-chunk streams out', () => {
    expect(stallSamples(samples)).toEqual([50, 0, Number.POSITIVE_INFINITY]);
  });

  it('summarizes exactly: p50 over [0, 50, miss] is 50, the p95 is a miss (null), underrun share 1/2, RTF, per-second rates', () => {
    const s = summarizeAudio(samples, 2, 0, null);
    expect(s).toEqual({
      streams: 3,
      multi_chunk: 2,
      single_chunk: 1,
      underrun_share: 0.5,
      stall_p50_ms: 50,
      stall_p95_ms: null,
      stall_p95_ci_ms: null,
      max_chunk_gap_ms: 120,
      characters_mean: 20,
      audio_s_mean: expect.closeTo(0.2, 12),
      rtf_p50: 0.5,
      rtf_p95: expect.closeTo(1.1, 10),
      characters_per_s: 30,
      audio_s_per_s: expect.closeTo(0.3, 12),
      client_buffer_ms: 0,
    });
  });

  it('gives no summary when no response carried accountable audio', () => {
    expect(summarizeAudio([{ audio: null, characters: 5, totalMs: null }], 1, 0, null)).toBeNull();
  });
});
