/** A client-health judgement (src/stats/client-health.ts) as artifacts record it, and back. */
import type { ClientHealthRecord } from '../model/artifacts/client-health.js';
import { type ClientHealth, demoteUnhealthyPass } from '../stats/client-health.js';

const r3 = (v: number | null): number | null => (v === null ? null : Math.round(v * 1000) / 1000);

export const clientHealthRecord = (h: ClientHealth): ClientHealthRecord => ({
  wall_s: r3(h.wallS) as number,
  event_loop_delay_p99_ms: r3(h.eventLoopDelayP99Ms),
  cpu_share: r3(h.cpuShare),
  send_lag_p99_ms: r3(h.sendLagP99Ms),
  dropped_arrivals: h.droppedArrivals,
  healthy: h.healthy,
  reasons: h.reasons,
});

export const clientHealthOf = (r: ClientHealthRecord): ClientHealth => ({
  wallS: r.wall_s,
  eventLoopDelayP99Ms: r.event_loop_delay_p99_ms,
  cpuShare: r.cpu_share,
  sendLagP99Ms: r.send_lag_p99_ms,
  droppedArrivals: r.dropped_arrivals,
  healthy: r.healthy,
  reasons: r.reasons,
});

/** A judged rung with its client's health applied: a pass the client could not keep the schedule for is undecided. */
export function judgedWithClientHealth<T extends { verdict: 'pass' | 'fail' | 'undecided'; reason: string }>(
  judged: T,
  health: ClientHealth | null,
): T {
  const d = demoteUnhealthyPass(judged.verdict, judged.reason, health);
  return d.demoted ? { ...judged, verdict: d.verdict, reason: d.reason } : judged;
}
