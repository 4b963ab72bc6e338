/**
 * `scalegate ttotal`: time one real scale-out, stage by stage (DESIGN.md, "ttotal").
 *
 * Preflight (nothing changes until it passes; each refusal is exit 2 with what to do): the qmax
 * artifact is for this model, was measured over the transport ttotal probes with, has usable
 * rungs at the probe concurrency N and N/2, and its fingerprint equals the live endpoint's (or
 * --allow-config-mismatch, which warns and is recorded); the instance quota has room for one
 * more instance. Then the endpoint is frozen at one instance (src/commands/freeze.ts: journal
 * first), a closed-loop probe runs at N (src/load), and one more instance is forced
 * (UpdateEndpointWeightsAndCapacities). The stages are timestamped from the call, the new
 * instance's log stream and its container's stage markers, DescribeEndpoint polls and the
 * probe's own latencies. The freeze is always restored (desired count and suspension flags as
 * they were before the run), whatever happens.
 *
 * T_total runs from `desired_set` (the call) to `traffic_recovered` (the first recovery window).
 */
import { join } from 'node:path';
import type { AwsClients } from '../aws/clients.js';
import { describeVariantCapacity, setDesiredInstanceCount, type VariantCapacity } from '../aws/endpoint.js';
import { readDeployedFingerprint } from '../aws/fingerprint.js';
import { type LogStreamInfo, listVariantLogStreams, readLogStream } from '../aws/logs.js';
import { readScaleOutAlarmTimings, type ScaleOutAlarmTiming } from '../aws/policy.js';
import { countEndpointInstances, findEndpointUsageQuota } from '../aws/quotas.js';
import { ClosedLoopEngine, wallOf } from '../load/engine.js';
import { defaultPromptSet, encodePrompts } from '../load/prompts.js';
import { createLoadRuntimeClient, createResponseStreamTransport } from '../load/response-stream-transport.js';
import type { RequestRecord, Transport } from '../load/types.js';
import {
  DEFAULT_ARTIFACTS_DIR,
  fingerprintDifferences,
  type ModelConfig,
  newRunId,
  type QmaxArtifact,
  readArtifact,
  type Transport as TransportKind,
  type TtotalArtifact,
  ttotalFileName,
  ttotalStageNames,
  UsageError,
  writeArtifact,
} from '../model/index.js';
import { renderTtotalFailure, renderTtotalReport } from '../report/ttotal-text.js';
import { quantileWithMisses } from '../stats/ladder-stats.js';
import { sortedAscending } from '../stats/quantiles.js';
import { awsFreezeAdapters, type Freeze, freezeEndpoint, type RestoreReport } from './freeze.js';
import type { CommandResult } from './result.js';

// ---- settings -----------------------------------------------------------------------------------

export const TTOTAL_DEFAULTS = {
  /** Length of the recovery window (the issue's 60 s). */
  settleS: 60,
  pollS: 5,
  maxWaitS: 1800,
  /** Completions a recovery window needs before its p95 is believed. */
  minWindowSamples: 20,
  /** The recovered p95 may be this much above the ladder's p95 at N/2. */
  recoveryFactor: 1.25,
  /** Without a deployed scale-out policy the detection lag is bounded, not measured. */
  policyLagBoundS: 60,
  requestTimeoutMs: 60_000,
} as const;

/** What ttotal probes over: through the endpoint, so the router can split the probe. */
export const TTOTAL_TRANSPORT: TransportKind = 'response-stream';

export const TRIGGER = 'force-desired';

// ---- pure analysis ------------------------------------------------------------------------------

export const MARKER_STAGES = [
  'container_start',
  'framework_init',
  'weights_ready',
  'warmup_done',
  'ready',
] as const;
export type MarkerStage = (typeof MARKER_STAGES)[number];

export interface StageMarker {
  stage: MarkerStage;
  atMs: number;
  elapsedS: number;
}

const MARKER = /=== STAGE ([a-z_]+) t=(\S+) elapsed_s=(-?[0-9]+(?:\.[0-9]+)?) ===/;

/** `=== STAGE <name> t=<ISO>Z elapsed_s=<s> ===` -> the marker; null for any other line. */
export function parseStageMarker(message: string): StageMarker | null {
  const m = MARKER.exec(message);
  if (!m) return null;
  const stage = m[1] as string;
  if (!(MARKER_STAGES as readonly string[]).includes(stage)) return null;
  const atMs = Date.parse(m[2] as string);
  if (!Number.isFinite(atMs)) return null;
  return { stage: stage as MarkerStage, atMs, elapsedS: Number(m[3]) };
}

/** The first marker of each stage, in the order they appear. */
export function stageMarkers(messages: readonly string[]): StageMarker[] {
  const seen = new Map<MarkerStage, StageMarker>();
  for (const message of messages) {
    const marker = parseStageMarker(message);
    if (marker && !seen.has(marker.stage)) seen.set(marker.stage, marker);
  }
  return [...seen.values()];
}

