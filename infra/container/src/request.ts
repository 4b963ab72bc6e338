// Validation of POST /invocations bodies. Runs before admission: a malformed request is answered
// 400 and never holds an admission slot.

export const MAX_TEXT_CHARS = 1000;
export const MAX_BODY_BYTES = 64 * 1024;

/**
 * The engine reads its input as SSML: `<break time="...">`, `<prosody>` and friends are honoured
 * (880 characters of breaks made 1.5 GB of audio). The contract is plain text, so the markup
 * characters are handed over as entities: eSpeak-NG then reads `<`, `>` and `&` as the characters
 * they are, and no tag can reach it.
 */
export function plainTextForEngine(text: string): string {
  return text.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

export type ParsedInvocation =
  | { ok: true; text: string; voice: string }
  | { ok: false; message: string; status?: 400 | 415 };

/**
 * Which body the container reads (REQUEST_CONTRACT):
 * - `text` (default): `{"text": string, "voice"?: string, "format"?: "wav"}`;
 * - `input-voice`: `{"input": string, "voice": string}`, the body of speech APIs such as
 *   OpenAI's /v1/audio/speech and Kokoro servers; `voice` is required (an eSpeak-NG voice, or a
 *   Kokoro-style name such as `af_heart`, spoken with the default voice); a `text` field is refused.
 */
export const REQUEST_CONTRACTS = ['text', 'input-voice'] as const;
export type RequestContract = (typeof REQUEST_CONTRACTS)[number];

/** Kokoro's voice names: language+gender letters, underscore, name (`af_heart`, `bm_george`). */
const KOKORO_VOICE = /^[a-z][fm]_[a-z0-9]+$/;

/**
 * The Content-Type check (REQUEST_CONTENT_TYPE): the media type, parameters aside, must be the
 * one configured (case-insensitive); unset accepts any. Refused with 415.
 */
export function checkContentType(header: string | undefined, required: string | undefined): string | null {
  if (required === undefined) return null;
  const got = (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (got === required.toLowerCase()) return null;
  return `Content-Type ${got === '' ? '(none)' : JSON.stringify(got.slice(0, 100))} is not supported: send ${required}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

/**
 * `{"text": string (1..1000 characters), "voice"?: string, "format"?: "wav"}`; other fields are
 * ignored. Characters are Unicode code points. `knownVoices` is undefined until the engine has
 * loaded (the request is then refused as not ready anyway).
 */
export function parseInvocation(
  body: Buffer,
  defaultVoice: string,
  knownVoices: ReadonlySet<string> | undefined,
  contract: RequestContract = 'text',
): ParsedInvocation {
  if (contract === 'input-voice') return parseInputVoice(body, defaultVoice, knownVoices);
  if (body.length === 0) return { ok: false, message: 'empty body: expected a JSON object with "text"' };
  if (body.length > MAX_BODY_BYTES) return { ok: false, message: `body exceeds ${MAX_BODY_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    return { ok: false, message: `body is not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: `body must be a JSON object, got ${describe(value)}` };
  }
  const { text, voice, format } = value as Record<string, unknown>;
  if (typeof text !== 'string')
    return { ok: false, message: `"text" must be a string, got ${describe(text)}` };
  const chars = Array.from(text).length;
  if (chars < 1 || chars > MAX_TEXT_CHARS) {
    return { ok: false, message: `"text" must have 1..${MAX_TEXT_CHARS} characters, got ${chars}` };
  }
  if (voice !== undefined && typeof voice !== 'string') {
    return { ok: false, message: `"voice" must be a string, got ${describe(voice)}` };
  }
  if (voice !== undefined && knownVoices && !knownVoices.has(voice)) {
    return { ok: false, message: `unknown voice "${voice.slice(0, 100)}"` };
  }
  if (format !== undefined && format !== 'wav') {
    return {
      ok: false,
      message: `unsupported "format" ${JSON.stringify(format)?.slice(0, 100)}: only "wav" is served`,
    };
  }
  return { ok: true, text, voice: voice ?? defaultVoice };
}

/** `{"input": string, "voice": string}` (REQUEST_CONTRACT=input-voice). */
function parseInputVoice(
  body: Buffer,
  defaultVoice: string,
  knownVoices: ReadonlySet<string> | undefined,
): ParsedInvocation {
  if (body.length === 0)
    return { ok: false, message: 'empty body: expected a JSON object with "input" and "voice"' };
  if (body.length > MAX_BODY_BYTES) return { ok: false, message: `body exceeds ${MAX_BODY_BYTES} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8'));
  } catch (error) {
    return { ok: false, message: `body is not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, message: `body must be a JSON object, got ${describe(value)}` };
  }
  const { input, voice, text } = value as Record<string, unknown>;
  if (input === undefined && text !== undefined) {
    return {
      ok: false,
      message: 'this container reads {"input": ..., "voice": ...}; "text" is not a field of its contract',
    };
  }
  if (typeof input !== 'string')
    return { ok: false, message: `"input" must be a string, got ${describe(input)}` };
  const chars = Array.from(input).length;
  if (chars < 1 || chars > MAX_TEXT_CHARS) {
    return { ok: false, message: `"input" must have 1..${MAX_TEXT_CHARS} characters, got ${chars}` };
  }
  if (typeof voice !== 'string' || voice === '') {
    return { ok: false, message: `"voice" must be a non-empty string, got ${describe(voice)}` };
  }
  if (KOKORO_VOICE.test(voice)) return { ok: true, text: input, voice: defaultVoice };
  if (knownVoices && !knownVoices.has(voice))
    return { ok: false, message: `unknown voice "${voice.slice(0, 100)}"` };
  return { ok: true, text: input, voice };
}
