/**
 * Built-in traffic shapes (docs/traces.md#built-in-shapes): a rate trace from a spec such as
 * `diurnal:peak=300,trough=60,bursts=4,burst_x=2,burst_s=120,seed=7`. Pure and seeded: the same
 * spec gives the same rows, and the trace's source is the spec with every parameter spelled out
 * (`shape:diurnal(peak=300,trough=60,...)`), so two specs that differ only by stating a default
 * name the same traffic.
 *
 * - `diurnal`: a day curve, trough at `peak_at_h - 12` and `peak` at `peak_at_h` (a cosine), times
 *   a noise factor drawn per minute uniformly in [1 - noise, 1 + noise], times `burst_x` during
 *   `bursts` bursts of `burst_s` seconds at seeded times; rows every `step_s` seconds.
 * - `step`: `base`, then `base * x` from `at_s` for `for_s` seconds (default: to the end).
 * - `ramp`: `base` until `at_s`, then linearly to `peak` over `ramp_s` (rows every `step_s`), then
 *   `peak` held (a launch).
 * - `bursts`: `base`, times `x` during `n` bursts of `burst_s` seconds at seeded whole seconds.
 *
 * `peak`, `trough` and `base` are the curve's own: noise and bursts come on top of them.
 */
import { subject, UsageError, usage } from '../model/errors.js';
import { canonicalNumber, type RateRow, rateTrace, TRACE_LIMITS, type Trace } from '../model/trace.js';
import { mulberry32 } from '../stats/prng.js';
import type { SimArrivals } from './types.js';

interface Param {
  /** @default required */
  default?: number;
  min: number;
  max: number;
  integer?: boolean;
  what: string;
}

const DAY = 86_400;
const rps = (what: string, extra: Partial<Param> = {}): Param => ({
  min: 0,
  max: TRACE_LIMITS.rps,
  what,
  ...extra,
});
const secs = (what: string, extra: Partial<Param> = {}): Param => ({
  min: 0,
  max: TRACE_LIMITS.durationS,
  what,
  ...extra,
});
const SEED: Param = { default: 1, min: 0, max: 2 ** 32 - 1, integer: true, what: 'the seed' };

/** Every shape's parameters, in the order its source spells them. */
export const SHAPES = {
  diurnal: {
    peak: rps('the day curve at its highest, requests/s'),
    trough: rps('the day curve at its lowest, requests/s'),
    peak_at_h: { default: 14, min: 0, max: 24, what: 'the hour (UTC from the start) of the peak' },
    noise: { default: 0.1, min: 0, max: 0.9, what: 'the per-minute noise, a share of the rate' },
    bursts: { default: 0, min: 0, max: 1000, integer: true, what: 'how many bursts' },
    burst_x: { default: 2, min: 1, max: 1000, what: 'the rate multiplier during a burst' },
    burst_s: secs('how long a burst lasts, s', { default: 120, min: 1 }),
    step_s: secs('the row step, s', { default: 10, min: 1, max: 3600 }),
    duration_s: secs('the trace length, s', { default: DAY, min: 1 }),
    seed: SEED,
  },
  step: {
    base: rps('the rate before and after the step, requests/s'),
    x: { min: 0, max: 1000, what: 'the rate multiplier of the step' },
    at_s: secs('when the step starts, s'),
    for_s: secs('how long the step lasts, s (0: to the end)', { default: 0 }),
    duration_s: secs('the trace length, s', { default: 3600, min: 1 }),
  },
  ramp: {
    base: rps('the rate before the ramp, requests/s'),
    peak: rps('the rate the ramp reaches and holds, requests/s'),
    at_s: secs('when the ramp starts, s', { default: 0 }),
    ramp_s: secs('how long the ramp takes, s', { min: 1 }),
    step_s: secs('the row step during the ramp, s', { default: 10, min: 1, max: 3600 }),
    duration_s: secs('the trace length, s', { default: 3600, min: 1 }),
  },
  bursts: {
    base: rps('the rate between bursts, requests/s'),
    x: { min: 1, max: 1000, what: 'the rate multiplier during a burst' },
    n: { min: 1, max: 1000, integer: true, what: 'how many bursts' },
    burst_s: secs('how long a burst lasts, s', { min: 1 }),
    duration_s: secs('the trace length, s', { default: 3600, min: 1 }),
    seed: SEED,
  },
} as const satisfies Record<string, Record<string, Param>>;

export type ShapeName = keyof typeof SHAPES;
type Values<N extends ShapeName> = { [K in keyof (typeof SHAPES)[N]]: number };

export interface ShapeSpec<N extends ShapeName = ShapeName> {
  name: N;
  params: Values<N>;
  /** `# start=` of the trace (epoch ms), when the spec gives `start=<ISO>`. */
  startMs: number | null;
  /** `shape:<name>(<every parameter>)`: the trace's source. */
  source: string;
}

