/**
 * Small helpers for the JSON protocols: reading request members and writing timestamps the way
 * the SDK v3 clients send and expect them (epoch seconds, as numbers, possibly fractional).
 */
import { AwsError } from './aws-error.js';

export type Input = Record<string, unknown>;

/** Epoch milliseconds -> the JSON protocols' timestamp (epoch seconds, ms precision). */
export const epochSeconds = (ms: number): number => Math.round(ms) / 1000;

/** Builds typed readers over one request body; every refusal is `invalid(message)`. */
export function reader(input: Input, invalid: (message: string) => AwsError) {
  const str = (name: string): string | undefined => {
    const v = input[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'string') throw invalid(`${name} must be a string.`);
    return v;
  };
  const num = (name: string): number | undefined => {
    const v = input[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'number' || !Number.isFinite(v)) throw invalid(`${name} must be a number.`);
    return v;
  };
  const bool = (name: string): boolean | undefined => {
    const v = input[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'boolean') throw invalid(`${name} must be a boolean.`);
    return v;
  };
  /** Timestamps arrive as epoch seconds (number); ISO strings are accepted too. Returns epoch ms. */
  const time = (name: string): number | undefined => {
    const v = input[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'number' && Number.isFinite(v)) return v * 1000;
    if (typeof v === 'string' && !Number.isNaN(Date.parse(v))) return Date.parse(v);
    throw invalid(`${name} must be a timestamp.`);
  };
  const list = (name: string): unknown[] | undefined => {
    const v = input[name];
    if (v === undefined || v === null) return undefined;
    if (!Array.isArray(v)) throw invalid(`${name} must be a list.`);
    return v;
  };
  const obj = (name: string): Input | undefined => {
    const v = input[name];
    if (v === undefined || v === null) return undefined;
    if (typeof v !== 'object' || Array.isArray(v)) throw invalid(`${name} must be a structure.`);
    return v as Input;
  };
  const need = <T>(name: string, v: T | undefined): T => {
    if (v === undefined)
      throw invalid(
        `1 validation error detected: Value null at '${lowerFirst(name)}' failed to satisfy constraint: Member must not be null`,
      );
    return v;
  };
  return {
    str,
    num,
    bool,
    time,
    list,
    obj,
    reqStr: (name: string) => need(name, str(name)),
    reqNum: (name: string) => need(name, num(name)),
    reqTime: (name: string) => need(name, time(name)),
    reqList: (name: string) => need(name, list(name)),
  };
}

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
