// The synthesis worker pool: a FIFO of admitted jobs served by N worker threads, one job per
// worker at a time (WORKERS=1 is strictly serial, like a GPU TTS server running one utterance at
// a time).
import { Worker } from 'node:worker_threads';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';

/** What a job's owner (the HTTP response) hears. Exactly one of onEnd / onError, exactly once. */
export interface JobSink {
  onStart(info: { queueWaitMs: number; worker: number }): void;
  onChunk(pcm: Buffer): void;
  /** The utterance ended: fully synthesised, or (cancelled) cut short / never started. */
  onEnd(info: { cancelled: boolean }): void;
  onError(error: Error): void;
}

export interface Job {
  readonly id: number;
  readonly text: string;
  readonly voice: string;
  readonly sink: JobSink;
  readonly enqueuedAt: number;
  state: 'queued' | 'running' | 'finished';
  cancelRequested: boolean;
}

interface Slot {
  index: number;
  worker: Worker;
  cancel: Int32Array;
  pause: Int32Array;
  ready: boolean;
  job: Job | undefined;
  /** Set once the slot's thread is being ended on purpose (shutdown or replacement). */
  retiring: boolean;
}

export interface EngineInfo {
  sampleRate: number;
  voices: string[];
}

/** Per-job limits handed to every worker. */
export interface PoolLimits {
  /** Most audio one job may produce, seconds. */
  maxAudioS: number;
}

export interface PoolEvents {
  /** A worker that had started fine died and was replaced. */
  log(line: string): void;
  /** Unrecoverable (a replacement worker could not start): the process should exit non-zero. */
  fatal(error: Error): void;
}

// eSpeak-NG here is JavaScript (Emscripten's wasm2js output), so V8 optimises it only after it
// has run a while: the first utterances are 10-30x slower than steady state (measured: 250 ms,
// 180 ms, 30 ms, ... 9 ms for the same 68 characters). A single warm-up sentence would declare
// an instance warm that is still cold for its first requests, so each worker synthesises these,
// in turn, `warmupRuns` times.
const WARMUP_TEXTS = [
  'Warming up the speech engine: one, two, three, four, five.',
  'The quick brown fox jumps over the lazy dog while the band plays on.',
  'How much wood would a woodchuck chuck if a woodchuck could chuck wood?',
];

/**
 * What the HTTP side needs of whatever runs the jobs: this eSpeak-NG pool (synthesis on the host
 * CPU), or an emulated accelerator (device.ts) that replays cached speech at a measured pace.
 */
export interface Executor {
  readonly queued: number;
  readonly executing: number;
  load(): Promise<EngineInfo>;
  warmup(): Promise<number[][]>;
  submit(text: string, voice: string, sink: JobSink): Job;
  cancel(job: Job): void;
  /** The job's client is not reading: produce no more of its audio until `resume` (backpressure). */
  pause(job: Job): void;
  resume(job: Job): void;
  close(): Promise<void>;
}

export class SynthesisPool implements Executor {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  private engineInfo: EngineInfo | undefined;

  constructor(
    private readonly size: number,
    private readonly voice: string,
    private readonly warmupRuns: number,
    private readonly streamChunkBytes: number,
    private readonly workerUrl: URL,
    private readonly events: PoolEvents,
    private readonly limits: PoolLimits = { maxAudioS: 120 },
  ) {}

  get info(): EngineInfo {
    if (!this.engineInfo) throw new Error('pool not loaded');
    return this.engineInfo;
  }

  get queued(): number {
    return this.queue.length;
  }

  get executing(): number {
    return this.slots.filter((slot) => slot.job !== undefined).length;
  }

  /** Starts every worker; resolves once each has its engine and voice loaded (weights_ready). */
  async load(): Promise<EngineInfo> {
    const loads = Array.from({ length: this.size }, (_, index) => this.spawn(index));
    const infos = await Promise.all(loads);
    this.engineInfo = infos[0];
    return this.info;
  }

  /**
   * Has every worker run its warm-up utterances; resolves, once all have (warmup_done), with each
   * worker's per-utterance times in ms.
   */
  async warmup(): Promise<number[][]> {
    const times = await Promise.all(this.slots.map((slot) => this.warmSlot(slot)));
    for (const slot of this.slots) slot.ready = true;
    this.dispatch();
    return times;
  }

  submit(text: string, voice: string, sink: JobSink): Job {
    if (this.closed) throw new Error('pool is closed');
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
    this.queue.push(job);
    this.dispatch();
    return job;
  }

  /**
   * The job's client went away. Queued: dropped now. Running: the worker aborts the utterance at
   * its next audio block (eSpeak-NG checks between blocks of ~100 ms of audio, so within a few
   * ms); the job ends (onEnd cancelled) when the worker reports it.
   */
  cancel(job: Job): void {
    if (job.state === 'finished' || job.cancelRequested) return;
    job.cancelRequested = true;
    if (job.state === 'queued') {
      const at = this.queue.indexOf(job);
      if (at >= 0) this.queue.splice(at, 1);
      this.finish(job, () => job.sink.onEnd({ cancelled: true }));
      return;
    }
    const slot = this.slots.find((candidate) => candidate.job === job);
    if (slot) {
      Atomics.store(slot.cancel, 0, job.id);
      Atomics.notify(slot.pause, 0); // a paused worker wakes to see the cancel
    }
  }

