/**
 * Application Auto Scaling for SageMaker endpoint variants (`sagemaker:variant:DesiredInstanceCount`)
 * and inference components (`sagemaker:inference-component:DesiredCopyCount`, min 0 allowed):
 * scalable targets, target-tracking and step scaling policies that act on CloudWatch alarms, and
 * the scaling activities they produce.
 *
 * AWS behaviour relied on (Application Auto Scaling User Guide and API Reference):
 * - Target tracking creates and owns its alarms (names `TargetTracking-<resourceId>-AlarmHigh-<uuid>`
 *   / `-AlarmLow-<uuid>`, description "DO NOT EDIT OR DELETE ..."), deletes them with the policy,
 *   and has no AlarmLow when scale-in is disabled. It scales out proportionally to the metric and
 *   scales in only once the metric is clearly (about 10 %) below the target.
 * - Step adjustments are intervals of (metric - alarm threshold); above the threshold the lower
 *   bound is inclusive and the upper exclusive, below it the reverse.
 * - Cooldowns (ScaleOutCooldown, ScaleInCooldown, step Cooldown; default 300 s for SageMaker
 *   variants) run from the end of the scaling activity. During a scale-out cooldown the capacity
 *   that activity added counts as already there: only a larger scale-out adds (the difference).
 *   A scale-in cooldown blocks scale-in only; a scale-out cuts it short.
 * - Suspension flags stop dynamic scale-in / scale-out; min/max always bound a policy's result.
 * - Registering (or updating) min/max so that the desired count is outside them scales it into range.
 * - Only changes Application Auto Scaling makes are activities; a manual
 *   UpdateEndpointWeightsAndCapacities is not, so nothing here infers activities from capacity.
 */
import { randomUUID } from 'node:crypto';
import {
  type ActivityDirection,
  type ActivityStatus,
  ADJUSTMENT_TYPES,
  AGGREGATIONS,
  CUSTOMIZED_METRIC_TIMING,
  type ManagedAlarmTiming,
  managedAlarmSpecs,
  type PolicyRules,
  PREDEFINED_METRIC_TYPES,
  PREDEFINED_METRICS,
  type PredefinedMetricType,
  policyDecision,
  type ScalableTargetAction,
  type StepAdjustment,
  type StepRules,
  scheduledEffect,
} from '../../autoscaling/index.js';
import { AwsError } from '../aws-error.js';
import type { CapacityTarget } from '../contracts.js';
import { epochSeconds, type Input, Reader } from '../wire.js';
import type { AlarmActionEvent, AlarmStore, MetricAlarm } from './alarms.js';
import {
  aasInvalid,
  checkDimension,
  decodeToken,
  dimensionOf,
  IC_RESOURCE_ID,
  NAMESPACE,
  noTarget,
  page,
  RESOURCE_ID,
  readKey,
  readNamespace,
  unitOf,
} from './input.js';

/** AWS default cooldown for SageMaker endpoint variants (TargetTrackingScalingPolicyConfiguration). */
const DEFAULT_COOLDOWN_S = 300;
/** AWS quota: scaling policies per scalable target. */
const MAX_POLICIES_PER_TARGET = 50;
/** Activities kept per target; AWS keeps six weeks of history. */
const MAX_ACTIVITIES_PER_TARGET = 1000;

const METRIC_STATISTICS = ['Average', 'Minimum', 'Maximum', 'SampleCount', 'Sum'] as const;

/** The metric of a target-tracking policy's managed alarms (timing: src/autoscaling/target-tracking.ts). */
interface ManagedMetric {
  namespace: string;
  metricName: string;
  dimensions: { Name: string; Value: string }[];
  statistic: string;
  unit: string | undefined;
  timing: ManagedAlarmTiming;
}

interface SuspendedState {
  DynamicScalingInSuspended: boolean;
  DynamicScalingOutSuspended: boolean;
  ScheduledScalingSuspended: boolean;
}

interface ScalableTarget {
  resourceId: string;
  minCapacity: number;
  maxCapacity: number;
  roleArn: string;
  createdMs: number;
  suspended: SuspendedState;
  arn: string;
}

interface StepConfig extends StepRules {
  cooldownS: number;
}

interface TargetTrackingConfig {
  targetValue: number;
  scaleOutCooldownS: number;
  scaleInCooldownS: number;
  disableScaleIn: boolean;
  metric: ManagedMetric;
}

interface ScalingPolicy {
  name: string;
  arn: string;
  resourceId: string;
  type: 'TargetTrackingScaling' | 'StepScaling';
  createdMs: number;
  /** The configuration as given, returned by DescribeScalingPolicies. */
  wire: Record<string, unknown>;
  step: StepConfig | undefined;
  tracking: TargetTrackingConfig | undefined;
  /** Identifies the policy's managed alarms; kept across updates so their names stay stable. */
  alarmId: string;
  alarmHigh: string | undefined;
  alarmLow: string | undefined;
}

