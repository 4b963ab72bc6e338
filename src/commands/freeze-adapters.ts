/**
 * The calls a freeze makes, bound to one endpoint variant (the AWS ones, or a fake in tests), and
 * the few words every freeze module uses to describe what it finds.
 */

import {
  DescribeInferenceComponentCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import type { AwsClients } from '../aws/clients.js';
import {
  type CallOptions,
  describeVariantCapacity,
  setDesiredInstanceCount,
  type VariantCapacity,
} from '../aws/endpoint.js';
import { describeScalableTarget, registerSuspendedState, type ScalableTargetState } from '../aws/scaling.js';
import { addResourceTags, deleteResourceTags, endpointArn, listResourceTags } from '../aws/tags.js';
import { IC_SCALABLE_DIMENSION, icResourceId } from '../model/inference-component.js';
import type { SuspendedStateRecord, ThawJournal } from '../model/journal.js';

/** The calls a freeze needs, bound to one endpoint variant (or one inference component). */
export interface FreezeAdapters {
  /**
   * The scalable target frozen, when not the variant's: `inference-component/<name>`, whose
   * "capacity" is the component's copy count (desired/current copies). @default the variant's
   */
  readonly resourceId?: string;
  describeScalableTarget(resourceId: string, options?: CallOptions): Promise<ScalableTargetState | null>;
  registerSuspendedState(
    resourceId: string,
    state: SuspendedStateRecord,
    options?: CallOptions,
  ): Promise<void>;
  describeVariantCapacity(options?: CallOptions): Promise<VariantCapacity>;
  setDesiredInstanceCount(desired: number, options?: CallOptions): Promise<void>;
  /** The endpoint's tags (where the journal and the freeze claims travel with it). */
  readEndpointTags(options?: CallOptions): Promise<Record<string, string>>;
  addEndpointTags(tags: Record<string, string>, options?: CallOptions): Promise<void>;
  deleteEndpointTags(keys: string[], options?: CallOptions): Promise<void>;
}

export function awsFreezeAdapters(
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
  endpoint: string,
  variant: string,
): FreezeAdapters {
  let arn: string | null = null;
  const resolveArn = async (options?: CallOptions): Promise<string> => {
    arn ??= await endpointArn(clients.sagemaker, endpoint, options);
    return arn;
  };
  return {
    describeScalableTarget: (resourceId, options) =>
      describeScalableTarget(clients.autoscaling, resourceId, options),
    registerSuspendedState: (resourceId, state, options) =>
      registerSuspendedState(clients.autoscaling, resourceId, state, options),
    describeVariantCapacity: (options) =>
      describeVariantCapacity(clients.sagemaker, endpoint, variant, options),
    setDesiredInstanceCount: (desired, options) =>
      setDesiredInstanceCount(clients.sagemaker, endpoint, variant, desired, options),
    readEndpointTags: async (options) =>
      listResourceTags(clients.sagemaker, await resolveArn(options), options),
    addEndpointTags: async (tags, options) =>
      addResourceTags(clients.sagemaker, await resolveArn(options), tags, options),
    deleteEndpointTags: async (keys, options) =>
      deleteResourceTags(clients.sagemaker, await resolveArn(options), keys, options),
  };
}

/**
 * The freeze's calls for an inference component: its scalable target
 * (`sagemaker:inference-component:DesiredCopyCount`) suspended, its copy count read
 * (DescribeInferenceComponent) and pinned (UpdateInferenceComponentRuntimeConfig) where a
 * variant's instance count would be. The journal and the claims travel with the endpoint's tags.
 */
export function icFreezeAdapters(
  clients: Pick<AwsClients, 'sagemaker' | 'autoscaling'>,
  endpoint: string,
  variant: string,
  component: string,
): FreezeAdapters {
  const base = awsFreezeAdapters(clients, endpoint, variant);
  const resourceId = icResourceId(component);
  return {
    ...base,
    resourceId,
    describeScalableTarget: (_variantId, options) =>
      describeScalableTarget(clients.autoscaling, resourceId, options, IC_SCALABLE_DIMENSION),
    registerSuspendedState: (_variantId, state, options) =>
      registerSuspendedState(clients.autoscaling, resourceId, state, options, IC_SCALABLE_DIMENSION),
    describeVariantCapacity: async (options) => {
      const d = await clients.sagemaker.send(
        new DescribeInferenceComponentCommand({ InferenceComponentName: component }),
        options,
      );
      return {
        endpointStatus: d.InferenceComponentStatus ?? 'Unknown',
        desired: d.RuntimeConfig?.DesiredCopyCount ?? null,
        current: d.RuntimeConfig?.CurrentCopyCount ?? null,
        failureReason: d.FailureReason ?? null,
      };
    },
    setDesiredInstanceCount: async (copies, options) => {
      await clients.sagemaker.send(
        new UpdateInferenceComponentRuntimeConfigCommand({
          InferenceComponentName: component,
          DesiredRuntimeConfig: { CopyCount: copies },
        }),
        options,
      );
    },
  };
}

/** The component a journal's resource id names (null: a variant's journal). */
export const journalComponent = (resourceId: string): string | null =>
  resourceId.startsWith('inference-component/') ? resourceId.slice('inference-component/'.length) : null;

export const describeFlags = (s: SuspendedStateRecord): string =>
  `in=${s.dynamic_scaling_in_suspended}, out=${s.dynamic_scaling_out_suspended}, scheduled=${s.scheduled_scaling_suspended}`;

export const allSuspended = (s: SuspendedStateRecord): boolean =>
  s.dynamic_scaling_in_suspended && s.dynamic_scaling_out_suspended && s.scheduled_scaling_suspended;

export const anySuspended = (s: SuspendedStateRecord): boolean =>
  s.dynamic_scaling_in_suspended || s.dynamic_scaling_out_suspended || s.scheduled_scaling_suspended;

/** `run R (pid P on H, started S, `cmd`)`: who left a journal, for the human deciding what to do. */
export const describeJournalOwner = (j: ThawJournal): string =>
  `run ${j.run_id ?? '(no id)'} (pid ${j.pid}${j.hostname ? ` on ${j.hostname}` : ''}, started ${j.started_at}, \`${j.command}\`)`;
