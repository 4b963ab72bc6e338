/**
 * `scalegate ttotal --path warm|cold` of an inference-component model: one more copy, timed from
 * the copy count set (UpdateInferenceComponentRuntimeConfig: the clock starts, as ttotal's
 * force-desired) to the new copy serving (CurrentCopyCount, polled: bounded by the poll
 * interval). warm: the component's instances have room for it; cold: they are full, so managed
 * instance scaling launches an instance first (its InService is a stage). The copy count is put
 * back afterwards (and on any failure).
 */
import { setTimeout as delay } from 'node:timers/promises';
import {
  DescribeEndpointCommand,
  DescribeInferenceComponentCommand,
  UpdateInferenceComponentRuntimeConfigCommand,
} from '@aws-sdk/client-sagemaker';
import type { AwsClients } from '../aws/clients.js';
import type { IcPathMeasurement } from '../model/artifacts/ttotal.js';
import { type AssetHash, modelImageDigest } from '../model/asset-hash.js';
import { opt, usage } from '../model/errors.js';
import { configFingerprint } from '../model/fingerprint.js';
import { newRunId } from '../model/ids.js';
import type { ModelConfig, TtotalArtifact } from '../model/index.js';
import { componentNameOf } from '../model/inference-component.js';
import { writeArtifact } from '../model/io.js';
import { renderIcPathReport } from '../report/ttotal-wake-text.js';
import type { CommandResult } from './result.js';

export interface IcPathInput {
  modelName: string;
  model: ModelConfig;
  configFile: string;
  endpoint: string;
  region: string;
  path: 'warm' | 'cold';
  pollS?: number;
  maxWaitS?: number;
  outFile: string;
  runId?: string;
}

export interface IcPathDeps {
  clients: Pick<AwsClients, 'sagemaker' | 'region'>;
  assetHash?: AssetHash;
  version: string;
}

const iso = (ms: number) => new Date(ms).toISOString();
const round3 = (x: number) => Math.round(x * 1000) / 1000;

