/**
 * The drill's observer (shard 0 or the single process): polls the endpoint's instance counts and
 * the watched alarms' states while the load runs, then reads what happened exactly: the alarm
 * transitions (DescribeAlarmHistory), the scaling activities and the tracked metric per period
 * (GetMetricData). A failed call is recorded and observing goes on; it never stops the load.
 *
 * An inference component (`target`) is observed the same way on its copy count: DesiredCopyCount
 * and CurrentCopyCount (DescribeInferenceComponent) with the endpoint's instances beside them, the
 * activities of `sagemaker:inference-component:DesiredCopyCount`, and the tracked metric on the
 * component's dimension (ConcurrentRequestsPerCopy, InferenceComponentName).
 */
import { desiredFromDescription } from '../analysis/drill.js';
import type { AwsClients } from '../aws/clients.js';
import { describeAlarmTransitions, describeScalingActivitiesSince } from '../aws/drill.js';
import { describeVariantCapacity } from '../aws/endpoint.js';
import { getMetricData } from '../aws/metrics.js';
import { describeMetricAlarms } from '../aws/policy.js';
import { VARIANT_DIMENSION, variantResourceId } from '../aws/scaling.js';
import type { ProgressSink } from '../load/progress.js';
import type { DrillObservation, DrillObserver, DrillPhase, WatchedAlarm } from '../model/index.js';
import { waitUntil } from '../wait.js';

/** What one poll reads of the scaled resource (a component: copies, and its endpoint's instances). */
export interface ScaledCounts {
  status: string;
  desired: number | null;
  current: number | null;
  /** The endpoint's current instances when desired/current count copies. */
  instances?: number | null;
}

/** A scaled resource other than the variant's instance count: an inference component's copies. */
export interface ObserveTarget {
  capacity: () => Promise<ScaledCounts>;
  resourceId: string;
  scalableDimension: 'sagemaker:inference-component:DesiredCopyCount';
  /** The tracked metric, on these dimensions. */
  metric: { name: string; statistic: string; periodS: number; dimensions: { Name: string; Value: string }[] };
}

export interface ObserveOptions {
  clients: AwsClients;
  /** @default the variant's instance count */
  target?: ObserveTarget;
  endpoint: string;
  variant: string;
  alarms: readonly WatchedAlarm[];
  /** Wall time of the schedule's offset 0. */
  startWallMs: number;
  /** Scaling activities before this wall time are not the drill's (e.g. its from-zero phase's wake). */
  activitiesSinceWallMs?: number;
  pollS: number;
  phases: readonly DrillPhase[];
  log: (line: string) => void;
  /** Told of each phase as it starts, and of each change of the fleet's counts. */
  progress: ProgressSink;
  signal?: AbortSignal;
}

/** Seconds observed before the schedule starts (the state the drill begins from). */
const LEAD_S = 10;
/** The tracked metric when no scale-out alarm names one. */
const DEFAULT_METRIC = { name: 'ConcurrentRequestsPerModel', statistic: 'Maximum', periodS: 10 };
const STATISTICS = new Set(['Average', 'Maximum', 'Minimum', 'Sum', 'SampleCount']);

const errorText = (e: unknown): string =>
  e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);

export interface Observing {
  /** Stops polling and reads the transitions, activities and metric up to `endWallMs`. */
  finish(endWallMs: number): Promise<DrillObserver>;
}

