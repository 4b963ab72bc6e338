// A synthesis worker thread: one eSpeak-NG engine (Emscripten build). `synthesize` blocks this thread
// for the whole utterance, which is why it runs here and not on the HTTP thread; the first audio
// block is posted to the main thread as soon as eSpeak-NG produces it, later ones gathered up to
// STREAM_CHUNK_BYTES (buffers transferred, not copied), so the response streams while the
// utterance is still being synthesised.
import { parentPort, workerData } from 'node:worker_threads';
import factory, { type ESpeakNGWorker } from '@echogarden/espeak-ng-emscripten';
import type { FromWorker, ToWorker, WorkerInit } from './protocol.js';
import { plainTextForEngine } from './request.js';

const port = parentPort;
if (!port) throw new Error('worker.js runs as a worker thread of server.js');
const init = workerData as WorkerInit;
const cancelCell = new Int32Array(init.cancel);
const pauseCell = new Int32Array(init.pause);

function post(message: FromWorker, transfer: ArrayBuffer[] = []): void {
  port?.postMessage(message, transfer);
}

function voiceNames(engine: ESpeakNGWorker): string[] {
  const names = new Set<string>();
  for (const voice of engine.list_voices()) {
    names.add(voice.identifier);
    names.add(voice.name);
    for (const language of voice.languages) names.add(language.name);
  }
  return [...names].sort();
}

let engine: ESpeakNGWorker;
let currentVoice = init.voice;

try {
  const started = performance.now();
  const module = await factory();
  engine = new module.eSpeakNGWorker();
  const voices = voiceNames(engine);
  // set_voice accepts some names it does not have (falling back silently): check the list first.
  if (!voices.includes(init.voice)) throw new Error(`eSpeak-NG has no voice "${init.voice}"`);
  const code = engine.set_voice(init.voice);
  if (code !== 0) throw new Error(`eSpeak-NG cannot load voice "${init.voice}" (error ${code})`);
  post({ type: 'loaded', sampleRate: engine.samplerate, voices, ms: performance.now() - started });
} catch (error) {
  post({ type: 'init_failed', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}

/** A failure the engine survives (the next job may run on it). */
class JobError extends Error {}

const isCancelled = (id: number): boolean => id !== 0 && Atomics.load(cancelCell, 0) === id;

/** Blocks this thread while the main thread holds the job paused (its client is not reading). */
function waitWhilePaused(id: number): void {
  while (id !== 0 && Atomics.load(pauseCell, 0) === id && !isCancelled(id)) {
    Atomics.wait(pauseCell, 0, id, 250);
  }
}

function run(id: number, text: string, voice: string, onBlock: (pcm: Int16Array) => void): boolean {
  if (voice !== currentVoice) {
    const code = engine.set_voice(voice);
    if (code !== 0) throw new JobError(`eSpeak-NG cannot load voice "${voice}" (error ${code})`);
    currentVoice = voice;
  }
  const maxSamples = init.maxAudioS * engine.samplerate;
  let samplesSoFar = 0;
  let cancelled = false;
  let capped = false;
  engine.synthesize(plainTextForEngine(text), (samples) => {
    // Never throw in here: the callback runs inside the engine's (Emscripten-compiled) call.
    waitWhilePaused(id);
    if (isCancelled(id)) {
      cancelled = true;
      return 1; // abort the utterance at this block
    }
    samplesSoFar += samples.length;
    if (id !== 0 && samplesSoFar > maxSamples) {
      capped = true;
      return 1;
    }
    if (samples.length > 0) onBlock(samples);
    return 0;
  });
  if (capped) {
    throw new JobError(`the audio exceeds MAX_AUDIO_S=${init.maxAudioS} s: cut at ${init.maxAudioS} s`);
  }
  return cancelled;
}

port.on('message', (message: ToWorker) => {
  if (message.type === 'warmup') {
    const ms: number[] = [];
    try {
      for (let i = 0; i < message.runs; i += 1) {
        const started = performance.now();
        run(0, message.texts[i % message.texts.length] as string, currentVoice, () => {});
        ms.push(performance.now() - started);
      }
    } catch (error) {
      post({ type: 'init_failed', message: `warm-up failed: ${(error as Error).message}` });
      process.exit(1);
    }
    post({ type: 'warmed', ms });
    return;
  }
  const { id } = message;
  let bytes = 0;
  let pending: Int16Array[] = [];
  let pendingBytes = 0;
  const flush = () => {
    if (pendingBytes === 0) return;
    const merged = new Int16Array(pendingBytes / 2);
    let offset = 0;
    for (const block of pending) {
      merged.set(block, offset);
      offset += block.length;
    }
    pending = [];
    pendingBytes = 0;
    post({ type: 'chunk', id, pcm: merged.buffer }, [merged.buffer]);
  };
  try {
    const cancelled = run(id, message.text, message.voice, (pcm) => {
      const first = bytes === 0;
      bytes += pcm.byteLength;
      // eSpeak's binding hands over a fresh copy of each block (HEAP16.slice): it is ours to keep.
      pending.push(pcm);
      pendingBytes += pcm.byteLength;
      // The first block goes at once (it is the time to first audio byte); later ones are gathered.
      if (first || pendingBytes >= init.streamChunkBytes) flush();
    });
    flush();
    post({ type: 'done', id, cancelled, bytes });
  } catch (error) {
    // Anything thrown out of the engine (an Emscripten abort, a trap) may leave it in any
    // state: report, then end this thread so the pool replaces it with a fresh engine.
    const fatal = !(error instanceof JobError);
    post({ type: 'failed', id, message: error instanceof Error ? error.message : String(error), fatal });
    if (fatal) process.exit(1);
  }
});
