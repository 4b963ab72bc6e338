/**
 * Thin adapters over Application Auto Scaling for one SageMaker variant's scalable target:
 * read it, and register only its SuspendedState (min/max untouched).
 */
import {
  type ApplicationAutoScalingClient,
  DescribeScalableTargetsCommand,
  RegisterScalableTargetCommand,
} from '@aws-sdk/client-application-auto-scaling';
import type { SuspendedStateRecord } from '../model/journal.js';
import type { CallOptions } from './endpoint.js';

export const SAGEMAKER_NAMESPACE = 'sagemaker';
export const VARIANT_DIMENSION = 'sagemaker:variant:DesiredInstanceCount';

export const variantResourceId = (endpoint: string, variant: string): string =>
  `endpoint/${endpoint}/variant/${variant}`;

export interface ScalableTargetState {
  resourceId: string;
  minCapacity: number | null;
  maxCapacity: number | null;
  suspended: SuspendedStateRecord;
}

export async function describeScalableTarget(
  autoscaling: ApplicationAutoScalingClient,
  resourceId: string,
  options: CallOptions = {},
  dimension: string = VARIANT_DIMENSION,
): Promise<ScalableTargetState | null> {
  const out = await autoscaling.send(
    new DescribeScalableTargetsCommand({
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceIds: [resourceId],
      ScalableDimension: dimension as typeof VARIANT_DIMENSION,
    }),
    options,
  );
  const target = (out.ScalableTargets ?? []).find((t) => t.ResourceId === resourceId);
  if (!target) return null;
  const s = target.SuspendedState ?? {};
  return {
    resourceId,
    minCapacity: target.MinCapacity ?? null,
    maxCapacity: target.MaxCapacity ?? null,
    suspended: {
      dynamic_scaling_in_suspended: s.DynamicScalingInSuspended ?? false,
      dynamic_scaling_out_suspended: s.DynamicScalingOutSuspended ?? false,
      scheduled_scaling_suspended: s.ScheduledScalingSuspended ?? false,
    },
  };
}

/** RegisterScalableTarget with SuspendedState only: an existing target keeps its min/max. */
export async function registerSuspendedState(
  autoscaling: ApplicationAutoScalingClient,
  resourceId: string,
  state: SuspendedStateRecord,
  options: CallOptions = {},
  dimension: string = VARIANT_DIMENSION,
): Promise<void> {
  await autoscaling.send(
    new RegisterScalableTargetCommand({
      ServiceNamespace: SAGEMAKER_NAMESPACE,
      ResourceId: resourceId,
      ScalableDimension: dimension as typeof VARIANT_DIMENSION,
      SuspendedState: {
        DynamicScalingInSuspended: state.dynamic_scaling_in_suspended,
        DynamicScalingOutSuspended: state.dynamic_scaling_out_suspended,
        ScheduledScalingSuspended: state.scheduled_scaling_suspended,
      },
    }),
    options,
  );
}
