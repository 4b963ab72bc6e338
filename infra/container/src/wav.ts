// The WAV header a streamed response starts with.
//
// The total length is unknown when the header is sent (the audio is synthesised while it
// streams), so both size fields hold 0xFFFFFFFF, the conventional "unknown / streaming length"
// value (what ffmpeg and sox write to non-seekable output). Decoders that honour it read PCM
// until the stream ends. 0 would claim an empty file, and a guessed size would be wrong. A
// client that needs exact sizes patches them from the received byte count: data = total - 44,
// RIFF = total - 8.

export const WAV_HEADER_BYTES = 44;
export const STREAMING_SIZE = 0xffffffff;

export function wavHeader(sampleRate: number, channels = 1, bitsPerSample = 16): Buffer {
  const blockAlign = (channels * bitsPerSample) / 8;
  const header = Buffer.alloc(WAV_HEADER_BYTES);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(STREAMING_SIZE, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16); // fmt chunk size
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * blockAlign, 28); // byte rate
  header.writeUInt16LE(blockAlign, 32);
  header.writeUInt16LE(bitsPerSample, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(STREAMING_SIZE, 40);
  return header;
}
