/**
 * One scripted metric series through a deployed policy, two ways, for tests that must fail when
 * two implementations of the scaling semantics drift apart:
 * - `scriptedEmulatorRun`: the local SageMaker's Application Auto Scaling and CloudWatch alarms
 *   (`createAutoScaling`, stepped tick by tick on an injected clock), configured through its own
 *   PutScalingPolicy / PutMetricAlarm / PutScheduledAction handlers the way the plan deploys the
 *   policy (src/plan/policy-shape.ts); its seams are a CapacityTarget whose instances take
 *   `startupMs` to arrive and a MetricReader serving the series.
 * - `referenceRun`: the same control loop written directly over the pure rules of src/autoscaling.
 * Both return the desired-count changes in order. A fleet simulator's control loop can be driven
 * with the same series and compared with either.
 *
 * The series is raw samples of the tracked metric, one per `sampleS` from `startMs`, aggregated per
 * query period with the query's statistic (as CloudWatch does); `null` is no sample (missing data).
 * It does not react to capacity: it is a script, not a fleet.
 */
import {
  type ActivityRecord,
  type AlarmProgress,
  type EvaluationSpec,
  evaluateAlarm,
  evaluationRange,
  firesIn,
  initialAlarmProgress,
  type MetricPoint,
  managedAlarmSpecs,
  type PolicyRules,
  type PolicyTrigger,
  PREDEFINED_METRICS,
  parseSchedule,
  policyDecision,
  type ScalableTargetAction,
  type Schedule,
  type StepRules,
  scheduledEffect,
  stepAlarm,
} from '../../src/autoscaling/index.js';
import { createAutoScaling } from '../../src/local/autoscaling/index.js';
import type { CapacityTarget, MetricQuery, MetricReader } from '../../src/local/contracts.js';
import { policyNames } from '../../src/plan/policy-shape.js';
import { SimControlPlane } from '../../src/sim/control.js';
import { policyAlarms } from '../../src/sim/policy-alarms.js';
import type { SimPolicy } from '../../src/sim/types.js';

export interface ScriptedSeries {
  /** Epoch ms of the first sample; a multiple of 60 s. */
  startMs: number;
  /** Seconds between samples (a divisor of every alarm period). @default 10 */
  sampleS?: number;
  values: readonly (number | null)[];
}

export interface ScriptedOptions {
  /** Evaluation interval. @default 10_000 */
  tickMs?: number;
  /** From a capacity request to the instances serving (scale-in is equally delayed). @default 0 */
  startupMs?: number;
  /** Desired count at the start. @default policy.minInstances */
  initialDesired?: number;
  /** @default the series' length */
  durationMs?: number;
}

/** One change of the desired count. */
export interface ScaleEvent {
  atMs: number;
  desired: number;
  /** tracking-high | scale-in | step-scale-out | scheduled <name> */
  cause: string;
}

const EP = 'scripted';
const VARIANT = 'AllTraffic';
const RID = `endpoint/${EP}/variant/${VARIANT}`;
const KEY = {
  ServiceNamespace: 'sagemaker',
  ResourceId: RID,
  ScalableDimension: 'sagemaker:variant:DesiredInstanceCount',
};
const NAMES = policyNames(EP, VARIANT);
const STEP_OUT_POLICY = `scalegate-${EP}-${VARIANT}-step-scale-out`;
const STEP_OUT_ALARM = STEP_OUT_POLICY;

/** The series' points for one query: each period's samples aggregated with `stat`. */
export function seriesPoints(
  series: ScriptedSeries,
  stat: string,
  periodS: number,
  startMs: number,
  endMs: number,
): MetricPoint[] {
  const sampleMs = (series.sampleS ?? 10) * 1000;
  const periodMs = periodS * 1000;
  const out: MetricPoint[] = [];
  for (let p = Math.ceil(startMs / periodMs) * periodMs; p < endMs; p += periodMs) {
    const values: number[] = [];
    for (let t = p; t < p + periodMs; t += sampleMs) {
      const i = (t - series.startMs) / sampleMs;
      const v = Number.isInteger(i) ? series.values[i] : undefined;
      if (v !== undefined && v !== null) values.push(v);
    }
    if (values.length === 0) continue;
    const value =
      stat === 'Maximum'
        ? Math.max(...values)
        : stat === 'Minimum'
          ? Math.min(...values)
          : stat === 'Sum'
            ? values.reduce((s, v) => s + v, 0)
            : stat === 'SampleCount'
              ? values.length
              : values.reduce((s, v) => s + v, 0) / values.length;
    out.push({ timestampMs: p, value });
  }
  return out;
}

