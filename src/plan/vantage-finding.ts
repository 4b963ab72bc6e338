/**
 * The `measurement_vantage` finding: where the ladder's load came from against where the endpoint
 * is. Every TTFAB measured from a machine outside the endpoint's region carries the network leg
 * between them (for a GitHub-hosted runner, the internet); the RTT floor measured at the start of
 * the run says how much of first audio that leg is at least. Old artifacts without a vantage: not
 * evaluated (suppressed), never a pass.
 */
import { type Finding, isSageMakerTransport, LOCAL_REGION, type QmaxArtifact } from '../model/index.js';
import { remeasure } from './remeasure.js';

const NAME = 'measurement_vantage';

function floorText(qmax: QmaxArtifact, ttfabC1Ms: number | null): string {
  const rtt = qmax.vantage?.rtt_floor;
  if (!rtt) return 'RTT floor not measured';
  if (rtt.tcp_ms === null) return `RTT floor not measured (${rtt.error ?? 'no handshake completed'})`;
  const share =
    ttfabC1Ms !== null && ttfabC1Ms > 0
      ? ` = ${((rtt.tcp_ms / ttfabC1Ms) * 100).toFixed(1)} % of TTFAB p95 at concurrency 1 (${ttfabC1Ms.toFixed(1)} ms)`
      : '';
  return `RTT floor ${rtt.tcp_ms.toFixed(1)} ms (measured, to ${rtt.target})${share}`;
}

export function measurementVantage(model: string, qmax: QmaxArtifact, ttfabC1Ms: number | null): Finding {
  const v = qmax.vantage;
  if (!v) {
    return {
      name: NAME,
      verdict: 'suppressed',
      detail:
        'vantage not recorded (the qmax was measured before scalegate recorded where the load came from)',
      fix: `re-measure to record it: ${remeasure('qmax', model)}`,
    };
  }
  const endpointRegion = qmax.fingerprint.region;
  const from = `load from a ${v.runner} machine (${v.host})`;
  const floor = floorText(qmax, ttfabC1Ms);
  if (endpointRegion === null && isSageMakerTransport(qmax.transport)) {
    return {
      name: NAME,
      verdict: 'suppressed',
      detail: `${from}; the endpoint's region is not recorded, so the two cannot be compared; ${floor}`,
      fix: `re-measure (current measurements record their region): ${remeasure('qmax', model)}`,
    };
  }
  if (!isSageMakerTransport(qmax.transport) || endpointRegion === LOCAL_REGION) {
    const what = isSageMakerTransport(qmax.transport)
      ? 'the local SageMaker'
      : 'a container measured directly';
    return { name: NAME, verdict: 'ok', detail: `${from} to ${what}; ${floor}`, fix: null };
  }
  const fix = `calibrate from a runner in ${endpointRegion} (self-hosted or AWS CodeBuild-hosted: the calibrate workflow's runs-on input, docs/vantage.md), or declare the runner's region with SCALEGATE_VANTAGE_REGION if it is in ${endpointRegion}`;
  if (v.region === null) {
    return {
      name: NAME,
      verdict: 'warn',
      detail: `${from}, region unknown, for an endpoint in ${endpointRegion}: every TTFAB includes the network leg to ${endpointRegion}; ${floor}`,
      fix,
    };
  }
  if (v.region !== endpointRegion) {
    return {
      name: NAME,
      verdict: 'warn',
      detail: `${from} in ${v.region} (${v.region_source}), the endpoint is in ${endpointRegion}: every TTFAB includes the leg between the regions; ${floor}`,
      fix,
    };
  }
  return {
    name: NAME,
    verdict: 'ok',
    detail: `${from} in ${v.region} (${v.region_source}), the endpoint's region; ${floor}`,
    fix: null,
  };
}
