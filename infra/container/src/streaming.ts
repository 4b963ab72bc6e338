// A streaming emulated accelerator (DEVICE_PROFILE with a "streaming" block): the device produces
// each utterance's audio chunk by chunk at its real-time factor, and the streams sharing it slow
// each other down, so the chunk cadence comes from the device, as on a real streaming TTS server.
//
// - A stream alone produces a chunk of `chunk_audio_ms` audio in chunk_audio_ms x rtf x F device
//   ms (F: the time scale; each request also draws a log-normal factor of mean 1 and shape
//   `service_sigma`, its own speed). The last chunk is the rest of the utterance, pro rata.
// - `sharing: 'processor'`: the device's throughput is shared, k active streams each progress
//   at 1/k of that speed (a batching GPU at full utilisation); `'lanes'`: each stream has its own
//   lane (no slowdown). At most `lanes` streams are active; the others wait in the FIFO.
// - The audio is the real utterance (the cached eSpeak-NG PCM), so its length sets the stream's
//   duration. First audio = queue wait + the first chunk's production time.
//
// Processor sharing is kept exact with one work clock W (device ms of progress each active stream
// has received, which advances at 1 / slowdown(k) per ms of time): a chunk is produced when W
// reaches its target, and a change of k changes only how fast W advances from then on. One timer
// per device waits for the earliest target. When it fires late, every completion due meanwhile is
// processed at its own instant (the device's timeline never slips by the event loop's lag, as
// `lane.freeAt` in device.ts), and only the writes happen late.

import { serviceTimeSampler } from './device.js';
import type { DeviceProfile, StreamingProfile } from './device-config.js';
import type { EngineInfo, Executor, Job, JobSink } from './pool.js';

/** Time and timers, injectable so that the device's schedule can be tested exactly. */
export interface DeviceClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: DeviceClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What the streaming device needs of the speech engine: it fills the cache, the device replays it. */
export interface SpeechEngine {
  load(): Promise<EngineInfo>;
  warmup(): Promise<number[][]>;
  close(): Promise<void>;
}

export interface SpeechCache {
  cached(text: string, voice: string): Buffer | undefined;
  get(text: string, voice: string): Promise<Buffer>;
}

interface AudioEntry {
  pcm: Buffer | undefined;
  readyAt: number;
}

interface Stream {
  job: Job;
  pcm: Buffer;
  /** Byte range of the chunk being produced. */
  from: number;
  to: number;
  /** Value of the work clock at which that chunk is produced. */
  doneAt: number;
  /** This request's speed factor (log-normal, mean 1). */
  factor: number;
}

/** Work-clock slack (ms) under which two targets count as reached together (float rounding). */
const EPSILON = 1e-6;

export class StreamingDeviceExecutor implements Executor {
  private readonly queue: Job[] = [];
  private readonly audio = new Map<Job, AudioEntry>();
  private readonly active: Stream[] = [];
  private readonly streaming: StreamingProfile;
  private readonly drawFactor: () => number;
  /** Work clock W and the instant it refers to. */
  private work = 0;
  private at = 0;
  private timer: unknown;
  private bytesPerMs = 0;
  private chunkBytes = 2;
  private nextId = 1;
  private accepting = false;
  private closed = false;
  private settling = false;

  constructor(
    private readonly profile: DeviceProfile,
    private readonly timeScale: number,
    seed: number,
    private readonly engine: SpeechEngine,
    private readonly cache: SpeechCache,
    private readonly clock: DeviceClock = realClock,
  ) {
    if (!profile.streaming) throw new Error('a streaming device needs a "streaming" profile block');
    this.streaming = profile.streaming;
    this.drawFactor = serviceTimeSampler({ ...profile, service_mean_ms: 1 }, 1, seed);
    this.at = clock.now();
  }

  get queued(): number {
    return this.queue.length;
  }

  get executing(): number {
    return this.active.length;
  }