type Direction = ActivityDirection;

interface Activity {
  id: string;
  resourceId: string;
  description: string;
  cause: string;
  startMs: number;
  endMs: number | undefined;
  status: ActivityStatus;
  statusMessage: string | undefined;
  desired: number;
  fromDesired: number;
  direction: Direction;
  /** For scale-outs: the capacity before the scale-out that opened the current cooldown. */
  cooldownBase: number;
}

export interface ScalingServiceOptions {
  capacity: CapacityTarget;
  alarms: AlarmStore;
  accountId: string;
  region: string;
  now: () => number;
}

export class ScalingService {
  private readonly targets = new Map<string, ScalableTarget>();
  private readonly policies = new Map<string, ScalingPolicy>(); // by ARN
  /** Newest first. */
  private activities: Activity[] = [];
  /** Activities still InProgress, so each tick only looks at those. */
  private readonly open = new Set<Activity>();
  /** Serialises scaling decisions per target so two alarms cannot race on the same capacity. */
  private readonly queues = new Map<string, Promise<void>>();
  private generation = 0;

  /** DeregisterScalableTarget also deletes the target's scheduled actions (wired in index.ts). */
  onDeregister: (resourceId: string) => void = () => {};

  constructor(private readonly opts: ScalingServiceOptions) {}

  /** Resolves once every decision queued so far has run (a tick's actions included). */
  async settle(): Promise<void> {
    await Promise.all([...this.queues.values()]);
  }

  // ---- scheduled actions (the store and wire API: scheduled.ts) ----------------------------

  /** undefined: no such target; else whether its scheduled scaling is suspended. */
  scheduledSuspended = (resourceId: string): boolean | undefined =>
    this.targets.get(resourceId)?.suspended.ScheduledScalingSuspended;

  /**
   * A scheduled action fired: its MinCapacity / MaxCapacity become the target's and a desired count
   * outside them is moved into the new range, as an activity (src/autoscaling/schedule.ts).
   */
  applyScheduledAction = (
    resourceId: string,
    action: ScalableTargetAction,
    name: string,
    firedAtMs: number,
  ): void => {
    this.enqueue(resourceId, async () => {
      const target = this.targets.get(resourceId);
      const variant = this.opts.capacity.describe(resourceId);
      if (!target || !variant) return;
      const cause = `at ${iso(firedAtMs)} scheduled action name ${name} was triggered`;
      const effect = scheduledEffect({ ...target, desired: variant.desired }, action);
      if (!effect.ok) {
        this.recordFailed(
          resourceId,
          variant.desired,
          cause,
          `Failed to apply scheduled action ${name}: ${effect.reason}.`,
        );
        return;
      }
      target.minCapacity = effect.minCapacity;
      target.maxCapacity = effect.maxCapacity;
      if (effect.desired !== variant.desired) {
        await this.startActivity(
          resourceId,
          effect.desired,
          variant.desired,
          'scheduled',
          cause,
          effect.desired,
        );
      }
    });
  };

  reset(): void {
    this.generation++;
    for (const p of this.policies.values()) this.dropPolicyAlarms(p);
    this.targets.clear();
    this.policies.clear();
    this.activities = [];
    this.open.clear();
    this.queues.clear();
  }

  handle = async (operation: string, input: Record<string, unknown>): Promise<unknown> => {
    switch (operation) {
      case 'RegisterScalableTarget':
        return this.registerScalableTarget(input);
      case 'DescribeScalableTargets':
        return this.describeScalableTargets(input);
      case 'DeregisterScalableTarget':
        return this.deregisterScalableTarget(input);
      case 'PutScalingPolicy':
        return this.putScalingPolicy(input);
      case 'DescribeScalingPolicies':
        return this.describeScalingPolicies(input);
      case 'DeleteScalingPolicy':
        return this.deleteScalingPolicy(input);
      case 'DescribeScalingActivities':
        return this.describeScalingActivities(input);
      default:
        throw new AwsError('UnknownOperationException', `Unknown operation ${operation}`);
    }
  };

  // ---- scalable targets -------------------------------------------------------------------