/** Timeline stage of each marker: the contract's `container_start` is the timeline's `container_started`. */
const TIMELINE_STAGE_OF: Record<MarkerStage, string> = {
  container_start: 'container_started',
  framework_init: 'framework_init',
  weights_ready: 'weights_ready',
  warmup_done: 'warmup_done',
  ready: 'ready',
};

/** The stages in the order they happen (the artifact schema's list). */
export const TIMELINE_ORDER = ttotalStageNames;

export interface RecoveryWindow {
  startMs: number;
  windowS: number;
  samples: number;
  p95Ms: number;
  targetMs: number;
}

export interface StageObservations {
  loadAppliedMs: number;
  desiredSetMs: number;
  /** The new instance's log stream (first event), null when none appeared. */
  instanceLogging: { stream: string; firstEventMs: number } | null;
  markers: readonly StageMarker[];
  inService: { atMs: number; previousPollMs: number; pollS: number } | null;
  recovered: RecoveryWindow | null;
}

type TimelineEntry = TtotalArtifact['timeline'][number];
type DurationEntry = TtotalArtifact['durations'][number];

export interface TimelineAnalysis {
  timeline: TimelineEntry[];
  durations: DurationEntry[];
  dominant: TtotalArtifact['dominant_stage'];
  missing: string[];
  /** null when there is no end stage (the instance never served). */
  tTotalS: number | null;
  endStage: 'traffic_recovered' | 'in_service' | null;
  notes: string[];
}

const iso = (ms: number): string => new Date(ms).toISOString();
const round3 = (s: number): number => Math.round(s * 1000) / 1000;

/**
 * Timeline, durations (consecutive observed stages in contract order), shares of T_total (only
 * for durations inside [desired_set, end]), the dominant stage, missing stages and notes. Pure.
 */
export function analyseTimeline(obs: StageObservations): TimelineAnalysis {
  const notes: string[] = [];
  const entries = new Map<string, TimelineEntry>();
  entries.set('load_applied', {
    stage: 'load_applied',
    at: iso(obs.loadAppliedMs),
    source: 'probe start',
    bounded: false,
    note: 'probe established before the trigger; not the start of the clock',
  });
  entries.set('desired_set', {
    stage: 'desired_set',
    at: iso(obs.desiredSetMs),
    source: 'UpdateEndpointWeightsAndCapacities call',
    bounded: false,
    note: 'the clock starts here',
  });
  if (obs.instanceLogging) {
    entries.set('instance_logging', {
      stage: 'instance_logging',
      at: iso(obs.instanceLogging.firstEventMs),
      source: `log stream ${obs.instanceLogging.stream} firstEventTimestamp`,
      bounded: true,
      note: 'upper bound on provisioning plus image pull, which a container cannot time itself',
    });
  }
  const missing: string[] = [];
  const byStage = new Map(obs.markers.map((m) => [m.stage, m]));
  for (const stage of MARKER_STAGES) {
    const marker = byStage.get(stage);
    const name = TIMELINE_STAGE_OF[stage];
    if (marker) {
      entries.set(name, {
        stage: name,
        at: iso(marker.atMs),
        source: `container log marker (elapsed_s=${marker.elapsedS.toFixed(3)})`,
        bounded: false,
        note: null,
      });
    } else {
      missing.push(name);
    }
  }
  if (!byStage.has('container_start')) {
    const first = MARKER_STAGES.map((s) => byStage.get(s)).find((m): m is StageMarker => m !== undefined);
    if (first) {
      entries.set('container_started', {
        stage: 'container_started',
        at: iso(first.atMs - first.elapsedS * 1000),
        source: 'derived from elapsed_s',
        bounded: true,
        note: `reconstructed as ${first.stage} minus its elapsed_s=${first.elapsedS.toFixed(3)}s; no container_start line was in the stream`,
      });
      notes.push(
        `the container_start marker is missing; container_started is reconstructed from ${first.stage} (labelled bounded)`,
      );
    }
  }
  if (obs.inService) {
    entries.set('in_service', {
      stage: 'in_service',
      at: iso(obs.inService.atMs),
      source: 'DescribeEndpoint CurrentInstanceCount',
      bounded: true,
      note: `first poll that reported the extra instance; it arrived after the previous poll at ${iso(obs.inService.previousPollMs)} (poll interval ${obs.inService.pollS} s is the bound)`,
    });
  } else {
    missing.push('in_service');
  }
  if (obs.recovered) {
    const r = obs.recovered;
    entries.set('traffic_recovered', {
      stage: 'traffic_recovered',
      at: iso(r.startMs),
      source: 'client-side p95 recovery',
      bounded: true,
      note: `probe p95 TTFAB ${Math.round(r.p95Ms)} ms held at or under ${Math.round(r.targetMs)} ms across ${r.samples} completions in the following ${r.windowS} s window`,
    });
  } else {
    missing.push('traffic_recovered');
  }
  if (!obs.instanceLogging) missing.splice(0, 0, 'instance_logging');

  const timeline = TIMELINE_ORDER.map((s) => entries.get(s)).filter(
    (e): e is TimelineEntry => e !== undefined,
  );
  const endStage = entries.has('traffic_recovered')
    ? 'traffic_recovered'
    : entries.has('in_service')
      ? 'in_service'
      : null;
  const endIndex = endStage ? TIMELINE_ORDER.indexOf(endStage) : -1;
  const startIndex = TIMELINE_ORDER.indexOf('desired_set');
  const ms = (e: TimelineEntry): number => Date.parse(e.at);
  const tTotalS = endStage
    ? round3((ms(entries.get(endStage) as TimelineEntry) - obs.desiredSetMs) / 1000)
    : null;

  const durations: DurationEntry[] = [];
  for (let i = 1; i < timeline.length; i++) {
    const from = timeline[i - 1] as TimelineEntry;
    const to = timeline[i] as TimelineEntry;
    let seconds = round3((ms(to) - ms(from)) / 1000);
    if (seconds < 0) {
      notes.push(
        from.stage === 'instance_logging'
          ? `${to.stage} (the container's own clock) is ${Math.abs(seconds)} s before instance_logging (when CloudWatch Logs received the stream's first line, an upper bound); counted as 0`
          : `${to.stage} is stamped ${Math.abs(seconds)} s before ${from.stage} (different clocks); counted as 0`,
      );
      seconds = 0;
    }
    const fromIndex = TIMELINE_ORDER.indexOf(from.stage as (typeof TIMELINE_ORDER)[number]);
    const toIndex = TIMELINE_ORDER.indexOf(to.stage as (typeof TIMELINE_ORDER)[number]);
    const inside = tTotalS !== null && tTotalS > 0 && fromIndex >= startIndex && toIndex <= endIndex;
    durations.push({
      from: from.stage,
      to: to.stage,
      seconds,
      bounded: from.bounded || to.bounded,
      share: inside ? Math.round((seconds / (tTotalS as number)) * 10_000) / 10_000 : null,
    });
  }
  const insideDurations = durations.filter((d) => d.share !== null);
  const top = insideDurations.reduce<DurationEntry | null>(
    (best, d) => (best === null || d.seconds > best.seconds ? d : best),
    null,
  );
  if (endStage === 'in_service') {
    notes.push(
      'traffic did not recover within the wait: T_total ends at in_service and is a lower bound (the instance was reported in service, but the probe p95 never fell to the target)',
    );
  }
  return {
    timeline,
    durations,
    dominant: top ? { from: top.from, to: top.to, seconds: top.seconds } : null,
    missing,
    tTotalS,
    endStage,
    notes,
  };
}

