/**
 * `scalegate ttotal --path zero` of an inference-component model: the wake from zero copies,
 * timed end to end against the deployed wake rule (the plan's step policy on
 * NoCapacityInvocationFailures, deployed by `local apply` or the CDK stack).
 *
 * The component must be idle at zero copies. One probe request at a time is sent: every request
 * refused with SageMaker's no-capacity error is counted with its time (the failing window), until
 * the first success ends the wake. DescribeInferenceComponent and DescribeEndpoint are polled
 * meanwhile for the copy stages (bounded by the poll interval). With `retry`, the probe is a
 * client applying the plan's retry budget (client_retry_attempts x client_retry_backoff_s): a
 * client request fails only when every attempt did, and the retries are counted apart.
 *
 * Nothing is frozen: the wake IS the scaling being measured; the measurement only reads.
 */
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { DescribeAlarmsCommand } from '@aws-sdk/client-cloudwatch';
import { DescribeEndpointCommand, DescribeInferenceComponentCommand } from '@aws-sdk/client-sagemaker';
import type { AwsClients } from '../aws/clients.js';
import {
  emptyRetryCounts,
  isNoCapacity,
  type RetryCounts,
  withNoCapacityRetry,
} from '../load/transport/ic-retry.js';
import { createTransport, type TransportSetup } from '../load/transport/transports.js';
import type { Transport } from '../load/types.js';
import type { IcPathMeasurement } from '../model/artifacts/ttotal.js';
import { type AssetHash, modelImageDigest } from '../model/asset-hash.js';
import { opt, usage } from '../model/errors.js';
import { configFingerprint } from '../model/fingerprint.js';
import { newRunId } from '../model/ids.js';
import type { ModelConfig, TtotalArtifact } from '../model/index.js';
import { componentNameOf, type InferenceComponentConfig } from '../model/inference-component.js';
import { writeArtifact } from '../model/io.js';
import { DEFAULT_ARTIFACTS_DIR, ttotalFileName } from '../model/names.js';
import { renderWakeReport, renderWakeTimeout } from '../report/ttotal-wake-text.js';
import { planRequests, transportRequest } from './load-start.js';
import type { CommandResult } from './result.js';

export const WAKE_DEFAULTS = {
  /** Pause between two probe (client) requests, seconds. */
  probeIntervalS: 0.5,
  pollS: 1,
  maxWaitS: 600,
  requestTimeoutMs: 60_000,
} as const;

export interface WakeInput {
  modelName: string;
  model: ModelConfig;
  configFile: string;
  endpoint: string;
  variant: string;
  region: string;
  /** Apply the plan's client retry budget (the config's IC block). */
  retry?: boolean;
  probeIntervalS?: number;
  pollS?: number;
  maxWaitS?: number;
  outFile?: string;
  artifactsDir?: string;
  runId?: string;
}

export interface WakeDeps {
  clients: Pick<AwsClients, 'sagemaker' | 'cloudwatch' | 'region'>;
  loadClient?: TransportSetup['loadClient'];
  /** Tests and benchmarks: the probe's transport. @default the response-stream transport */
  createTransport?: (maxConcurrency: number) => Transport;
  assetHash?: AssetHash;
  version: string;
  log?: (line: string) => void;
  signal?: AbortSignal;
}

interface Stage {
  stage: string;
  atMs: number;
  source: string;
  bounded: boolean;
  note: string | null;
}

const iso = (ms: number) => new Date(ms).toISOString();
const round3 = (x: number) => Math.round(x * 1000) / 1000;

function icOf(input: WakeInput): InferenceComponentConfig {
  const ic = input.model.kind === 'inference-component' ? input.model.inference_component : undefined;
  if (!ic) {
    throw usage`ttotal ${opt('path', 'zero')}: ${input.modelName} is not an inference-component model (kind 'inference-component'): a variant has no wake from zero.`;
  }
  return ic;
}

/** The wake alarm's period as deployed (the plan names it `scalegate-<endpoint>-<component>-wake`). */
async function wakeAlarmPeriod(
  clients: WakeDeps['clients'],
  endpoint: string,
  component: string,
): Promise<number | null> {
  try {
    const out = await clients.cloudwatch.send(
      new DescribeAlarmsCommand({ AlarmNames: [`scalegate-${endpoint}-${component}-wake`] }),
    );
    return out.MetricAlarms?.[0]?.Period ?? null;
  } catch {
    return null;
  }
}

/** A wake measured (the artifact, not yet written), or none: no request succeeded within maxWaitS. */
export type WakeOutcome =
  | { artifact: TtotalArtifact }
  | {
      artifact: null;
      component: string;
      maxWaitS: number;
      noCapacityFailures: number;
      wakePeriodS: number | null;
    };