  private registerScalableTarget(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    const resourceId = readKey(r);
    const min = r.int('MinCapacity', true);
    const max = r.int('MaxCapacity', true);
    const roleArn = r.str('RoleARN', true);
    const suspended = r.obj('SuspendedState');
    if (min !== undefined && min < 0) throw aasInvalid('MinCapacity must be at least 0.');
    if (max !== undefined && max < 0) throw aasInvalid('MaxCapacity must be at least 0.');
    const variant = this.opts.capacity.describe(resourceId);
    if (!variant)
      throw aasInvalid(
        `Could not find the ${IC_RESOURCE_ID.test(resourceId) ? 'inference component' : 'endpoint variant'} for resource ID ${resourceId}.`,
      );

    const existing = this.targets.get(resourceId);
    if (!existing && (min === undefined || max === undefined)) {
      throw aasInvalid('MinCapacity and MaxCapacity are required to register a new scalable target.');
    }
    const newMin = min ?? (existing as ScalableTarget).minCapacity;
    const newMax = max ?? (existing as ScalableTarget).maxCapacity;
    if (newMin > newMax) {
      throw aasInvalid(`Minimum capacity ${newMin} cannot be greater than maximum capacity ${newMax}.`);
    }
    const flags = readSuspended(suspended, existing?.suspended);
    const target: ScalableTarget = existing ?? {
      resourceId,
      minCapacity: newMin,
      maxCapacity: newMax,
      roleArn:
        roleArn ??
        `arn:aws:iam::${this.opts.accountId}:role/aws-service-role/sagemaker.application-autoscaling.amazonaws.com/AWSServiceRoleForApplicationAutoScaling_SageMakerEndpoint`,
      createdMs: this.opts.now(),
      suspended: flags,
      arn: `arn:aws:application-autoscaling:${this.opts.region}:${this.opts.accountId}:scalable-target/${randomUUID().replaceAll('-', '')}`,
    };
    // Update: only what was given changes; the rest (and unspecified suspension flags) is kept.
    target.minCapacity = newMin;
    target.maxCapacity = newMax;
    target.suspended = flags;
    if (roleArn !== undefined) target.roleArn = roleArn;
    this.targets.set(resourceId, target);

    // AWS scales a desired count outside the new range into it, as an activity.
    const desired = variant.desired;
    if (desired < newMin || desired > newMax) {
      const which =
        desired < newMin ? `minimum capacity was set to ${newMin}` : `maximum capacity was set to ${newMax}`;
      const cause = `at ${iso(this.opts.now())} the ${which}, which put the desired ${unitOf(resourceId)} ${desired} out of range`;
      this.enqueue(resourceId, async () => {
        const now = this.opts.capacity.describe(resourceId);
        if (!now || !this.targets.has(resourceId)) return;
        const goal = Math.min(target.maxCapacity, Math.max(target.minCapacity, now.desired));
        if (goal !== now.desired)
          await this.startActivity(resourceId, goal, now.desired, 'range', cause, now.desired);
      });
    }
    return { ScalableTargetARN: target.arn };
  }

  private describeScalableTargets(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    readNamespace(r);
    const ids = r.strList('ResourceIds');
    const dim = r.str('ScalableDimension', true);
    if (dim !== undefined) checkDimension(dim);
    if (ids && ids.length > 50) throw aasInvalid('ResourceIds may hold at most 50 IDs.');
    const matching = [...this.targets.values()].filter((t) => !ids || ids.includes(t.resourceId));
    const scope = JSON.stringify(['targets', ids, dim]);
    const { items, nextToken } = pageOf(r, matching, scope, 50);
    return {
      ScalableTargets: items.map((t) => ({
        ServiceNamespace: NAMESPACE,
        ResourceId: t.resourceId,
        ScalableDimension: dimensionOf(t.resourceId),
        MinCapacity: t.minCapacity,
        MaxCapacity: t.maxCapacity,
        RoleARN: t.roleArn,
        CreationTime: epochSeconds(t.createdMs),
        SuspendedState: { ...t.suspended },
        ScalableTargetARN: t.arn,
      })),
      ...(nextToken ? { NextToken: nextToken } : {}),
    };
  }

  private deregisterScalableTarget(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    const resourceId = readKey(r);
    if (!this.targets.has(resourceId)) throw noTarget(resourceId);
    // AWS deletes the target's scaling policies (and so their managed alarms) with it.
    for (const p of [...this.policies.values()]) if (p.resourceId === resourceId) this.removePolicy(p);
    this.targets.delete(resourceId);
    this.onDeregister(resourceId);
    return {};
  }

  // ---- scaling policies -------------------------------------------------------------------