/** The capacity: a change requested at t is served from t + startupMs. */
class ScriptedCapacity implements CapacityTarget {
  desired: number;
  private current: number;
  private readyAtMs = -Infinity;
  readonly log: { atMs: number; desired: number }[] = [];
  constructor(
    initial: number,
    private readonly startupMs: number,
    private readonly now: () => number,
  ) {
    this.desired = initial;
    this.current = initial;
  }
  describe(resourceId: string) {
    if (resourceId !== RID) return undefined;
    if (this.now() >= this.readyAtMs) this.current = this.desired;
    return {
      desired: this.desired,
      current: this.current,
      status: this.current === this.desired ? 'InService' : 'Updating',
    };
  }
  async setDesired(_resourceId: string, desired: number): Promise<void> {
    this.describe(RID);
    this.desired = desired;
    this.readyAtMs = this.now() + this.startupMs;
    this.log.push({ atMs: this.now(), desired });
  }
}

/** The plan's alarms and policies, in the order both runs create them (the order alarms are evaluated). */
/** The plan's alarms, as the simulator builds them (one definition for both runs). */
function deployment(policy: SimPolicy) {
  const d = policyAlarms(policy);
  return {
    tracked: d.tracked,
    scaleInAlarm: d.scaleInAlarm,
    scaleInRules: d.scaleInRules,
    stepOut: d.stepOut,
  };
}

const wireAlarm = (
  name: string,
  spec: EvaluationSpec,
  statistic: string,
  metricName: string,
  action: string,
) => ({
  AlarmName: name,
  Namespace: 'AWS/SageMaker',
  MetricName: metricName,
  Dimensions: [
    { Name: 'EndpointName', Value: EP },
    { Name: 'VariantName', Value: VARIANT },
  ],
  Statistic: statistic,
  Period: spec.periodS,
  EvaluationPeriods: spec.evaluationPeriods,
  DatapointsToAlarm: spec.datapointsToAlarm,
  Threshold: spec.threshold,
  ComparisonOperator: spec.comparison,
  TreatMissingData: spec.treatMissingData,
  AlarmActions: [action],
});

const wireSteps = (rules: StepRules) =>
  rules.steps.map((s) => ({
    ...(s.lower !== undefined ? { MetricIntervalLowerBound: s.lower } : {}),
    ...(s.upper !== undefined ? { MetricIntervalUpperBound: s.upper } : {}),
    ScalingAdjustment: s.adjustment,
  }));

function end(series: ScriptedSeries, opts: ScriptedOptions): number {
  return series.startMs + (opts.durationMs ?? series.values.length * (series.sampleS ?? 10) * 1000);
}

/** The local SageMaker's decisions on the series. */
export async function scriptedEmulatorRun(
  series: ScriptedSeries,
  policy: SimPolicy,
  opts: ScriptedOptions = {},
): Promise<ScaleEvent[]> {
  let now = series.startMs;
  const clock = () => now;
  const capacity = new ScriptedCapacity(
    opts.initialDesired ?? policy.minInstances,
    opts.startupMs ?? 0,
    clock,
  );
  const metrics: MetricReader = {
    query: (q: MetricQuery) => seriesPoints(series, q.stat, q.periodS, q.startMs, q.endMs),
  };
  const as = createAutoScaling({
    capacity,
    metrics,
    accountId: '123456789012',
    region: 'us-east-1',
    now: clock,
    autoTick: false,
  });
  const aas = as.applicationAutoScaling;
  const d = deployment(policy);
  try {
    await aas('RegisterScalableTarget', {
      ...KEY,
      MinCapacity: policy.minInstances,
      MaxCapacity: policy.maxInstances,
    });
    await aas('PutScalingPolicy', {
      ...KEY,
      PolicyName: NAMES.scaleOutPolicy,
      PolicyType: 'TargetTrackingScaling',
      TargetTrackingScalingPolicyConfiguration: {
        TargetValue: policy.targetValue,
        PredefinedMetricSpecification: { PredefinedMetricType: d.tracked.predefinedMetricType },
        ScaleOutCooldown: policy.scaleOutCooldownS,
        DisableScaleIn: true,
      },
    });
    const scaleIn = (await aas('PutScalingPolicy', {
      ...KEY,
      PolicyName: NAMES.scaleInPolicy,
      PolicyType: 'StepScaling',
      StepScalingPolicyConfiguration: {
        AdjustmentType: 'ChangeInCapacity',
        StepAdjustments: wireSteps(d.scaleInRules),
        Cooldown: policy.scaleInCooldownS,
        MetricAggregationType: 'Maximum',
      },
    })) as { PolicyARN: string };
    await as.cloudWatchAlarms(
      'PutMetricAlarm',
      wireAlarm(
        NAMES.scaleInAlarm,
        d.scaleInAlarm,
        d.tracked.statistic,
        d.tracked.metricName,
        scaleIn.PolicyARN,
      ),
    );
    if (d.stepOut) {
      const out = (await aas('PutScalingPolicy', {
        ...KEY,
        PolicyName: STEP_OUT_POLICY,
        PolicyType: 'StepScaling',
        StepScalingPolicyConfiguration: {
          AdjustmentType: d.stepOut.rules.adjustmentType,
          StepAdjustments: wireSteps(d.stepOut.rules),
          Cooldown: d.stepOut.cooldownS,
          MetricAggregationType: 'Maximum',
        },
      })) as { PolicyARN: string };
      await as.cloudWatchAlarms(
        'PutMetricAlarm',
        wireAlarm(STEP_OUT_ALARM, d.stepOut.alarm, d.tracked.statistic, d.tracked.metricName, out.PolicyARN),
      );
    }
    for (const a of policy.scheduledActions) {
      await aas('PutScheduledAction', {
        ...KEY,
        ScheduledActionName: a.name,
        Schedule: a.schedule,
        ScalableTargetAction: { MinCapacity: a.min_capacity, MaxCapacity: a.max_capacity },
      });
    }
    const tickMs = opts.tickMs ?? 10_000;
    for (now = series.startMs + tickMs; now <= end(series, opts); now += tickMs) await as.tick();

    const listed: { StartTime: number; Description: string; Cause: string; StatusCode: string }[] = [];
    let token: string | undefined;
    do {
      const page = (await aas('DescribeScalingActivities', {
        ServiceNamespace: 'sagemaker',
        ResourceId: RID,
        NextToken: token,
      })) as {
        ScalingActivities: typeof listed;
        NextToken?: string;
      };
      listed.push(...page.ScalingActivities);
      token = page.NextToken;
    } while (token);
    return listed
      .reverse()
      .filter((a) => a.StatusCode !== 'Failed')
      .map((a) => ({
        atMs: Math.round(a.StartTime * 1000),
        desired: Number(/to (\d+)\.$/.exec(a.Description)?.[1]),
        cause: causeLabel(a.Cause),
      }));
  } finally {
    as.close();
  }
}

