// The audio an emulated device replays: each distinct (voice, text) is synthesised once by the
// eSpeak-NG pool (real speech) and kept, so serving it again costs the host only the bytes it
// writes. Concurrent requests for the same utterance share one synthesis. Least recently used
// utterances are dropped past `maxBytes`.
import type { SynthesisPool } from './pool.js';

export class AudioCache {
  private readonly ready = new Map<string, Buffer>();
  private readonly pending = new Map<string, Promise<Buffer>>();
  private bytes = 0;

  constructor(
    private readonly pool: SynthesisPool,
    private readonly maxBytes: number,
  ) {}

  /** The utterance's PCM if it is cached (then marked as most recently used). */
  cached(text: string, voice: string): Buffer | undefined {
    const key = `${voice}\u0000${text}`;
    const pcm = this.ready.get(key);
    if (pcm) {
      // Re-insert: Map order is the recency order eviction walks.
      this.ready.delete(key);
      this.ready.set(key, pcm);
    }
    return pcm;
  }

  /** The whole PCM of the utterance (16-bit mono, native byte order as the engine produced it). */
  get(text: string, voice: string): Promise<Buffer> {
    const key = `${voice}\u0000${text}`;
    const cached = this.cached(text, voice);
    if (cached) return Promise.resolve(cached);
    const inFlight = this.pending.get(key);
    if (inFlight) return inFlight;
    const synthesis = this.synthesise(text, voice).then(
      (pcm) => {
        this.pending.delete(key);
        this.store(key, pcm);
        return pcm;
      },
      (error: unknown) => {
        this.pending.delete(key);
        throw error;
      },
    );
    this.pending.set(key, synthesis);
    return synthesis;
  }

  private synthesise(text: string, voice: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const parts: Buffer[] = [];
      this.pool.submit(text, voice, {
        onStart: () => {},
        onChunk: (pcm) => parts.push(pcm),
        onEnd: ({ cancelled }) =>
          cancelled ? reject(new Error('synthesis cancelled')) : resolve(Buffer.concat(parts)),
        onError: reject,
      });
    });
  }

  private store(key: string, pcm: Buffer): void {
    if (pcm.length > this.maxBytes) return;
    this.ready.set(key, pcm);
    this.bytes += pcm.length;
    for (const [oldest, audio] of this.ready) {
      if (this.bytes <= this.maxBytes) break;
      this.ready.delete(oldest);
      this.bytes -= audio.length;
    }
  }
}
