/**
 * The 44-byte header a streaming TTS server sends first: 16-bit mono PCM at `rate` Hz with both
 * sizes 0xFFFFFFFF (unknown while streaming), the form the client's audio accounting must read.
 */
export function streamingWavHeader(rate: number): Buffer {
  const b = Buffer.alloc(44);
  b.write('RIFF', 0, 'ascii');
  b.writeUInt32LE(0xffffffff, 4);
  b.write('WAVEfmt ', 8, 'ascii');
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(1, 20);
  b.writeUInt16LE(1, 22);
  b.writeUInt32LE(rate, 24);
  b.writeUInt32LE(rate * 2, 28);
  b.writeUInt16LE(2, 32);
  b.writeUInt16LE(16, 34);
  b.write('data', 36, 'ascii');
  b.writeUInt32LE(0xffffffff, 40);
  return b;
}
