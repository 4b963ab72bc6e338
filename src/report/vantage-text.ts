/** The vantage of a load (src/model/vantage.ts) in words: terminal reports and Markdown. */
import { type RequestShape, requestShapeLabel } from '../model/request-shape.js';
import type { RttFloorRecord, Vantage } from '../model/vantage.js';

/** The RTT floor beside the TTFAB figures: the part of first audio that is the network leg at least. */
export function rttFloorText(vantage: Vantage | undefined): string {
  if (!vantage) return 'not recorded';
  const rtt = vantage.rtt_floor;
  if (!rtt || rtt.tcp_ms === null) return rttFloorLabel(rtt);
  return `${rtt.tcp_ms.toFixed(1)} ms (measured: fastest of ${rtt.completed} TCP connects to ${rtt.target}${rtt.tls_ms === null ? '' : `; with TLS ${rtt.tls_ms.toFixed(1)} ms`})`;
}

/** One line: `github-hosted outside AWS, host fv-az123`; `not recorded` for an artifact written before. */
export function vantageLabel(vantage: Vantage | undefined): string {
  if (!vantage) return 'not recorded';
  const where = vantage.region
    ? `in ${vantage.region} (${vantage.region_source})`
    : vantage.runner === 'github-hosted'
      ? 'outside AWS'
      : 'region unknown';
  return `${vantage.runner} ${where}, host ${vantage.host}`;
}

export function rttFloorLabel(rtt: RttFloorRecord | null | undefined): string {
  if (rtt === undefined) return 'not recorded';
  if (rtt === null) return 'not measured';
  if (rtt.tcp_ms === null) return `not measured (${rtt.error ?? 'no handshake completed'})`;
  const tls = rtt.tls_ms === null ? '' : `, ${rtt.tls_ms.toFixed(1)} ms with TLS`;
  return `${rtt.tcp_ms.toFixed(1)} ms (measured: fastest TCP connect of ${rtt.completed} to ${rtt.target}${tls})`;
}

/** Where a load came from and what it sent: two report lines (`not recorded` for older artifacts). */
export function loadOriginLines(vantage: Vantage | undefined, request: RequestShape | undefined): string[] {
  return [
    `load from: ${vantageLabel(vantage)}; RTT floor ${rttFloorText(vantage)}`,
    `request: ${requestShapeLabel(request)}`,
  ];
}
