/**
 * Scheduled actions (Application Auto Scaling User Guide, "Scheduled scaling"; API Reference,
 * PutScheduledAction): the schedule expressions, when they fire, and what a fired action does to
 * the scalable target.
 *
 * Expressions, UTC only (a Timezone other than UTC is refused by the caller):
 * - `at(yyyy-mm-ddThh:mm:ss)`: once.
 * - `rate(N minute|minutes|hour|hours|day|days)`: every N units, counted from StartTime when one is
 *   given (first run at StartTime), else from when the action was created (first run one interval
 *   later). AWS does not document the anchor; this is the assumption.
 * - `cron(Minutes Hours Day-of-month Month Day-of-week Year)`: numbers, `*`, `,` lists, `-` ranges,
 *   `/` increments; months 1-12 or JAN-DEC, days of the week 1-7 = SUN-SAT or SUN-SAT names;
 *   exactly one of day-of-month and day-of-week is `?`. `L`, `W` and `#` are refused.
 * StartTime / EndTime, when given, bound the fire times (inclusive).
 *
 * Effect of a fired action: MinCapacity / MaxCapacity (either may be absent: unchanged) become the
 * target's; a desired count below the new minimum is scaled out to it, one above the new maximum
 * is scaled in to it.
 */

export class ScheduleError extends Error {}

interface CronFields {
  minutes: boolean[];
  hours: boolean[];
  /** Index 1..31; undefined = `?`. */
  daysOfMonth: boolean[] | undefined;
  /** Index 1..12. */
  months: boolean[];
  /** Index 1..7 (SUN..SAT); undefined = `?`. */
  daysOfWeek: boolean[] | undefined;
  /** Undefined = any year. */
  years: Set<number> | undefined;
}

export type Schedule =
  | { kind: 'at'; text: string; atMs: number }
  | { kind: 'rate'; text: string; everyMs: number }
  | { kind: 'cron'; text: string; fields: CronFields };

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;
const RATE_UNITS: Record<string, number> = {
  minute: MINUTE_MS,
  minutes: MINUTE_MS,
  hour: 3_600_000,
  hours: 3_600_000,
  day: DAY_MS,
  days: DAY_MS,
};
const MONTHS = ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'];
const WEEKDAYS = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];
const FORMS = 'at(yyyy-mm-ddThh:mm:ss), rate(value unit) or cron(fields)';

/** Parses a Schedule; throws ScheduleError with a message that names what is wrong. */
export function parseSchedule(text: string): Schedule {
  const m = /^(at|rate|cron)\((.*)\)$/.exec(text.trim());
  if (!m) throw new ScheduleError(`Invalid schedule expression ${text}: expected ${FORMS}.`);
  const body = (m[2] as string).trim();
  switch (m[1]) {
    case 'at':
      return { kind: 'at', text, atMs: parseAt(text, body) };
    case 'rate':
      return { kind: 'rate', text, everyMs: parseRate(text, body) };
    default:
      return { kind: 'cron', text, fields: parseCron(text, body) };
  }
}

function parseAt(text: string, body: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/.exec(body);
  if (!m) throw new ScheduleError(`Invalid at expression ${text}: expected at(yyyy-mm-ddThh:mm:ss).`);
  const [y, mo, d, h, mi, s] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  const ms = Date.UTC(y, mo - 1, d, h, mi, s);
  const back = new Date(ms);
  if (
    back.getUTCFullYear() !== y ||
    back.getUTCMonth() !== mo - 1 ||
    back.getUTCDate() !== d ||
    back.getUTCHours() !== h ||
    back.getUTCMinutes() !== mi ||
    back.getUTCSeconds() !== s
  ) {
    throw new ScheduleError(`Invalid at expression ${text}: ${body} is not a date and time.`);
  }
  return ms;
}

function parseRate(text: string, body: string): number {
  const m = /^(\d+)\s+(\w+)$/.exec(body);
  const unit = m ? RATE_UNITS[m[2] as string] : undefined;
  const n = m ? Number(m[1]) : 0;
  if (!m || unit === undefined || !(n >= 1)) {
    throw new ScheduleError(
      `Invalid rate expression ${text}: expected rate(N minute|minutes|hour|hours|day|days) with N a positive integer.`,
    );
  }
  return n * unit;
}

