import type { ScalingPolicy } from '@aws-sdk/client-application-auto-scaling';
import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import type {
  DrillLoadSecond,
  DrillObserver,
  DrillPhase,
  DrillPrediction,
  LagChain,
  WatchedAlarm,
} from '../model/index.js';
import { round } from './drill-phases.js';

// ---- the alarms to watch ----------------------------------------------------------------------

/**
 * The alarms that start a scale-out (a scale-out policy's own alarms that compare GreaterThan:
 * target tracking's high alarm) and a scale-in (the alarms of policies that remove instances, and
 * target tracking's low alarm), with their deployed settings.
 */
export function watchedAlarms(
  policies: readonly ScalingPolicy[],
  alarms: ReadonlyMap<string, MetricAlarm>,
): WatchedAlarm[] {
  const out: WatchedAlarm[] = [];
  const seen = new Set<string>();
  for (const policy of policies) {
    const steps = policy.StepScalingPolicyConfiguration?.StepAdjustments ?? [];
    const removes = steps.some((s) => (s.ScalingAdjustment ?? 0) < 0);
    const adds =
      policy.PolicyType === 'TargetTrackingScaling' || steps.some((s) => (s.ScalingAdjustment ?? 0) > 0);
    for (const ref of policy.Alarms ?? []) {
      const alarm = ref.AlarmName ? alarms.get(ref.AlarmName) : undefined;
      if (!alarm?.AlarmName || seen.has(alarm.AlarmName)) continue;
      const greater = /^GreaterThan/.test(alarm.ComparisonOperator ?? '');
      const role =
        policy.PolicyType === 'TargetTrackingScaling'
          ? greater
            ? 'scale-out'
            : 'scale-in'
          : adds && greater
            ? 'scale-out'
            : removes
              ? 'scale-in'
              : null;
      if (role === null || alarm.Period === undefined || alarm.EvaluationPeriods === undefined) continue;
      seen.add(alarm.AlarmName);
      out.push({
        name: alarm.AlarmName,
        role,
        metric: `${alarm.Namespace ?? ''} ${alarm.MetricName ?? ''}`.trim(),
        statistic: alarm.Statistic ?? alarm.ExtendedStatistic ?? 'unknown',
        period_s: alarm.Period,
        evaluation_periods: alarm.EvaluationPeriods,
        datapoints_to_alarm: alarm.DatapointsToAlarm ?? alarm.EvaluationPeriods,
        threshold: alarm.Threshold ?? 0,
        comparison: alarm.ComparisonOperator ?? 'unknown',
      });
    }
  }
  return out.sort((a, b) =>
    a.role === b.role ? a.name.localeCompare(b.name) : a.role === 'scale-out' ? -1 : 1,
  );
}

/** `Setting desired instance count to 3.` (or `copy count`, an inference component) -> 3. */
export function desiredFromDescription(description: string): number | null {
  const m = /desired (?:instance |copy )?count to (\d+)/i.exec(description);
  return m ? Number(m[1]) : null;
}

/** One window of intended send time, decoded from the HDR windows. */
export interface WindowStat {
  index: number;
  offered: number;
  ok: number;
  overflow: number;
  /** Every other failure (5xx, model errors, timeouts, client_dropped, errors). */
  errors: number;
  clientDropped: number;
  p95Ms: number | null;
  /** p95 of per-stream stall (multi-chunk streams, non-ok arrivals at +infinity); undefined: no multi-chunk stream. */
  stallP95Ms?: number | null;
}

export interface DrillAnalysisInput {
  phases: readonly DrillPhase[];
  windowS: number;
  sloMs: number;
  /** The continuity SLO: a window also breaks when its stall p95 exceeds it. null/absent: first audio only. */
  underrunSloMs?: number | null;
  prediction: DrillPrediction;
  windows: readonly WindowStat[];
  seconds: readonly DrillLoadSecond[];
  observer: DrillObserver | null;
}

function comparisonOf(alarm: WatchedAlarm | undefined): (v: number) => boolean {
  if (!alarm) return () => false;
  switch (alarm.comparison) {
    case 'GreaterThanOrEqualToThreshold':
      return (v) => v >= alarm.threshold;
    case 'GreaterThanThreshold':
      return (v) => v > alarm.threshold;
    case 'LessThanThreshold':
      return (v) => v < alarm.threshold;
    default:
      return (v) => v <= alarm.threshold;
  }
}

