/**
 * What any string or number read from a file, a flag or the environment must satisfy before it
 * reaches a terminal, a runner log, a path or the arithmetic. Artifacts and the config are
 * files anyone can edit in a pull request: nothing in them may carry a workflow command on its
 * own line, reorder text with bidi controls, name a path outside the state directory, or be so
 * large that the arithmetic never ends.
 */
import { z } from 'zod';
import { UsageError } from './errors.js';

/**
 * C0 controls (newline and tab included), DEL, C1 controls (all of Unicode's Cc), the Unicode
 * line and paragraph separators, every format character (Cf: the bidi embeddings, overrides,
 * isolates and marks that make text read differently from what it is, zero-width spaces and
 * joiners, the byte-order mark U+FEFF, the tag characters U+E0000-U+E007F that carry hidden text),
 * lone surrogates, and the Hangul fillers that render as nothing.
 */
export const UNSAFE_CHARACTERS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\u115f\u1160\u3164\uffa0]/u;

const codeOf = (character: string): string =>
  `U+${(character.codePointAt(0) as number).toString(16).toUpperCase().padStart(4, '0')}`;

const describeUnsafe = (value: string): string => {
  const found = UNSAFE_CHARACTERS.exec(value);
  return found ? codeOf(found[0]) : 'U+0000';
};

const UNSAFE_ALL = new RegExp(UNSAFE_CHARACTERS.source, 'gu');

/**
 * `value` as it may be printed in a message: every unsafe character spelled `<U+202E>`, and at
 * most `max` characters (a refusal names a value, it never reproduces a file).
 */
export function printable(value: string, max = 200): string {
  const escaped = value.replace(UNSAFE_ALL, (c) => `<${codeOf(c)}>`);
  const chars = [...escaped];
  return chars.length > max ? `${chars.slice(0, max).join('')}…` : escaped;
}

/** A string with no control, line-separator or bidi character: one line, read as written. */
export const safeString = z.string().superRefine((value, ctx) => {
  if (UNSAFE_CHARACTERS.test(value)) {
    ctx.addIssue({
      code: 'custom',
      message: `contains a control or bidi character (${describeUnsafe(value)}); only printable text is accepted`,
    });
  }
});

/**
 * SageMaker's own pattern for endpoint, endpoint-config, model and production-variant names
 * (CreateEndpoint / ProductionVariant.VariantName): letters, digits and hyphens, 1-63, starting
 * and ending with a letter or digit. No `.` and no `/`, so such a name never becomes a path
 * outside the directory it is joined to.
 */
export const AWS_NAME_PATTERN = /^[a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}$/;

export const endpointNameSchema = z
  .string()
  .regex(AWS_NAME_PATTERN, 'a SageMaker endpoint name (letters, digits and hyphens, 1-63 characters)');
export const variantNameSchema = z
  .string()
  .regex(
    AWS_NAME_PATTERN,
    'a SageMaker production variant name (letters, digits and hyphens, 1-63 characters)',
  );

/** An AWS region name as the SDK takes it (`us-east-1`), or `local` for the local SageMaker. */
export const regionSchema = z
  .string()
  .regex(/^[a-z]{2,}(-[a-z0-9]+)*$/, 'an AWS region such as us-east-1 (or local)');

/**
 * An endpoint or variant name from a flag, an input or a file, checked before it is used for
 * anything (a request, a path). `source` names where it came from (`--endpoint`, a file).
 */
export function checkAwsName(value: string, kind: 'endpoint' | 'variant', source: string): string {
  if (!AWS_NAME_PATTERN.test(value)) {
    throw new UsageError(
      `${source} ${printable(JSON.stringify(value), 100)}: not a SageMaker ${kind} name (letters, digits and hyphens, 1-63 characters, starting and ending with a letter or digit). Give the ${kind} name exactly as SageMaker shows it.`,
    );
  }
  return value;
}

/** How far ahead of this machine's clock a recorded time may be (another machine's skew). */
export const MAX_CLOCK_SKEW_MS = 5 * 60 * 1000;

/**
 * An ISO-8601 time with an offset that is not in the future (beyond the skew allowance). A time
 * in the future would win every "newest measurement" choice forever.
 */
export const pastTime = z
  .string()
  .datetime({ offset: true })
  .superRefine((value, ctx) => {
    const at = Date.parse(value);
    if (Number.isFinite(at) && at > Date.now() + MAX_CLOCK_SKEW_MS) {
      ctx.addIssue({
        code: 'custom',
        message: `${value} is in the future (this machine's clock reads ${new Date().toISOString()}; ${MAX_CLOCK_SKEW_MS / 60000} min of skew allowed)`,
      });
    }
  });

/**
 * Bounds of the numbers the arithmetic uses. Far beyond anything a SageMaker instance does (one
 * instance serving a million requests per second, a scale-out taking a day) and small enough
 * that no sum or product overflows to Infinity and no simulation loops forever.
 */
export const LIMITS = {
  /** Requests per second, per instance or for the fleet (peak/trough load). */
  rps: 1e6,
  /** Concurrent requests on one instance: rungs, Q_max (what the surge simulation walks). */
  concurrency: 10_000,
  /** A deployed admission bound (MAX_QUEUE_DEPTH), checked against the plan's own Q_max by the gate. */
  queue: 1_000_000,
  /** Milliseconds of latency or SLO (one hour). */
  ms: 3_600_000,
  /** Seconds of service time, T_total, lags, windows (one day). */
  seconds: 86_400,
  /** Instance counts. */
  instances: 100_000,
  /** A CloudWatch/client ratio. */
  ratio: 1_000,
  /** Counts of requests in a rung or a run. */
  count: 1e12,
  /** Dollars per instance-hour. */
  usd: 1e6,
} as const;

/** A finite number in [min, max] whose message names the bound. */
export const boundedNumber = (min: number, max: number, what: string) =>
  z
    .number()
    .min(min, `${what} must be at least ${min}`)
    .max(max, `${what} above ${max} is not plausible; check the file or flag`);
