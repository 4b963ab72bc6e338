/**
 * An emulated accelerator derived from a real measurement: the profile the local SageMaker's
 * instances run (`--device <qmax artifact>`), and the start-up they replay (`--startup <ttotal
 * artifact>`). Pure: artifacts in, plain objects out.
 *
 * The device model: `lanes` identical lanes fed from one FIFO; a request holds a lane for a
 * service time S drawn from a log-normal distribution (mean `service_mean_ms`, shape
 * `service_sigma`), and its first audio byte leaves `first_audio_fraction` of the way through S.
 * Everything outside the device (client, network, the SageMaker front end) is a fixed per-request
 * share d. With N requests kept in flight (closed loop) that gives the throughput curve
 * X(N) = min(N / (E[S] + d), lanes / E[S]): rising while lanes are idle, flat once they are all busy.
 *
 * Derivation from the usable rungs of a qmax ladder (rungs measured at one concurrency in several
 * runs are combined by their median):
 *
 * 1. Plateau throughput X_sat: the median throughput of the rungs within 5 % of the highest one
 *    (the lanes all busy).
 * 2. Lanes: at the lowest rung c0 (concurrency 1 on a standard ladder), each request runs alone:
 *    X(c0) = c0 / (E[S] + d), so X_sat / (X(c0) / c0) = lanes * (1 + d / E[S]) >= lanes.
 *    lanes = floor(that ratio + 0.1): a flat curve (ratio near 1) is a serial device; a rising
 *    one a parallel device, the client share d rounded away (it is a few % of S on a GPU server;
 *    the 0.1 absorbs throughput noise). When c0 is itself on the plateau, the ratio is c0 and the
 *    lanes are only bounded by it (`lanes_identified` false).
 * 3. Mean service time: E[S] = lanes / X_sat (each lane busy all the time on the plateau). This is
 *    S at concurrency 1 minus the client/network share: d = c0 / X(c0) - E[S] (reported).
 * 4. Spread: at c0 the TTFAB is S (or its first part) plus d; d is taken as constant, so the p95 -
 *    p50 spread of TTFAB at c0 is the spread of S (per service time: divided by sqrt(k) when c0 > lanes
 *    stacks k = c0 / lanes services). `service_sigma` is the log-normal shape with mean E[S] and that
 *    p95 - p50.
 * 5. First audio: TTFAB p95 / whole-response latency p95 at c0. At 0.95 or more the model emits
 *    the whole utterance at the end of its service (non-autoregressive: Kokoro) and the fraction is
 *    1; below, it streams after a first chunk at that share of S.
 *
 * The committed Kokoro-82M ml.g5.xlarge ladder gives: X_sat 17.9 requests/s, X(1) 16.08, ratio 1.11
 * -> 1 lane, E[S] 55.9 ms, d 6.3 ms, sigma 0.056, first audio with the last byte.
 *
 * A time scale F (applied by the emulator) multiplies S and every start-up time: throughput / F.
 */
import type { QmaxArtifact, QmaxStep, TtotalArtifact } from '../model/artifacts.js';
import { UsageError } from '../model/errors.js';

/** What one emulated instance's device is (the local SageMaker's DeviceProfile, same shape). */
export interface DeviceProfile {
  source: string;
  lanes: number;
  service_mean_ms: number;
  service_sigma: number;
  first_audio_fraction: number;
  /**
   * A streaming device (a device profile file, never derived from a ladder): audio produced
   * chunk-wise at real-time factor `rtf`, k active streams each k times slower under 'processor'
   * sharing. The derivation above and the fleet simulator read only the fields before it.
   */
  streaming?: StreamingDevice;
}

/** The local SageMaker's StreamingDevice, same shape. */
export interface StreamingDevice {
  rtf: number;
  chunk_audio_ms: number;
  sharing: 'processor' | 'lanes';
}

/** A measured instance start-up to replay (the local SageMaker's StartupProfile, same shape). */
export interface StartupProfile {
  source: string;
  provision_s: number;
  framework_init_s: number;
  weights_ready_s: number;
  warmup_done_s: number;
  ready_s: number;
  in_service_after_ready_s: number;
}

