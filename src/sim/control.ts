/**
 * The control plane of the simulated variant: the alarms a plan deploys, evaluated as CloudWatch
 * evaluates them, and Application Auto Scaling acting on them (target tracking scale-out, the step
 * scale-in, an optional step scale-out, scheduled actions). Every rule is the shared one
 * (src/autoscaling), which the local SageMaker runs too; this file only holds the state and the
 * order of a tick, which is the local SageMaker's: scheduled actions due since the last tick and
 * every alarm are evaluated first, activities progress, then the queued decisions run in order.
 */
import {
  type ActivityRecord,
  type AlarmProgress,
  type AlarmState,
  type EvaluationSpec,
  evaluateAlarm,
  evaluationRange,
  firesIn,
  initialAlarmProgress,
  type MetricPoint,
  type PolicyRules,
  type PolicyTrigger,
  parseSchedule,
  policyDecision,
  type Schedule,
  scheduledEffect,
  stepAlarm,
} from '../autoscaling/index.js';
import { policyAlarms } from './policy-alarms.js';
import type { SimActivity, SimPolicy } from './types.js';

/** What the control plane scales: the variant's desired count, refused while it is updating. */
export interface SimCapacity {
  desired(): number;
  /** Instances that take traffic (CurrentInstanceCount). */
  current(): number;
  /** Starts a change; false when refused (the endpoint is updating). */
  setDesired(count: number, tS: number): boolean;
}

/** The tracked metric's datapoints with `statistic` per `periodS`, period starts in [startMs, endMs). */
export type MetricSource = (
  statistic: string,
  periodS: number,
  startMs: number,
  endMs: number,
) => MetricPoint[];

interface SimAlarm {
  label: 'tracking-high' | 'scale-in' | 'step-scale-out';
  spec: EvaluationSpec;
  progress: AlarmProgress;
  policy: PolicyRules;
  role: PolicyTrigger['role'];
}

interface SimSchedule {
  name: string;
  schedule: Schedule;
  min: number;
  max: number;
  checkedMs: number;
}

type Record = ActivityRecord & { desired: number };

export class SimControlPlane {
  private readonly alarms: SimAlarm[] = [];
  private readonly schedules: SimSchedule[];
  /** Newest first. */
  private readonly history: Record[] = [];
  private readonly statistic: string;
  private minCapacity: number;
  private maxCapacity: number;
  readonly activities: SimActivity[] = [];
  readonly transitions: { atS: number; alarm: string; state: AlarmState }[] = [];

  constructor(
    policy: SimPolicy,
    private readonly metrics: MetricSource,
    private readonly capacity: SimCapacity,
    private readonly startEpochMs: number,
    /** Publication delay of the tracked metric (see FleetSimInput.metricDelayS), ms. */
    private readonly metricDelayMs = 0,
  ) {
    const d = policyAlarms(policy);
    this.statistic = d.trackedStatistic;
    this.minCapacity = policy.minInstances;
    this.maxCapacity = policy.maxInstances;
    const add = (
      label: SimAlarm['label'],
      spec: EvaluationSpec,
      rules: PolicyRules,
      role: PolicyTrigger['role'],
    ) =>
      this.alarms.push({
        label,
        spec,
        progress: initialAlarmProgress(spec, startEpochMs),
        policy: rules,
        role,
      });
    add(
      'tracking-high',
      d.trackingHigh,
      {
        kind: 'tracking',
        targetValue: policy.targetValue,
        scaleOutCooldownS: policy.scaleOutCooldownS,
        scaleInCooldownS: policy.scaleInCooldownS,
        disableScaleIn: true,
      },
      'high',
    );
    add(
      'scale-in',
      d.scaleInAlarm,
      { kind: 'step', rules: d.scaleInRules, cooldownS: policy.scaleInCooldownS },
      'step',
    );
    if (d.stepOut) {
      if (d.stepOut.alarm.periodS % 10 !== 0)
        throw new RangeError(
          `the step scale-out period ${d.stepOut.alarm.periodS} s is not a multiple of 10 s`,
        );
      add(
        'step-scale-out',
        d.stepOut.alarm,
        { kind: 'step', rules: d.stepOut.rules, cooldownS: d.stepOut.cooldownS },
        'step',
      );
    }
    this.schedules = policy.scheduledActions.map((a) => ({
      name: a.name,
      schedule: parseSchedule(a.schedule),
      min: a.min_capacity,
      max: a.max_capacity,
      checkedMs: startEpochMs,
    }));
  }

