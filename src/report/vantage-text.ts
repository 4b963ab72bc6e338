/** The vantage of a load (src/model/vantage.ts) in words: terminal reports and Markdown. */
import type { RttFloorRecord, Vantage } from '../model/vantage.js';

/** One line: `github-hosted runner (region unknown), host fv-az123, RTT floor 71.2 ms (measured, TCP connect to …)`. */
export function vantageLabel(vantage: Vantage | undefined): string {
  if (!vantage) return 'not recorded';
  const where = vantage.region
    ? `in ${vantage.region} (${vantage.region_source})`
    : vantage.runner === 'github-hosted'
      ? 'outside AWS'
      : 'region unknown';
  return `${vantage.runner} ${where}, host ${vantage.host}, RTT floor ${rttFloorLabel(vantage.rtt_floor)}`;
}

export function rttFloorLabel(rtt: RttFloorRecord | null | undefined): string {
  if (rtt === undefined) return 'not recorded';
  if (rtt === null) return 'not measured';
  if (rtt.tcp_ms === null) return `not measured (${rtt.error ?? 'no handshake completed'})`;
  const tls = rtt.tls_ms === null ? '' : `, ${rtt.tls_ms.toFixed(1)} ms with TLS`;
  return `${rtt.tcp_ms.toFixed(1)} ms (measured: fastest TCP connect of ${rtt.completed} to ${rtt.target}${tls})`;
}