  private putScalingPolicy(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    const name = r.str('PolicyName');
    if (name.length < 1 || name.length > 256)
      throw aasInvalid('PolicyName must be 1 to 256 characters long.');
    const resourceId = readKey(r);
    if (!this.targets.has(resourceId)) throw noTarget(resourceId);
    const existing = this.findPolicy(resourceId, name);
    const type = r.str('PolicyType', true) ?? existing?.type;
    if (type === undefined) throw aasInvalid('PolicyType is required to create a scaling policy.');
    if (type !== 'TargetTrackingScaling' && type !== 'StepScaling') {
      throw aasInvalid(
        `PolicyType ${type} is not supported by the local SageMaker; use TargetTrackingScaling or StepScaling.`,
      );
    }
    const stepInput = r.obj('StepScalingPolicyConfiguration');
    const ttInput = r.obj('TargetTrackingScalingPolicyConfiguration');
    if (r.has('PredictiveScalingPolicyConfiguration')) {
      throw aasInvalid('Predictive scaling is not supported by the local SageMaker.');
    }
    if (type === 'StepScaling' && (!stepInput || ttInput)) {
      throw aasInvalid(
        'A StepScaling policy needs StepScalingPolicyConfiguration (and no target tracking configuration).',
      );
    }
    if (type === 'TargetTrackingScaling' && (!ttInput || stepInput)) {
      throw aasInvalid(
        'A TargetTrackingScaling policy needs TargetTrackingScalingPolicyConfiguration (and no step scaling configuration).',
      );
    }
    if (
      !existing &&
      [...this.policies.values()].filter((p) => p.resourceId === resourceId).length >= MAX_POLICIES_PER_TARGET
    ) {
      throw new AwsError(
        'LimitExceededException',
        `At most ${MAX_POLICIES_PER_TARGET} scaling policies per scalable target.`,
      );
    }
    const step = stepInput ? readStep(stepInput) : undefined;
    const tracking = ttInput ? readTracking(ttInput, resourceId) : undefined;

    const policy: ScalingPolicy = existing ?? {
      name,
      arn: `arn:aws:autoscaling:${this.opts.region}:${this.opts.accountId}:scalingPolicy:${randomUUID()}:resource/${NAMESPACE}/${resourceId}:policyName/${name}`,
      resourceId,
      type,
      createdMs: this.opts.now(),
      wire: {},
      step: undefined,
      tracking: undefined,
      alarmId: randomUUID(),
      alarmHigh: undefined,
      alarmLow: undefined,
    };
    policy.type = type;
    policy.step = step;
    policy.tracking = tracking;
    policy.wire = step
      ? { StepScalingPolicyConfiguration: pick(stepInput as Input, STEP_KEYS) }
      : { TargetTrackingScalingPolicyConfiguration: pick(ttInput as Input, TT_KEYS) };
    this.policies.set(policy.arn, policy);
    this.syncManagedAlarms(policy);
    return {
      PolicyARN: policy.arn,
      ...(policy.type === 'TargetTrackingScaling' ? { Alarms: this.policyAlarms(policy) } : {}),
    };
  }

  private describeScalingPolicies(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    readNamespace(r);
    const names = r.strList('PolicyNames');
    const resourceId = r.str('ResourceId', true);
    const dim = r.str('ScalableDimension', true);
    // The API reference asks for a resource ID with a dimension; whether AWS enforces it is not
    // documented, so a lone dimension is accepted (only one dimension exists here anyway).
    if (dim !== undefined) checkDimension(dim);
    const matching = [...this.policies.values()]
      .filter((p) => !names || names.includes(p.name))
      .filter((p) => resourceId === undefined || p.resourceId === resourceId);
    const scope = JSON.stringify(['policies', names, resourceId, dim]);
    const { items, nextToken } = pageOf(r, matching, scope, 10);
    return {
      ScalingPolicies: items.map((p) => ({
        PolicyARN: p.arn,
        PolicyName: p.name,
        ServiceNamespace: NAMESPACE,
        ResourceId: p.resourceId,
        ScalableDimension: dimensionOf(p.resourceId),
        PolicyType: p.type,
        ...p.wire,
        Alarms: this.policyAlarms(p),
        CreationTime: epochSeconds(p.createdMs),
      })),
      ...(nextToken ? { NextToken: nextToken } : {}),
    };
  }

  private deleteScalingPolicy(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    const name = r.str('PolicyName');
    const resourceId = readKey(r);
    const policy = this.findPolicy(resourceId, name);
    if (!policy) {
      throw new AwsError(
        'ObjectNotFoundException',
        `No scaling policy found for service namespace: ${NAMESPACE}, resource ID: ${resourceId}, scalable dimension: ${dimensionOf(resourceId)}, policy name: ${name}`,
      );
    }
    this.removePolicy(policy);
    return {};
  }

  private findPolicy(resourceId: string, name: string): ScalingPolicy | undefined {
    for (const p of this.policies.values()) if (p.resourceId === resourceId && p.name === name) return p;
    return undefined;
  }

  private removePolicy(policy: ScalingPolicy): void {
    this.dropPolicyAlarms(policy);
    this.policies.delete(policy.arn);
  }

