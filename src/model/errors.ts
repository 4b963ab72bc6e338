/**
 * A mistake the user can fix: bad flag, bad file, refused input. The CLI and the action print
 * the message (never a stack trace) and exit with code 2.
 *
 * A message is written once for both surfaces: an option it names is an `OptionRef`, rendered
 * `--slo-ms` on the command line and `input slo-ms` in the action (`messageFor`). `message`
 * itself is the command-line rendering.
 */

/** An option named in a message, with the value given for it (if the message quotes one). */
export interface OptionRef {
  readonly option: string;
  readonly value?: string | number;
  /** The subject of the sentence: `--slo-ms needs ...` / `input slo-ms: needs ...`. */
  readonly subject?: boolean;
}

/** Where a message is shown: the `scalegate` command line or the GitHub Action. */
export type Surface = 'cli' | 'action';

export const opt = (option: string, value?: string | number): OptionRef =>
  value === undefined ? { option } : { option, value };

/** An option as the subject of a refusal: `--peak-rps needs ...` / `input peak-rps: needs ...`. */
export const subject = (option: string): OptionRef => ({ option, subject: true });

const isOptionRef = (v: unknown): v is OptionRef =>
  typeof v === 'object' && v !== null && typeof (v as OptionRef).option === 'string';

export function renderOption(ref: OptionRef, surface: Surface): string {
  if (surface === 'cli') return ref.value === undefined ? `--${ref.option}` : `--${ref.option} ${ref.value}`;
  if (ref.subject) return `input ${ref.option}:`;
  return ref.value === undefined ? `input ${ref.option}` : `input ${ref.option} (${ref.value})`;
}

export type MessagePart = string | OptionRef;

const render = (parts: readonly MessagePart[], surface: Surface): string =>
  parts.map((p) => (typeof p === 'string' ? p : renderOption(p, surface))).join('');

export class UsageError extends Error {
  readonly exitCode = 2;
  readonly parts: readonly MessagePart[];
  constructor(message: string | readonly MessagePart[]) {
    const parts = typeof message === 'string' ? [message] : message;
    super(render(parts, 'cli'));
    this.parts = parts;
    this.name = 'UsageError';
  }
  /** The message with every option it names spelled the way `surface` takes it. */
  messageFor(surface: Surface): string {
    return render(this.parts, surface);
  }
}

/** `usage\`${opt('rungs')} lists the rungs of a fixed ladder\``: a UsageError naming options. */
export function usage(strings: TemplateStringsArray, ...values: unknown[]): UsageError {
  const parts: MessagePart[] = [];
  strings.forEach((s, i) => {
    if (s !== '') parts.push(s);
    if (i < values.length) {
      const v = values[i];
      parts.push(isOptionRef(v) ? v : String(v));
    }
  });
  return new UsageError(parts);
}

export const isUsageError = (e: unknown): e is UsageError =>
  e instanceof Error && (e as { name?: string }).name === 'UsageError';

/**
 * A failure of the world, not of the input: an AWS call refused or unanswered (throttling,
 * credentials, a missing endpoint, a closed port, a timeout). The CLI and the action print the
 * message, which names the operation, the resource and the region (never a stack trace), and exit
 * with code 3. `name` stays the underlying error's (`ValidationException`,
 * `ResourceNotFoundException`, ...) so callers that tell one AWS error from another still can.
 */
export class OperationalError extends Error {
  readonly exitCode = 3;
  readonly operational = true;
  readonly operation: string;
  readonly resource: string | null;
  readonly region: string | null;
  constructor(what: { operation: string; resource: string | null; region: string | null }, cause: unknown) {
    const inner = cause instanceof Error ? cause : new Error(String(cause));
    const where = `${what.resource ? ` ${what.resource}` : ''}${what.region ? ` in ${what.region}` : ''}`;
    super(`${what.operation}${where}: ${describeCause(inner)}`, { cause });
    this.name = inner.name && inner.name !== 'Error' ? inner.name : 'OperationalError';
    this.operation = what.operation;
    this.resource = what.resource;
    this.region = what.region;
  }
}

/** The cause in one line: its message, or its network code (its AWS error name is the `name`). */
function describeCause(e: Error): string {
  const code = (e as { code?: string }).code;
  return e.message || code || 'no answer';
}

export const isOperationalError = (e: unknown): e is OperationalError =>
  e instanceof Error && (e as { operational?: unknown }).operational === true;