  /**
   * The job's client is not reading: its worker waits at the next audio block until `resume`
   * (or a cancel), so an unread response never grows beyond what is already on its way.
   */
  pause(job: Job): void {
    const slot = this.slots.find((candidate) => candidate.job === job);
    if (slot) Atomics.store(slot.pause, 0, job.id);
  }

  resume(job: Job): void {
    const slot = this.slots.find((candidate) => candidate.job === job);
    if (slot && Atomics.load(slot.pause, 0) === job.id) {
      Atomics.store(slot.pause, 0, 0);
      Atomics.notify(slot.pause, 0);
    }
  }

  /** Ends every worker thread. Queued jobs (none after a drain) fail. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0))
      this.finish(job, () => job.sink.onError(new Error('shutting down')));
    await Promise.all(
      this.slots.map(async (slot) => {
        slot.retiring = true;
        await slot.worker.terminate();
      }),
    );
  }

  private spawn(index: number): Promise<EngineInfo> {
    const cancel = new SharedArrayBuffer(4);
    const pause = new SharedArrayBuffer(4);
    const init: WorkerInit = {
      index,
      voice: this.voice,
      cancel,
      pause,
      streamChunkBytes: this.streamChunkBytes,
      maxAudioS: this.limits.maxAudioS,
    };
    const worker = new Worker(this.workerUrl, { workerData: init, name: `tts-worker-${index}` });
    const slot: Slot = {
      index,
      worker,
      cancel: new Int32Array(cancel),
      pause: new Int32Array(pause),
      ready: false,
      job: undefined,
      retiring: false,
    };
    this.slots[index] = slot;
    return new Promise<EngineInfo>((resolve, reject) => {
      let loaded = false;
      worker.on('message', (message: FromWorker) => {
        if (message.type === 'loaded') {
          loaded = true;
          resolve({ sampleRate: message.sampleRate, voices: message.voices });
        } else if (message.type === 'init_failed') {
          reject(new Error(`worker ${index}: ${message.message}`));
        } else {
          this.onJobMessage(slot, message);
        }
      });
      worker.on('error', (error) => {
        if (!loaded) reject(new Error(`worker ${index} failed to start: ${error.message}`));
        else this.onWorkerGone(slot, error);
      });
      worker.on('exit', (code) => {
        if (!loaded) reject(new Error(`worker ${index} exited (${code}) before loading its engine`));
        else this.onWorkerGone(slot, new Error(`worker ${index} exited with code ${code}`));
      });
    });
  }

  private warmSlot(slot: Slot): Promise<number[]> {
    return new Promise<number[]>((resolve, reject) => {
      const onMessage = (message: FromWorker) => {
        if (message.type === 'warmed') {
          slot.worker.off('message', onMessage);
          resolve(message.ms);
        } else if (message.type === 'init_failed') {
          slot.worker.off('message', onMessage);
          reject(new Error(`worker ${slot.index}: ${message.message}`));
        }
      };
      slot.worker.on('message', onMessage);
      slot.worker.once('exit', (code) =>
        reject(new Error(`worker ${slot.index} exited (${code}) during warm-up`)),
      );
      const message: ToWorker = { type: 'warmup', texts: WARMUP_TEXTS, runs: this.warmupRuns };
      slot.worker.postMessage(message);
    });
  }

  private dispatch(): void {
    for (const slot of this.slots) {
      if (this.queue.length === 0) return;
      if (!slot.ready || slot.job || slot.retiring) continue;
      const job = this.queue.shift() as Job;
      job.state = 'running';
      slot.job = job;
      Atomics.store(slot.cancel, 0, 0);
      Atomics.store(slot.pause, 0, 0);
      job.sink.onStart({ queueWaitMs: performance.now() - job.enqueuedAt, worker: slot.index });
      const message: ToWorker = { type: 'synth', id: job.id, text: job.text, voice: job.voice };
      slot.worker.postMessage(message);
    }
  }

  private onJobMessage(slot: Slot, message: FromWorker): void {
    const job = slot.job;
    if (!job || !('id' in message) || message.id !== job.id) return;
    if (message.type === 'chunk') {
      if (!job.cancelRequested) job.sink.onChunk(Buffer.from(message.pcm));
    } else if (message.type === 'done') {
      slot.job = undefined;
      this.finish(job, () => job.sink.onEnd({ cancelled: message.cancelled || job.cancelRequested }));
      this.dispatch();
    } else if (message.type === 'failed') {
      slot.job = undefined;
      this.finish(job, () => job.sink.onError(new Error(message.message)));
      // A fatal failure ends the worker thread; onWorkerGone replaces it.
      if (!message.fatal) this.dispatch();
    }
  }

  private onWorkerGone(slot: Slot, error: Error): void {
    if (slot.retiring || this.closed) return;
    slot.retiring = true;
    const job = slot.job;
    slot.job = undefined;
    if (job) this.finish(job, () => job.sink.onError(error));
    this.events.log(`[tts] ${error.message}; starting a replacement worker`);
    void this.replaceWorker(slot.index);
  }

  private async replaceWorker(index: number): Promise<void> {
    try {
      await this.spawn(index);
      const slot = this.slots[index] as Slot;
      await this.warmSlot(slot);
      slot.ready = true;
      this.events.log(`[tts] replacement worker ${index} ready`);
      this.dispatch();
    } catch (error) {
      this.events.fatal(error as Error);
    }
  }

  private finish(job: Job, notify: () => void): void {
    if (job.state === 'finished') return;
    job.state = 'finished';
    notify();
  }
}