export async function runTtotalWake(
  input: WakeInput,
  deps: WakeDeps,
): Promise<CommandResult<TtotalArtifact>> {
  const outcome = await measureWakeFromZero(input, deps);
  if (outcome.artifact === null) {
    return {
      artifact: null,
      report: renderWakeTimeout(
        outcome.component,
        outcome.maxWaitS,
        outcome.noCapacityFailures,
        outcome.wakePeriodS,
      ),
      exitCode: 1,
      written: [],
    };
  }
  const { artifact } = outcome;
  const outFile =
    input.outFile ??
    join(
      input.artifactsDir ?? DEFAULT_ARTIFACTS_DIR,
      ttotalFileName(input.modelName, 'wake-from-zero', artifact.fingerprint),
    );
  writeArtifact('ttotal', outFile, artifact);
  return { artifact, report: renderWakeReport(artifact, outFile), exitCode: 0, written: [outFile] };
}

/**
 * The wake from zero copies, measured (what `ttotal --path zero` records, and the drill's
 * from-zero phase): refused unless the component is idle at zero copies. Writes nothing.
 */
export async function measureWakeFromZero(input: WakeInput, deps: WakeDeps): Promise<WakeOutcome> {
  const ic = icOf(input);
  const log = deps.log ?? (() => {});
  const component = componentNameOf(input.endpoint, ic);
  const probeIntervalMs = (input.probeIntervalS ?? WAKE_DEFAULTS.probeIntervalS) * 1000;
  const pollMs = (input.pollS ?? WAKE_DEFAULTS.pollS) * 1000;
  const maxWaitMs = (input.maxWaitS ?? WAKE_DEFAULTS.maxWaitS) * 1000;
  const { sagemaker } = deps.clients;
  const request = planRequests(input, input.model);
  const body = request.bodies[0] as Uint8Array;

  const describe = async () => {
    const d = await sagemaker.send(
      new DescribeInferenceComponentCommand({ InferenceComponentName: component }),
    );
    return {
      desired: d.RuntimeConfig?.DesiredCopyCount ?? 0,
      current: d.RuntimeConfig?.CurrentCopyCount ?? 0,
    };
  };
  const before = await describe();
  if (before.current !== 0 || before.desired !== 0) {
    throw usage`ttotal ${opt('path', 'zero')}: component ${component} holds ${before.current} copies (desired ${before.desired}), not 0: a wake from zero starts idle. Wait for the idle rule to scale it in (or set its copy count to 0) and run again.`;
  }
  const wakePeriodS = await wakeAlarmPeriod(deps.clients, input.endpoint, component);
  if (wakePeriodS === null)
    log(`ttotal: no wake alarm scalegate-${input.endpoint}-${component}-wake found: is the plan applied?`);

  const raw =
    deps.createTransport?.(1) ??
    createTransport('response-stream', {
      ...input,
      maxConcurrency: 1,
      targetUrl: null,
      ...(deps.loadClient ? { loadClient: deps.loadClient } : {}),
      request: transportRequest(request.shape),
    });
  const counts: RetryCounts = emptyRetryCounts();
  const budget = input.retry
    ? { attempts: ic.client_retry_attempts, backoffMs: ic.client_retry_backoff_s * 1000 }
    : null;
  // Every attempt's outcome, retries included (the wrapped transport's own requests).
  const failures: number[] = [];
  let otherFailures = 0;
  const counting: Transport = {
    ...raw,
    invoke: async (b, probe, signal) => {
      const r = await raw.invoke(b, probe, signal);
      if (isNoCapacity(r)) failures.push(Date.now());
      else if (r.outcome !== 'ok') otherFailures += 1;
      return r;
    },
  };
  const probeTransport = budget ? withNoCapacityRetry(counting, budget, counts) : counting;

  const stages: Stage[] = [];
  const mark = (
    stage: string,
    atMs: number,
    source: string,
    bounded: boolean,
    note: string | null = null,
  ) => {
    if (!stages.some((s) => s.stage === stage)) stages.push({ stage, atMs, source, bounded, note });
  };
  const stop = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, stop.signal]) : stop.signal;
  const poll = (async () => {
    while (!signal.aborted) {
      try {
        const [d, e] = await Promise.all([
          describe(),
          sagemaker.send(new DescribeEndpointCommand({ EndpointName: input.endpoint })),
        ]);
        const now = Date.now();
        if (d.desired >= 1)
          mark('desired_set', now, 'DescribeInferenceComponent DesiredCopyCount >= 1 (poll)', true);
        if ((e.ProductionVariants?.[0]?.CurrentInstanceCount ?? 0) >= 1)
          mark('instance_in_service', now, 'DescribeEndpoint CurrentInstanceCount >= 1 (poll)', true);
        if (d.current >= 1)
          mark('in_service', now, 'DescribeInferenceComponent CurrentCopyCount >= 1 (poll)', true);
      } catch (e) {
        log(`ttotal: poll: ${(e as Error).message}`);
      }
      await delay(pollMs, undefined, { signal }).catch(() => {});
    }
  })();

  const startMs = Date.now();
  let clientRequests = 0;
  let clientVisible = 0;
  let successMs: number | null = null;
  try {
    while (successMs === null && Date.now() - startMs < maxWaitMs && !signal.aborted) {
      const sentMs = Date.now();
      if (clientRequests === 0) mark('load_applied', sentMs, 'first probe request sent', false);
      clientRequests += 1;
      const timeout = AbortSignal.any([signal, AbortSignal.timeout(WAKE_DEFAULTS.requestTimeoutMs)]);
      const r = await probeTransport.invoke(body, { payload: () => {}, connection: () => {} }, timeout);
      if (r.outcome === 'ok') {
        successMs = Date.now();
        break;
      }
      clientVisible += 1;
      await delay(probeIntervalMs, undefined, { signal }).catch(() => {});
    }
  } finally {
    stop.abort();
    await poll;
    await raw.close().catch(() => {});
  }
  if (successMs === null) {
    return {
      artifact: null,
      component,
      maxWaitS: maxWaitMs / 1000,
      noCapacityFailures: failures.length,
      wakePeriodS,
    };
  }
  const first = failures[0];
  if (first !== undefined) mark('first_no_capacity', first, 'first request refused with no capacity', false);
  // A stage the poll did not see before the first success happened no later than it (a copy served it).
  for (const stage of ['desired_set', 'instance_in_service', 'in_service'])
    mark(stage, successMs, 'no later than the first success (not seen by the poll before it)', true);
  mark('traffic_recovered', successMs, 'first successful response', false);
  const after = await describe();
  const timeline = [...stages].sort((a, b) => a.atMs - b.atMs);
  const tTotalS = round3((successMs - startMs) / 1000);
  const durations = timeline.slice(1).map((s, i) => {
    const prev = timeline[i] as Stage;
    const seconds = round3((s.atMs - prev.atMs) / 1000);
    return {
      from: prev.stage,
      to: s.stage,
      seconds,
      bounded: s.bounded || prev.bounded,
      share: tTotalS > 0 ? round3(seconds / tTotalS) : null,
    };
  });
  const dominant = durations.reduce<(typeof durations)[number] | null>(
    (m, d) => (m === null || d.seconds > m.seconds ? d : m),
    null,
  );
  const last = failures.at(-1);
  const measurement: IcPathMeasurement = {
    component,
    path: 'zero',
    origin: 'measured',
    copies_before: 0,
    copies_after: Math.max(1, after.current),
    wake_s: tTotalS,
    no_capacity_failures: failures.length,
    other_failures: otherFailures,
    failing_window:
      first !== undefined && last !== undefined
        ? { first_at: iso(first), last_at: iso(last), seconds: round3((last - first) / 1000) }
        : null,
    retry: budget
      ? {
          attempts: budget.attempts,
          backoff_s: budget.backoffMs / 1000,
          client_requests: clientRequests,
          client_visible_failures: clientVisible,
          retries: counts.retries,
          retried_requests: counts.retriedRequests,
        }
      : null,
    wake_alarm_period_s: wakePeriodS,
  };
  const fingerprint = configFingerprint(
    input.model,
    modelImageDigest(input.model, input.configFile, deps.assetHash),
    deps.clients.region,
    request.shape,
  );
  const artifact: TtotalArtifact = {
    schema_version: 1,
    kind: 'ttotal',
    model_name: input.modelName,
    endpoint: input.endpoint,
    run_id: input.runId ?? newRunId(),
    measured_at: iso(startMs),
    fingerprint,
    transport: 'response-stream',
    trigger: 'policy',
    qmax_run_id: null,
    t_total_s: Math.max(tTotalS, 0.001),
    policy_lag_s: 0,
    policy_lag_bounded: true,
    policy_lag_source: 'inside the wake: the wake alarm and its step policy are part of the measured T_total',
    instance_id: null,
    from_instances: 0,
    to_instances: 1,
    probe_concurrency: 1,
    p95_before_ms: null,
    p95_recovered_target_ms: null,
    p95_after_ms: null,
    timeline: timeline.map((s) => ({
      stage: s.stage,
      at: iso(s.atMs),
      source: s.source,
      bounded: s.bounded,
      note: s.note,
    })),
    durations,
    dominant_stage: dominant ? { from: dominant.from, to: dominant.to, seconds: dominant.seconds } : null,
    missing_stages: ['desired_set', 'instance_in_service', 'in_service'].filter(
      (name) => !stages.some((s) => s.stage === name),
    ),
    notes: [
      `wake from zero of component ${component}: first request to first success`,
      ...(budget ? [`client retry budget ${budget.attempts} x ${budget.backoffMs / 1000} s applied`] : []),
    ],
    provenance: { origin: 'measured', tool: `scalegate ${deps.version}`, note: null },
    t_total_end_stage: 'traffic_recovered',
    inference_component: measurement,
  };
  return { artifact };
}
