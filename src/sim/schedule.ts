/**
 * When a policy's scheduled actions fire within a simulated run (in seconds from its start), by
 * their cron expressions in UTC.
 */
import type { ScheduledAction } from '../model/index.js';

export interface ScheduledFire {
  atS: number;
  name: string;
  min: number;
  max: number;
}

const CRON_DAILY = /^cron\((\d{1,2}) (\d{1,2}) \* \* \? \*\)$/;

export function scheduledFires(
  actions: readonly ScheduledAction[],
  startEpochMs: number,
  durationS: number,
): ScheduledFire[] {
  const fires: ScheduledFire[] = [];
  const dayMs = 86_400_000;
  /** The action that last fired before the start is in force at t = 0. */
  let inForce: (ScheduledFire & { atMs: number }) | undefined;
  for (const action of actions) {
    const m = CRON_DAILY.exec(action.schedule);
    if (!m) throw new RangeError(`scheduled action ${action.name}: unsupported schedule ${action.schedule}`);
    const offsetMs = (Number(m[2]) * 60 + Number(m[1])) * 60_000;
    const endMs = startEpochMs + durationS * 1000;
    for (let day = Math.floor(startEpochMs / dayMs) * dayMs - dayMs; day + offsetMs <= endMs; day += dayMs) {
      const at = day + offsetMs;
      if (at <= startEpochMs) {
        if (!inForce || at > inForce.atMs)
          inForce = { atS: 0, atMs: at, name: action.name, min: action.min_capacity, max: action.max_capacity };
        continue;
      }
      fires.push({ atS: (at - startEpochMs) / 1000, name: action.name, min: action.min_capacity, max: action.max_capacity });
    }
  }
  const sorted = fires.sort((a, b) => a.atS - b.atS);
  return inForce ? [{ atS: 0, name: inForce.name, min: inForce.min, max: inForce.max }, ...sorted] : sorted;
}
