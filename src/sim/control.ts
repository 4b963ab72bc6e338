/**
 * The control plane of the simulated variant: the alarms a plan deploys, evaluated as CloudWatch
 * evaluates them, and Application Auto Scaling acting on them (target tracking scale-out, the step
 * scale-in, an optional step scale-out, scheduled actions), with the same activity, cooldown and
 * "endpoint is updating" rules as the local SageMaker. Simulated time in seconds from the start;
 * CloudWatch periods by epoch (startEpochMs + t).
 */
import { type AlarmState, type EvaluationSpec, evaluateAlarm } from '../local/autoscaling/evaluate.js';
import type { ScalingMetric, StepScaleOut } from '../model/index.js';
import type { SimMetrics } from './metrics.js';
import type { SimActivity, SimPolicy } from './types.js';

/** What the control plane scales: the variant's desired count, refused while it is updating. */
export interface SimCapacity {
  desired(): number;
  /** Instances that take traffic (CurrentInstanceCount). */
  current(): number;
  updating(): boolean;
  /** Starts a change; false when refused (the endpoint is updating). */
  setDesired(count: number, tS: number): boolean;
}

/** How the tracked metric is read by each alarm (as src/plan/policy-shape.ts deploys it). */
const TRACKING = {
  ConcurrentRequestsPerModel: { highPeriodS: 10, highDatapoints: 3 },
  InvocationsPerInstance: { highPeriodS: 60, highDatapoints: 3 },
} as const satisfies Record<ScalingMetric, { highPeriodS: number; highDatapoints: number }>;
const SCALE_IN = { periodS: 60, evaluationPeriods: 15 } as const;

type Action =
  | { kind: 'tracking' }
  | { kind: 'step-in' }
  | { kind: 'step-out'; step: StepScaleOut };

interface SimAlarm {
  name: string;
  metric: ScalingMetric;
  spec: EvaluationSpec;
  action: Action;
  state: AlarmState;
  lastActionPeriodEndMs: number;
}

interface ActivityRecord {
  direction: 'out' | 'in' | 'scheduled';
  status: 'InProgress' | 'Successful' | 'Failed';
  startS: number;
  endS: number | undefined;
  desired: number;
  cooldownBase: number;
}

export class SimControlPlane {
  private readonly alarms: SimAlarm[] = [];
  /** Newest first. */
  private readonly records: ActivityRecord[] = [];
  private min: number;
  private max: number;
  readonly activities: SimActivity[] = [];
  readonly transitions: { atS: number; alarm: string; state: AlarmState }[] = [];

  constructor(
    private readonly policy: SimPolicy,
    private readonly metrics: SimMetrics,
    private readonly capacity: SimCapacity,
    private readonly startEpochMs: number,
  ) {
    this.min = policy.minInstances;
    this.max = policy.maxInstances;
    const tracking = TRACKING[policy.metric];
    this.alarms.push({
      name: 'AlarmHigh',
      metric: policy.metric,
      spec: {
        periodS: tracking.highPeriodS,
        evaluationPeriods: tracking.highDatapoints,
        datapointsToAlarm: tracking.highDatapoints,
        threshold: policy.targetValue,
        comparison: 'GreaterThanThreshold',
        treatMissingData: 'missing',
      },
      action: { kind: 'tracking' },
      state: 'INSUFFICIENT_DATA',
      lastActionPeriodEndMs: 0,
    });
    this.alarms.push({
      name: 'scale-in',
      metric: policy.metric,
      spec: {
        periodS: SCALE_IN.periodS,
        evaluationPeriods: SCALE_IN.evaluationPeriods,
        datapointsToAlarm: SCALE_IN.evaluationPeriods,
        threshold: policy.scaleInThreshold,
        comparison: 'LessThanOrEqualToThreshold',
        treatMissingData: 'breaching',
      },
      action: { kind: 'step-in' },
      state: 'INSUFFICIENT_DATA',
      lastActionPeriodEndMs: 0,
    });
    const step = policy.stepScaleOut;
    if (step) {
      if (step.period_s % 10 !== 0) throw new RangeError(`step scale-out period ${step.period_s} s is not a multiple of 10 s`);
      this.alarms.push({
        name: 'step-scale-out',
        metric: policy.metric,
        spec: {
          periodS: step.period_s,
          evaluationPeriods: step.evaluation_periods,
          datapointsToAlarm: step.evaluation_periods,
          threshold: step.threshold,
          comparison: 'GreaterThanThreshold',
          treatMissingData: 'notBreaching',
        },
        action: { kind: 'step-out', step },
        state: 'INSUFFICIENT_DATA',
        lastActionPeriodEndMs: 0,
      });
    }
  }

