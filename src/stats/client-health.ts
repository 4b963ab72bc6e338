/**
 * The client is part of the measurement: a rung measured while the load generator could not keep
 * its schedule (its event loop ran late, its CPU was saturated, it sent late or dropped arrivals)
 * says as much about the client as about the server. Such a rung is undecided, never a pass,
 * and says why. A fail stays a fail: a late client only delays requests further, so a breach it
 * saw may be the client's doing, but a pass it saw cannot be trusted either way and a fail is
 * re-measured by the ladder like any breach. Pure; thresholds in docs/statistics.md.
 */

/** Open loop: the p99 of (actual send - scheduled send) above this share of the SLO. */
export const SEND_LAG_SLO_SHARE = 0.1;
/** The event loop's p99 lateness (timer delay beyond its resolution) above this, ms. */
export const EVENT_LOOP_DELAY_P99_MS = 100;
/** The client process's CPU (user + system) above this share of one core over the rung. */
export const CPU_SHARE_OF_CORE = 0.9;

/** What the client did during one rung (one shard's process). null: not measured. */
export interface ClientHealthSample {
  /** Wall time the sample covers, seconds. */
  wallS: number;
  /** p99 of the event loop's lateness beyond the sampler's resolution, ms. */
  eventLoopDelayP99Ms: number | null;
  /** (user + system CPU time) / wall time: 1 is one core busy all the time. */
  cpuShare: number | null;
  /** Open loop: p99 of actual minus scheduled send time, ms (null: closed loop). */
  sendLagP99Ms: number | null;
  /** Open loop: arrivals the client dropped (its outstanding cap was reached); null: closed loop. */
  droppedArrivals: number | null;
}

export interface ClientHealth extends ClientHealthSample {
  healthy: boolean;
  /** Why not, one clause each (empty when healthy). */
  reasons: string[];
}

/** Judges one sample against the thresholds. */
export function judgeClientHealth(sample: ClientHealthSample, sloMs: number): ClientHealth {
  const reasons: string[] = [];
  const fmt = (v: number) => v.toFixed(1);
  if (sample.sendLagP99Ms !== null && sample.sendLagP99Ms > SEND_LAG_SLO_SHARE * sloMs) {
    reasons.push(
      `send lag p99 ${fmt(sample.sendLagP99Ms)} ms > ${SEND_LAG_SLO_SHARE * 100} % of the ${sloMs} ms SLO`,
    );
  }
  if (sample.eventLoopDelayP99Ms !== null && sample.eventLoopDelayP99Ms > EVENT_LOOP_DELAY_P99_MS) {
    reasons.push(
      `client event-loop delay p99 ${fmt(sample.eventLoopDelayP99Ms)} ms > ${EVENT_LOOP_DELAY_P99_MS} ms`,
    );
  }
  if (sample.cpuShare !== null && sample.cpuShare > CPU_SHARE_OF_CORE) {
    reasons.push(`client CPU ${fmt(sample.cpuShare * 100)} % of one core > ${CPU_SHARE_OF_CORE * 100} %`);
  }
  if (sample.droppedArrivals !== null && sample.droppedArrivals > 0) {
    reasons.push(`the client dropped ${sample.droppedArrivals} arrivals (its outstanding cap was reached)`);
  }
  return { ...sample, healthy: reasons.length === 0, reasons };
}

/** Several shards' health as one: unhealthy when any shard was, with each shard's reasons. */
export function combineClientHealth(shards: ReadonlyArray<ClientHealth | null>): ClientHealth | null {
  const known = shards.filter((h): h is ClientHealth => h !== null);
  if (known.length === 0) return null;
  const max = (pick: (h: ClientHealth) => number | null): number | null => {
    const values = known.map(pick).filter((v): v is number => v !== null);
    return values.length === 0 ? null : Math.max(...values);
  };
  const dropped = known.map((h) => h.droppedArrivals).filter((v): v is number => v !== null);
  const reasons = shards.flatMap((h, i) =>
    h === null ? [] : h.reasons.map((r) => (shards.length > 1 ? `shard ${i}: ${r}` : r)),
  );
  return {
    wallS: max((h) => h.wallS) ?? 0,
    eventLoopDelayP99Ms: max((h) => h.eventLoopDelayP99Ms),
    cpuShare: max((h) => h.cpuShare),
    sendLagP99Ms: max((h) => h.sendLagP99Ms),
    droppedArrivals: dropped.length === 0 ? null : dropped.reduce((a, b) => a + b, 0),
    healthy: reasons.length === 0,
    reasons,
  };
}

/**
 * A decided PASS measured by an unhealthy client becomes undecided, saying why; any other verdict
 * is kept (unknown health, null, changes nothing).
 */
export function demoteUnhealthyPass<V extends string>(
  verdict: V | 'pass',
  reason: string,
  health: ClientHealth | null,
): { verdict: V | 'pass' | 'undecided'; reason: string; demoted: boolean } {
  if (verdict !== 'pass' || health === null || health.healthy) return { verdict, reason, demoted: false };
  return {
    verdict: 'undecided',
    reason: `undecided, not pass: the client could not keep its schedule (${health.reasons.join('; ')}); the interval said: ${reason}`,
    demoted: true,
  };
}
