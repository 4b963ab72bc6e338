/**
 * What the load engine says: a built-in set of varied English sentences (20-200 characters), or
 * a file (JSONL `{"text": ...}` or plain lines). Chosen round-robin by request sequence number,
 * so a run is reproducible. Each prompt becomes a body of the run's request shape
 * (src/model/request-shape.ts): the body template with the text inserted, or, in the `jsonl`
 * mode, the prompt line itself with every field it has.
 */
import { opt, usage } from '../model/errors.js';
import { FileReadError, READ_LIMITS, readBoundedFile } from '../model/read.js';
import { DEFAULT_REQUEST_SHAPE, JSONL_BODY, type RequestShape, renderBody } from '../model/request-shape.js';

export const DEFAULT_PROMPTS: readonly string[] = [
  'Your order has shipped.',
  'The meeting starts in five minutes.',
  'Please hold while I transfer your call to the billing department.',
  'It is sunny today with a high of twenty-four degrees.',
  'Turn left at the next intersection, then continue straight for two hundred meters.',
  'Thanks for calling. How can I help you today?',
  'Your verification code is four, seven, one, nine.',
  'I found three restaurants near you that are open now, and two of them take reservations online.',
  'The quarterly report is ready for review.',
  'Sorry, I did not catch that. Could you say it again?',
  'Remember to take your umbrella; rain is expected this afternoon, mostly after three o’clock.',
  'Good morning!',
  'The train to the airport leaves from platform nine every fifteen minutes until midnight.',
  'Your balance is one hundred twenty dollars and forty cents.',
  'Battery low. Please connect the charger.',
  'Once upon a time, in a small village by the sea, there lived an old fisherman who told stories to anyone who would listen.',
  'The package will arrive between two and four p.m. tomorrow.',
  'Do you want me to read the next message?',
  'Welcome back. You have two new voicemails and one missed call from an unknown number.',
  'Step three: whisk the eggs and sugar until the mixture is pale, thick, and doubled in volume, about five minutes.',
  'All systems are operating normally.',
  'Set a timer for ten minutes.',
  'According to the forecast, the weekend will be dry and mild, with light winds from the south-west and clear skies at night.',
  'Your flight is delayed by forty minutes.',
];

export interface PromptSet {
  /** Where the prompts came from: `built-in` or the file name. */
  source: string;
  texts: readonly string[];
  /** Each JSONL line as parsed, in order (null for a plain line): what the `jsonl` body mode sends. */
  records?: readonly (Record<string, unknown> | null)[];
}

export const defaultPromptSet = (): PromptSet => ({ source: 'built-in', texts: DEFAULT_PROMPTS });

/**
 * Parses a prompts file: each non-empty line is JSON `{"text": "..."}` or plain text. With
 * `jsonl` (the body mode that sends each line as it is) every line must be a JSON object, with or
 * without "text".
 */
export function parsePrompts(text: string, file: string, options: { jsonl?: boolean } = {}): PromptSet {
  const texts: string[] = [];
  const records: (Record<string, unknown> | null)[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    if (options.jsonl && !line.startsWith('{')) {
      throw usage`${opt('prompts', file)}: line ${i + 1} is not a JSON object; ${opt('body-template', JSONL_BODY)} sends each line as the request body, so every line must be one (e.g. {"input": "Hello.", "voice": "af_heart"}).`;
    }
    if (line.startsWith('{')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (e) {
        throw usage`${opt('prompts', file)}: line ${i + 1} starts with "{" but is not JSON (${(e as Error).message}). Use {"text": "..."} or plain text lines.`;
      }
      if (options.jsonl) {
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          throw usage`${opt('prompts', file)}: line ${i + 1} is not a JSON object; ${opt('body-template', JSONL_BODY)} sends each line as the request body.`;
        }
        const record = parsed as Record<string, unknown>;
        texts.push(typeof record.text === 'string' ? record.text : line);
        records.push(record);
        continue;
      }
      const value = (parsed as { text?: unknown }).text;
      if (typeof value !== 'string' || value.trim() === '') {
        throw usage`${opt('prompts', file)}: line ${i + 1} needs a non-empty string "text" field.`;
      }
      texts.push(value);
      records.push(parsed as Record<string, unknown>);
    } else {
      texts.push(line);
      records.push(null);
    }
  }
  if (texts.length === 0) {
    throw usage`${opt('prompts', file)}: no prompts (one per line: {"text": "..."} or plain text).`;
  }
  return { source: file, texts, records };
}

export function loadPrompts(file: string, options: { jsonl?: boolean } = {}): PromptSet {
  let text: string;
  try {
    text = readBoundedFile(file, {
      maxBytes: READ_LIMITS.loadInput,
      label: 'the prompts file',
      source: opt('prompts'),
    });
  } catch (e) {
    if (e instanceof FileReadError && e.missing)
      throw usage`${opt('prompts', file)}: cannot read (no such file).`;
    throw e;
  }
  return parsePrompts(text, file, options);
}

/**
 * The prompts of a run of `shape`: the file when one is given, else the built-in set. The `jsonl`
 * body mode sends the file's own lines, so it needs one (refused otherwise, exit 2).
 */
export function promptsFor(promptsFile: string | undefined, shape: RequestShape): PromptSet {
  const jsonl = shape.body === JSONL_BODY;
  if (promptsFile) return loadPrompts(promptsFile, { jsonl });
  if (jsonl) {
    throw usage`${opt('body-template', JSONL_BODY)} sends each line of a JSONL prompts file as the request body: give the file with ${opt('prompts')} (one JSON object per line, e.g. {"input": "Hello.", "voice": "af_heart"}).`;
  }
  return defaultPromptSet();
}

/**
 * Request bodies, encoded once: each prompt inserted JSON-escaped into the shape's template
 * (default `{"text": ...}`, the reference container's contract), or in the `jsonl` mode the line
 * itself (every field as given, re-serialised compactly).
 */
export function encodePrompts(set: PromptSet, shape: RequestShape = DEFAULT_REQUEST_SHAPE): Uint8Array[] {
  if (shape.body === JSONL_BODY) {
    return set.texts.map((_text, i) => {
      const record = set.records?.[i];
      if (!record) {
        throw usage`${opt('body-template', JSONL_BODY)}: prompt ${i + 1} of ${set.source} is not a JSON object line; give a JSONL ${opt('prompts')} file.`;
      }
      return Buffer.from(JSON.stringify(record), 'utf8');
    });
  }
  return set.texts.map((text) => Buffer.from(renderBody(shape.body, text), 'utf8'));
}