  /** One evaluation tick at tS: alarms (and their actions), then activity progress. */
  tick(tS: number): void {
    const nowMs = this.startEpochMs + tS * 1000;
    for (const alarm of this.alarms) {
      const periodMs = alarm.spec.periodS * 1000;
      const endMs = Math.floor(nowMs / periodMs) * periodMs;
      const startMs = endMs - (alarm.spec.evaluationPeriods + 2) * periodMs;
      const points = this.metrics.query(alarm.metric, alarm.spec.periodS, startMs, endMs);
      const ev = evaluateAlarm(alarm.spec, points, nowMs);
      const next = ev.state ?? alarm.state;
      let invoke = false;
      if (next !== alarm.state) {
        alarm.state = next;
        alarm.lastActionPeriodEndMs = endMs;
        this.transitions.push({ atS: tS, alarm: alarm.name, state: next });
        invoke = true;
      } else if (endMs > alarm.lastActionPeriodEndMs) {
        // The state persisted through another completed period: its actions run again.
        alarm.lastActionPeriodEndMs = endMs;
        invoke = true;
      }
      if (invoke && alarm.state === 'ALARM') this.act(alarm, ev.evaluated, tS);
    }
    this.progress(tS);
  }

  private act(alarm: SimAlarm, evaluated: { value: number | undefined; breaching: boolean }[], tS: number): void {
    const current = this.capacity.desired();
    const cause = `alarm ${alarm.name} in state ALARM`;
    if (alarm.action.kind === 'tracking') {
      const metric = evaluated.find((d) => d.value !== undefined)?.value;
      const target = this.policy.targetValue;
      const proportional = (base: number): number =>
        metric === undefined ? base + 1 : Math.max(base + 1, Math.ceil((base * metric) / target));
      this.scaleOut(current, this.policy.scaleOutCooldownS, proportional, cause, tS);
      return;
    }
    const values = evaluated.filter((d) => d.breaching && d.value !== undefined).map((d) => d.value as number);
    const aggregated = values.length === 0 ? alarm.spec.threshold : Math.max(...values);
    const diff = aggregated - alarm.spec.threshold;
    if (alarm.action.kind === 'step-in') {
      // One step: at or below the threshold (upper bound 0) -> -1 instance.
      if (diff <= 0) this.scaleIn(current, this.policy.scaleInCooldownS, current - 1, cause, tS);
      return;
    }
    const step = alarm.action.step;
    const adjust = (base: number): number => {
      const chosen = step.steps.find(
        (s) => diff >= s.lower_bound && diff < (s.upper_bound === null ? Number.POSITIVE_INFINITY : s.upper_bound),
      );
      if (!chosen) return base;
      if (step.adjustment_type === 'ChangeInCapacity') return base + chosen.adjustment;
      const raw = (base * chosen.adjustment) / 100;
      return base + (raw > 1 ? Math.floor(raw) : raw > 0 ? 1 : 0);
    };
    this.scaleOut(current, step.cooldown_s, adjust, cause, tS);
  }

  private scaleOut(
    current: number,
    cooldownS: number,
    compute: (base: number) => number,
    cause: string,
    tS: number,
  ): void {
    const last = this.records.find((a) => a.direction === 'out' && a.status !== 'Failed');
    const inCooldown = last !== undefined && (last.endS === undefined || tS < last.endS + cooldownS);
    // In cooldown, what the last scale-out added counts as present: compute from the capacity
    // before it and act only on a larger result.
    const base = inCooldown ? (last as ActivityRecord).cooldownBase : current;
    const desired = Math.min(this.max, compute(base));
    if (desired <= current) return;
    this.start('out', desired, current, base, cause, tS);
  }

  private scaleIn(current: number, cooldownS: number, proposed: number, cause: string, tS: number): void {
    if (this.records.some((a) => a.status === 'InProgress')) return;
    const lastIn = this.records.find((a) => a.direction === 'in' && a.status !== 'Failed');
    const lastOut = this.records.find((a) => a.direction === 'out' && a.status !== 'Failed');
    const cutShort = lastIn !== undefined && lastOut !== undefined && lastOut.startS >= lastIn.startS;
    if (lastIn && !cutShort && tS < (lastIn.endS ?? tS) + cooldownS) return;
    const desired = Math.max(this.min, proposed);
    if (desired >= current) return;
    this.start('in', desired, current, desired, cause, tS);
  }

  /** The range in force at the start (a scheduled action that fired before it). */
  setRange(min: number, max: number): void {
    this.min = min;
    this.max = max;
  }

  /** A scheduled action fired at tS: the new range, and desired moved into it. */
  scheduled(name: string, min: number, max: number, tS: number): void {
    this.min = min;
    this.max = max;
    const current = this.capacity.desired();
    const goal = Math.min(max, Math.max(min, current));
    if (goal !== current) this.start('scheduled', goal, current, current, `scheduled action ${name}`, tS);
  }

  private start(
    direction: ActivityRecord['direction'],
    desired: number,
    from: number,
    cooldownBase: number,
    cause: string,
    tS: number,
  ): void {
    const ok = this.capacity.setDesired(desired, tS);
    const record: ActivityRecord = {
      direction,
      status: ok ? 'InProgress' : 'Failed',
      startS: tS,
      endS: ok ? undefined : tS,
      desired,
      cooldownBase,
    };
    this.records.unshift(record);
    if (this.records.length > 1000) this.records.length = 1000;
    if (ok) this.activities.push({ atS: tS, from, to: desired, direction, cause });
    this.progress(tS);
  }

  private progress(tS: number): void {
    for (const a of this.records) {
      if (a.status !== 'InProgress') continue;
      if (this.capacity.desired() !== a.desired || this.capacity.current() === a.desired) {
        a.status = 'Successful';
        a.endS = tS;
      }
    }
  }
}