export interface ProbeSample {
  dispatchMs: number;
  endMs: number;
  /** TTFAB, or +Infinity for a request that got no audio (it certainly missed any target). */
  ttfabMs: number;
}

export function probeSample(record: RequestRecord): ProbeSample {
  return {
    dispatchMs: wallOf(record.dispatchedAt),
    endMs: wallOf(record.endedAt ?? record.dispatchedAt),
    ttfabMs: record.outcome === 'ok' && record.ttfabMs !== null ? record.ttfabMs : Number.POSITIVE_INFINITY,
  };
}

/** p95 of the TTFABs of requests dispatched in [fromMs, toMs), with misses as +Infinity. */
export function windowP95(
  samples: readonly ProbeSample[],
  fromMs: number,
  toMs: number,
): { p95: number | null; n: number } {
  const values = samples.filter((s) => s.dispatchMs >= fromMs && s.dispatchMs < toMs).map((s) => s.ttfabMs);
  return { p95: quantileWithMisses(sortedAscending(values), 0.95), n: values.length };
}

/**
 * The first window [s, s + windowS) with s >= fromMs (stepping by stepMs, window end <= horizon)
 * holding at least minSamples requests whose p95 TTFAB is at or under targetMs. Pure.
 */
export function findRecoveryWindow(
  samples: readonly ProbeSample[],
  options: {
    fromMs: number;
    horizonMs: number;
    windowS: number;
    stepMs: number;
    minSamples: number;
    targetMs: number;
  },
): RecoveryWindow | null {
  const windowMs = options.windowS * 1000;
  for (let s = options.fromMs; s + windowMs <= options.horizonMs; s += options.stepMs) {
    const { p95, n } = windowP95(samples, s, s + windowMs);
    if (p95 !== null && n >= options.minSamples && p95 <= options.targetMs) {
      return { startMs: s, windowS: options.windowS, samples: n, p95Ms: p95, targetMs: options.targetMs };
    }
  }
  return null;
}

