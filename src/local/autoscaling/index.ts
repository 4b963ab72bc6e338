/**
 * Application Auto Scaling and CloudWatch alarms for the local SageMaker.
 *
 * The HTTP side routes `AnyScaleFrontendService.<Operation>` (JSON 1.1) to
 * `applicationAutoScaling` and the alarm operations of `GraniteServiceVersion20100801.<Operation>`
 * (JSON 1.0) to `cloudWatchAlarms`. Inputs are the request bodies as the SDK sends them; outputs
 * are the JSON the SDK deserialises (timestamps as epoch seconds).
 *
 * Alarms are evaluated on a timer every `evaluationIntervalMs` (default 1000 ms, so the emulator
 * reacts within a second; AWS evaluates each alarm about once a minute, or every 10 s for
 * high-resolution alarms). Only completed periods are evaluated, so what changes sooner here is
 * when a finished period is looked at, not what the period contains.
 */
import type { CapacityTarget, MetricReader, OperationHandler } from '../contracts.js';
import { ALARM_OPERATIONS, AlarmStore } from './alarms.js';
import { ScalingService } from './scaling.js';
import { SCHEDULED_OPERATIONS, ScheduledActions } from './scheduled.js';

export { ALARM_OPERATIONS } from './alarms.js';

export interface AutoScalingOptions {
  capacity: CapacityTarget;
  metrics: MetricReader;
  accountId: string;
  region: string;
  evaluationIntervalMs?: number;
  /** Clock (epoch ms) used for every timestamp, period boundary and cooldown. Default Date.now. */
  now?: () => number;
  /**
   * false: no timer; the caller runs each evaluation with `tick()` (a test stepping an injected
   * clock). Default true.
   */
  autoTick?: boolean;
}

export function createAutoScaling(opts: AutoScalingOptions): {
  applicationAutoScaling: OperationHandler;
  cloudWatchAlarms: OperationHandler;
  alarmOperations: readonly string[];
  reset(): void;
  /** One evaluation (what the timer runs), resolved once the decisions it queued have run. */
  tick(): Promise<void>;
  close(): void;
} {
  const now = opts.now ?? Date.now;
  const intervalMs = opts.evaluationIntervalMs ?? 1000;
  if (!(intervalMs > 0)) throw new Error(`evaluationIntervalMs must be positive (got ${intervalMs})`);
  const alarms = new AlarmStore({
    metrics: opts.metrics,
    accountId: opts.accountId,
    region: opts.region,
    now,
  });
  const scaling = new ScalingService({
    capacity: opts.capacity,
    alarms,
    accountId: opts.accountId,
    region: opts.region,
    now,
  });
  alarms.onAction = scaling.onAlarmAction;
  const scheduled = new ScheduledActions({
    host: scaling,
    accountId: opts.accountId,
    region: opts.region,
    now,
  });
  scaling.onDeregister = (resourceId) => scheduled.removeForTarget(resourceId);
  const scheduledOps = new Set<string>(SCHEDULED_OPERATIONS);

  // Scheduled actions first: an action due this tick sets the range the alarms' decisions see.
  const evaluate = (): void => {
    try {
      scheduled.tick();
      alarms.evaluateAll();
      scaling.progress();
    } catch {
      // Never let a tick throw out of the timer; the next tick tries again.
    }
  };
  // unref: the evaluation loop must never keep the process alive on its own.
  let timer: NodeJS.Timeout | undefined;
  if (opts.autoTick !== false) {
    timer = setInterval(evaluate, intervalMs);
    timer.unref();
  }

  return {
    applicationAutoScaling: (operation, input) =>
      scheduledOps.has(operation) ? scheduled.handle(operation, input) : scaling.handle(operation, input),
    cloudWatchAlarms: alarms.handle,
    alarmOperations: ALARM_OPERATIONS,
    reset() {
      scaling.reset();
      alarms.reset();
      scheduled.reset();
    },
    async tick() {
      evaluate();
      await scaling.settle();
    },
    close() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
