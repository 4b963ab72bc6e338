/**
 * What the load engine says: a built-in set of varied English sentences (20-200 characters), or
 * a file (JSONL `{"text": ...}` or plain lines). Chosen round-robin by request sequence number,
 * so a run is reproducible.
 */
import { readFileSync } from 'node:fs';
import { opt, usage } from '../model/errors.js';

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
}

export const defaultPromptSet = (): PromptSet => ({ source: 'built-in', texts: DEFAULT_PROMPTS });

/** Parses a prompts file: each non-empty line is JSON `{"text": "..."}` or plain text. */
export function parsePrompts(text: string, file: string): PromptSet {
  const texts: string[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    if (line.startsWith('{')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(line);
      } catch (e) {
        throw usage`${opt('prompts', file)}: line ${i + 1} starts with "{" but is not JSON (${(e as Error).message}). Use {"text": "..."} or plain text lines.`;
      }
      const value = (parsed as { text?: unknown }).text;
      if (typeof value !== 'string' || value.trim() === '') {
        throw usage`${opt('prompts', file)}: line ${i + 1} needs a non-empty string "text" field.`;
      }
      texts.push(value);
    } else {
      texts.push(line);
    }
  }
  if (texts.length === 0) {
    throw usage`${opt('prompts', file)}: no prompts (one per line: {"text": "..."} or plain text).`;
  }
  return { source: file, texts };
}

export function loadPrompts(file: string): PromptSet {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw usage`${opt('prompts', file)}: cannot read (${code === 'ENOENT' ? 'no such file' : (e as Error).message}).`;
  }
  return parsePrompts(text, file);
}

/** Request bodies, encoded once: `{"text": ...}` as the container contract wants. */
export function encodePrompts(set: PromptSet): Uint8Array[] {
  return set.texts.map((text) => Buffer.from(JSON.stringify({ text }), 'utf8'));
}