export function observeDrill(o: ObserveOptions): Observing {
  const observations: DrillObservation[] = [];
  const errors = new Set<string>();
  const note = (what: string, e: unknown) => {
    const line = `${what}: ${errorText(e)}`;
    if (!errors.has(line)) o.log(`drill: observer: ${line}`);
    errors.add(line);
  };
  const names = o.alarms.map((a) => a.name);
  const ts = (wallMs: number): number => Number(((wallMs - o.startWallMs) / 1000).toFixed(3));
  let stopped = false;
  let announced = -1;
  let last: { desired: number | null; current: number | null } | null = null;
  const poll = async (): Promise<true | undefined> => {
    if (stopped) return true;
    const wallMs = Date.now();
    if (wallMs < o.startWallMs - LEAD_S * 1000) return undefined;
    const phase = o.phases.findIndex((p) => ts(wallMs) >= p.start_s && ts(wallMs) < p.end_s);
    if (phase > announced) {
      announced = phase;
      const p = o.phases[phase] as DrillPhase;
      o.progress({ type: 'drill-phase', name: p.name, rateRps: p.rate_rps, seconds: p.end_s - p.start_s });
    }
    const row: DrillObservation = {
      t_s: ts(wallMs),
      status: 'unknown',
      desired: null,
      current: null,
      alarms: {},
    };
    try {
      const c: ScaledCounts = o.target
        ? await o.target.capacity()
        : await describeVariantCapacity(o.clients.sagemaker, o.endpoint, o.variant).then((v) => ({
            status: v.endpointStatus,
            desired: v.desired,
            current: v.current,
          }));
      row.status = c.status;
      row.desired = c.desired;
      row.current = c.current;
      if (c.instances !== undefined) row.instances = c.instances;
      if (!last || last.desired !== c.desired || last.current !== c.current) {
        o.progress({
          type: 'drill-capacity',
          tS: row.t_s,
          status: c.status,
          desired: c.desired,
          current: c.current,
        });
      }
      last = c;
    } catch (e) {
      note(o.target ? 'DescribeInferenceComponent' : 'DescribeEndpoint', e);
    }
    if (names.length > 0) {
      try {
        for (const a of await describeMetricAlarms(o.clients.cloudwatch, { names })) {
          if (a.AlarmName && a.StateValue) row.alarms[a.AlarmName] = a.StateValue as 'OK';
        }
      } catch (e) {
        note('DescribeAlarms', e);
      }
    }
    observations.push(row);
    return undefined;
  };
  const polling = waitUntil('the drill to end (observing the endpoint)', poll, {
    interval: (now) => {
      const early = o.startWallMs - LEAD_S * 1000 - now;
      return early > 0 ? Math.min(early, 1000) : o.pollS * 1000;
    },
    ...(o.signal ? { signal: o.signal } : {}),
  }).catch((e: unknown) => {
    if (!o.signal?.aborted) note('polling', e);
  });

  return {
    async finish(endWallMs: number): Promise<DrillObserver> {
      stopped = true;
      await polling;
      if (!o.signal?.aborted) await poll().catch((e: unknown) => note('last poll', e));
      const from = o.startWallMs - 60_000;
      const scaleOut = o.alarms.find((a) => a.role === 'scale-out');
      const [namespace, ...metricName] = (scaleOut?.metric ?? '').split(' ');
      const tracked = o.target?.metric;
      const metric = tracked
        ? {
            namespace: 'AWS/SageMaker',
            name: tracked.name,
            statistic: tracked.statistic,
            period_s: tracked.periodS,
            points: [] as { t_s: number; value: number }[],
          }
        : {
            namespace: scaleOut ? (namespace as string) : 'AWS/SageMaker',
            name: scaleOut ? metricName.join(' ') : DEFAULT_METRIC.name,
            statistic:
              scaleOut && STATISTICS.has(scaleOut.statistic) ? scaleOut.statistic : DEFAULT_METRIC.statistic,
            period_s: scaleOut?.period_s ?? DEFAULT_METRIC.periodS,
            points: [] as { t_s: number; value: number }[],
          };
      const dimensions = tracked?.dimensions ?? [
        { Name: 'EndpointName', Value: o.endpoint },
        { Name: 'VariantName', Value: o.variant },
      ];
      try {
        const [series] = await getMetricData(
          o.clients.cloudwatch,
          dimensions,
          [{ id: 'tracked', metricName: metric.name, stat: metric.statistic, periodS: metric.period_s }],
          from,
          endWallMs + metric.period_s * 1000,
        );
        metric.points = (series?.timestamps ?? []).map((t, i) => ({
          t_s: ts(t),
          value: series?.values[i] as number,
        }));
      } catch (e) {
        note('GetMetricData', e);
      }
      let transitions: DrillObserver['transitions'] = [];
      try {
        transitions = (
          await describeAlarmTransitions(o.clients.cloudwatch, names, from, endWallMs + 5000)
        ).map((t) => ({
          alarm: t.alarm,
          t_s: ts(t.atMs),
          from: t.from,
          to: t.to,
        }));
      } catch (e) {
        note('DescribeAlarmHistory', e);
      }
      let activities: DrillObserver['activities'] = [];
      try {
        activities = (
          await describeScalingActivitiesSince(
            o.clients.autoscaling,
            o.target?.resourceId ?? variantResourceId(o.endpoint, o.variant),
            Math.max(o.startWallMs - LEAD_S * 1000, o.activitiesSinceWallMs ?? Number.NEGATIVE_INFINITY),
            {},
            o.target?.scalableDimension ?? VARIANT_DIMENSION,
          )
        ).map((a) => ({
          id: a.id,
          start_s: ts(a.startMs),
          end_s: a.endMs === null ? null : ts(a.endMs),
          status: a.status,
          description: a.description,
          cause: a.cause,
          to_desired: desiredFromDescription(a.description),
        }));
      } catch (e) {
        note('DescribeScalingActivities', e);
      }
      return { alarms: [...o.alarms], metric, observations, transitions, activities, errors: [...errors] };
    },
  };
}
