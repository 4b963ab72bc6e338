// An emulated accelerator: what one instance's GPU does to time, without using the host's CPU
// for it. A FIFO of admitted jobs is served by `lanes` lanes; a job holds its lane for a service
// time drawn from a seeded log-normal distribution (the profile's mean and shape, times the time
// scale); its first audio byte leaves `first_audio_fraction` of the way through the service (1: a
// non-autoregressive model, the whole utterance at the end; below 1: a streaming model, the rest
// paced evenly until the service ends).
//
// The audio is real eSpeak-NG speech, synthesised once per distinct text by the worker pool and
// replayed from the AudioCache, so the host pays a synthesis per distinct text and a write per
// request: several instances at full device throughput fit on a small machine, and each one adds
// capacity as a GPU instance does. A request whose text is not cached yet waits for its synthesis
// before it joins the lanes (its own cold start), never holding a lane meanwhile.
import type { AudioCache } from './audio-cache.js';
import type { DeviceConfig, DeviceProfile } from './device-config.js';
import type { EngineInfo, Executor, Job, JobSink, SynthesisPool } from './pool.js';
import { describeStreaming } from './streaming.js';

/** mulberry32: a small seeded 32-bit generator; the same seed gives the same draws. */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Service times in ms: log-normal with the profile's mean and shape, times `timeScale`. */
export function serviceTimeSampler(profile: DeviceProfile, timeScale: number, seed: number): () => number {
  const random = mulberry32(seed);
  const sigma = profile.service_sigma;
  // E[exp(N(mu, sigma^2))] = exp(mu + sigma^2 / 2): this mu keeps the mean at service_mean_ms.
  const mu = Math.log(profile.service_mean_ms * timeScale) - (sigma * sigma) / 2;
  return () => {
    const u1 = 1 - random(); // (0, 1]: log is finite
    const u2 = random();
    const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
    return Math.exp(mu + sigma * z);
  };
}

interface AudioEntry {
  /** The utterance's audio, once synthesised (at once for a cache hit). */
  pcm: Buffer | undefined;
  /** When the audio was there: admission for a cache hit, end of synthesis for a miss. */
  readyAt: number;
}

interface Lane {
  index: number;
  busy: boolean;
  /** When the lane's current service ends (or ended), on the device's own timeline. */
  freeAt: number;
  release: NodeJS.Timeout | undefined;
}

export class DeviceExecutor implements Executor {
  private readonly lanes: Lane[];
  private readonly queue: Job[] = [];
  private readonly audio = new Map<Job, AudioEntry>();
  private readonly timers = new Map<Job, NodeJS.Timeout[]>();
  private readonly draw: () => number;
  private readonly chunkBytes: number;
  private nextId = 1;
  private accepting = false;
  private closed = false;

  constructor(
    private readonly profile: DeviceProfile,
    timeScale: number,
    seed: number,
    private readonly synthesis: SynthesisPool,
    private readonly cache: AudioCache,
    streamChunkBytes: number,
  ) {
    this.lanes = Array.from({ length: profile.lanes }, (_, index) => ({
      index,
      busy: false,
      freeAt: 0,
      release: undefined,
    }));
    this.draw = serviceTimeSampler(profile, timeScale, seed);
    // Whole samples; 0 (every engine block) means ~4 KiB, the engine's block size.
    this.chunkBytes = Math.max(2, (streamChunkBytes || 4096) & ~1);
  }

  get queued(): number {
    return this.queue.length;
  }

  get executing(): number {
    return this.lanes.filter((lane) => lane.busy).length;
  }

  /** The speech engine that fills the audio cache. */
  load(): Promise<EngineInfo> {
    return this.synthesis.load();
  }

  async warmup(): Promise<number[][]> {
    const times = await this.synthesis.warmup();
    this.accepting = true;
    this.dispatch();
    return times;
  }

  submit(text: string, voice: string, sink: JobSink): Job {
    if (this.closed) throw new Error('device is closed');
    const job: Job = {
      id: this.nextId,
      text,
      voice,
      sink,
      enqueuedAt: performance.now(),
      state: 'queued',
      cancelRequested: false,
    };
    this.nextId = this.nextId >= 0x7ffffff0 ? 1 : this.nextId + 1;
    const cached = this.cache.cached(text, voice);
    const entry: AudioEntry = { pcm: cached, readyAt: job.enqueuedAt };
    this.audio.set(job, entry);
    if (!cached) {
      // Synthesis (a cache miss) starts at admission; the job is served once its audio exists.
      this.cache.get(text, voice).then(
        (pcm) => {
          entry.pcm = pcm;
          entry.readyAt = performance.now();
          this.dispatch();
        },
        (error: unknown) => {
          if (job.state !== 'queued') return;
          this.queue.splice(this.queue.indexOf(job), 1);
          this.finish(job, () => job.sink.onError(error as Error));
        },
      );
    }
    this.queue.push(job);
    this.dispatch();
    return job;
  }

  /**
   * The client went away. Queued: dropped now. Running: the job ends now, but its lane stays held
   * until the service ends (a device does not abandon an utterance half computed).
   */
  cancel(job: Job): void {
    if (job.state === 'finished' || job.cancelRequested) return;
    job.cancelRequested = true;
    if (job.state === 'queued') {
      const at = this.queue.indexOf(job);
      if (at >= 0) this.queue.splice(at, 1);
    }
    this.finish(job, () => job.sink.onEnd({ cancelled: true }));
  }