  /**
   * Target tracking deletes its own alarms; a step policy's alarms belong to the user, and AWS
   * only removes the policy from their actions.
   */
  private dropPolicyAlarms(policy: ScalingPolicy): void {
    const managed = [policy.alarmHigh, policy.alarmLow].filter((n): n is string => n !== undefined);
    this.opts.alarms.delete(managed);
    this.opts.alarms.removeAction(policy.arn);
  }

  /** Alarms reported for a policy: its managed alarms, or the alarms that invoke it. */
  private policyAlarms(policy: ScalingPolicy): { AlarmName: string; AlarmARN: string }[] {
    const alarms =
      policy.type === 'TargetTrackingScaling'
        ? [policy.alarmHigh, policy.alarmLow]
            .filter((n): n is string => n !== undefined)
            .map((n) => this.opts.alarms.get(n))
            .filter((a): a is MetricAlarm => a !== undefined)
        : this.opts.alarms.withAction(policy.arn);
    return alarms.map((a) => ({ AlarmName: a.name, AlarmARN: a.arn }));
  }

  private syncManagedAlarms(policy: ScalingPolicy): void {
    const tt = policy.tracking;
    if (!tt) {
      // A policy changed from target tracking to step loses its managed alarms.
      this.opts.alarms.delete(
        [policy.alarmHigh, policy.alarmLow].filter((n): n is string => n !== undefined),
      );
      policy.alarmHigh = undefined;
      policy.alarmLow = undefined;
      return;
    }
    const prefix = `TargetTracking-${policy.resourceId}`;
    const specs = managedAlarmSpecs(tt.targetValue, tt.metric.timing);
    const base = {
      AlarmDescription: `DO NOT EDIT OR DELETE. For TargetTrackingScaling policy ${policy.arn}.`,
      ActionsEnabled: true,
      AlarmActions: [policy.arn],
      MetricName: tt.metric.metricName,
      Namespace: tt.metric.namespace,
      Statistic: tt.metric.statistic,
      Dimensions: tt.metric.dimensions,
      Period: specs.high.periodS,
      ...(tt.metric.unit !== undefined ? { Unit: tt.metric.unit } : {}),
    };
    policy.alarmHigh = `${prefix}-AlarmHigh-${policy.alarmId}`;
    this.opts.alarms.put({
      ...base,
      AlarmName: policy.alarmHigh,
      EvaluationPeriods: specs.high.evaluationPeriods,
      DatapointsToAlarm: specs.high.datapointsToAlarm,
      Threshold: specs.high.threshold,
      ComparisonOperator: specs.high.comparison,
    });
    const low = `${prefix}-AlarmLow-${policy.alarmId}`;
    if (tt.disableScaleIn) {
      this.opts.alarms.delete([low]);
      policy.alarmLow = undefined;
    } else {
      policy.alarmLow = low;
      this.opts.alarms.put({
        ...base,
        AlarmName: low,
        EvaluationPeriods: specs.low.evaluationPeriods,
        DatapointsToAlarm: specs.low.datapointsToAlarm,
        Threshold: specs.low.threshold,
        ComparisonOperator: specs.low.comparison,
      });
    }
  }

  // ---- activities ----------------------------------------------------------------------------

  private describeScalingActivities(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    readNamespace(r);
    const resourceId = r.str('ResourceId', true);
    const dim = r.str('ScalableDimension', true);
    // The API reference asks for a resource ID with a dimension; whether AWS enforces it is not
    // documented, so a lone dimension is accepted (only one dimension exists here anyway).
    if (dim !== undefined) checkDimension(dim);
    r.bool('IncludeNotScaledActivities');
    const matching = this.activities.filter((a) => resourceId === undefined || a.resourceId === resourceId);
    const scope = JSON.stringify(['activities', resourceId, dim]);
    const { items, nextToken } = pageOf(r, matching, scope, 50);
    return {
      ScalingActivities: items.map((a) => ({
        ActivityId: a.id,
        ServiceNamespace: NAMESPACE,
        ResourceId: a.resourceId,
        ScalableDimension: dimensionOf(a.resourceId),
        Description: a.description,
        Cause: a.cause,
        StartTime: epochSeconds(a.startMs),
        ...(a.endMs !== undefined ? { EndTime: epochSeconds(a.endMs) } : {}),
        StatusCode: a.status,
        ...(a.statusMessage !== undefined ? { StatusMessage: a.statusMessage } : {}),
      })),
      ...(nextToken ? { NextToken: nextToken } : {}),
    };
  }