export interface DeviceDerivation {
  profile: DeviceProfile;
  instance_type: string;
  /** Concurrencies of the usable rungs the derivation read. */
  rungs: number[];
  lowest_rung: number;
  x_lowest_rps: number;
  plateau_rungs: number[];
  x_plateau_rps: number;
  /** X_sat / (X(c0) / c0): lanes * (1 + d / E[S]). */
  lanes_ratio: number;
  /** false when the lowest rung was already on the plateau: lanes is then an upper bound. */
  lanes_identified: boolean;
  /** d = c0 / X(c0) - E[S]: the client/network share per request (null when not identified). */
  client_share_ms: number | null;
  ttfab_spread_ms: number;
  emits: 'after_utterance' | 'streaming';
}

/** A rung the derivation can read: usable, completed requests, throughput and TTFAB p50/p95. */
const readable = (s: QmaxStep): boolean =>
  s.usable && s.ok > 0 && s.achieved_rps > 0 && s.ttfab_p50_ms !== null && s.ttfab_p95_ms !== null;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

interface Rung {
  concurrency: number;
  rps: number;
  p50: number;
  p95: number;
  latencyP95: number | null;
}

function rungsOf(steps: QmaxStep[]): Rung[] {
  const by = new Map<number, QmaxStep[]>();
  for (const s of steps.filter(readable)) by.set(s.concurrency, [...(by.get(s.concurrency) ?? []), s]);
  return [...by.entries()]
    .sort(([a], [b]) => a - b)
    .map(([concurrency, group]) => {
      const latencies = group.flatMap((s) => (s.latency_p95_ms === null ? [] : [s.latency_p95_ms]));
      return {
        concurrency,
        rps: median(group.map((s) => s.achieved_rps)),
        p50: median(group.map((s) => s.ttfab_p50_ms as number)),
        p95: median(group.map((s) => s.ttfab_p95_ms as number)),
        latencyP95: latencies.length > 0 ? median(latencies) : null,
      };
    });
}

const Z95 = 1.6448536269514722;

/**
 * The log-normal shape whose p95 - p50 is `spreadMs` at mean `meanMs`:
 * mean * exp(-s^2/2) * (exp(z95 s) - 1) = spread, increasing in s on [0, 1.5] (bisection).
 */
export function lognormalSigmaForSpread(meanMs: number, spreadMs: number): number {
  if (!(spreadMs > 0)) return 0;
  const spreadAt = (s: number) => meanMs * Math.exp((-s * s) / 2) * (Math.exp(Z95 * s) - 1);
  let low = 0;
  let high = 1.5;
  if (spreadAt(high) <= spreadMs) return high;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (spreadAt(mid) < spreadMs) low = mid;
    else high = mid;
  }
  return (low + high) / 2;
}

/** Share of X_max within which a rung counts as on the plateau. */
const PLATEAU = 0.95;
/** TTFAB / latency at or above which the model emits the whole utterance at the end. */
const AFTER_UTTERANCE = 0.95;

/**
 * The device of one instance, from a qmax artifact. `label` names the input in errors (e.g.
 * `--device artifacts/qmax-....json`); a ladder without a usable rung is a UsageError.
 */
