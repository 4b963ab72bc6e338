// Messages between the main thread and the synthesis worker threads.

export interface WorkerInit {
  index: number;
  voice: string;
  /**
   * After the first audio block (sent at once: it is the time to first audio byte), blocks are
   * gathered up to this many bytes per message; 0 sends every engine block as it comes.
   */
  streamChunkBytes: number;
  /**
   * Int32 cell shared with the main thread: the id of a job whose client went away. The worker
   * polls it between audio blocks and aborts that utterance at the next block.
   */
  cancel: SharedArrayBuffer;
  /**
   * Int32 cell shared with the main thread: the id of a job whose client is not reading (its
   * socket buffer is full). The worker waits between audio blocks while it holds that id, so a
   * slow reader pauses synthesis instead of growing the process's memory.
   */
  pause: SharedArrayBuffer;
  /** Most audio one job may produce, seconds: the utterance is cut there (a job failure). */
  maxAudioS: number;
}

export type ToWorker =
  | { type: 'warmup'; texts: string[]; runs: number }
  | { type: 'synth'; id: number; text: string; voice: string };

export type FromWorker =
  | { type: 'loaded'; sampleRate: number; voices: string[]; ms: number }
  | { type: 'warmed'; ms: number[] }
  | { type: 'init_failed'; message: string }
  | { type: 'chunk'; id: number; pcm: ArrayBuffer }
  | { type: 'done'; id: number; cancelled: boolean; bytes: number }
  | { type: 'failed'; id: number; message: string; fatal: boolean };
