/**
 * The calls a freeze makes, bound to one endpoint variant (the AWS ones, or a fake in tests), and
 * the few words every freeze module uses to describe what it finds.
 */
import type { AwsClients } from '../aws/clients.js';
import {
  type CallOptions,
  describeVariantCapacity,
  setDesiredInstanceCount,
  type VariantCapacity,
} from '../aws/endpoint.js';
import { describeScalableTarget, registerSuspendedState, type ScalableTargetState } from '../aws/scaling.js';
import { addResourceTags, deleteResourceTags, endpointArn, listResourceTags } from '../aws/tags.js';
import type { SuspendedStateRecord, ThawJournal } from '../model/journal.js';

/** The calls a freeze needs, bound to one endpoint variant. */
export interface FreezeAdapters {
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

export const describeFlags = (s: SuspendedStateRecord): string =>
  `in=${s.dynamic_scaling_in_suspended}, out=${s.dynamic_scaling_out_suspended}, scheduled=${s.scheduled_scaling_suspended}`;

export const allSuspended = (s: SuspendedStateRecord): boolean =>
  s.dynamic_scaling_in_suspended && s.dynamic_scaling_out_suspended && s.scheduled_scaling_suspended;

export const anySuspended = (s: SuspendedStateRecord): boolean =>
  s.dynamic_scaling_in_suspended || s.dynamic_scaling_out_suspended || s.scheduled_scaling_suspended;

/** `run R (pid P on H, started S, `cmd`)`: who left a journal, for the human deciding what to do. */
export const describeJournalOwner = (j: ThawJournal): string =>
  `run ${j.run_id ?? '(no id)'} (pid ${j.pid}${j.hostname ? ` on ${j.hostname}` : ''}, started ${j.started_at}, \`${j.command}\`)`;