  /** Streams active now (for tests and the ping body): k, the device's sharing. */
  get activeStreams(): number {
    return this.active.length;
  }

  async load(): Promise<EngineInfo> {
    const info = await this.engine.load();
    // 16-bit mono PCM: 2 bytes a sample.
    this.bytesPerMs = (info.sampleRate * 2) / 1000;
    this.chunkBytes = Math.max(2, Math.round((info.sampleRate * this.streaming.chunk_audio_ms) / 1000) * 2);
    return info;
  }

  async warmup(): Promise<number[][]> {
    const times = await this.engine.warmup();
    this.update(() => {
      this.accepting = true;
    });
    return times;
  }

  submit(text: string, voice: string, sink: JobSink): Job {
    if (this.closed) throw new Error('device is closed');
    if (this.bytesPerMs === 0) throw new Error('device not loaded');
    const job: Job = {
      id: this.nextId,
      text,
      voice,
      sink,
      enqueuedAt: this.clock.now(),
      state: 'queued',
      cancelRequested: false,
    };
    this.nextId = this.nextId >= 0x7ffffff0 ? 1 : this.nextId + 1;
    const cached = this.cache.cached(text, voice);
    const entry: AudioEntry = { pcm: cached, readyAt: job.enqueuedAt };
    this.audio.set(job, entry);
    if (!cached) {
      this.cache.get(text, voice).then(
        (pcm) =>
          this.update(() => {
            entry.pcm = pcm;
            entry.readyAt = this.clock.now();
          }),
        (error: unknown) => {
          if (job.state !== 'queued') return;
          this.update(() => {
            this.queue.splice(this.queue.indexOf(job), 1);
            this.finish(job, () => job.sink.onError(error as Error));
          });
        },
      );
    }
    this.update(() => this.queue.push(job));
    return job;
  }

  /** The client went away: a queued job is dropped, a running stream leaves the device now. */
  cancel(job: Job): void {
    if (job.state === 'finished' || job.cancelRequested) return;
    job.cancelRequested = true;
    this.update(() => {
      const queuedAt = this.queue.indexOf(job);
      if (queuedAt >= 0) this.queue.splice(queuedAt, 1);
      const activeAt = this.active.findIndex((s) => s.job === job);
      if (activeAt >= 0) this.active.splice(activeAt, 1);
      this.finish(job, () => job.sink.onEnd({ cancelled: true }));
    });
  }

  /** The audio is bounded (cached, under MAX_AUDIO_S); the send-stall timeout cuts a client that never reads. */
  pause(_job: Job): void {}

