/**
 * Is the simulator the local SageMaker, faster? One drill on the local SageMaker against the same
 * drill simulated (same policy, device, start-up, arrival times): the instance counts second by
 * second, the scaling activities, and the per-window SLO verdicts.
 */
import type { DrillArtifact } from '../model/index.js';
import type { FleetSimResult } from './types.js';

export interface CountAgreement {
  seconds: number;
  /** Share of seconds whose counts differ by at most one instance. */
  withinOne: number;
  maxDifference: number;
}

export interface ActivityPair {
  to: number;
  emulatorS: number | null;
  simulatorS: number | null;
  differenceS: number | null;
}

export interface AgreementReport {
  desired: CountAgreement;
  inService: CountAgreement;
  activities: ActivityPair[];
  /** Largest |difference| of paired activity start times, s (null: none paired). */
  maxActivityDifferenceS: number | null;
  /** Activities only one side started. */
  unpairedActivities: number;
  windows: { compared: number; identical: number; share: number };
}

function counts(pairs: [number, number][]): CountAgreement {
  let within = 0;
  let max = 0;
  for (const [a, b] of pairs) {
    const d = Math.abs(a - b);
    if (d <= 1) within += 1;
    if (d > max) max = d;
  }
  return {
    seconds: pairs.length,
    withinOne: pairs.length === 0 ? 1 : within / pairs.length,
    maxDifference: max,
  };
}

export function compareDrillWithSimulation(drill: DrillArtifact, sim: FleetSimResult): AgreementReport {
  const observer = drill.observer;
  if (!observer) throw new RangeError('the drill has no observer record (shard 0 observes the endpoint)');
  // The emulator evaluates its alarms once a second at its own phase and the drill polls once a
  // second at another; the simulator ticks and records on whole seconds. A poll at t is compared
  // with the simulator's counts within one tick and one poll of it (t - 2 s .. t + 2 s), the closest.
  const bySecond = new Map(sim.timeline.map((s) => [s.t, s]));
  const closer = (
    observed: number,
    t: number,
    pick: (s: { desired: number; inService: number }) => number,
  ) => {
    const sides = [-2, -1, 0, 1, 2]
      .map((d) => bySecond.get(Math.floor(t) + d))
      .filter((s) => s !== undefined);
    if (sides.length === 0) return undefined;
    return sides.map(pick).sort((a, b) => Math.abs(a - observed) - Math.abs(b - observed))[0] as number;
  };
  const desired: [number, number][] = [];
  const inService: [number, number][] = [];
  for (const o of observer.observations) {
    if (o.t_s < 0) continue;
    const d = o.desired === null ? undefined : closer(o.desired, o.t_s, (s) => s.desired);
    if (o.desired !== null && d !== undefined) desired.push([o.desired, d]);
    const c = o.current === null ? undefined : closer(o.current, o.t_s, (s) => s.inService);
    if (o.current !== null && c !== undefined) inService.push([o.current, c]);
  }

  const emulated = observer.activities
    .filter((a) => a.start_s >= 0 && a.to_desired !== null && !/^Failed/i.test(a.status))
    .sort((a, b) => a.start_s - b.start_s);
  const simulated = [...sim.activities].sort((a, b) => a.atS - b.atS);
  const activities: ActivityPair[] = [];
  const n = Math.max(emulated.length, simulated.length);
  for (let k = 0; k < n; k++) {
    const e = emulated[k];
    const s = simulated[k];
    activities.push({
      to: (e?.to_desired ?? s?.to) as number,
      emulatorS: e ? e.start_s : null,
      simulatorS: s ? s.atS : null,
      differenceS: e && s ? Math.round((s.atS - e.start_s) * 1000) / 1000 : null,
    });
  }
  const paired = activities
    .filter((a) => a.differenceS !== null)
    .map((a) => Math.abs(a.differenceS as number));

  const simWindows = new Map(sim.windows.map((w) => [w.index, w]));
  let compared = 0;
  let identical = 0;
  for (const w of drill.analysis.windows) {
    if (w.slo_held === null || w.slo_held === undefined) continue;
    const s = simWindows.get(w.index);
    if (!s) continue;
    compared += 1;
    if (s.sloHeld === w.slo_held) identical += 1;
  }
  return {
    desired: counts(desired),
    inService: counts(inService),
    activities,
    maxActivityDifferenceS: paired.length === 0 ? null : Math.max(...paired),
    unpairedActivities: activities.length - paired.length,
    windows: { compared, identical, share: compared === 0 ? 1 : identical / compared },
  };
}
