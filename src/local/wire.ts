/**
 * Small helpers for the JSON protocols: reading request members (the one Reader every service
 * uses) and writing timestamps the way the SDK v3 clients send and expect them (epoch seconds,
 * as numbers, with millisecond precision).
 */
import { AwsError } from './aws-error.js';

export type Input = Record<string, unknown>;

/** Epoch milliseconds -> the JSON protocols' timestamp (epoch seconds, ms precision). */
export const epochSeconds = (ms: number): number => Math.round(ms) / 1000;

export type ErrorFactory = (message: string) => AwsError;

/**
 * Typed reads of one request body's members; every refusal is the service's own error. Members
 * are required unless `optional` is passed. Two wordings, as the services word them: Application
 * Auto Scaling and CloudWatch (`parameter`: "The parameter X is required.") and the JSON 1.1
 * services (`member`: "1 validation error detected: Value null at 'x' ...").
 */
export class Reader {
  constructor(
    private readonly input: Input,
    readonly invalid: ErrorFactory,
    private readonly missing: ErrorFactory = invalid,
    private readonly wording: 'parameter' | 'member' = 'parameter',
  ) {}

  private wrongType(key: string, what: string): AwsError {
    return this.invalid(
      this.wording === 'parameter' ? `The parameter ${key} must be ${what}.` : `${key} must be ${what}.`,
    );
  }

  private absent(key: string): AwsError {
    return this.missing(
      this.wording === 'parameter'
        ? `The parameter ${key} is required.`
        : `1 validation error detected: Value null at '${lowerFirst(key)}' failed to satisfy constraint: Member must not be null`,
    );
  }

  /** The member, or undefined when absent and optional (throws when absent and required). */
  private value(key: string, optional: boolean | undefined): unknown {
    const v = this.input[key];
    if (v === undefined || v === null) {
      if (optional) return undefined;
      throw this.absent(key);
    }
    return v;
  }

  has(key: string): boolean {
    return this.input[key] !== undefined && this.input[key] !== null;
  }

  str(key: string): string;
  str(key: string, optional: true): string | undefined;
  str(key: string, optional?: boolean): string | undefined {
    const v = this.value(key, optional);
    if (v === undefined) return undefined;
    if (typeof v !== 'string') throw this.wrongType(key, 'a string');
    return v;
  }

  num(key: string): number;
  num(key: string, optional: true): number | undefined;
  num(key: string, optional?: boolean): number | undefined {
    const v = this.value(key, optional);
    if (v === undefined) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw this.wrongType(key, 'a number');
    return v;
  }

  int(key: string): number;
  int(key: string, optional: true): number | undefined;
  int(key: string, optional?: boolean): number | undefined {
    const v = optional ? this.num(key, true) : this.num(key);
    if (v !== undefined && !Number.isInteger(v)) throw this.wrongType(key, 'an integer');
    return v;
  }

  bool(key: string): boolean | undefined {
    const v = this.value(key, true);
    if (v === undefined) return undefined;
    if (typeof v !== 'boolean') throw this.wrongType(key, 'a boolean');
    return v;
  }

  /** Timestamps arrive as epoch seconds (number); ISO strings are accepted too. Returns epoch ms. */
  time(key: string): number;
  time(key: string, optional: true): number | undefined;
  time(key: string, optional?: boolean): number | undefined {
    const v = this.value(key, optional);
    if (v === undefined) return undefined;
    if (typeof v === 'number' && Number.isFinite(v)) return v * 1000;
    if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return Date.parse(v);
    throw this.wrongType(key, 'a timestamp');
  }

  list(key: string): unknown[];
  list(key: string, optional: true): unknown[] | undefined;
  list(key: string, optional?: boolean): unknown[] | undefined {
    const v = this.value(key, optional);
    if (v === undefined) return undefined;
    if (!Array.isArray(v)) throw this.wrongType(key, 'a list');
    return v;
  }

  strList(key: string): string[] | undefined {
    const v = this.value(key, true);
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((s) => typeof s !== 'string'))
      throw this.wrongType(key, 'a list of strings');
    return v as string[];
  }

  obj(key: string): Input | undefined {
    const v = this.value(key, true);
    if (v === undefined) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw this.wrongType(key, 'a structure');
    return v as Input;
  }

  objList(key: string): Input[] | undefined {
    const v = this.value(key, true);
    if (v === undefined) return undefined;
    if (!Array.isArray(v) || v.some((o) => typeof o !== 'object' || o === null || Array.isArray(o))) {
      throw this.wrongType(key, 'a list of structures');
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

/** A reader with the JSON 1.1 services' wording (SageMaker, CloudWatch Logs, Service Quotas, CloudWatch metrics). */
export const memberReader = (input: Input, invalid: ErrorFactory): Reader =>
  new Reader(input, invalid, invalid, 'member');

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1);

export const unknownOperation = (operation: string): AwsError =>
  new AwsError(
    'UnknownOperationException',
    `Unknown operation ${operation}: the local SageMaker does not implement it.`,
    400,
  );

/** A Map-key-stable rendering of a dimension set (order-independent, as CloudWatch matches). */
export function dimensionKey(dimensions: Record<string, string>): string {
  return Object.keys(dimensions)
    .sort()
    .map((k) => `${k}=${dimensions[k]}`)
    .join('\u0001');
}
