/**
 * Reading the JSON bodies the SDK sends, with the error each service answers for bad input.
 * Application Auto Scaling says `ValidationException`; CloudWatch uses its query-era codes
 * (`InvalidParameterValue`, `MissingParameter`, ...), which the SDK maps onto its exception
 * classes through their `awsQueryError` trait.
 */
import { AwsError } from '../aws-error.js';

export type Input = Record<string, unknown>;
export type ErrorFactory = (message: string) => AwsError;

export const aasInvalid: ErrorFactory = (m) => new AwsError('ValidationException', m, 400);
export const cwInvalid: ErrorFactory = (m) => new AwsError('InvalidParameterValue', m, 400);
export const cwMissing: ErrorFactory = (m) => new AwsError('MissingParameter', m, 400);

export class Reader {
  constructor(
    private readonly input: Input,
    private readonly invalid: ErrorFactory,
    private readonly missing: ErrorFactory = invalid,
  ) {}

  has(key: string): boolean {
    return this.input[key] !== undefined && this.input[key] !== null;
  }

  str(key: string): string;
  str(key: string, optional: true): string | undefined;
  str(key: string, optional?: boolean): string | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (optional) return undefined;
      throw this.missing(`The parameter ${key} is required.`);
    }
    if (typeof v !== 'string') throw this.invalid(`The parameter ${key} must be a string.`);
    return v;
  }

  num(key: string): number;
  num(key: string, optional: true): number | undefined;
  num(key: string, optional?: boolean): number | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (optional) return undefined;
      throw this.missing(`The parameter ${key} is required.`);
    }
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw this.invalid(`The parameter ${key} must be a number.`);
    return v;
  }

  int(key: string): number;
  int(key: string, optional: true): number | undefined;
  int(key: string, optional?: boolean): number | undefined {
    const v = optional ? this.num(key, true) : this.num(key);
    if (v !== undefined && !Number.isInteger(v))
      throw this.invalid(`The parameter ${key} must be an integer.`);
    return v;
  }

  bool(key: string): boolean | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw this.invalid(`The parameter ${key} must be a boolean.`);
    return v;
  }

  strList(key: string): string[] | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) {
      throw this.invalid(`The parameter ${key} must be a list of strings.`);
    }
    return v as string[];
  }

  obj(key: string): Input | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v))
      throw this.invalid(`The parameter ${key} must be a structure.`);
    return v as Input;
  }

  objList(key: string): Input[] | undefined {
    const v = this.input[key];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v) || v.some((o) => typeof o !== 'object' || o === null || Array.isArray(o))) {
      throw this.invalid(`The parameter ${key} must be a list of structures.`);
    }
    return v as Input[];
  }

  oneOf<T extends string>(key: string, allowed: readonly T[]): T;
  oneOf<T extends string>(key: string, allowed: readonly T[], optional: true): T | undefined;
  oneOf<T extends string>(key: string, allowed: readonly T[], optional?: boolean): T | undefined {
    const v = optional ? this.str(key, true) : this.str(key);
    if (v === undefined) return undefined;
    if (!(allowed as readonly string[]).includes(v)) {
      throw this.invalid(
        `Value '${v}' at '${key}' failed to satisfy constraint: must be one of [${allowed.join(', ')}].`,
      );
    }
    return v as T;
  }
}

/** Opaque pagination tokens: the offset into a stable ordering, bound to the query that produced it. */
export function encodeToken(offset: number, scope: string): string {
  return Buffer.from(JSON.stringify({ o: offset, s: scope })).toString('base64');
}

export function decodeToken(token: string | undefined, scope: string, invalid: ErrorFactory): number {
  if (token === undefined) return 0;
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64').toString('utf8')) as { o?: unknown; s?: unknown };
    if (typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0 && parsed.s === scope) {
      return parsed.o;
    }
  } catch {
    // fall through: any undecodable token is invalid
  }
  throw invalid('Invalid NextToken.');
}

/** One page of `items` and the token for the rest (absent on the last page, as AWS does). */
export function page<T>(
  items: readonly T[],
  offset: number,
  size: number,
  scope: string,
): { items: T[]; nextToken: string | undefined } {
  const slice = items.slice(offset, offset + size);
  const next = offset + size < items.length ? encodeToken(offset + size, scope) : undefined;
  return { items: slice, nextToken: next };
}

/** Epoch seconds with milliseconds, as the JSON protocols carry timestamps. */
export const epochSeconds = (ms: number): number => ms / 1000;