function causeLabel(cause: string): string {
  const scheduled = /scheduled action name (.+) was triggered$/.exec(cause);
  if (scheduled) return `scheduled ${scheduled[1]}`;
  const alarm = /^monitor alarm (\S+) in state/.exec(cause)?.[1] ?? cause;
  if (/^TargetTracking-.*-AlarmHigh-/.test(alarm)) return 'tracking-high';
  if (/^TargetTracking-.*-AlarmLow-/.test(alarm)) return 'tracking-low';
  if (alarm === NAMES.scaleInAlarm) return 'scale-in';
  if (alarm === STEP_OUT_ALARM) return 'step-scale-out';
  return cause;
}

interface RefAlarm {
  label: 'tracking-high' | 'scale-in' | 'step-scale-out';
  spec: EvaluationSpec;
  statistic: string;
  progress: AlarmProgress;
  policy: PolicyRules;
  role: PolicyTrigger['role'];
}

/** The same control loop over the pure rules of src/autoscaling (what a simulator does). */
export function referenceRun(
  series: ScriptedSeries,
  policy: SimPolicy,
  opts: ScriptedOptions = {},
): ScaleEvent[] {
  const t0 = series.startMs;
  const tickMs = opts.tickMs ?? 10_000;
  const startupMs = opts.startupMs ?? 0;
  const d = deployment(policy);
  const timing = PREDEFINED_METRICS[d.tracked.predefinedMetricType].timing;
  const tracking: PolicyRules = {
    kind: 'tracking',
    targetValue: policy.targetValue,
    scaleOutCooldownS: policy.scaleOutCooldownS,
    scaleInCooldownS: 300,
    disableScaleIn: true,
  };
  const alarms: RefAlarm[] = [];
  const add = (
    label: RefAlarm['label'],
    spec: EvaluationSpec,
    statistic: string,
    p: PolicyRules,
    role: PolicyTrigger['role'],
  ) => alarms.push({ label, spec, statistic, progress: initialAlarmProgress(spec, t0), policy: p, role });
  add(
    'tracking-high',
    managedAlarmSpecs(policy.targetValue, timing).high,
    PREDEFINED_METRICS[d.tracked.predefinedMetricType].statistic,
    tracking,
    'high',
  );
  add(
    'scale-in',
    d.scaleInAlarm,
    d.tracked.statistic,
    { kind: 'step', rules: d.scaleInRules, cooldownS: policy.scaleInCooldownS },
    'step',
  );
  if (d.stepOut) {
    add(
      'step-scale-out',
      d.stepOut.alarm,
      d.tracked.statistic,
      { kind: 'step', rules: d.stepOut.rules, cooldownS: d.stepOut.cooldownS },
      'step',
    );
  }
  const schedules = policy.scheduledActions.map((a) => ({
    name: a.name,
    schedule: parseSchedule(a.schedule) as Schedule,
    action: { minCapacity: a.min_capacity, maxCapacity: a.max_capacity } satisfies ScalableTargetAction,
    checkedMs: t0,
  }));

  const target = { minCapacity: policy.minInstances, maxCapacity: policy.maxInstances };
  let desired = opts.initialDesired ?? policy.minInstances;
  let current = desired;
  let readyAtMs = -Infinity;
  const history: (ActivityRecord & { desired: number })[] = []; // newest first
  const events: ScaleEvent[] = [];

  const serving = (now: number) => {
    if (now >= readyAtMs) current = desired;
  };
  const progress = (now: number) => {
    serving(now);
    for (const a of history) {
      if (a.status === 'InProgress' && (desired !== a.desired || current === a.desired)) {
        a.status = 'Successful';
        a.endMs = now;
      }
    }
  };
  const start = (
    now: number,
    to: number,
    direction: ActivityRecord['direction'],
    cooldownBase: number,
    cause: string,
  ) => {
    serving(now);
    desired = to;
    readyAtMs = now + startupMs;
    history.unshift({
      direction,
      status: 'InProgress',
      startMs: now,
      endMs: undefined,
      cooldownBase,
      desired: to,
    });
    events.push({ atMs: now, desired: to, cause });
    progress(now);
  };

  for (let now = t0 + tickMs; now <= end(series, opts); now += tickMs) {
    const jobs: (() => void)[] = [];
    for (const s of schedules) {
      const due = firesIn(s.schedule, s.checkedMs, now, { createdMs: t0 });
      s.checkedMs = now;
      if (due.length === 0) continue;
      jobs.push(() => {
        const effect = scheduledEffect({ ...target, desired }, s.action);
        if (!effect.ok) return;
        target.minCapacity = effect.minCapacity;
        target.maxCapacity = effect.maxCapacity;
        if (effect.desired !== desired)
          start(now, effect.desired, 'scheduled', effect.desired, `scheduled ${s.name}`);
      });
    }
    for (const alarm of alarms) {
      const range = evaluationRange(alarm.spec, now);
      const ev = evaluateAlarm(
        alarm.spec,
        seriesPoints(series, alarm.statistic, alarm.spec.periodS, range.startMs, range.endMs),
        now,
      );
      const step = stepAlarm(alarm.progress, ev);
      alarm.progress = step.next;
      if (!step.invoke || step.next.state !== 'ALARM') continue;
      jobs.push(() => {
        const trigger: PolicyTrigger = {
          role: alarm.role,
          state: 'ALARM',
          threshold: alarm.spec.threshold,
          comparison: alarm.spec.comparison,
          evaluation: ev,
        };
        const decision = policyDecision(
          alarm.policy,
          trigger,
          { current: desired, ...target, scaleOutSuspended: false, scaleInSuspended: false, history },
          now,
        );
        if (decision) start(now, decision.desired, decision.direction, decision.cooldownBase, alarm.label);
      });
    }
    progress(now);
    for (const job of jobs) job();
  }
  return events;
}