function parseCron(text: string, body: string): CronFields {
  const parts = body.split(/\s+/);
  if (parts.length !== 6) {
    throw new ScheduleError(
      `Invalid cron expression ${text}: expected 6 fields (Minutes Hours Day-of-month Month Day-of-week Year), got ${parts.length}.`,
    );
  }
  const [mi, h, dom, mon, dow, yr] = parts as [string, string, string, string, string, string];
  const bad = /[LW#]/i.exec(`${dom} ${dow}`.replace(/[A-Z]{3}/gi, (w) => (isName(w) ? '' : w)));
  if (bad) {
    throw new ScheduleError(
      `Invalid cron expression ${text}: ${bad[0]} (last / weekday / nth day) is not supported by the local SageMaker.`,
    );
  }
  if ((dom === '?') === (dow === '?')) {
    throw new ScheduleError(
      `Invalid cron expression ${text}: exactly one of Day-of-month and Day-of-week must be ? (AWS does not allow both or neither).`,
    );
  }
  const field = (name: string, f: string, lo: number, hi: number, names?: string[]) =>
    parseField(text, name, f, lo, hi, names);
  const yearSet = field('Year', yr, 1970, 2199);
  return {
    minutes: field('Minutes', mi, 0, 59),
    hours: field('Hours', h, 0, 23),
    daysOfMonth: dom === '?' ? undefined : field('Day-of-month', dom, 1, 31),
    months: field('Month', mon, 1, 12, MONTHS),
    daysOfWeek: dow === '?' ? undefined : field('Day-of-week', dow, 1, 7, WEEKDAYS),
    years:
      yr === '*' ? undefined : new Set(yearSet.flatMap((on, y) => (on ? [y] : [])).filter((y) => y >= 1970)),
  };
}

const isName = (w: string): boolean => MONTHS.includes(w.toUpperCase()) || WEEKDAYS.includes(w.toUpperCase());

/** One cron field as a lookup table indexed by value (lo..hi). */
function parseField(
  text: string,
  name: string,
  f: string,
  lo: number,
  hi: number,
  names?: string[],
): boolean[] {
  const on = new Array<boolean>(hi + 1).fill(false);
  const fail = (why: string): never => {
    throw new ScheduleError(`Invalid cron expression ${text}: ${name} field ${f}: ${why}.`);
  };
  const value = (s: string): number => {
    const idx = names?.indexOf(s.toUpperCase()) ?? -1;
    const v = idx >= 0 ? idx + 1 : /^\d+$/.test(s) ? Number(s) : Number.NaN;
    if (!(v >= lo && v <= hi))
      fail(
        `${s} is not a value from ${lo} to ${hi}${names ? ` or ${names[0]}-${names[names.length - 1]}` : ''}`,
      );
    return v;
  };
  for (const item of f.split(',')) {
    const [range = '', stepText] = item.split('/');
    const step = stepText === undefined ? 1 : /^\d+$/.test(stepText) ? Number(stepText) : 0;
    if (!(step >= 1)) fail(`the increment of ${item} must be a positive integer`);
    let from: number;
    let to: number;
    if (range === '*') {
      from = lo;
      to = hi;
    } else if (range.includes('-')) {
      const [a = '', b = ''] = range.split('-');
      from = value(a);
      to = value(b);
      if (from > to) fail(`the range ${range} runs backwards`);
    } else {
      from = value(range);
      to = stepText === undefined ? from : hi;
    }
    for (let v = from; v <= to; v += step) on[v] = true;
  }
  return on;
}

/** When the schedule runs: StartTime / EndTime bounds, and (rate) when the action was created. */
export interface FireBounds {
  startMs?: number | undefined;
  endMs?: number | undefined;
  /** A rate without StartTime counts from here (the action's creation). @default 0 */
  createdMs?: number;
}

/**
 * The fire times in (fromMs, toMs], ascending. Cron is enumerated day by day and only within the
 * matching days, so a day minute by minute or a year of schedules is cheap.
 */
export function firesIn(schedule: Schedule, fromMs: number, toMs: number, bounds: FireBounds = {}): number[] {
  const lo = Math.max(fromMs, (bounds.startMs ?? -Infinity) - 1);
  const hi = Math.min(toMs, bounds.endMs ?? Infinity);
  if (!(hi > lo)) return [];
  switch (schedule.kind) {
    case 'at':
      return schedule.atMs > lo && schedule.atMs <= hi ? [schedule.atMs] : [];
    case 'rate': {
      const every = schedule.everyMs;
      const anchor = bounds.startMs ?? bounds.createdMs ?? 0;
      const firstK = bounds.startMs !== undefined ? 0 : 1;
      const k0 = Math.max(firstK, Math.floor((lo - anchor) / every) + 1);
      const out: number[] = [];
      for (let k = k0; anchor + k * every <= hi; k++) out.push(anchor + k * every);
      return out;
    }
    case 'cron':
      return cronFires(schedule.fields, lo, hi);
  }
}

function cronFires(f: CronFields, lo: number, hi: number): number[] {
  const out: number[] = [];
  const hours = f.hours.flatMap((on, h) => (on ? [h] : []));
  const minutes = f.minutes.flatMap((on, m) => (on ? [m] : []));
  for (let day = Math.floor(lo / DAY_MS) * DAY_MS; day <= hi; day += DAY_MS) {
    const d = new Date(day);
    if (f.years && !f.years.has(d.getUTCFullYear())) continue;
    if (!f.months[d.getUTCMonth() + 1]) continue;
    if (f.daysOfMonth && !f.daysOfMonth[d.getUTCDate()]) continue;
    if (f.daysOfWeek && !f.daysOfWeek[d.getUTCDay() + 1]) continue;
    for (const h of hours) {
      for (const m of minutes) {
        const t = day + h * 3_600_000 + m * MINUTE_MS;
        if (t > lo && t <= hi) out.push(t);
      }
    }
  }
  return out;
}

/** ScalableTargetAction: either bound may be absent (unchanged). */
export interface ScalableTargetAction {
  minCapacity?: number | undefined;
  maxCapacity?: number | undefined;
}

export type ScheduledEffect =
  | { ok: true; minCapacity: number; maxCapacity: number; desired: number }
  | { ok: false; reason: string };

/** The target after the action fired: its new range, and the desired count moved into it. */
export function scheduledEffect(
  target: { minCapacity: number; maxCapacity: number; desired: number },
  action: ScalableTargetAction,
): ScheduledEffect {
  const minCapacity = action.minCapacity ?? target.minCapacity;
  const maxCapacity = action.maxCapacity ?? target.maxCapacity;
  if (minCapacity > maxCapacity) {
    return {
      ok: false,
      reason: `the minimum capacity ${minCapacity} would be greater than the maximum capacity ${maxCapacity}`,
    };
  }
  const desired = Math.min(maxCapacity, Math.max(minCapacity, target.desired));
  return { ok: true, minCapacity, maxCapacity, desired };
}
