/**
 * A stand-in for the fleet simulator with the same interface (FleetSimInput -> FleetSimResult),
 * for tests of what tune does with scores: capacity ceil(rate / per-instance rate) second by
 * second (at least the policy's minimum), and an attainment that falls as the target rises and
 * improves with a higher minimum, a step scale-out or scheduled actions, never above 0.999 (the
 * windows outside the SLO come first). Deterministic; not a model of a fleet.
 */
import type { FleetSimInput, FleetSimResult } from '../../src/sim/types.js';

export function toyAttainment(input: FleetSimInput): number {
  if (input.fleet.kind === 'perfect') return 1;
  const p = input.fleet.policy;
  const perInstance = p.metric === 'ConcurrentRequestsPerModel' ? p.targetValue * 2 : p.targetValue / 60;
  const bonus =
    0.001 * (p.minInstances - 1) + (p.stepScaleOut ? 0.001 : 0) + (p.scheduledActions.length > 0 ? 0.003 : 0);
  return Math.max(0, Math.min(0.999, 1.004 - 0.001 * perInstance + bonus));
}

export function toySimulate(input: FleetSimInput): FleetSimResult {
  const arrivals = input.arrivals;
  if (arrivals.kind !== 'rate') throw new Error('toy simulator: rate traces only');
  const perInstance =
    input.fleet.kind === 'perfect'
      ? input.fleet.ratePerInstance
      : input.fleet.policy.metric === 'ConcurrentRequestsPerModel'
        ? input.fleet.policy.targetValue * 2
        : input.fleet.policy.targetValue / 60;
  const min = input.fleet.kind === 'perfect' ? 0 : input.fleet.policy.minInstances;
  const rateAt = (t: number): number => {
    let r = 0;
    for (const row of arrivals.rows) if (row.t_s <= t) r = row.rps;
    return r;
  };
  let instanceSeconds = 0;
  let peak = 0;
  let requests = 0;
  for (let t = 0; t < arrivals.durationS; t++) {
    const rate = rateAt(t);
    const n = Math.max(min, Math.ceil(rate / perInstance));
    instanceSeconds += n;
    peak = Math.max(peak, n);
    requests += rate;
  }
  const windowS = input.windowS ?? 10;
  const count = Math.floor(arrivals.durationS / windowS);
  const attainment = toyAttainment(input);
  const failing = Math.ceil((1 - attainment) * count - 1e-9);
  const windows = Array.from({ length: count }, (_, i) => ({
    index: i,
    startS: i * windowS,
    offered: 10,
    ok: 10,
    overflow: 0,
    p95Ms: 100,
    withinSloFraction: 1,
    sloHeld: i >= failing,
  }));
  return {
    windows,
    sloAttainment: attainment,
    requestAttainment: attainment,
    requests: Math.round(requests),
    overflows: 0,
    instanceHours: instanceSeconds / 3600,
    peakInstances: peak,
    p95TtfabMs: 100,
    timeline: [],
    activities: [],
    alarmTransitions: [],
  };
}
