/**
 * Scheduled pre-scaling: where a trace ramps faster than a policy can follow within T_plan, a
 * minimum capacity by time of day (Application Auto Scaling scheduled actions, cron in UTC).
 * Pure and deterministic.
 *
 * The trace is cut into time-of-day slots (15 min by default; the slots are aligned to 00:00 UTC,
 * the trace placed by its start, or t = 0 at 00:00 UTC when it says none). A slot needs
 * pre-scaling when its reach [slot start, slot end + T_plan] holds a window the policy-only
 * simulation had outside the SLO, or a rise the policy cannot follow: the rate growing by more
 * than the surge ratio k within one T_plan (what a surge-safe fleet absorbs). Such a slot's minimum
 * capacity is ceil(max rate over its reach / lambda_safe), within the policy's [min, max]; a
 * time of day seen on several days takes the largest. One action per change of minimum capacity
 * around the day (the last slot wraps to the first); a trace that needs none gives none.
 */
import type { ScheduledAction } from '../model/index.js';

export const DEFAULT_SLOT_S = 900;
const DAY_S = 86_400;

export interface PrescaleInput {
  /** The trace's rate, piecewise constant: ascending t_s from 0, each rate until the next row. */
  rows: readonly { t_s: number; rps: number }[];
  durationS: number;
  lambdaSafeRps: number;
  tPlanS: number;
  surgeRatio: number;
  /** Windows of the policy-only simulation outside the SLO: [startS, endS). */
  failedWindows: readonly { startS: number; endS: number }[];
  minInstances: number;
  maxInstances: number;
  /** Epoch ms of t = 0 (0: t = 0 is 00:00 UTC). */
  startEpochMs: number;
  /** @default 900 (15 min); divides a day */
  slotS?: number;
}

export interface PrescaleSlot {
  /** Time-of-day slot index (0 = 00:00 UTC). */
  slot: number;
  minCapacity: number;
}

/** The highest rate on [from, to) of a piecewise-constant trace. */
export function maxRateOver(
  rows: readonly { t_s: number; rps: number }[],
  durationS: number,
  from: number,
  to: number,
): number {
  let max = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as { t_s: number; rps: number };
    const end = i + 1 < rows.length ? (rows[i + 1] as { t_s: number }).t_s : durationS;
    if (row.t_s < to && end > from) max = Math.max(max, row.rps);
  }
  return max;
}

/**
 * The times at which the trace rises faster than the policy can follow: the start of a row whose
 * rate exceeds k x the rate of some row that began less than T_plan earlier (or that was still
 * running T_plan earlier).
 */
export function fastRises(
  rows: readonly { t_s: number; rps: number }[],
  durationS: number,
  tPlanS: number,
  surgeRatio: number,
): number[] {
  const out: number[] = [];
  for (let j = 1; j < rows.length; j++) {
    const row = rows[j] as { t_s: number; rps: number };
    // The lowest rate in the T_plan before this row starts.
    let lowest = Number.POSITIVE_INFINITY;
    for (let i = j - 1; i >= 0; i--) {
      const prev = rows[i] as { t_s: number; rps: number };
      const end = (rows[i + 1] as { t_s: number }).t_s;
      if (end <= row.t_s - tPlanS) break;
      lowest = Math.min(lowest, prev.rps);
    }
    if (row.t_s < durationS && row.rps > surgeRatio * lowest) out.push(row.t_s);
  }
  return out;
}

const ceilInstances = (rate: number, perInstance: number): number =>
  Math.ceil(Number((rate / perInstance).toFixed(9)));

/** The minimum capacity of each time-of-day slot that needs pre-scaling (ascending slot). */
export function prescaleSlots(input: PrescaleInput): PrescaleSlot[] {
  const slotS = input.slotS ?? DEFAULT_SLOT_S;
  const slotsPerDay = Math.round(DAY_S / slotS);
  const anchorS = (((input.startEpochMs / 1000) % DAY_S) + DAY_S) % DAY_S;
  const rises = fastRises(input.rows, input.durationS, input.tPlanS, input.surgeRatio);
  const bySlot = new Map<number, number>();
  if (!(input.lambdaSafeRps > 0)) return [];
  const first = Math.floor(anchorS / slotS);
  const last = Math.ceil((anchorS + input.durationS) / slotS);
  for (let j = first; j < last; j++) {
    const start = Math.max(0, j * slotS - anchorS);
    const end = Math.min(input.durationS, (j + 1) * slotS - anchorS);
    const reachEnd = end + input.tPlanS;
    const failed = input.failedWindows.some((w) => w.startS < reachEnd && w.endS > start);
    const rising = rises.some((t) => t >= start && t < reachEnd);
    if (!failed && !rising) continue;
    const need = ceilInstances(
      maxRateOver(input.rows, input.durationS, start, reachEnd),
      input.lambdaSafeRps,
    );
    const capacity = Math.min(input.maxInstances, Math.max(input.minInstances, need));
    if (capacity <= input.minInstances) continue;
    const slot = j % slotsPerDay;
    bySlot.set(slot, Math.max(bySlot.get(slot) ?? 0, capacity));
  }
  return [...bySlot.entries()]
    .sort(([a], [b]) => a - b)
    .map(([slot, minCapacity]) => ({ slot, minCapacity }));
}

const pad = (n: number): string => String(n).padStart(2, '0');

/** `cron(M H * * ? *)` at a second of the day (UTC). */
export function dailyCron(secondOfDay: number): string {
  const minutes = Math.floor(secondOfDay / 60);
  return `cron(${minutes % 60} ${Math.floor(minutes / 60)} * * ? *)`;
}

/**
 * The scheduled actions of pre-scaling: one per change of minimum capacity around the day (a
 * slot's value is its pre-scaled minimum, else the policy's). Named `prescale-HHMM`.
 */
export function scheduledActionsFor(input: PrescaleInput): ScheduledAction[] {
  const slotS = input.slotS ?? DEFAULT_SLOT_S;
  const slotsPerDay = Math.round(DAY_S / slotS);
  const slots = prescaleSlots(input);
  if (slots.length === 0) return [];
  const value = new Map(slots.map((s) => [s.slot, s.minCapacity]));
  const at = (slot: number): number =>
    value.get(((slot % slotsPerDay) + slotsPerDay) % slotsPerDay) ?? input.minInstances;
  const actions: ScheduledAction[] = [];
  for (let slot = 0; slot < slotsPerDay; slot++) {
    if (at(slot) === at(slot - 1)) continue;
    const second = slot * slotS;
    const minutes = Math.floor(second / 60);
    actions.push({
      name: `prescale-${pad(Math.floor(minutes / 60))}${pad(minutes % 60)}`,
      schedule: dailyCron(second),
      min_capacity: at(slot),
      max_capacity: input.maxInstances,
    });
  }
  return actions;
}