const SHAPE_NAMES = Object.keys(SHAPES) as ShapeName[];
const EXAMPLE = 'diurnal:peak=300,trough=60,bursts=4,burst_x=2,burst_s=120,seed=7';

/** The spec as given, for messages: `--shape` or `the shape`. */
type Flag = string;

const refuse = (flag: Flag, why: string, fix: string): UsageError =>
  flag.startsWith('--')
    ? usage`${subject(flag.slice(2))} ${why}. ${fix}.`
    : new UsageError(`${flag}: ${why}. ${fix}.`);

/** Parses `name:key=value,...`; every mistake is an exit-2 refusal naming the key and the fix. */
export function parseShapeSpec(spec: string, flag: Flag = 'the shape'): ShapeSpec {
  const colon = spec.indexOf(':');
  const name = (colon === -1 ? spec : spec.slice(0, colon)).trim();
  if (!(SHAPE_NAMES as string[]).includes(name)) {
    throw refuse(
      flag,
      `names no built-in shape ("${name.slice(0, 40)}")`,
      `Give one of ${SHAPE_NAMES.join(', ')}, e.g. ${EXAMPLE}`,
    );
  }
  const table = SHAPES[name as ShapeName] as Record<string, Param>;
  const keys = Object.keys(table);
  const given = new Map<string, number>();
  let startMs: number | null = null;
  const body = colon === -1 ? '' : spec.slice(colon + 1).trim();
  for (const pair of body === '' ? [] : body.split(',')) {
    const eq = pair.indexOf('=');
    const key = (eq === -1 ? pair : pair.slice(0, eq)).trim();
    const raw = eq === -1 ? '' : pair.slice(eq + 1).trim();
    if (key === 'start') {
      const ms = /^\d{4}-\d{2}-\d{2}T.*(Z|[+-]\d{2}:?\d{2})$/.test(raw) ? Date.parse(raw) : Number.NaN;
      if (!Number.isFinite(ms)) {
        throw refuse(
          flag,
          `start=${raw.slice(0, 40)} is not an ISO time with its offset`,
          'Write start=2026-11-30T00:00:00Z',
        );
      }
      startMs = ms;
      continue;
    }
    const param = table[key];
    if (param === undefined) {
      throw refuse(
        flag,
        `${name} has no parameter "${key.slice(0, 40)}"`,
        `Its parameters: ${keys.join(', ')}, start`,
      );
    }
    if (given.has(key)) throw refuse(flag, `gives ${key} twice`, 'Give each parameter once');
    const value = raw === '' ? Number.NaN : Number(raw);
    const ok = Number.isFinite(value) && value >= param.min && value <= param.max;
    if (!ok || (param.integer && !Number.isInteger(value))) {
      throw refuse(
        flag,
        `${key}=${raw.slice(0, 40)} is not ${param.integer ? 'an integer' : 'a number'} in ${param.min}..${param.max}`,
        `${key} is ${param.what}`,
      );
    }
    given.set(key, value);
  }
  const params: Record<string, number> = {};
  for (const key of keys) {
    const param = table[key] as Param;
    const value = given.get(key) ?? param.default;
    if (value === undefined) {
      throw refuse(
        flag,
        `${name} needs ${key} (${param.what})`,
        `e.g. ${
          name === 'diurnal'
            ? EXAMPLE
            : `${name}:${keys
                .filter((k) => table[k]?.default === undefined)
                .map((k) => `${k}=...`)
                .join(',')}`
        }`,
      );
    }
    params[key] = value;
  }
  checkShape(name as ShapeName, params, flag);
  const spelled = keys.map((k) => `${k}=${canonicalNumber(params[k] as number)}`);
  if (startMs !== null) spelled.push(`start=${new Date(startMs).toISOString()}`);
  return {
    name: name as ShapeName,
    params: params as Values<ShapeName>,
    startMs,
    source: `shape:${name}(${spelled.join(',')})`,
  } as ShapeSpec;
}

/** The checks between parameters. */
function checkShape(name: ShapeName, p: Record<string, number>, flag: Flag): void {
  const d = p.duration_s as number;
  const within = (key: string) => {
    if ((p[key] as number) >= d) {
      throw refuse(
        flag,
        `${key}=${canonicalNumber(p[key] as number)} is not before the end (duration_s=${d})`,
        `Give ${key} < duration_s`,
      );
    }
  };
  const multiple = (key: string, of: string) => {
    const r = (p[key] as number) / (p[of] as number);
    if (Math.abs(r - Math.round(r)) > 1e-9) {
      throw refuse(
        flag,
        `${key}=${p[key]} is not a multiple of ${of}=${p[of]}`,
        `Rows are ${of} apart: give ${key} in whole steps`,
      );
    }
  };
  if (name === 'diurnal') {
    if ((p.trough as number) > (p.peak as number)) {
      throw refuse(flag, `trough=${p.trough} is above peak=${p.peak}`, 'Give trough <= peak');
    }
    multiple('burst_s', 'step_s');
    multiple('duration_s', 'step_s');
    if ((p.bursts as number) > 0) within('burst_s');
  } else if (name === 'step') {
    within('at_s');
  } else if (name === 'ramp') {
    within('at_s');
    multiple('ramp_s', 'step_s');
  } else {
    within('burst_s');
  }
}