/** The ladder's p95 TTFAB at `concurrency` (usable steps only; median across runs), null if none. */
export function ladderP95(qmax: QmaxArtifact, concurrency: number): number | null {
  const values = qmax.steps
    .filter((s) => s.concurrency === concurrency && s.usable && s.ttfab_p95_ms !== null)
    .map((s) => s.ttfab_p95_ms as number)
    .sort((a, b) => a - b);
  if (values.length === 0) return null;
  return values[Math.floor((values.length - 1) / 2)] as number;
}

const usableRungs = (qmax: QmaxArtifact): number[] =>
  [...new Set(qmax.steps.filter((s) => s.usable && s.ttfab_p95_ms !== null).map((s) => s.concurrency))].sort(
    (a, b) => a - b,
  );

/** Probe concurrencies N the ladder supports: usable at N and N/2, N <= Q_max. */
export function probeCandidates(qmax: QmaxArtifact): number[] {
  const rungs = new Set(usableRungs(qmax));
  return [...rungs].filter((n) => n % 2 === 0 && rungs.has(n / 2) && n <= Math.max(qmax.q_max, 1));
}

/** Policy detection lag from the deployed scale-out alarms (fastest alarm), else the bound. */
export function policyLag(
  timings: readonly ScaleOutAlarmTiming[],
  publicationDelayS: number | null,
): { lagS: number; bounded: boolean; source: string } {
  if (timings.length === 0) {
    return {
      lagS: TTOTAL_DEFAULTS.policyLagBoundS,
      bounded: true,
      source: `bound of ${TTOTAL_DEFAULTS.policyLagBoundS} s: no scale-out policy is deployed on the variant, so there is no alarm to read the detection lag from`,
    };
  }
  const scored = timings.map((t) => {
    const delay = publicationDelayS ?? t.periodS;
    return { t, delay, lag: t.periodS * t.datapointsToAlarm + delay };
  });
  const best = scored.reduce((a, b) => (b.lag < a.lag ? b : a));
  const delayText =
    publicationDelayS === null
      ? `${best.delay} s CloudWatch publication delay (assumed: one period, the datapoint exists once its period closes)`
      : `${best.delay} s CloudWatch publication delay (given)`;
  return {
    lagS: best.lag,
    bounded: false,
    source: `alarm ${best.t.alarmName} of policy ${best.t.policyName}: ${best.t.datapointsToAlarm} datapoints x ${best.t.periodS} s + ${delayText}`,
  };
}

// ---- the command --------------------------------------------------------------------------------

export interface TtotalInput {
  clients: AwsClients;
  modelName: string;
  model: ModelConfig;
  endpoint: string;
  variant: string;
  region: string;
  qmaxFile: string;
  probeConcurrency?: number;
  maxWaitS?: number;
  /** Recovery window length (and the pre-trigger probe hold), seconds. */
  settleS?: number;
  pollS?: number;
  minWindowSamples?: number;
  /** Recovered means p95 <= this factor x the ladder's p95 at N/2 (default 1.25); recorded in the artifact. */
  recoveryFactor?: number;
  /** Seconds added to the alarm's period x datapoints; default one period (labelled assumed). */
  publicationDelayS?: number;
  allowConfigMismatch?: boolean;
  /** Service Quotas code of the endpoint-usage quota; default: found by name. */
  quotaCode?: string;
  outFile?: string;
  /** Directory for the default file name (default artifacts/); ignored when outFile is set. */
  outDir?: string;
  stateDir?: string;
  /** Endpoint and credentials of the probe's own runtime client (default: the SDK environment, AWS_ENDPOINT_URL), as qmax's. */
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  /** Builds the probe transport (default: InvokeEndpointWithResponseStream through the endpoint). */
  createTransport?: (maxConcurrency: number) => Transport;
  signal?: AbortSignal;
  log?: (line: string) => void;
  command?: string;
  version: string;
  runId?: string;
}

export interface TtotalPreflight {
  qmax: QmaxArtifact;
  probeConcurrency: number;
  halfP95Ms: number;
  fullP95Ms: number | null;
  mismatchWarnings: string[];
  quota: NonNullable<TtotalArtifact['quota']>;
  lag: { lagS: number; bounded: boolean; source: string };
  fingerprint: TtotalArtifact['fingerprint'];
  capacity: VariantCapacity;
}

const DIFFERENCE_LABEL: Record<string, string> = {
  instance_type: 'instance type',
  image_digest: 'image digest',
  container_env: 'container environment',
  region: 'region',
};