export function deriveDeviceProfile(qmax: QmaxArtifact, label: string): DeviceDerivation {
  const rungs = rungsOf(qmax.steps);
  const lowest = rungs[0];
  if (!lowest) {
    throw new UsageError(
      `${label}: no usable rung to derive a device from (a rung needs usable=true, completed requests, a throughput and TTFAB p50/p95; ${qmax.steps.length} step(s), none qualifies). Pass a qmax artifact with at least one usable rung, e.g. from \`scalegate qmax --ladder fixed\`.`,
    );
  }
  const xMax = Math.max(...rungs.map((r) => r.rps));
  const plateau = rungs.filter((r) => r.rps >= PLATEAU * xMax);
  const xSat = median(plateau.map((r) => r.rps));
  const c0 = lowest.concurrency;
  const lanesRatio = (xSat * c0) / lowest.rps;
  const lanes = Math.max(1, Math.floor(lanesRatio + 0.1));
  const lanesIdentified = c0 === 1 || lowest.rps < PLATEAU * xMax;
  const serviceMeanMs = (1000 * lanes) / xSat;
  const clientShareMs = c0 <= lanes ? (1000 * c0) / lowest.rps - serviceMeanMs : null;
  const spreadMs = Math.max(0, lowest.p95 - lowest.p50);
  const stacked = Math.max(1, c0 / lanes);
  const sigma = lognormalSigmaForSpread(serviceMeanMs, spreadMs / Math.sqrt(stacked));
  const ratio = lowest.latencyP95 && lowest.latencyP95 > 0 ? lowest.p95 / lowest.latencyP95 : 1;
  const afterUtterance = ratio >= AFTER_UTTERANCE;
  const instanceType = qmax.fingerprint.instance_type;
  return {
    profile: {
      source: `${qmax.model_name} ${instanceType} qmax ${qmax.run_id}`,
      lanes,
      service_mean_ms: serviceMeanMs,
      service_sigma: sigma,
      first_audio_fraction: afterUtterance ? 1 : Math.max(0.01, Math.min(1, ratio)),
    },
    instance_type: instanceType,
    rungs: rungs.map((r) => r.concurrency),
    lowest_rung: c0,
    x_lowest_rps: lowest.rps,
    plateau_rungs: plateau.map((r) => r.concurrency),
    x_plateau_rps: xSat,
    lanes_ratio: lanesRatio,
    lanes_identified: lanesIdentified,
    client_share_ms: clientShareMs,
    ttfab_spread_ms: spreadMs,
    emits: afterUtterance ? 'after_utterance' : 'streaming',
  };
}

/**
 * The start-up of one new instance, from a ttotal artifact's timeline: provisioning (capacity
 * request to container start), the container's stage markers (elapsed since its start), and the
 * wait from ready to in service. Stages a timeline lacks take the time of the next one it has.
 */
export function deriveStartupProfile(ttotal: TtotalArtifact, label: string): StartupProfile {
  const at = new Map<string, number>();
  for (const t of ttotal.timeline) at.set(t.stage, Date.parse(t.at));
  const need = (stage: string, alternatives: string[] = []): number => {
    for (const name of [stage, ...alternatives]) {
      const ms = at.get(name);
      if (ms !== undefined && Number.isFinite(ms)) return ms;
    }
    throw new UsageError(
      `${label}: the scale-out timeline has no ${[stage, ...alternatives].join(' or ')} stage (stages: ${[...at.keys()].join(', ') || 'none'}), so its start-up cannot be replayed. Pass a ttotal artifact whose scale-out reached in_service, e.g. from \`scalegate ttotal\`.`,
    );
  };
  const desired = need('desired_set');
  const started = need('container_started', ['instance_logging']);
  const ready = need('ready', ['warmup_done']);
  const inService = need('in_service');
  const stage = (name: string, fallback: number) =>
    Math.max(0, ((at.get(name) ?? fallback) - started) / 1000);
  const readyS = stage('ready', ready);
  const warmupS = Math.min(stage('warmup_done', ready), readyS);
  const weightsS = Math.min(stage('weights_ready', ready), warmupS);
  const frameworkS = Math.min(stage('framework_init', ready), weightsS);
  const provisionS = (started - desired) / 1000;
  const afterReadyS = (inService - ready) / 1000;
  if (!(provisionS >= 0) || !(afterReadyS >= 0)) {
    throw new UsageError(
      `${label}: the scale-out timeline is out of order (container start ${provisionS.toFixed(3)} s after desired_set, in_service ${afterReadyS.toFixed(3)} s after ready). Pass a ttotal artifact with a consistent timeline.`,
    );
  }
  return {
    source: `${ttotal.model_name} ${ttotal.fingerprint.instance_type} ttotal ${ttotal.run_id}`,
    provision_s: provisionS,
    framework_init_s: frameworkS,
    weights_ready_s: weightsS,
    warmup_done_s: warmupS,
    ready_s: readyS,
    in_service_after_ready_s: afterReadyS,
  };
}