  /**
   * Moves InProgress activities on: Successful once the variant runs the desired count (or
   * someone else has since changed the desired count, superseding this request), Failed when the
   * variant is gone or failed. Called every tick; O(open activities).
   */
  progress(): void {
    for (const a of [...this.open]) {
      const v = this.opts.capacity.describe(a.resourceId);
      const now = this.opts.now();
      if (!v) {
        this.finish(
          a,
          'Failed',
          `Failed to set desired ${unitOf(a.resourceId)} to ${a.desired}. Reason: the ${IC_RESOURCE_ID.test(a.resourceId) ? 'inference component' : 'endpoint variant'} no longer exists.`,
          now,
        );
      } else if (/fail/i.test(v.status)) {
        this.finish(
          a,
          'Failed',
          `Failed to set desired ${unitOf(a.resourceId)} to ${a.desired}. Reason: ${IC_RESOURCE_ID.test(a.resourceId) ? 'inference component' : 'endpoint'} status is ${v.status}.`,
          now,
        );
      } else if (v.desired !== a.desired || v.current === a.desired) {
        this.finish(
          a,
          'Successful',
          `Successfully set desired ${unitOf(a.resourceId)} to ${a.desired}. Change successfully fulfilled by sagemaker.`,
          now,
        );
      }
    }
  }

  private finish(a: Activity, status: ActivityStatus, message: string, now: number): void {
    this.open.delete(a);
    a.status = status;
    a.statusMessage = message;
    a.endMs = now;
  }

  private async startActivity(
    resourceId: string,
    desired: number,
    fromDesired: number,
    direction: Direction,
    cause: string,
    cooldownBase: number,
  ): Promise<void> {
    const activity: Activity = {
      id: randomUUID(),
      resourceId,
      description: `Setting desired ${unitOf(resourceId)} to ${desired}.`,
      cause,
      startMs: this.opts.now(),
      endMs: undefined,
      status: 'Pending',
      statusMessage: undefined,
      desired,
      fromDesired,
      direction,
      cooldownBase,
    };
    this.activities.unshift(activity);
    this.trimActivities(resourceId);
    try {
      await this.opts.capacity.setDesired(resourceId, desired);
      activity.status = 'InProgress';
      if (this.activities.includes(activity)) this.open.add(activity);
      this.progress();
    } catch (e) {
      const reason = e instanceof Error ? e.message : String(e);
      this.finish(
        activity,
        'Failed',
        `Failed to set desired ${unitOf(resourceId)} to ${desired}. Reason: ${reason}`,
        this.opts.now(),
      );
    }
  }

  private recordFailed(resourceId: string, desired: number, cause: string, message: string): void {
    const now = this.opts.now();
    this.activities.unshift({
      id: randomUUID(),
      resourceId,
      description: `Setting desired ${unitOf(resourceId)} to ${desired}.`,
      cause,
      startMs: now,
      endMs: now,
      status: 'Failed',
      statusMessage: message,
      desired,
      fromDesired: desired,
      direction: 'scheduled',
      cooldownBase: desired,
    });
    this.trimActivities(resourceId);
  }

  private trimActivities(resourceId: string): void {
    let seen = 0;
    this.activities = this.activities.filter((a) => {
      const keep = a.resourceId !== resourceId || ++seen <= MAX_ACTIVITIES_PER_TARGET;
      if (!keep) this.open.delete(a);
      return keep;
    });
  }

  // ---- executing policies ----------------------------------------------------------------

  /** Entry point for CloudWatch: an alarm invoked its actions; run every policy among them. */
  onAlarmAction = (event: AlarmActionEvent): void => {
    for (const arn of event.actions) {
      const policy = this.policies.get(arn);
      if (!policy) continue;
      this.enqueue(policy.resourceId, () => this.execute(policy, event));
    }
  };

  private enqueue(resourceId: string, job: () => Promise<void>): void {
    const generation = this.generation;
    const prev = this.queues.get(resourceId) ?? Promise.resolve();
    const next = prev
      .then(() => (generation === this.generation ? job() : undefined))
      .catch(() => {
        // A failed decision is recorded on its activity when there is one; never reject the chain.
      });
    this.queues.set(resourceId, next);
  }

