/**
 * `scalegate drill` on an inference-component (IC) endpoint: the model's kind is
 * `inference-component` and the plan carries its `inference_component` block.
 *
 * What differs from a variant's drill (src/commands/drill.ts runs both):
 * - the count the drill starts from is of copies (`--start-copies`, default the plan's min
 *   copies, at least 1): the steady load is lambda_safe per copy x copies; `--start-instances` is
 *   refused (the instances follow the copies under managed instance scaling);
 * - the fingerprint is the config's (a component's variant has no model to read; what the copies
 *   run is compared by the policy comparison: the component's model environment and compute);
 * - the policy comparison is `validate`'s for a component (compareInferenceComponentWithPlan);
 * - the observer reads DesiredCopyCount/CurrentCopyCount (DescribeInferenceComponent) with the
 *   endpoint's instances, the activities on `sagemaker:inference-component:DesiredCopyCount` and
 *   ConcurrentRequestsPerCopy on the InferenceComponentName dimension;
 * - `--from-zero` (needs a plan with min copies 0): before the schedule, the component is set to
 *   0 copies (what the idle rule does after its idle minutes; the drill does not wait them), then
 *   woken by one client at a time applying the plan's retry budget (the measurement of `ttotal
 *   --path zero`, src/commands/ttotal-wake.ts), judged against the plan's wake tolerance and budget
 *   (src/analysis/drill-ic.ts). Then the start copies are set and the schedule runs as usual.
 */

import type { MetricAlarm } from '@aws-sdk/client-cloudwatch';
import { fromZeroPlan, icDrillPrediction, icStartCopies, judgeFromZero } from '../analysis/drill-ic.js';
import type { AwsClients } from '../aws/clients.js';
import { describeComponentCounts, setComponentCopyCount } from '../aws/inference-component.js';
import { describeMetricAlarms } from '../aws/policy.js';
import type { Transport } from '../load/types.js';
import { type AssetHash, modelImageDigest } from '../model/asset-hash.js';
import {
  configFingerprint,
  type DrillFromZero,
  type DrillPrediction,
  type Fingerprint,
  IC_DIMENSION,
  IC_SCALABLE_DIMENSION,
  type IcDeployedState,
  type InferenceComponentPlan,
  icResourceId,
  type ModelConfig,
  opt,
  type PlanArtifact,
  type RequestShape,
  usage,
} from '../model/index.js';
import { waitUntil } from '../wait.js';
import type { ObserveTarget } from './drill-observer.js';
import { withInferenceComponent } from './inference-component.js';
import { measureWakeFromZero } from './ttotal-wake.js';

export type IcPlan = PlanArtifact & { inference_component: InferenceComponentPlan };

export interface IcDrill {
  plan: IcPlan;
  ic: InferenceComponentPlan;
  startCopies: number;
  prediction: DrillPrediction;
}

export interface IcDrillFlags {
  modelName: string;
  model: ModelConfig;
  planFile: string;
  startInstances?: number;
  startCopies?: number;
  fromZero?: boolean;
  shard?: string;
}

/** The IC side of a drill (null: a variant's drill). Refuses flags of the other kind. */
export function icDrillOf(input: IcDrillFlags, plan: PlanArtifact): IcDrill | null {
  const icPlan = withInferenceComponent(plan);
  const isIc = input.model.kind === 'inference-component';
  if (!isIc && icPlan === null) {
    if (input.startCopies !== undefined)
      throw usage`${opt('start-copies', input.startCopies)}: ${input.modelName} is not an inference-component model; its drill starts from instances (${opt('start-instances')}).`;
    if (input.fromZero)
      throw usage`${opt('from-zero')}: ${input.modelName} is not an inference-component model (kind 'inference-component' with min_copies 0): a variant has no wake from zero.`;
    return null;
  }
  if (icPlan === null || !isIc) {
    throw usage`${opt('plan', input.planFile)}: ${isIc ? `${input.modelName} is an inference-component model but the plan has no inference_component block` : `the plan has an inference_component block but ${input.modelName} is not an inference-component model`}: re-run \`scalegate plan --model ${input.modelName}\` with the current config.`;
  }
  if (input.startInstances !== undefined) {
    throw usage`${opt('start-instances', input.startInstances)}: ${input.modelName} is an inference-component model: its drill starts from copies (${opt('start-copies')}); the instances follow the copies (managed instance scaling).`;
  }
  if (input.fromZero && input.shard !== undefined) {
    throw usage`${opt('from-zero')} with ${opt('shard', input.shard)}: the wake is measured by one client before the schedule; drill from zero in a single process.`;
  }
  const ic = icPlan.inference_component;
  return {
    plan: icPlan,
    ic,
    startCopies: icStartCopies(ic, input.startCopies, input.planFile),
    prediction: icDrillPrediction(icPlan, input.planFile),
  };
}

/**
 * The alarms of the component's policies: the validate read holds the wake and idle rules' (named
 * by the plan); the target tracking's AlarmHigh/AlarmLow are named by Application Auto Scaling, so
 * they are read here from the policies' alarm references.
 */