/** The start of the run of breaching periods that ends with the last period complete before `atS`. */
function breachStartBefore(
  points: readonly { t_s: number; value: number }[],
  periodS: number,
  breaches: (v: number) => boolean,
  atS: number,
): number | null {
  const complete = [...points].filter((p) => p.t_s + periodS <= atS + 1e-6).sort((a, b) => b.t_s - a.t_s);
  const last = complete[0];
  if (!last || !breaches(last.value)) return null;
  let first = last.t_s;
  for (const p of complete.slice(1)) {
    if (Math.abs(first - p.t_s - periodS) > 1e-6 || !breaches(p.value)) break;
    first = p.t_s;
  }
  return first;
}

/**
 * `full` when the alarm's evaluation range held at least EvaluationPeriods real datapoints when
 * it fired; `partial` when it held fewer (the endpoint was idle before: an idle variant publishes
 * nothing), and CloudWatch decided on the datapoints it had (TreatMissingData missing), sooner than
 * its datapoints x period.
 */
function evaluationOf(
  points: readonly { t_s: number; value: number }[],
  alarm: WatchedAlarm,
  alarmS: number,
): 'full' | 'partial' {
  const complete = points.filter((p) => p.t_s + alarm.period_s <= alarmS + 1e-6);
  const lastStart = Math.max(...complete.map((p) => p.t_s));
  if (!Number.isFinite(lastStart)) return 'partial';
  const rangeStart = lastStart + alarm.period_s - (alarm.evaluation_periods + 2) * alarm.period_s;
  const real = complete.filter((p) => p.t_s >= rangeStart - 1e-6).length;
  return real >= alarm.evaluation_periods ? 'full' : 'partial';
}

function lastPhaseStartAtOrBefore(phases: readonly DrillPhase[], tS: number): DrillPhase {
  let found = phases[0] as DrillPhase;
  for (const p of phases) if (p.start_s <= tS + 1e-9) found = p;
  return found;
}

export function lagChains(input: DrillAnalysisInput): LagChain[] {
  const { observer, phases } = input;
  if (!observer) return [];
  const outAlarms = observer.alarms.filter((a) => a.role === 'scale-out');
  const outNames = new Set(outAlarms.map((a) => a.name));
  const obs = [...observer.observations].sort((a, b) => a.t_s - b.t_s);
  const desiredBefore = (tS: number): number | null => {
    let d: number | null = null;
    for (const o of obs) if (o.t_s < tS && o.desired !== null) d = o.desired;
    return d;
  };
  const chains: LagChain[] = [];
  let known = obs.find((o) => o.desired !== null)?.desired ?? null;
  for (const activity of [...observer.activities].sort((a, b) => a.start_s - b.start_s)) {
    const from = desiredBefore(activity.start_s) ?? known;
    const to = activity.to_desired;
    if (to === null || from === null || to <= from) {
      if (to !== null) known = to;
      continue;
    }
    known = to;
    const transition = [...observer.transitions]
      .filter((t) => outNames.has(t.alarm) && t.to === 'ALARM' && t.t_s <= activity.start_s + 0.5)
      .sort((a, b) => b.t_s - a.t_s)[0];
    const alarm = outAlarms.find((a) => a.name === transition?.alarm) ?? outAlarms[0];
    const firstBreach =
      transition && alarm
        ? breachStartBefore(
            observer.metric.points,
            observer.metric.period_s,
            comparisonOf(alarm),
            transition.t_s,
          )
        : null;
    const stepPhase = lastPhaseStartAtOrBefore(phases, firstBreach ?? transition?.t_s ?? activity.start_s);
    const origin = Math.max(stepPhase.start_s, firstBreach ?? stepPhase.start_s);
    const seen = obs.find((o) => o.t_s >= activity.start_s - 1e-6 && o.desired !== null && o.desired >= to);
    const desiredS = seen ? seen.t_s : null;
    const served =
      desiredS === null
        ? undefined
        : obs.find(
            (o) => o.t_s >= desiredS && o.current !== null && o.current >= to && o.status === 'InService',
          );
    chains.push({
      load_step: stepPhase.name,
      load_step_s: stepPhase.start_s,
      first_breach_s: firstBreach,
      alarm: transition?.alarm ?? null,
      alarm_s: transition ? round(transition.t_s) : null,
      activity_s: round(activity.start_s),
      desired_s: desiredS === null ? null : round(desiredS),
      from_instances: from,
      to_instances: to,
      in_service_s: served ? round(served.t_s) : null,
      policy_lag_s: desiredS === null ? null : round(Math.max(0, desiredS - origin)),
      detection_s:
        transition && firstBreach !== null ? round(Math.max(0, transition.t_s - firstBreach)) : null,
      configured_detection_s: alarm ? alarm.datapoints_to_alarm * alarm.period_s : null,
      evaluation: transition && alarm ? evaluationOf(observer.metric.points, alarm, transition.t_s) : null,
      scale_out_s: served && desiredS !== null ? round(Math.max(0, served.t_s - desiredS)) : null,
    });
  }
  return chains;
}