  private async execute(policy: ScalingPolicy, event: AlarmActionEvent): Promise<void> {
    if (this.policies.get(policy.arn) !== policy) return; // deleted meanwhile
    const target = this.targets.get(policy.resourceId);
    const variant = this.opts.capacity.describe(policy.resourceId);
    if (!target || !variant) return;
    const cause = `monitor alarm ${event.alarm.name} in state ${event.change.state} triggered policy ${policy.name}`;
    const rules: PolicyRules = policy.tracking
      ? { kind: 'tracking', ...policy.tracking }
      : { kind: 'step', rules: policy.step as StepConfig, cooldownS: (policy.step as StepConfig).cooldownS };
    const role =
      event.alarm.name === policy.alarmHigh ? 'high' : event.alarm.name === policy.alarmLow ? 'low' : 'step';
    const decision = policyDecision(
      rules,
      {
        role,
        state: event.change.state,
        threshold: event.alarm.threshold,
        comparison: event.alarm.comparison,
        evaluation: event.evaluation,
      },
      {
        current: variant.desired,
        minCapacity: target.minCapacity,
        maxCapacity: target.maxCapacity,
        scaleOutSuspended: target.suspended.DynamicScalingOutSuspended,
        scaleInSuspended: target.suspended.DynamicScalingInSuspended,
        history: this.activities.filter((a) => a.resourceId === target.resourceId),
      },
      this.opts.now(),
    );
    if (!decision) return;
    await this.startActivity(
      target.resourceId,
      decision.desired,
      variant.desired,
      decision.direction,
      cause,
      decision.cooldownBase,
    );
  }
}

// ---- helpers ---------------------------------------------------------------------------------

const STEP_KEYS = [
  'AdjustmentType',
  'StepAdjustments',
  'MinAdjustmentMagnitude',
  'Cooldown',
  'MetricAggregationType',
];
const TT_KEYS = [
  'TargetValue',
  'PredefinedMetricSpecification',
  'CustomizedMetricSpecification',
  'ScaleOutCooldown',
  'ScaleInCooldown',
  'DisableScaleIn',
];

function pick(o: Input, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined && o[k] !== null) out[k] = o[k];
  return out;
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** One page of `matching` from the request's MaxResults (at most `limit`) and NextToken. */
function pageOf<T>(r: Reader, matching: T[], scope: string, limit: number): ReturnType<typeof page<T>> {
  const max = r.int('MaxResults', true) ?? limit;
  if (max < 1 || max > limit) throw aasInvalid(`MaxResults must be between 1 and ${limit}.`);
  return page(matching, decodeToken(r.str('NextToken', true), scope, aasInvalid), max, scope);
}

/** Merges SuspendedState as AWS does: flags given are set, flags omitted keep their value. */
function readSuspended(input: Input | undefined, current: SuspendedState | undefined): SuspendedState {
  const out: SuspendedState = current
    ? { ...current }
    : {
        DynamicScalingInSuspended: false,
        DynamicScalingOutSuspended: false,
        ScheduledScalingSuspended: false,
      };
  if (!input) return out;
  const r = new Reader(input, aasInvalid);
  for (const k of [
    'DynamicScalingInSuspended',
    'DynamicScalingOutSuspended',
    'ScheduledScalingSuspended',
  ] as const) {
    const v = r.bool(k);
    if (v !== undefined) out[k] = v;
  }
  return out;
}

function readCooldown(r: Reader, key: string): number {
  const v = r.int(key, true);
  if (v !== undefined && (v < 0 || v > 86_400))
    throw aasInvalid(`${key} must be between 0 and 86400 seconds.`);
  return v ?? DEFAULT_COOLDOWN_S;
}

function readStep(input: Input): StepConfig {
  const r = new Reader(input, aasInvalid);
  const adjustmentType = r.oneOf('AdjustmentType', ADJUSTMENT_TYPES);
  const raw = r.objList('StepAdjustments');
  if (!raw || raw.length === 0)
    throw aasInvalid('StepAdjustments must contain at least one step adjustment.');
  const steps = raw.map((s) => {
    const sr = new Reader(s, aasInvalid);
    return {
      lower: sr.num('MetricIntervalLowerBound', true),
      upper: sr.num('MetricIntervalUpperBound', true),
      adjustment: sr.int('ScalingAdjustment'),
    };
  });
  validateSteps(steps);
  const minAdjustmentMagnitude = r.int('MinAdjustmentMagnitude', true);
  if (minAdjustmentMagnitude !== undefined) {
    if (adjustmentType !== 'PercentChangeInCapacity') {
      throw aasInvalid('MinAdjustmentMagnitude is only valid with AdjustmentType PercentChangeInCapacity.');
    }
    if (minAdjustmentMagnitude < 1) throw aasInvalid('MinAdjustmentMagnitude must be at least 1.');
  }
  if (adjustmentType === 'ExactCapacity' && steps.some((s) => s.adjustment < 0)) {
    throw aasInvalid('With ExactCapacity, ScalingAdjustment cannot be negative.');
  }
  return {
    adjustmentType,
    steps,
    minAdjustmentMagnitude,
    cooldownS: readCooldown(r, 'Cooldown'),
    // AWS: "If the aggregation type is null, the value is treated as Average."
    aggregation: r.oneOf('MetricAggregationType', AGGREGATIONS, true) ?? 'Average',
  };
}