  /** The capacity range in force at the start: the scheduled action that fired last before it. */
  rangeAtStart(lookBackS = 7 * 86_400): { min: number; max: number } {
    let latest: { atMs: number; min: number; max: number } | undefined;
    for (const s of this.schedules) {
      const fires = firesIn(s.schedule, this.startEpochMs - lookBackS * 1000, this.startEpochMs);
      const at = fires[fires.length - 1];
      if (at !== undefined && (!latest || at > latest.atMs)) latest = { atMs: at, min: s.min, max: s.max };
    }
    if (latest) {
      this.minCapacity = latest.min;
      this.maxCapacity = latest.max;
    }
    return { min: this.minCapacity, max: this.maxCapacity };
  }

  /** One evaluation tick at tS (seconds from the start). */
  tick(tS: number): void {
    const now = this.startEpochMs + tS * 1000;
    const jobs: (() => void)[] = [];
    for (const s of this.schedules) {
      const due = firesIn(s.schedule, s.checkedMs, now, { createdMs: this.startEpochMs });
      s.checkedMs = now;
      if (due.length === 0) continue;
      jobs.push(() => {
        const effect = scheduledEffect(
          { minCapacity: this.minCapacity, maxCapacity: this.maxCapacity, desired: this.capacity.desired() },
          { minCapacity: s.min, maxCapacity: s.max },
        );
        if (!effect.ok) return;
        this.minCapacity = effect.minCapacity;
        this.maxCapacity = effect.maxCapacity;
        if (effect.desired !== this.capacity.desired())
          this.start(tS, effect.desired, 'scheduled', effect.desired, `scheduled action ${s.name}`);
      });
    }
    // The alarms see the metric as it was published `metricDelayMs` ago.
    const seen = now - this.metricDelayMs;
    for (const alarm of this.alarms) {
      const range = evaluationRange(alarm.spec, seen);
      const ev = evaluateAlarm(
        alarm.spec,
        this.metrics(this.statistic, alarm.spec.periodS, range.startMs, range.endMs),
        seen,
      );
      const step = stepAlarm(alarm.progress, ev);
      alarm.progress = step.next;
      if (step.transitioned) this.transitions.push({ atS: tS, alarm: alarm.label, state: step.next.state });
      if (!step.invoke || step.next.state !== 'ALARM') continue;
      jobs.push(() => {
        const decision = policyDecision(
          alarm.policy,
          {
            role: alarm.role,
            state: 'ALARM',
            threshold: alarm.spec.threshold,
            comparison: alarm.spec.comparison,
            evaluation: ev,
          },
          {
            current: this.capacity.desired(),
            minCapacity: this.minCapacity,
            maxCapacity: this.maxCapacity,
            scaleOutSuspended: false,
            scaleInSuspended: false,
            history: this.history,
          },
          now,
        );
        if (decision)
          this.start(tS, decision.desired, decision.direction, decision.cooldownBase, `alarm ${alarm.label}`);
      });
    }
    this.progress(tS);
    for (const job of jobs) job();
  }

  private start(
    tS: number,
    desired: number,
    direction: Record['direction'],
    cooldownBase: number,
    cause: string,
  ): void {
    const from = this.capacity.desired();
    const now = this.startEpochMs + tS * 1000;
    const ok = this.capacity.setDesired(desired, tS);
    this.history.unshift({
      direction,
      status: ok ? 'InProgress' : 'Failed',
      startMs: now,
      endMs: ok ? undefined : now,
      cooldownBase,
      desired,
    });
    if (this.history.length > 1000) this.history.length = 1000;
    if (ok)
      this.activities.push({
        atS: tS,
        from,
        to: desired,
        direction: direction === 'range' ? 'out' : direction,
        cause,
      });
    this.progress(tS);
  }

  private progress(tS: number): void {
    const now = this.startEpochMs + tS * 1000;
    for (const a of this.history) {
      if (a.status !== 'InProgress') continue;
      if (this.capacity.desired() !== a.desired || this.capacity.current() === a.desired) {
        a.status = 'Successful';
        a.endMs = now;
      }
    }
  }
}