/** Every check that must pass before the endpoint is touched. Throws UsageError (exit 2) on refusal. */
export async function ttotalPreflight(input: TtotalInput): Promise<TtotalPreflight> {
  const qmax = readArtifact('qmax', input.qmaxFile);
  const qmaxCommand = `scalegate qmax --model ${input.modelName}${input.endpoint === input.model.endpoint ? '' : ` --endpoint ${input.endpoint}`}`;
  if (qmax.model_name !== input.modelName) {
    throw new UsageError(
      `--qmax ${input.qmaxFile}: measured for ${qmax.model_name}, not ${input.modelName}. Pass this model's qmax artifact, or measure one with \`${qmaxCommand}\`.`,
    );
  }
  if (qmax.transport !== TTOTAL_TRANSPORT) {
    throw new UsageError(
      `--qmax ${input.qmaxFile}: the ladder was measured over ${qmax.transport}, but ttotal probes over ${TTOTAL_TRANSPORT} (InvokeEndpointWithResponseStream through the endpoint, so the router can split the probe onto the new instance); a recovery target from another transport compares different paths. Measure the ladder over ${TTOTAL_TRANSPORT}: \`${qmaxCommand} --transport ${TTOTAL_TRANSPORT}\`.`,
    );
  }

  const candidates = probeCandidates(qmax);
  const rungs = usableRungs(qmax);
  let n = input.probeConcurrency;
  if (n === undefined) {
    if (candidates.length === 0) {
      throw new UsageError(
        `--qmax ${input.qmaxFile}: no probe concurrency N has usable rungs at both N and N/2 at or under Q_max ${qmax.q_max} (usable rungs: ${rungs.join(', ') || 'none'}). Re-run the ladder with rungs N and N/2 (e.g. \`${qmaxCommand} --rungs 1,2,4,...\`), or pass --probe-concurrency N for rungs that exist.`,
      );
    }
    n = candidates[candidates.length - 1] as number;
  }
  const missingRungs = [n, n / 2].filter((c) => !Number.isInteger(c) || !rungs.includes(c));
  if (missingRungs.length > 0) {
    throw new UsageError(
      `--probe-concurrency ${n}: the ladder in ${input.qmaxFile} has no usable rung at ${missingRungs.join(' and ')} (the probe runs at N on one instance and recovery is judged against the ladder's p95 at N/2). Usable rungs: ${rungs.join(', ') || 'none'}; probe concurrencies that work: ${candidates.join(', ') || 'none'}. Pass one of those, or re-measure with \`${qmaxCommand}\` so the ladder has rungs ${n} and ${n / 2}.`,
    );
  }
  const halfP95Ms = ladderP95(qmax, n / 2) as number;

  const live = await readDeployedFingerprint(
    input.clients.sagemaker,
    input.endpoint,
    input.variant,
    input.region,
  );
  const differences = fingerprintDifferences(qmax.fingerprint, live.fingerprint);
  const mismatchWarnings = differences.map(
    (d) =>
      `${DIFFERENCE_LABEL[d.field] ?? d.field}: qmax measured ${d.left}, endpoint ${input.endpoint} runs ${d.right}`,
  );
  if (differences.length > 0 && !input.allowConfigMismatch) {
    throw new UsageError(
      `--qmax ${input.qmaxFile} was measured on another configuration than endpoint ${input.endpoint} runs now:\n${mismatchWarnings.map((w) => `  - ${w}`).join('\n')}\nA T_total paired with a Q_max of another container or instance type sizes nothing. Measure Q_max on what is deployed (\`${qmaxCommand}\`) and pass that artifact, or pass --allow-config-mismatch (warns; recorded in the artifact).`,
    );
  }

  const capacity = await describeVariantCapacity(input.clients.sagemaker, input.endpoint, input.variant);
  const quota = await quotaHeadroom(input, live.fingerprint.instance_type, capacity);

  const timings = await readScaleOutAlarmTimings(
    input.clients,
    `endpoint/${input.endpoint}/variant/${input.variant}`,
  );
  const lag = policyLag(timings, input.publicationDelayS ?? null);
  return {
    qmax,
    probeConcurrency: n,
    halfP95Ms,
    fullP95Ms: ladderP95(qmax, n),
    mismatchWarnings: differences.length > 0 ? mismatchWarnings : [],
    quota,
    lag,
    fingerprint: live.fingerprint,
    capacity,
  };
}