/** The rules AWS states for StepAdjustments: no overlap, no gap, open ends only at the ends. */
function validateSteps(steps: StepAdjustment[]): void {
  for (const s of steps) {
    if (s.lower === undefined && s.upper === undefined) {
      throw aasInvalid('The upper and lower bound cannot both be null in the same step adjustment.');
    }
    if (s.lower !== undefined && s.upper !== undefined && s.lower >= s.upper) {
      throw aasInvalid('MetricIntervalLowerBound must be less than MetricIntervalUpperBound.');
    }
  }
  if (steps.filter((s) => s.lower === undefined).length > 1) {
    throw aasInvalid('At most one step adjustment can have a null lower bound.');
  }
  if (steps.filter((s) => s.upper === undefined).length > 1) {
    throw aasInvalid('At most one step adjustment can have a null upper bound.');
  }
  const sorted = [...steps].sort((a, b) => (a.lower ?? -Infinity) - (b.lower ?? -Infinity));
  for (let i = 1; i < sorted.length; i++) {
    const prev = sorted[i - 1] as StepAdjustment;
    const cur = sorted[i] as StepAdjustment;
    if (prev.upper !== cur.lower)
      throw aasInvalid('The ranges of your step adjustments cannot overlap or have a gap.');
  }
  const first = sorted[0] as StepAdjustment;
  const last = sorted[sorted.length - 1] as StepAdjustment;
  if (first.lower !== undefined && first.lower < 0) {
    throw aasInvalid('A step adjustment with a negative lower bound requires one with a null lower bound.');
  }
  if (last.upper !== undefined && last.upper > 0) {
    throw aasInvalid('A step adjustment with a positive upper bound requires one with a null upper bound.');
  }
}

function readTracking(input: Input, resourceId: string): TargetTrackingConfig {
  const r = new Reader(input, aasInvalid);
  const targetValue = r.num('TargetValue');
  if (!(targetValue > 0)) throw aasInvalid('TargetValue must be greater than 0.');
  const predefined = r.obj('PredefinedMetricSpecification');
  const customized = r.obj('CustomizedMetricSpecification');
  if ((predefined === undefined) === (customized === undefined)) {
    throw aasInvalid(
      'Specify exactly one of PredefinedMetricSpecification and CustomizedMetricSpecification.',
    );
  }
  // A predefined metric is the resource's own: its variant's, or its inference component's.
  const component = IC_RESOURCE_ID.exec(resourceId);
  const match = RESOURCE_ID.exec(resourceId);
  const ownDims = component
    ? [{ Name: 'InferenceComponentName', Value: component[1] as string }]
    : [
        { Name: 'EndpointName', Value: (match as RegExpExecArray)[1] as string },
        { Name: 'VariantName', Value: (match as RegExpExecArray)[2] as string },
      ];
  let metric: ManagedMetric;
  if (predefined) {
    const pr = new Reader(predefined, aasInvalid);
    const type: PredefinedMetricType = pr.oneOf('PredefinedMetricType', PREDEFINED_METRIC_TYPES);
    const known = PREDEFINED_METRICS[type];
    if (known.resource !== (component ? 'inference-component' : 'variant')) {
      throw aasInvalid(
        `PredefinedMetricType ${type} does not apply to ${component ? 'an inference component' : 'an endpoint variant'} (resource ID ${resourceId}).`,
      );
    }
    metric = {
      namespace: known.namespace,
      metricName: known.metricName,
      dimensions: ownDims,
      statistic: known.statistic,
      unit: undefined,
      timing: known.timing,
    };
  } else {
    const cr = new Reader(customized as Input, aasInvalid);
    if (cr.has('Metrics')) {
      throw aasInvalid(
        'Metric math in CustomizedMetricSpecification (Metrics) is not supported by the local SageMaker; use MetricName, Namespace, Dimensions and Statistic.',
      );
    }
    metric = {
      namespace: cr.str('Namespace'),
      metricName: cr.str('MetricName'),
      dimensions: (cr.objList('Dimensions') ?? []).map((d) => {
        const dr = new Reader(d, aasInvalid);
        return { Name: dr.str('Name'), Value: dr.str('Value') };
      }),
      statistic: cr.oneOf('Statistic', METRIC_STATISTICS),
      unit: cr.str('Unit', true),
      timing: CUSTOMIZED_METRIC_TIMING,
    };
  }
  return {
    targetValue,
    scaleOutCooldownS: readCooldown(r, 'ScaleOutCooldown'),
    scaleInCooldownS: readCooldown(r, 'ScaleInCooldown'),
    disableScaleIn: r.bool('DisableScaleIn') ?? false,
    metric,
  };
}