  resume(_job: Job): void {}

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.active.splice(0);
    this.queue.splice(0);
    for (const job of [...this.audio.keys()])
      this.finish(job, () => job.sink.onError(new Error('shutting down')));
    await this.engine.close();
  }

  private slowdown(): number {
    return this.streaming.sharing === 'processor' ? Math.max(1, this.active.length) : 1;
  }

  /** Device ms to produce `bytes` of audio alone at this stream's speed. */
  private workOf(bytes: number, factor: number): number {
    return (bytes / this.bytesPerMs) * this.streaming.rtf * this.timeScale * factor;
  }

  /** Moves the work clock to `to` at the current sharing. */
  private advance(to: number): void {
    if (to <= this.at) return;
    this.work += (to - this.at) / this.slowdown();
    this.at = to;
  }

  /** The instant the earliest active chunk is produced at the current sharing. */
  private nextDue(): number | undefined {
    if (this.active.length === 0) return undefined;
    let target = Number.POSITIVE_INFINITY;
    for (const stream of this.active) target = Math.min(target, stream.doneAt);
    return this.at + Math.max(0, target - this.work) * this.slowdown();
  }

  /**
   * Every state change goes through here: the device is first brought to now (completions due
   * meanwhile processed at their own instants), then `op` applies, then free slots are filled and
   * the timer is set for the next completion. A callback that re-enters (a sink submitting or
   * cancelling) only applies its `op`: the outer call does the rest.
   */
  private update(op: () => void): void {
    if (this.settling) {
      op();
      return;
    }
    this.settling = true;
    try {
      const now = this.clock.now();
      for (let due = this.nextDue(); due !== undefined && due <= now; due = this.nextDue()) {
        this.advance(due);
        const target = Math.min(...this.active.map((s) => s.doneAt));
        this.work = Math.max(this.work, target); // exact, whatever the float rounding of `due`
        for (const stream of this.active.filter((s) => s.doneAt <= target + EPSILON)) this.produced(stream);
        this.dispatch(due);
      }
      this.advance(now);
      op();
      this.dispatch(now, Number.POSITIVE_INFINITY);
    } finally {
      this.settling = false;
    }
    this.arm();
  }

  /**
   * Fills free slots at `at`, in FIFO order, with jobs whose audio was there by `readyBy` (a
   * completion processed late starts only the jobs that were ready at its own instant).
   */
  private dispatch(at: number, readyBy = at): void {
    if (!this.accepting || this.closed) return;
    while (this.active.length < this.profile.lanes) {
      const index = this.queue.findIndex((job) => {
        const entry = this.audio.get(job);
        return entry?.pcm !== undefined && entry.readyAt <= readyBy;
      });
      if (index < 0) return;
      const [job] = this.queue.splice(index, 1) as [Job];
      this.start(job, at);
    }
  }

  private start(job: Job, at: number): void {
    const pcm = this.audio.get(job)?.pcm as Buffer;
    job.state = 'running';
    job.sink.onStart({ queueWaitMs: at - job.enqueuedAt, worker: this.active.length });
    if (job.state !== 'running') return; // the sink cancelled it
    if (pcm.length === 0) {
      this.finish(job, () => job.sink.onEnd({ cancelled: false }));
      return;
    }
    const factor = this.drawFactor();
    const to = Math.min(pcm.length, this.chunkBytes);
    this.active.push({ job, pcm, from: 0, to, doneAt: this.work + this.workOf(to, factor), factor });
  }

  /** A chunk is produced: it leaves, and the stream starts its next one or ends. */
  private produced(stream: Stream): void {
    const at = this.active.indexOf(stream);
    if (at < 0) return;
    const { job, pcm } = stream;
    // A copy: the sink may byte-swap in place, and the cached audio is shared.
    const chunk = Buffer.from(pcm.subarray(stream.from, stream.to));
    if (stream.to >= pcm.length) {
      this.active.splice(at, 1);
      job.sink.onChunk(chunk);
      this.finish(job, () => job.sink.onEnd({ cancelled: false }));
      return;
    }
    const next = Math.min(pcm.length, stream.to + this.chunkBytes);
    stream.doneAt += this.workOf(next - stream.to, stream.factor);
    stream.from = stream.to;
    stream.to = next;
    job.sink.onChunk(chunk);
  }

  private arm(): void {
    if (this.timer !== undefined) this.clock.clearTimeout(this.timer);
    this.timer = undefined;
    const due = this.nextDue();
    if (due === undefined || this.closed) return;
    this.timer = this.clock.setTimeout(
      () => {
        this.timer = undefined;
        this.update(() => {});
      },
      Math.max(0, due - this.clock.now()),
    );
  }

  private finish(job: Job, notify: () => void): void {
    if (job.state === 'finished') return;
    job.state = 'finished';
    this.audio.delete(job);
    notify();
  }
}

/** One phrase for the container's log line. */
export function describeStreaming(streaming: StreamingProfile, timeScale: number): string {
  const rtf = streaming.rtf * timeScale;
  const sharing =
    streaming.sharing === 'processor'
      ? `throughput shared: k streams each ${rtf.toPrecision(3)} x k, slower than real time beyond ${Math.floor(1 / rtf)} streams`
      : 'independent lanes';
  return `streaming at real-time factor ${rtf.toPrecision(3)} (time-scaled) in ${streaming.chunk_audio_ms} ms chunks, ${sharing}`;
}
