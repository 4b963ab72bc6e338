/**
 * Scheduled actions of Application Auto Scaling: PutScheduledAction, DescribeScheduledActions,
 * DeleteScheduledAction, and the tick that fires them. The schedule syntax, the fire times and the
 * effect of a fired action are the shared rules of src/autoscaling/schedule.ts; this file keeps the
 * wire API and the store.
 *
 * AWS behaviour relied on (Application Auto Scaling User Guide, "Scheduled scaling"; API Reference):
 * - A scheduled action needs a registered scalable target; deregistering the target deletes its
 *   scheduled actions. Updating an action changes only the parameters given.
 * - When it fires, the action's MinCapacity / MaxCapacity become the target's; a desired count
 *   outside the new range is moved into it as a scaling activity.
 * - SuspendedState.ScheduledScalingSuspended: actions due meanwhile do not run (and do not run
 *   later on resume).
 * - Timezone: only UTC here (absent, `UTC` or `Etc/UTC`).
 */
import { randomUUID } from 'node:crypto';
import {
  type FireBounds,
  firesIn,
  parseSchedule,
  type ScalableTargetAction,
  type Schedule,
  ScheduleError,
} from '../../autoscaling/index.js';
import { AwsError } from '../aws-error.js';
import { epochSeconds, type Input, Reader } from '../wire.js';
import {
  aasInvalid,
  checkDimension,
  decodeToken,
  dimensionOf,
  NAMESPACE,
  noTarget,
  page,
  readNamespace,
} from './input.js';

export const SCHEDULED_OPERATIONS = [
  'PutScheduledAction',
  'DescribeScheduledActions',
  'DeleteScheduledAction',
] as const;

/** AWS quota: scheduled actions per scalable target. */
const MAX_PER_TARGET = 200;
const UTC_NAMES = ['UTC', 'Etc/UTC'];
/** AWS ScheduledActionName pattern: no `:`, `/`, `|`, control characters, or surrounding spaces. */
const badName = (name: string): boolean =>
  /[:/|]|^ | $/.test(name) ||
  [...name].some((c) => {
    const code = c.charCodeAt(0);
    return code <= 0x1f || (code >= 0x7f && code <= 0x9f);
  });

interface ScheduledAction {
  name: string;
  arn: string;
  resourceId: string;
  scheduleText: string;
  schedule: Schedule;
  timezone: string | undefined;
  startMs: number | undefined;
  endMs: number | undefined;
  action: ScalableTargetAction;
  createdMs: number;
  /** Fire times up to here have been handled. */
  checkedMs: number;
}

/** What the scheduled actions need of the scalable targets (src/local/autoscaling/scaling.ts). */
export interface ScheduledHost {
  /** undefined: no target registered; else whether scheduled scaling is suspended. */
  scheduledSuspended(resourceId: string): boolean | undefined;
  /** Applies a fired action to the target (range, and desired moved into it). */
  applyScheduledAction(
    resourceId: string,
    action: ScalableTargetAction,
    name: string,
    firedAtMs: number,
  ): void;
}

export interface ScheduledActionsOptions {
  host: ScheduledHost;
  accountId: string;
  region: string;
  now: () => number;
}

export class ScheduledActions {
  /** By resource ID, then name; insertion order is the order they fire within a tick. */
  private readonly actions = new Map<string, Map<string, ScheduledAction>>();

  constructor(private readonly opts: ScheduledActionsOptions) {}

  reset(): void {
    this.actions.clear();
  }

  /** DeregisterScalableTarget deletes the target's scheduled actions. */
  removeForTarget(resourceId: string): void {
    this.actions.delete(resourceId);
  }

  handle = async (operation: string, input: Record<string, unknown>): Promise<unknown> => {
    switch (operation) {
      case 'PutScheduledAction':
        return this.put(input);
      case 'DescribeScheduledActions':
        return this.describe(input);
      case 'DeleteScheduledAction':
        return this.remove(input);
      default:
        throw new AwsError('UnknownOperationException', `Unknown operation ${operation}`);
    }
  };

  /** Fires every action due since the last tick (one application per action, however many times it was due). */
  tick(): void {
    const now = this.opts.now();
    for (const [resourceId, byName] of this.actions) {
      for (const a of byName.values()) {
        const from = a.checkedMs;
        if (now <= from) continue;
        a.checkedMs = now;
        const due = firesIn(a.schedule, from, now, this.bounds(a));
        if (due.length === 0) continue;
        const suspended = this.opts.host.scheduledSuspended(resourceId);
        if (suspended !== false) continue;
        this.opts.host.applyScheduledAction(resourceId, a.action, a.name, due[due.length - 1] as number);
      }
    }
  }

  private bounds(a: ScheduledAction): FireBounds {
    return { startMs: a.startMs, endMs: a.endMs, createdMs: a.createdMs };
  }