export async function runTtotalIcPath(
  input: IcPathInput,
  deps: IcPathDeps,
): Promise<CommandResult<TtotalArtifact>> {
  const ic = input.model.kind === 'inference-component' ? input.model.inference_component : undefined;
  if (!ic)
    throw usage`ttotal ${opt('path', input.path)}: ${input.modelName} is not an inference-component model.`;
  const component = componentNameOf(input.endpoint, ic);
  const { sagemaker } = deps.clients;
  const pollMs = (input.pollS ?? 0.5) * 1000;
  const maxWaitMs = (input.maxWaitS ?? 1800) * 1000;
  const state = async () => {
    const [d, e] = await Promise.all([
      sagemaker.send(new DescribeInferenceComponentCommand({ InferenceComponentName: component })),
      sagemaker.send(new DescribeEndpointCommand({ EndpointName: input.endpoint })),
    ]);
    return {
      status: d.InferenceComponentStatus,
      desired: d.RuntimeConfig?.DesiredCopyCount ?? 0,
      current: d.RuntimeConfig?.CurrentCopyCount ?? 0,
      instances: e.ProductionVariants?.[0]?.CurrentInstanceCount ?? 0,
    };
  };
  const before = await state();
  const room = before.instances * ic.copies_per_instance - before.current;
  if (before.status !== 'InService' || before.current < 1 || before.desired !== before.current) {
    throw usage`ttotal ${opt('path', input.path)}: component ${component} must be InService with its copies settled (now ${before.status}, ${before.current} of ${before.desired} copies).`;
  }
  if (input.path === 'warm' && room < 1) {
    throw usage`ttotal ${opt('path', 'warm')}: the ${before.instances} instance(s) of ${input.endpoint} hold ${before.current} copies at ${ic.copies_per_instance} per instance: no room for a warm copy (that one would be cold).`;
  }
  if (input.path === 'cold' && room > 0) {
    throw usage`ttotal ${opt('path', 'cold')}: the instances of ${input.endpoint} still have room for ${room} copy(ies): the next copy would be warm. Fill them first (copies = instances x copies_per_instance).`;
  }
  const set = (copies: number) =>
    sagemaker.send(
      new UpdateInferenceComponentRuntimeConfigCommand({
        InferenceComponentName: component,
        DesiredRuntimeConfig: { CopyCount: copies },
      }),
    );
  const target = before.current + 1;
  const setMs = Date.now();
  let instanceMs: number | null = null;
  let servingMs: number | null = null;
  try {
    await set(target);
    while (Date.now() - setMs < maxWaitMs) {
      const s = await state();
      const now = Date.now();
      if (instanceMs === null && s.instances > before.instances) instanceMs = now;
      if (s.current >= target) {
        servingMs = now;
        break;
      }
      await delay(pollMs);
    }
  } finally {
    await set(before.current).catch(() => {});
  }
  if (servingMs === null) {
    throw new Error(
      `ttotal --path ${input.path}: the new copy of ${component} did not serve within ${maxWaitMs / 1000} s`,
    );
  }
  const tTotalS = Math.max(0.001, round3((servingMs - setMs) / 1000));
  const stages = [
    { stage: 'desired_set', at: setMs, source: 'UpdateInferenceComponentRuntimeConfig sent', bounded: false },
    ...(instanceMs !== null
      ? [
          {
            stage: 'instance_in_service',
            at: instanceMs,
            source: 'DescribeEndpoint CurrentInstanceCount rose (poll)',
            bounded: true,
          },
        ]
      : []),
    {
      stage: 'in_service',
      at: servingMs,
      source: 'DescribeInferenceComponent CurrentCopyCount reached (poll)',
      bounded: true,
    },
  ];
  const durations = stages.slice(1).map((s, i) => {
    const prev = stages[i] as (typeof stages)[number];
    const seconds = round3((s.at - prev.at) / 1000);
    return { from: prev.stage, to: s.stage, seconds, bounded: s.bounded, share: round3(seconds / tTotalS) };
  });
  const measurement: IcPathMeasurement = {
    component,
    path: input.path,
    origin: 'measured',
    copies_before: before.current,
    copies_after: target,
    wake_s: null,
    no_capacity_failures: 0,
    other_failures: 0,
    failing_window: null,
    retry: null,
    wake_alarm_period_s: null,
  };
  const fingerprint = configFingerprint(
    input.model,
    modelImageDigest(input.model, input.configFile, deps.assetHash),
    deps.clients.region,
  );
  const artifact: TtotalArtifact = {
    schema_version: 1,
    kind: 'ttotal',
    model_name: input.modelName,
    endpoint: input.endpoint,
    run_id: input.runId ?? newRunId(),
    measured_at: iso(setMs),
    fingerprint,
    transport: null,
    trigger: 'force-desired',
    qmax_run_id: null,
    t_total_s: tTotalS,
    policy_lag_s: 0,
    policy_lag_bounded: true,
    policy_lag_source:
      'not part of this path: the copy count was set directly (the plan adds its policy lag)',
    instance_id: null,
    from_instances: before.instances,
    to_instances: Math.max(1, instanceMs !== null ? before.instances + 1 : before.instances),
    probe_concurrency: null,
    p95_before_ms: null,
    p95_recovered_target_ms: null,
    p95_after_ms: null,
    timeline: stages.map((s) => ({
      stage: s.stage,
      at: iso(s.at),
      source: s.source,
      bounded: s.bounded,
      note: null,
    })),
    durations,
    dominant_stage: null,
    missing_stages: input.path === 'cold' && instanceMs === null ? ['instance_in_service'] : [],
    notes: [
      `${input.path} path of component ${component}: copies ${before.current} -> ${target}, put back after`,
    ],
    provenance: { origin: 'measured', tool: `scalegate ${deps.version}`, note: null },
    t_total_end_stage: 'in_service',
    inference_component: measurement,
  };
  writeArtifact('ttotal', input.outFile, artifact);
  return {
    artifact,
    report: renderIcPathReport(artifact, input.outFile),
    exitCode: 0,
    written: [input.outFile],
  };
}
