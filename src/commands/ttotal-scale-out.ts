import {
  findRecoveryWindow,
  type ProbeSample,
  type RecoveryWindow,
  type ScaleOutFailure,
  type StageMarker,
  type StageObservations,
  stageMarkers,
  windowP95,
} from '../analysis/ttotal.js';
import { describeVariantCapacity, setDesiredInstanceCount, type VariantCapacity } from '../aws/endpoint.js';
import { type LogStreamInfo, listVariantLogStreams, readLogStream } from '../aws/logs.js';
import { ClosedLoopEngine, wallOf } from '../load/closed/engine.js';
import type { ProgressSink } from '../load/progress.js';
import { createTransport } from '../load/transport/transports.js';
import { TTOTAL_DEFAULTS } from '../options/ttotal.js';
import { waitUntil } from '../wait.js';
import { type RequestPlan, transportRequest } from './load-start.js';

import { probeSample, TTOTAL_TRANSPORT, type TtotalDeps, type TtotalInput } from './ttotal-input.js';

export type ScaleOutOutcome =
  | {
      kind: 'ok';
      obs: StageObservations;
      stream: LogStreamInfo | null;
      /** The probe before the trigger, and in the recovery window. */
      before: { p95: number | null; n: number };
      after: { p95: number | null; n: number };
    }
  | { kind: 'failed'; failure: ScaleOutFailure; obs: StageObservations | null };

export interface ScaleOutSettings {
  n: number;
  settleS: number;
  pollS: number;
  maxWaitS: number;
  minSamples: number;
  targetMs: number;
  toInstances: number;
  request: RequestPlan;
}

/**
 * The measurement itself, on a frozen endpoint: hold the probe, force one more instance, poll
 * until it serves and the probe recovers (or the wait ends), then read the new instance's log.
 */