/** Seeded burst starts on a grid of `grid` seconds, merged where they overlap: [start, end) pairs. */
function burstIntervals(
  n: number,
  burstS: number,
  durationS: number,
  grid: number,
  seed: number,
): [number, number][] {
  const random = mulberry32(seed ^ 0xb0b5);
  const slots = Math.floor((durationS - burstS) / grid) + 1;
  const starts = Array.from(
    { length: n },
    () => Math.min(slots - 1, Math.floor(random() * slots)) * grid,
  ).sort((a, b) => a - b);
  const out: [number, number][] = [];
  for (const s of starts) {
    const last = out.at(-1);
    if (last && s <= last[1]) last[1] = Math.max(last[1], s + burstS);
    else out.push([s, s + burstS]);
  }
  return out;
}

const inAny = (intervals: readonly [number, number][], t: number): boolean =>
  intervals.some(([a, b]) => t >= a && t < b);

/** The rows of a shape (before canonical rounding and merging). */
export function shapeRows(spec: ShapeSpec): { rows: RateRow[]; durationS: number } {
  const p = spec.params as Record<string, number>;
  const d = p.duration_s as number;
  switch (spec.name) {
    case 'diurnal': {
      const step = p.step_s as number;
      const bursts = burstIntervals(p.bursts as number, p.burst_s as number, d, step, p.seed as number);
      const random = mulberry32(p.seed as number);
      const minutes = Math.ceil(d / 60);
      const noise = Float64Array.from(
        { length: minutes },
        () => 1 + (p.noise as number) * (2 * random() - 1),
      );
      const rows: RateRow[] = [];
      for (let t = 0; t < d; t += step) {
        const phase = (2 * Math.PI * (t / 3600 - (p.peak_at_h as number))) / 24;
        const curve =
          (p.trough as number) + ((p.peak as number) - (p.trough as number)) * ((1 + Math.cos(phase)) / 2);
        const factor = (noise[Math.floor(t / 60)] as number) * (inAny(bursts, t) ? (p.burst_x as number) : 1);
        rows.push({ t_s: t, rps: curve * factor });
      }
      return { rows, durationS: d };
    }
    case 'step': {
      const rows: RateRow[] = [{ t_s: 0, rps: p.base as number }];
      const end = (p.for_s as number) > 0 ? (p.at_s as number) + (p.for_s as number) : d;
      rows.push({ t_s: p.at_s as number, rps: (p.base as number) * (p.x as number) });
      if (end < d) rows.push({ t_s: end, rps: p.base as number });
      return { rows, durationS: d };
    }
    case 'ramp': {
      const rows: RateRow[] = [{ t_s: 0, rps: p.base as number }];
      const steps = Math.round((p.ramp_s as number) / (p.step_s as number));
      for (let k = 0; k <= steps; k++) {
        const t = (p.at_s as number) + k * (p.step_s as number);
        if (t >= d) break;
        rows.push({
          t_s: t,
          rps: (p.base as number) + (((p.peak as number) - (p.base as number)) * k) / steps,
        });
      }
      return { rows: rows.filter((r, i) => i === 0 || r.t_s > 0 || rows.length === 1), durationS: d };
    }
    case 'bursts': {
      const bursts = burstIntervals(p.n as number, p.burst_s as number, d, 1, p.seed as number);
      const rows: RateRow[] = [{ t_s: 0, rps: p.base as number }];
      for (const [a, b] of bursts) {
        if (a === 0) rows.length = 0;
        rows.push({ t_s: a, rps: (p.base as number) * (p.x as number) });
        if (b < d) rows.push({ t_s: b, rps: p.base as number });
      }
      return { rows, durationS: d };
    }
  }
}

/** A built-in shape as a trace (kind `shape`, source `shape:<name>(...)`). */
export function shapeTrace(spec: string | ShapeSpec, flag?: Flag): Trace {
  const parsed = typeof spec === 'string' ? parseShapeSpec(spec, flag) : spec;
  const { rows, durationS } = shapeRows(parsed);
  if (rows.every((r) => r.rps === 0)) {
    throw refuse(
      flag ?? 'the shape',
      'gives a rate of 0 throughout, so nothing arrives',
      'Give a rate above 0',
    );
  }
  return rateTrace(rows, durationS, { source: parsed.source, kind: 'shape', startMs: parsed.startMs });
}

/** A trace's arrivals as the simulator takes them (a file's or a shape's: the same structure). */
export const simArrivalsOf = (trace: Trace): SimArrivals => trace.arrivals;