/**
 * The fleet simulator's control plane (src/sim/control.ts) driven by the same series, capacity and
 * ticks: what the simulator decides, to compare with the emulator's decisions.
 */
export function simulatorRun(
  series: ScriptedSeries,
  policy: SimPolicy,
  opts: ScriptedOptions = {},
): ScaleEvent[] {
  const t0 = series.startMs;
  const tickMs = opts.tickMs ?? 10_000;
  const startupMs = opts.startupMs ?? 0;
  let nowMs = t0;
  const capacity = new ScriptedCapacity(opts.initialDesired ?? policy.minInstances, startupMs, () => nowMs);
  const control = new SimControlPlane(
    policy,
    (statistic, periodS, startMs, endMs) => seriesPoints(series, statistic, periodS, startMs, endMs),
    {
      desired: () => capacity.desired,
      current: () => capacity.describe(RID)?.current ?? 0,
      setDesired: (count) => {
        void capacity.setDesired(RID, count);
        return true;
      },
    },
    t0,
  );
  for (nowMs = t0 + tickMs; nowMs <= end(series, opts); nowMs += tickMs) control.tick((nowMs - t0) / 1000);
  return control.activities.map((a) => ({
    atMs: t0 + Math.round(a.atS * 1000),
    desired: a.to,
    cause: a.cause.startsWith('scheduled action ')
      ? `scheduled ${a.cause.slice('scheduled action '.length)}`
      : a.cause.replace(/^alarm /, ''),
  }));
}
