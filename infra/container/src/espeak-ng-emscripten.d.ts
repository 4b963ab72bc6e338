// Types for the parts of @echogarden/espeak-ng-emscripten 0.3.5 (GPL-3.0, ships no types) that the
// worker uses. Only code under infra/container may import that package: see ../README.md.
declare module '@echogarden/espeak-ng-emscripten' {
  export interface ESpeakVoiceInfo {
    name: string;
    identifier: string;
    languages: { priority: number; name: string }[];
  }

  /**
   * Called synchronously, on the calling thread, with each block of 16-bit mono PCM as it is
   * produced. A truthy return value aborts the utterance (eSpeak-NG stops at this block).
   */
  export type ESpeakSynthCallback = (samples: Int16Array, events: unknown[]) => number | boolean;

  export interface ESpeakNGWorker {
    readonly samplerate: number;
    /** 0 on success, non-zero eSpeak error code otherwise. */
    set_voice(voice: string): number;
    list_voices(): ESpeakVoiceInfo[];
    synthesize(text: string, callback: ESpeakSynthCallback): void;
  }

  export interface ESpeakModule {
    eSpeakNGWorker: new () => ESpeakNGWorker;
  }

  const factory: () => Promise<ESpeakModule>;
  export default factory;
}