async function quotaHeadroom(
  input: TtotalInput,
  instanceType: string,
  capacity: VariantCapacity,
): Promise<NonNullable<TtotalArtifact['quota']>> {
  let quotaName: string | null = null;
  let quotaValue: number | null = null;
  let source: string;
  try {
    const found = await findEndpointUsageQuota(input.clients.quotas, instanceType, {
      quotaCode: input.quotaCode,
    });
    if (found) {
      quotaName = found.quotaName;
      quotaValue = found.value;
      source = `Service Quotas ${found.quotaCode} (${found.quotaName})`;
    } else {
      source = `Service Quotas has no "${instanceType} for endpoint usage" quota`;
    }
  } catch (e) {
    source = `Service Quotas unreadable (${(e as Error).name}: ${(e as Error).message})`;
  }
  if (quotaValue === null && input.model.instance_quota !== undefined) {
    quotaValue = input.model.instance_quota;
    quotaName = `${instanceType} for endpoint usage`;
    source = `${source}; instance_quota ${quotaValue} from the config`;
  }
  let inUse: Awaited<ReturnType<typeof countEndpointInstances>> | null = null;
  try {
    inUse = await countEndpointInstances(input.clients.sagemaker, instanceType);
  } catch (e) {
    source = `${source}; instances in use unreadable (${(e as Error).name}: ${(e as Error).message}), headroom not checked`;
  }
  if (quotaValue !== null && inUse !== null) {
    const ours = Math.max(capacity.current ?? 0, capacity.desired ?? 0);
    const others = Math.max(0, inUse.total - ours);
    // Frozen at one instance, then one more: others + 2 must fit.
    const needed = others + 2;
    if (needed > quotaValue) {
      const holders = inUse.variants.map((v) => `${v.endpoint}/${v.variant}: ${v.instances}`).join(', ');
      throw new UsageError(
        `no quota headroom for one more ${instanceType}: the quota "${quotaName}" is ${quotaValue} instances and ${inUse.total} are in use (${holders || 'none'}); the run needs ${needed} (${others} on other endpoints, 1 frozen here, 1 forced). Request a quota increase in Service Quotas (${source}), or free instances on the other endpoints, then re-run.`,
      );
    }
  }
  return { quota_name: quotaName, quota_value: quotaValue, instances_in_use: inUse?.total ?? null, source };
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** What the scale-out looked like when it did not complete: the endpoint's own account of it. */
export interface ScaleOutFailure {
  reason: string;
  capacity: VariantCapacity | null;
  stream: string | null;
  logTail: string[];
}

export async function runTtotal(input: TtotalInput): Promise<CommandResult<TtotalArtifact>> {
  const log = input.log ?? (() => {});
  const settleS = input.settleS ?? TTOTAL_DEFAULTS.settleS;
  const pollS = input.pollS ?? TTOTAL_DEFAULTS.pollS;
  const maxWaitS = input.maxWaitS ?? TTOTAL_DEFAULTS.maxWaitS;
  const minSamples = input.minWindowSamples ?? TTOTAL_DEFAULTS.minWindowSamples;
  const runId = input.runId ?? newRunId();
  const signal = input.signal;

  const pre = await ttotalPreflight(input);
  const n = pre.probeConcurrency;
  const recoveryFactor = input.recoveryFactor ?? TTOTAL_DEFAULTS.recoveryFactor;
  const targetMs = pre.halfP95Ms * recoveryFactor;
  for (const w of pre.mismatchWarnings) log(`WARNING (--allow-config-mismatch): ${w}`);
  log(
    `ttotal: probe at ${n} in flight; recovery when p95 TTFAB <= ${targetMs.toFixed(1)} ms (ladder p95 at ${n / 2} x ${TTOTAL_DEFAULTS.recoveryFactor}) over ${settleS} s with >= ${minSamples} completions`,
  );

  const adapters = awsFreezeAdapters(input.clients, input.endpoint, input.variant);
  const freeze: Freeze = await freezeEndpoint({
    endpoint: input.endpoint,
    variant: input.variant,
    region: input.region,
    adapters,
    stateDir: input.stateDir,
    command: input.command ?? `scalegate ttotal --model ${input.modelName} --qmax ${input.qmaxFile}`,
    runId,
    pollIntervalMs: pollS * 1000,
    waitTimeoutS: maxWaitS,
    signal,
    log,
  });

  const samples: ProbeSample[] = [];
  let engine: ClosedLoopEngine | null = null;
  let transport: Transport | null = null;
  let restore: RestoreReport | null = null;
  let outcome:
    | {
        kind: 'ok';
        obs: StageObservations;
        stream: LogStreamInfo | null;
        before: { p95: number | null; n: number };
      }
    | { kind: 'failed'; failure: ScaleOutFailure; obs: StageObservations | null };
  const fromInstances = freeze.frozenCapacity.current ?? 1;
  const toInstances = fromInstances + 1;
  try {
    const known = new Set(
      (await listVariantLogStreams(input.clients.logs, input.endpoint, input.variant)).map((s) => s.name),
    );
    transport =
      input.createTransport?.(n) ??
      createResponseStreamTransport({
        runtime: createLoadRuntimeClient({
          region: input.region,
          maxConcurrency: n,
          ...input.loadClient,
        }),
        endpoint: input.endpoint,
        variant: input.variant,
        ownsClient: true,
      });
    engine = new ClosedLoopEngine({
      transport,
      bodies: encodePrompts(defaultPromptSet()),
      requestTimeoutMs: TTOTAL_DEFAULTS.requestTimeoutMs,
      onRecord: (record) => {
        if (!record.stopped) samples.push(probeSample(record));
      },
    });
    const loadAppliedMs = Date.now();
    engine.setConcurrency(n);
    log(`ttotal: probe applied at ${iso(loadAppliedMs)}; holding ${settleS} s before the trigger`);
    const holdUntil = loadAppliedMs + settleS * 1000;
    const holdDeadline = loadAppliedMs + maxWaitS * 1000;
    while (Date.now() < holdUntil || (samples.length < minSamples && Date.now() < holdDeadline)) {
      await sleep(Math.min(250, Math.max(50, holdUntil - Date.now())), signal);
    }
    const desiredSetMs = Date.now();
    const before = windowP95(samples, loadAppliedMs, desiredSetMs);
    await setDesiredInstanceCount(
      input.clients.sagemaker,
      input.endpoint,
      input.variant,
      toInstances,
      signal ? { abortSignal: signal } : {},
    );
    log(`ttotal: desired ${fromInstances} -> ${toInstances} at ${iso(desiredSetMs)} (the clock starts)`);

    const deadline = desiredSetMs + maxWaitS * 1000;
    let stream: LogStreamInfo | null = null;
    let inService: StageObservations['inService'] = null;
    let recovered: RecoveryWindow | null = null;
    let previousPollMs = desiredSetMs;
    let last: VariantCapacity | null = null;
    let failure: string | null = null;
    const stepMs = Math.max(100, Math.min(1000, (settleS * 1000) / 10));
    let nextWindowStart = 0;
    while (Date.now() < deadline) {
      await sleep(pollS * 1000, signal);
      const pollMs = Date.now();
      last = await describeVariantCapacity(input.clients.sagemaker, input.endpoint, input.variant);
      if (!stream || stream.firstEventMs === null) {
        const streams = await listVariantLogStreams(input.clients.logs, input.endpoint, input.variant);
        const found = streams.find((s) => !known.has(s.name)) ?? null;
        if (found && !stream) log(`ttotal: new instance log stream ${found.name}`);
        stream = found;
      }
      if (/fail|outofservice/i.test(last.endpointStatus)) {
        failure = `endpoint ${input.endpoint} became ${last.endpointStatus}${last.failureReason ? `: ${last.failureReason}` : ''}`;
        break;
      }
      // SageMaker rolls a failed capacity update back: InService again, the old desired count, a FailureReason.
      if (
        !inService &&
        last.endpointStatus === 'InService' &&
        last.desired !== null &&
        last.desired < toInstances
      ) {
        failure = `the update to ${toInstances} instances was rolled back (desired is ${last.desired} again)${last.failureReason ? `: ${last.failureReason}` : ''}`;
        break;
      }
      if (!inService && last.endpointStatus === 'InService' && (last.current ?? 0) >= toInstances) {
        inService = { atMs: pollMs, previousPollMs, pollS };
        nextWindowStart = pollMs;
        log(`ttotal: ${toInstances} instances in service at ${iso(pollMs)}`);
      }
      previousPollMs = pollMs;
      if (inService) {
        // Windows are judged once every request dispatched in them has finished.
        let horizon = Date.now();
        for (const r of engine.inFlightRecords()) horizon = Math.min(horizon, wallOf(r.dispatchedAt));
        recovered = findRecoveryWindow(samples, {
          fromMs: nextWindowStart,
          horizonMs: horizon,
          windowS: settleS,
          stepMs,
          minSamples,
          targetMs,
        });
        if (recovered) {
          log(
            `ttotal: traffic recovered from ${iso(recovered.startMs)} (p95 ${recovered.p95Ms.toFixed(1)} ms)`,
          );
          break;
        }
        const judged = Math.floor(Math.max(0, horizon - settleS * 1000 - nextWindowStart) / stepMs);
        nextWindowStart += judged * stepMs;
      }
    }
    await engine.stop();
    // Markers: read the new stream whole now that the instance is up (or gave up).
    let markers: StageMarker[] = [];
    let tail: string[] = [];
    if (!stream) {
      const streams = await listVariantLogStreams(input.clients.logs, input.endpoint, input.variant);
      stream = streams.find((s) => !known.has(s.name)) ?? null;
    }
    if (stream) {
      const events = await readLogStream(input.clients.logs, input.endpoint, stream.name);
      markers = stageMarkers(events.map((e) => e.message));
      tail = events.slice(-8).map((e) => e.message);
      if (stream.firstEventMs === null && events[0])
        stream = { ...stream, firstEventMs: events[0].timestampMs };
    }
    const obs: StageObservations = {
      loadAppliedMs,
      desiredSetMs,
      instanceLogging:
        stream && stream.firstEventMs !== null
          ? { stream: stream.name, firstEventMs: stream.firstEventMs }
          : null,
      markers,
      inService,
      recovered,
    };
    if (!inService) {
      outcome = {
        kind: 'failed',
        obs,
        failure: {
          reason:
            failure ??
            `the extra instance was not in service within --max-wait-s ${maxWaitS} s (status ${last?.endpointStatus ?? '?'}, desired ${last?.desired ?? '?'}, current ${last?.current ?? '?'})`,
          capacity: last,
          stream: stream?.name ?? null,
          logTail: tail,
        },
      };
    } else {
      outcome = { kind: 'ok', obs, stream, before };
    }
  } finally {
    if (engine) await engine.stop().catch(() => {});
    if (transport) await transport.close().catch(() => {});
    restore = await freeze.restore();
    log(
      `ttotal: restored ${restore.actions.join('; ')}${restore.errors.length > 0 ? `; FAILED: ${restore.errors.join('; ')}` : ''}`,
    );
  }

  const restoreRecord = {
    desired_instance_count: freeze.journal.desired_instance_count,
    suspension_restored: freeze.journal.scalable_target_registered && restore.errors.length === 0,
    actions: restore.actions,
    errors: restore.errors,
  };
  if (outcome.kind === 'failed') {
    return {
      artifact: null,
      report: renderTtotalFailure({
        modelName: input.modelName,
        endpoint: input.endpoint,
        failure: outcome.failure,
        restore: restoreRecord,
        journalFile: restore.journalDeleted ? null : freeze.journalFile,
      }),
      exitCode: 1,
      written: [],
    };
  }

  const analysis = analyseTimeline(outcome.obs);
  const after = outcome.obs.recovered
    ? windowP95(samples, outcome.obs.recovered.startMs, outcome.obs.recovered.startMs + settleS * 1000)
    : { p95: null, n: 0 };
  const notes = [
    "trigger was --force-desired under a scaling freeze, so the policy's own detection lag is not in this number; it is reported separately as policy_lag_s, and the planner adds it (T_plan = t_total_s + policy_lag_s).",
    ...analysis.notes,
    ...pre.mismatchWarnings.map(
      (w) => `WARNING: configuration mismatch allowed (--allow-config-mismatch): ${w}`,
    ),
  ];
  if (n > pre.qmax.q_max)
    notes.push(
      `the probe concurrency ${n} is above Q_max ${pre.qmax.q_max}: the single instance was over its SLO before the trigger`,
    );
  if (restore.errors.length > 0) {
    notes.push(
      `restoring the endpoint failed (${restore.errors.join('; ')}); the journal ${freeze.journalFile} is kept: run \`scalegate thaw --model ${input.modelName}\``,
    );
  }
  const artifact: TtotalArtifact = {
    schema_version: 1,
    kind: 'ttotal',
    model_name: input.modelName,
    endpoint: input.endpoint,
    run_id: runId,
    measured_at: iso(outcome.obs.desiredSetMs),
    fingerprint: pre.fingerprint,
    transport: TTOTAL_TRANSPORT,
    trigger: TRIGGER,
    qmax_run_id: pre.qmax.run_id,
    t_total_s: Math.max(analysis.tTotalS ?? 0, 0.001),
    policy_lag_s: pre.lag.lagS,
    policy_lag_bounded: pre.lag.bounded,
    policy_lag_source: pre.lag.source,
    instance_id: outcome.stream?.instanceId ?? null,
    from_instances: fromInstances,
    to_instances: toInstances,
    probe_concurrency: n,
    p95_before_ms:
      outcome.before.p95 !== null && Number.isFinite(outcome.before.p95) ? outcome.before.p95 : null,
    p95_recovered_target_ms: targetMs,
    p95_after_ms: after.p95 !== null && Number.isFinite(after.p95) ? after.p95 : null,
    timeline: analysis.timeline,
    durations: analysis.durations,
    dominant_stage: analysis.dominant,
    missing_stages: analysis.missing,
    notes,
    provenance: { origin: 'measured', tool: `scalegate ${input.version}`, note: null },
    t_total_end_stage: analysis.endStage ?? undefined,
    config_mismatch_allowed: pre.mismatchWarnings.length > 0,
    mismatch_warnings: pre.mismatchWarnings,
    requests_before: outcome.before.n,
    requests_after: outcome.obs.recovered ? after.n : null,
    settings: {
      probe_concurrency: n,
      recovery_window_s: settleS,
      recovery_min_samples: minSamples,
      recovery_target_factor: recoveryFactor,
      poll_s: pollS,
      max_wait_s: maxWaitS,
      pre_trigger_s: settleS,
      publication_delay_s: input.publicationDelayS ?? null,
    },
    quota: pre.quota,
    restore: restoreRecord,
  };
  const outFile =
    input.outFile ??
    join(input.outDir ?? DEFAULT_ARTIFACTS_DIR, ttotalFileName(input.modelName, TRIGGER, pre.fingerprint));
  writeArtifact('ttotal', outFile, artifact);
  return {
    artifact,
    report: renderTtotalReport(artifact, outFile),
    // A T_total that ends at in_service is a lower bound: planning on it would under-size headroom.
    exitCode: restore.errors.length > 0 || analysis.endStage !== 'traffic_recovered' ? 1 : 0,
    written: [outFile],
  };
}
