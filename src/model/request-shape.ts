/**
 * The request shape a load sends: the body (a JSON template with the placeholder `{{text}}`, the
 * prompt inserted JSON-escaped; or `jsonl`, each line of the prompts file sent as it is), its
 * Content-Type and its Accept. A container reads one shape; a measurement made with another says
 * nothing about it, so the shape is part of the measurement's fingerprint.
 *
 * Given per model in the config (`request: { body_template, content_type, accept }`) and per run
 * with `--body-template`, `--content-type`, `--accept` (the flags win). Checked when read: a
 * template that is not JSON once a text is inserted, or that never inserts it, is refused there.
 */
import { z } from 'zod';
import { type MessagePart, opt, UsageError } from './errors.js';
import { safeString } from './safe.js';

export const TEXT_PLACEHOLDER = '{{text}}';
/** The mode that sends every field of each JSONL prompt line as it is (no template). */
export const JSONL_BODY = 'jsonl';
/** Today's contract of the reference container: `{"text": ...}`. */
export const DEFAULT_BODY_TEMPLATE = '{"text":"{{text}}"}';
export const DEFAULT_CONTENT_TYPE = 'application/json';
export const DEFAULT_ACCEPT = 'audio/wav';

/** `type/subtype`, optionally with `; name=value` parameters (RFC 9110 tokens). */
const MEDIA_TYPE =
  /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+*-]+(\s*;\s*[A-Za-z0-9!#$&^_.+-]+=("[^"]*"|[^\s;"]+))*$/;
const MAX_TEMPLATE_CHARS = 4096;

/** The shape as a measurement records it (in its fingerprint). */
export const requestShapeSchema = z
  .object({
    /** The body template in canonical JSON (`{{text}}` where the prompt goes), or `jsonl`. */
    body: safeString.min(1).max(MAX_TEMPLATE_CHARS),
    content_type: safeString.regex(MEDIA_TYPE, 'a media type such as application/json'),
    accept: safeString.regex(MEDIA_TYPE, 'a media type such as audio/wav'),
  })
  .strict();
export type RequestShape = z.infer<typeof requestShapeSchema>;

export const DEFAULT_REQUEST_SHAPE: RequestShape = Object.freeze({
  body: DEFAULT_BODY_TEMPLATE,
  content_type: DEFAULT_CONTENT_TYPE,
  accept: DEFAULT_ACCEPT,
});

/** A prompt that exercises the escaping: quotes, a backslash, a newline, non-ASCII. */
const PROBE_TEXT = 'He said "hi" \\ then\nleft – ünïcode';
/** Stands for the placeholder while the template is parsed (cannot occur in JSON text by chance). */
const SENTINEL = '__scalegate_text_placeholder_3f9c__';

/** The prompt as it goes inside a JSON string: JSON-escaped, without the quotes. */
export const jsonEscaped = (text: string): string => JSON.stringify(text).slice(1, -1);

/** Whether some string in `value` (key or value) contains `needle`. */
function containsString(value: unknown, needle: string): boolean {
  if (typeof value === 'string') return value.includes(needle);
  if (Array.isArray(value)) return value.some((v) => containsString(v, needle));
  if (value !== null && typeof value === 'object') {
    return Object.entries(value).some(([k, v]) => k.includes(needle) || containsString(v, needle));
  }
  return false;
}

/**
 * The template's canonical form, or what is wrong with it (a sentence without the option's name).
 * `jsonl` is the JSONL mode; anything else must be JSON with `{{text}}` inside a string.
 */
export function checkBodyTemplate(raw: string): { ok: true; body: string } | { ok: false; problem: string } {
  const template = raw.trim();
  if (template === JSONL_BODY) return { ok: true, body: JSONL_BODY };
  if (template.length > MAX_TEMPLATE_CHARS) {
    return { ok: false, problem: `is longer than ${MAX_TEMPLATE_CHARS} characters` };
  }
  if (!template.includes(TEXT_PLACEHOLDER)) {
    return {
      ok: false,
      problem: `has no ${TEXT_PLACEHOLDER} placeholder, so every request would carry the same body. Put ${TEXT_PLACEHOLDER} where the text goes, inside a JSON string (e.g. {"input":"${TEXT_PLACEHOLDER}","voice":"af_heart"}), or use ${JSONL_BODY} to send each line of a JSONL prompts file as it is`,
    };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(template.split(TEXT_PLACEHOLDER).join(jsonEscaped(PROBE_TEXT)));
  } catch (e) {
    return {
      ok: false,
      problem: `is not valid JSON once a text is inserted (${(e as Error).message}). The text goes in JSON-escaped, without quotes: write "${TEXT_PLACEHOLDER}" inside a JSON string, e.g. {"input":"${TEXT_PLACEHOLDER}"}`,
    };
  }
  if (!containsString(parsed, PROBE_TEXT)) {
    return { ok: false, problem: `does not carry the text: put ${TEXT_PLACEHOLDER} inside a JSON string` };
  }
  const canonical = JSON.stringify(JSON.parse(template.split(TEXT_PLACEHOLDER).join(SENTINEL)));
  return { ok: true, body: canonical.split(SENTINEL).join(TEXT_PLACEHOLDER) };
}

/** Whether `raw` is a media type a header can carry. */
export const isMediaType = (raw: string): boolean => MEDIA_TYPE.test(raw.trim());

/** The config's form: `request` of a model. */
export const requestConfigSchema = z
  .object({
    /** JSON with `{{text}}` (inserted JSON-escaped), or `jsonl`. @default {"text":"{{text}}"} */
    body_template: z
      .string()
      .superRefine((value, ctx) => {
        const checked = checkBodyTemplate(value);
        if (!checked.ok) ctx.addIssue({ code: 'custom', message: `the body template ${checked.problem}` });
      })
      .optional(),
    /** @default application/json */
    content_type: safeString.regex(MEDIA_TYPE, 'a media type such as application/json').optional(),
    /** @default audio/wav */
    accept: safeString.regex(MEDIA_TYPE, 'a media type such as audio/wav').optional(),
  })
  .strict();
export type RequestConfig = z.infer<typeof requestConfigSchema>;

/** What a command is told about the shape (its flags). */
export interface RequestShapeInput {
  /** JSON template with `{{text}}`, or `jsonl`. @default the config's request.body_template, else {"text":"{{text}}"} */
  bodyTemplate?: string;
  /** @default the config's request.content_type, else application/json */
  contentType?: string;
  /** @default the config's request.accept, else audio/wav */
  accept?: string;
}

const refuse = (parts: MessagePart[]): UsageError => new UsageError(parts);

/**
 * The shape a run sends: each flag, else the model's `request` in the config, else today's
 * `{"text": ...}` as application/json accepting audio/wav. A bad value is refused (exit 2) naming
 * the flag or the config key it came from, with the fix.
 */
export function resolveRequestShape(
  input: RequestShapeInput,
  config: RequestConfig | undefined,
  where: { configFile: string; modelName: string },
): RequestShape {
  const key = (field: string) => `models.${where.modelName}.request.${field} in ${where.configFile}`;
  let body = DEFAULT_BODY_TEMPLATE;
  if (input.bodyTemplate !== undefined) {
    const checked = checkBodyTemplate(input.bodyTemplate);
    if (!checked.ok) refuseTemplate([opt('body-template', `'${input.bodyTemplate}'`)], checked.problem);
    else body = checked.body;
  } else if (config?.body_template !== undefined) {
    const checked = checkBodyTemplate(config.body_template);
    if (!checked.ok) refuseTemplate([key('body_template')], checked.problem);
    else body = checked.body;
  }
  const media = (
    flag: string,
    given: string | undefined,
    configured: string | undefined,
    fallback: string,
  ) => {
    if (given !== undefined) {
      if (!isMediaType(given)) {
        throw refuse([
          opt(flag, given),
          `: not a media type. Give the type your container reads, e.g. application/json or audio/wav.`,
        ]);
      }
      return given.trim();
    }
    return configured ?? fallback;
  };
  return {
    body,
    content_type: media('content-type', input.contentType, config?.content_type, DEFAULT_CONTENT_TYPE),
    accept: media('accept', input.accept, config?.accept, DEFAULT_ACCEPT),
  };
}

function refuseTemplate(source: MessagePart[], problem: string): never {
  throw refuse([...source, `: the body template ${problem}.`]);
}

/** The shape a model's config sends (already checked when the config was read). */
export function configuredRequestShape(config: RequestConfig | undefined): RequestShape {
  const checked = config?.body_template === undefined ? null : checkBodyTemplate(config.body_template);
  return {
    body: checked?.ok ? checked.body : DEFAULT_BODY_TEMPLATE,
    content_type: config?.content_type ?? DEFAULT_CONTENT_TYPE,
    accept: config?.accept ?? DEFAULT_ACCEPT,
  };
}

/** The body of one request: the template with the prompt inserted JSON-escaped. */
export function renderBody(template: string, text: string): string {
  return template.split(TEXT_PLACEHOLDER).join(jsonEscaped(text));
}

/** A fingerprint's shape, an absent one read as today's default (artifacts written before it was recorded). */
export const shapeOf = (shape: RequestShape | undefined): RequestShape => shape ?? DEFAULT_REQUEST_SHAPE;

export function sameRequestShape(a: RequestShape | undefined, b: RequestShape | undefined): boolean {
  const x = shapeOf(a);
  const y = shapeOf(b);
  return x.body === y.body && x.content_type === y.content_type && x.accept === y.accept;
}

/** One line: `{"input":"{{text}}"} as application/json, accepting audio/wav`. */
export function requestShapeLabel(shape: RequestShape | undefined): string {
  const s = shapeOf(shape);
  const body = s.body === JSONL_BODY ? 'each JSONL prompt line as is' : s.body;
  return `${body} as ${s.content_type}, accepting ${s.accept}`;
}