export async function measureScaleOut(
  input: TtotalInput,
  deps: TtotalDeps,
  s: ScaleOutSettings,
  signal: AbortSignal,
  log: (line: string) => void,
  progress: ProgressSink,
): Promise<ScaleOutOutcome> {
  const { clients } = deps;
  const samples: ProbeSample[] = [];
  const known = new Set(
    (await listVariantLogStreams(clients.logs, input.endpoint, input.variant)).map((st) => st.name),
  );
  const transport =
    deps.createTransport?.(s.n) ??
    createTransport(TTOTAL_TRANSPORT, {
      ...input,
      maxConcurrency: s.n,
      targetUrl: null,
      loadClient: deps.loadClient,
      request: transportRequest(s.request.shape),
    });
  const engine = new ClosedLoopEngine({
    transport,
    bodies: s.request.bodies,
    requestTimeoutMs: TTOTAL_DEFAULTS.requestTimeoutMs,
    onRecord: (record) => {
      if (!record.stopped) samples.push(probeSample(record));
    },
  });
  const wait = { signal, log: (line: string) => log(`ttotal: ${line}`) };
  try {
    const loadAppliedMs = Date.now();
    engine.setConcurrency(s.n);
    progress({ type: 'ttotal-stage', stage: 'probe-applied', atMs: loadAppliedMs, holdS: s.settleS });
    const holdUntil = loadAppliedMs + s.settleS * 1000;
    await waitUntil(
      `the probe's pre-trigger hold (${s.settleS} s, at least ${s.minSamples} completions)`,
      () => (Date.now() >= holdUntil && samples.length >= s.minSamples ? true : undefined),
      {
        ...wait,
        deadline: Math.max(holdUntil, loadAppliedMs + s.maxWaitS * 1000),
        interval: (now) => Math.min(250, Math.max(50, holdUntil - now)),
        log: undefined,
      },
    );
    const desiredSetMs = Date.now();
    const before = windowP95(samples, loadAppliedMs, desiredSetMs);
    await setDesiredInstanceCount(clients.sagemaker, input.endpoint, input.variant, s.toInstances, {
      abortSignal: signal,
    });
    progress({
      type: 'ttotal-stage',
      stage: 'desired-set',
      atMs: desiredSetMs,
      fromInstances: s.toInstances - 1,
      toInstances: s.toInstances,
    });

    let stream: LogStreamInfo | null = null;
    let inService: StageObservations['inService'] = null;
    let recovered: RecoveryWindow | null = null;
    let previousPollMs = desiredSetMs;
    let last: VariantCapacity | null = null;
    let failure: string | null = null;
    const stepMs = Math.max(100, Math.min(1000, (s.settleS * 1000) / 10));
    let nextWindowStart = 0;
    const poll = async (): Promise<true | undefined> => {
      const pollMs = Date.now();
      last = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant);
      if (!stream || stream.firstEventMs === null) {
        const streams = await listVariantLogStreams(clients.logs, input.endpoint, input.variant);
        const found = streams.find((st) => !known.has(st.name)) ?? null;
        if (found && !stream) progress({ type: 'ttotal-stage', stage: 'log-stream', name: found.name });
        stream = found;
      }
      if (/fail|outofservice/i.test(last.endpointStatus)) {
        failure = `endpoint ${input.endpoint} became ${last.endpointStatus}${last.failureReason ? `: ${last.failureReason}` : ''}`;
        return true;
      }
      // SageMaker rolls a failed capacity update back: InService again, the old desired count, a FailureReason.
      if (
        !inService &&
        last.endpointStatus === 'InService' &&
        last.desired !== null &&
        last.desired < s.toInstances
      ) {
        failure = `the update to ${s.toInstances} instances was rolled back (desired is ${last.desired} again)${last.failureReason ? `: ${last.failureReason}` : ''}`;
        return true;
      }
      if (!inService && last.endpointStatus === 'InService' && (last.current ?? 0) >= s.toInstances) {
        inService = { atMs: pollMs, previousPollMs, pollS: s.pollS };
        nextWindowStart = pollMs;
        progress({ type: 'ttotal-stage', stage: 'in-service', atMs: pollMs, instances: s.toInstances });
      }
      previousPollMs = pollMs;
      if (!inService) return undefined;
      // Windows are judged once every request dispatched in them has finished.
      let horizon = Date.now();
      for (const r of engine.inFlightRecords()) horizon = Math.min(horizon, wallOf(r.dispatchedAt));
      recovered = findRecoveryWindow(samples, {
        fromMs: nextWindowStart,
        horizonMs: horizon,
        windowS: s.settleS,
        stepMs,
        minSamples: s.minSamples,
        targetMs: s.targetMs,
      });
      if (recovered) {
        progress({
          type: 'ttotal-stage',
          stage: 'recovered',
          atMs: recovered.startMs,
          p95Ms: recovered.p95Ms,
        });
        return true;
      }
      const judged = Math.floor(Math.max(0, horizon - s.settleS * 1000 - nextWindowStart) / stepMs);
      nextWindowStart += judged * stepMs;
      return undefined;
    };
    await waitUntil(`the extra instance in service and the probe recovered (up to ${s.maxWaitS} s)`, poll, {
      ...wait,
      deadline: desiredSetMs + s.maxWaitS * 1000,
      interval: s.pollS * 1000,
      pauseFirst: true,
    });
    await engine.stop();
    // Markers: read the new stream whole now that the instance is up (or gave up).
    let markers: StageMarker[] = [];
    let tail: string[] = [];
    let found: LogStreamInfo | null = stream;
    if (!found) {
      const streams = await listVariantLogStreams(clients.logs, input.endpoint, input.variant);
      found = streams.find((st) => !known.has(st.name)) ?? null;
    }
    if (found) {
      const events = await readLogStream(clients.logs, input.endpoint, found.name);
      markers = stageMarkers(events.map((e) => e.message));
      tail = events.slice(-8).map((e) => e.message);
      if (found.firstEventMs === null && events[0]) found = { ...found, firstEventMs: events[0].timestampMs };
    }
    const obs: StageObservations = {
      loadAppliedMs,
      desiredSetMs,
      instanceLogging:
        found && found.firstEventMs !== null
          ? { stream: found.name, firstEventMs: found.firstEventMs }
          : null,
      markers,
      inService,
      recovered,
    };
    if (inService) {
      const window = recovered as RecoveryWindow | null;
      const after = window
        ? windowP95(samples, window.startMs, window.startMs + s.settleS * 1000)
        : { p95: null, n: 0 };
      return { kind: 'ok', obs, stream: found, before, after };
    }
    const capacity = last as VariantCapacity | null;
    return {
      kind: 'failed',
      obs,
      failure: {
        reason:
          failure ??
          `the extra instance was not in service within --max-wait-s ${s.maxWaitS} s (status ${capacity?.endpointStatus ?? '?'}, desired ${capacity?.desired ?? '?'}, current ${capacity?.current ?? '?'})`,
        capacity,
        stream: found?.name ?? null,
        logTail: tail,
      },
    };
  } finally {
    await engine.stop().catch(() => {});
    await transport.close().catch(() => {});
  }
}

/**
 * Between two scale-outs of one run: back to the starting capacity, and wait until the endpoint
 * is InService there (the freeze stays; only the desired count moves).
 */
export async function restoreCapacity(
  input: TtotalInput,
  deps: TtotalDeps,
  instances: number,
  s: { pollS: number; maxWaitS: number },
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<void> {
  const { clients } = deps;
  await setDesiredInstanceCount(clients.sagemaker, input.endpoint, input.variant, instances, {
    abortSignal: signal,
  });
  log(`ttotal: back to ${instances} instance(s) before the next scale-out`);
  await waitUntil(
    `endpoint ${input.endpoint} InService at ${instances} instance(s) again`,
    async () => {
      const c = await describeVariantCapacity(clients.sagemaker, input.endpoint, input.variant, {
        abortSignal: signal,
      });
      return c.endpointStatus === 'InService' && c.current === instances && c.desired === instances
        ? true
        : undefined;
    },
    { signal, deadline: Date.now() + s.maxWaitS * 1000, interval: s.pollS * 1000, pauseFirst: true },
  );
}