  private put(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    const { resourceId, name } = this.readKey(r);
    if (this.opts.host.scheduledSuspended(resourceId) === undefined) throw noTarget(resourceId);
    const byName = this.actions.get(resourceId) ?? new Map<string, ScheduledAction>();
    const existing = byName.get(name);
    const scheduleText = r.str('Schedule', true);
    if (!existing && scheduleText === undefined) {
      throw aasInvalid('Schedule is required to create a scheduled action.');
    }
    let schedule = existing?.schedule;
    if (scheduleText !== undefined) {
      if (scheduleText.length < 1 || scheduleText.length > 1600)
        throw aasInvalid('Schedule must be 1 to 1600 characters long.');
      try {
        schedule = parseSchedule(scheduleText);
      } catch (e) {
        if (e instanceof ScheduleError) throw aasInvalid(e.message);
        throw e;
      }
    }
    const timezone = r.str('Timezone', true);
    if (timezone !== undefined && !UTC_NAMES.includes(timezone)) {
      throw aasInvalid(
        `Timezone ${timezone} is not supported by the local SageMaker; scheduled actions run in UTC (omit Timezone or use UTC).`,
      );
    }
    const startMs = secondsToMs(r.num('StartTime', true));
    const endMs = secondsToMs(r.num('EndTime', true));
    const actionIn = r.obj('ScalableTargetAction');
    let action = existing?.action;
    if (actionIn) {
      const ar = new Reader(actionIn, aasInvalid);
      const min = ar.int('MinCapacity', true);
      const max = ar.int('MaxCapacity', true);
      if (min !== undefined && min < 0) throw aasInvalid('MinCapacity must be at least 0.');
      if (max !== undefined && max < 0) throw aasInvalid('MaxCapacity must be at least 0.');
      if (min === undefined && max === undefined) {
        throw aasInvalid('ScalableTargetAction must specify MinCapacity, MaxCapacity or both.');
      }
      if (min !== undefined && max !== undefined && min > max) {
        throw aasInvalid(`Minimum capacity ${min} cannot be greater than maximum capacity ${max}.`);
      }
      action = { minCapacity: min, maxCapacity: max };
    }
    if (!action) throw aasInvalid('ScalableTargetAction is required to create a scheduled action.');
    const start = startMs ?? existing?.startMs;
    const end = endMs ?? existing?.endMs;
    if (start !== undefined && end !== undefined && start >= end) {
      throw aasInvalid('StartTime must be before EndTime.');
    }
    if (!existing && byName.size >= MAX_PER_TARGET) {
      throw new AwsError(
        'LimitExceededException',
        `At most ${MAX_PER_TARGET} scheduled actions per scalable target.`,
      );
    }
    const now = this.opts.now();
    const record: ScheduledAction = existing ?? {
      name,
      arn: `arn:aws:autoscaling:${this.opts.region}:${this.opts.accountId}:scheduledAction:${randomUUID()}:resource/${NAMESPACE}/${resourceId}:scheduledActionName/${name}`,
      resourceId,
      scheduleText: scheduleText as string,
      schedule: schedule as Schedule,
      timezone,
      startMs: start,
      endMs: end,
      action,
      createdMs: now,
      checkedMs: now,
    };
    if (scheduleText !== undefined) record.scheduleText = scheduleText;
    record.schedule = schedule as Schedule;
    if (timezone !== undefined) record.timezone = timezone;
    record.startMs = start;
    record.endMs = end;
    record.action = action;
    record.checkedMs = now;
    byName.set(name, record);
    this.actions.set(resourceId, byName);
    return {};
  }

  private describe(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    readNamespace(r);
    const names = r.strList('ScheduledActionNames');
    const resourceId = r.str('ResourceId', true);
    const dim = r.str('ScalableDimension', true);
    if (dim !== undefined) checkDimension(dim);
    if (names && names.length > 50) throw aasInvalid('ScheduledActionNames may hold at most 50 names.');
    const matching = [...this.actions.values()]
      .flatMap((m) => [...m.values()])
      .filter((a) => resourceId === undefined || a.resourceId === resourceId)
      .filter((a) => !names || names.includes(a.name));
    const scope = JSON.stringify(['scheduled', names, resourceId, dim]);
    const max = r.int('MaxResults', true) ?? 50;
    if (max < 1 || max > 50) throw aasInvalid('MaxResults must be between 1 and 50.');
    const { items, nextToken } = page(
      matching,
      decodeToken(r.str('NextToken', true), scope, aasInvalid),
      max,
      scope,
    );
    return {
      ScheduledActions: items.map((a) => ({
        ScheduledActionName: a.name,
        ScheduledActionARN: a.arn,
        ServiceNamespace: NAMESPACE,
        Schedule: a.scheduleText,
        ...(a.timezone !== undefined ? { Timezone: a.timezone } : {}),
        ResourceId: a.resourceId,
        ScalableDimension: dimensionOf(a.resourceId),
        ...(a.startMs !== undefined ? { StartTime: epochSeconds(a.startMs) } : {}),
        ...(a.endMs !== undefined ? { EndTime: epochSeconds(a.endMs) } : {}),
        ScalableTargetAction: {
          ...(a.action.minCapacity !== undefined ? { MinCapacity: a.action.minCapacity } : {}),
          ...(a.action.maxCapacity !== undefined ? { MaxCapacity: a.action.maxCapacity } : {}),
        },
        CreationTime: epochSeconds(a.createdMs),
      })),
      ...(nextToken ? { NextToken: nextToken } : {}),
    };
  }

  private remove(input: Input): unknown {
    const r = new Reader(input, aasInvalid);
    const { resourceId, name } = this.readKey(r);
    const byName = this.actions.get(resourceId);
    if (!byName?.delete(name)) {
      throw new AwsError(
        'ObjectNotFoundException',
        `No scheduled action found for service namespace: ${NAMESPACE}, resource ID: ${resourceId}, scalable dimension: ${dimensionOf(resourceId)}, scheduled action name: ${name}`,
      );
    }
    return {};
  }

  private readKey(r: Reader): { resourceId: string; name: string } {
    readNamespace(r);
    const name = r.str('ScheduledActionName');
    if (name.length < 1 || name.length > 256 || badName(name)) {
      throw aasInvalid(
        `ScheduledActionName ${JSON.stringify(name)} is invalid: 1 to 256 characters, without ':', '/', '|' or control characters.`,
      );
    }
    checkDimension(r.str('ScalableDimension'));
    return { resourceId: r.str('ResourceId'), name };
  }
}

const secondsToMs = (s: number | undefined): number | undefined =>
  s === undefined ? undefined : Math.round(s * 1000);
