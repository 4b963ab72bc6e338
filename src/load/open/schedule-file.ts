/**
 * Rate schedules and replay timestamps from files, for the open-loop engine's arrival profiles.
 * No command has a schedule or replay option yet: nothing in src reads these files today (the
 * parsers are tested, and wait for the option that will name them). Every mistake is a
 * UsageError naming the option it is given (`flag`), the file and the line, with the fix.
 *
 * Schedule: rows `t_s,rate` (CSV, optional `t_s,rate` header, `#` comments)
 * or JSON (`[{"t_s": 0, "rate": 50}, ...]` or `{"points": [...]}`). Times start at 0 and strictly
 * increase; rates are >= 0 (0 is a pause); the last row ends the schedule. `step`: each rate holds
 * until the next row; `ramp`: the rate moves linearly between rows.
 *
 * Replay: one request per line, its send time as seconds (a number), an
 * ISO-8601 time, or a JSON object with `t_s`, `intended_at` or `dispatched_at` (so an `--events`
 * file replays as it was sent). Times are taken relative to the first and must not decrease.
 */
import { UsageError } from '../../model/errors.js';
import { FileReadError, READ_LIMITS, readBoundedFile } from '../../model/read.js';
import type { RatePoint, RateProfile, RateShape } from './arrivals.js';

function readText(file: string, flag: string): string {
  try {
    return readBoundedFile(file, { maxBytes: READ_LIMITS.loadInput, label: 'the file', source: flag });
  } catch (e) {
    if (e instanceof FileReadError && e.missing) {
      throw new UsageError(`${flag} ${file}: cannot read (no such file).`);
    }
    throw e;
  }
}

const FORMAT = 'rows `t_s,rate` (CSV) or JSON [{"t_s": 0, "rate": 50}, ...]';

function pointsFromJson(text: string, where: string): Array<{ point: RatePoint; at: string }> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${where}: not valid JSON (${(e as Error).message}). Use ${FORMAT}.`);
  }
  const list = Array.isArray(parsed) ? parsed : (parsed as { points?: unknown } | null)?.points;
  if (!Array.isArray(list)) throw new UsageError(`${where}: expected a list of points. Use ${FORMAT}.`);
  return list.map((item, i) => {
    const at = `point ${i + 1}`;
    const t = (item as { t_s?: unknown } | null)?.t_s;
    const rate = (item as { rate?: unknown } | null)?.rate;
    if (typeof t !== 'number' || typeof rate !== 'number') {
      throw new UsageError(`${where}: ${at} needs numbers "t_s" and "rate". Use ${FORMAT}.`);
    }
    return { point: { t_s: t, rate }, at };
  });
}

function pointsFromCsv(text: string, where: string): Array<{ point: RatePoint; at: string }> {
  const out: Array<{ point: RatePoint; at: string }> = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    const cells = line.split(/[,;\t]/).map((c) => c.trim());
    if (out.length === 0 && cells[0]?.toLowerCase() === 't_s') continue;
    const at = `line ${i + 1}`;
    if (cells.length !== 2 || cells.some((c) => c === '' || !Number.isFinite(Number(c)))) {
      throw new UsageError(`${where}: ${at} "${line}" is not two numbers. Use ${FORMAT}.`);
    }
    out.push({ point: { t_s: Number(cells[0]), rate: Number(cells[1]) }, at });
  }
  return out;
}

/** Parses and validates a rate schedule; `flag` and `file` name the source in errors. */
export function parseSchedule(
  text: string,
  file: string,
  shape: RateShape,
  flag = '--schedule',
): RateProfile {
  const where = `${flag} ${file}`;
  const trimmed = text.trimStart();
  const rows =
    trimmed.startsWith('[') || trimmed.startsWith('{')
      ? pointsFromJson(text, where)
      : pointsFromCsv(text, where);
  if (rows.length < 2) {
    throw new UsageError(
      `${where}: needs at least two rows (the last row's t_s ends the schedule), found ${rows.length}. Use ${FORMAT}.`,
    );
  }
  let previous: { point: RatePoint; at: string } | null = null;
  for (const row of rows) {
    const { t_s: t, rate } = row.point;
    if (!Number.isFinite(t) || t < 0) {
      throw new UsageError(
        `${where}: ${row.at}: time ${t} is negative; times are seconds from the start (0, 10, 20...).`,
      );
    }
    if (!Number.isFinite(rate) || rate < 0) {
      throw new UsageError(
        `${where}: ${row.at}: rate ${rate} is negative; rates are requests/s >= 0 (0 is a pause).`,
      );
    }
    if (previous === null && t !== 0) {
      throw new UsageError(
        `${where}: ${row.at}: the first row must be at t_s 0 (the schedule's start), found ${t}.`,
      );
    }
    if (previous !== null && t <= previous.point.t_s) {
      throw new UsageError(
        `${where}: ${row.at}: time ${t} does not come after ${previous.point.t_s} (${previous.at}); times must strictly increase.`,
      );
    }
    previous = row;
  }
  const points = rows.map((r) => r.point);
  const profile: RateProfile = { kind: 'schedule', shape, points, source: file };
  const positive = points.slice(0, shape === 'ramp' ? points.length : -1).some((p) => p.rate > 0);
  if (!positive) {
    throw new UsageError(
      `${where}: every rate is 0, so no request would be sent; give at least one rate above 0.`,
    );
  }
  return profile;
}

export function loadSchedule(file: string, shape: RateShape, flag = '--schedule'): RateProfile {
  return parseSchedule(readText(file, flag), file, shape, flag);
}

/** Send-time offsets (ms, relative to the first) from a replay file. */
export function parseReplay(text: string, file: string, flag = '--replay'): number[] {
  const where = `${flag} ${file}`;
  const times: number[] = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '' || line.startsWith('#')) continue;
    if (times.length === 0 && /^t_s$/i.test(line)) continue;
    const at = `line ${i + 1}`;
    let ms: number;
    if (line.startsWith('{')) {
      let o: Record<string, unknown>;
      try {
        o = JSON.parse(line) as Record<string, unknown>;
      } catch (e) {
        throw new UsageError(`${where}: ${at} starts with "{" but is not JSON (${(e as Error).message}).`);
      }
      if (typeof o.t_s === 'number') ms = o.t_s * 1000;
      else if (typeof o.intended_at === 'string') ms = Date.parse(o.intended_at);
      else if (typeof o.dispatched_at === 'string') ms = Date.parse(o.dispatched_at);
      else throw new UsageError(`${where}: ${at} has none of "t_s", "intended_at", "dispatched_at".`);
    } else if (/^-?\d+(\.\d+)?(e[+-]?\d+)?$/i.test(line)) {
      ms = Number(line) * 1000;
    } else {
      ms = Date.parse(line);
    }
    if (!Number.isFinite(ms)) {
      throw new UsageError(
        `${where}: ${at} "${line.slice(0, 60)}" is not a time (seconds, ISO-8601 or JSON).`,
      );
    }
    if (ms < 0) throw new UsageError(`${where}: ${at}: time ${ms / 1000} is negative.`);
    const last = times.at(-1);
    if (last !== undefined && ms < last) {
      throw new UsageError(
        `${where}: ${at}: time goes backwards (${((last - ms) / 1000).toFixed(3)} s before the line above); replay times must not decrease.`,
      );
    }
    times.push(ms);
  }
  if (times.length === 0) throw new UsageError(`${where}: no timestamps (one send time per line).`);
  const first = times[0] as number;
  return times.map((t) => t - first);
}

export function loadReplay(file: string, flag = '--replay'): number[] {
  return parseReplay(readText(file, flag), file, flag);
}
