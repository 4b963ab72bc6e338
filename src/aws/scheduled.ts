/**
 * Scheduled actions of one SageMaker variant's scalable target (Application Auto Scaling), calls
 * only: read them (DescribeScheduledActions, every page), put each one a plan deploys
 * (PutScheduledAction) and delete the ones under scalegate's name prefix the plan no longer has
 * (DeleteScheduledAction). Actions under any other name are never touched.
 */
import {
  type ApplicationAutoScalingClient,
  DeleteScheduledActionCommand,
  DescribeScheduledActionsCommand,
  PutScheduledActionCommand,
  type ScheduledAction,
} from '@aws-sdk/client-application-auto-scaling';
import type { CallOptions } from './endpoint.js';
import { SAGEMAKER_NAMESPACE, VARIANT_DIMENSION } from './scaling.js';

/** One scheduled action to deploy (policy-shape.ts ScheduledActionShape, structurally). */
export interface ScheduledActionSpec {
  scheduledActionName: string;
  schedule: string;
  timezone: string;
  minCapacity: number;
  maxCapacity: number;
}

/** Every scheduled action on `resourceId` (all pages). */
export async function describeScheduledActions(
  autoscaling: ApplicationAutoScalingClient,
  resourceId: string,
  options: CallOptions = {},
): Promise<ScheduledAction[]> {
  const actions: ScheduledAction[] = [];
  let nextToken: string | undefined;
  do {
    const out = await autoscaling.send(
      new DescribeScheduledActionsCommand({
        ServiceNamespace: SAGEMAKER_NAMESPACE,
        ResourceId: resourceId,
        ScalableDimension: VARIANT_DIMENSION,
        NextToken: nextToken,
      }),
      options,
    );
    actions.push(...(out.ScheduledActions ?? []));
    nextToken = out.NextToken;
  } while (nextToken);
  return actions;
}

/**
 * Puts every action of `actions` on `resourceId` (create or update) and deletes the ones whose
 * name starts with `prefix` that `actions` does not name. Returns the names put and deleted.
 */
export async function applyScheduledActions(
  autoscaling: ApplicationAutoScalingClient,
  resourceId: string,
  prefix: string,
  actions: readonly ScheduledActionSpec[],
  options: CallOptions = {},
): Promise<{ put: string[]; deleted: string[] }> {
  for (const a of actions) {
    await autoscaling.send(
      new PutScheduledActionCommand({
        ServiceNamespace: SAGEMAKER_NAMESPACE,
        ResourceId: resourceId,
        ScalableDimension: VARIANT_DIMENSION,
        ScheduledActionName: a.scheduledActionName,
        Schedule: a.schedule,
        Timezone: a.timezone,
        ScalableTargetAction: { MinCapacity: a.minCapacity, MaxCapacity: a.maxCapacity },
      }),
      options,
    );
  }
  const wanted = new Set(actions.map((a) => a.scheduledActionName));
  const stale = (await describeScheduledActions(autoscaling, resourceId, options))
    .map((a) => a.ScheduledActionName ?? '')
    .filter((name) => name.startsWith(prefix) && !wanted.has(name));
  for (const name of stale) {
    await autoscaling.send(
      new DeleteScheduledActionCommand({
        ServiceNamespace: SAGEMAKER_NAMESPACE,
        ResourceId: resourceId,
        ScalableDimension: VARIANT_DIMENSION,
        ScheduledActionName: name,
      }),
      options,
    );
  }
  return { put: actions.map((a) => a.scheduledActionName), deleted: stale };
}