export async function icPolicyAlarms(
  clients: AwsClients,
  state: IcDeployedState,
): Promise<Map<string, MetricAlarm>> {
  const alarms = new Map(state.alarms);
  const missing = [
    ...new Set(state.policies.flatMap((p) => (p.Alarms ?? []).map((a) => a.AlarmName ?? ''))),
  ].filter((n) => n !== '' && !alarms.has(n));
  if (missing.length > 0) {
    for (const a of await describeMetricAlarms(clients.cloudwatch, { names: missing }))
      if (a.AlarmName) alarms.set(a.AlarmName, a);
  }
  return alarms;
}

/** What the drill measures on: the config's fingerprint with the request shape its load sends. */
export function icLiveFingerprint(
  model: ModelConfig,
  configFile: string,
  region: string,
  request: RequestShape,
  assetHash?: AssetHash,
): Fingerprint {
  return configFingerprint(model, modelImageDigest(model, configFile, assetHash), region, request);
}

/** The observer's view of the component: copies, instances, copy activities, the per-copy metric. */
export function icObserveTarget(clients: AwsClients, ic: InferenceComponentPlan): ObserveTarget {
  return {
    capacity: () => describeComponentCounts(clients, ic.component_name, ic.endpoint),
    resourceId: icResourceId(ic.component_name),
    scalableDimension: IC_SCALABLE_DIMENSION,
    metric: {
      name: 'ConcurrentRequestsPerCopy',
      statistic: 'Maximum',
      periodS: 10,
      dimensions: [{ Name: IC_DIMENSION, Value: ic.component_name }],
    },
  };
}

interface Waiting {
  clients: AwsClients;
  log: (line: string) => void;
  signal?: AbortSignal | undefined;
  /** Longest wait, seconds. */
  deadlineS: number;
}

/** Sets the copy count and waits until the component serves exactly that many (false: it did not in time). */
export async function setCopies(ic: InferenceComponentPlan, copies: number, w: Waiting): Promise<boolean> {
  const call = w.signal ? { abortSignal: w.signal } : {};
  const now = await describeComponentCounts(w.clients, ic.component_name, ic.endpoint, call);
  if (now.desired !== copies) await setComponentCopyCount(w.clients, ic.component_name, copies, call);
  const ready = await waitUntil(
    `${copies} cop${copies === 1 ? 'y' : 'ies'} of ${ic.component_name} in service before the drill`,
    async () => {
      const c = await describeComponentCounts(w.clients, ic.component_name, ic.endpoint, call);
      return c.status === 'InService' && c.current === copies && c.desired === copies ? true : undefined;
    },
    {
      interval: 500,
      deadline: Date.now() + w.deadlineS * 1000,
      ...(w.signal ? { signal: w.signal } : {}),
      log: w.log,
    },
  );
  return ready === true;
}

export interface FromZeroInput {
  modelName: string;
  model: ModelConfig;
  configFile: string;
  endpoint: string;
  variant: string;
  region: string;
  planFile: string;
  pollS: number;
}

export interface FromZeroDeps extends Waiting {
  loadClient?: { endpoint?: string; credentials?: { accessKeyId: string; secretAccessKey: string } };
  createTransport?: (maxOutstanding: number) => Transport;
  version: string;
}

/**
 * The from-zero phase: the component set to zero copies and awaited idle, then woken by one client
 * at a time with the plan's retry budget (measureWakeFromZero), judged against the plan.
 */
export async function runFromZeroPhase(
  input: FromZeroInput,
  drill: IcDrill,
  deps: FromZeroDeps,
): Promise<DrillFromZero> {
  const { ic } = drill;
  const judged = fromZeroPlan(ic, input.planFile);
  if (!(await setCopies(ic, 0, deps))) {
    throw usage`${opt('from-zero')}: component ${ic.component_name} did not reach 0 copies within ${deps.deadlineS} s; a wake from zero starts idle. Look at its status (DescribeInferenceComponent) and run again.`;
  }
  const block = input.model.inference_component;
  // The client applies the plan's retry budget (what the plan promised the callers).
  const model: ModelConfig = {
    ...input.model,
    ...(block
      ? {
          inference_component: {
            ...block,
            component_name: ic.component_name,
            client_retry_attempts: judged.attempts,
            client_retry_backoff_s: judged.backoffS,
          },
        }
      : {}),
  };
  const outcome = await measureWakeFromZero(
    {
      modelName: input.modelName,
      model,
      configFile: input.configFile,
      endpoint: input.endpoint,
      variant: input.variant,
      region: input.region,
      retry: true,
      pollS: Math.min(input.pollS, 1),
      maxWaitS: judged.maxWaitS,
    },
    {
      clients: deps.clients,
      ...(deps.loadClient ? { loadClient: deps.loadClient } : {}),
      ...(deps.createTransport ? { createTransport: deps.createTransport } : {}),
      version: deps.version,
      log: deps.log,
      ...(deps.signal ? { signal: deps.signal } : {}),
    },
  );
  const artifact = outcome.artifact;
  return judgeFromZero(judged, artifact?.inference_component ?? null, artifact?.timeline ?? []);
}