  /**
   * Nothing to hold back: a device job replays audio already in the cache (synthesised once, under
   * the MAX_AUDIO_S cap), so an unread response cannot grow past that; the send-stall timeout cuts
   * a client that never reads.
   */
  pause(_job: Job): void {}

  resume(_job: Job): void {}

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      this.finish(job, () => job.sink.onError(new Error('shutting down')));
    for (const lane of this.lanes) if (lane.release) clearTimeout(lane.release);
    // Every job not finished still has its audio entry (running, or waiting for its audio).
    for (const job of [...this.audio.keys()])
      this.finish(job, () => job.sink.onError(new Error('shutting down')));
    await this.synthesis.close();
  }

  /**
   * Each free lane takes the first queued job whose audio is ready. A text this instance has not
   * synthesised yet waits for its synthesis outside the device (a cold cache costs that request
   * latency, as a cold start does) while the jobs behind it keep the lanes busy.
   */
  private dispatch(): void {
    if (!this.accepting || this.closed) return;
    for (const lane of this.lanes) {
      if (lane.busy) continue;
      const at = this.queue.findIndex((job) => this.audio.get(job)?.pcm !== undefined);
      if (at < 0) return;
      const [job] = this.queue.splice(at, 1);
      this.start(lane, job as Job);
    }
  }

  private start(lane: Lane, job: Job): void {
    const audio = this.audio.get(job) as AudioEntry;
    lane.busy = true;
    job.state = 'running';
    // A job that was ready when its lane freed starts at the instant the lane freed, not when the
    // timer callback ran: event-loop lag never accumulates into lost device throughput.
    const startedAt = Math.max(audio.readyAt, lane.freeAt);
    const service = this.draw();
    this.releaseAt(lane, startedAt + service);
    job.sink.onStart({ queueWaitMs: startedAt - job.enqueuedAt, worker: lane.index });
    const firstAt = startedAt + service * this.profile.first_audio_fraction;
    const pcm = audio.pcm as Buffer;
    this.schedule(job, firstAt - performance.now(), () => this.emit(job, pcm, firstAt, lane.freeAt));
  }

  private releaseAt(lane: Lane, at: number): void {
    lane.freeAt = at;
    if (lane.release) clearTimeout(lane.release);
    lane.release = setTimeout(
      () => {
        lane.busy = false;
        lane.release = undefined;
        this.dispatch();
      },
      Math.max(0, at - performance.now()),
    );
  }

  private schedule(job: Job, delayMs: number, fn: () => void): void {
    const timers = this.timers.get(job) ?? [];
    const timer = setTimeout(
      () => {
        const left = this.timers.get(job);
        if (left) left.splice(left.indexOf(timer), 1);
        fn();
      },
      Math.max(0, delayMs),
    );
    timers.push(timer);
    this.timers.set(job, timers);
  }

  /** First audio now; the rest paced evenly from `firstAt` to `endAt` (all at once when they coincide). */
  private emit(job: Job, pcm: Buffer, firstAt: number, endAt: number): void {
    if (job.state === 'finished') return;
    const streamed = this.profile.first_audio_fraction < 1 && pcm.length > this.chunkBytes;
    if (!streamed) {
      // A copy: the sink may byte-swap in place, and the cached audio is shared.
      if (pcm.length > 0) job.sink.onChunk(Buffer.from(pcm));
      this.finish(job, () => job.sink.onEnd({ cancelled: false }));
      return;
    }
    const count = Math.ceil(pcm.length / this.chunkBytes);
    const chunk = (k: number) => Buffer.from(pcm.subarray(k * this.chunkBytes, (k + 1) * this.chunkBytes));
    job.sink.onChunk(chunk(0));
    const now = performance.now();
    for (let k = 1; k < count; k += 1) {
      const at = firstAt + ((endAt - firstAt) * k) / (count - 1);
      const last = k === count - 1;
      this.schedule(job, at - now, () => {
        if (job.state === 'finished') return;
        job.sink.onChunk(chunk(k));
        if (last) this.finish(job, () => job.sink.onEnd({ cancelled: false }));
      });
    }
  }

  private finish(job: Job, notify: () => void): void {
    if (job.state === 'finished') return;
    job.state = 'finished';
    for (const timer of this.timers.get(job) ?? []) clearTimeout(timer);
    this.timers.delete(job);
    this.audio.delete(job);
    notify();
  }
}

/** One log line: what this instance emulates. */
export function describeDevice(device: DeviceConfig): string {
  const p = device.profile;
  const what = p?.streaming
    ? `device ${p.lanes} stream slot(s), ${describeStreaming(p.streaming, device.timeScale)}, ` +
      `speed sigma ${p.service_sigma}, from ${p.source}`
    : p
      ? `device ${p.lanes} lane(s), service mean ${(p.service_mean_ms * device.timeScale).toFixed(2)} ms ` +
        `(sigma ${p.service_sigma}), first audio at ${p.first_audio_fraction} of the service, from ${p.source}`
      : 'host CPU synthesis';
  const startup = device.startup
    ? `, start-up paced to ready at ${(device.startup.ready_s * device.timeScale).toFixed(3)} s`
    : '';
  return `${what}; time scale ${device.timeScale}, seed ${device.seed}${startup}`;
}
